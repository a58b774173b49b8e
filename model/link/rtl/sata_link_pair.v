// Simulation top: the two ends of one SATA link, host role and device role, in one
// verilated model, so a dword clock costs one model evaluation per edge instead of one per
// instance. The cable is NOT in here: each side's PHY output comes out and the peer's PHY
// input goes in, so the C++ wrapper (model/link/link_rtl.cpp) keeps the wire delay and the
// fault hook that rewrites dwords in flight. h_* ports belong to the host instance, d_* to
// the device instance; see sata_link.v for their meaning.
module sata_link_pair (
    input  wire        clk,
    input  wire        rst,
    input  wire        i_phy_rdy,
    // host instance
    output wire [31:0] h_phy_tx_data,
    output wire        h_phy_tx_isk,
    input  wire [31:0] h_phy_rx_data,
    input  wire        h_phy_rx_isk,
    input  wire        h_tx_req,
    input  wire [31:0] h_tx_data,
    input  wire        h_tx_valid,
    input  wire        h_tx_last,
    output wire        h_tx_pop,
    output wire        h_tx_done,
    output wire [1:0]  h_tx_status,
    output wire        h_tx_dmat,
    output wire [31:0] h_rx_data,
    output wire        h_rx_valid,
    output wire        h_rx_sof,
    output wire        h_rx_end,
    output wire        h_rx_crc_ok,
    output wire        h_rx_abort,
    input  wire        h_rx_full,
    input  wire        h_rx_dmat,
    input  wire        h_rx_verdict,
    input  wire        h_rx_accept,
    output wire        h_bad_prim,
    output wire [3:0]  h_state,
    // device instance
    output wire [31:0] d_phy_tx_data,
    output wire        d_phy_tx_isk,
    input  wire [31:0] d_phy_rx_data,
    input  wire        d_phy_rx_isk,
    input  wire        d_tx_req,
    input  wire [31:0] d_tx_data,
    input  wire        d_tx_valid,
    input  wire        d_tx_last,
    output wire        d_tx_pop,
    output wire        d_tx_done,
    output wire [1:0]  d_tx_status,
    output wire        d_tx_dmat,
    output wire [31:0] d_rx_data,
    output wire        d_rx_valid,
    output wire        d_rx_sof,
    output wire        d_rx_end,
    output wire        d_rx_crc_ok,
    output wire        d_rx_abort,
    input  wire        d_rx_full,
    input  wire        d_rx_dmat,
    input  wire        d_rx_verdict,
    input  wire        d_rx_accept,
    output wire        d_bad_prim,
    output wire [3:0]  d_state
);

sata_link host (
    .clk(clk), .rst(rst), .i_host(1'b1), .i_phy_rdy(i_phy_rdy),
    .o_phy_tx_data(h_phy_tx_data), .o_phy_tx_isk(h_phy_tx_isk),
    .i_phy_rx_data(h_phy_rx_data), .i_phy_rx_isk(h_phy_rx_isk),
    .i_tx_req(h_tx_req), .i_tx_data(h_tx_data), .i_tx_valid(h_tx_valid), .i_tx_last(h_tx_last),
    .o_tx_pop(h_tx_pop), .o_tx_done(h_tx_done), .o_tx_status(h_tx_status), .o_tx_dmat(h_tx_dmat),
    .o_rx_data(h_rx_data), .o_rx_valid(h_rx_valid), .o_rx_sof(h_rx_sof), .o_rx_end(h_rx_end),
    .o_rx_crc_ok(h_rx_crc_ok), .o_rx_abort(h_rx_abort), .i_rx_full(h_rx_full),
    .i_rx_dmat(h_rx_dmat), .i_rx_verdict(h_rx_verdict), .i_rx_accept(h_rx_accept),
    .o_bad_prim(h_bad_prim), .o_state(h_state));

sata_link device (
    .clk(clk), .rst(rst), .i_host(1'b0), .i_phy_rdy(i_phy_rdy),
    .o_phy_tx_data(d_phy_tx_data), .o_phy_tx_isk(d_phy_tx_isk),
    .i_phy_rx_data(d_phy_rx_data), .i_phy_rx_isk(d_phy_rx_isk),
    .i_tx_req(d_tx_req), .i_tx_data(d_tx_data), .i_tx_valid(d_tx_valid), .i_tx_last(d_tx_last),
    .o_tx_pop(d_tx_pop), .o_tx_done(d_tx_done), .o_tx_status(d_tx_status), .o_tx_dmat(d_tx_dmat),
    .o_rx_data(d_rx_data), .o_rx_valid(d_rx_valid), .o_rx_sof(d_rx_sof), .o_rx_end(d_rx_end),
    .o_rx_crc_ok(d_rx_crc_ok), .o_rx_abort(d_rx_abort), .i_rx_full(d_rx_full),
    .i_rx_dmat(d_rx_dmat), .i_rx_verdict(d_rx_verdict), .i_rx_accept(d_rx_accept),
    .o_bad_prim(d_bad_prim), .o_state(d_state));

endmodule
