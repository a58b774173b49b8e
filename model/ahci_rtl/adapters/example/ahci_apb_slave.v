// Example only (docs/rtl-controller.md, adapters): gives satasim's reference AHCI
// controller an APB4 register slave, so that it stands for a vendor controller with one.
// An APB slave in front of ahci_hba's AXI4-Lite register slave: the transfer's SETUP
// cycle starts AW + W (write) or AR (read) with PADDR / PWDATA / PSTRB, which APB holds
// still until the transfer ends (IHI0024C 3.1); PREADY rises for one ACCESS cycle once the
// response is in, with PSLVERR = (BRESP / RRESP not OKAY) and PRDATA = RDATA.
module ahci_apb_slave (
    input  wire        clk,
    input  wire        rst,
    // APB4 slave
    input  wire [11:0] paddr,
    input  wire        psel,
    input  wire        penable,
    input  wire        pwrite,
    input  wire [31:0] pwdata,
    input  wire [3:0]  pstrb,
    output reg  [31:0] prdata,
    output reg         pready,
    output reg         pslverr,
    // AXI4-Lite master (ahci_hba's register slave)
    output wire [11:0] m_awaddr,
    output reg         m_awvalid,
    input  wire        m_awready,
    output wire [31:0] m_wdata,
    output wire [3:0]  m_wstrb,
    output reg         m_wvalid,
    input  wire        m_wready,
    input  wire [1:0]  m_bresp,
    input  wire        m_bvalid,
    output wire        m_bready,
    output wire [11:0] m_araddr,
    output reg         m_arvalid,
    input  wire        m_arready,
    input  wire [31:0] m_rdata,
    input  wire [1:0]  m_rresp,
    input  wire        m_rvalid,
    output wire        m_rready
);

reg busy;   // this transfer's AXI4-Lite access was started

assign m_awaddr = paddr;
assign m_araddr = paddr;
assign m_wdata = pwdata;
assign m_wstrb = pstrb;
assign m_bready = 1'b1;
assign m_rready = 1'b1;

always @(posedge clk) begin
    if (rst) begin
        busy <= 1'b0;
        m_awvalid <= 1'b0; m_wvalid <= 1'b0; m_arvalid <= 1'b0;
        prdata <= 32'd0; pready <= 1'b0; pslverr <= 1'b0;
    end else begin
        if (m_awvalid && m_awready)
            m_awvalid <= 1'b0;
        if (m_wvalid && m_wready)
            m_wvalid <= 1'b0;
        if (m_arvalid && m_arready)
            m_arvalid <= 1'b0;
        if (psel && !penable && !busy) begin         // SETUP
            busy <= 1'b1;
            if (pwrite) begin
                m_awvalid <= 1'b1;
                m_wvalid <= 1'b1;
            end else begin
                m_arvalid <= 1'b1;
            end
        end
        if (m_bvalid || m_rvalid) begin
            pready <= 1'b1;
            pslverr <= m_bvalid ? m_bresp != 2'b00 : m_rresp != 2'b00;
            prdata <= m_rdata;
        end
        if (psel && penable && pready) begin         // the transfer ends
            busy <= 1'b0;
            pready <= 1'b0;
            pslverr <= 1'b0;
        end
    end
end

endmodule
