// Example (docs/rtl-controller.md, clocks): the reference controller with a register
// clock of its own. A DUT top with the shell's standard ports and reg_clk / reg_rst
// (profile key interface.reg_clock_mhz) whose register slave is reached through the
// AXI4-Lite clock-domain crossing satasim_axil_cdc (the module a vendor whose register
// slave runs on its core clock reuses):
//
//   shell AXI4-Lite (reg_clk) -> satasim_axil_cdc -> ahci_hba's AXI4-Lite slave (clk)
//
// Everything else of ahci_hba (registers, DMA master, link layers, PHY words) runs on clk,
// one clock with PHY_W 32 and no elastic buffer, as in profile.yaml. The interrupt line is
// ahci_hba's, in clk's domain: a level that stays up until software clears the cause
// through a register write, so a receiver in any domain synchronizes it with two
// flip-flops of its own (an interrupt controller does; the shell samples it as a level).
// A write that clears an interrupt returns its B only after the core took it (the CDC's
// acknowledge comes back after the core slave's B), so the line the shell samples at the
// access's end already shows the write.
//
// model/ahci_rtl/profile-regclk.yaml builds it; tools/run_rtl_suite.sh takes that profile.
module ahci_hba_cdc #(
    parameter integer NPORTS = 1,
    parameter integer DW = 64,
    parameter integer AW = 64,
    parameter integer ISS = 3,
    parameter integer NCS = 31,
    parameter integer SNCQ = 1,
    parameter integer SAW = 12,
    parameter integer SYNC = 2
) (
    input  wire                 clk,        // core clock: registers, DMA, link, PHY words
    input  wire                 rst,        // power-on reset, synchronous to clk, active high
    input  wire                 reg_clk,    // register clock (the shell's register master)
    input  wire                 reg_rst,    // power-on reset, synchronous to reg_clk
    // AXI4-Lite register slave, on reg_clk
    input  wire [SAW-1:0]       s_awaddr,
    input  wire                 s_awvalid,
    output wire                 s_awready,
    input  wire [31:0]          s_wdata,
    input  wire [3:0]           s_wstrb,
    input  wire                 s_wvalid,
    output wire                 s_wready,
    output wire [1:0]           s_bresp,
    output wire                 s_bvalid,
    input  wire                 s_bready,
    input  wire [SAW-1:0]       s_araddr,
    input  wire                 s_arvalid,
    output wire                 s_arready,
    output wire [31:0]          s_rdata,
    output wire [1:0]           s_rresp,
    output wire                 s_rvalid,
    input  wire                 s_rready,
    output wire                 irq,        // clk's domain (a level, see above)
    output wire [NPORTS-1:0]    irq_port,
    // AXI4 DMA master, on clk
    output wire [AW-1:0]        m_awaddr,
    output wire [7:0]           m_awlen,
    output wire [2:0]           m_awsize,
    output wire [1:0]           m_awburst,
    output wire [3:0]           m_awcache,
    output wire [2:0]           m_awprot,
    output wire                 m_awvalid,
    input  wire                 m_awready,
    output wire [DW-1:0]        m_wdata,
    output wire [DW/8-1:0]      m_wstrb,
    output wire                 m_wlast,
    output wire                 m_wvalid,
    input  wire                 m_wready,
    input  wire [1:0]           m_bresp,
    input  wire                 m_bvalid,
    output wire                 m_bready,
    output wire [AW-1:0]        m_araddr,
    output wire [7:0]           m_arlen,
    output wire [2:0]           m_arsize,
    output wire [1:0]           m_arburst,
    output wire [3:0]           m_arcache,
    output wire [2:0]           m_arprot,
    output wire                 m_arvalid,
    input  wire                 m_arready,
    input  wire [DW-1:0]        m_rdata,
    input  wire [1:0]           m_rresp,
    input  wire                 m_rlast,
    input  wire                 m_rvalid,
    output wire                 m_rready,
    // per-port PHY interface
    output wire [32*NPORTS-1:0] phy_tx_data,
    output wire [4*NPORTS-1:0]  phy_tx_isk,
    input  wire [32*NPORTS-1:0] phy_rx_data,
    input  wire [4*NPORTS-1:0]  phy_rx_isk,
    input  wire [4*NPORTS-1:0]  phy_rx_codeerr,
    input  wire [4*NPORTS-1:0]  phy_rx_disperr,
    input  wire [NPORTS-1:0]    phy_ready,
    input  wire [2*NPORTS-1:0]  phy_gen,
    input  wire [NPORTS-1:0]    phy_dev_present,
    input  wire [NPORTS-1:0]    phy_cominit,
    output wire [NPORTS-1:0]    phy_comreset,
    output wire [NPORTS-1:0]    phy_comwake,
    output wire [NPORTS-1:0]    phy_offline,
    output wire [4*NPORTS-1:0]  phy_spd_limit,
    output wire [4*NPORTS-1:0]  link_state
);

wire [SAW-1:0] c_awaddr, c_araddr;
wire           c_awvalid, c_awready, c_wvalid, c_wready, c_bvalid, c_bready;
wire           c_arvalid, c_arready, c_rvalid, c_rready;
wire [31:0]    c_wdata, c_rdata;
wire [3:0]     c_wstrb;
wire [1:0]     c_bresp, c_rresp;

satasim_axil_cdc #(.ADDR_W(SAW), .SYNC(SYNC)) cdc (
    .s_clk(reg_clk), .s_rst(reg_rst),
    .s_awaddr(s_awaddr), .s_awvalid(s_awvalid), .s_awready(s_awready),
    .s_wdata(s_wdata), .s_wstrb(s_wstrb), .s_wvalid(s_wvalid), .s_wready(s_wready),
    .s_bresp(s_bresp), .s_bvalid(s_bvalid), .s_bready(s_bready),
    .s_araddr(s_araddr), .s_arvalid(s_arvalid), .s_arready(s_arready),
    .s_rdata(s_rdata), .s_rresp(s_rresp), .s_rvalid(s_rvalid), .s_rready(s_rready),
    .m_clk(clk), .m_rst(rst),
    .m_awaddr(c_awaddr), .m_awvalid(c_awvalid), .m_awready(c_awready),
    .m_wdata(c_wdata), .m_wstrb(c_wstrb), .m_wvalid(c_wvalid), .m_wready(c_wready),
    .m_bresp(c_bresp), .m_bvalid(c_bvalid), .m_bready(c_bready),
    .m_araddr(c_araddr), .m_arvalid(c_arvalid), .m_arready(c_arready),
    .m_rdata(c_rdata), .m_rresp(c_rresp), .m_rvalid(c_rvalid), .m_rready(c_rready));

/* verilator lint_off UNUSEDSIGNAL */
wire [NPORTS-1:0]   opt_tx_elecidle, opt_phy_reset, opt_sb_ctrl;
wire [2*NPORTS-1:0] opt_rate;
/* verilator lint_on UNUSEDSIGNAL */
ahci_hba #(.NPORTS(NPORTS), .DW(DW), .AW(AW), .ISS(ISS), .NCS(NCS), .SNCQ(SNCQ), .SAW(SAW)) hba (
    .clk(clk), .rst(rst),
    .s_awaddr(c_awaddr), .s_awvalid(c_awvalid), .s_awready(c_awready),
    .s_wdata(c_wdata), .s_wstrb(c_wstrb), .s_wvalid(c_wvalid), .s_wready(c_wready),
    .s_bresp(c_bresp), .s_bvalid(c_bvalid), .s_bready(c_bready),
    .s_araddr(c_araddr), .s_arvalid(c_arvalid), .s_arready(c_arready),
    .s_rdata(c_rdata), .s_rresp(c_rresp), .s_rvalid(c_rvalid), .s_rready(c_rready),
    .irq(irq),
    .irq_port(irq_port),
    .phy_refclk(1'b0), .phy_tx_clk(1'b0), .phy_rx_clk({NPORTS{1'b0}}), // one clock (PHY_W 32, no EB)
    .m_awaddr(m_awaddr),
    .m_awlen(m_awlen),
    .m_awsize(m_awsize),
    .m_awburst(m_awburst),
    .m_awcache(m_awcache),
    .m_awprot(m_awprot),
    .m_awvalid(m_awvalid),
    .m_awready(m_awready),
    .m_wdata(m_wdata),
    .m_wstrb(m_wstrb),
    .m_wlast(m_wlast),
    .m_wvalid(m_wvalid),
    .m_wready(m_wready),
    .m_bresp(m_bresp),
    .m_bvalid(m_bvalid),
    .m_bready(m_bready),
    .m_araddr(m_araddr),
    .m_arlen(m_arlen),
    .m_arsize(m_arsize),
    .m_arburst(m_arburst),
    .m_arcache(m_arcache),
    .m_arprot(m_arprot),
    .m_arvalid(m_arvalid),
    .m_arready(m_arready),
    .m_rdata(m_rdata),
    .m_rresp(m_rresp),
    .m_rlast(m_rlast),
    .m_rvalid(m_rvalid),
    .m_rready(m_rready),
    .phy_tx_data(phy_tx_data),
    .phy_tx_isk(phy_tx_isk),
    .phy_rx_data(phy_rx_data),
    .phy_rx_isk(phy_rx_isk),
    .phy_rx_codeerr(phy_rx_codeerr), .phy_rx_disperr(phy_rx_disperr),
    .phy_ready(phy_ready),
    .phy_gen(phy_gen),
    .phy_dev_present(phy_dev_present),
    .phy_cominit(phy_cominit),
    .phy_comreset(phy_comreset),
    .phy_comwake(phy_comwake),
    .phy_offline(phy_offline),
    .phy_spd_limit(phy_spd_limit),
    // the optional PHY pins, tied off (ahci_hba's PHY_CTL and SBW at 0; the profile lists none)
    .phy_tx_elecidle(opt_tx_elecidle),
    .phy_rx_elecidle({NPORTS{1'b0}}),
    .phy_comwake_det({NPORTS{1'b0}}),
    .phy_rate(opt_rate),
    .phy_rate_ack({NPORTS{1'b0}}),
    .phy_reset(opt_phy_reset),
    .phy_reset_done({NPORTS{1'b1}}),
    .phy_sb_ctrl(opt_sb_ctrl),
    .phy_sb_status({NPORTS{1'b0}}),
    .link_state(link_state));

endmodule
