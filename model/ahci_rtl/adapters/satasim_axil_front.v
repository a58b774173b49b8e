// The shell side of every register-bus adapter (docs/rtl-controller.md, adapters): an
// AXI4-Lite slave, 12-bit address (OFF_W bits: a wider register window), 32-bit data, that
// takes one access at a time and hands it to the adapter's protocol engine as a held request.
//
//   AW, W and AR are accepted independently (READY = no request of that kind waiting;
//   AXI4-Lite allows W before AW, IHI0022 B1.1 / A3.3.1); a write starts once both AW and W
//   are in, a read once AR is in, never two at once. With a write and a read both waiting
//   they alternate (neither can starve the other). B / R is raised only after the engine
//   finished (done), so a write's response always follows both its AW and W handshakes
//   (A3.3.1) and the next access of the same kind waits until that response is taken.
//
//   req_valid rises with req_write / req_addr / req_wdata / req_wstrb and holds them
//   unchanged until the engine pulses done (one cycle, with done_resp and done_rdata); the
//   engine must not pulse done without req_valid. req_addr is the slave's address: BASE
//   with the OFF_W-bit register offset in its low bits (ADDR_W >= OFF_W, BASE[OFF_W-1:0] = 0).
module satasim_axil_front #(
    parameter integer      OFF_W = 12,
    parameter integer      ADDR_W = 12,
    parameter [ADDR_W-1:0] BASE = {ADDR_W{1'b0}}
) (
    input  wire        clk,
    input  wire        rst,         // synchronous, active high
    input  wire [OFF_W-1:0] s_awaddr,
    input  wire        s_awvalid,
    output wire        s_awready,
    input  wire [31:0] s_wdata,
    input  wire [3:0]  s_wstrb,
    input  wire        s_wvalid,
    output wire        s_wready,
    output reg  [1:0]  s_bresp,
    output reg         s_bvalid,
    input  wire        s_bready,
    input  wire [OFF_W-1:0] s_araddr,
    input  wire        s_arvalid,
    output wire        s_arready,
    output reg  [31:0] s_rdata,
    output reg  [1:0]  s_rresp,
    output reg         s_rvalid,
    input  wire        s_rready,
    output reg         req_valid,
    output reg         req_write,
    output wire [ADDR_W-1:0] req_addr,
    output reg  [31:0] req_wdata,
    output reg  [3:0]  req_wstrb,
    input  wire        done,
    input  wire [1:0]  done_resp,
    input  wire [31:0] done_rdata
);

reg        aw_have, w_have, ar_have, last_write;
reg [OFF_W-1:0] req_off;
reg [OFF_W-1:0] aw_addr, ar_addr;
reg [31:0] w_data;
reg [3:0]  w_strb;

assign s_awready = !aw_have;
assign s_wready = !w_have;
assign s_arready = !ar_have;

wire [ADDR_W-1:0] off_ext;
assign off_ext[OFF_W-1:0] = req_off;
generate if (ADDR_W > OFF_W) begin : g_hi
    assign off_ext[ADDR_W-1:OFF_W] = {(ADDR_W-OFF_W){1'b0}};
end endgenerate
assign req_addr = BASE | off_ext;

wire can_w = aw_have && w_have && !s_bvalid;
wire can_r = ar_have && !s_rvalid;
wire start = !req_valid && (can_w || can_r);
wire start_w = can_w && (!can_r || !last_write);

always @(posedge clk) begin
    if (rst) begin
        aw_have <= 1'b0; w_have <= 1'b0; ar_have <= 1'b0; last_write <= 1'b0;
        aw_addr <= {OFF_W{1'b0}}; ar_addr <= {OFF_W{1'b0}}; w_data <= 32'd0; w_strb <= 4'd0;
        s_bresp <= 2'b00; s_bvalid <= 1'b0; s_rdata <= 32'd0; s_rresp <= 2'b00; s_rvalid <= 1'b0;
        req_valid <= 1'b0; req_write <= 1'b0; req_off <= {OFF_W{1'b0}}; req_wdata <= 32'd0;
        req_wstrb <= 4'd0;
    end else begin
        if (s_awvalid && s_awready) begin
            aw_have <= 1'b1;
            aw_addr <= s_awaddr;
        end
        if (s_wvalid && s_wready) begin
            w_have <= 1'b1;
            w_data <= s_wdata;
            w_strb <= s_wstrb;
        end
        if (s_arvalid && s_arready) begin
            ar_have <= 1'b1;
            ar_addr <= s_araddr;
        end
        if (s_bvalid && s_bready)
            s_bvalid <= 1'b0;
        if (s_rvalid && s_rready)
            s_rvalid <= 1'b0;
        // start needs aw_have / w_have / ar_have set, so it never meets their handshake
        if (start) begin
            req_valid <= 1'b1;
            req_write <= start_w;
            req_off <= start_w ? aw_addr : ar_addr;
            req_wdata <= w_data;
            req_wstrb <= start_w ? w_strb : 4'd0;
            last_write <= start_w;
            if (start_w) begin
                aw_have <= 1'b0;
                w_have <= 1'b0;
            end else begin
                ar_have <= 1'b0;
            end
        end
        if (req_valid && done) begin
            req_valid <= 1'b0;
            if (req_write) begin
                s_bvalid <= 1'b1;
                s_bresp <= done_resp;
            end else begin
                s_rvalid <= 1'b1;
                s_rresp <= done_resp;
                s_rdata <= done_rdata;
            end
        end
    end
end

endmodule
