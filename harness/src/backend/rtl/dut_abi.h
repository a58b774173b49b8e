/* The DUT shell's binary interface: what a controller RTL verilated at run time (the
 * shared object tools built from a DUT profile, rtl/dut_build.h) exports to satasim.
 * Plain C so the shared object needs nothing of satasim but this header; the glue that
 * implements it around the verilated model is shell/dut_glue.cpp.
 *
 * One call of tick() is one rising edge of the DUT's clock: the shell's inputs are applied
 * with the clock low, the combinational logic settles and the outputs are sampled (the
 * values every handshake of this edge is decided on), then the clock rises. Signals are
 * the shell's standard ones (docs/rtl-controller.md); multi-bit data are little-endian
 * 32-bit words. */
#ifndef SATASIM_DUT_ABI_H
#define SATASIM_DUT_ABI_H

#include <stdint.h>

#define SATASIM_DUT_ABI_VERSION 2u /* 2: reg_addr_width */
#define SATASIM_DUT_MAX_PORTS 8
#define SATASIM_DUT_MAX_DW_WORDS 4 /* 128-bit AXI data */

struct satasim_dut_pins {
    /* ---- inputs (the shell drives them) ---- */
    uint8_t rst; /* power-on reset, synchronous, active high */
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
    uint8_t phy_rx_err[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_ready[SATASIM_DUT_MAX_PORTS], phy_gen[SATASIM_DUT_MAX_PORTS];
    uint8_t phy_dev_present[SATASIM_DUT_MAX_PORTS], phy_cominit[SATASIM_DUT_MAX_PORTS];

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
};

struct satasim_dut_api {
    uint32_t abi_version; /* SATASIM_DUT_ABI_VERSION */
    uint32_t ports, data_width, addr_width; /* as verilated (the profile's interface) */
    uint32_t reg_addr_width;                /* s_awaddr / s_araddr bits (interface.reg_addr_width) */
    /* A new instance; wave_file non-null: dump the DUT's signals there (VCD). */
    void *(*create)(const char *wave_file);
    void (*destroy)(void *dut);
    void (*tick)(void *dut, struct satasim_dut_pins *pins);
};

/* The one symbol the shared object exports. */
typedef const struct satasim_dut_api *(*satasim_dut_api_fn)(void);
#define SATASIM_DUT_API_SYMBOL "satasim_dut_api_v1"

#endif
