// AXI4 clock-domain crossing for a DMA master (docs/rtl-controller.md, separate register
// and DMA clocks): an AXI4 slave on the controller's core clock (s_clk) in front of an AXI4
// master on the memory bus clock (m_clk: the shell's dma_clk), for a controller whose DMA
// engine runs on its core clock while the system's memory interconnect runs on a clock of
// its own. The two clocks are asynchronous: any ratio, any phase.
//
// Why not the register crossing's handshake (satasim_axil_cdc: one access at a time, a
// toggle each way): a DMA master moves bursts of up to 16 beats and keeps several
// transactions outstanding; a round trip through two synchronizers per beat would cut its
// bandwidth to a fraction. So each of the five AXI channels (IHI0022E A1.3 / A2: AW, W, B,
// AR, R, each a VALID / READY handshake of its own, A3.2.1) crosses through an
// asynchronous FIFO of its own (satasim_async_fifo.v: Gray-coded pointers through SYNC
// flip-flops, a registered output), AW / W / AR from s_clk to m_clk, B / R back.
//
// What it guarantees:
//   * Every AW, W and AR beat the controller hands over (VALID && READY on the s_ side)
//     is issued on the m_ side exactly once, unchanged (every field below), in order per
//     channel; every B and R beat the memory side returns reaches the controller exactly
//     once, unchanged (ID, RDATA, xRESP with SLVERR / DECERR, RLAST), in order. A FIFO
//     keeps the order of all transactions, so every ordering the AXI ordering model
//     requires (same ID, same direction: IHI0022E A5 / A6, section number by issue,
//     unconfirmed) holds, and responses of different IDs keep the order the slave gave.
//   * Bursts of any length (the W FIFO need not hold a whole burst: beats flow through)
//     and any number of outstanding transactions: the crossing adds no limit of its own
//     beyond back-pressure (a full FIFO holds its s_ / m_ READY low, as A3.2.1 allows).
//   * No response is made up: B comes from the memory side only (the crossing never
//     answers a write early, so a write's data has reached the memory side before the
//     controller sees its B, as an HBA needs before it posts a completion).
//   * Handshakes on both sides follow A3.2.1: VALID and payload come from registers
//     (the FIFO's output register) and stay until READY; READY never waits for VALID.
//     The dependencies of A3.3.1 are the master's and the slave's own: the crossing
//     passes W independently of AW (a master may send W before AW; a slave may wait for
//     AW before taking W, as the shell's does).
//   * Reset (A3.1.2): s_rst (synchronous to s_clk) and m_rst (to m_clk) clear each side's
//     pointers and VALIDs; both must be asserted at power-on together (the shell holds
//     each for 8 cycles of its own clock from the same instant) and not alone later: a
//     side reset alone would lose or repeat whatever was in flight (a vendor that resets
//     one side at run time drains the other first).
//
// Latency (satasim_async_fifo): a beat reaches the far side's VALID at the (SYNC + 1)th
// edge of the far clock after the edge that took it, if that FIFO's output was free; a
// beat that leaves the storage for the output register frees its slot for the near side
// SYNC near edges later. A read's round trip therefore adds about 2 x (SYNC + 1) cycles
// (one way in each clock) to the memory's latency. Throughput: a FIFO deeper than its
// pointer round trip should move one beat per cycle of the slower clock (by design, not
// measured; defaults: W and R 16 entries, a full burst).
//
// Carried fields (the reference controller's DMA master ports, rtl/ahci_axi_master.v,
// plus IDs): AxID, AxADDR, AxLEN (8 bits: AXI4; AXI3 masters keep the upper 4 at 0),
// AxSIZE, AxBURST, AxCACHE, AxPROT; WDATA, WSTRB, WLAST (no WID: AXI4 has none, its W
// beats follow the AW order; an AXI3 master without write interleaving drives WID =
// AWID and a wrapper regenerates it: IHI0022E A5, section unconfirmed); BID, BRESP; RID,
// RDATA, RRESP, RLAST. Not
// carried: AxLOCK, AxQOS, AxREGION and the USER signals (neither the reference nor the
// shell has them; a vendor that uses them widens the packing below, one field each).
// Nothing of the transfer is interpreted (no burst split, no 4 KiB check): a crossing is
// transparent, the shell's checker judges the bursts the controller makes.
//
// Static timing: see satasim_async_fifo.v (max-delay constraints on the Gray pointers
// and the storage arrays, as for any Gray-pointer FIFO).
//
// Planted defects for the testbench (adapters/tb/axi_cdc_test.cpp,
// scripts/axi_cdc_bugs.sh; never defined in a normal build): those of
// satasim_async_fifo.v, and
//   SATASIM_AXI_CDC_BUG_WLAST   WLAST not carried (0 on the m_ side)
//   SATASIM_AXI_CDC_BUG_BRESP   BRESP[1] not carried (SLVERR reads OKAY, DECERR EXOKAY)
module satasim_axi_cdc #(
    parameter integer DATA_W = 64,   // 32, 64 or 128
    parameter integer ADDR_W = 64,   // 32 or 64
    parameter integer ID_W = 1,      // AxID / xID bits (1 or more; tie to 0 without IDs)
    parameter integer SYNC = 2,      // synchronizer flip-flops per pointer (2 or more)
    parameter integer AW_DEPTH = 4,  // FIFO entries per channel: powers of 2, 2 or more
    parameter integer W_DEPTH = 16,
    parameter integer B_DEPTH = 4,
    parameter integer AR_DEPTH = 4,
    parameter integer R_DEPTH = 16
) (
    // core side: AXI4 slave (the controller's DMA master), on s_clk
    input  wire                s_clk,
    input  wire                s_rst,      // synchronous to s_clk, active high
    input  wire [ID_W-1:0]     s_awid,
    input  wire [ADDR_W-1:0]   s_awaddr,
    input  wire [7:0]          s_awlen,
    input  wire [2:0]          s_awsize,
    input  wire [1:0]          s_awburst,
    input  wire [3:0]          s_awcache,
    input  wire [2:0]          s_awprot,
    input  wire                s_awvalid,
    output wire                s_awready,
    input  wire [DATA_W-1:0]   s_wdata,
    input  wire [DATA_W/8-1:0] s_wstrb,
    input  wire                s_wlast,
    input  wire                s_wvalid,
    output wire                s_wready,
    output wire [ID_W-1:0]     s_bid,
    output wire [1:0]          s_bresp,
    output wire                s_bvalid,
    input  wire                s_bready,
    input  wire [ID_W-1:0]     s_arid,
    input  wire [ADDR_W-1:0]   s_araddr,
    input  wire [7:0]          s_arlen,
    input  wire [2:0]          s_arsize,
    input  wire [1:0]          s_arburst,
    input  wire [3:0]          s_arcache,
    input  wire [2:0]          s_arprot,
    input  wire                s_arvalid,
    output wire                s_arready,
    output wire [ID_W-1:0]     s_rid,
    output wire [DATA_W-1:0]   s_rdata,
    output wire [1:0]          s_rresp,
    output wire                s_rlast,
    output wire                s_rvalid,
    input  wire                s_rready,
    // memory side: AXI4 master, on m_clk
    input  wire                m_clk,
    input  wire                m_rst,      // synchronous to m_clk, active high
    output wire [ID_W-1:0]     m_awid,
    output wire [ADDR_W-1:0]   m_awaddr,
    output wire [7:0]          m_awlen,
    output wire [2:0]          m_awsize,
    output wire [1:0]          m_awburst,
    output wire [3:0]          m_awcache,
    output wire [2:0]          m_awprot,
    output wire                m_awvalid,
    input  wire                m_awready,
    output wire [DATA_W-1:0]   m_wdata,
    output wire [DATA_W/8-1:0] m_wstrb,
    output wire                m_wlast,
    output wire                m_wvalid,
    input  wire                m_wready,
    input  wire [ID_W-1:0]     m_bid,
    input  wire [1:0]          m_bresp,
    input  wire                m_bvalid,
    output wire                m_bready,
    output wire [ID_W-1:0]     m_arid,
    output wire [ADDR_W-1:0]   m_araddr,
    output wire [7:0]          m_arlen,
    output wire [2:0]          m_arsize,
    output wire [1:0]          m_arburst,
    output wire [3:0]          m_arcache,
    output wire [2:0]          m_arprot,
    output wire                m_arvalid,
    input  wire                m_arready,
    input  wire [ID_W-1:0]     m_rid,
    input  wire [DATA_W-1:0]   m_rdata,
    input  wire [1:0]          m_rresp,
    input  wire                m_rlast,
    input  wire                m_rvalid,
    output wire                m_rready
);

// entry widths: an address beat (AW or AR), a W beat, a B, an R beat
localparam integer AXW = ID_W + ADDR_W + 8 + 3 + 2 + 4 + 3;
localparam integer WW = DATA_W + DATA_W / 8 + 1;
localparam integer BW = ID_W + 2;
localparam integer RW = ID_W + DATA_W + 2 + 1;

`ifdef SATASIM_AXI_CDC_BUG_WLAST
wire w_last_in = 1'b0;
`else
wire w_last_in = s_wlast;
`endif
`ifdef SATASIM_AXI_CDC_BUG_BRESP
wire [1:0] b_resp_in = {1'b0, m_bresp[0]};
`else
wire [1:0] b_resp_in = m_bresp;
`endif

// core -> memory: AW, W, AR
satasim_async_fifo #(.WIDTH(AXW), .DEPTH(AW_DEPTH), .SYNC(SYNC)) aw_fifo (
    .w_clk(s_clk), .w_rst(s_rst), .w_valid(s_awvalid), .w_ready(s_awready),
    .w_data({s_awid, s_awaddr, s_awlen, s_awsize, s_awburst, s_awcache, s_awprot}),
    .r_clk(m_clk), .r_rst(m_rst), .r_valid(m_awvalid), .r_ready(m_awready),
    .r_data({m_awid, m_awaddr, m_awlen, m_awsize, m_awburst, m_awcache, m_awprot}));

satasim_async_fifo #(.WIDTH(WW), .DEPTH(W_DEPTH), .SYNC(SYNC)) w_fifo (
    .w_clk(s_clk), .w_rst(s_rst), .w_valid(s_wvalid), .w_ready(s_wready),
    .w_data({s_wdata, s_wstrb, w_last_in}),
    .r_clk(m_clk), .r_rst(m_rst), .r_valid(m_wvalid), .r_ready(m_wready),
    .r_data({m_wdata, m_wstrb, m_wlast}));

satasim_async_fifo #(.WIDTH(AXW), .DEPTH(AR_DEPTH), .SYNC(SYNC)) ar_fifo (
    .w_clk(s_clk), .w_rst(s_rst), .w_valid(s_arvalid), .w_ready(s_arready),
    .w_data({s_arid, s_araddr, s_arlen, s_arsize, s_arburst, s_arcache, s_arprot}),
    .r_clk(m_clk), .r_rst(m_rst), .r_valid(m_arvalid), .r_ready(m_arready),
    .r_data({m_arid, m_araddr, m_arlen, m_arsize, m_arburst, m_arcache, m_arprot}));

// memory -> core: B, R
satasim_async_fifo #(.WIDTH(BW), .DEPTH(B_DEPTH), .SYNC(SYNC)) b_fifo (
    .w_clk(m_clk), .w_rst(m_rst), .w_valid(m_bvalid), .w_ready(m_bready),
    .w_data({m_bid, b_resp_in}),
    .r_clk(s_clk), .r_rst(s_rst), .r_valid(s_bvalid), .r_ready(s_bready),
    .r_data({s_bid, s_bresp}));

satasim_async_fifo #(.WIDTH(RW), .DEPTH(R_DEPTH), .SYNC(SYNC)) r_fifo (
    .w_clk(m_clk), .w_rst(m_rst), .w_valid(m_rvalid), .w_ready(m_rready),
    .w_data({m_rid, m_rdata, m_rresp, m_rlast}),
    .r_clk(s_clk), .r_rst(s_rst), .r_valid(s_rvalid), .r_ready(s_rready),
    .r_data({s_rid, s_rdata, s_rresp, s_rlast}));

endmodule
