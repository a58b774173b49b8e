// On-chip command list and received-FIS area of one port (ahci_hba parameter ONCHIP = 1):
// the quirk of AHCI IP that keeps these two structures in local RAM inside its register
// window instead of system memory (docs/rtl-controller.md, quirk onchip_cmd_area).
//
// 320 dwords: 0..255 the command list (32 headers of 32 bytes, AHCI 1.3.1 4.2.2), 256..319
// the 256-byte received-FIS area (4.2.1). Two sides:
//   register side  the host's AXI4-Lite accesses to the window (i_reg_idx, read
//                  combinationally; i_reg_we writes i_reg_wdata at the clock edge);
//   engine side    the port's DMA request interface as ahci_axi_master.v serves it: hold
//                  i_req (i_we, i_idx = the first dword, i_len = 1..16 dwords) until the
//                  o_done pulse; read data comes out one dword per cycle on o_rvalid /
//                  o_rdata / o_ridx, write data is taken from i_wbuf (dword k in bits
//                  32k+31:32k). Never an error: the RAM is always there.
// Not reset (block RAM): the driver writes every header before it issues the slot and
// pre-loads the D2H area it waits on.
module ahci_onchip_ram (
    input  wire         clk,
    input  wire         rst,
    input  wire [8:0]   i_reg_idx,
    output wire [31:0]  o_reg_rdata,
    input  wire         i_reg_we,
    input  wire [31:0]  i_reg_wdata,
    input  wire         i_req,
    input  wire         i_we,
    input  wire [8:0]   i_idx,
    input  wire [4:0]   i_len,
    input  wire [511:0] i_wbuf,
    output reg          o_done,
    output reg          o_rvalid,
    output reg  [31:0]  o_rdata,
    output reg  [3:0]   o_ridx
);

localparam integer WORDS = 320;

reg [31:0] mem [0:WORDS-1];
reg        busy;
reg [4:0]  cnt;      // dwords of the request moved so far
wire [8:0] at = i_idx + {4'd0, cnt};

assign o_reg_rdata = (i_reg_idx < WORDS[8:0]) ? mem[i_reg_idx] : 32'd0;

always @(posedge clk) begin
    o_done <= 1'b0;
    o_rvalid <= 1'b0;
    if (rst) begin
        busy <= 1'b0;
        cnt <= 5'd0;
        o_rdata <= 32'd0;
        o_ridx <= 4'd0;
    end else if (!busy) begin
        // a new request (not the one whose o_done is out this cycle)
        if (i_req && !o_done) begin
            busy <= 1'b1;
            cnt <= 5'd0;
        end
    end else if (!(i_we && i_reg_we)) begin // a register write wins the write port
        if (!i_we) begin
            o_rvalid <= 1'b1;
            o_rdata <= (at < WORDS[8:0]) ? mem[at] : 32'd0;
            o_ridx <= cnt[3:0];
        end
        cnt <= cnt + 5'd1;
        if (cnt + 5'd1 >= i_len) begin
            busy <= 1'b0;
            o_done <= 1'b1;
        end
    end
end

// One write port: the register side's write, else the engine's write beat (which then
// waits a cycle: the driver writes a free slot's header while the engine writes another
// slot's PRDBC or posts a FIS).
always @(posedge clk) begin
    if (i_reg_we) begin
        if (i_reg_idx < WORDS[8:0])
            mem[i_reg_idx] <= i_reg_wdata;
    end else if (!rst && busy && i_we && at < WORDS[8:0]) begin
        mem[at] <= i_wbuf[32 * cnt[3:0] +: 32];
    end
end

endmodule
