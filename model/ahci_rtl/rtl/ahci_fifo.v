// Synchronous FIFO with a look-ahead read port, used for the per-port transmit and receive
// dword queues between the AHCI engine and the link layer.
//
// o_head is the oldest entry; o_head2 the one behind it (the link layer's transmit side
// takes a dword, reports it with o_tx_pop one cycle later, and needs the next dword in
// that same cycle, see sata_link.v). Writes into a full FIFO and reads from an empty one
// are ignored (the users check o_count first). i_flush empties it.
module ahci_fifo #(
    parameter integer W  = 34,   // entry width
    parameter integer AW = 6     // log2(depth)
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          i_flush,
    input  wire          i_push,
    input  wire [W-1:0]  i_data,
    input  wire          i_pop,
    output wire [W-1:0]  o_head,
    output wire [W-1:0]  o_head2,
    output reg  [AW:0]   o_count
);

reg [W-1:0]  mem [0:(1<<AW)-1];
reg [AW-1:0] rd, wr;

wire do_push = i_push && o_count != (1 << AW);
wire do_pop  = i_pop && o_count != 0;

assign o_head  = mem[rd];
assign o_head2 = mem[rd + 1'b1];

always @(posedge clk) begin
    if (do_push)
        mem[wr] <= i_data;
    if (rst || i_flush) begin
        rd <= {AW{1'b0}};
        wr <= {AW{1'b0}};
        o_count <= {(AW+1){1'b0}};
    end else begin
        if (do_push)
            wr <= wr + 1'b1;
        if (do_pop)
            rd <= rd + 1'b1;
        o_count <= o_count + {{AW{1'b0}}, do_push} - {{AW{1'b0}}, do_pop};
    end
end

endmodule
