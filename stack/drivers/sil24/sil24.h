/* Silicon Image SiI3124 register map and Port Request Block layout (docs/hardware.md 6).
 *
 * Register window: the platform gives the driver one window. The satasim SiI3124 model maps
 * BAR0 (global registers) at offset 0 and BAR2 (8 KiB per port) at SIL24_BAR2_OFFSET. */
#ifndef SATASIM_SIL24_H
#define SATASIM_SIL24_H

#include "satasim/libata.h"

enum {
    SIL24_N_PORTS = 4,
    SIL24_N_SLOTS = 31,
    SIL24_BAR2_OFFSET = 0x2000,
    SIL24_PORT_WINDOW = 0x2000,
    SIL24_MAX_SGE = 126,               /* PRB + 126 SGEs = one 2 KiB block per slot */
    SIL24_SGE_MAX_BYTES = 4u << 20,    /* our split size; the SGE count field is 32 bits */
    SIL24_PRB_SZ = 0x20,
    SIL24_SGE_SZ = 16,
    SIL24_CMD_BLOCK_SZ = SIL24_PRB_SZ + SIL24_MAX_SGE * SIL24_SGE_SZ,
    SIL24_PORT_PRIV_DMA_SZ = SIL24_N_SLOTS * SIL24_CMD_BLOCK_SZ,
};
#define SIL24_PORT_BASE(n) (SIL24_BAR2_OFFSET + SIL24_PORT_WINDOW * (unsigned)(n))

/* BAR0 */
enum {
    SIL24_HOST_SLOT_STAT = 0x00,
    SIL24_HOST_CTRL = 0x40,
    SIL24_HOST_IRQ_STAT = 0x44,
    SIL24_HOST_FLASH_CMD = 0x70,
};
#define SIL24_HCTRL_TRDY (1u << 17)
#define SIL24_HCTRL_STOP (1u << 18)
#define SIL24_HCTRL_DEVSEL (1u << 19)
#define SIL24_HCTRL_GEN2 (1u << 24)
#define SIL24_HCTRL_GLOBAL_RST (1u << 31)

/* BAR2, per port */
enum {
    SIL24_PORT_LRAM = 0x0000,
    SIL24_PORT_LRAM_SLOT_SZ = 0x80,
    SIL24_PORT_CTRL_STAT = 0x1000,
    SIL24_PORT_CTRL_CLR = 0x1004,
    SIL24_PORT_IRQ_STAT = 0x1008,
    SIL24_PORT_IRQ_ENABLE_SET = 0x1010,
    SIL24_PORT_IRQ_ENABLE_CLR = 0x1014,
    SIL24_PORT_CMD_ERR = 0x1024,
    SIL24_PORT_DECODE_ERR_CNT = 0x1040,
    SIL24_PORT_CRC_ERR_CNT = 0x1044,
    SIL24_PORT_HSHK_ERR_CNT = 0x1048,
    SIL24_PORT_PHY_CFG = 0x1050,
    SIL24_PORT_SLOT_STAT = 0x1800,
    SIL24_PORT_CMD_ACTIVATE = 0x1C00,
    SIL24_PORT_CONTEXT = 0x1E04,
    SIL24_PORT_PMP = 0x0F80, /* per PM port: status, then QActive; 8 bytes each */
    SIL24_PORT_PMP_SZ = 0x08,
    SIL24_PORT_SCONTROL = 0x1F00,
    SIL24_PORT_SSTATUS = 0x1F04,
    SIL24_PORT_SERROR = 0x1F08,
    SIL24_PORT_SACTIVE = 0x1F0C,
};

/* PORT_CTRL_STAT */
#define SIL24_CS_PORT_RST (1u << 0)
#define SIL24_CS_DEV_RST (1u << 1)
#define SIL24_CS_INIT (1u << 2)
#define SIL24_CS_IRQ_WOC (1u << 3)
#define SIL24_CS_PMP_RESUME (1u << 6)
#define SIL24_CS_32BIT_ACTV (1u << 10)
#define SIL24_CS_PMP_EN (1u << 13)
#define SIL24_CS_RDY (1u << 31)

/* PORT_IRQ_STAT / ENABLE (raw copy at +16) */
#define SIL24_IRQ_COMPLETE (1u << 0)
#define SIL24_IRQ_ERROR (1u << 1)
#define SIL24_IRQ_PORTRDY_CHG (1u << 2)
#define SIL24_IRQ_PHYRDY_CHG (1u << 4)
#define SIL24_IRQ_UNK_FIS (1u << 6)
#define SIL24_IRQ_DEV_XCHG (1u << 7)
#define SIL24_IRQ_SDB_NOTIFY (1u << 11)
#define SIL24_IRQ_RAW_SHIFT 16
#define SIL24_DEF_PORT_IRQ                                                                      \
    (SIL24_IRQ_COMPLETE | SIL24_IRQ_ERROR | SIL24_IRQ_PHYRDY_CHG | SIL24_IRQ_DEV_XCHG |         \
     SIL24_IRQ_UNK_FIS | SIL24_IRQ_SDB_NOTIFY)

/* PORT_CONTEXT: the slot and PM port of the command the port stopped on */
#define SIL24_CTX_PMP_SHIFT 5
#define SIL24_CTX_PMP_MASK 0xfu

/* PORT_SLOT_STAT */
#define SIL24_SLOT_ATTN (1u << 31)
#define SIL24_SLOT_MASK 0x7fffffffu

/* PRB */
enum { SIL24_PRB_CTRL = 0x00, SIL24_PRB_PROT = 0x02, SIL24_PRB_XFER = 0x04, SIL24_PRB_FIS = 0x08 };
#define SIL24_PRB_CTRL_PROTOCOL (1u << 0)
#define SIL24_PRB_CTRL_NIEN (1u << 6)
#define SIL24_PRB_CTRL_SRST (1u << 7)
#define SIL24_PRB_CTRL_PACKET_READ (1u << 4)
#define SIL24_PRB_CTRL_PACKET_WRITE (1u << 5)
#define SIL24_PRB_PROT_NCQ (1u << 2)
#define SIL24_PRB_PROT_READ (1u << 3)
#define SIL24_PRB_PROT_WRITE (1u << 4)
#define SIL24_SGE_TRM (1u << 31)
#define SIL24_SGE_LNK (1u << 30)

/* Fill a command block (PRB + flat SGE array, TRM on the last entry, one empty TRM entry
 * for non-data commands). Returns the SGE count or -EINVAL (see ata_sg_split). */
int sil24_fill_prb(uint8_t *blk, uint16_t ctrl, uint16_t prot, const uint8_t fis[20],
                   const struct ata_sg *sg, unsigned n_sg, uint32_t nbytes);
/* An ATAPI command block: the CDB after the PRB, the SGEs after it. */
int sil24_fill_packet_prb(uint8_t *blk, const struct ata_taskfile *tf, const uint8_t fis[20], const uint8_t cdb[16],
                          const struct ata_sg *sg, unsigned n_sg, uint32_t nbytes);
/* PRB control/protocol words for a taskfile (ATA data commands use the protocol override). */
void sil24_prb_flags(const struct ata_taskfile *tf, uint32_t nbytes, uint16_t *ctrl, uint16_t *prot);
/* err_mask/action for a PORT_CMD_ERR code; returns its description or NULL if unknown. */
const char *sil24_cerr_decode(uint32_t cerr, unsigned *err_mask, unsigned *action);

#endif
