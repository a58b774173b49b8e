// Example only (docs/rtl-controller.md, adapters): the end-to-end check of the APB
// adapter on the real shell. A DUT top with the shell's standard ports whose register
// slave is reached through two bridges back to back:
//
//   shell AXI4-Lite -> satasim_axil2apb (the adapter a vendor uses, APB4)
//                   -> ahci_apb_slave (stands for a vendor controller's APB register slave)
//                   -> ahci_hba's AXI4-Lite register slave
//
// model/ahci_rtl/profile-apb.yaml builds it; tools/run_rtl_suite.sh takes that profile.
// A vendor's wrapper looks the same with its controller in place of the last two.
module ahci_hba_apb #(
    parameter integer NPORTS = 1,
    parameter integer DW = 64,
    parameter integer AW = 64,
    parameter integer ISS = 3,
    parameter integer NCS = 31,
    parameter integer SNCQ = 1
) (
    input  wire                 clk,
    input  wire                 rst,        // power-on reset, synchronous, active high
    // AXI4-Lite register slave
    input  wire [11:0]          s_awaddr,
    input  wire                 s_awvalid,
    output wire                 s_awready,
    input  wire [31:0]          s_wdata,
    input  wire [3:0]           s_wstrb,
    input  wire                 s_wvalid,
    output wire                 s_wready,
    output wire [1:0]           s_bresp,
    output wire                 s_bvalid,
    input  wire                 s_bready,
    input  wire [11:0]          s_araddr,
    input  wire                 s_arvalid,
    output wire                 s_arready,
    output wire [31:0]          s_rdata,
    output wire [1:0]           s_rresp,
    output wire                 s_rvalid,
    input  wire                 s_rready,
    output wire                 irq,
    output wire [NPORTS-1:0]    irq_port,
    // AXI4 DMA master
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

wire [11:0] paddr;
wire        psel, penable, pwrite, pready, pslverr;
wire [31:0] pwdata, prdata;
wire [3:0]  pstrb;
/* verilator lint_off UNUSEDSIGNAL */
wire [2:0]  pprot;  // ahci_hba has no protection checks
/* verilator lint_on UNUSEDSIGNAL */

satasim_axil2apb #(.ADDR_W(12), .APB4(1)) adapter (
    .clk(clk), .rst(rst),
    .s_awaddr(s_awaddr), .s_awvalid(s_awvalid), .s_awready(s_awready),
    .s_wdata(s_wdata), .s_wstrb(s_wstrb), .s_wvalid(s_wvalid), .s_wready(s_wready),
    .s_bresp(s_bresp), .s_bvalid(s_bvalid), .s_bready(s_bready),
    .s_araddr(s_araddr), .s_arvalid(s_arvalid), .s_arready(s_arready),
    .s_rdata(s_rdata), .s_rresp(s_rresp), .s_rvalid(s_rvalid), .s_rready(s_rready),
    .m_paddr(paddr), .m_psel(psel), .m_penable(penable), .m_pwrite(pwrite),
    .m_pwdata(pwdata), .m_pstrb(pstrb), .m_pprot(pprot),
    .m_prdata(prdata), .m_pready(pready), .m_pslverr(pslverr));

wire [11:0] r_awaddr, r_araddr;
wire        r_awvalid, r_awready, r_wvalid, r_wready, r_bvalid, r_bready;
wire        r_arvalid, r_arready, r_rvalid, r_rready;
wire [31:0] r_wdata, r_rdata;
wire [3:0]  r_wstrb;
wire [1:0]  r_bresp, r_rresp;

ahci_apb_slave apb (
    .clk(clk), .rst(rst),
    .paddr(paddr), .psel(psel), .penable(penable), .pwrite(pwrite), .pwdata(pwdata),
    .pstrb(pstrb), .prdata(prdata), .pready(pready), .pslverr(pslverr),
    .m_awaddr(r_awaddr), .m_awvalid(r_awvalid), .m_awready(r_awready),
    .m_wdata(r_wdata), .m_wstrb(r_wstrb), .m_wvalid(r_wvalid), .m_wready(r_wready),
    .m_bresp(r_bresp), .m_bvalid(r_bvalid), .m_bready(r_bready),
    .m_araddr(r_araddr), .m_arvalid(r_arvalid), .m_arready(r_arready),
    .m_rdata(r_rdata), .m_rresp(r_rresp), .m_rvalid(r_rvalid), .m_rready(r_rready));

/* verilator lint_off UNUSEDSIGNAL */
wire [NPORTS-1:0]   opt_tx_elecidle, opt_phy_reset, opt_sb_ctrl;
wire [2*NPORTS-1:0] opt_rate;
/* verilator lint_on UNUSEDSIGNAL */
ahci_hba #(.NPORTS(NPORTS), .DW(DW), .AW(AW), .ISS(ISS), .NCS(NCS), .SNCQ(SNCQ)) hba (
    .clk(clk), .rst(rst),
    .s_awaddr(r_awaddr), .s_awvalid(r_awvalid), .s_awready(r_awready),
    .s_wdata(r_wdata), .s_wstrb(r_wstrb), .s_wvalid(r_wvalid), .s_wready(r_wready),
    .s_bresp(r_bresp), .s_bvalid(r_bvalid), .s_bready(r_bready),
    .s_araddr(r_araddr), .s_arvalid(r_arvalid), .s_arready(r_arready),
    .s_rdata(r_rdata), .s_rresp(r_rresp), .s_rvalid(r_rvalid), .s_rready(r_rready),
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
