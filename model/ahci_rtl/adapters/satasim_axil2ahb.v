// AXI4-Lite (the shell's register master) to an AHB-Lite register slave
// (docs/rtl-controller.md, adapters; AMBA 3 AHB-Lite Protocol Specification, ARM IHI0033A).
//
// Single transfers, never bursts and never pipelined: an address phase (HTRANS NONSEQ,
// HBURST SINGLE, HMASTLOCK 0, HPROT = HPROT_VAL, default 0011: data, privileged,
// non-bufferable, non-cacheable, the value the specification recommends for a master
// without protection information, 3.7) held until HREADY is high, then the data phase
// with HTRANS IDLE and HWDATA held until HREADY is high. The ERROR response (HRESP high
// for two cycles, HREADY low in the first; 5.1.3) ends the access with SLVERR.
//
// Reads are one word transfer (HSIZE 010). AHB-Lite has no byte strobes, only transfer
// sizes (3.4): a write's WSTRB is split into at most two naturally aligned transfers, each
// a word (1111), a halfword (lanes 0-1 or 2-3) or a byte, lowest lanes first, with WDATA
// on its lanes unchanged (AHB's byte lanes are address-based as AXI's). 1111 is one word
// transfer; 0011 / 1100 one halfword; one lane one byte; 0111 is a halfword then a byte,
// 0101 two bytes, 0110 two bytes (a halfword at offset 1 is unaligned), and so on. The two
// are separate transfers (a reader between them may see the first one's bytes alone); an
// ERROR on the first ends the access with SLVERR without the second. WSTRB 0000 makes no
// transfer and answers OKAY. satasim's AHCI driver only ever writes whole words.
module satasim_axil2ahb #(
    parameter integer      ADDR_W = 32,
    parameter [ADDR_W-1:0] BASE = {ADDR_W{1'b0}},  // bits [11:0] must be 0
    parameter [3:0]        HPROT_VAL = 4'b0011
) (
    input  wire              clk,       // HCLK
    input  wire              rst,       // synchronous, active high (HRESETn = !rst)
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
    // AHB-Lite master (the DUT's register slave)
    output wire [ADDR_W-1:0] m_haddr,
    output wire [1:0]        m_htrans,
    output wire              m_hwrite,
    output wire [2:0]        m_hsize,
    output wire [2:0]        m_hburst,
    output wire [3:0]        m_hprot,
    output wire              m_hmastlock,
    output wire [31:0]       m_hwdata,
    input  wire [31:0]       m_hrdata,
    input  wire              m_hready,
    input  wire              m_hresp
);

wire        req_valid, req_write;
/* verilator lint_off UNUSEDSIGNAL */
wire [ADDR_W-1:0] req_addr;    // bits [1:0]: each transfer's own offset replaces them
/* verilator lint_on UNUSEDSIGNAL */
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
    .done(done), .done_resp(done_resp), .done_rdata(m_hrdata));

localparam [1:0] S_IDLE = 2'd0, S_ADDR = 2'd1, S_DATA = 2'd2;
reg [1:0] st;
reg [3:0] rem;      // byte lanes still to write after the current transfer
reg [1:0] p_size;   // current transfer: HSIZE[1:0] and the byte offset in the word
reg [1:0] p_off;

// The next transfer of a lane mask: {size, offset, lanes}, lowest lanes first.
function [7:0] piece(input [3:0] m);
    if (m == 4'b1111)
        piece = {2'd2, 2'd0, 4'b1111};
    else if (m[0])
        piece = m[1] ? {2'd1, 2'd0, 4'b0011} : {2'd0, 2'd0, 4'b0001};
    else if (m[1])
        piece = {2'd0, 2'd1, 4'b0010};
    else if (m[2])
        piece = m[3] ? {2'd1, 2'd2, 4'b1100} : {2'd0, 2'd2, 4'b0100};
    else
        piece = {2'd0, 2'd3, 4'b1000};
endfunction

wire [3:0] first_mask = req_write ? req_wstrb : 4'b1111;
wire [7:0] first = piece(first_mask);
wire [7:0] next = piece(rem);

assign m_haddr = {req_addr[ADDR_W-1:2], p_off};
assign m_htrans = st == S_ADDR ? 2'b10 : 2'b00;   // NONSEQ / IDLE
assign m_hwrite = req_write;
assign m_hsize = {1'b0, p_size};
assign m_hburst = 3'b000;                          // SINGLE
assign m_hprot = HPROT_VAL;
assign m_hmastlock = 1'b0;
assign m_hwdata = req_wdata;

always @(*) begin
    done = 1'b0;
    done_resp = 2'b00;
    if (st == S_IDLE && req_valid && first_mask == 4'd0) begin
        done = 1'b1;                               // a write without strobes: nothing to do
    end else if (st == S_DATA && m_hready && (m_hresp || rem == 4'd0)) begin
        done = 1'b1;
        done_resp = m_hresp ? 2'b10 : 2'b00;
    end
end

always @(posedge clk) begin
    if (rst) begin
        st <= S_IDLE;
        rem <= 4'd0; p_size <= 2'd0; p_off <= 2'd0;
    end else begin
        case (st)
            S_IDLE:
                if (req_valid && first_mask != 4'd0) begin
                    p_size <= first[7:6];
                    p_off <= first[5:4];
                    rem <= first_mask & ~first[3:0];
                    st <= S_ADDR;
                end
            S_ADDR:
                if (m_hready)
                    st <= S_DATA;
            S_DATA:
                if (m_hready) begin
                    if (m_hresp || rem == 4'd0) begin
                        st <= S_IDLE;
                    end else begin
                        p_size <= next[7:6];
                        p_off <= next[5:4];
                        rem <= rem & ~next[3:0];
                        st <= S_ADDR;
                    end
                end
            default: st <= S_IDLE;
        endcase
    end
end

endmodule
