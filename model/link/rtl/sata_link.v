// SATA link layer, host or device role (i_host), synthesizable Verilog-2005.
//
// PHY side: one 32-bit dword per clock each way with a K flag for byte 0 (docs/hardware.md 2.2),
// at the negotiated dword clock (37.5 / 75 / 150 MHz). Transport side: a FIS dword stream
// in each direction plus frame status.
//
// Implemented (docs/hardware.md 2.3, 2.4):
//  * primitive encode/decode; unknown K words are reported (o_bad_prim) and ignored;
//  * frame transmission: X_RDY until R_RDY, SOF, scrambled FIS dwords, scrambled CRC, EOF,
//    WTRM until R_OK / R_ERR (or SYNC = aborted), then SYNC;
//  * frame reception: R_RDY on X_RDY, R_IP while receiving, CRC check at EOF, the
//    transport's verdict, R_OK / R_ERR until SYNC;
//  * CRC-32 (poly 0x04C11DB7, init 0x52325032) over the FIS before scrambling; scrambler
//    re-seeded at every SOF, not advanced by primitives;
//  * CONT: a repeatable primitive sent twice is followed by CONT and scrambled junk from a
//    separate LFSR until the primitive changes; receivers keep the last primitive through
//    CONT and junk. Model choice (MEM): a transmitter inside a frame (SOF..EOF) does not
//    CONT-compress its HOLD / HOLDA, because data dwords follow them directly and a
//    receiver cannot tell data from junk;
//  * HOLD / HOLDA both ways: i_rx_full makes the receiver send HOLD, the transmitter answers
//    HOLDA and pauses; a transmitter without data (i_tx_valid low) sends HOLD, the receiver
//    answers HOLDA. Dwords already on the wire when HOLD is raised are still delivered,
//    so the receive buffer needs a few dwords of headroom above its i_rx_full mark;
//  * DMAT: a receiver raising i_rx_dmat sends DMAT, the transmitter closes the frame (CRC,
//    EOF) at the next dword; o_tx_dmat tells the transport its frame was cut short;
//  * ALIGN: every 256 dwords the transmitter sends an ALIGN pair (dwords 254 and 255 of a
//    free-running counter), inside frames too; receivers discard ALIGNs;
//  * collision: both sides X_RDY -> the host backs off to R_RDY and keeps its frame pending;
//  * turnaround: after its own frame (WTRM answered) the link sends at least one SYNC before
//    the next X_RDY, even if the transport requests the next frame at once: the receiver
//    stays in its R_OK / R_ERR state until it sees SYNC, and an ALIGN slot must delay that
//    one SYNC, not replace it (docs/hardware.md 2.3).
//
// Timing interface: all outputs are registered. o_tx_pop pulses for the cycle after the
// dword on i_tx_data was taken (present the next one before the following edge).
module sata_link (
    input  wire        clk,
    input  wire        rst,            // synchronous, active high
    input  wire        i_host,         // 1: host role (backs off on an X_RDY collision)
    input  wire        i_phy_rdy,      // PhyRdy: 0 holds the link idle (frames aborted)
    // PHY
    output reg  [31:0] o_phy_tx_data,
    output reg         o_phy_tx_isk,
    input  wire [31:0] i_phy_rx_data,
    input  wire        i_phy_rx_isk,
    // transport, transmit direction
    input  wire        i_tx_req,       // a frame is pending (keep high until o_tx_done)
    input  wire [31:0] i_tx_data,      // next FIS dword
    input  wire        i_tx_valid,     // i_tx_data is valid
    input  wire        i_tx_last,      // i_tx_data is the frame's last FIS dword
    output reg         o_tx_pop,       // the dword on i_tx_data was taken at the last edge
    output reg         o_tx_done,      // pulse: frame finished, status below
    output reg  [1:0]  o_tx_status,    // 0 R_OK, 1 R_ERR, 2 aborted (SYNC escape)
    output reg         o_tx_dmat,      // the finished frame was cut short by DMAT
    // transport, receive direction
    output reg  [31:0] o_rx_data,
    output reg         o_rx_valid,     // o_rx_data is a FIS dword (CRC stripped)
    output reg         o_rx_sof,       // pulse: SOF received, a new frame starts
    output reg         o_rx_end,       // pulse: EOF received, o_rx_crc_ok valid
    output reg         o_rx_crc_ok,
    output reg         o_rx_abort,     // pulse: frame broken off (sequence error)
    input  wire        i_rx_full,      // receive buffer at its high-water mark: HOLD
    input  wire        i_rx_dmat,      // ask the transmitter to end its Data FIS
    input  wire        i_rx_verdict,   // transport has judged the frame after o_rx_end
    input  wire        i_rx_accept,    // its verdict: 1 R_OK, 0 R_ERR (bad CRC: always R_ERR)
    // status
    output reg         o_bad_prim,     // pulse: a K dword that is no known primitive
    output wire [3:0]  o_state
);

`include "sata_link_fn.vh"

// ---- CRC and scrambler steps as byte-sliced ROMs -----------------------------------------
// Both steps are linear over GF(2), and the CRC step depends on crc ^ data only (its crc and
// data matrices are equal), so each is the XOR of one ROM word per input byte:
//   crc32_step(c, d) = rom0[x[7:0]] ^ rom1[x[15:8]] ^ rom2[x[23:16]] ^ rom3[x[31:24]],
//     x = c ^ d;   lfsr32(s) = lfsr_rom0[s[7:0]] ^ lfsr_rom1[s[15:8]].
// The ROMs are filled at time 0 from the XOR-matrix functions above (FPGA-style initialised
// ROM). Same values as the matrices (the RTL tests check CRC and scrambler against the C++
// reference); a simulator evaluates 6 table reads per dword instead of 80 parities.
reg [31:0] crc_rom0 [0:255], crc_rom1 [0:255], crc_rom2 [0:255], crc_rom3 [0:255];
reg [47:0] lfsr_rom0 [0:255], lfsr_rom1 [0:255];
integer rom_i;
initial begin
    for (rom_i = 0; rom_i < 256; rom_i = rom_i + 1) begin
        crc_rom0[rom_i] = crc32_step({24'h0, rom_i[7:0]}, 32'h0);
        crc_rom1[rom_i] = crc32_step({16'h0, rom_i[7:0], 8'h0}, 32'h0);
        crc_rom2[rom_i] = crc32_step({8'h0, rom_i[7:0], 16'h0}, 32'h0);
        crc_rom3[rom_i] = crc32_step({rom_i[7:0], 24'h0}, 32'h0);
        lfsr_rom0[rom_i] = lfsr32({8'h0, rom_i[7:0]});
        lfsr_rom1[rom_i] = lfsr32({rom_i[7:0], 8'h0});
    end
end

function automatic [31:0] crc_next(input [31:0] c, input [31:0] d);
    reg [31:0] x;
    begin
        x = c ^ d;
        crc_next = crc_rom0[x[7:0]] ^ crc_rom1[x[15:8]] ^ crc_rom2[x[23:16]] ^ crc_rom3[x[31:24]];
    end
endfunction

function automatic [47:0] lfsr_next(input [15:0] s);
    lfsr_next = lfsr_rom0[s[7:0]] ^ lfsr_rom1[s[15:8]];
endfunction

// ---- primitive values (byte 0 = K28.x) -------------------------------------------------
localparam [31:0] V_ALIGN = 32'h7B4A4ABC, V_CONT = 32'h9999AA7C, V_DMAT = 32'h3636B57C,
                  V_EOF = 32'hD5D5B57C, V_HOLD = 32'hD5D5AA7C, V_HOLDA = 32'h9595AA7C,
                  V_R_ERR = 32'h5656B57C, V_R_IP = 32'h5555B57C, V_R_OK = 32'h3535B57C,
                  V_R_RDY = 32'h4A4A957C, V_SOF = 32'h3737B57C, V_SYNC = 32'hB5B5957C,
                  V_WTRM = 32'h5858B57C, V_X_RDY = 32'h5757B57C;

localparam [3:0] P_DATA = 4'd0, P_ALIGN = 4'd1, P_CONT = 4'd2, P_SYNC = 4'd3, P_X_RDY = 4'd4,
                 P_R_RDY = 4'd5, P_SOF = 4'd6, P_EOF = 4'd7, P_R_IP = 4'd8, P_R_OK = 4'd9,
                 P_R_ERR = 4'd10, P_HOLD = 4'd11, P_HOLDA = 4'd12, P_WTRM = 4'd13,
                 P_DMAT = 4'd14, P_BAD = 4'd15;

localparam [3:0] S_IDLE = 4'd0, S_TX_XRDY = 4'd1, S_TX_SOF = 4'd2, S_TX_DATA = 4'd3,
                 S_TX_CRC = 4'd4, S_TX_EOF = 4'd5, S_TX_WTRM = 4'd6, S_RX_RDY = 4'd7,
                 S_RX_DATA = 4'd8, S_RX_VERDICT = 4'd9, S_RX_STATUS = 4'd10;

localparam [31:0] CRC_INIT = 32'h52325032;

function automatic [3:0] decode(input [31:0] v);
    case (v)
        V_ALIGN: decode = P_ALIGN;
        V_CONT:  decode = P_CONT;
        V_SYNC:  decode = P_SYNC;
        V_X_RDY: decode = P_X_RDY;
        V_R_RDY: decode = P_R_RDY;
        V_SOF:   decode = P_SOF;
        V_EOF:   decode = P_EOF;
        V_R_IP:  decode = P_R_IP;
        V_R_OK:  decode = P_R_OK;
        V_R_ERR: decode = P_R_ERR;
        V_HOLD:  decode = P_HOLD;
        V_HOLDA: decode = P_HOLDA;
        V_WTRM:  decode = P_WTRM;
        V_DMAT:  decode = P_DMAT;
        default: decode = P_BAD;
    endcase
endfunction

function automatic [31:0] encode(input [3:0] p);
    case (p)
        P_ALIGN: encode = V_ALIGN;
        P_CONT:  encode = V_CONT;
        P_SYNC:  encode = V_SYNC;
        P_X_RDY: encode = V_X_RDY;
        P_R_RDY: encode = V_R_RDY;
        P_SOF:   encode = V_SOF;
        P_EOF:   encode = V_EOF;
        P_R_IP:  encode = V_R_IP;
        P_R_OK:  encode = V_R_OK;
        P_R_ERR: encode = V_R_ERR;
        P_HOLD:  encode = V_HOLD;
        P_HOLDA: encode = V_HOLDA;
        P_WTRM:  encode = V_WTRM;
        P_DMAT:  encode = V_DMAT;
        default: encode = V_SYNC;
    endcase
endfunction

function automatic repeatable(input [3:0] p);
    repeatable = p == P_SYNC || p == P_X_RDY || p == P_R_RDY || p == P_R_IP || p == P_R_OK ||
                 p == P_R_ERR || p == P_HOLD || p == P_HOLDA || p == P_WTRM;
endfunction

// ---- receive decode: the primitive in effect this cycle --------------------------------
// All logic is in one clocked process: the decode and the FSM's transmit choice below are
// blocking temporaries computed from this cycle's inputs and state at the clock edge (the
// same values a separate combinational block would give), so a simulator evaluates them
// once per clock instead of once when the inputs change and again when the state does.
reg  [3:0] rx_last_prim;   // last primitive other than ALIGN / CONT
reg        rx_in_cont;     // CONT seen: junk follows until the next primitive
reg  [3:0] rx_code;        // temporaries of the clocked process (see above)
reg  [3:0] rprim;
reg  [3:0] rlevel;

// ---- transmit encoder: ALIGN insertion and CONT ----------------------------------------
reg  [7:0]  align_cnt;
reg         tx_slot;        // the FSM's dword goes out this cycle (not an ALIGN slot)
reg  [3:0]  tx_kind;        // FSM request this cycle: a primitive or P_DATA
reg  [31:0] tx_word;        // data word when tx_kind == P_DATA
reg         tx_cont_ok;     // the FSM allows CONT compression of tx_kind
reg  [3:0]  enc_last;       // last primitive actually requested (P_DATA after data)
reg  [1:0]  enc_reps;       // times enc_last was sent in a row (saturates at 2)
reg         enc_cont_sent;
reg  [15:0] junk_lfsr;
reg  [47:0] junk_next;

// ---- frame state machine ---------------------------------------------------------------
reg  [3:0]  state;
reg  [31:0] crc;            // CRC of the dwords sent / received so far in this frame
reg  [15:0] scr;            // frame scrambler state
reg  [47:0] scr_next;
reg  [31:0] rx_held;        // received dword not yet known to be FIS data (could be CRC)
reg         rx_have_held;
reg         rx_crc_good;    // CRC verdict of the frame being answered
reg         tx_got_dmat;
reg         sync_owed;      // back in IDLE after our frame: the peer waits for one SYNC
reg  [31:0] rx_plain;

assign o_state = state;

/* verilator lint_off BLKSEQ */
always @(posedge clk) begin
    // -- this cycle's combinational values (blocking temporaries)
    if (i_phy_rx_isk)
        rx_code = decode(i_phy_rx_data);
    else
        rx_code = P_DATA;
    // ALIGN: no information this cycle (P_ALIGN); CONT and junk: the last primitive continues.
    rprim = (rx_code == P_CONT) ? rx_last_prim :
            (rx_code == P_DATA && rx_in_cont) ? rx_last_prim :
            (rx_code == P_BAD) ? P_ALIGN : rx_code;
    // The peer's standing request (HOLD, DMAT) survives ALIGNs and unknown K words.
    rlevel = (rprim == P_ALIGN) ? rx_last_prim : rprim;
    tx_slot = align_cnt < 8'd254;
    scr_next = lfsr_next(scr);
    rx_plain = i_phy_rx_data ^ scr_next[31:0];
    junk_next = 48'h0;
    // What the FSM transmits this cycle.
    tx_kind = P_SYNC;
    tx_word = 32'h0;
    tx_cont_ok = 1'b1;
    case (state)
        S_IDLE:       tx_kind = P_SYNC;
        S_TX_XRDY:    tx_kind = P_X_RDY;
        S_TX_SOF:     tx_kind = P_SOF;
        S_TX_DATA: begin
            tx_cont_ok = 1'b0;
            if (rlevel == P_HOLD)
                tx_kind = P_HOLDA;
            else if (!i_tx_valid)
                tx_kind = P_HOLD;
            else begin
                tx_kind = P_DATA;
                tx_word = i_tx_data ^ scr_next[31:0];
            end
        end
        S_TX_CRC: begin
            tx_cont_ok = 1'b0;
            if (rlevel == P_HOLD)
                tx_kind = P_HOLDA;
            else begin
                tx_kind = P_DATA;
                tx_word = crc ^ scr_next[31:0];
            end
        end
        S_TX_EOF:     tx_kind = P_EOF;
        S_TX_WTRM:    tx_kind = P_WTRM;
        S_RX_RDY:     tx_kind = P_R_RDY;
        S_RX_DATA:    tx_kind = i_rx_full ? P_HOLD :
                                rlevel == P_HOLD ? P_HOLDA :
                                i_rx_dmat ? P_DMAT : P_R_IP;
        S_RX_VERDICT: tx_kind = P_R_IP;
        S_RX_STATUS:  tx_kind = rx_crc_good ? P_R_OK : P_R_ERR;
        default:      tx_kind = P_SYNC;
    endcase

    // -- receive decode state
    if (rst) begin
        rx_last_prim <= P_SYNC;
        rx_in_cont <= 1'b0;
        o_bad_prim <= 1'b0;
    end else begin
        o_bad_prim <= rx_code == P_BAD;
        if (rx_code == P_CONT)
            rx_in_cont <= 1'b1;
        else if (rx_code != P_DATA && rx_code != P_ALIGN && rx_code != P_BAD) begin
            rx_in_cont <= 1'b0;
            rx_last_prim <= rx_code;
        end
    end

    // -- transmit encoder
    if (rst) begin
        align_cnt <= 8'd0;
        enc_last <= P_DATA;
        enc_reps <= 2'd0;
        enc_cont_sent <= 1'b0;
        junk_lfsr <= 16'hFFFF;
        o_phy_tx_data <= V_ALIGN;
        o_phy_tx_isk <= 1'b1;
    end else begin
        align_cnt <= align_cnt + 8'd1;
        if (!tx_slot) begin
            o_phy_tx_data <= V_ALIGN; // does not disturb a CONT run
            o_phy_tx_isk <= 1'b1;
        end else if (tx_kind == P_DATA) begin
            o_phy_tx_data <= tx_word;
            o_phy_tx_isk <= 1'b0;
            enc_last <= P_DATA;
            enc_reps <= 2'd0;
            enc_cont_sent <= 1'b0;
        end else if (tx_kind == enc_last && tx_cont_ok && repeatable(tx_kind) &&
                     enc_reps == 2'd2) begin
            if (!enc_cont_sent) begin
                o_phy_tx_data <= V_CONT;
                o_phy_tx_isk <= 1'b1;
                enc_cont_sent <= 1'b1;
            end else begin
                junk_next = lfsr_next(junk_lfsr);
                o_phy_tx_data <= junk_next[31:0];
                o_phy_tx_isk <= 1'b0;
                junk_lfsr <= junk_next[47:32];
            end
        end else begin
            o_phy_tx_data <= encode(tx_kind);
            o_phy_tx_isk <= 1'b1;
            enc_cont_sent <= 1'b0;
            if (tx_kind == enc_last)
                enc_reps <= (enc_reps == 2'd2) ? 2'd2 : enc_reps + 2'd1;
            else
                enc_reps <= 2'd1;
            enc_last <= tx_kind;
        end
    end

    // -- frame state machine
    o_tx_pop <= 1'b0;
    o_tx_done <= 1'b0;
    o_rx_valid <= 1'b0;
    o_rx_sof <= 1'b0;
    o_rx_end <= 1'b0;
    o_rx_abort <= 1'b0;
    if (rst || !i_phy_rdy) begin
        if (state == S_RX_DATA || state == S_RX_VERDICT)
            o_rx_abort <= !rst;
        if (state >= S_TX_SOF && state <= S_TX_WTRM && !rst) begin
            o_tx_done <= 1'b1;
            o_tx_status <= 2'd2;
        end
        state <= S_IDLE;
        crc <= CRC_INIT;
        scr <= 16'hFFFF;
        rx_have_held <= 1'b0;
        rx_crc_good <= 1'b0;
        tx_got_dmat <= 1'b0;
        sync_owed <= 1'b0;
        if (rst) begin
            o_tx_status <= 2'd0;
            o_tx_dmat <= 1'b0;
            o_rx_data <= 32'h0;
            o_rx_crc_ok <= 1'b0;
        end
    end else begin
        case (state)
            S_IDLE: begin
                // The SYNC owed after our frame goes out in the first non-ALIGN slot.
                if (tx_slot)
                    sync_owed <= 1'b0;
                // A peer X_RDY is answered unless we want to send and are the device.
                if (rprim == P_X_RDY && (i_host || !i_tx_req) && !i_rx_full) begin
                    state <= S_RX_RDY;
                    sync_owed <= 1'b0; // the peer transmits: it waits for no SYNC
                end else if (i_tx_req && (tx_slot || !sync_owed))
                    state <= S_TX_XRDY;
            end
            S_TX_XRDY: begin
                if (rprim == P_R_RDY)
                    state <= S_TX_SOF;
                else if (rprim == P_X_RDY && i_host)
                    state <= S_RX_RDY; // collision: the host backs off
            end
            S_TX_SOF: if (tx_slot) begin
                state <= S_TX_DATA;
                crc <= CRC_INIT;
                scr <= 16'hFFFF;
                tx_got_dmat <= 1'b0;
            end
            S_TX_DATA: begin
                if (rprim == P_SYNC) begin
                    state <= S_IDLE;
                    o_tx_done <= 1'b1;
                    o_tx_status <= 2'd2;
                end else if (tx_slot && rlevel != P_HOLD && i_tx_valid) begin
                    o_tx_pop <= 1'b1;
                    crc <= crc_next(crc, i_tx_data);
                    scr <= scr_next[47:32];
                    if (i_tx_last)
                        state <= S_TX_CRC;
                    else if (rlevel == P_DMAT) begin
                        state <= S_TX_CRC;
                        tx_got_dmat <= 1'b1;
                    end
                end
            end
            S_TX_CRC: begin
                if (rprim == P_SYNC) begin
                    state <= S_IDLE;
                    o_tx_done <= 1'b1;
                    o_tx_status <= 2'd2;
                end else if (tx_slot && rlevel != P_HOLD) begin
                    scr <= scr_next[47:32];
                    state <= S_TX_EOF;
                end
            end
            S_TX_EOF: if (tx_slot) state <= S_TX_WTRM;
            S_TX_WTRM: begin
                if (rprim == P_R_OK || rprim == P_R_ERR || rprim == P_SYNC) begin
                    state <= S_IDLE;
                    sync_owed <= rprim != P_SYNC;
                    o_tx_done <= 1'b1;
                    o_tx_status <= rprim == P_R_OK ? 2'd0 : rprim == P_R_ERR ? 2'd1 : 2'd2;
                    o_tx_dmat <= tx_got_dmat;
                end
            end
            S_RX_RDY: begin
                if (rprim == P_SOF) begin
                    state <= S_RX_DATA;
                    crc <= CRC_INIT;
                    scr <= 16'hFFFF;
                    rx_have_held <= 1'b0;
                    o_rx_sof <= 1'b1;
                end else if (rprim == P_SYNC || rprim == P_EOF || rprim == P_WTRM) begin
                    // The transmitter gave up, or we missed its SOF.
                    state <= S_IDLE;
                    if (rprim != P_SYNC)
                        o_rx_abort <= 1'b1;
                end
            end
            S_RX_DATA: begin
                case (rprim)
                    P_DATA: begin
                        scr <= scr_next[47:32];
                        rx_held <= rx_plain;
                        rx_have_held <= 1'b1;
                        if (rx_have_held) begin
                            o_rx_data <= rx_held;
                            o_rx_valid <= 1'b1;
                            crc <= crc_next(crc, rx_held);
                        end
                    end
                    P_EOF: begin
                        o_rx_end <= 1'b1;
                        o_rx_crc_ok <= rx_have_held && rx_held == crc;
                        rx_crc_good <= rx_have_held && rx_held == crc;
                        state <= (rx_have_held && rx_held == crc) ? S_RX_VERDICT : S_RX_STATUS;
                    end
                    P_SYNC: begin
                        o_rx_abort <= 1'b1;
                        state <= S_IDLE;
                    end
                    P_WTRM, P_SOF, P_X_RDY, P_R_RDY: begin
                        // EOF lost or a broken sequence: refuse the frame.
                        o_rx_abort <= 1'b1;
                        rx_crc_good <= 1'b0;
                        state <= S_RX_STATUS;
                    end
                    default: ; // ALIGN, HOLD, HOLDA, R_IP ...
                endcase
            end
            S_RX_VERDICT: begin
                if (rprim == P_SYNC) begin
                    o_rx_abort <= 1'b1;
                    state <= S_IDLE;
                end else if (i_rx_verdict) begin
                    rx_crc_good <= i_rx_accept;
                    state <= S_RX_STATUS;
                end
            end
            S_RX_STATUS: if (rprim == P_SYNC) state <= S_IDLE;
            default: state <= S_IDLE;
        endcase
    end
end
/* verilator lint_on BLKSEQ */

endmodule
