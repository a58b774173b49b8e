// Testbench top (simulation only): the reference HBA with one or two ports, and on the far
// side of each port's PHY interface a sata_link instance in device role, whose transport
// side the C++ test drives as a scripted SATA device (ahci_rtl_test.cpp). Port 0's
// signals are d_* / phy_*, port 1's d1_* / phy1_* (idle when NPORTS = 1). The PHY wires are
// direct (no cable delay); PHY status (ready, gen, presence, COMINIT) comes from the test.
module ahci_tb_top #(
    parameter integer NPORTS = 1,   // 1 or 2
    parameter integer DW = 64,
    parameter integer AW = 64
) (
    input  wire          clk,
    input  wire          rst,
    // AXI4-Lite register slave
    input  wire [11:0]   s_awaddr,
    input  wire          s_awvalid,
    output wire          s_awready,
    input  wire [31:0]   s_wdata,
    input  wire [3:0]    s_wstrb,
    input  wire          s_wvalid,
    output wire          s_wready,
    output wire [1:0]    s_bresp,
    output wire          s_bvalid,
    input  wire          s_bready,
    input  wire [11:0]   s_araddr,
    input  wire          s_arvalid,
    output wire          s_arready,
    output wire [31:0]   s_rdata,
    output wire [1:0]    s_rresp,
    output wire          s_rvalid,
    input  wire          s_rready,
    output wire          irq,
    output wire [NPORTS-1:0] irq_port,
    // AXI4 master
    output wire [AW-1:0] m_awaddr,
    output wire [7:0]    m_awlen,
    output wire [2:0]    m_awsize,
    output wire [1:0]    m_awburst,
    output wire          m_awvalid,
    input  wire          m_awready,
    output wire [DW-1:0] m_wdata,
    output wire [DW/8-1:0] m_wstrb,
    output wire          m_wlast,
    output wire          m_wvalid,
    input  wire          m_wready,
    input  wire [1:0]    m_bresp,
    input  wire          m_bvalid,
    output wire          m_bready,
    output wire [AW-1:0] m_araddr,
    output wire [7:0]    m_arlen,
    output wire [2:0]    m_arsize,
    output wire [1:0]    m_arburst,
    output wire          m_arvalid,
    input  wire          m_arready,
    input  wire [DW-1:0] m_rdata,
    input  wire [1:0]    m_rresp,
    input  wire          m_rlast,
    input  wire          m_rvalid,
    output wire          m_rready,
    // PHY status from the test
    input  wire          phy_ready,
    input  wire [1:0]    phy_gen,
    input  wire          phy_dev_present,
    input  wire          phy_cominit,
    input  wire [3:0]    phy_rx_codeerr, // per byte of port 0's receive dword (the test's
    input  wire [3:0]    phy_rx_disperr, // 8b/10b decoder flags; port 1's are 0)
    output wire          phy_comreset,
    output wire          phy_offline,
    output wire [3:0]    phy_spd_limit,
    // device-side link transport (see sata_link.v)
    input  wire          d_tx_req,
    input  wire [31:0]   d_tx_data,
    input  wire          d_tx_valid,
    input  wire          d_tx_last,
    output wire          d_tx_pop,
    output wire          d_tx_done,
    output wire [1:0]    d_tx_status,
    output wire [31:0]   d_rx_data,
    output wire          d_rx_valid,
    output wire          d_rx_sof,
    output wire          d_rx_end,
    output wire          d_rx_crc_ok,
    input  wire          d_rx_verdict,
    input  wire          d_rx_accept,
    // debug: port 0 engine state, rx FIFO fill, link states (hierarchical references)
    output wire [5:0]    dbg_e_state,
    output wire [6:0]    dbg_rxf_count,
    output wire [3:0]    dbg_h_link,
    output wire [3:0]    dbg_d_link,
    // port 1
    input  wire          phy1_ready,
    input  wire [1:0]    phy1_gen,
    input  wire          phy1_dev_present,
    output wire          phy1_comreset,
    output wire          phy1_offline,
    input  wire          d1_tx_req,
    input  wire [31:0]   d1_tx_data,
    input  wire          d1_tx_valid,
    input  wire          d1_tx_last,
    output wire          d1_tx_pop,
    output wire          d1_tx_done,
    output wire [1:0]    d1_tx_status,
    output wire [31:0]   d1_rx_data,
    output wire          d1_rx_valid,
    output wire          d1_rx_sof,
    output wire          d1_rx_end,
    output wire          d1_rx_crc_ok,
    input  wire          d1_rx_verdict,
    input  wire          d1_rx_accept
);

assign dbg_e_state = dut.g_port[0].u_port.e_state;
assign dbg_rxf_count = dut.g_port[0].u_port.rxf_count;
assign dbg_h_link = link_state;
assign dbg_d_link = d_state;

wire [31:0] h2d_data, d2h_data, h2d1_data, d2h1_data;
wire        d2h1_isk;
wire [63:0] tx_all;
wire [7:0]  txk_all;
wire [1:0]  comreset_all, offline_all;
assign h2d_data = tx_all[31:0];
assign h2d1_data = tx_all[63:32];
assign phy_comreset = comreset_all[0];
assign phy1_comreset = comreset_all[1];
assign phy_offline = offline_all[0];
assign phy1_offline = offline_all[1];
wire        d2h_isk;
// Outputs the test does not look at (waiver UNUSEDSIGNAL: simulation top only).
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0]  h2d_isk, h2d1_isk;
wire [63:0] rx_all = {d2h1_data, d2h_data};
wire [7:0]  rxk_all = {3'b000, d2h1_isk, 3'b000, d2h_isk};
wire [7:0]  rxce_all = {4'd0, phy_rx_codeerr};
wire [7:0]  rxde_all = {4'd0, phy_rx_disperr};
wire [1:0]  rdy_all = {phy1_ready, phy_ready};
wire [3:0]  gen_all = {phy1_gen, phy_gen};
wire [1:0]  pres_all = {phy1_dev_present, phy_dev_present};
wire [1:0]  cominit_all = {1'b0, phy_cominit};
wire [7:0]  spd_all;
wire [1:0]  comwake_all;
wire [7:0]  link_all;
wire [3:0]  d1_state;
wire        d1_tx_dmat, d1_rx_abort, d1_bad_prim;
wire [3:0]  awcache, arcache, link_state, d_state;
wire [2:0]  awprot, arprot;
wire        d_tx_dmat, d_rx_abort, d_bad_prim;
wire [NPORTS-1:0]   opt_tx_elecidle, opt_phy_reset, opt_sb_ctrl; // optional PHY pins (PHY_CTL 0, SBW 0)
wire [2*NPORTS-1:0] opt_rate;
/* verilator lint_on UNUSEDSIGNAL */

assign h2d_isk = txk_all[3:0];
assign h2d1_isk = txk_all[7:4];
assign phy_spd_limit = spd_all[3:0];
assign link_state = link_all[3:0];
generate
    if (NPORTS == 1) begin : g_one
        assign tx_all[63:32] = 32'd0;
        assign txk_all[7:4] = 4'd0;
        assign comreset_all[1] = 1'b1;
        assign offline_all[1] = 1'b0;
        assign spd_all[7:4] = 4'd0;
        assign comwake_all[1] = 1'b0;
        assign link_all[7:4] = 4'd0;
    end
endgenerate

ahci_hba #(.NPORTS(NPORTS), .DW(DW), .AW(AW)) dut (
    .clk(clk), .rst(rst),
    .s_awaddr(s_awaddr), .s_awvalid(s_awvalid), .s_awready(s_awready), .s_wdata(s_wdata),
    .s_wstrb(s_wstrb), .s_wvalid(s_wvalid), .s_wready(s_wready), .s_bresp(s_bresp),
    .s_bvalid(s_bvalid), .s_bready(s_bready), .s_araddr(s_araddr), .s_arvalid(s_arvalid),
    .s_arready(s_arready), .s_rdata(s_rdata), .s_rresp(s_rresp), .s_rvalid(s_rvalid),
    .s_rready(s_rready), .irq(irq), .irq_port(irq_port),
    .m_awaddr(m_awaddr), .m_awlen(m_awlen), .m_awsize(m_awsize), .m_awburst(m_awburst),
    .m_awcache(awcache), .m_awprot(awprot), .m_awvalid(m_awvalid), .m_awready(m_awready),
    .m_wdata(m_wdata), .m_wstrb(m_wstrb), .m_wlast(m_wlast), .m_wvalid(m_wvalid),
    .m_wready(m_wready), .m_bresp(m_bresp), .m_bvalid(m_bvalid), .m_bready(m_bready),
    .m_araddr(m_araddr), .m_arlen(m_arlen), .m_arsize(m_arsize), .m_arburst(m_arburst),
    .m_arcache(arcache), .m_arprot(arprot), .m_arvalid(m_arvalid), .m_arready(m_arready),
    .m_rdata(m_rdata), .m_rresp(m_rresp), .m_rlast(m_rlast), .m_rvalid(m_rvalid),
    .m_rready(m_rready),
    .phy_refclk(1'b0), .phy_tx_clk(1'b0), .phy_rx_clk({NPORTS{1'b0}}), // one clock (PHY_W 32, no EB)
    .phy_tx_data(tx_all[32*NPORTS-1:0]), .phy_tx_isk(txk_all[4*NPORTS-1:0]),
    .phy_rx_data(rx_all[32*NPORTS-1:0]), .phy_rx_isk(rxk_all[4*NPORTS-1:0]),
    .phy_rx_codeerr(rxce_all[4*NPORTS-1:0]), .phy_rx_disperr(rxde_all[4*NPORTS-1:0]),
    .phy_ready(rdy_all[NPORTS-1:0]),
    .phy_gen(gen_all[2*NPORTS-1:0]), .phy_dev_present(pres_all[NPORTS-1:0]),
    .phy_cominit(cominit_all[NPORTS-1:0]),
    .phy_comreset(comreset_all[NPORTS-1:0]), .phy_comwake(comwake_all[NPORTS-1:0]),
    .phy_offline(offline_all[NPORTS-1:0]), .phy_spd_limit(spd_all[4*NPORTS-1:0]),
    .phy_tx_elecidle(opt_tx_elecidle), .phy_rx_elecidle({NPORTS{1'b0}}),
    .phy_comwake_det({NPORTS{1'b0}}), .phy_rate(opt_rate), .phy_rate_ack({NPORTS{1'b0}}),
    .phy_reset(opt_phy_reset), .phy_reset_done({NPORTS{1'b1}}),
    .phy_sb_ctrl(opt_sb_ctrl), .phy_sb_status({NPORTS{1'b0}}),
    .link_state(link_all[4*NPORTS-1:0]));

sata_link device (
    .clk(clk), .rst(rst), .i_host(1'b0), .i_phy_rdy(phy_ready),
    .o_phy_tx_data(d2h_data), .o_phy_tx_isk(d2h_isk),
    .i_phy_rx_data(h2d_data), .i_phy_rx_isk(h2d_isk[0]),
    .i_tx_req(d_tx_req), .i_tx_data(d_tx_data), .i_tx_valid(d_tx_valid), .i_tx_last(d_tx_last),
    .o_tx_pop(d_tx_pop), .o_tx_done(d_tx_done), .o_tx_status(d_tx_status), .o_tx_dmat(d_tx_dmat),
    .o_rx_data(d_rx_data), .o_rx_valid(d_rx_valid), .o_rx_sof(d_rx_sof), .o_rx_end(d_rx_end),
    .o_rx_crc_ok(d_rx_crc_ok), .o_rx_abort(d_rx_abort), .i_rx_full(1'b0), .i_rx_dmat(1'b0),
    .i_rx_verdict(d_rx_verdict), .i_rx_accept(d_rx_accept), .o_bad_prim(d_bad_prim),
    .o_state(d_state));

sata_link device1 (
    .clk(clk), .rst(rst), .i_host(1'b0), .i_phy_rdy(phy1_ready),
    .o_phy_tx_data(d2h1_data), .o_phy_tx_isk(d2h1_isk),
    .i_phy_rx_data(h2d1_data), .i_phy_rx_isk(h2d1_isk[0]),
    .i_tx_req(d1_tx_req), .i_tx_data(d1_tx_data), .i_tx_valid(d1_tx_valid),
    .i_tx_last(d1_tx_last), .o_tx_pop(d1_tx_pop), .o_tx_done(d1_tx_done),
    .o_tx_status(d1_tx_status), .o_tx_dmat(d1_tx_dmat), .o_rx_data(d1_rx_data),
    .o_rx_valid(d1_rx_valid), .o_rx_sof(d1_rx_sof), .o_rx_end(d1_rx_end),
    .o_rx_crc_ok(d1_rx_crc_ok), .o_rx_abort(d1_rx_abort), .i_rx_full(1'b0), .i_rx_dmat(1'b0),
    .i_rx_verdict(d1_rx_verdict), .i_rx_accept(d1_rx_accept), .o_bad_prim(d1_bad_prim),
    .o_state(d1_state));

endmodule
