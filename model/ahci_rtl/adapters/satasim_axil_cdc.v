// AXI4-Lite clock-domain crossing (docs/rtl-controller.md, clocks and adapters): an AXI4-Lite
// slave on the register clock (s_clk: the shell's reg_clk) in front of an AXI4-Lite master
// on the controller's core clock (m_clk), for a controller whose register slave runs on its
// core clock while the shell's register master runs on a clock of its own. The two clocks
// are asynchronous: any ratio, any phase.
//
//   One access at a time crosses, by a request/acknowledge toggle handshake (a four-phase
//   handshake's two-phase form):
//     register side: satasim_axil_front takes the access (AW + W, or AR) and holds it in
//       req_* until done; one cycle later req_tgl flips (the held access is stable from
//       the cycle before the flip until the acknowledge comes back);
//     core side: req_tgl through SYNC flip-flops; a synchronized value that differs from
//       ack_tgl is a new access: the master issues it (AW and W together, or AR; address,
//       data and strobes read straight from the register side's held registers, stable
//       throughout), takes B or R (resp_q / rdata_q), then flips ack_tgl;
//     register side: ack_tgl through SYNC flip-flops; equal to req_tgl again means the
//       core side finished: done (one cycle) hands resp_q / rdata_q to the front, which
//       answers B or R. resp_q / rdata_q change only at the core side's next access,
//       which cannot start before the next req_tgl flip.
//   So every access reaches the core exactly once, in order, and every response is the
//   core slave's. Only the two toggles cross through synchronizers; the multi-bit payload
//   is held stable while it crosses (static timing: false paths / max-delay constraints on
//   req_* -> m_* and resp_q / rdata_q -> s_*, as for any handshake crossing).
//
//   Latency of one access: about SYNC + 2 core cycles plus SYNC + 3 register cycles, plus
//   the core slave's own.
//
//   Resets: s_rst (synchronous to s_clk) and m_rst (to m_clk) must both be asserted at
//   power-on (the shell holds each for 8 cycles of its clock, from the same instant) and
//   must not be asserted alone later: each clears its side's toggle to 0.
module satasim_axil_cdc #(
    parameter integer ADDR_W = 12, // register offset bits on both sides
    parameter integer SYNC = 2     // synchronizer flip-flops per crossing (2 or more)
) (
    // register side: AXI4-Lite slave
    input  wire              s_clk,
    input  wire              s_rst,
    input  wire [ADDR_W-1:0] s_awaddr,
    input  wire              s_awvalid,
    output wire              s_awready,
    input  wire [31:0]       s_wdata,
    input  wire [3:0]        s_wstrb,
    input  wire              s_wvalid,
    output wire              s_wready,
    output wire [1:0]        s_bresp,
    output wire              s_bvalid,
    input  wire              s_bready,
    input  wire [ADDR_W-1:0] s_araddr,
    input  wire              s_arvalid,
    output wire              s_arready,
    output wire [31:0]       s_rdata,
    output wire [1:0]        s_rresp,
    output wire              s_rvalid,
    input  wire              s_rready,
    // core side: AXI4-Lite master
    input  wire              m_clk,
    input  wire              m_rst,
    output wire [ADDR_W-1:0] m_awaddr,
    output reg               m_awvalid,
    input  wire              m_awready,
    output wire [31:0]       m_wdata,
    output wire [3:0]        m_wstrb,
    output reg               m_wvalid,
    input  wire              m_wready,
    input  wire [1:0]        m_bresp,
    input  wire              m_bvalid,
    output reg               m_bready,
    output wire [ADDR_W-1:0] m_araddr,
    output reg               m_arvalid,
    input  wire              m_arready,
    input  wire [31:0]       m_rdata,
    input  wire [1:0]        m_rresp,
    input  wire              m_rvalid,
    output reg               m_rready
);

// ---- register side
wire              req_valid, req_write;
wire [ADDR_W-1:0] req_addr;
wire [31:0]       req_wdata;
wire [3:0]        req_wstrb;
reg               req_tgl /* verilator public_flat_rd */; // (public: tb/cdc_test.cpp times the crossings)
reg               s_busy;
reg  [SYNC-1:0]   ack_sync;  // ack_tgl into s_clk: [0] first
reg               ack_tgl /* verilator public_flat_rd */; // core side
reg  [1:0]        resp_q;    // core side
reg  [31:0]       rdata_q;   // core side
wire              done = s_busy && ack_sync[SYNC-1] == req_tgl;

satasim_axil_front #(.OFF_W(ADDR_W), .ADDR_W(ADDR_W)) front (
    .clk(s_clk), .rst(s_rst),
    .s_awaddr(s_awaddr), .s_awvalid(s_awvalid), .s_awready(s_awready),
    .s_wdata(s_wdata), .s_wstrb(s_wstrb), .s_wvalid(s_wvalid), .s_wready(s_wready),
    .s_bresp(s_bresp), .s_bvalid(s_bvalid), .s_bready(s_bready),
    .s_araddr(s_araddr), .s_arvalid(s_arvalid), .s_arready(s_arready),
    .s_rdata(s_rdata), .s_rresp(s_rresp), .s_rvalid(s_rvalid), .s_rready(s_rready),
    .req_valid(req_valid), .req_write(req_write), .req_addr(req_addr), .req_wdata(req_wdata),
    .req_wstrb(req_wstrb), .done(done), .done_resp(resp_q), .done_rdata(rdata_q));

always @(posedge s_clk) begin
    if (s_rst) begin
        req_tgl <= 1'b0;
        s_busy <= 1'b0;
        ack_sync <= {SYNC{1'b0}};
    end else begin
        ack_sync <= {ack_sync[SYNC-2:0], ack_tgl};
        if (req_valid && !s_busy) begin
            req_tgl <= ~req_tgl; // the held access goes across
            s_busy <= 1'b1;
        end else if (done) begin
            s_busy <= 1'b0;      // the front drops req_valid at this edge
        end
    end
end

// ---- core side
reg  [SYNC-1:0] req_sync;  // req_tgl into m_clk: [0] first
reg             m_busy;
wire            m_new = !m_busy && req_sync[SYNC-1] != ack_tgl;

// the held access, stable from before req_tgl flipped until ack_tgl is seen back
assign m_awaddr = req_addr;
assign m_araddr = req_addr;
assign m_wdata = req_wdata;
assign m_wstrb = req_wstrb;

always @(posedge m_clk) begin
    if (m_rst) begin
        req_sync <= {SYNC{1'b0}};
        ack_tgl <= 1'b0;
        m_busy <= 1'b0;
        resp_q <= 2'b00;
        rdata_q <= 32'd0;
        m_awvalid <= 1'b0; m_wvalid <= 1'b0; m_bready <= 1'b0;
        m_arvalid <= 1'b0; m_rready <= 1'b0;
    end else begin
        req_sync <= {req_sync[SYNC-2:0], req_tgl};
        if (m_new) begin
            m_busy <= 1'b1;
            m_awvalid <= req_write;
            m_wvalid <= req_write;
            m_bready <= req_write;
            m_arvalid <= !req_write;
            m_rready <= !req_write;
        end
        if (m_awvalid && m_awready)
            m_awvalid <= 1'b0;
        if (m_wvalid && m_wready)
            m_wvalid <= 1'b0;
        if (m_arvalid && m_arready)
            m_arvalid <= 1'b0;
        if (m_bready && m_bvalid) begin
            m_bready <= 1'b0;
            resp_q <= m_bresp;
            ack_tgl <= ~ack_tgl;
            m_busy <= 1'b0;
        end
        if (m_rready && m_rvalid) begin
            m_rready <= 1'b0;
            resp_q <= m_rresp;
            rdata_q <= m_rdata;
            ack_tgl <= ~ack_tgl;
            m_busy <= 1'b0;
        end
    end
end

endmodule
