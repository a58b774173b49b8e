// Asynchronous FIFO (docs/rtl-controller.md, separate register and DMA clocks): one
// valid/ready channel from a writing clock domain to a reading one, the building block of
// satasim_axi_cdc (one instance per AXI channel). The two clocks are asynchronous: any
// ratio, any phase.
//
//   Storage: DEPTH entries (a power of 2, 2 or more) written on w_clk, plus the output
//   register on r_clk. Pointers: binary counters of log2(DEPTH) + 1 bits (the extra bit
//   tells full from empty), each kept beside its Gray-coded copy in a register of its own
//   domain (w_gray, r_gray). Only the Gray copies cross, each through SYNC flip-flops
//   (parameter, 2 or more): a Gray count changes one bit per increment, so a sample taken
//   while it changes resolves to the value before or after that increment, never to a
//   value it never had (a binary count may change several bits at once and be caught half
//   way). The receiving side turns the synchronized Gray value back into binary, in its
//   own domain, and compares:
//     write side: full when the entries written minus the entries read (as synchronized)
//       equal DEPTH; w_ready = !full. A read seen late only makes the FIFO look fuller.
//     read side: empty when the read pointer equals the synchronized write pointer. A
//       write seen late only makes it look emptier. The entry at the read pointer was
//       written before the write pointer that covers it was registered, so it has been
//       stable for at least SYNC r_clk edges when the read side loads it.
//   The read side loads the entry at its pointer into r_data / r_valid (a register: the
//   reader sees VALID and payload from flip-flops of its own domain) whenever the output
//   register is free or being taken, and holds it until r_ready (AXI-style handshake,
//   IHI0022E A3.2.1: VALID stays up with its payload until READY; VALID never depends on
//   READY of the same cycle, READY here never on VALID).
//
//   Guarantees: every entry accepted on the write side (w_valid && w_ready at a w_clk
//   edge) appears on the read side exactly once, unchanged, in order. No combinational
//   path crosses the domains: w_ready is a function of w_clk registers only, r_valid /
//   r_data are r_clk registers; what crosses is the Gray pointers (through the
//   synchronizers) and the storage array (read by the r_clk domain only at entries the
//   synchronized write pointer says are written). Latency: an entry written at a w_clk
//   edge reaches r_valid at the (SYNC + 1)th r_clk edge after it (SYNC synchronizer edges,
//   one for the output register) if the output register is free; a read frees its entry
//   for the writer SYNC w_clk edges after it.
//
//   Static timing (the usual constraints of any Gray-pointer FIFO; not checked here): the
//   Gray pointer into the first synchronizer flip-flop and the storage array into r_data
//   need a max-delay of one r_clk (w_clk for r_gray) period, datapath only, instead of
//   a clock-to-clock relation.
//
//   Resets: w_rst (synchronous to w_clk) clears the write pointer and the write side's
//   synchronizer; r_rst (to r_clk) the read pointer, the read side's synchronizer and
//   r_valid. Both must be asserted at power-on (the shell holds each for 8 cycles of its
//   clock, from the same instant) and not alone later (one side's pointer would restart
//   while the other's still counts).
//
// Planted defects for the crossing's testbench (adapters/tb/axi_cdc_test.cpp,
// scripts/axi_cdc_bugs.sh; never defined in a normal build, the code is then as shown):
//   SATASIM_AXI_CDC_BUG_BINARY     binary pointers cross instead of Gray ones
//   SATASIM_AXI_CDC_BUG_SYNC1_W2R  one synchronizer flip-flop on the write pointer's way
//   SATASIM_AXI_CDC_BUG_SYNC1_R2W  one synchronizer flip-flop on the read pointer's way
//   SATASIM_AXI_CDC_BUG_FULL       full one entry late (DEPTH + 1 entries accepted)
//   SATASIM_AXI_CDC_BUG_DUP        r_valid not dropped when its entry is taken and no
//                                  other waits (the last entry read twice)
module satasim_async_fifo #(
    parameter integer WIDTH = 8,  // entry bits
    parameter integer DEPTH = 4,  // entries: a power of 2, 2 or more
    parameter integer SYNC = 2    // synchronizer flip-flops per pointer (2 or more)
) (
    // write side
    input  wire             w_clk,
    input  wire             w_rst,
    input  wire [WIDTH-1:0] w_data,
    input  wire             w_valid,
    output wire             w_ready,
    // read side
    input  wire             r_clk,
    input  wire             r_rst,
    output reg  [WIDTH-1:0] r_data,
    output reg              r_valid,
    input  wire             r_ready
);

function integer log2(input integer v);
    integer i;
    begin
        log2 = 0;
        for (i = 1; i < v; i = i * 2)
            log2 = log2 + 1;
    end
endfunction

localparam integer A = log2(DEPTH); // storage address bits; pointers have A + 1

// DEPTH must be a power of 2 (the pointers wrap at 2 x DEPTH) of at least 2, SYNC at least
// 2: anything else fails elaboration on a module that does not exist.
generate
    if (DEPTH < 2 || (1 << A) != DEPTH || SYNC < 2) begin : bad_parameters
        satasim_async_fifo_needs_power_of_2_depth_and_sync_of_2_or_more bad();
    end
endgenerate

// the code that crosses: Gray (normally) or plain binary (the planted defect)
function [A:0] enc(input [A:0] b);
`ifdef SATASIM_AXI_CDC_BUG_BINARY
    enc = b;
`else
    enc = b ^ (b >> 1);
`endif
endfunction
function [A:0] dec(input [A:0] g);
    integer i;
    begin
`ifdef SATASIM_AXI_CDC_BUG_BINARY
        dec = g;
`else
        dec[A] = g[A];
        for (i = A - 1; i >= 0; i = i - 1)
            dec[i] = dec[i + 1] ^ g[i];
`endif
    end
endfunction

`ifdef SATASIM_AXI_CDC_BUG_SYNC1_W2R
localparam integer W2R = 1;
`else
localparam integer W2R = SYNC;
`endif
`ifdef SATASIM_AXI_CDC_BUG_SYNC1_R2W
localparam integer R2W = 1;
`else
localparam integer R2W = SYNC;
`endif
`ifdef SATASIM_AXI_CDC_BUG_FULL
localparam [A:0] FULL = DEPTH[A:0] + 1'b1;
`else
localparam [A:0] FULL = DEPTH[A:0];
`endif

reg [WIDTH-1:0] mem [0:DEPTH-1];

// ---- write side (w_clk)
reg  [A:0]       w_bin;
reg  [A:0]       w_gray /* verilator public_flat_rd */; // crosses (public: the testbench checks it)
reg  [(A+1)*SYNC-1:0] r_gray_sync;                     // r_gray into w_clk: [A:0] first
wire [A:0]       r_bin_w = dec(r_gray_sync[(A+1)*R2W-1 -: A+1]);
wire [A:0]       w_next = w_bin + 1'b1;
assign w_ready = w_bin - r_bin_w != FULL;

always @(posedge w_clk) begin
    if (w_rst) begin
        w_bin <= {(A+1){1'b0}};
        w_gray <= {(A+1){1'b0}};
        r_gray_sync <= {((A+1)*SYNC){1'b0}};
    end else begin
        r_gray_sync <= {r_gray_sync[(A+1)*(SYNC-1)-1:0], r_gray};
        if (w_valid && w_ready) begin
            w_bin <= w_next;
            w_gray <= enc(w_next);
        end
    end
end

always @(posedge w_clk)
    if (w_valid && w_ready)
        mem[w_bin[A-1:0]] <= w_data;

// ---- read side (r_clk)
reg  [A:0]       r_bin;
reg  [A:0]       r_gray /* verilator public_flat_rd */; // crosses
reg  [(A+1)*SYNC-1:0] w_gray_sync;                     // w_gray into r_clk: [A:0] first
wire [A:0]       w_bin_r = dec(w_gray_sync[(A+1)*W2R-1 -: A+1]);
wire [A:0]       r_next = r_bin + 1'b1;
wire             load = r_bin != w_bin_r && (!r_valid || r_ready);

always @(posedge r_clk) begin
    if (r_rst) begin
        r_bin <= {(A+1){1'b0}};
        r_gray <= {(A+1){1'b0}};
        w_gray_sync <= {((A+1)*SYNC){1'b0}};
        r_valid <= 1'b0;
    end else begin
        w_gray_sync <= {w_gray_sync[(A+1)*(SYNC-1)-1:0], w_gray};
        if (load) begin
            r_valid <= 1'b1;
            r_bin <= r_next;
            r_gray <= enc(r_next);
`ifndef SATASIM_AXI_CDC_BUG_DUP
        end else if (r_ready) begin
            r_valid <= 1'b0;
`endif
        end
    end
end

always @(posedge r_clk)
    if (load)
        r_data <= mem[r_bin[A-1:0]];

endmodule
