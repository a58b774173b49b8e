// PHY adapter of one port: between the port's link layer (one 32-bit dword per core
// clock, K flag for byte 0, see sata_link.v) and the shell's per-port PHY interface, an
// 8-bit-symbol (PIPE / transceiver-like) interface: PHY_W = 32 or 16 bits of data with a
// K flag per byte and, on receive, two error flags per byte as a transceiver's 8b/10b
// decoder reports them: a code error (no such 10-bit symbol) and a disparity error (the
// symbol broke the running disparity).
//
//   PHY_W = 32, EB = 0   the PHY interface is the core clock's dword stream: transmit and
//                        receive words go straight through (the shell's one-clock mode).
//   PHY_W = 32, EB = 1   receive words arrive at the PHY's receive clock (i_rx_clk, the
//                        recovered clock) and cross into the core clock through the
//                        elastic buffer (ahci_rx_elastic.v); transmit as above (the PHY's
//                        transmit clock is the core clock).
//   PHY_W = 16           one 16-bit word per PHY clock at twice the dword rate: a transmit
//                        gearbox 32 -> 16 on i_tx_clk (phase-locked to the core clock, two
//                        edges per core cycle, as a transceiver's TXUSRCLK is to its
//                        TXUSRCLK2), a receive gearbox 16 -> 32 on i_rx_clk, and the
//                        elastic buffer (always: EB is taken as 1).
//
// Word alignment in 16-bit mode (the PHY delivers bytes aligned, a comma's K28.5 / K28.3
// byte in either byte of a word would be the PHY's comma aligner's job; which HALF of a
// dword a word is, is ours): the transmitter sends a dword's low half (byte 0, the K byte
// of a primitive) first; the receiver takes a word with the K flag on its low byte as a
// dword's low half, always: if it expected a high half, the half-dword it holds is dropped
// and it realigns there. A SATA primitive has its only K byte in byte 0 and every stream
// starts with primitives (ALIGN, SYNC), so the first primitive aligns the receiver, as a
// transceiver's comma detection does.
//
// Receive errors go to the port as one decode-error bit per dword: a code error or a
// disparity error on any byte of the dword, a K flag on a byte other than byte 0 (which a
// SATA dword never has: a symbol that cannot be there), or a dword the elastic buffer
// lost. In 16-bit mode both halves of a dword add their flags to that dword (a half-dword
// dropped at a realignment drops its flags with it). The two kinds are not kept apart: an
// AHCI port reports both as PxSERR.DIAG.B, DIAG.D is "not used by AHCI" (AHCI 1.3.1
// 3.3.12; ahci_port.v).
module ahci_phy_adapter #(
    parameter integer PHY_W = 32,  // 16 or 32
    parameter integer EB = 0       // 1: receive side on i_rx_clk through the elastic buffer
) (
    input  wire               clk,       // core clock
    // Unused in the configurations that do not need them (waiver: PHY_W = 32 without EB
    // runs on clk alone and has no state to reset, PHY_W = 32 transmits on clk).
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire               rst,       // synchronous to clk
    input  wire               i_tx_clk,  // PHY transmit parallel clock (PHY_W = 16)
    input  wire               i_rx_clk,  // PHY receive parallel clock (PHY_W = 16 or EB)
    /* verilator lint_on UNUSEDSIGNAL */
    // link side (core clock)
    input  wire [31:0]        i_link_tx_data,
    input  wire               i_link_tx_isk,
    output wire [31:0]        o_link_rx_data,
    output wire               o_link_rx_isk,
    output reg                o_link_rx_err,   // decode error on the dword one clock before
    // shell PHY side
    output wire [PHY_W-1:0]   o_phy_tx_data,
    output wire [PHY_W/8-1:0] o_phy_tx_isk,
    input  wire [PHY_W-1:0]   i_phy_rx_data,
    input  wire [PHY_W/8-1:0] i_phy_rx_isk,
    input  wire [PHY_W/8-1:0] i_phy_rx_codeerr, // per byte: 8b/10b code error
    input  wire [PHY_W/8-1:0] i_phy_rx_disperr  // per byte: running disparity error
);

localparam integer USE_EB = (PHY_W == 16 || EB != 0) ? 1 : 0;

// The current receive word has a decode error (see above).
wire word_err = (i_phy_rx_codeerr | i_phy_rx_disperr) != {(PHY_W/8){1'b0}} ||
                i_phy_rx_isk[PHY_W/8-1:1] != {(PHY_W/8-1){1'b0}};

// ---- transmit ---------------------------------------------------------------------------
generate
    if (PHY_W == 16) begin : g_tx16
        // The core clock's dword toggles tgl; the transmit clock sees the toggle one PHY
        // clock after the core edge that made the dword (both clocks rise together every
        // other PHY edge, and a register clocked at that shared edge still sees the old
        // value): that edge sends the low half, the next one the high half.
        reg        tgl, tgl_seen;
        reg [15:0] hi, out;
        reg        out_k;
        always @(posedge clk) begin
            if (rst)
                tgl <= 1'b0;
            else
                tgl <= ~tgl;
        end
        always @(posedge i_tx_clk) begin
            tgl_seen <= tgl;
            if (tgl != tgl_seen) begin
                out <= i_link_tx_data[15:0];
                out_k <= i_link_tx_isk;
                hi <= i_link_tx_data[31:16];
            end else begin
                out <= hi;
                out_k <= 1'b0;
            end
        end
        assign o_phy_tx_data = out;
        assign o_phy_tx_isk = {1'b0, out_k};
    end else begin : g_tx32
        assign o_phy_tx_data = i_link_tx_data;
        assign o_phy_tx_isk = {3'b000, i_link_tx_isk};
    end
endgenerate

// ---- receive ----------------------------------------------------------------------------
generate
    if (USE_EB != 0) begin : g_rx_eb
        // Reset into the receive clock's domain.
        reg        wrst1, wrst;
        always @(posedge i_rx_clk) begin
            wrst1 <= rst;
            wrst <= wrst1;
        end
        reg        dv, dk, de;
        reg [31:0] dd;
        if (PHY_W == 16) begin : g_rx16
            // Gearbox 16 -> 32 with word alignment on the K byte (see above).
            reg        ph;          // 1: holding a low half, the next word is its high half
            reg [15:0] lo;
            reg        lo_k, lo_e;
            always @(posedge i_rx_clk) begin
                dv <= 1'b0;
                if (wrst) begin
                    ph <= 1'b0;
                    lo <= 16'd0;
                    lo_k <= 1'b0;
                    lo_e <= 1'b0;
                    dd <= 32'd0;
                    dk <= 1'b0;
                    de <= 1'b0;
                end else if (!ph || i_phy_rx_isk[0]) begin
                    ph <= 1'b1;     // a low half (at a K byte: realigned here)
                    lo <= i_phy_rx_data[15:0];
                    lo_k <= i_phy_rx_isk[0];
                    lo_e <= word_err;
                end else begin
                    ph <= 1'b0;
                    dv <= 1'b1;
                    dd <= {i_phy_rx_data[15:0], lo};
                    dk <= lo_k;
                    de <= lo_e || word_err;
                end
            end
        end else begin : g_rx32
            always @(posedge i_rx_clk) begin
                dv <= !wrst;
                dd <= i_phy_rx_data[31:0];
                dk <= i_phy_rx_isk[0];
                de <= word_err;
            end
        end
        wire [31:0] q;
        wire        qk, qe;
        ahci_rx_elastic u_eb (
            .wclk(i_rx_clk), .wrst(wrst), .i_valid(dv), .i_data(dd), .i_isk(dk), .i_err(de),
            .rclk(clk), .rrst(rst), .o_data(q), .o_isk(qk), .o_err(qe));
        assign o_link_rx_data = q;
        assign o_link_rx_isk = qk;
        always @(posedge clk)
            o_link_rx_err <= qe;
    end else begin : g_rx_direct
        assign o_link_rx_data = i_phy_rx_data[31:0];
        assign o_link_rx_isk = i_phy_rx_isk[0];
        always @(posedge clk)
            o_link_rx_err <= word_err;
    end
endgenerate

endmodule
