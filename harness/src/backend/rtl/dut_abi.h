/* The DUT shell's binary interface: what a controller RTL verilated at run time (the
 * shared object tools built from a DUT profile, rtl/dut_build.h) exports to satasim.
 * Plain C so the shared object needs nothing of satasim but this header; the glue that
 * implements it around the verilated model is shell/dut_glue.cpp.
 *
 * One call of tick() is one step of the DUT's clocks: the shell's inputs are applied with
 * every clock low, the combinational logic settles and the outputs are sampled (the
 * values every handshake of this step's edges is decided on), then the clocks named in
 * clk_edges rise together: clk (SATASIM_DUT_EDGE_CORE) and, for a DUT built with PHY
 * clocks (phy_clocks), phy_tx_clk and every port's phy_rx_clk. A DUT without PHY clocks
 * runs its PHY interface on clk and ignores the PHY bits. Likewise the register slave
 * (s_*) moves on reg_clk for a DUT built with reg_clock, the DMA master (m_*) on dma_clk
 * for one built with dma_clock, and both on clk otherwise. Signals are the shell's standard
 * ones (docs/rtl-controller.md); multi-bit data are little-endian 32-bit words; a 16-bit
 * PHY interface (phy_width 16) uses the low 16 bits of phy_*_data and 2 bits of phy_*_isk.
 *
 * Version 2: clk_edges, phy_width and phy_clocks (16-bit PHY words, the PHY's parallel
 * clocks). Version 3: reg_addr_width (a register window wider than 4 KiB: on-chip command
 * areas). Version 4: the optional PHY pin groups (phy_pins: electrical idle, COMWAKE detect,
 * rate request / acknowledge, PHY reset / reset done, the PHY reference clock) and the
 * vendor sideband vector pair
 * (phy_sideband_width); a top without a group leaves its fields alone; phy_rx_edges (each
 * port's receive clock its own: per-port offsets, SSC). Version 5: reg_clock, dma_clock,
 * reg_rst, dma_rst and their clock-edge bits (the bus side's optional register and DMA
 * clocks, each with its own reset). Version 6: irq_port, irq_outputs. Version 7: the
 * receive symbol error flags per byte (phy_rx_codeerr, phy_rx_disperr) in place of one
 * flag per port, and rx_error_inputs (which of the receive error inputs the top has). Version 8:
 * time_ps, the simulated time of the step's edges (the waveform's time axis). The entry point
 * keeps its name, so an older object is refused by its version. */
#ifndef SATASIM_DUT_ABI_H
#define SATASIM_DUT_ABI_H

#include <stdint.h>

#define SATASIM_DUT_ABI_VERSION 8u /* 2: clk_edges, phy_width, phy_clocks; 3: reg_addr_width; 4: phy_pins;
                                     5: reg_clock, dma_clock; 6: irq_port, irq_outputs;
                                     7: phy_rx_codeerr, phy_rx_disperr, rx_error_inputs; 8: time_ps */
#define SATASIM_DUT_MAX_PORTS 8
#define SATASIM_DUT_RESET_CYCLES 8u /* cycles each reset is held at power-on, of its own clock */
#define SATASIM_DUT_MAX_DW_WORDS 4 /* 128-bit AXI data */

/* clk_edges bits: the clocks that rise at this tick (model/link/phy_lane.h, kEdge*) */
#define SATASIM_DUT_EDGE_CORE 1u
#define SATASIM_DUT_EDGE_PHY_TX 2u
#define SATASIM_DUT_EDGE_PHY_RX 4u
#define SATASIM_DUT_EDGE_PHY_REF 8u /* phy_refclk (a top with the refclk pin) */
#define SATASIM_DUT_EDGE_REG 16u    /* reg_clk (version 5, a DUT built with reg_clock) */
#define SATASIM_DUT_EDGE_DMA 32u    /* dma_clk (version 5, a DUT built with dma_clock) */

/* phy_pins bits: the optional PHY pin groups the top has (the profile's interface.phy_pins) */
#define SATASIM_DUT_PHY_ELECIDLE 1u    /* phy_tx_elecidle out, phy_rx_elecidle in */
#define SATASIM_DUT_PHY_COMWAKE_DET 2u /* phy_comwake_det in */
#define SATASIM_DUT_PHY_RATE 4u        /* phy_rate out (2 bits), phy_rate_ack in */
#define SATASIM_DUT_PHY_RESET 8u       /* phy_reset out, phy_reset_done in */
#define SATASIM_DUT_PHY_REFCLK 16u     /* phy_refclk in (the PHY's reference clock) */
#define SATASIM_DUT_MAX_SIDEBAND 32    /* phy_sb_ctrl / phy_sb_status bits per port */

/* The interrupt outputs a top has (satasim_dut_api.irq_outputs), found by the glue. */
#define SATASIM_DUT_IRQ_LEVEL 1u    /* irq: one level line for the whole controller */
#define SATASIM_DUT_IRQ_PER_PORT 2u /* irq_port: one level line per port, bit n = port n */

/* The receive error inputs a top has (satasim_dut_api.rx_error_inputs), found by the glue:
 * a PHY's 8b/10b decoder flags each byte it could not decode (code error: no such 10-bit
 * symbol) or that broke the running disparity (disparity error). */
#define SATASIM_DUT_RX_ERR_BYTE 1u /* phy_rx_codeerr and phy_rx_disperr, a flag per byte */
#define SATASIM_DUT_RX_ERR_WORD 2u /* phy_rx_err: one flag per port, any byte of the word flagged */

struct satasim_dut_pins {
    /* ---- inputs (the shell drives them) ---- */
    uint8_t clk_edges; /* SATASIM_DUT_EDGE_* */
    uint8_t phy_rx_edges; /* with SATASIM_DUT_EDGE_PHY_RX: bit n, port n's phy_rx_clk rises */
    uint8_t rst; /* power-on reset, synchronous to clk, active high */
    uint8_t reg_rst, dma_rst; /* version 5: the same, synchronous to reg_clk / dma_clk */
    /* AXI4-Lite register slave: address/write/read channels from the shell's master
     * (addresses below 2^reg_addr_width) */
    uint32_t s_awaddr, s_wdata, s_araddr;
    uint8_t s_awvalid, s_wstrb, s_wvalid, s_bready, s_arvalid, s_rready;
    /* AXI4 DMA master: the shell's memory slave answers */
    uint8_t m_awready, m_wready, m_bresp, m_bvalid, m_arready, m_rresp, m_rlast, m_rvalid;
    uint32_t m_rdata[SATASIM_DUT_MAX_DW_WORDS];
    /* per-port PHY, receive side and status */
    uint32_t phy_rx_data[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_rx_isk[SATASIM_DUT_MAX_PORTS]; /* K flag per byte, bit n = byte n */
    /* the receive word's symbol errors, bit n = byte n (version 7) */
    uint8_t phy_rx_codeerr[SATASIM_DUT_MAX_PORTS], phy_rx_disperr[SATASIM_DUT_MAX_PORTS];
    /* phy_rx_*: at phy_rx_clk for a DUT with PHY clocks, else at clk */
    uint8_t phy_ready[SATASIM_DUT_MAX_PORTS], phy_gen[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_dev_present[SATASIM_DUT_MAX_PORTS], phy_cominit[SATASIM_DUT_MAX_PORTS];
    /* optional groups (phy_pins, phy_sideband_width), all at clk */
    uint8_t phy_rx_elecidle[SATASIM_DUT_MAX_PORTS], phy_comwake_det[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_rate_ack[SATASIM_DUT_MAX_PORTS], phy_reset_done[SATASIM_DUT_MAX_PORTS];
    uint32_t phy_sb_status[SATASIM_DUT_MAX_PORTS];
    /* version 8, set only when the DUT dumps a waveform (the VCD's time axis): the simulated
     * time of this step's rising edges in picoseconds (the trace's t_ns x 1000), and of the
     * state before them (inputs applied, clocks low): halfway since the last step, or half a
     * clk period before the edges when the clock starts again after a stop. Increasing from
     * step to step but for steps less than a picosecond apart. */
    uint64_t time_ps, time_low_ps;

    /* ---- outputs (sampled before the edge) ---- */
    uint8_t s_awready, s_wready, s_bresp, s_bvalid, s_arready, s_rresp, s_rvalid, irq;
    uint32_t s_rdata;
    uint64_t m_awaddr, m_araddr;
    uint8_t m_awlen, m_awsize, m_awburst, m_awvalid, m_wlast, m_wvalid, m_bready;
    uint8_t m_arlen, m_arsize, m_arburst, m_arvalid, m_rready;
    uint16_t m_wstrb;
    uint32_t m_wdata[SATASIM_DUT_MAX_DW_WORDS];
    uint32_t phy_tx_data[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_tx_isk[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_comreset[SATASIM_DUT_MAX_PORTS], phy_comwake[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_offline[SATASIM_DUT_MAX_PORTS], phy_spd_limit[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_tx_elecidle[SATASIM_DUT_MAX_PORTS], phy_rate[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_reset[SATASIM_DUT_MAX_PORTS];
    uint32_t phy_sb_ctrl[SATASIM_DUT_MAX_PORTS];
    uint8_t irq_port; /* version 6: bit n, port n's own interrupt line (a top with irq_port) */
};

struct satasim_dut_api {
    uint32_t abi_version; /* SATASIM_DUT_ABI_VERSION */
    uint32_t ports, data_width, addr_width; /* as verilated (the profile's interface) */
    uint32_t phy_width, phy_clocks;         /* 16 or 32; 1: phy_tx_clk / phy_rx_clk exist */
    uint32_t reg_addr_width;                /* s_awaddr / s_araddr bits (interface.reg_addr_width) */
    uint32_t phy_pins;                      /* SATASIM_DUT_PHY_* groups the top has */
    uint32_t phy_sideband_width;            /* phy_sb_ctrl / phy_sb_status bits per port, 0: none */
    uint32_t reg_clock, dma_clock;          /* version 5: 1: reg_clk / reg_rst, dma_clk / dma_rst exist */
    uint32_t irq_outputs;                   /* version 6: SATASIM_DUT_IRQ_* outputs the top has */
    uint32_t rx_error_inputs;               /* version 7: SATASIM_DUT_RX_ERR_* inputs the top has */
    /* A new instance; wave_file non-null: dump the DUT's signals there (VCD). */
    void *(*create)(const char *wave_file);
    void (*destroy)(void *dut);
    void (*tick)(void *dut, struct satasim_dut_pins *pins);
};

/* The one symbol the shared object exports. */
typedef const struct satasim_dut_api *(*satasim_dut_api_fn)(void);
#define SATASIM_DUT_API_SYMBOL "satasim_dut_api_v1"

#endif
