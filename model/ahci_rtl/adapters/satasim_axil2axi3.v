// AXI4-Lite (the shell's register master) to an AXI3 register slave (docs/rtl-controller.md,
// adapters; ARM IHI0022): satasim_axil2axi4 with AXI3's signal set. Differences from AXI4
// (IHI0022 issue E onwards, "AXI4 changes" and the signal tables of A2): WID (= AWID; AXI3
// write data carries the ID of its burst, AXI4 removed write interleaving and WID),
// AxLEN 4 bits (0: one beat), AxLOCK 2 bits (00: normal access), no AxQOS / AxREGION.
// Everything else, the checks of BID / RID / RLAST and the response mapping included, is
// the AXI4 adapter's.
module satasim_axil2axi3 #(
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
    // AXI3 master (the DUT's register slave)
    output wire [ID_W-1:0]   m_awid,
    output wire [ADDR_W-1:0] m_awaddr,
    output wire [3:0]        m_awlen,
    output wire [2:0]        m_awsize,
    output wire [1:0]        m_awburst,
    output wire [1:0]        m_awlock,
    output wire [3:0]        m_awcache,
    output wire [2:0]        m_awprot,
    output wire              m_awvalid,
    input  wire              m_awready,
    output wire [ID_W-1:0]   m_wid,
    output wire [31:0]       m_wdata,
    output wire [3:0]        m_wstrb,
    output wire              m_wlast,
    output wire              m_wvalid,
    input  wire              m_wready,
    input  wire [ID_W-1:0]   m_bid,
    input  wire [1:0]        m_bresp,
    input  wire              m_bvalid,
    output wire              m_bready,
    output wire [ID_W-1:0]   m_arid,
    output wire [ADDR_W-1:0] m_araddr,
    output wire [3:0]        m_arlen,
    output wire [2:0]        m_arsize,
    output wire [1:0]        m_arburst,
    output wire [1:0]        m_arlock,
    output wire [3:0]        m_arcache,
    output wire [2:0]        m_arprot,
    output wire              m_arvalid,
    input  wire              m_arready,
    input  wire [ID_W-1:0]   m_rid,
    input  wire [31:0]       m_rdata,
    input  wire [1:0]        m_rresp,
    input  wire              m_rlast,
    input  wire              m_rvalid,
    output wire              m_rready,
    output wire              proto_err
);

// AXI4's wider AxLEN, one-bit AxLOCK, AxQOS and AxREGION: constants (AxLEN 0, AxLOCK 0,
// QOS / REGION 0) of which AXI3 carries the low bits or nothing
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0] awlen8, arlen8;
wire       awlock1, arlock1;
wire [3:0] awqos, arqos, awregion, arregion;
/* verilator lint_on UNUSEDSIGNAL */

satasim_axil2axi4 #(.ID_W(ID_W), .ID(ID), .ADDR_W(ADDR_W), .BASE(BASE), .CACHE(CACHE),
                    .PROT(PROT)) axi4 (
    .clk(clk), .rst(rst),
    .s_awaddr(s_awaddr), .s_awvalid(s_awvalid), .s_awready(s_awready),
    .s_wdata(s_wdata), .s_wstrb(s_wstrb), .s_wvalid(s_wvalid), .s_wready(s_wready),
    .s_bresp(s_bresp), .s_bvalid(s_bvalid), .s_bready(s_bready),
    .s_araddr(s_araddr), .s_arvalid(s_arvalid), .s_arready(s_arready),
    .s_rdata(s_rdata), .s_rresp(s_rresp), .s_rvalid(s_rvalid), .s_rready(s_rready),
    .m_awid(m_awid), .m_awaddr(m_awaddr), .m_awlen(awlen8), .m_awsize(m_awsize),
    .m_awburst(m_awburst), .m_awlock(awlock1), .m_awcache(m_awcache), .m_awprot(m_awprot),
    .m_awqos(awqos), .m_awregion(awregion), .m_awvalid(m_awvalid), .m_awready(m_awready),
    .m_wdata(m_wdata), .m_wstrb(m_wstrb), .m_wlast(m_wlast), .m_wvalid(m_wvalid),
    .m_wready(m_wready),
    .m_bid(m_bid), .m_bresp(m_bresp), .m_bvalid(m_bvalid), .m_bready(m_bready),
    .m_arid(m_arid), .m_araddr(m_araddr), .m_arlen(arlen8), .m_arsize(m_arsize),
    .m_arburst(m_arburst), .m_arlock(arlock1), .m_arcache(m_arcache), .m_arprot(m_arprot),
    .m_arqos(arqos), .m_arregion(arregion), .m_arvalid(m_arvalid), .m_arready(m_arready),
    .m_rid(m_rid), .m_rdata(m_rdata), .m_rresp(m_rresp), .m_rlast(m_rlast),
    .m_rvalid(m_rvalid), .m_rready(m_rready),
    .proto_err(proto_err));

assign m_wid = m_awid;
assign m_awlen = awlen8[3:0];
assign m_arlen = arlen8[3:0];
assign m_awlock = {1'b0, awlock1};
assign m_arlock = {1'b0, arlock1};

endmodule
