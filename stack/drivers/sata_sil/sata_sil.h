/* Silicon Image SiI3112 register map (BAR5, the platform's register window), as the satasim
 * model (model/sil3112) and Linux's sata_sil driver place them. */
#ifndef SATASIM_SATA_SIL_H
#define SATASIM_SATA_SIL_H

#include "ata_sff.h"

enum {
    SIL_N_PORTS = 2,
    SIL_SYSCFG = 0x48,
    SIL_MASK_IDE0_INT = 1u << 22, /* SYSCFG: channel n's interrupt masked at bit 22 + n */
    SIL_SIEN_N = 1u << 16,        /* SIEN: SError.N raises the SATA interrupt */
    SIL_DMA_SATA_IRQ = 1u << 4,   /* BMDMA2 */
    SIL_DMA_ACTIVE = 1u << 16,
    SIL_DMA_ERROR = 1u << 17,
    SIL_DMA_COMPLETE = 1u << 18,  /* the channel's interrupt is pending */
    SIL_PCI_CACHE_LINE = 16,      /* dwords: what a BIOS typically programs (64 bytes) */
};

struct sil_port_regs {
    uint32_t tf, ctl, bmdma, bmdma2, fifo_cfg, scr, sien;
};
extern const struct sil_port_regs sil_port[SIL_N_PORTS];

#endif
