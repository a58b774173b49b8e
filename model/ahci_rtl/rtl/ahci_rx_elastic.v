// Receive elastic buffer of one port: dwords written at the PHY's receive (recovered)
// clock, read at the core clock, which may differ by a few hundred ppm (SATA 3.x 7 (?):
// each end +-350 ppm without SSC). An asynchronous FIFO (Gray-coded pointers through two-flop
// synchronizers) whose fill is kept near its middle the way SATA intends it (ALIGN
// primitives exist so that an elastic buffer can drop or add them; every transmitter
// sends an ALIGN pair at least once per 256 dwords, SATA 3.x 9 (?)):
//   * write side: an ALIGN is dropped (not written) while the FIFO is fuller than HI;
//   * read side: reading starts when the FIFO has reached START entries; while it holds
//     no more than LO, an ALIGN at its head is read out without being popped (one more
//     ALIGN for the link, which discards ALIGNs); every cycle it has nothing to give
//     (before the start) the link gets an ALIGN.
// A real overflow (full on a write) drops the dword and marks the next one written with
// the error flag; a real underflow (empty after the start) gives an ALIGN with the error
// flag and starts over (fill to START): the link reports both as decode errors
// (PxSERR.DIAG.B through the port), as a real receiver would after losing data.
module ahci_rx_elastic #(
    parameter integer AB = 4,       // log2 of the depth
    parameter integer START = 8,    // entries seen before reading starts
    parameter integer LO = 5,       // read side: repeat an ALIGN at or below this fill
    parameter integer HI = 11       // write side: drop an ALIGN above this fill
) (
    // write side: the PHY's receive clock
    input  wire        wclk,
    input  wire        wrst,        // synchronous to wclk
    input  wire        i_valid,
    input  wire [31:0] i_data,
    input  wire        i_isk,       // K flag of byte 0 (a primitive)
    input  wire        i_err,       // decode / disparity error on this dword
    // read side: the core clock, one dword per cycle
    input  wire        rclk,
    input  wire        rrst,        // synchronous to rclk
    output reg  [31:0] o_data,
    output reg         o_isk,
    output reg         o_err
);

localparam [31:0] V_ALIGN = 32'h7B4A4ABC;
localparam integer D = 1 << AB;

reg  [33:0] mem [0:D-1];            // {err, isk, data}

function automatic [AB:0] bin2gray(input [AB:0] b);
    bin2gray = b ^ (b >> 1);
endfunction
function automatic [AB:0] gray2bin(input [AB:0] g);
    integer i;
    begin
        gray2bin[AB] = g[AB];
        for (i = AB - 1; i >= 0; i = i - 1)
            gray2bin[i] = gray2bin[i + 1] ^ g[i];
    end
endfunction

// ---- write side -------------------------------------------------------------------------
reg  [AB:0] wptr, wgray;
reg  [AB:0] rgray_w1, rgray_w2;     // read pointer synchronized into wclk
reg         ovf;                    // a dword was lost: flag the next one
wire [AB:0] rptr_w = gray2bin(rgray_w2);
wire [AB:0] wfill = wptr - rptr_w;
wire        is_align_w = i_isk && i_data == V_ALIGN;
wire        wfull = wfill == D[AB:0];
wire        wdrop = is_align_w && wfill > HI[AB:0];

always @(posedge wclk) begin
    if (wrst) begin
        wptr <= {(AB+1){1'b0}};
        wgray <= {(AB+1){1'b0}};
        rgray_w1 <= {(AB+1){1'b0}};
        rgray_w2 <= {(AB+1){1'b0}};
        ovf <= 1'b0;
    end else begin
        rgray_w1 <= rgray;
        rgray_w2 <= rgray_w1;
        if (i_valid && !wdrop) begin
            if (wfull) begin
                ovf <= 1'b1;
            end else begin
                mem[wptr[AB-1:0]] <= {i_err || ovf, i_isk, i_data};
                wptr <= wptr + 1'b1;
                wgray <= bin2gray(wptr + 1'b1);
                ovf <= 1'b0;
            end
        end
    end
end

// ---- read side --------------------------------------------------------------------------
reg  [AB:0] rptr, rgray;
reg  [AB:0] wgray_r1, wgray_r2;     // write pointer synchronized into rclk
reg         started;
wire [AB:0] wptr_r = gray2bin(wgray_r2);
wire [AB:0] rfill = wptr_r - rptr;
wire [33:0] head = mem[rptr[AB-1:0]];
wire        head_align = head[32] && head[31:0] == V_ALIGN;

always @(posedge rclk) begin
    if (rrst) begin
        rptr <= {(AB+1){1'b0}};
        rgray <= {(AB+1){1'b0}};
        wgray_r1 <= {(AB+1){1'b0}};
        wgray_r2 <= {(AB+1){1'b0}};
        started <= 1'b0;
        o_data <= V_ALIGN;
        o_isk <= 1'b1;
        o_err <= 1'b0;
    end else begin
        wgray_r1 <= wgray;
        wgray_r2 <= wgray_r1;
        o_data <= V_ALIGN;
        o_isk <= 1'b1;
        o_err <= 1'b0;
        if (!started) begin
            started <= rfill >= START[AB:0];
        end else if (rfill == {(AB+1){1'b0}}) begin
            started <= 1'b0;          // underflow: a dword time with nothing to give
            o_err <= 1'b1;
        end else if (!(head_align && rfill <= LO[AB:0])) begin
            o_data <= head[31:0];
            o_isk <= head[32];
            o_err <= head[33];
            rptr <= rptr + 1'b1;
            rgray <= bin2gray(rptr + 1'b1);
        end
        // else: the ALIGN at the head goes out again next time (o_* = ALIGN already)
    end
end

endmodule
