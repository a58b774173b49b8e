// AHCI 1.3.1 host bus adapter, reference RTL of satasim (issue 15): NPORTS ports, 32
// command slots each (NCS), NCQ (SNCQ), command list / command tables / PRDT / received-FIS areas in
// system memory over an AXI4 master (with ONCHIP = 1 the command list and received-FIS
// area in on-chip RAM instead, below). See model/ahci_rtl/README.md for the block diagram.
//
//   s_*   AXI4-Lite register slave, 32-bit data, SAW-bit addresses, the AHCI register map
//         at offset 0 (generic host control 00h-FFh, port n at 100h + 80h * n; AHCI 1.3.1
//         3.1, 3.3); with ONCHIP = 1 port n's command list at 1000h + 800h * n (1 KiB) and
//         its received-FIS area at 1400h + 800h * n (256 bytes), read and written by the
//         host like registers (ahci_onchip_ram.v); PxCLB / PxFB read those offsets;
//   m_*   AXI4 DMA master, DW-bit data, AW-bit addresses, INCR bursts of at most 16
//         beats that never cross 4 KiB (ahci_axi_master.v);
//   irq   one level interrupt: GHC.IE and IS != 0 (AHCI 1.3.1 10.6);
//   irq_port  one level line per port (bit n: port n), for a system that wires each port
//         to an interrupt input of its own (the level analogue of multiple-message MSI):
//         GHC.IE and port n's PxIS & PxIE != 0, so clearing PxIS lowers it without IS;
//   phy_* per port n, bits [PHY_W*n +: PHY_W] etc.: the PHY interface of
//         ahci_phy_adapter.v, 32 or 16 bits (PHY_W) with a K flag per byte, and on
//         receive a code error and a disparity error flag per byte (phy_rx_codeerr,
//         phy_rx_disperr, bits [PHY_W/8*n +: PHY_W/8] like phy_rx_isk; both are decode
//         errors, PxSERR.DIAG.B, AHCI 1.3.1 3.3.12); with
//         PHY_CTL = 1 the optional PHY pins (electrical idle, COMWAKE detect, rate request
//         and acknowledge, PHY reset and reset done) through ahci_phy_ctl.v, else the
//         outputs 0 and the inputs unused; with SBW > 0 an SBW-bit sideband vector pair,
//         the control vector written and both read at PxVS (ahci_port.v), else 1 bit tied 0.
//
// Clocks: clk runs the bus side, the registers, the DMA engine and the link layer (one
// dword per clock). With PHY_W = 32 and EB = 0 it is the PHY's dword clock as well and
// phy_tx_clk / phy_rx_clk are unused. With PHY_W = 16 the PHY's words move on phy_tx_clk
// (transmit, twice clk's rate, phase-locked to it) and phy_rx_clk (receive, port n's bit
// n: the recovered clock, nominally equal to phy_tx_clk); with EB = 1 (PHY_W = 32) the
// receive words move on phy_rx_clk at clk's nominal rate. Receive words cross into clk
// through an elastic buffer (ahci_rx_elastic.v) that absorbs a frequency offset.
module ahci_hba #(
    parameter integer NPORTS = 1,          // 1..8
    parameter integer DW = 64,             // AXI master data width: 32, 64, 128
    parameter integer AW = 64,             // AXI master address width: 32 or 64 (CAP.S64A)
    parameter integer ISS = 3,             // CAP.ISS: fastest Gen supported (1..3)
    parameter integer NCS = 31,            // CAP.NCS: command slots - 1 (0: one slot)
    parameter integer SNCQ = 1,            // CAP.SNCQ: native command queuing (0: none)
    parameter integer PHY_W = 32,          // PHY data width per port: 32 or 16
    parameter integer EB = 0,              // 1: receive on phy_rx_clk via the elastic buffer
    parameter integer HR_CYCLES = 1500,    // GHC.HR set until it self-clears
    parameter integer STOP_CYCLES = 150,   // PxCMD.ST 1->0 until CR may read 0
    parameter integer FRE_ON = 8,
    parameter integer FRE_OFF = 150,
    parameter integer SPINUP = 16,
    parameter integer ONCHIP = 0,          // 1: command lists and FIS areas on chip (above)
    parameter integer SAW = 12,            // register slave address width: 12..32 (ONCHIP:
                                           // at least 13 + log2(NPORTS) bits)
    parameter integer PHY_CTL = 0,         // 1: use the optional PHY pins (above)
    parameter integer SBW = 0,             // PHY sideband vector bits per port: 0..32
    parameter integer ERR_T = 1            // 0: PxSERR.ERR.T never set (ahci_port.v)
) (
    input  wire                 clk,
    input  wire                 rst,        // power-on reset, synchronous, active high
    // AXI4-Lite register slave
    input  wire [SAW-1:0]       s_awaddr,
    input  wire                 s_awvalid,
    output wire                 s_awready,
    input  wire [31:0]          s_wdata,
    input  wire [3:0]           s_wstrb,
    input  wire                 s_wvalid,
    output wire                 s_wready,
    output wire [1:0]           s_bresp,
    output reg                  s_bvalid,
    input  wire                 s_bready,
    input  wire [SAW-1:0]       s_araddr,
    input  wire                 s_arvalid,
    output wire                 s_arready,
    output reg  [31:0]          s_rdata,
    output wire [1:0]           s_rresp,
    output reg                  s_rvalid,
    input  wire                 s_rready,
    output wire                 irq,
    output wire [NPORTS-1:0]    irq_port,
    // AXI4 DMA master
    output wire [AW-1:0]        m_awaddr,
    output wire [7:0]           m_awlen,
    output wire [2:0]           m_awsize,
    output wire [1:0]           m_awburst,
    output wire [3:0]           m_awcache,
    output wire [2:0]           m_awprot,
    output wire                 m_awvalid,
    input  wire                 m_awready,
    output wire [DW-1:0]        m_wdata,
    output wire [DW/8-1:0]      m_wstrb,
    output wire                 m_wlast,
    output wire                 m_wvalid,
    input  wire                 m_wready,
    input  wire [1:0]           m_bresp,
    input  wire                 m_bvalid,
    output wire                 m_bready,
    output wire [AW-1:0]        m_araddr,
    output wire [7:0]           m_arlen,
    output wire [2:0]           m_arsize,
    output wire [1:0]           m_arburst,
    output wire [3:0]           m_arcache,
    output wire [2:0]           m_arprot,
    output wire                 m_arvalid,
    input  wire                 m_arready,
    input  wire [DW-1:0]        m_rdata,
    input  wire [1:0]           m_rresp,
    input  wire                 m_rlast,
    input  wire                 m_rvalid,
    output wire                 m_rready,
    // per-port PHY interface
    input  wire                 phy_refclk, // the PHY's reference clock (unused: below)
    input  wire                 phy_tx_clk,
    input  wire [NPORTS-1:0]    phy_rx_clk,
    output wire [PHY_W*NPORTS-1:0]   phy_tx_data,
    output wire [PHY_W/8*NPORTS-1:0] phy_tx_isk,
    input  wire [PHY_W*NPORTS-1:0]   phy_rx_data,
    input  wire [PHY_W/8*NPORTS-1:0] phy_rx_isk,
    input  wire [PHY_W/8*NPORTS-1:0] phy_rx_codeerr,
    input  wire [PHY_W/8*NPORTS-1:0] phy_rx_disperr,
    input  wire [NPORTS-1:0]    phy_ready,
    input  wire [2*NPORTS-1:0]  phy_gen,
    input  wire [NPORTS-1:0]    phy_dev_present,
    input  wire [NPORTS-1:0]    phy_cominit,
    output wire [NPORTS-1:0]    phy_comreset,
    output wire [NPORTS-1:0]    phy_comwake,
    output wire [NPORTS-1:0]    phy_offline,
    output wire [4*NPORTS-1:0]  phy_spd_limit,
    // optional PHY pins (PHY_CTL, SBW)
    output wire [NPORTS-1:0]    phy_tx_elecidle,
    input  wire [NPORTS-1:0]    phy_rx_elecidle,
    input  wire [NPORTS-1:0]    phy_comwake_det,
    output wire [2*NPORTS-1:0]  phy_rate,
    input  wire [NPORTS-1:0]    phy_rate_ack,
    output wire [NPORTS-1:0]    phy_reset,
    input  wire [NPORTS-1:0]    phy_reset_done,
    output wire [(SBW > 0 ? SBW : 1)*NPORTS-1:0] phy_sb_ctrl,
    input  wire [(SBW > 0 ? SBW : 1)*NPORTS-1:0] phy_sb_status,
    output wire [4*NPORTS-1:0]  link_state
);

// The PHY's reference clock feeds the transceiver's PLL, which makes phy_tx_clk from it (the
// shell's PHY does that); the controller runs on clk and the PHY's parallel clocks and
// needs none. Waiver UNUSEDSIGNAL: a pin of the shell's standard set.
/* verilator lint_off UNUSEDSIGNAL */
wire unused_refclk = phy_refclk;
/* verilator lint_on UNUSEDSIGNAL */

// ---- generic host control (AHCI 1.3.1 3.1) ---------------------------------------------
localparam [4:0] NP = NPORTS[4:0] - 5'd1;
localparam       S64A = (AW > 32);
localparam [3:0] ISS4 = ISS[3:0];
localparam [4:0] NCS5 = NCS[4:0];
localparam       SNCQ1 = SNCQ != 0;
// CAP: S64A, SNCQ, SSNTF, SCLO, ISS, SAM (AHCI only), PMD, NCS, NP.
localparam [31:0] CAP = {S64A ? 1'b1 : 1'b0, SNCQ1 ? 1'b1 : 1'b0, 1'b1, 4'b0000, 1'b1, ISS4, 1'b0, 1'b1,
                         2'b00, 1'b1, 2'b00, NCS5, 3'b000, NP};
localparam [31:0] PI = (NPORTS >= 32) ? 32'hFFFF_FFFF : ((32'd1 << NPORTS) - 32'd1);
localparam [31:0] VS = 32'h0001_0301;

reg                ghc_ie;
reg  [15:0]        hr_cnt;        // GHC.HR in progress while != 0
reg  [NPORTS-1:0]  is_g;
wire [NPORTS-1:0]  port_irq;
wire               hr_active = hr_cnt != 16'd0;
wire               port_rst = rst || hr_active;

assign irq = ghc_ie && is_g != {NPORTS{1'b0}};
`ifdef SATASIM_PLANT_IRQ_PORT_LOW
wire [NPORTS-1:0]  irq_port_dead = 1; // planted defect (docs/rtl-controller.md): port 0's line never rises
`else
wire [NPORTS-1:0]  irq_port_dead = 0;
`endif
assign irq_port = {NPORTS{ghc_ie}} & port_irq & ~irq_port_dead;

// ---- AXI4-Lite slave: one access at a time, writes first --------------------------------
reg        aw_have, w_have, ar_have;
reg [SAW-1:2] aw_addr, ar_addr;
reg        aw_bad, ar_bad;   // byte address not dword aligned: SLVERR, no effect
reg        b_err, r_err;
reg [31:0] w_data;
reg [3:0]  w_strb;
wire       wr_fire = aw_have && w_have && !s_bvalid;
wire       rd_fire = ar_have && !wr_fire && !s_rvalid;
assign s_awready = !aw_have;
assign s_wready = !w_have;
assign s_arready = !ar_have;
assign s_bresp = b_err ? 2'b10 : 2'b00;
assign s_rresp = r_err ? 2'b10 : 2'b00;
wire   wr_do = wr_fire && !aw_bad; // the write takes effect

wire [SAW-1:2] acc_addr = wr_fire ? aw_addr : ar_addr;
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0] acc_word32 = {{(32-SAW){1'b0}}, acc_addr, 2'b00}; // bits 31:SAW are 0
/* verilator lint_on UNUSEDSIGNAL */
wire [11:0] acc_word = acc_word32[11:0];
wire        acc_low = acc_word32[31:12] == 20'd0; // the AHCI map (0-FFFh)
// port index of the access (valid when acc_is_port)
wire [4:0]  acc_port = acc_word[11:7] - 5'd2;
wire        acc_is_port = acc_low && acc_word[11:8] != 4'd0 && {27'd0, acc_port} < NPORTS;
// ONCHIP: port acc_rport's RAM (offset acc_rel[10:0]: command list 0-3FFh, FIS area
// 400h-4FFh)
wire [31:0] acc_rel = acc_word32 - 32'h1000;
wire [2:0]  acc_rport = acc_rel[13:11];
wire        acc_is_ram = ONCHIP != 0 && !acc_low && {11'd0, acc_rel[31:11]} < NPORTS &&
                         acc_rel[10:0] < 11'h500;

wire [32*NPORTS-1:0] port_rdata;
wire [32*NPORTS-1:0] ram_rdata;
reg  [31:0]          cur_rdata;
always @(*) begin
    if (acc_is_port) begin
        cur_rdata = port_rdata[32 * acc_port +: 32];
    end else if (acc_is_ram) begin
        cur_rdata = ram_rdata[32 * acc_rport +: 32];
    end else if (!acc_low) begin
        cur_rdata = 32'd0;
    end else begin
        case (acc_word)
            12'h000: cur_rdata = CAP;
            12'h004: cur_rdata = {1'b1, 28'd0, 1'b0, ghc_ie, hr_active};
            12'h008: cur_rdata = {{(32-NPORTS){1'b0}}, is_g};
            12'h00C: cur_rdata = PI;
            12'h010: cur_rdata = VS;
            default: cur_rdata = 32'd0; // CCC, EM, CAP2 (no BOH/APST/DevSleep), BOHC
        endcase
    end
end

// Effective write value: byte lanes outside WSTRB keep their value; for the write-1 and
// write-1-to-clear registers (IS, PxIS, PxSERR, PxSACT, PxCI, PxSNTF) they write 0.
wire [31:0] strb_mask = {{8{w_strb[3]}}, {8{w_strb[2]}}, {8{w_strb[1]}}, {8{w_strb[0]}}};
wire [6:0]  acc_off = acc_word[6:0];
wire        w1x = acc_is_port ? (acc_off == 7'h10 || acc_off == 7'h30 || acc_off == 7'h34 ||
                                 acc_off == 7'h38 || acc_off == 7'h3C)
                              : acc_low && acc_word == 12'h008;
wire [31:0] w_eff = w1x ? (w_data & strb_mask) : ((cur_rdata & ~strb_mask) | (w_data & strb_mask));

always @(posedge clk) begin
    if (rst) begin
        aw_have <= 1'b0; w_have <= 1'b0; ar_have <= 1'b0;
        aw_addr <= {(SAW-2){1'b0}}; ar_addr <= {(SAW-2){1'b0}}; aw_bad <= 1'b0; ar_bad <= 1'b0;
        b_err <= 1'b0; r_err <= 1'b0; w_data <= 32'd0; w_strb <= 4'd0;
        s_bvalid <= 1'b0; s_rvalid <= 1'b0; s_rdata <= 32'd0;
        ghc_ie <= 1'b0; hr_cnt <= 16'd0; is_g <= {NPORTS{1'b0}};
    end else begin
        if (s_awvalid && s_awready) begin
            aw_have <= 1'b1;
            aw_addr <= s_awaddr[SAW-1:2];
            aw_bad <= s_awaddr[1:0] != 2'b00;
        end
        if (s_wvalid && s_wready) begin
            w_have <= 1'b1;
            w_data <= s_wdata;
            w_strb <= s_wstrb;
        end
        if (s_arvalid && s_arready) begin
            ar_have <= 1'b1;
            ar_addr <= s_araddr[SAW-1:2];
            ar_bad <= s_araddr[1:0] != 2'b00;
        end
        if (s_bvalid && s_bready)
            s_bvalid <= 1'b0;
        if (s_rvalid && s_rready)
            s_rvalid <= 1'b0;
        if (rd_fire) begin
            ar_have <= 1'b0;
            s_rdata <= ar_bad ? 32'd0 : cur_rdata;
            r_err <= ar_bad;
            s_rvalid <= 1'b1;
        end

        // IS: bit n latches while port n asks (PxIS & PxIE != 0); RW1C, and a cleared bit
        // latches again at once if the port still asks (AHCI 1.3.1 3.1.3).
        if (hr_cnt != 16'd0)
            hr_cnt <= hr_cnt - 16'd1;
        is_g <= is_g | port_irq;
        if (wr_fire) begin
            aw_have <= 1'b0;
            w_have <= 1'b0;
            s_bvalid <= 1'b1;
            b_err <= aw_bad;
        end
        if (wr_do) begin
            if (!acc_is_port && acc_low && acc_word == 12'h004) begin
                if (w_eff[0]) begin
                    // GHC.HR (AHCI 1.3.1 10.4.3): every port back to its reset state and
                    // re-initialized with a COMRESET; IE and IS clear; HR reads 1 until done.
                    hr_cnt <= HR_CYCLES[15:0];
                    ghc_ie <= 1'b0;
                    is_g <= {NPORTS{1'b0}};
                end else begin
                    ghc_ie <= w_eff[1]; // AE is read-only 1 (CAP.SAM), MRSM read-only 0
                end
            end
            if (!acc_is_port && acc_low && acc_word == 12'h008)
                is_g <= (is_g & ~w_eff[NPORTS-1:0]) | port_irq;
        end
    end
end

// ---- ports -------------------------------------------------------------------------------
wire [NPORTS-1:0]    preq, ploc, dreq, dwe;
wire [AW*NPORTS-1:0] daddr;
wire [5*NPORTS-1:0]  dlen;
wire [512*NPORTS-1:0] dwbuf;
wire                 mdone, merr, mrvalid;
wire [31:0]          mrdata;
wire [3:0]           mridx;
reg  [2:0]           gsel;       // port granted the DMA master
reg                  gact;
wire [31:0]          link_rx_data [0:NPORTS-1];
wire [NPORTS-1:0]    link_rx_isk, link_rx_err;
wire [31:0]          link_tx_data [0:NPORTS-1];
wire [NPORTS-1:0]    link_tx_isk;

genvar p;
generate
    for (p = 0; p < NPORTS; p = p + 1) begin : g_port
        ahci_phy_adapter #(.PHY_W(PHY_W), .EB(EB)) u_phy (
            .clk(clk), .rst(port_rst), .i_tx_clk(phy_tx_clk), .i_rx_clk(phy_rx_clk[p]),
            .i_link_tx_data(link_tx_data[p]), .i_link_tx_isk(link_tx_isk[p]),
            .o_link_rx_data(link_rx_data[p]), .o_link_rx_isk(link_rx_isk[p]),
            .o_link_rx_err(link_rx_err[p]),
            .o_phy_tx_data(phy_tx_data[PHY_W*p +: PHY_W]),
            .o_phy_tx_isk(phy_tx_isk[PHY_W/8*p +: PHY_W/8]),
            .i_phy_rx_data(phy_rx_data[PHY_W*p +: PHY_W]),
            .i_phy_rx_isk(phy_rx_isk[PHY_W/8*p +: PHY_W/8]),
            .i_phy_rx_codeerr(phy_rx_codeerr[PHY_W/8*p +: PHY_W/8]),
            .i_phy_rx_disperr(phy_rx_disperr[PHY_W/8*p +: PHY_W/8]));

        // DMA requests to the on-chip RAM (ONCHIP) never reach the arbiter
        wire        ram_done, ram_rvalid;
        wire [31:0] ram_rd;
        wire [3:0]  ram_ridx;
        wire        axi_mine = gact && gsel == p[2:0];
        assign dreq[p] = preq[p] && !ploc[p];
        if (ONCHIP != 0) begin : g_ram
            // a window offset as the RAM's dword (command list 0..255, FIS area 256..319);
            // the port's addresses are its CLB_FIX / FB_FIX plus the offset inside
            wire [10:2] roff = daddr[AW*p+2 +: 9];
            wire [8:0]  ridx = acc_rel[10] ? {3'b100, acc_rel[7:2]} : {1'b0, acc_rel[9:2]};
            ahci_onchip_ram u_ram (
                .clk(clk), .rst(port_rst),
                .i_reg_idx(ridx), .o_reg_rdata(ram_rdata[32*p +: 32]),
                .i_reg_we(wr_do && acc_is_ram && acc_rport == p[2:0]), .i_reg_wdata(w_eff),
                .i_req(preq[p] && ploc[p]), .i_we(dwe[p]),
                .i_idx(roff[10] ? {3'b100, roff[7:2]} : {1'b0, roff[9:2]}),
                .i_len(dlen[5*p +: 5]), .i_wbuf(dwbuf[512*p +: 512]),
                .o_done(ram_done), .o_rvalid(ram_rvalid), .o_rdata(ram_rd), .o_ridx(ram_ridx));
        end else begin : g_no_ram
            assign ram_rdata[32*p +: 32] = 32'd0;
            assign ram_done = 1'b0;
            assign ram_rvalid = 1'b0;
            assign ram_rd = 32'd0;
            assign ram_ridx = 4'd0;
        end

        // the optional PHY pins between the port and the PHY
        wire        p_comreset, p_hold, p_ready;
        wire [5:0]  p_phy;
        wire [31:0] p_vs_ctrl, p_vs_status;
        if (PHY_CTL != 0) begin : g_ctl
            ahci_phy_ctl #(.ISS(ISS4[1:0])) u_ctl (
                .clk(clk), .rst(rst),
                .i_comreset(p_comreset), .i_offline(phy_offline[p]), .o_comreset(phy_comreset[p]),
                .o_hold(p_hold), .o_ready(p_ready), .o_status(p_phy),
                .i_phy_ready(phy_ready[p]), .i_phy_gen(phy_gen[2*p +: 2]), .i_cominit(phy_cominit[p]),
                .i_comwake_det(phy_comwake_det[p]), .i_rx_elecidle(phy_rx_elecidle[p]),
                .o_tx_elecidle(phy_tx_elecidle[p]), .o_rate(phy_rate[2*p +: 2]),
                .i_rate_ack(phy_rate_ack[p]), .o_phy_reset(phy_reset[p]),
                .i_phy_reset_done(phy_reset_done[p]));
        end else begin : g_no_ctl
            assign phy_comreset[p] = p_comreset;
            assign p_hold = 1'b0;
            assign p_ready = phy_ready[p];
            assign p_phy = 6'd0;
            assign phy_tx_elecidle[p] = 1'b0;
            assign phy_rate[2*p +: 2] = 2'd0;
            assign phy_reset[p] = 1'b0;
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_ctl = &{1'b0, phy_rx_elecidle[p], phy_comwake_det[p], phy_rate_ack[p],
                                phy_reset_done[p]};
            /* verilator lint_on UNUSEDSIGNAL */
        end
        if (SBW > 0) begin : g_sb
            assign phy_sb_ctrl[SBW*p +: (SBW > 0 ? SBW : 1)] = p_vs_ctrl[(SBW > 0 ? SBW : 1)-1:0];
            if (SBW < 32) begin : g_pad
                assign p_vs_status = {{(32-SBW){1'b0}}, phy_sb_status[SBW*p +: (SBW > 0 ? SBW : 1)]};
            end else begin : g_full
                assign p_vs_status = phy_sb_status[SBW*p +: (SBW > 0 ? SBW : 1)];
            end
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_vs = &{1'b0, p_vs_ctrl};
            /* verilator lint_on UNUSEDSIGNAL */
        end else begin : g_no_sb
            assign phy_sb_ctrl[p] = 1'b0;
            assign p_vs_status = 32'd0;
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_sb = &{1'b0, phy_sb_status[p], p_vs_ctrl};
            /* verilator lint_on UNUSEDSIGNAL */
        end

        ahci_port #(.AW(AW), .ISS(ISS4), .NCS(NCS5), .SNCQ(SNCQ1), .STOP_CYCLES(STOP_CYCLES), .FRE_ON(FRE_ON),
                    .FRE_OFF(FRE_OFF), .SPINUP(SPINUP), .ONCHIP(ONCHIP != 0),
                    .CLB_FIX(32'h1000 + 32'h800 * p), .FB_FIX(32'h1400 + 32'h800 * p), .SBW(SBW),
                    .ERR_T(ERR_T != 0)) u_port (
            .clk(clk), .rst(port_rst), .por(rst),
            .i_reg_raddr(acc_word[6:0]), .o_reg_rdata(port_rdata[32*p +: 32]),
            .i_reg_we(wr_do && acc_is_port && acc_port == p[4:0]),
            .i_reg_waddr(acc_word[6:0]), .i_reg_wdata(w_eff),
            .o_irq(port_irq[p]),
            .o_dma_req(preq[p]), .o_dma_we(dwe[p]), .o_dma_addr(daddr[AW*p +: AW]),
            .o_dma_len(dlen[5*p +: 5]), .o_dma_local(ploc[p]), .o_dma_wbuf(dwbuf[512*p +: 512]),
            .i_dma_done((mdone && axi_mine) || ram_done),
            .i_dma_err(merr && !ram_done),
            .i_dma_rvalid((mrvalid && axi_mine) || ram_rvalid),
            .i_dma_rdata(ram_rvalid ? ram_rd : mrdata), .i_dma_ridx(ram_rvalid ? ram_ridx : mridx),
            .o_phy_tx_data(link_tx_data[p]), .o_phy_tx_isk(link_tx_isk[p]),
            .i_phy_rx_data(link_rx_data[p]), .i_phy_rx_isk(link_rx_isk[p]),
            .i_phy_rx_err(link_rx_err[p]),
            .i_phy_ready(p_ready), .i_phy_gen(phy_gen[2*p +: 2]),
            .i_dev_present(phy_dev_present[p]), .i_cominit(phy_cominit[p]),
            .o_comreset(p_comreset), .o_offline(phy_offline[p]),
            .o_comwake(phy_comwake[p]), .o_spd_limit(phy_spd_limit[4*p +: 4]),
            .i_phy_hold(p_hold), .o_vs_ctrl(p_vs_ctrl), .i_vs_status(p_vs_status), .i_vs_phy(p_phy),
            .o_link_state(link_state[4*p +: 4]));
    end
endgenerate

// ---- DMA arbiter: round robin between the ports, one request at a time ----------------
wire [7:0] dreq8, dwe8; // padded to 8 so that a 3-bit grant indexes them
generate
    for (p = 0; p < 8; p = p + 1) begin : g_pad8
        if (p < NPORTS) begin : g_on
            assign dreq8[p] = dreq[p];
            assign dwe8[p] = dwe[p];
        end else begin : g_off
            assign dreq8[p] = 1'b0;
            assign dwe8[p] = 1'b0;
        end
    end
endgenerate
reg [2:0] gnext;
reg [2:0] gcand;
integer   q;
always @(*) begin
    gnext = gsel;
    gcand = gsel;
    for (q = NPORTS - 1; q >= 0; q = q - 1) begin
        gcand = ({1'b0, gsel} + 4'd1 + q[3:0] >= NPORTS[3:0]) ?
                gsel + 3'd1 + q[2:0] - NPORTS[2:0] : gsel + 3'd1 + q[2:0];
        if (dreq8[gcand])
            gnext = gcand;
    end
end

always @(posedge clk) begin
    if (rst) begin
        gsel <= 3'd0;
        gact <= 1'b0;
    end else if (gact) begin
        if (mdone)
            gact <= 1'b0;
    end else if (dreq != {NPORTS{1'b0}} && !mdone) begin
        gsel <= gnext;
        gact <= 1'b1;
    end
end

ahci_axi_master #(.DW(DW), .AW(AW)) u_axi (
    .clk(clk), .rst(rst),
    .i_req(gact && dreq8[gsel]), .i_we(dwe8[gsel]), .i_addr(daddr[AW*gsel +: AW]),
    .i_len(dlen[5*gsel +: 5]), .i_wbuf(dwbuf[512*gsel +: 512]),
    .o_done(mdone), .o_err(merr), .o_rvalid(mrvalid), .o_rdata(mrdata), .o_ridx(mridx),
    .m_awaddr(m_awaddr), .m_awlen(m_awlen), .m_awsize(m_awsize), .m_awburst(m_awburst),
    .m_awcache(m_awcache), .m_awprot(m_awprot), .m_awvalid(m_awvalid), .m_awready(m_awready),
    .m_wdata(m_wdata), .m_wstrb(m_wstrb), .m_wlast(m_wlast), .m_wvalid(m_wvalid),
    .m_wready(m_wready), .m_bresp(m_bresp), .m_bvalid(m_bvalid), .m_bready(m_bready),
    .m_araddr(m_araddr), .m_arlen(m_arlen), .m_arsize(m_arsize), .m_arburst(m_arburst),
    .m_arcache(m_arcache), .m_arprot(m_arprot), .m_arvalid(m_arvalid), .m_arready(m_arready),
    .m_rdata(m_rdata), .m_rresp(m_rresp), .m_rlast(m_rlast), .m_rvalid(m_rvalid),
    .m_rready(m_rready));

endmodule
