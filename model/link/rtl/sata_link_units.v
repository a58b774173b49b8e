// Test top for the link layer's CRC and scrambler functions (Verilator unit tests):
// purely combinational views of one CRC step and one 32-bit scrambler step.
module sata_link_units (
    input  wire [31:0] i_crc,
    input  wire [31:0] i_data,
    output wire [31:0] o_crc,
    input  wire [15:0] i_lfsr,
    output wire [15:0] o_lfsr,
    output wire [31:0] o_scr_word
);
`include "sata_link_fn.vh"
assign o_crc = crc32_step(i_crc, i_data);
wire [47:0] l = lfsr32(i_lfsr);
assign o_lfsr = l[47:32];
assign o_scr_word = l[31:0];
endmodule
