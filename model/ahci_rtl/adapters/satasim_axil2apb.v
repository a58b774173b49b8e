// AXI4-Lite (the shell's register master) to an APB register slave (docs/rtl-controller.md,
// adapters; AMBA APB Protocol Specification, ARM IHI0024, APB3 and APB4).
//
// One transfer per access: the SETUP cycle (PSEL high, PENABLE low, address, direction,
// data, strobes and protection valid), then ACCESS (PENABLE high) until PREADY is high;
// every output holds still from SETUP to the end of ACCESS, then PSEL and PENABLE go low
// for at least one cycle (IHI0024C 3.1, 3.3, 4.1). PSLVERR in the last ACCESS cycle
// answers SLVERR (3.4), else OKAY; PRDATA of that cycle is the read data.
//
// APB4 = 1: PSTRB carries WSTRB for writes (any pattern, 0000 included) and is 0000 for
// reads (3.2); PPROT = PPROT_VAL (3.5). APB4 = 0 (an APB3 slave, no PSTRB / PPROT; leave
// those outputs open): a write whose WSTRB is not 1111 cannot be expressed; 0000 makes no
// transfer and answers OKAY, any other partial pattern makes no transfer and answers
// SLVERR. An APB2 slave (no PREADY / PSLVERR) works with m_pready tied high and
// m_pslverr tied low. satasim's AHCI driver only ever writes whole words.
module satasim_axil2apb #(
    parameter integer      ADDR_W = 12,
    parameter [ADDR_W-1:0] BASE = {ADDR_W{1'b0}},  // bits [11:0] must be 0
    parameter integer      APB4 = 1,
    parameter [2:0]        PPROT_VAL = 3'b000
) (
    input  wire              clk,       // PCLK
    input  wire              rst,       // synchronous, active high (PRESETn = !rst)
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
    // APB master (the DUT's register slave)
    output wire [ADDR_W-1:0] m_paddr,
    output reg               m_psel,
    output reg               m_penable,
    output wire              m_pwrite,
    output wire [31:0]       m_pwdata,
    output wire [3:0]        m_pstrb,
    output wire [2:0]        m_pprot,
    input  wire [31:0]       m_prdata,
    input  wire              m_pready,
    input  wire              m_pslverr
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
    .done(done), .done_resp(done_resp), .done_rdata(m_prdata));

// A write APB3 cannot express: not all four strobes (no transfer; SLVERR unless none)
wire partial = APB4 == 0 && req_write && req_wstrb != 4'b1111;

assign m_paddr = req_addr;
assign m_pwrite = req_write;
assign m_pwdata = req_wdata;
assign m_pstrb = req_wstrb;          // 0000 for reads (satasim_axil_front)
assign m_pprot = PPROT_VAL;

always @(*) begin
    done = 1'b0;
    done_resp = 2'b00;
    if (!m_psel && req_valid && partial) begin
        done = 1'b1;
        done_resp = req_wstrb == 4'd0 ? 2'b00 : 2'b10;
    end else if (m_penable && m_pready) begin
        done = 1'b1;
        done_resp = m_pslverr ? 2'b10 : 2'b00;
    end
end

always @(posedge clk) begin
    if (rst) begin
        m_psel <= 1'b0;
        m_penable <= 1'b0;
    end else if (m_penable) begin
        if (m_pready) begin                  // ACCESS -> IDLE
            m_psel <= 1'b0;
            m_penable <= 1'b0;
        end
    end else if (m_psel) begin               // SETUP -> ACCESS
        m_penable <= 1'b1;
    end else if (req_valid && !partial) begin  // IDLE -> SETUP
        m_psel <= 1'b1;
    end
end

endmodule
