// The optional PHY control pins of one port (ahci_hba.v, PHY_CTL = 1): transmit electrical
// idle, COMWAKE detect, the rate request / acknowledge and the PHY reset, between the
// port's PHY requests (ahci_port.v: COMRESET, offline) and status (PhyRdy, Gen) and a
// transceiver's control pins (docs/rtl-controller.md, "The PHY pins"). All in clk.
//
//   PHY reset   o_phy_reset is held while rst and one cycle after; o_hold (to the port:
//               its power-on COMRESET waits) until i_phy_reset_done has been seen high.
//               COMRESET reaches the pin only once the PHY is out of reset.
//   elec. idle  the transmitter stays in electrical idle (o_tx_elecidle) from reset, during
//               COMRESET and offline, and after the link is lost, until the device's
//               COMWAKE is detected (i_comwake_det; PhyRdy at the latest): the host then
//               sends D10.2 / ALIGN for the speed negotiation (SATA 3.x 8.4 OOB, numbering
//               unconfirmed). OOB requests always find the transmitter idle.
//   rate        o_rate starts at ISS (the host's fastest); at PhyRdy with another Gen the
//               port asks that Gen and waits for i_rate_ack. The port sees PhyRdy
//               (o_ready) only while the transceiver runs at the link's negotiated Gen
//               with no change pending, so no frame goes out at a wrong rate.
//   status      o_status {rate_pending, reset_done, rate, tx_elecidle, rx_elecidle} for
//               the port's vendor-specific register (PxVS + 8h).
//
// Planted defects (docs/rtl-controller.md, "The PHY pins"; each off unless its define is
// given, as the profile's `defines` do; tools/rtl_phy_plants.sh builds each and checks that
// the shell's PHY pin checker reports it):
//   SATASIM_PLANT_PHY_OOB_NOT_IDLE       COMRESET leaves the transmitter on   -> oob_not_idle
//   SATASIM_PLANT_PHY_TX_IDLE_STUCK      the transmitter never leaves idle    -> idle_while_ready
//   SATASIM_PLANT_PHY_COMRESET_IN_RESET  COMRESET does not wait for the PHY's
//                                        reset done                          -> comreset_in_reset
//   SATASIM_PLANT_PHY_RATE_IGNORED       the negotiated Gen is never asked, the
//                                        port gets PhyRdy at once            -> rate_mismatch
//   SATASIM_PLANT_PHY_RATE_FOLLOWS_GEN   the rate follows the PHY's Gen, even
//                                        0 when the link is down             -> rate_invalid
//   SATASIM_PLANT_PHY_RATE_NO_WAIT       starts at Gen1 and asks ISS a cycle
//                                        later, before the first acknowledge -> rate_change_pending
// and one stimulus that breaks no rule: SATASIM_PHY_RESET_AT_READY resets the PHY for 16
// cycles, 2^19 clocked cycles after the port's second PhyRdy (the one after the driver's
// first COMRESET: in the middle of a workload), so the link goes down under the stack and
// its EH must bring it back with a COMRESET.
module ahci_phy_ctl #(
    parameter [1:0] ISS = 2'd3
) (
    input  wire       clk,
    input  wire       rst,             // power-on reset (not GHC.HR: the PHY keeps running)
    // port side
    input  wire       i_comreset,      // the port's COMRESET request
    input  wire       i_offline,       // the port's PHY offline request
    output wire       o_comreset,      // COMRESET to the pin
    output wire       o_hold,          // the PHY is in reset: the port's spin-up waits
    output wire       o_ready,         // PhyRdy as the port sees it
    output wire [5:0] o_status,
    // PHY pins
    input  wire       i_phy_ready,
    input  wire [1:0] i_phy_gen,
    input  wire       i_cominit,
    input  wire       i_comwake_det,
    input  wire       i_rx_elecidle,
    output wire       o_tx_elecidle,
    output reg  [1:0] o_rate,
    input  wire       i_rate_ack,
    output reg        o_phy_reset,
    input  wire       i_phy_reset_done
);

reg done;      // the PHY's reset is done (i_phy_reset_done seen high after o_phy_reset)
reg tx_on;     // the transmitter is out of electrical idle
reg pending;   // a rate change waits for its acknowledge
reg ready_q;

`ifdef SATASIM_PLANT_PHY_COMRESET_IN_RESET
assign o_hold = 1'b0;
assign o_comreset = i_comreset;
`else
assign o_hold = !done;
assign o_comreset = i_comreset && done;
`endif
`ifdef SATASIM_PLANT_PHY_OOB_NOT_IDLE
assign o_tx_elecidle = !tx_on || i_offline || !done;
`else
assign o_tx_elecidle = !tx_on || i_comreset || i_offline || !done;
`endif
`ifdef SATASIM_PLANT_PHY_RATE_IGNORED
assign o_ready = i_phy_ready;
`else
assign o_ready = i_phy_ready && !pending && o_rate == i_phy_gen;
`endif
assign o_status = {pending, done, o_rate, o_tx_elecidle, i_rx_elecidle};

`ifdef SATASIM_PLANT_PHY_RATE_NO_WAIT
reg [1:0] init_q; // cycles since reset: the second asks ISS
`endif
`ifdef SATASIM_PHY_RESET_AT_READY
reg [1:0]  rdy_seen;  // rises of o_ready seen (up to 2)
reg        oready_q;
reg [19:0] rst_at;    // cycles since the second
reg        stim_done;
`endif

always @(posedge clk) begin
    if (rst) begin
        o_phy_reset <= 1'b1;
        done <= 1'b0;
        tx_on <= 1'b0;
`ifdef SATASIM_PLANT_PHY_RATE_NO_WAIT
        o_rate <= 2'd1;
        init_q <= 2'd0;
`else
        o_rate <= ISS;
`endif
        pending <= 1'b1; // the reset value is a request the PHY acknowledges
        ready_q <= 1'b0;
`ifdef SATASIM_PHY_RESET_AT_READY
        rdy_seen <= 2'd0;
        oready_q <= 1'b0;
        rst_at <= 20'd0;
        stim_done <= 1'b0;
`endif
    end else begin
        o_phy_reset <= 1'b0;
        if (!o_phy_reset && i_phy_reset_done)
            done <= 1'b1;
        ready_q <= i_phy_ready;
        if (i_comreset || i_offline || i_cominit || (ready_q && !i_phy_ready))
            tx_on <= 1'b0;
`ifndef SATASIM_PLANT_PHY_TX_IDLE_STUCK
        else if (i_comwake_det || i_phy_ready)
            tx_on <= 1'b1;
`endif
`ifdef SATASIM_PLANT_PHY_RATE_FOLLOWS_GEN
        if (pending) begin
            if (i_rate_ack)
                pending <= 1'b0;
        end else if (o_rate != i_phy_gen) begin
            o_rate <= i_phy_gen;
            pending <= 1'b1;
        end
`else
        if (pending) begin
            if (i_rate_ack)
                pending <= 1'b0;
        end else if (i_phy_ready && i_phy_gen != 2'd0 && o_rate != i_phy_gen) begin
`ifndef SATASIM_PLANT_PHY_RATE_IGNORED
            o_rate <= i_phy_gen;
            pending <= 1'b1;
`endif
        end
`endif
`ifdef SATASIM_PLANT_PHY_RATE_NO_WAIT
        if (init_q != 2'd3)
            init_q <= init_q + 2'd1;
        if (init_q == 2'd1)
            o_rate <= ISS; // the Gen1 request not yet acknowledged
`endif
`ifdef SATASIM_PHY_RESET_AT_READY
        oready_q <= o_ready;
        if (o_ready && !oready_q && rdy_seen != 2'd2)
            rdy_seen <= rdy_seen + 2'd1;
        if (rdy_seen == 2'd2 && !stim_done) begin
            rst_at <= rst_at + 20'd1;
            if (rst_at >= 20'd524288) begin
                o_phy_reset <= 1'b1;
                done <= 1'b0; // wait for the reset's done again
            end
            if (rst_at == 20'd524288 + 20'd15)
                stim_done <= 1'b1;
        end
`endif
    end
end

endmodule
