// PHY adapter of one port: between the port's link layer (one 32-bit dword per clock, K
// flag for byte 0, see sata_link.v) and the shell's per-port PHY interface.
//
// Today the shell interface is the same dword stream with one K flag per byte (4 bits)
// and one receive error flag (8b/10b code or disparity error): this module only maps
// the K flags and reports a K flag on bytes 1..3 (no SATA primitive has one) or an error
// flag as a decode error (PxSERR.DIAG.B, via the port). This is the place where the
// 8-bit-symbol PIPE-like interface of issue 15 goes: 16- or 32-bit data at the PHY
// clock with per-byte K flags, dword alignment, the elastic buffer / clock-domain
// crossing from the recovered receive clock, and electrical idle; a later 10-bit mode
// (8b/10b in the controller) would also live here.
module ahci_phy_adapter (
    input  wire        clk,
    // link side
    input  wire [31:0] i_link_tx_data,
    input  wire        i_link_tx_isk,
    output wire [31:0] o_link_rx_data,
    output wire        o_link_rx_isk,
    output reg         o_link_rx_err,   // pulse: decode / disparity error on this dword
    // shell PHY side
    output wire [31:0] o_phy_tx_data,
    output wire [3:0]  o_phy_tx_isk,
    input  wire [31:0] i_phy_rx_data,
    input  wire [3:0]  i_phy_rx_isk,
    input  wire        i_phy_rx_err
);

assign o_phy_tx_data = i_link_tx_data;
assign o_phy_tx_isk = {3'b000, i_link_tx_isk};
assign o_link_rx_data = i_phy_rx_data;
assign o_link_rx_isk = i_phy_rx_isk[0];

always @(posedge clk)
    o_link_rx_err <= i_phy_rx_err || i_phy_rx_isk[3:1] != 3'b000;

endmodule
