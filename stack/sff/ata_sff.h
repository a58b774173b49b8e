/* The SFF/BMDMA layer: what an LLD of a taskfile controller builds on, in the image of
 * libata's libata-sff (ideas only). Compiled against the driver contract (libata.h) like a
 * driver; an LLD includes this header and inherits ata_sff_port_ops or ata_bmdma_port_ops.
 *
 * The host state machine (HSM) of one command, ATA/ATAPI-7 vol 2 clause 11 protocols seen
 * from the host (numbering as recalled, unconfirmed):
 *   IDLE   nothing issued
 *   FIRST  PIO data-out issued: waiting for DRQ to send the first block (no interrupt comes
 *          for it, so this step always runs from the polling task)
 *   DATA   a PIO DRQ block is due (data-in: at each interrupt; data-out: after each block)
 *   LAST   the command's end is due (non-data and DMA: their one interrupt; PIO: the
 *          interrupt after the last data-out block, or right after the last data-in block)
 *   ERR    a violation or a device error: complete the command with what was found
 * One step function (ata_sff_hsm_move) serves the interrupt handler and the polling task.
 * Polling is used when the controller needs it (ATA_SFF_FLAG_PIO_POLLING), for a command
 * issued with ATA_TFLAG_POLLING (interrupts off: nIEN set), and as recovery when the
 * command timer finds the device done without an interrupt (ata_sff_lost_interrupt).
 * The polling task is a platform timer (libata: delayed work); each step is non-sleeping,
 * as libata's is between its scheduling delays.
 *
 * Register window layout of one channel: the LLD fills ioaddr at create.
 */
#ifndef SATASIM_ATA_SFF_H
#define SATASIM_ATA_SFF_H

#include "satasim/libata.h"

/* Port flags of SFF controllers (ata_port.flags bits the core leaves free). */
enum {
    ATA_SFF_FLAG_PIO_POLLING = 1u << 24, /* PIO and non-data commands are always polled */
};

/* SFF-8038i bus-master registers (offsets from the channel's bus-master base). */
enum {
    ATA_DMA_CMD = 0, ATA_DMA_STATUS = 2, ATA_DMA_TABLE_OFS = 4,
    ATA_DMA_START = 1u << 0, ATA_DMA_WR = 1u << 3, /* WR: the controller writes memory */
    ATA_DMA_ACTIVE = 1u << 0, ATA_DMA_ERR = 1u << 1, ATA_DMA_INTR = 1u << 2,
    ATA_PRD_EOT = 1u << 31,
    ATA_PRD_MAX_BYTES = 0x10000, /* and no region crosses a 64 KiB boundary */
    ATA_SFF_PRD_ENTRIES = 2048,
    ATA_SFF_MAX_SEGS = ATA_SFF_PRD_ENTRIES / 2, /* each segment may split at a boundary */
    ATA_SFF_IDLE_IRQ_TRACED = 1000, /* idle interrupts traced one by one (ata_sff_idle_irq) */
};

/* Taskfile register offsets inside the command block, and device control bits. */
enum {
    ATA_REG_DATA = 0, ATA_REG_ERR = 1, ATA_REG_FEATURE = 1, ATA_REG_NSECT = 2, ATA_REG_LBAL = 3,
    ATA_REG_LBAM = 4, ATA_REG_LBAH = 5, ATA_REG_DEVICE = 6, ATA_REG_STATUS = 7, ATA_REG_CMD = 7,
    ATA_NIEN = 1u << 1, ATA_HOB = 1u << 7,
};

enum ata_hsm_state { HSM_ST_IDLE = 0, HSM_ST_FIRST, HSM_ST_DATA, HSM_ST_LAST, HSM_ST_ERR };

struct ata_sff_ioaddr {
    uint32_t cmd;   /* command block base */
    uint32_t ctl;   /* control block: alternate status / device control */
    uint32_t bmdma; /* bus-master base; 0 with no BMDMA */
    bool has_bmdma;
};

/* Per-port state of the layer (ap->private_data; the LLD's own is lld_priv). */
struct ata_sff_port {
    struct ata_sff_ioaddr io;
    enum ata_hsm_state hsm;
    uint8_t ctl;            /* device control as last written (nIEN) */
    bool polling;           /* the command in flight is stepped by the polling task */
    uint64_t poll_timer;    /* armed polling step, 0 = none */
    unsigned poll_busy;     /* polls in a row that found BSY */
    unsigned cur_sg;        /* PIO progress: segment, offset in it, bytes done */
    uint32_t sg_off, done;
    struct plat_dma_buf prd; /* the PRD table */
    unsigned n_prd;         /* entries qc_prep wrote for the command (0: none or too many) */
    unsigned idle_irqs;     /* interrupts with nothing to do (libata: idle_irq) */
    void *lld_priv;
};

static inline struct ata_sff_port *ata_sff(const struct ata_port *ap) { return ap->private_data; }

/* The base tables: PIO/non-data only, and with bus-master DMA. */
extern const struct ata_port_operations ata_sff_port_ops;
extern const struct ata_port_operations ata_bmdma_port_ops;

/* Register access of the channel. */
uint8_t ata_sff_check_status(struct ata_port *ap);  /* Status: acknowledges INTRQ */
uint8_t ata_sff_altstatus(struct ata_port *ap);      /* Alternate Status: does not */
void ata_sff_set_ctl(struct ata_port *ap, uint8_t ctl);
void ata_sff_tf_load(struct ata_port *ap, const struct ata_taskfile *tf);
void ata_sff_tf_read(struct ata_port *ap, struct ata_taskfile *tf);
uint8_t ata_bmdma_status(struct ata_port *ap);
void ata_bmdma_stop(struct ata_port *ap);
void ata_bmdma_irq_clear(struct ata_port *ap);

/* Freeze (nIEN, HSM idle, pending INTRQ cleared) and thaw: an LLD's own freeze/thaw end in
 * these. */
void ata_sff_freeze(struct ata_port *ap);
void ata_sff_thaw(struct ata_port *ap);

/* The interrupt path: one port's share of an interrupt (lock held). Returns true if the
 * port had something to do (handled). */
bool ata_sff_port_intr(struct ata_port *ap);
/* An interrupt the port's command had no use for: acknowledged at the device. */
bool ata_sff_idle_irq(struct ata_port *ap);
/* A whole-host interrupt handler over every port (the base tables' irq_handler). Handled
 * only if a port with an interrupt-driven command took it: idle ports acknowledged in the
 * second pass do not count (libata's __ata_sff_interrupt returns IRQ_NONE then, and a line
 * that keeps firing so is the kernel's "nobody cared"). */
bool ata_sff_interrupt(struct ata_host *h);
/* One step of the HSM with this status (lock held): see above. */
void ata_sff_hsm_move(struct ata_port *ap, struct ata_queued_cmd *qc, uint8_t status, bool polled);

/* Reset methods. ata_sff_softreset: SRST in Device Control, then the signature;
 * sata_sff_hardreset: COMRESET through SControl, then the signature from the taskfile. */
int ata_sff_softreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline);
int sata_sff_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline);
int ata_sff_check_ready(struct ata_link *link);
enum ata_dev_class ata_sff_dev_classify(struct ata_port *ap);

/* Port resources (the base tables' port_start / port_stop). */
int ata_sff_port_start(struct ata_port *ap);
void ata_sff_port_stop(struct ata_port *ap);

/* An LLD's create, per port: one command at a time (and EH's internal tag), no NCQ, the
 * controller's transfer modes, the PRD table's limits, polled PIO if cfg asks for it
 * (ATA_SFF_FLAG_PIO_POLLING); a port outside cfg's port mask
 * becomes a dummy, any other gets its channel's layout and resources (ata_sff_port_start).
 * 0, or -ENOMEM. */
int ata_sff_port_init(struct ata_port *ap, const struct ata_host_config *cfg, const struct ata_sff_ioaddr *io,
                      unsigned xfer_mask);

#endif
