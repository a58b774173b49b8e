// Testbench top (simulation only): the reference HBA with one port, and on the far side
// of its PHY interface a second sata_link instance in device role, whose transport side
// the C++ test drives as a scripted SATA device (ahci_rtl_test.cpp). The PHY wires are
// direct (no cable delay); PHY status (ready, gen, presence, COMINIT) comes from the test.
module ahci_tb_top #(
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
    output wire [3:0]    dbg_d_link
);

assign dbg_e_state = dut.g_port[0].u_port.e_state;
assign dbg_rxf_count = dut.g_port[0].u_port.rxf_count;
assign dbg_h_link = link_state;
assign dbg_d_link = d_state;

wire [31:0] h2d_data, d2h_data;
wire        d2h_isk;
// Outputs the test does not look at (waiver UNUSEDSIGNAL: simulation top only).
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0]  h2d_isk;
wire [3:0]  awcache, arcache, link_state, d_state;
wire [2:0]  awprot, arprot;
wire        comwake, d_tx_dmat, d_rx_abort, d_bad_prim;
/* verilator lint_on UNUSEDSIGNAL */

ahci_hba #(.NPORTS(1), .DW(DW), .AW(AW)) dut (
    .clk(clk), .rst(rst),
    .s_awaddr(s_awaddr), .s_awvalid(s_awvalid), .s_awready(s_awready), .s_wdata(s_wdata),
    .s_wstrb(s_wstrb), .s_wvalid(s_wvalid), .s_wready(s_wready), .s_bresp(s_bresp),
    .s_bvalid(s_bvalid), .s_bready(s_bready), .s_araddr(s_araddr), .s_arvalid(s_arvalid),
    .s_arready(s_arready), .s_rdata(s_rdata), .s_rresp(s_rresp), .s_rvalid(s_rvalid),
    .s_rready(s_rready), .irq(irq),
    .m_awaddr(m_awaddr), .m_awlen(m_awlen), .m_awsize(m_awsize), .m_awburst(m_awburst),
    .m_awcache(awcache), .m_awprot(awprot), .m_awvalid(m_awvalid), .m_awready(m_awready),
    .m_wdata(m_wdata), .m_wstrb(m_wstrb), .m_wlast(m_wlast), .m_wvalid(m_wvalid),
    .m_wready(m_wready), .m_bresp(m_bresp), .m_bvalid(m_bvalid), .m_bready(m_bready),
    .m_araddr(m_araddr), .m_arlen(m_arlen), .m_arsize(m_arsize), .m_arburst(m_arburst),
    .m_arcache(arcache), .m_arprot(arprot), .m_arvalid(m_arvalid), .m_arready(m_arready),
    .m_rdata(m_rdata), .m_rresp(m_rresp), .m_rlast(m_rlast), .m_rvalid(m_rvalid),
    .m_rready(m_rready),
    .phy_tx_data(h2d_data), .phy_tx_isk(h2d_isk), .phy_rx_data(d2h_data),
    .phy_rx_isk({3'b000, d2h_isk}), .phy_rx_err(1'b0), .phy_ready(phy_ready),
    .phy_gen(phy_gen), .phy_dev_present(phy_dev_present), .phy_cominit(phy_cominit),
    .phy_comreset(phy_comreset), .phy_comwake(comwake), .phy_offline(phy_offline),
    .phy_spd_limit(phy_spd_limit), .link_state(link_state));

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

endmodule
