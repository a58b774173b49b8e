// AXI4-Lite (the shell's register master) to an AXI4 register slave with IDs and bursts
// (docs/rtl-controller.md, adapters; AMBA AXI and ACE specification, ARM IHI0022).
//
// Every access is one single-beat burst, one at a time: AxLEN 0 (one transfer), AxSIZE 2
// (4 bytes), AxBURST INCR, AxLOCK 0 (normal, never exclusive), AxID = ID, AxCACHE = CACHE
// (default 0000: Device Non-bufferable, the memory type for registers), AxPROT = PROT,
// AxQOS 0, AxREGION 0, WLAST 1; WSTRB passes through unchanged (any pattern, 0000 too: a
// write with no strobes is legal AXI and updates nothing). AWVALID and WVALID rise
// together (A3.3.1 allows both orders); BREADY / RREADY are high only while the response
// is expected.
//
// Responses: OKAY, SLVERR and DECERR pass through to BRESP / RRESP. What the slave must not
// do is answered SLVERR and latched in proto_err (sticky until reset): BID or RID other
// than ID, EXOKAY to a normal access (A7.2), and a read response whose first beat lacks
// RLAST (the adapter then takes beats until RLAST and answers SLVERR).
//
// Parameters: ID_W / ID (any ID width: BID / RID are compared at that width), ADDR_W
// (the slave's address width, >= 12) and BASE (ORed onto the 12-bit register offset,
// bits [11:0] must be 0).
module satasim_axil2axi4 #(
    parameter integer   ID_W = 4,
    parameter [ID_W-1:0] ID = {ID_W{1'b0}},
    parameter integer   ADDR_W = 32,
    parameter [ADDR_W-1:0] BASE = {ADDR_W{1'b0}},
    parameter [3:0]     CACHE = 4'b0000,
    parameter [2:0]     PROT = 3'b000
) (
    input  wire              clk,
    input  wire              rst,
    // AXI4-Lite slave (the shell)
    input  wire [11:0]       s_awaddr,
    input  wire              s_awvalid,
    output wire              s_awready,
    input  wire [31:0]       s_wdata,
    input  wire [3:0]        s_wstrb,
    input  wire              s_wvalid,
    output wire              s_wready,
    output wire [1:0]        s_bresp,
    output wire              s_bvalid,
    input  wire              s_bready,
    input  wire [11:0]       s_araddr,
    input  wire              s_arvalid,
    output wire              s_arready,
    output wire [31:0]       s_rdata,
    output wire [1:0]        s_rresp,
    output wire              s_rvalid,
    input  wire              s_rready,
    // AXI4 master (the DUT's register slave)
    output wire [ID_W-1:0]   m_awid,
    output wire [ADDR_W-1:0] m_awaddr,
    output wire [7:0]        m_awlen,
    output wire [2:0]        m_awsize,
    output wire [1:0]        m_awburst,
    output wire              m_awlock,
    output wire [3:0]        m_awcache,
    output wire [2:0]        m_awprot,
    output wire [3:0]        m_awqos,
    output wire [3:0]        m_awregion,
    output reg               m_awvalid,
    input  wire              m_awready,
    output wire [31:0]       m_wdata,
    output wire [3:0]        m_wstrb,
    output wire              m_wlast,
    output reg               m_wvalid,
    input  wire              m_wready,
    input  wire [ID_W-1:0]   m_bid,
    input  wire [1:0]        m_bresp,
    input  wire              m_bvalid,
    output wire              m_bready,
    output wire [ID_W-1:0]   m_arid,
    output wire [ADDR_W-1:0] m_araddr,
    output wire [7:0]        m_arlen,
    output wire [2:0]        m_arsize,
    output wire [1:0]        m_arburst,
    output wire              m_arlock,
    output wire [3:0]        m_arcache,
    output wire [2:0]        m_arprot,
    output wire [3:0]        m_arqos,
    output wire [3:0]        m_arregion,
    output reg               m_arvalid,
    input  wire              m_arready,
    input  wire [ID_W-1:0]   m_rid,
    input  wire [31:0]       m_rdata,
    input  wire [1:0]        m_rresp,
    input  wire              m_rlast,
    input  wire              m_rvalid,
    output wire              m_rready,
    output reg               proto_err
);

wire        req_valid, req_write;
wire [ADDR_W-1:0] req_addr;
wire [31:0] req_wdata;
wire [3:0]  req_wstrb;
reg         done;
reg  [1:0]  done_resp;

satasim_axil_front #(.ADDR_W(ADDR_W), .BASE(BASE)) front (
    .clk(clk), .rst(rst),
    .s_awaddr(s_awaddr), .s_awvalid(s_awvalid), .s_awready(s_awready),
    .s_wdata(s_wdata), .s_wstrb(s_wstrb), .s_wvalid(s_wvalid), .s_wready(s_wready),
    .s_bresp(s_bresp), .s_bvalid(s_bvalid), .s_bready(s_bready),
    .s_araddr(s_araddr), .s_arvalid(s_arvalid), .s_arready(s_arready),
    .s_rdata(s_rdata), .s_rresp(s_rresp), .s_rvalid(s_rvalid), .s_rready(s_rready),
    .req_valid(req_valid), .req_write(req_write), .req_addr(req_addr),
    .req_wdata(req_wdata), .req_wstrb(req_wstrb),
    .done(done), .done_resp(done_resp), .done_rdata(m_rdata));

localparam [2:0] S_IDLE = 3'd0, S_WADDR = 3'd1, S_WRESP = 3'd2, S_RADDR = 3'd3, S_RDATA = 3'd4;
reg [2:0] st;
reg       r_bad;    // a beat of this read had no RLAST: SLVERR at the last one


assign m_awid = ID;
assign m_awaddr = req_addr;
assign m_awlen = 8'd0;
assign m_awsize = 3'b010;
assign m_awburst = 2'b01;
assign m_awlock = 1'b0;
assign m_awcache = CACHE;
assign m_awprot = PROT;
assign m_awqos = 4'd0;
assign m_awregion = 4'd0;
assign m_wdata = req_wdata;
assign m_wstrb = req_wstrb;
assign m_wlast = 1'b1;
assign m_bready = st == S_WRESP;
assign m_arid = ID;
assign m_araddr = req_addr;
assign m_arlen = 8'd0;
assign m_arsize = 3'b010;
assign m_arburst = 2'b01;
assign m_arlock = 1'b0;
assign m_arcache = CACHE;
assign m_arprot = PROT;
assign m_arqos = 4'd0;
assign m_arregion = 4'd0;
assign m_rready = st == S_RDATA;

// OKAY, SLVERR, DECERR as they are; EXOKAY (never asked for) becomes SLVERR
function [1:0] map_resp(input [1:0] r);
    map_resp = r == 2'b01 ? 2'b10 : r;
endfunction

wire b_bad = m_bid != ID || m_bresp == 2'b01;
wire r_beat_bad = m_rid != ID || m_rresp == 2'b01 || !m_rlast;

always @(*) begin
    done = 1'b0;
    done_resp = 2'b00;
    if (st == S_WRESP && m_bvalid) begin
        done = 1'b1;
        done_resp = b_bad ? 2'b10 : map_resp(m_bresp);
    end else if (st == S_RDATA && m_rvalid && m_rlast) begin
        done = 1'b1;
        done_resp = (r_bad || r_beat_bad) ? 2'b10 : map_resp(m_rresp);
    end
end

always @(posedge clk) begin
    if (rst) begin
        st <= S_IDLE;
        m_awvalid <= 1'b0; m_wvalid <= 1'b0; m_arvalid <= 1'b0;
        r_bad <= 1'b0; proto_err <= 1'b0;
    end else begin
        case (st)
            S_IDLE:
                if (req_valid) begin
                    if (req_write) begin
                        m_awvalid <= 1'b1;
                        m_wvalid <= 1'b1;
                        st <= S_WADDR;
                    end else begin
                        m_arvalid <= 1'b1;
                        r_bad <= 1'b0;
                        st <= S_RADDR;
                    end
                end
            S_WADDR: begin
                if (m_awready)
                    m_awvalid <= 1'b0;
                if (m_wready)
                    m_wvalid <= 1'b0;
                if ((!m_awvalid || m_awready) && (!m_wvalid || m_wready))
                    st <= S_WRESP;
            end
            S_WRESP:
                if (m_bvalid) begin
                    if (b_bad)
                        proto_err <= 1'b1;
                    st <= S_IDLE;
                end
            S_RADDR:
                if (m_arready) begin
                    m_arvalid <= 1'b0;
                    st <= S_RDATA;
                end
            S_RDATA:
                if (m_rvalid) begin
                    if (r_beat_bad) begin
                        proto_err <= 1'b1;
                        r_bad <= 1'b1;
                    end
                    if (m_rlast)
                        st <= S_IDLE;
                end
            default: st <= S_IDLE;
        endcase
    end
end

endmodule
