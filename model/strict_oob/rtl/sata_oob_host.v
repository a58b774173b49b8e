// The host's OOB and speed negotiation of the strict-OOB test DUT (issue 32), run by the
// controller itself rather than by its PHY, in the order SATA 3.x 8.4 (OOB signalling,
// host PHY initialisation) gives the host, one step after the other with nothing inferred:
//
//   COMRESET (held while the port asks, PxSCTL.DET = 1 or power-on)
//   -> wait for the device's COMINIT (phy_cominit)     retried after COMINIT_WAIT
//   -> COMWAKE (phy_comwake, COMWAKE_CYCLES)
//   -> wait for the device's COMWAKE (phy_comwake_det) retried after COMWAKE_WAIT
//   -> D10.2 until the device's ALIGN is received      retried after ALIGN_WAIT
//   -> ALIGN until three non-ALIGN primitives in a row
//   -> PhyRdy to the port, the port's link layer on the line.
//
// A retry is a COMRESET of its own (at most RETRIES in a row, then it waits for the port's
// next request, so an empty port goes quiet). The transmitter is in electrical idle from
// COMRESET until the negotiation starts and whenever there is no link. A COMINIT the host
// did not wait for (the device restarted: hot plug, its own reset) ends the link and goes
// to the port (PxSERR.DIAG.X); the COMINIT that answers its COMRESET does not.
module sata_oob_host #(
    parameter integer COMINIT_WAIT = 32768,   // clk cycles (218 us at 150 MHz)
    parameter integer COMWAKE_WAIT = 4096,    // clk cycles (27 us)
    parameter integer ALIGN_WAIT = 131072,    // clk cycles (874 us: 32768 Gen1 dwords)
    parameter integer COMRESET_CYCLES = 64,   // a retry's COMRESET request
    parameter integer COMWAKE_CYCLES = 16,
    parameter integer RETRIES = 2
) (
    input  wire        clk,
    input  wire        rst,
    // the port's PHY requests
    input  wire        i_comreset,
    input  wire        i_offline,
    // the shell's PHY
    output wire        o_comreset,
    output wire        o_comwake,
    output wire        o_tx_elecidle,
    input  wire        i_cominit,
    input  wire        i_comwake_det,
    input  wire        i_rx_elecidle,
    input  wire [31:0] i_rx_data,
    input  wire        i_rx_isk,
    // the transmit word: the port's link layer once ready, else the negotiation's
    input  wire [31:0] i_link_tx_data,
    input  wire        i_link_tx_isk,
    output wire [31:0] o_tx_data,
    output wire        o_tx_isk,
    // to the port
    output wire        o_ready,
    output wire        o_cominit,
    output wire [2:0]  o_state
);

localparam [31:0] ALIGN = 32'h7B4A4ABC, D10_2 = 32'h4A4A4A4A;
localparam [2:0] S_IDLE = 3'd0, S_COMRESET = 3'd1, S_AWAIT_COMINIT = 3'd2, S_COMWAKE = 3'd3,
                 S_AWAIT_COMWAKE = 3'd4, S_D102 = 3'd5, S_ALIGN = 3'd6, S_READY = 3'd7;

reg [2:0]  state;
reg [17:0] timer;
reg [6:0]  own;      // cycles left of a retry's own COMRESET
reg [1:0]  retries;  // retries left
reg [1:0]  non_align;

wire rx_align = i_rx_isk && i_rx_data == ALIGN;
wire rx_prim  = i_rx_isk && !rx_align;

assign o_comreset    = state == S_COMRESET;
assign o_comwake     = state == S_COMWAKE;
assign o_tx_elecidle = state < S_D102 || i_offline;
assign o_ready       = state == S_READY;
assign o_tx_data     = state == S_READY ? i_link_tx_data : state == S_ALIGN ? ALIGN : D10_2;
assign o_tx_isk      = state == S_READY ? i_link_tx_isk : state == S_ALIGN;
// a COMINIT the host did not ask for
assign o_cominit     = i_cominit && state != S_AWAIT_COMINIT && state != S_COMRESET;
assign o_state       = state;

// The wait of a state timed out: a COMRESET of its own, while retries last.
task automatic retry;
    begin
        if (retries != 2'd0) begin
            retries <= retries - 2'd1;
            own <= COMRESET_CYCLES[6:0];
            state <= S_COMRESET;
        end else begin
            state <= S_IDLE;
        end
        timer <= 18'd0;
    end
endtask

always @(posedge clk) begin
    if (rst) begin
        state <= S_IDLE;
        timer <= 18'd0;
        own <= 7'd0;
        retries <= RETRIES[1:0];
        non_align <= 2'd0;
    end else if (i_offline) begin
        state <= S_IDLE;
    end else if (i_comreset) begin
        // the port's request (held): a new sequence with all its retries
        state <= S_COMRESET;
        own <= 7'd0;
        retries <= RETRIES[1:0];
    end else begin
        timer <= timer + 18'd1;
        case (state)
            S_IDLE: ;
            S_COMRESET: begin
                // released: the bursts go out, the device answers with COMINIT
                if (own > 7'd1)
                    own <= own - 7'd1;
                else begin
                    own <= 7'd0;
                    state <= S_AWAIT_COMINIT;
                    timer <= 18'd0;
                end
            end
            S_AWAIT_COMINIT:
                if (i_cominit) begin
                    state <= S_COMWAKE;
                    timer <= 18'd0;
                end else if (timer == COMINIT_WAIT[17:0])
                    retry();
            S_COMWAKE:
                if (timer == COMWAKE_CYCLES[17:0] - 18'd1) begin
                    state <= S_AWAIT_COMWAKE;
                    timer <= 18'd0;
                end
            S_AWAIT_COMWAKE:
                if (i_comwake_det) begin
                    state <= S_D102;
                    timer <= 18'd0;
                end else if (timer == COMWAKE_WAIT[17:0])
                    retry();
            S_D102:
                if (rx_align) begin
                    state <= S_ALIGN;
                    timer <= 18'd0;
                    non_align <= 2'd0;
                end else if (timer == ALIGN_WAIT[17:0])
                    retry();
            S_ALIGN: begin
                non_align <= rx_prim ? (non_align == 2'd3 ? 2'd3 : non_align + 2'd1) : 2'd0;
                if (rx_prim && non_align == 2'd2) begin
                    state <= S_READY;
                    retries <= RETRIES[1:0];
                end else if (timer == ALIGN_WAIT[17:0])
                    retry();
            end
            S_READY:
                // the device stopped transmitting (link lost) or restarted (COMINIT)
                if (i_rx_elecidle || i_cominit)
                    state <= S_IDLE;
            default: state <= S_IDLE;
        endcase
    end
end

endmodule
