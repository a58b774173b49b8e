// One AHCI 1.3.1 port: its register set (AHCI 3.3), command engine (AHCI 5: command list,
// command table, PRDT), FIS receive path with the received-FIS area (AHCI 4.2.1), and the
// SATA link layer (model/link/rtl/sata_link.v, host role) toward the PHY.
//
// Behaviour follows the SystemC model in model/ahci (ahci_port_regs.cpp, _engine.cpp,
// _rx.cpp) register for register; see model/ahci_rtl/README.md for what differs.
//
// Structure (all in clk):
//   registers       PxCLB..PxSNTF, read combinationally on i_reg_raddr, written with the
//                   effective value the HBA top computed from WSTRB (i_reg_we);
//   rx front end    link receive dwords -> rx FIFO (data, END_OK, END_BAD markers); the
//                   frame verdict (R_OK / R_ERR) is given at EOF from the FIS type and
//                   length, so the link never waits for the engine;
//   tx FIFO         dwords (with a last flag) the engine queues for the link;
//   engine          one state machine: drains the rx FIFO first, then issues commands.
//                   DMA goes through one request interface (1..16 dwords) to the HBA's
//                   AXI master; dbuf (16 dwords) is the buffer of every DMA except the
//                   transmit data reads, which go straight into the tx FIFO.
module ahci_port #(
    parameter integer AW = 64,           // DMA address width (64: CAP.S64A)
    parameter [3:0]   ISS = 4'd3,        // CAP.ISS
    parameter [4:0]   NCS = 5'd31,       // CAP.NCS: slots 0..NCS exist (PxCI / PxSACT bits)
    parameter         SNCQ = 1'b1,       // CAP.SNCQ: 0 = PxSACT stays 0 (no NCQ)
    parameter integer STOP_CYCLES = 150, // ST 1->0 until CR reads 0 (the model's kStop)
    parameter integer FRE_ON = 8,        // FRE 0->1 until FR reads 1
    parameter integer FRE_OFF = 150,     // FRE 1->0 until FR reads 0
    parameter integer SPINUP = 16,       // power-on: COMRESET released after this
    // ONCHIP = 1: the command list and received-FIS area are the HBA's on-chip RAM
    // (ahci_onchip_ram.v) at these offsets of the register window: PxCLB / PxFB read
    // them (read-only, PxCLBU / PxFBU 0) and the engine's accesses to either go out with
    // o_dma_local set, to that RAM instead of the AXI master.
    parameter         ONCHIP = 1'b0,
    parameter [31:0]  CLB_FIX = 32'h0000_1000,
    parameter [31:0]  FB_FIX = 32'h0000_1400,
    // PxVS (70h-7Fh, vendor specific, AHCI 1.3.1 3.3): 70h the PHY sideband control vector
    // (its low SBW bits read and write, o_vs_ctrl), 74h the sideband status (i_vs_status),
    // 78h the PHY pins' status (i_vs_phy, ahci_phy_ctl.v); SBW = 0: 70h and 74h read 0.
    parameter integer SBW = 0,
    // ERR_T = 0: PxSERR.ERR.T (transient data integrity error) is never set, a choice AHCI
    // 1.3.1 3.3.12 leaves to the HBA (the DIAG bits that go with it still are)
    parameter         ERR_T = 1'b1
) (
    input  wire          clk,
    input  wire          rst,            // power-on reset or GHC.HR (synchronous)
    input  wire          por,            // power-on reset only: PxCLB/PxFB survive GHC.HR (AHCI 1.3.1 10.4.3)
    // registers (offset within the 0x80-byte port window)
    input  wire [6:0]    i_reg_raddr,
    output reg  [31:0]   o_reg_rdata,
    input  wire          i_reg_we,
    input  wire [6:0]    i_reg_waddr,
    input  wire [31:0]   i_reg_wdata,
    output wire          o_irq,          // PxIS & PxIE != 0
    // DMA request (to the HBA's arbiter and AXI master)
    output reg           o_dma_req,
    output reg           o_dma_we,
    output reg  [AW-1:0] o_dma_addr,
    output reg  [4:0]    o_dma_len,
    output reg           o_dma_local,    // ONCHIP: the access is to the on-chip RAM
    output wire [511:0]  o_dma_wbuf,
    input  wire          i_dma_done,
    input  wire          i_dma_err,
    input  wire          i_dma_rvalid,
    input  wire [31:0]   i_dma_rdata,
    input  wire [3:0]    i_dma_ridx,
    // PHY side: one dword per clock each way, K flag for byte 0 (ahci_phy_adapter.v)
    output wire [31:0]   o_phy_tx_data,
    output wire          o_phy_tx_isk,
    input  wire [31:0]   i_phy_rx_data,
    input  wire          i_phy_rx_isk,
    input  wire          i_phy_rx_err,   // pulse: 8b/10b code or disparity error
    input  wire          i_phy_ready,    // PhyRdy
    input  wire [1:0]    i_phy_gen,      // negotiated speed (1..3) while PhyRdy
    input  wire          i_dev_present,  // device presence detected (COMINIT seen)
    input  wire          i_cominit,      // pulse: COMINIT from the device
    output wire          o_comreset,     // hold COMRESET on the wire while 1
    output wire          o_offline,      // PxSCTL.DET = 4: PHY offline
    output wire          o_comwake,      // COMWAKE request (no power management: 0)
    input  wire          i_phy_hold,     // the PHY is in reset: the power-on COMRESET waits
    output wire [31:0]   o_vs_ctrl,      // PxVS 70h
    input  wire [31:0]   i_vs_status,    // PxVS 74h
    input  wire [5:0]    i_vs_phy,       // PxVS 78h
    output wire [3:0]    o_spd_limit,    // min(PxSCTL.SPD, CAP.ISS), 1..3
    output wire [3:0]    o_link_state    // link FSM state (debug, waveforms)
);

// ---- register offsets and bits (AHCI 1.3.1 3.3, docs/hardware.md 5.2) -----------------
localparam [6:0] R_CLB = 7'h00, R_CLBU = 7'h04, R_FB = 7'h08, R_FBU = 7'h0C, R_IS = 7'h10,
                 R_IE = 7'h14, R_CMD = 7'h18, R_TFD = 7'h20, R_SIG = 7'h24, R_SSTS = 7'h28,
                 R_SCTL = 7'h2C, R_SERR = 7'h30, R_SACT = 7'h34, R_CI = 7'h38, R_SNTF = 7'h3C,
                 R_VS_CTRL = 7'h70, R_VS_STAT = 7'h74, R_VS_PHY = 7'h78;
localparam [31:0] VS_MASK = (SBW >= 32) ? 32'hFFFF_FFFF : ((32'd1 << SBW) - 32'd1);
localparam [31:0] IS_DHRS = 32'h1, IS_PSS = 32'h2, IS_DSS = 32'h4, IS_SDBS = 32'h8,
                  IS_DPS = 32'h20, IS_OFS = 32'h0100_0000, IS_INFS = 32'h0400_0000,
                  IS_IFS = 32'h0800_0000, IS_HBFS = 32'h2000_0000, IS_TFES = 32'h4000_0000;
localparam [31:0] IE_WRITABLE = 32'hFDC0_00FF;
localparam [31:0] SERR_ERR_T = 32'h100, SERR_ERR_C = 32'h200, SERR_ERR_P = 32'h400,
                  SERR_ERR_E = 32'h800, SERR_DIAG_N = 32'h1_0000, SERR_DIAG_B = 32'h8_0000,
                  SERR_DIAG_C = 32'h20_0000, SERR_DIAG_H = 32'h40_0000,
                  SERR_DIAG_S = 32'h80_0000, SERR_DIAG_T = 32'h100_0000,
                  SERR_DIAG_F = 32'h200_0000, SERR_DIAG_X = 32'h400_0000;
// the PxSERR bits this HBA sets (ERR_T)
localparam [31:0] SERR_KEEP = ERR_T ? 32'hFFFF_FFFF : ~SERR_ERR_T;
localparam [7:0] ST_BSY = 8'h80, ST_DRQ = 8'h08, ST_ERR = 8'h01;
localparam       S64A = (AW > 32);
// Bits of slots that do not exist read 0 and ignore writes (AHCI 1.3.1 3.3.13, 3.3.14).
localparam [31:0] SLOT_MASK = (NCS == 5'd31) ? 32'hFFFF_FFFF : ((32'd1 << (NCS + 5'd1)) - 32'd1);
localparam [31:0] SACT_MASK = SNCQ ? SLOT_MASK : 32'd0;

// ---- registers -------------------------------------------------------------------------
reg [31:0] clb, clbu, fb, fbu, is_r, ie, serr, sact, ci, sig;
reg [15:0] tfd, sntf;
reg [11:0] sctl;
reg [31:0] vs_ctrl;
assign o_vs_ctrl = vs_ctrl;
reg        cmd_st, cmd_fre, cmd_atapi, cmd_dlae, cmd_fr, cmd_cr;
reg [4:0]  cmd_ccs;

// PxIS bits mirrored from PxSERR (cleared by clearing the SError bit): PRCS <- DIAG.N,
// PCS <- DIAG.X, UFS <- DIAG.F (AHCI 1.3.1 3.3.5).
wire [31:0] is_value = is_r | {9'd0, serr[16], 15'd0, serr[26], 1'b0, serr[25], 4'd0};
assign o_irq = (is_value & ie) != 32'd0;

wire [3:0] det_ctl = sctl[3:0];
wire [3:0] spd_ctl = sctl[7:4];
assign o_offline = det_ctl == 4'd4;
assign o_comwake = 1'b0;
assign o_spd_limit = (spd_ctl == 4'd0 || spd_ctl > ISS) ? ISS : spd_ctl;

// PxSSTS from the PHY status (AHCI 3.3.10, docs/hardware.md 3.1).
wire [3:0] ssts_det = o_offline ? 4'd4 : i_phy_ready ? 4'd3 : i_dev_present ? 4'd1 : 4'd0;
wire [31:0] ssts = {20'd0, i_phy_ready ? 4'd1 : 4'd0,
                    i_phy_ready ? {2'b00, i_phy_gen} : 4'd0, ssts_det};
// PxCMD: 25 DLAE, 24 ATAPI (RW), 15 CR, 14 FR, 12:8 CCS, 4 FRE, 2 POD and 1 SUD (read 1:
// no cold presence detection, no staggered spin-up), 0 ST; CLO (3) always reads 0.
wire [31:0] cmd_value = {6'd0, cmd_dlae, cmd_atapi, 8'd0, cmd_cr, cmd_fr, 1'b0, cmd_ccs,
                         3'd0, cmd_fre, 1'b0, 1'b1, 1'b1, cmd_st};

always @(*) begin
    case (i_reg_raddr)
        R_CLB:  o_reg_rdata = ONCHIP ? CLB_FIX : clb;
        R_CLBU: o_reg_rdata = ONCHIP ? 32'd0 : clbu;
        R_FB:   o_reg_rdata = ONCHIP ? FB_FIX : fb;
        R_FBU:  o_reg_rdata = ONCHIP ? 32'd0 : fbu;
        R_IS:   o_reg_rdata = is_value;
        R_IE:   o_reg_rdata = ie;
        R_CMD:  o_reg_rdata = cmd_value;
        R_TFD:  o_reg_rdata = {16'd0, tfd};
        R_SIG:  o_reg_rdata = sig;
        R_SSTS: o_reg_rdata = ssts;
        R_SCTL: o_reg_rdata = {20'd0, sctl};
        R_SERR: o_reg_rdata = serr;
        R_SACT: o_reg_rdata = sact;
        R_CI:   o_reg_rdata = ci;
        R_SNTF: o_reg_rdata = {16'd0, sntf};
        R_VS_CTRL: o_reg_rdata = vs_ctrl;
        R_VS_STAT: o_reg_rdata = i_vs_status & VS_MASK;
        R_VS_PHY:  o_reg_rdata = {26'd0, i_vs_phy};
        default: o_reg_rdata = 32'd0; // PxFBS (no CAP.FBSS), PxDEVSLP, reserved, vendor
    endcase
end

// ---- link layer ------------------------------------------------------------------------
wire [32:0] txf_head, txf_head2;
wire [5:0]  txf_count;
reg         txf_push;
reg  [32:0] txf_wdata;
reg         txf_flush;
wire        tx_pop;
reg         tx_req;
// Idle cycles after each transmitted frame before the next request reaches the link
// (transport turnaround; the link itself sends the SYNC the device waits for after its
// R_OK before any next X_RDY, see sync_owed in sata_link.v). The request is
// also held off in the cycle o_tx_done is up: the link is back in IDLE then, and tx_gap
// and the engine's tx_req only follow o_tx_done at the next edge (without this, the link
// started a second frame with nothing to send: SOF, then HOLD for ever).
reg  [1:0]  tx_gap;
wire        tx_done;
wire [1:0]  tx_status;
wire        tx_dmat;
wire [31:0] rx_data;
wire        rx_valid, rx_sof, rx_end, rx_crc_ok, rx_abort, bad_prim;
reg         rx_verdict, rx_accept;
wire        rx_full;

// The link takes i_tx_data at an edge and says so with o_tx_pop in the next cycle, in
// which it may take the following dword: present the entry behind the head then.
wire [32:0] tx_cur = tx_pop ? txf_head2 : txf_head;
wire        tx_valid = txf_count > {5'd0, tx_pop};

sata_link u_link (
    .clk(clk), .rst(rst), .i_host(1'b1), .i_phy_rdy(i_phy_ready),
    .o_phy_tx_data(o_phy_tx_data), .o_phy_tx_isk(o_phy_tx_isk),
    .i_phy_rx_data(i_phy_rx_data), .i_phy_rx_isk(i_phy_rx_isk),
    .i_tx_req(tx_req && tx_gap == 2'd0 && !tx_done), .i_tx_data(tx_cur[31:0]), .i_tx_valid(tx_valid),
    .i_tx_last(tx_cur[32]), .o_tx_pop(tx_pop), .o_tx_done(tx_done), .o_tx_status(tx_status),
    .o_tx_dmat(tx_dmat), .o_rx_data(rx_data), .o_rx_valid(rx_valid), .o_rx_sof(rx_sof),
    .o_rx_end(rx_end), .o_rx_crc_ok(rx_crc_ok), .o_rx_abort(rx_abort), .i_rx_full(rx_full),
    .i_rx_dmat(1'b0), .i_rx_verdict(rx_verdict), .i_rx_accept(rx_accept),
    .o_bad_prim(bad_prim), .o_state(o_link_state));

ahci_fifo #(.W(33), .AW(5)) u_txf (
    .clk(clk), .rst(rst), .i_flush(txf_flush), .i_push(txf_push), .i_data(txf_wdata),
    .i_pop(tx_pop), .o_head(txf_head), .o_head2(txf_head2), .o_count(txf_count));

// ---- receive front end -----------------------------------------------------------------
// rx FIFO entries: {kind[1:0], dword}; kind 0 = FIS dword, 1 = end of a frame the link
// answered R_OK, 2 = end of a dropped frame (bad CRC, malformed, aborted).
localparam [1:0] K_DATA = 2'd0, K_END_OK = 2'd1, K_END_BAD = 2'd2;
localparam [6:0] RXF_HIGH = 7'd40; // HOLD above this; 24 entries of headroom
wire [33:0] rxf_head;
// The receive side reads one entry at a time: the FIFO's second look-ahead output is not
// needed here (waiver: the same FIFO module serves the transmit side, which uses it).
/* verilator lint_off UNUSEDSIGNAL */
wire [33:0] rxf_head2_unused;
/* verilator lint_on UNUSEDSIGNAL */
wire [6:0]  rxf_count;
reg         rxf_push;
reg  [33:0] rxf_wdata;
reg         rxf_pop;
reg         rx_in_frame;
reg  [11:0] rx_cnt;       // FIS dwords of the frame so far (saturating)
reg  [7:0]  rx_type;
reg         sig_pending;  // the next D2H FIS loads PxSIG

ahci_fifo #(.W(34), .AW(6)) u_rxf (
    .clk(clk), .rst(rst), .i_flush(1'b0), .i_push(rxf_push), .i_data(rxf_wdata),
    .i_pop(rxf_pop), .o_head(rxf_head), .o_head2(rxf_head2_unused), .o_count(rxf_count));

// Flow control toward the device (model: ready_to_receive): with FIS receive off, only the
// signature D2H FIS is taken; otherwise the device waits with X_RDY.
assign rx_full = rxf_count >= RXF_HIGH || !(cmd_fr || sig_pending);

// Frame acceptance at EOF (model: receive_fis): the length a FIS type must have; unknown
// types go to UFIS whatever their length. With FR = 0 only a D2H FIS is taken.
reg rx_len_ok;
always @(*) begin
    case (rx_type)
        8'h46: rx_len_ok = rx_cnt >= 12'd2 && rx_cnt <= 12'd2049;
        8'h34, 8'h5F: rx_len_ok = rx_cnt == 12'd5;
        8'h41: rx_len_ok = rx_cnt == 12'd7;
        8'hA1: rx_len_ok = rx_cnt == 12'd2;
        8'h39: rx_len_ok = rx_cnt == 12'd1;
        8'h58: rx_len_ok = rx_cnt == 12'd3;
        default: rx_len_ok = rx_cnt >= 12'd1;
    endcase
end
wire rx_take = rx_len_ok && (cmd_fr || rx_type == 8'h34);

// ---- engine ----------------------------------------------------------------------------
localparam [5:0] E_IDLE = 6'd0, E_DMA_WAIT = 6'd1, E_RX_HDR = 6'd2, E_RX_COLLECT = 6'd3,
                 E_RX_DISPATCH = 6'd4, E_D2H = 6'd5, E_PSETUP = 6'd6, E_DSETUP = 6'd7,
                 E_SDB = 6'd8, E_UFIS = 6'd9, E_SEND_OUT = 6'd10, E_TX_START = 6'd11,
                 E_TX_FRAME = 6'd12, E_TX_LOOP = 6'd13, E_TX_CHUNK = 6'd14, E_TX_CLOSE = 6'd15,
                 E_TX_WAIT = 6'd16, E_TX_POST = 6'd17, E_FINISH_PIO = 6'd18,
                 E_RXD_START = 6'd19, E_RXD_FILL = 6'd20, E_RXD_FLUSH = 6'd21,
                 E_RXD_FLUSHED = 6'd22, E_RXD_END = 6'd23, E_RXD_POST = 6'd24,
                 E_RXD_DISCARD = 6'd25, E_WALK_HDR = 6'd26, E_WALK_HDR2 = 6'd27,
                 E_WALK_NEXT = 6'd28, E_WALK_ENT = 6'd29, E_ISSUE = 6'd30,
                 E_ISSUE_HDR = 6'd31, E_ISSUE_CFIS = 6'd32, E_ISSUE_PUSH = 6'd33,
                 E_ISSUE_WAIT = 6'd34, E_RX_DROP = 6'd35, E_WALK_POS = 6'd36;
localparam [1:0] X_PIO = 2'd0, X_DMA = 2'd1, X_FPDMA = 2'd2;

reg [5:0]    e_state, e_ret, e_err_next, e_wret;
reg          e_err_slot_v;
reg [4:0]    e_err_slot;
reg          e_dst_tx;          // DMA read data goes to the tx FIFO (else dbuf)
reg          e_chunk_last;      // the current tx chunk ends the frame
reg [31:0]   dbuf [0:15];
reg [4:0]    fis_n;             // dwords collected / staged in dbuf
reg          stop_evt;          // ST fell while the engine was busy: drop command work
reg          halted;            // fatal error: no issue until ST is cleared
reg          rx_drop;           // COMRESET: frames queued before it are discarded
reg [31:0]   issued, valid_v, queued_v;
reg [4:0]    last_slot;
reg          busy_v;            // a non-queued or just-issued command set BSY ...
reg [4:0]    busy_slot;         // ... in this slot
reg          busy_atapi;        // its command header A bit (ACMD holds a CDB)
reg [AW-1:0] busy_ctba;
reg [31:0]   cmd_done;          // bytes moved for the busy (non-queued) command (PRDBC)
reg          acmd_sent;
reg [4:0]    i_slot;            // slot being issued
reg [4:0]    i_cfl;             // its header: CFL, and the A, R and C bits
reg          i_atapi, i_reset, i_clear;
reg [AW-1:0] i_ctba;
// PIO data phase (PIO Setup)
reg          pio_active, pio_d2h, pio_irq;
reg [7:0]    pio_estatus;
reg [15:0]   pio_count;
// first-party DMA data phase (DMA Setup)
reg          fd_active, fd_d2h;
reg [4:0]    fd_slot;
reg [31:0]   fd_offset, fd_count, fd_done;
// current data transfer
reg [1:0]    x_kind;
reg [4:0]    x_slot;
reg [31:0]   x_pos, x_rem, x_moved, x_take;
reg          x_acmd, x_ovf, x_fail, x_end_ok, x_ended, x_last_pushed;
// PRDT walk: position w_pos of slot w_slot is at w_addr, w_left bytes left in the entry,
// w_idx is the next entry to fetch.
reg          w_valid;
reg [4:0]    w_slot;
reg [31:0]   w_pos, w_skip;
reg [AW-1:0] w_ctba, w_addr;
reg [15:0]   w_prdtl, w_idx;
reg [22:0]   w_left;
reg          w_irq;
// timers
reg [7:0]    stop_cnt, fr_cnt;
reg [4:0]    spin_cnt;
reg          phy_ready_q, tx_done_q, tx_dmat_q;
reg [1:0]    tx_status_q;

genvar gi;
generate
    for (gi = 0; gi < 16; gi = gi + 1) begin : g_wbuf
        assign o_dma_wbuf[32*gi +: 32] = dbuf[gi];
    end
endgenerate

assign o_comreset = spin_cnt != 5'd0 || det_ctl == 4'd1;

wire [31:0] rxd = rxf_head[31:0];
// A Device Control FIS (Register H2D with C = 0) asserting SRST (byte 15 bit 2).
wire srst_fis = i_cfl >= 5'd4 && dbuf[0][7:0] == 8'h27 && !dbuf[0][15] && dbuf[3][26];
wire [1:0]  rxk = rxf_head[33:32];

// Round-robin slot choice among commands not yet sent (AHCI 5.3.2: the HBA picks the
// next slot after the last one issued).
wire [31:0] pending = ci & ~issued;
reg  [4:0]  rr_slot;
integer     k;
reg  [4:0]  kk;
always @(*) begin
    rr_slot = last_slot;
    for (k = 31; k >= 1; k = k - 1) begin
        kk = last_slot + k[4:0];
        if (pending[kk])
            rr_slot = kk;
    end
    if (!pending[rr_slot] && pending[last_slot])
        rr_slot = last_slot;
end

wire can_issue = cmd_st && cmd_cr && !halted && pending != 32'd0 &&
                 (tfd[7:0] & (ST_BSY | ST_DRQ)) == 8'd0 && !busy_v && !pio_active &&
                 !fd_active && i_phy_ready;

wire [AW-1:0] clb_addr = ONCHIP ? addr64(32'd0, CLB_FIX) : addr64(clbu, clb);
wire [AW-1:0] fb_addr = ONCHIP ? addr64(32'd0, FB_FIX) : addr64(fbu, fb);
// {hi, lo} as an AW-bit bus address (hi ignored with 32-bit addresses, as without
// CAP.S64A). Waiver UNUSEDSIGNAL: with AW = 32 the upper half of the temporary is unused.
/* verilator lint_off UNUSEDSIGNAL */
function [AW-1:0] addr64(input [31:0] hi, input [31:0] lo);
    reg [63:0] a;
    begin
        a = S64A ? {hi, lo} : {32'd0, lo};
        addr64 = a[AW-1:0];
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */
function [AW-1:0] slot_hdr(input [4:0] slot);
    slot_hdr = clb_addr + {{(AW-10){1'b0}}, slot, 5'd0};
endfunction
function [31:0] sat_sub(input [31:0] a, input [31:0] b);
    sat_sub = (a > b) ? a - b : 32'd0;
endfunction
function [4:0] min5(input [31:0] a, input [4:0] b);
    min5 = (a < {27'd0, b}) ? a[4:0] : b;
endfunction

// tx chunk geometry: dwords of the next DMA read (at most 16, the entry's and the frame's
// remainder, the free space in the tx FIFO)
wire [31:0] w_left_dw = {11'd0, w_left[22:2]} + {31'd0, w_left[1:0] != 2'd0};
wire [31:0] x_rem_dw = {2'd0, x_rem[31:2]} + {31'd0, x_rem[1:0] != 2'd0};
wire [5:0]  tx_free6 = 6'd32 - txf_count;
wire [4:0]  tx_free = (tx_free6 > 6'd16) ? 5'd16 : tx_free6[4:0];
wire [4:0]  tx_chunk = min5(x_rem_dw, min5(w_left_dw, tx_free));

// Per-cycle set/clear accumulators (several sources may hit one register in a cycle).
// Waiver BLKSEQ (as in sata_link.v): these and a few decode temporaries (f_status, ...)
// are blocking variables of the clocked process, assigned at its top every cycle before
// any use, so they hold no state and synthesize to combinational logic.
/* verilator lint_off BLKSEQ */
reg [31:0] is_set, serr_set, ci_clr, sact_clr;

task automatic halt_t(input [31:0] bit_, input slot_v, input [4:0] slot);
    begin
        if (slot_v)
            cmd_ccs <= slot;
        if (cmd_st)
            halted <= 1'b1;
        is_set = is_set | bit_;
    end
endtask

task automatic protocol_error_t;
    begin
        if (cmd_st) begin
            serr_set = serr_set | SERR_ERR_P;
            halt_t(IS_IFS, busy_v, busy_slot);
        end
    end
endtask

task automatic complete_t(input [4:0] slot);
    begin
        if (!halted) begin
            ci_clr = ci_clr | (32'd1 << slot);
            issued[slot] <= 1'b0;
            if (busy_v && busy_slot == slot)
                busy_v <= 1'b0;
            if (!queued_v[slot])
                valid_v[slot] <= 1'b0;
        end
    end
endtask

task automatic dma_t(input we, input [AW-1:0] addr, input [4:0] len, input to_tx,
                     input [5:0] ret);
    begin
        o_dma_req <= 1'b1;
        o_dma_we <= we;
        o_dma_addr <= addr;
        o_dma_len <= len;
        o_dma_local <= 1'b0;
        e_dst_tx <= to_tx;
        e_ret <= ret;
        e_state <= E_DMA_WAIT;
    end
endtask

// A DMA access to the command list or the received-FIS area: on chip with ONCHIP.
task automatic area_dma_t(input we, input [AW-1:0] addr, input [4:0] len, input [5:0] ret);
    begin
        dma_t(we, addr, len, 1'b0, ret);
        o_dma_local <= ONCHIP;
    end
endtask

// A Data FIS moved x_moved bytes: write the command header's PRDBC (dword 1) with the
// bytes transferred so far (for FPDMA the DMA Setup offset plus this command's bytes), then
// go on to `next`. Shared by the transmit and the receive path.
task automatic prdbc_writeback_t(input [5:0] next);
    begin
        if (x_kind == X_FPDMA)
            new_done = fd_offset + fd_done + x_moved;
        else
            new_done = cmd_done + x_moved;
        if (x_kind != X_FPDMA)
            cmd_done <= new_done;
        dbuf[0] <= new_done;
        e_err_next <= E_IDLE;
        area_dma_t(1'b1, slot_hdr(x_slot) + {{(AW-3){1'b0}}, 3'd4}, 5'd1, next);
    end
endtask

// Post a received FIS to its area (only with FR = 1), then go on to `next`.
task automatic post_t(input [7:0] off, input [4:0] len, input [5:0] next);
    begin
        e_err_slot_v <= 1'b0;
        e_err_next <= E_IDLE;
        if (cmd_fr)
            area_dma_t(1'b1, fb_addr + {{(AW-8){1'b0}}, off}, len, next);
        else
            e_state <= next;
    end
endtask

// Position the PRDT walk at byte `pos` of `slot`'s buffer, then continue at `ret`.
task automatic walk_to_t(input [4:0] slot, input [31:0] pos, input [5:0] ret);
    begin
        e_wret <= ret;
        if (w_valid && w_slot == slot && w_pos == pos) begin
            e_state <= ret;
        end else begin
            w_valid <= 1'b0;
            w_slot <= slot;
            w_skip <= pos;
            w_pos <= pos;
            e_state <= E_WALK_HDR;
        end
    end
endtask

reg [7:0]  f_status, f_error;
reg [31:0] sdb_done;
reg [22:0] ent_len;
reg [31:0] new_done;
integer    t;

always @(posedge clk) begin
    is_set = 32'd0;
    serr_set = 32'd0;
    ci_clr = 32'd0;
    sact_clr = 32'd0;
    txf_push <= 1'b0;
    txf_flush <= 1'b0;
    rxf_push <= 1'b0;
    rxf_pop <= 1'b0;
    rx_verdict <= 1'b0;
    f_status = dbuf[0][23:16];
    f_error = dbuf[0][31:24];
    sdb_done = 32'd0;
    ent_len = 23'd0;
    new_done = 32'd0;

    if (rst) begin
        // GHC.HR resets every port register but PxCLB(U) and PxFB(U) (AHCI 1.3.1 10.4.3)
        if (por) begin
            clb <= 32'd0; clbu <= 32'd0; fb <= 32'd0; fbu <= 32'd0;
        end
        is_r <= 32'd0; ie <= 32'd0; serr <= 32'd0; sact <= 32'd0; ci <= 32'd0;
        sig <= 32'hFFFF_FFFF; tfd <= 16'h007F; sntf <= 16'd0; sctl <= 12'd0; vs_ctrl <= 32'd0;
        cmd_st <= 1'b0; cmd_fre <= 1'b0; cmd_atapi <= 1'b0; cmd_dlae <= 1'b0;
        cmd_fr <= 1'b0; cmd_cr <= 1'b0; cmd_ccs <= 5'd0;
        rx_accept <= 1'b0; rxf_wdata <= 34'd0; txf_wdata <= 33'd0;
        rx_in_frame <= 1'b0; rx_cnt <= 12'd0; rx_type <= 8'd0; sig_pending <= 1'b1;
        tx_req <= 1'b0; tx_gap <= 2'd0;
        e_state <= E_IDLE; e_ret <= E_IDLE; e_err_next <= E_IDLE; e_wret <= E_IDLE;
        e_err_slot_v <= 1'b0; e_err_slot <= 5'd0; e_dst_tx <= 1'b0; e_chunk_last <= 1'b0;
        o_dma_req <= 1'b0; o_dma_we <= 1'b0; o_dma_addr <= {AW{1'b0}}; o_dma_len <= 5'd0;
        o_dma_local <= 1'b0;
        fis_n <= 5'd0; stop_evt <= 1'b0; halted <= 1'b0; rx_drop <= 1'b0;
        issued <= 32'd0; valid_v <= 32'd0; queued_v <= 32'd0; last_slot <= 5'd31;
        busy_v <= 1'b0; busy_slot <= 5'd0; busy_atapi <= 1'b0; busy_ctba <= {AW{1'b0}};
        cmd_done <= 32'd0; acmd_sent <= 1'b0;
        i_slot <= 5'd0; i_cfl <= 5'd0; i_atapi <= 1'b0; i_reset <= 1'b0; i_clear <= 1'b0; i_ctba <= {AW{1'b0}};
        pio_active <= 1'b0; pio_d2h <= 1'b0; pio_irq <= 1'b0; pio_estatus <= 8'd0;
        pio_count <= 16'd0;
        fd_active <= 1'b0; fd_d2h <= 1'b0; fd_slot <= 5'd0; fd_offset <= 32'd0;
        fd_count <= 32'd0; fd_done <= 32'd0;
        x_kind <= X_PIO; x_slot <= 5'd0; x_pos <= 32'd0; x_rem <= 32'd0; x_moved <= 32'd0;
        x_take <= 32'd0; x_acmd <= 1'b0; x_ovf <= 1'b0; x_fail <= 1'b0; x_end_ok <= 1'b0;
        x_ended <= 1'b0; x_last_pushed <= 1'b0;
        w_valid <= 1'b0; w_slot <= 5'd0; w_pos <= 32'd0; w_skip <= 32'd0;
        w_ctba <= {AW{1'b0}}; w_addr <= {AW{1'b0}}; w_prdtl <= 16'd0; w_idx <= 16'd0;
        w_left <= 23'd0; w_irq <= 1'b0;
        stop_cnt <= 8'd0; fr_cnt <= 8'd0; spin_cnt <= SPINUP[4:0];
        phy_ready_q <= 1'b0; tx_done_q <= 1'b0; tx_dmat_q <= 1'b0; tx_status_q <= 2'd0;
        for (t = 0; t < 16; t = t + 1)
            dbuf[t] <= 32'd0;
    end else begin
        // ---- timers
        if (spin_cnt != 5'd0 && !i_phy_hold)
            spin_cnt <= spin_cnt - 5'd1;
        if (stop_cnt != 8'd0)
            stop_cnt <= stop_cnt - 8'd1;
        if (fr_cnt != 8'd0)
            fr_cnt <= fr_cnt - 8'd1;
        else
            cmd_fr <= cmd_fre;
        // CR clears once the engine is idle after ST 1->0 (AHCI 3.3.7, 10.3.2).
        if (!cmd_st && cmd_cr && stop_cnt == 8'd0 && e_state == E_IDLE)
            cmd_cr <= 1'b0;

        // ---- PHY events (model: phy_changed, oob_reset)
        phy_ready_q <= i_phy_ready;
        if (phy_ready_q != i_phy_ready) begin
            serr_set = serr_set | SERR_DIAG_N;
            if (i_phy_ready && sig_pending && tfd[7:0] == 8'h7F)
                tfd <= 16'h0080; // a device answered OOB: busy until its signature
        end
        if (i_cominit) begin
            sig_pending <= 1'b1;
            tfd <= 16'h0080;
            pio_active <= 1'b0;
            fd_active <= 1'b0;
            serr_set = serr_set | SERR_DIAG_X;
        end

        // ---- link transmit status
        if (tx_gap != 2'd0)
            tx_gap <= tx_gap - 2'd1;
        if (tx_done) begin
            tx_gap <= 2'd3;
            tx_done_q <= 1'b1;
            tx_status_q <= tx_status;
            tx_dmat_q <= tx_dmat && tx_status == 2'd0;
        end

        // ---- receive front end (model: receive_fis, receive_error)
        // A receive symbol error (AHCI 1.3.1 3.3.12, PxSERR): a code error (no such 10b
        // symbol), a running-disparity error (the PHY adapter ORs both) or an unknown
        // primitive is DIAG.B (10B to 8B Decode Error) with ERR.T (Transient Data
        // Integrity Error); DIAG.D (Disparity Error) is "not used by AHCI" and stays 0.
        // Neither raises an interrupt or stops the engine: the frame's CRC check (below)
        // does that if the error hit a frame.
        if (bad_prim || i_phy_rx_err)
            serr_set = serr_set | SERR_DIAG_B | SERR_ERR_T;
        if (rx_sof) begin
            rx_in_frame <= 1'b1;
            rx_cnt <= 12'd0;
            rx_type <= 8'd0;
        end
        if (rx_valid && rx_in_frame) begin
            rxf_push <= 1'b1;
            rxf_wdata <= {K_DATA, rx_data};
            if (rx_cnt == 12'd0)
                rx_type <= rx_data[7:0];
            if (rx_cnt != 12'hFFF)
                rx_cnt <= rx_cnt + 12'd1;
        end
        if (rx_end && rx_in_frame) begin
            rx_in_frame <= 1'b0;
            rxf_push <= 1'b1;
            if (!rx_crc_ok) begin
                rxf_wdata <= {K_END_BAD, 32'd0};
                serr_set = serr_set | SERR_DIAG_C | SERR_ERR_T;
                if (cmd_st && (ci | sact) != 32'd0)
                    halt_t(IS_IFS, busy_v, busy_slot);
            end else begin
                rx_verdict <= 1'b1;
                rx_accept <= rx_take;
                rxf_wdata <= {rx_take ? K_END_OK : K_END_BAD, 32'd0};
                if (!rx_len_ok) begin
                    serr_set = serr_set | SERR_ERR_T | SERR_DIAG_T;
                    is_set = is_set | IS_INFS;
                end
            end
        end
        if (rx_abort) begin
            serr_set = serr_set | SERR_DIAG_S | SERR_ERR_T;
            if (rx_in_frame) begin
                rx_in_frame <= 1'b0;
                rxf_push <= 1'b1;
                rxf_wdata <= {K_END_BAD, 32'd0};
            end
            if (cmd_st && (ci | sact) != 32'd0)
                halt_t(IS_IFS, busy_v, busy_slot);
        end

        // ---- DMA read data
        if (i_dma_rvalid && o_dma_req) begin
            if (e_dst_tx) begin
                txf_push <= 1'b1;
                txf_wdata <= {e_chunk_last && {1'b0, i_dma_ridx} == o_dma_len - 5'd1,
                              i_dma_rdata};
            end else begin
                dbuf[i_dma_ridx] <= i_dma_rdata;
            end
        end

        // ---- engine
        case (e_state)
            E_IDLE: begin
                stop_evt <= 1'b0;
                if (rx_drop) begin
                    e_state <= E_RX_DROP;
                end else if (rxf_count > {6'd0, rxf_pop}) begin
                    // an entry the pop issued in the last state (a frame's end marker)
                    // does not leave before this edge: it is not a next frame, whose
                    // header E_RX_HDR would wait for with the engine busy (CR could
                    // not clear after ST 1->0, AHCI 1.3.1 10.3.2)
                    e_state <= E_RX_HDR;
                end else if (can_issue) begin
                    e_state <= E_ISSUE;
                end
            end
            E_RX_DROP: begin
                if (rxf_count != 7'd0) begin
                    rxf_pop <= !rxf_pop;
                end else if (!rxf_pop && !rx_in_frame) begin
                    rx_drop <= 1'b0;
                    e_state <= E_IDLE;
                end
            end
            E_DMA_WAIT: if (i_dma_done) begin
                o_dma_req <= 1'b0;
                if (i_dma_err) begin
                    // Host bus master abort (SLVERR / DECERR): AHCI 6.1.2, PxIS.HBFS.
                    halt_t(IS_HBFS, e_err_slot_v, e_err_slot);
                    e_state <= e_err_next;
                end else begin
                    e_state <= e_ret;
                end
            end

            // ---------------- receive: FIS header, collect, dispatch
            E_RX_HDR: if (!rxf_pop && rxf_count != 7'd0) begin
                rxf_pop <= 1'b1;
                if (rxk != K_DATA) begin
                    e_state <= E_IDLE; // end marker of a frame with no dword
                end else if (rxd[7:0] == 8'h46) begin
                    e_state <= E_RXD_START;
                end else begin
                    dbuf[0] <= rxd;
                    fis_n <= 5'd1;
                    e_state <= E_RX_COLLECT;
                end
            end
            E_RX_COLLECT: if (!rxf_pop && rxf_count != 7'd0) begin
                rxf_pop <= 1'b1;
                if (rxk == K_DATA) begin
                    if (fis_n < 5'd16) begin
                        dbuf[fis_n[3:0]] <= rxd;
                        fis_n <= fis_n + 5'd1;
                    end
                end else begin
                    e_state <= (rxk == K_END_OK) ? E_RX_DISPATCH : E_IDLE;
                end
            end
            E_RX_DISPATCH: begin
                case (dbuf[0][7:0])
                    8'h34: post_t(8'h40, 5'd5, E_D2H);
                    8'h5F: post_t(8'h20, 5'd5, E_PSETUP);
                    8'h41: post_t(8'h00, 5'd7, E_DSETUP);
                    8'hA1: post_t(8'h58, 5'd2, E_SDB);
                    8'h39: e_state <= E_SEND_OUT;
                    8'h58: e_state <= E_IDLE; // BIST Activate: loopback modes not modelled
                    default: post_t(8'h60, fis_n, E_UFIS);
                endcase
            end
            // Register D2H (model: on_d2h)
            E_D2H: begin
                if (sig_pending) begin
                    sig_pending <= 1'b0;
                    sig <= {dbuf[1][23:16], dbuf[1][15:8], dbuf[1][7:0], dbuf[3][7:0]};
                end
                tfd <= {f_error, f_status};
                pio_active <= 1'b0;
                if ((f_status & ST_ERR) != 8'd0)
                    halt_t(IS_TFES, busy_v, busy_slot);
                else if ((f_status & (ST_BSY | ST_DRQ)) == 8'd0 && busy_v)
                    complete_t(busy_slot);
                if (dbuf[0][14])
                    is_set = is_set | IS_DHRS;
                e_state <= E_IDLE;
            end
            // PIO Setup (model: on_pio_setup)
            E_PSETUP: begin
                tfd <= {f_error, f_status};
                e_state <= E_IDLE;
                if ((f_status & ST_ERR) != 8'd0) begin
                    halt_t(IS_TFES, busy_v, busy_slot);
                end else if (!busy_v || queued_v[busy_slot]) begin
                    protocol_error_t;
                end else begin
                    pio_active <= 1'b1;
                    pio_d2h <= dbuf[0][13];
                    pio_irq <= dbuf[0][14];
                    pio_estatus <= dbuf[3][31:24];
                    pio_count <= dbuf[4][15:0];
                    if (!dbuf[0][13]) begin
                        if (dbuf[4][15:0] == 16'd0) begin
                            serr_set = serr_set | SERR_ERR_P;
                            halt_t(IS_IFS, 1'b1, busy_slot);
                        end else begin
                            x_kind <= X_PIO;
                            x_slot <= busy_slot;
                            x_pos <= cmd_done;
                            x_rem <= {16'd0, dbuf[4][15:0]};
                            x_acmd <= busy_atapi && !acmd_sent;
                            e_state <= E_TX_START;
                        end
                    end
                end
            end
            // DMA Setup (model: on_dma_setup)
            E_DSETUP: begin
                e_state <= E_IDLE;
                if (!valid_v[dbuf[1][4:0]]) begin
                    protocol_error_t;
                end else begin
                    fd_active <= dbuf[5] != 32'd0;
                    fd_d2h <= dbuf[0][13];
                    fd_slot <= dbuf[1][4:0];
                    fd_offset <= dbuf[4] & ~32'd3;
                    fd_count <= dbuf[5];
                    fd_done <= 32'd0;
                    if (dbuf[0][14])
                        is_set = is_set | IS_DSS;
                    if (dbuf[5] != 32'd0 && !dbuf[0][13] && dbuf[0][15])
                        e_state <= E_SEND_OUT; // auto-activate
                end
            end
            // Set Device Bits (model: on_sdb)
            E_SDB: begin
                tfd <= {f_error, (tfd[7:0] & (ST_BSY | ST_DRQ)) | (f_status & 8'h77)};
                sdb_done = dbuf[1] & sact;
                sact_clr = sact_clr | sdb_done;
                if (fd_active && sdb_done[fd_slot])
                    fd_active <= 1'b0;
                valid_v <= valid_v & ~(sdb_done & ~ci);
                if (dbuf[0][15])
                    sntf[dbuf[0][11:8]] <= 1'b1;
                if ((f_status & ST_ERR) != 8'd0)
                    halt_t(IS_TFES, 1'b0, 5'd0);
                if (dbuf[0][14])
                    is_set = is_set | IS_SDBS;
                e_state <= E_IDLE;
            end
            E_UFIS: begin
                serr_set = serr_set | SERR_DIAG_F; // PxIS.UFS mirrors it
                e_state <= E_IDLE;
            end
            // DMA Activate, or DMA Setup with auto-activate (model: send_data_out)
            E_SEND_OUT: begin
                e_state <= E_TX_START;
                x_acmd <= 1'b0;
                if (fd_active && !fd_d2h) begin
                    x_kind <= X_FPDMA;
                    x_slot <= fd_slot;
                    x_pos <= fd_offset + fd_done;
                    x_rem <= (fd_count - fd_done > 32'd8192) ? 32'd8192 : fd_count - fd_done;
                end else if (busy_v && !queued_v[busy_slot] && !pio_active) begin
                    x_kind <= X_DMA;
                    x_slot <= busy_slot;
                    x_pos <= cmd_done;
                    x_rem <= 32'd8192; // or up to the end of the PRDT
                end else begin
                    protocol_error_t;
                    e_state <= E_IDLE;
                end
            end

            // ---------------- transmit a Data FIS (PIO data-out, DMA write, FPDMA write)
            E_TX_START: begin
                x_moved <= 32'd0;
                x_fail <= 1'b0;
                x_last_pushed <= 1'b0;
                e_err_slot_v <= 1'b1;
                e_err_slot <= x_slot;
                e_err_next <= E_IDLE;
                if (x_acmd) begin
                    // ATAPI: the CDB from the command table's ACMD area (64 bytes).
                    if (x_rem > 32'd64) begin
                        protocol_error_t;
                        e_state <= E_IDLE;
                    end else begin
                        w_valid <= 1'b0;
                        w_addr <= busy_ctba + {{(AW-7){1'b0}}, 7'h40};
                        w_left <= 23'd64;
                        w_idx <= 16'd0;
                        w_prdtl <= 16'd0;
                        w_irq <= 1'b0;
                        e_state <= E_TX_FRAME;
                    end
                end else begin
                    walk_to_t(x_slot, x_pos, E_TX_FRAME);
                end
            end
            E_TX_FRAME: begin
                if (w_left == 23'd0 && w_idx >= w_prdtl) begin
                    // Nothing left in the PRDT at this position (model: "DMA Activate past
                    // the end of the transfer" / "more data than the PRDT holds").
                    serr_set = serr_set | SERR_ERR_P;
                    halt_t(IS_IFS, 1'b1, x_slot);
                    e_state <= E_IDLE;
                end else begin
                    txf_push <= 1'b1;
                    txf_wdata <= {1'b0, 32'h0000_0046}; // Data FIS header, PM port 0
                    tx_req <= 1'b1;
                    e_err_next <= E_TX_CLOSE;
                    e_state <= E_TX_LOOP;
                end
            end
            E_TX_LOOP: begin
                // Every dword of the frame is in the tx FIFO, or the link ended the frame
                // early (PhyRdy lost under it, or the device's SYNC escape: tx_status 2).
                // Then the link no longer drains the FIFO: feeding on would wait for room
                // forever (the engine stuck, CR never clearing), and the tx_req left up would
                // send the FIFO's rest as a headless frame once the link is back.
                if (x_last_pushed || tx_done_q) begin
                    e_state <= E_TX_WAIT;
                end else if (w_left == 23'd0) begin
                    // next PRD entry (the previous one ended the frame if it was the last)
                    w_skip <= 32'd0;
                    e_wret <= E_TX_LOOP;
                    e_state <= E_WALK_NEXT;
                end else if (tx_chunk != 5'd0) begin
                    e_chunk_last <= {27'd0, tx_chunk} == x_rem_dw ||
                                    ({27'd0, tx_chunk} == w_left_dw && w_idx >= w_prdtl);
                    dma_t(1'b0, w_addr, tx_chunk, 1'b1, E_TX_CHUNK);
                end
            end
            E_TX_CHUNK: begin
                // o_dma_len dwords went into the tx FIFO
                w_addr <= w_addr + {{(AW-7){1'b0}}, o_dma_len, 2'b00};
                w_left <= (w_left > {16'd0, o_dma_len, 2'b00}) ?
                          w_left - {16'd0, o_dma_len, 2'b00} : 23'd0;
                if (w_irq && w_left <= {16'd0, o_dma_len, 2'b00})
                    is_set = is_set | IS_DPS;
                w_pos <= w_pos + {25'd0, o_dma_len, 2'b00};
                x_moved <= x_moved + {25'd0, o_dma_len, 2'b00};
                x_rem <= sat_sub(x_rem, {25'd0, o_dma_len, 2'b00});
                x_last_pushed <= e_chunk_last;
                e_state <= E_TX_LOOP;
            end
            E_TX_CLOSE: begin
                // A host bus error in the middle of the frame: end it with a filler dword
                // (the device gets a short Data FIS; the port has already stopped).
                x_fail <= 1'b1;
                if (!x_last_pushed && !(txf_push && txf_wdata[32])) begin
                    txf_push <= 1'b1;
                    txf_wdata <= {1'b1, 32'd0};
                end
                e_state <= E_TX_WAIT;
            end
            E_TX_WAIT: if (tx_done_q) begin
                tx_done_q <= 1'b0;
                tx_req <= 1'b0;
                txf_flush <= 1'b1;
                e_state <= E_IDLE;
                if (stop_evt || x_fail) begin
                    w_valid <= 1'b0;
                end else if (tx_status_q == 2'd1) begin
                    serr_set = serr_set | SERR_DIAG_H | SERR_ERR_T; // R_ERR on a Data FIS
                    halt_t(IS_IFS, 1'b1, x_slot);
                end else if (tx_status_q == 2'd2) begin
                    serr_set = serr_set | SERR_ERR_C;               // link lost under it
                    halt_t(IS_IFS, 1'b1, x_slot);
                end else if (tx_dmat_q) begin
                    // DMAT is not supported: the byte counts would be wrong.
                    serr_set = serr_set | SERR_ERR_P;
                    halt_t(IS_IFS, 1'b1, x_slot);
                end else if (x_acmd) begin
                    acmd_sent <= 1'b1;
                    e_state <= E_FINISH_PIO;
                end else begin
                    prdbc_writeback_t(E_TX_POST);
                end
            end
            E_TX_POST: begin
                e_state <= E_IDLE;
                if (x_kind == X_FPDMA) begin
                    fd_done <= fd_done + x_moved;
                    if (fd_done + x_moved >= fd_count)
                        fd_active <= 1'b0;
                end
                if (x_kind != X_DMA && x_rem != 32'd0) begin
                    // the PRDT ended before the transfer count
                    serr_set = serr_set | SERR_ERR_P;
                    halt_t(IS_IFS, 1'b1, x_slot);
                end else if (x_kind == X_PIO) begin
                    e_state <= E_FINISH_PIO;
                end
            end
            // End of a PIO data block (model: finish_pio)
            E_FINISH_PIO: begin
                pio_active <= 1'b0;
                tfd <= {tfd[15:8], pio_estatus};
                if ((pio_estatus & ST_ERR) != 8'd0)
                    halt_t(IS_TFES, busy_v, busy_slot);
                else if ((pio_estatus & (ST_BSY | ST_DRQ)) == 8'd0 && busy_v)
                    complete_t(busy_slot);
                if (pio_irq)
                    is_set = is_set | IS_PSS;
                e_state <= E_IDLE;
            end

            // ---------------- receive a Data FIS (PIO data-in, DMA read, FPDMA read)
            E_RXD_START: begin
                x_moved <= 32'd0;
                x_take <= 32'd0;
                x_ovf <= 1'b0;
                x_ended <= 1'b0;
                x_end_ok <= 1'b0;
                fis_n <= 5'd0;
                e_err_next <= E_RXD_DISCARD;
                if (fd_active && fd_d2h) begin
                    x_kind <= X_FPDMA;
                    x_slot <= fd_slot;
                    x_rem <= fd_count - fd_done;
                    e_err_slot_v <= 1'b1;
                    e_err_slot <= fd_slot;
                    walk_to_t(fd_slot, fd_offset + fd_done, E_RXD_FILL);
                end else if (pio_active && pio_d2h && busy_v) begin
                    x_kind <= X_PIO;
                    x_slot <= busy_slot;
                    x_rem <= {16'd0, pio_count};
                    e_err_slot_v <= 1'b1;
                    e_err_slot <= busy_slot;
                    walk_to_t(busy_slot, cmd_done, E_RXD_FILL);
                end else if (busy_v && !queued_v[busy_slot] && !pio_active) begin
                    x_kind <= X_DMA;
                    x_slot <= busy_slot;
                    x_rem <= 32'hFFFF_FFFF;
                    e_err_slot_v <= 1'b1;
                    e_err_slot <= busy_slot;
                    walk_to_t(busy_slot, cmd_done, E_RXD_FILL);
                end else begin
                    protocol_error_t; // Data FIS with no receiving command
                    e_state <= E_RXD_DISCARD;
                end
            end
            E_RXD_FILL: if (!rxf_pop && rxf_count != 7'd0) begin
                if (rxk != K_DATA) begin
                    rxf_pop <= 1'b1;
                    x_ended <= 1'b1;
                    x_end_ok <= rxk == K_END_OK;
                    e_state <= (fis_n != 5'd0) ? E_RXD_FLUSH : E_RXD_END;
                end else if (x_rem == 32'd0) begin
                    rxf_pop <= 1'b1; // dword padding past the transfer count
                end else if (w_left == 23'd0 && w_idx >= w_prdtl) begin
                    rxf_pop <= 1'b1; // past the end of the PRDT: overflow
                    x_ovf <= 1'b1;
                    x_rem <= sat_sub(x_rem, 32'd4);
                    x_take <= x_take + 32'd4;
                end else if (w_left == 23'd0) begin
                    w_skip <= 32'd0;
                    e_wret <= E_RXD_FILL;
                    e_state <= E_WALK_NEXT;
                end else begin
                    rxf_pop <= 1'b1;
                    dbuf[fis_n[3:0]] <= rxd;
                    fis_n <= fis_n + 5'd1;
                    x_rem <= sat_sub(x_rem, 32'd4);
                    x_take <= x_take + 32'd4;
                    if (fis_n == 5'd15 || {27'd0, fis_n} + 32'd1 >= w_left_dw ||
                        x_rem <= 32'd4)
                        e_state <= E_RXD_FLUSH;
                end
            end
            E_RXD_FLUSH: begin
                dma_t(1'b1, w_addr, fis_n, 1'b0, E_RXD_FLUSHED);
            end
            E_RXD_FLUSHED: begin
                w_addr <= w_addr + {{(AW-7){1'b0}}, fis_n, 2'b00};
                w_left <= (w_left > {16'd0, fis_n, 2'b00}) ? w_left - {16'd0, fis_n, 2'b00}
                                                           : 23'd0;
                if (w_irq && w_left <= {16'd0, fis_n, 2'b00})
                    is_set = is_set | IS_DPS;
                w_pos <= w_pos + {25'd0, fis_n, 2'b00};
                x_moved <= x_moved + {25'd0, fis_n, 2'b00};
                fis_n <= 5'd0;
                e_state <= x_ended ? E_RXD_END : E_RXD_FILL;
            end
            E_RXD_END: begin
                e_state <= E_IDLE;
                if (stop_evt) begin
                    w_valid <= 1'b0;
                end else if (x_end_ok) begin
                    prdbc_writeback_t(E_RXD_POST);
                end
            end
            E_RXD_POST: begin
                e_state <= E_IDLE;
                if (x_kind == X_FPDMA) begin
                    fd_done <= fd_done + x_take;
                    if (fd_done + x_take >= fd_count)
                        fd_active <= 1'b0;
                end
                if (x_ovf) begin
                    pio_active <= 1'b0;
                    halt_t(IS_OFS, 1'b1, x_slot);
                end else if (x_kind == X_PIO) begin
                    e_state <= E_FINISH_PIO;
                end
            end
            E_RXD_DISCARD: begin
                if (x_ended) begin
                    e_state <= E_IDLE;
                end else if (!rxf_pop && rxf_count != 7'd0) begin
                    rxf_pop <= 1'b1;
                    if (rxk != K_DATA)
                        e_state <= E_IDLE;
                end
            end

            // ---------------- PRDT walk
            E_WALK_HDR: area_dma_t(1'b0, slot_hdr(w_slot), 5'd4, E_WALK_HDR2);
            E_WALK_HDR2: begin
                w_ctba <= addr64(dbuf[3], dbuf[2] & 32'hFFFF_FF80);
                w_prdtl <= dbuf[0][31:16];
                w_idx <= 16'd0;
                w_left <= 23'd0;
                w_valid <= 1'b1;
                e_state <= E_WALK_NEXT;
            end
            E_WALK_NEXT: begin
                if (w_idx >= w_prdtl) begin
                    w_left <= 23'd0; // PRDT exhausted
                    e_state <= e_wret;
                end else begin
                    dma_t(1'b0, w_ctba + {{(AW-20){1'b0}}, w_idx, 4'd0} +
                          {{(AW-8){1'b0}}, 8'h80}, 5'd4, 1'b0, E_WALK_ENT);
                end
            end
            E_WALK_ENT: begin
                ent_len = dbuf[3][21:0] + 23'd1;
                w_idx <= w_idx + 16'd1;
                if (w_skip >= {9'd0, ent_len}) begin
                    w_skip <= w_skip - {9'd0, ent_len};
                    e_state <= E_WALK_NEXT;
                end else begin
                    w_addr <= addr64(dbuf[1], dbuf[0] & 32'hFFFF_FFFE) + {{(AW-32){1'b0}}, w_skip};
                    w_left <= ent_len - w_skip[22:0];
                    w_irq <= dbuf[3][31];
                    w_skip <= 32'd0;
                    e_state <= E_WALK_POS;
                end
            end
            E_WALK_POS: e_state <= e_wret;

            // ---------------- command issue (AHCI 5.3.2)
            E_ISSUE: begin
                if (!can_issue) begin
                    e_state <= E_IDLE;
                end else begin
                    i_slot <= rr_slot;
                    last_slot <= rr_slot;
                    issued[rr_slot] <= 1'b1;
                    cmd_ccs <= rr_slot;
                    e_err_slot_v <= 1'b1;
                    e_err_slot <= rr_slot;
                    e_err_next <= E_IDLE;
                    area_dma_t(1'b0, slot_hdr(rr_slot), 5'd4, E_ISSUE_HDR);
                end
            end
            E_ISSUE_HDR: begin
                i_cfl <= dbuf[0][4:0];
                i_atapi <= dbuf[0][5];
                i_reset <= dbuf[0][8];
                i_clear <= dbuf[0][10];
                i_ctba <= addr64(dbuf[3], dbuf[2] & 32'hFFFF_FF80);
                if (stop_evt) begin
                    e_state <= E_IDLE;
                end else if (dbuf[0][4:0] < 5'd2 || dbuf[0][4:0] > 5'd16) begin
                    serr_set = serr_set | SERR_ERR_E;
                    halt_t(IS_IFS, 1'b1, i_slot); // invalid command FIS length
                    e_state <= E_IDLE;
                end else begin
                    dma_t(1'b0, addr64(dbuf[3], dbuf[2] & 32'hFFFF_FF80), dbuf[0][4:0], 1'b0,
                          E_ISSUE_CFIS);
                end
            end
            E_ISSUE_CFIS: begin
                if (stop_evt) begin
                    e_state <= E_IDLE;
                end else begin
                    queued_v[i_slot] <= sact[i_slot];
                    valid_v[i_slot] <= 1'b1;
                    // Reset-sequence FIS (header R, or a Device Control FIS with SRST):
                    // whatever data phase was pending is abandoned; SRST makes the next
                    // D2H FIS a signature again (docs/hardware.md 5.7).
                    if (i_reset || srst_fis) begin
                        pio_active <= 1'b0;
                        fd_active <= 1'b0;
                    end
                    if (srst_fis)
                        sig_pending <= 1'b1;
                    fis_n <= 5'd0;
                    tx_req <= 1'b1;
                    e_state <= E_ISSUE_PUSH;
                end
            end
            E_ISSUE_PUSH: begin
                txf_push <= 1'b1;
                txf_wdata <= {fis_n + 5'd1 == i_cfl, dbuf[fis_n[3:0]]};
                fis_n <= fis_n + 5'd1;
                if (fis_n + 5'd1 == i_cfl)
                    e_state <= E_ISSUE_WAIT;
            end
            E_ISSUE_WAIT: if (tx_done_q) begin
                tx_done_q <= 1'b0;
                tx_req <= 1'b0;
                txf_flush <= 1'b1;
                e_state <= E_IDLE;
                if (!stop_evt) begin
                    if (tx_status_q == 2'd0) begin
                        w_valid <= 1'b0;
                        if (i_clear) begin
                            // header C: BSY clears and the slot completes on R_OK
                            tfd[7] <= 1'b0;
                            complete_t(i_slot);
                        end else begin
                            tfd[7] <= 1'b1;
                            busy_v <= 1'b1;
                            busy_slot <= i_slot;
                            busy_atapi <= i_atapi;
                            busy_ctba <= i_ctba;
                            cmd_done <= 32'd0;
                            acmd_sent <= 1'b0;
                        end
                    end else if (tx_status_q == 2'd1) begin
                        serr_set = serr_set | SERR_DIAG_H | SERR_ERR_T;
                        halt_t(IS_IFS, 1'b1, i_slot); // command FIS answered R_ERR
                    end else begin
                        // PHY went down: the FIS is sent again once the link is back.
                        issued[i_slot] <= 1'b0;
                        valid_v[i_slot] <= 1'b0;
                    end
                end
            end
            default: e_state <= E_IDLE;
        endcase

        // ---- register writes (AHCI 3.3); after the engine so that they win a same-cycle
        // conflict on fields both touch.
        if (i_reg_we) begin
            case (i_reg_waddr)
                R_CLB:  clb <= i_reg_wdata & 32'hFFFF_FC00;
                R_CLBU: clbu <= S64A ? i_reg_wdata : 32'd0;
                R_FB:   fb <= i_reg_wdata & 32'hFFFF_FF00;
                R_FBU:  fbu <= S64A ? i_reg_wdata : 32'd0;
                R_IS:   is_r <= is_r & ~(i_reg_wdata & 32'hFFBF_FFAF) | is_set;
                R_IE:   ie <= i_reg_wdata & IE_WRITABLE;
                R_CMD: begin
                    cmd_atapi <= i_reg_wdata[24];
                    cmd_dlae <= i_reg_wdata[25];
                    if (i_reg_wdata[4] != cmd_fre) begin
                        cmd_fre <= i_reg_wdata[4];
                        fr_cnt <= i_reg_wdata[4] ? FRE_ON[7:0] : FRE_OFF[7:0];
                    end
                    if (i_reg_wdata[3])
                        tfd[7] <= 1'b0; // CLO: BSY and DRQ clear (CAP.SCLO), CLO reads 0
                    if (i_reg_wdata[3])
                        tfd[3] <= 1'b0;
                    cmd_st <= i_reg_wdata[0];
                    if (!cmd_st && i_reg_wdata[0]) begin
                        // ST 0->1 (model: start_engine)
                        cmd_cr <= 1'b1;
                        halted <= 1'b0;
                        last_slot <= 5'd31;
                    end else if (cmd_st && !i_reg_wdata[0]) begin
                        // ST 1->0 (AHCI 3.3.7, 10.3.2): PxCI and PxSACT clear, CCS resets,
                        // every outstanding command is forgotten; CR clears when idle.
                        ci_clr = 32'hFFFF_FFFF;
                        sact_clr = 32'hFFFF_FFFF;
                        issued <= 32'd0;
                        valid_v <= 32'd0;
                        queued_v <= 32'd0;
                        cmd_ccs <= 5'd0;
                        halted <= 1'b0;
                        busy_v <= 1'b0;
                        pio_active <= 1'b0;
                        fd_active <= 1'b0;
                        w_valid <= 1'b0;
                        stop_evt <= 1'b1;
                        stop_cnt <= STOP_CYCLES[7:0];
                    end
                end
                R_SCTL: begin
                    sctl <= i_reg_wdata[11:0];
                    if (i_reg_wdata[3:0] == 4'd1 && det_ctl != 4'd1) begin
                        // COMRESET (AHCI 3.3.11): status 7Fh until a device answers; the
                        // next D2H FIS is a signature; queued frames are stale.
                        tfd <= 16'h007F;
                        sig_pending <= 1'b1;
                        rx_drop <= 1'b1;
                        pio_active <= 1'b0;
                        fd_active <= 1'b0;
                        spin_cnt <= 5'd0;
                    end
                end
                R_SERR: serr <= (serr & ~i_reg_wdata) | (serr_set & SERR_KEEP);
                R_SACT: if (cmd_st) sact <= (sact | (i_reg_wdata & SACT_MASK)) & ~sact_clr;
                R_CI:   if (cmd_st) ci <= (ci | (i_reg_wdata & SLOT_MASK)) & ~ci_clr;
                R_SNTF: sntf <= sntf & ~i_reg_wdata[15:0];
                R_VS_CTRL: vs_ctrl <= i_reg_wdata & VS_MASK;
                default: ;
            endcase
        end
        // accumulated sets and clears (a register write above to the same register
        // already folded them in)
        if (!(i_reg_we && i_reg_waddr == R_IS))
            is_r <= is_r | is_set;
        if (!(i_reg_we && i_reg_waddr == R_SERR))
            serr <= serr | (serr_set & SERR_KEEP);
        if (!(i_reg_we && i_reg_waddr == R_CI && cmd_st))
            ci <= ci & ~ci_clr;
        if (!(i_reg_we && i_reg_waddr == R_SACT && cmd_st))
            sact <= sact & ~sact_clr;
    end
end

/* verilator lint_on BLKSEQ */

endmodule
