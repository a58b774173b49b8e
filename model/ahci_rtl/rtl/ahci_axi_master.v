// AXI4 DMA master of the AHCI HBA: one request at a time, 1..16 dwords at a dword-aligned
// address, split into INCR bursts that never cross a 4 KiB boundary (AXI4 A3.4.1) and
// never exceed 16 beats (AXI3-compatible). The data bus is DW bits (32, 64, 128, ...);
// a burst starts at the beat-aligned address below the first dword and WSTRB masks the
// lanes outside the request. One burst is outstanding at a time; IDs are not used (0).
//
// Request side: hold i_req (with i_we, i_addr, i_len) until the o_done pulse; o_err tells
// whether any beat came back with SLVERR or DECERR (RRESP/BRESP bit 1), which the port
// turns into PxIS.HBFS. Write data comes from i_wbuf (16 dwords, dword k in bits
// 32k+31:32k, index 0 = the first dword of the request). Read data goes out one dword per
// cycle on o_rvalid / o_rdata with its index o_ridx in the request; the requester must
// take every one. Every beat of a burst is taken even after an error response.
module ahci_axi_master #(
    parameter integer DW = 64,   // AXI data width: 32, 64 or 128
    parameter integer AW = 64    // AXI address width: 32 or 64
) (
    input  wire            clk,
    input  wire            rst,
    // request
    input  wire            i_req,
    input  wire            i_we,
    input  wire [AW-1:0]   i_addr,
    input  wire [4:0]      i_len,
    input  wire [511:0]    i_wbuf,
    output reg             o_done,
    output reg             o_err,
    output reg             o_rvalid,
    output reg  [31:0]     o_rdata,
    output reg  [3:0]      o_ridx,
    // AXI4 write address / data / response
    output reg  [AW-1:0]   m_awaddr,
    output reg  [7:0]      m_awlen,
    output wire [2:0]      m_awsize,
    output wire [1:0]      m_awburst,
    output wire [3:0]      m_awcache,
    output wire [2:0]      m_awprot,
    output reg             m_awvalid,
    input  wire            m_awready,
    output reg  [DW-1:0]   m_wdata,
    output reg  [DW/8-1:0] m_wstrb,
    output wire            m_wlast,
    output wire            m_wvalid,
    input  wire            m_wready,
    input  wire [1:0]      m_bresp,
    input  wire            m_bvalid,
    output wire            m_bready,
    // AXI4 read address / data
    output reg  [AW-1:0]   m_araddr,
    output reg  [7:0]      m_arlen,
    output wire [2:0]      m_arsize,
    output wire [1:0]      m_arburst,
    output wire [3:0]      m_arcache,
    output wire [2:0]      m_arprot,
    output reg             m_arvalid,
    input  wire            m_arready,
    input  wire [DW-1:0]   m_rdata,
    input  wire [1:0]      m_rresp,
    input  wire            m_rlast,
    input  wire            m_rvalid,
    output wire            m_rready
);

localparam integer LANES = DW / 32;
localparam integer LB = (LANES >= 4) ? 2 : (LANES == 2) ? 1 : 0;
localparam [4:0] LMASK = LANES[4:0] - 5'd1;
localparam [2:0] SIZE = (DW == 128) ? 3'd4 : (DW == 64) ? 3'd3 : 3'd2;

assign m_awsize = SIZE;
assign m_arsize = SIZE;
assign m_awburst = 2'b01;   // INCR
assign m_arburst = 2'b01;
assign m_awcache = 4'b0011; // normal, non-cacheable, bufferable
assign m_arcache = 4'b0011;
assign m_awprot = 3'b000;
assign m_arprot = 3'b000;

localparam [2:0] S_IDLE = 3'd0, S_BURST = 3'd1, S_AW = 3'd2, S_W = 3'd3, S_B = 3'd4,
                 S_AR = 3'd5, S_R = 3'd6, S_UNPACK = 3'd7;
reg [2:0]    state;
reg          we;
reg [AW-1:0] cur;        // address of the next dword of the request
reg [4:0]    left;       // dwords still to move
reg [4:0]    base;       // index of the first dword of the current burst
reg [4:0]    n;          // dwords in the current burst
reg [4:0]    lane0;      // lane of the burst's first dword
reg [4:0]    beat;       // beat counter within the burst (write) / dwords delivered (read)
reg [4:0]    beats;
reg [4:0]    lane;       // read: lane being unpacked
reg [DW-1:0] rbeat;
reg          rbeat_last;

// Burst geometry for a burst starting at cur with `left` dwords to go.
wire [10:0] dw_4k = 11'd1024 - {1'b0, cur[11:2]}; // dwords to the 4 KiB boundary
wire [4:0]  n_next = ({6'd0, left} > dw_4k) ? dw_4k[4:0] : left;
wire [4:0]  lane0_next = {1'b0, cur[5:2]} & LMASK;
wire [5:0]  beats_sum = {1'b0, lane0_next} + {1'b0, n_next} + {1'b0, LMASK};
wire [5:0]  beats_shr = beats_sum >> LB;
wire [4:0]  beats_next = beats_shr[5] ? 5'd16 : beats_shr[4:0]; // never above 16
localparam integer BLOWI = DW / 8 - 1;
localparam [7:0] BLOW = BLOWI[7:0]; // byte-offset bits within a beat
wire [AW-1:0] beat_align = ~{{(AW-8){1'b0}}, BLOW};

assign m_wvalid = state == S_W;
assign m_wlast = beat + 5'd1 == beats;
assign m_bready = state == S_B;
assign m_rready = state == S_R;

// Write beat `beat` of the burst: lane l carries dword (beat * LANES + l - lane0) of it.
integer l;
reg [5:0] di;
always @(*) begin
    m_wdata = {DW{1'b0}};
    m_wstrb = {(DW/8){1'b0}};
    for (l = 0; l < LANES; l = l + 1) begin
        di = ({1'b0, beat} << LB) + l[5:0] - {1'b0, lane0};
        if (!di[5] && di[4:0] < n) begin
            m_wdata[32*l +: 32] = i_wbuf[32 * (base + di[4:0]) +: 32];
            m_wstrb[4*l +: 4] = 4'hF;
        end
    end
end

always @(posedge clk) begin
    o_done <= 1'b0;
    o_rvalid <= 1'b0;
    if (rst) begin
        state <= S_IDLE;
        o_err <= 1'b0;
        m_awvalid <= 1'b0;
        m_arvalid <= 1'b0;
        m_awaddr <= {AW{1'b0}};
        m_araddr <= {AW{1'b0}};
        m_awlen <= 8'd0;
        m_arlen <= 8'd0;
        o_rdata <= 32'h0;
        o_ridx <= 4'd0;
        we <= 1'b0;
        cur <= {AW{1'b0}};
        left <= 5'd0;
        base <= 5'd0;
        n <= 5'd0;
        lane0 <= 5'd0;
        beat <= 5'd0;
        beats <= 5'd0;
        lane <= 5'd0;
        rbeat <= {DW{1'b0}};
        rbeat_last <= 1'b0;
    end else begin
        case (state)
            S_IDLE: if (i_req && !o_done) begin
                we <= i_we;
                cur <= i_addr & ~{{(AW-2){1'b0}}, 2'b11};
                left <= (i_len == 5'd0) ? 5'd1 : (i_len > 5'd16) ? 5'd16 : i_len;
                base <= 5'd0;
                o_err <= 1'b0;
                state <= S_BURST;
            end
            S_BURST: begin
                n <= n_next;
                lane0 <= lane0_next;
                beats <= beats_next;
                beat <= 5'd0;
                if (we) begin
                    m_awaddr <= cur & beat_align;
                    m_awlen <= {3'd0, beats_next - 5'd1};
                    m_awvalid <= 1'b1;
                    state <= S_AW;
                end else begin
                    m_araddr <= cur & beat_align;
                    m_arlen <= {3'd0, beats_next - 5'd1};
                    m_arvalid <= 1'b1;
                    state <= S_AR;
                end
            end
            S_AW: if (m_awready) begin
                m_awvalid <= 1'b0;
                state <= S_W;
            end
            S_W: if (m_wready) begin
                beat <= beat + 5'd1;
                if (m_wlast)
                    state <= S_B;
            end
            S_B: if (m_bvalid) begin
                if (m_bresp != 2'b00) // SLVERR, DECERR (EXOKAY is wrong for a normal access)
                    o_err <= 1'b1;
                state <= S_IDLE; // replaced below when the request is not finished
                cur <= cur + {{(AW-7){1'b0}}, n, 2'b00};
                left <= left - n;
                base <= base + n;
                if (left == n)
                    o_done <= 1'b1;
                else
                    state <= S_BURST;
            end
            S_AR: if (m_arready) begin
                m_arvalid <= 1'b0;
                state <= S_R;
            end
            S_R: if (m_rvalid) begin
                if (m_rresp != 2'b00)
                    o_err <= 1'b1;
                rbeat <= m_rdata;
                rbeat_last <= m_rlast;
                lane <= (beat == 5'd0) ? lane0 : 5'd0;
                state <= S_UNPACK;
            end
            S_UNPACK: begin
                // One dword per cycle; `beat` counts the dwords delivered in this burst.
                if (beat < n) begin
                    o_rvalid <= 1'b1;
                    o_rdata <= rbeat[32 * lane[3:0] +: 32];
                    o_ridx <= base[3:0] + beat[3:0];
                    beat <= beat + 5'd1;
                end
                lane <= lane + 5'd1;
                if ((lane & LMASK) == LMASK || beat + 5'd1 >= n) begin
                    if (rbeat_last) begin
                        cur <= cur + {{(AW-7){1'b0}}, n, 2'b00};
                        left <= left - n;
                        base <= base + n;
                        if (left == n) begin
                            o_done <= 1'b1;
                            state <= S_IDLE;
                        end else begin
                            state <= S_BURST;
                        end
                    end else begin
                        state <= S_R;
                    end
                end
            end
            default: state <= S_IDLE;
        endcase
    end
end

endmodule
