/* The SFF/BMDMA layer (ata_sff.h): taskfile access, the HSM shared by the interrupt handler
 * and the polling task, bus-master DMA, the reset methods and the base tables. */
#include <stdlib.h>
#include <string.h>

#include "ata_sff.h"

enum {
    ATA_SFF_POLL_FIRST_MS = 2,  /* libata: a 2 ms sleep before the task requeues itself */
    ATA_SFF_POLL_MS = 16,       /* libata's ATA_SHORT_PAUSE between polls of a busy device */
};

/* ---- register access ---- */

static uint8_t rd8(struct ata_port *ap, uint32_t off) { return ap->host->pops->mmio_read8(ap->host->plat, off); }
static void wr8(struct ata_port *ap, uint32_t off, uint8_t v) { ap->host->pops->mmio_write8(ap->host->plat, off, v); }
static uint32_t cmd_reg(struct ata_port *ap, unsigned r) { return ata_sff(ap)->io.cmd + r; }

uint8_t ata_sff_check_status(struct ata_port *ap) { return rd8(ap, cmd_reg(ap, ATA_REG_STATUS)); }
uint8_t ata_sff_altstatus(struct ata_port *ap) { return rd8(ap, ata_sff(ap)->io.ctl); }

void ata_sff_set_ctl(struct ata_port *ap, uint8_t ctl)
{
    ata_sff(ap)->ctl = ctl;
    wr8(ap, ata_sff(ap)->io.ctl, ctl);
}

void ata_sff_tf_load(struct ata_port *ap, const struct ata_taskfile *tf)
{
    if (tf->flags & ATA_TFLAG_LBA48) { /* the previous content first: the registers are FIFOs */
        wr8(ap, cmd_reg(ap, ATA_REG_FEATURE), tf->hob_feature);
        wr8(ap, cmd_reg(ap, ATA_REG_NSECT), tf->hob_nsect);
        wr8(ap, cmd_reg(ap, ATA_REG_LBAL), tf->hob_lbal);
        wr8(ap, cmd_reg(ap, ATA_REG_LBAM), tf->hob_lbam);
        wr8(ap, cmd_reg(ap, ATA_REG_LBAH), tf->hob_lbah);
    }
    wr8(ap, cmd_reg(ap, ATA_REG_FEATURE), tf->feature);
    wr8(ap, cmd_reg(ap, ATA_REG_NSECT), tf->nsect);
    wr8(ap, cmd_reg(ap, ATA_REG_LBAL), tf->lbal);
    wr8(ap, cmd_reg(ap, ATA_REG_LBAM), tf->lbam);
    wr8(ap, cmd_reg(ap, ATA_REG_LBAH), tf->lbah);
    wr8(ap, cmd_reg(ap, ATA_REG_DEVICE), tf->device);
}

/* Status first (it acknowledges the interrupt), then the rest; HOB for the upper bytes. */
void ata_sff_tf_read(struct ata_port *ap, struct ata_taskfile *tf)
{
    struct ata_sff_port *sp = ata_sff(ap);

    tf->command = ata_sff_check_status(ap);
    tf->feature = rd8(ap, cmd_reg(ap, ATA_REG_ERR));
    tf->nsect = rd8(ap, cmd_reg(ap, ATA_REG_NSECT));
    tf->lbal = rd8(ap, cmd_reg(ap, ATA_REG_LBAL));
    tf->lbam = rd8(ap, cmd_reg(ap, ATA_REG_LBAM));
    tf->lbah = rd8(ap, cmd_reg(ap, ATA_REG_LBAH));
    tf->device = rd8(ap, cmd_reg(ap, ATA_REG_DEVICE));
    if (tf->flags & ATA_TFLAG_LBA48) {
        wr8(ap, sp->io.ctl, (uint8_t)(sp->ctl | ATA_HOB));
        tf->hob_feature = rd8(ap, cmd_reg(ap, ATA_REG_ERR));
        tf->hob_nsect = rd8(ap, cmd_reg(ap, ATA_REG_NSECT));
        tf->hob_lbal = rd8(ap, cmd_reg(ap, ATA_REG_LBAL));
        tf->hob_lbam = rd8(ap, cmd_reg(ap, ATA_REG_LBAM));
        tf->hob_lbah = rd8(ap, cmd_reg(ap, ATA_REG_LBAH));
        wr8(ap, sp->io.ctl, sp->ctl);
    }
}

uint8_t ata_bmdma_status(struct ata_port *ap) { return rd8(ap, ata_sff(ap)->io.bmdma + ATA_DMA_STATUS); }

void ata_bmdma_stop(struct ata_port *ap)
{
    uint32_t c = ata_sff(ap)->io.bmdma + ATA_DMA_CMD;

    wr8(ap, c, (uint8_t)(rd8(ap, c) & ~ATA_DMA_START));
    ata_sff_altstatus(ap); /* one PIO cycle: the bus master has seen Stop */
}

void ata_bmdma_irq_clear(struct ata_port *ap)
{
    if (!ata_sff(ap)->io.has_bmdma)
        return;
    wr8(ap, ata_sff(ap)->io.bmdma + ATA_DMA_STATUS, ata_bmdma_status(ap)); /* write 1 to clear */
}

/* ---- PIO data blocks ---- */

static bool is_multi(const struct ata_taskfile *tf)
{
    switch (tf->command) {
    case ATA_CMD_READ_MULTI: case ATA_CMD_READ_MULTI_EXT:
    case ATA_CMD_WRITE_MULTI: case ATA_CMD_WRITE_MULTI_EXT:
        return true;
    default:
        return false;
    }
}

/* One DRQ block through the Data register: a sector, or multi_count sectors for READ/WRITE
 * MULTIPLE (the last block may be shorter). The HSM moves to LAST after the last one. */
/* Move up to bytes through the Data register into or out of the command's buffer, from where
 * the last transfer stopped; an odd count moves its last byte in a whole word. Returns the
 * bytes moved (fewer than asked when the buffer ends first). */
static uint32_t pio_xfer(struct ata_port *ap, struct ata_queued_cmd *qc, uint32_t bytes)
{
    struct ata_sff_port *sp = ata_sff(ap);
    struct ata_host *h = ap->host;
    const bool write = qc->tf.flags & ATA_TFLAG_WRITE;
    uint32_t moved = 0;

    while (bytes && sp->cur_sg < qc->n_sg) {
        const struct ata_sg *sg = &qc->sg[sp->cur_sg];
        uint32_t n = sg->len - sp->sg_off;
        uint8_t *p;

        if (n > bytes)
            n = bytes;
        p = h->pops->dma_cpu_addr(h->plat, sg->bus + sp->sg_off, n);
        for (uint32_t i = 0; i < n; i += 2) {
            if (write) {
                uint16_t w = p ? (uint16_t)(p[i] | (i + 1 < n ? p[i + 1] << 8 : 0)) : 0;

                h->pops->mmio_write16(h->plat, cmd_reg(ap, ATA_REG_DATA), w);
            } else {
                uint16_t w = h->pops->mmio_read16(h->plat, cmd_reg(ap, ATA_REG_DATA));

                if (p) {
                    p[i] = (uint8_t)w;
                    if (i + 1 < n)
                        p[i + 1] = (uint8_t)(w >> 8);
                }
            }
        }
        bytes -= n;
        moved += n;
        sp->done += n;
        sp->sg_off += n;
        if (sp->sg_off == sg->len) {
            sp->cur_sg++;
            sp->sg_off = 0;
        }
    }
    return moved;
}

/* One ATA PIO DRQ block: a sector (the logical sector of a read or write: 4096 bytes on a
 * 4Kn disk, ACS-3 7.12.7.50), or the READ/WRITE MULTIPLE block size in those sectors. */
static void pio_block(struct ata_port *ap, struct ata_queued_cmd *qc)
{
    struct ata_sff_port *sp = ata_sff(ap);
    const uint32_t ss = qc->sect_size ? qc->sect_size : ATA_SECT_SIZE;
    uint32_t block = is_multi(&qc->tf) && qc->dev->multi_count ? qc->dev->multi_count * ss : ss;
    uint32_t left = qc->nbytes - sp->done;

    pio_xfer(ap, qc, block > left ? left : block);
    sp->hsm = sp->done >= qc->nbytes ? HSM_ST_LAST : HSM_ST_DATA;
}

/* ---- ATAPI ---- */

/* The CDB on the first DRQ after PACKET (dev->cdb_len bytes), then the command's next state:
 * data blocks for PIO, the status for no data, and for DMA the bus master is started now
 * that the device has its packet (libata's atapi_send_cdb). */
static void atapi_send_cdb(struct ata_port *ap, struct ata_queued_cmd *qc)
{
    struct ata_sff_port *sp = ata_sff(ap);
    struct ata_host *h = ap->host;
    const unsigned len = qc->dev->cdb_len ? qc->dev->cdb_len : ATAPI_CDB_LEN;

    for (unsigned i = 0; i < len; i += 2)
        h->pops->mmio_write16(h->plat, cmd_reg(ap, ATA_REG_DATA), (uint16_t)(qc->cdb[i] | qc->cdb[i + 1] << 8));
    switch (qc->tf.protocol) {
    case ATAPI_PROT_PIO: sp->hsm = HSM_ST_DATA; break;
    case ATAPI_PROT_DMA: {
        const uint32_t bm = sp->io.bmdma;

        sp->hsm = HSM_ST_LAST;
        wr8(ap, bm + ATA_DMA_CMD, (uint8_t)(rd8(ap, bm + ATA_DMA_CMD) | ATA_DMA_START));
        break;
    }
    default: sp->hsm = HSM_ST_LAST; break;
    }
}

/* One ATAPI DRQ block: the interrupt reason (Sector Count) must say data (CoD 0) in the
 * command's direction (IO 1 = to the host), and LBA Mid/High give the block's byte count,
 * which must not be 0 nor run past the buffer; anything else is an HSM violation (libata's
 * atapi_pio_bytes). */
static void atapi_pio_bytes(struct ata_port *ap, struct ata_queued_cmd *qc)
{
    struct ata_sff_port *sp = ata_sff(ap);
    const bool write = qc->tf.flags & ATA_TFLAG_WRITE;
    const uint8_t ireason = rd8(ap, cmd_reg(ap, ATA_REG_NSECT));
    const uint32_t bytes = (uint32_t)(rd8(ap, cmd_reg(ap, ATA_REG_LBAM)) | rd8(ap, cmd_reg(ap, ATA_REG_LBAH)) << 8);
    const uint32_t cur = sp->done;
    const char *why = NULL;

    if (ireason & ATAPI_INT_REASON_CD)
        why = "ireason CoD=1 in the data phase";
    else if (write == !!(ireason & ATAPI_INT_REASON_IO))
        why = "ireason IO against the command's direction";
    else if (!bytes)
        why = "byte count 0";
    if (why) {
        const struct sata_trace_field f[] = { TF_STR("state", why), TF_HEX("ireason", ireason),
                                              TF_INT("bytes", bytes), TF_HEX("cmd", qc->tf.command) };

        ata_ehi_push_desc(&qc->dev->link->eh_info, "ATAPI check failed (ireason=0x%x bytes=%u)", ireason, bytes);
        ata_port_ev(ap, ATA_EV("sff.hsm_violation", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        qc->err_mask |= AC_ERR_HSM;
        sp->hsm = HSM_ST_ERR;
        return;
    }
    if (pio_xfer(ap, qc, bytes) < bytes) {
        const struct sata_trace_field f[] = { TF_STR("state", "data beyond the buffer"), TF_INT("buf", qc->nbytes),
                                              TF_INT("cur", cur), TF_INT("bytes", bytes), TF_HEX("cmd", qc->tf.command) };

        ata_ehi_push_desc(&qc->dev->link->eh_info, "unexpected or too much trailing data buf=%u cur=%u bytes=%u",
                          qc->nbytes, cur, bytes);
        ata_port_ev(ap, ATA_EV("sff.hsm_violation", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        qc->err_mask |= AC_ERR_HSM;
        sp->hsm = HSM_ST_ERR;
    }
}

/* ---- the HSM ---- */

static bool ata_ok(uint8_t status) { return !(status & (ATA_BUSY | ATA_DF | ATA_DRQ | ATA_ERR)); }

static unsigned status_err_mask(uint8_t status)
{
    unsigned m = 0;

    if (status & (ATA_BUSY | ATA_DRQ))
        m |= AC_ERR_HSM;
    if (status & (ATA_ERR | ATA_DF))
        m |= AC_ERR_DEV;
    return m ? m : AC_ERR_OTHER;
}

static void hsm_violation(struct ata_port *ap, struct ata_queued_cmd *qc, uint8_t status, const char *why)
{
    const struct sata_trace_field f[] = { TF_STR("state", why), TF_HEX("status", status), TF_HEX("cmd", qc->tf.command) };

    qc->err_mask |= AC_ERR_HSM;
    ata_ehi_push_desc(&qc->dev->link->eh_info, "HSM violation: %s (status 0x%02x)", why, status);
    ata_port_ev(ap, ATA_EV("sff.hsm_violation", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
}

static void irq_on(struct ata_port *ap)
{
    struct ata_sff_port *sp = ata_sff(ap);

    if (ap->flags & ATA_SFF_FLAG_PIO_POLLING)
        return; /* such a port never takes a PIO interrupt */
    ata_sff_set_ctl(ap, (uint8_t)(sp->ctl & ~ATA_NIEN));
    ata_sff_check_status(ap);
    ata_bmdma_irq_clear(ap);
}

/* The command's transaction is over: an HSM violation freezes the port (EH resets), anything
 * else completes (a device error goes to EH through the failed command). */
static void hsm_complete(struct ata_port *ap, struct ata_queued_cmd *qc, bool polled)
{
    struct ata_sff_port *sp = ata_sff(ap);

    sp->hsm = HSM_ST_IDLE;
    sp->polling = false;
    if (qc->err_mask & AC_ERR_HSM) {
        ata_port_freeze(ap);
        return;
    }
    if (polled)
        irq_on(ap);
    ata_qc_complete_multiple(ap, ap->qc_active & ~(1u << qc->hw_tag));
}

void ata_sff_hsm_move(struct ata_port *ap, struct ata_queued_cmd *qc, uint8_t status, bool polled)
{
    struct ata_sff_port *sp = ata_sff(ap);
    const bool write = qc->tf.flags & ATA_TFLAG_WRITE;

    for (;;) {
        switch (sp->hsm) {
        case HSM_ST_FIRST: /* PIO data-out: the device asks for the first block */
            if (!(status & ATA_DRQ)) {
                if (status & (ATA_ERR | ATA_DF))
                    qc->err_mask |= AC_ERR_DEV;
                else
                    hsm_violation(ap, qc, status, "ST_FIRST: !(DRQ)");
                sp->hsm = HSM_ST_ERR;
                continue;
            }
            if (status & (ATA_ERR | ATA_DF)) {
                hsm_violation(ap, qc, status, "ST_FIRST: DRQ=1 with device error");
                sp->hsm = HSM_ST_ERR;
                continue;
            }
            if (ata_is_atapi(&qc->tf)) {
                atapi_send_cdb(ap, qc);
                return; /* the device interrupts for data or status */
            }
            pio_block(ap, qc);
            return; /* the device interrupts after the block */
        case HSM_ST_DATA:
            if (ata_is_atapi(&qc->tf)) {
                if (!(status & ATA_DRQ)) {
                    sp->hsm = HSM_ST_LAST; /* no more data, or a device error: ST_LAST says */
                    continue;
                }
                if (status & (ATA_ERR | ATA_DF)) {
                    hsm_violation(ap, qc, status, "ST_DATA: DRQ=1 with device error");
                    sp->hsm = HSM_ST_ERR;
                    continue;
                }
                atapi_pio_bytes(ap, qc);
                if (sp->hsm == HSM_ST_ERR)
                    continue;
                return; /* the device interrupts for the next block or the status */
            }
            if (!(status & ATA_DRQ)) {
                if (status & (ATA_ERR | ATA_DF))
                    qc->err_mask |= AC_ERR_DEV; /* the device ended the command early */
                else
                    hsm_violation(ap, qc, status, "ST-HSM: !(DRQ)");
                sp->hsm = HSM_ST_ERR;
                continue;
            }
            if (status & (ATA_ERR | ATA_DF)) {
                qc->err_mask |= AC_ERR_DEV;
                if (!write)
                    pio_block(ap, qc); /* drain the block the device offers anyway */
                sp->hsm = HSM_ST_ERR;
                continue;
            }
            pio_block(ap, qc);
            if (sp->hsm == HSM_ST_LAST && !write) {
                /* all data read: no interrupt ends a data-in command, Status does. The
                 * model's E_Status is in place when the last word is read (libata spins
                 * up to 10 ms here for real devices) */
                status = ata_sff_altstatus(ap);
                continue;
            }
            return;
        case HSM_ST_LAST:
            if (!ata_ok(status)) {
                unsigned m = status_err_mask(status);

                if (m & AC_ERR_HSM)
                    hsm_violation(ap, qc, status, "ST_LAST: BSY or DRQ at the end");
                qc->err_mask |= m & ~(unsigned)AC_ERR_HSM;
                sp->hsm = HSM_ST_ERR;
                continue;
            }
            hsm_complete(ap, qc, polled);
            return;
        case HSM_ST_ERR:
            hsm_complete(ap, qc, polled);
            return;
        case HSM_ST_IDLE:
        default:
            return;
        }
    }
}

/* ---- the polling task ---- */

static void poll_task(void *arg);

static void poll_queue(struct ata_port *ap, unsigned ms)
{
    struct ata_sff_port *sp = ata_sff(ap);

    if (!sp->poll_timer)
        sp->poll_timer = ap->host->pops->timer_arm(ap->host->plat, ATA_MS(ms), poll_task, ap);
}

/* One run of the task: step the HSM while the device is not busy (libata's ata_sff_pio_task). */
static void poll_task(void *arg)
{
    struct ata_port *ap = arg;
    struct ata_sff_port *sp = ata_sff(ap);
    struct ata_queued_cmd *qc;

    ata_lock(ap->host);
    sp->poll_timer = 0;
    qc = ata_qc_from_tag(ap, ap->link.active_tag);
    while (qc && sp->hsm != HSM_ST_IDLE && (sp->polling || sp->hsm == HSM_ST_FIRST)) {
        uint8_t status = ata_sff_altstatus(ap);

        if (status & ATA_BUSY) {
            poll_queue(ap, sp->poll_busy++ ? ATA_SFF_POLL_MS : ATA_SFF_POLL_FIRST_MS);
            break;
        }
        sp->poll_busy = 0;
        if (sp->polling)
            status = ata_sff_check_status(ap); /* nothing pending is left behind */
        ata_sff_hsm_move(ap, qc, status, sp->polling);
        qc = ata_qc_from_tag(ap, ap->link.active_tag);
        if (qc && sp->hsm != HSM_ST_IDLE && !sp->polling)
            break; /* the first data-out block is out: the interrupt path takes over */
    }
    ata_unlock(ap->host);
    ata_port_process(ap);
}

/* ---- issue ---- */

/* PRDs for the command's buffer: pieces of at most 64 KiB that do not cross a 64 KiB
 * boundary (SFF-8038i), EOT on the last. Returns the count, or 0 if they do not fit. */
static unsigned bmdma_fill_prd(struct ata_port *ap, const struct ata_queued_cmd *qc)
{
    struct ata_sff_port *sp = ata_sff(ap);
    uint8_t *t = sp->prd.cpu;
    unsigned n = 0;
    uint32_t left = qc->nbytes;

    for (unsigned i = 0; i < qc->n_sg && left; i++) {
        uint64_t a = qc->sg[i].bus;
        uint32_t len = qc->sg[i].len < left ? qc->sg[i].len : left;

        left -= len;
        while (len) {
            uint32_t room = ATA_PRD_MAX_BYTES - (uint32_t)(a & (ATA_PRD_MAX_BYTES - 1));
            uint32_t piece = len < room ? len : room;

            if (n == ATA_SFF_PRD_ENTRIES || (a >> 32))
                return 0;
            put_le32(t + 8 * n, (uint32_t)a);
            put_le32(t + 8 * n + 4, piece & 0xffff); /* 0 = 64 KiB */
            n++;
            a += piece;
            len -= piece;
        }
    }
    if (n) {
        uint8_t *last = t + 8 * (n - 1) + 4;

        put_le32(last, (uint32_t)(last[0] | last[1] << 8) | ATA_PRD_EOT);
    }
    return n;
}

/* PIO and non-data need no preparation: the CPU moves the data. */
static void sff_qc_prep(struct ata_queued_cmd *qc) { ata_sff(qc->ap)->n_prd = 0; }

static void bmdma_qc_prep(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;
    struct ata_sff_port *sp = ata_sff(ap);

    sp->n_prd = ata_is_dma(&qc->tf) ? bmdma_fill_prd(ap, qc) : 0;
    if (sp->n_prd)
        ap->host->pops->dma_sync_for_device(ap->host->plat, &sp->prd, 0, 8u * sp->n_prd);
}

static unsigned sff_qc_issue(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;
    struct ata_sff_port *sp = ata_sff(ap);
    const enum ata_prot prot = qc->tf.protocol;
    const bool polling = (qc->tf.flags & ATA_TFLAG_POLLING) ||
                         ((ap->flags & ATA_SFF_FLAG_PIO_POLLING) && !ata_is_dma(&qc->tf));

    if (prot == ATA_PROT_NCQ || (ata_is_dma(&qc->tf) && !sp->io.has_bmdma))
        return AC_ERR_SYSTEM;
    sp->polling = polling && !ata_is_dma(&qc->tf); /* DMA always completes by interrupt */
    sp->cur_sg = 0;
    sp->sg_off = 0;
    sp->done = 0;
    sp->poll_busy = 0;
    /* interrupts off for a polled command, on otherwise */
    if (sp->polling != !!(sp->ctl & ATA_NIEN))
        ata_sff_set_ctl(ap, (uint8_t)(sp->polling ? sp->ctl | ATA_NIEN : sp->ctl & ~ATA_NIEN));
    ata_sff_tf_load(ap, &qc->tf);
    if (ata_is_atapi(&qc->tf)) {
        /* PACKET: the bus master is set up now and started after the CDB (ST_FIRST); the
         * CDB's DRQ is announced by an interrupt only if IDENTIFY PACKET says so, else polled */
        if (prot == ATAPI_PROT_DMA) {
            const uint32_t bm = sp->io.bmdma;

            if (!sp->n_prd)
                return AC_ERR_SYSTEM;
            ap->host->pops->mmio_write32(ap->host->plat, bm + ATA_DMA_TABLE_OFS, (uint32_t)sp->prd.bus);
            wr8(ap, bm + ATA_DMA_CMD, (qc->tf.flags & ATA_TFLAG_WRITE) ? 0 : ATA_DMA_WR);
            wr8(ap, bm + ATA_DMA_STATUS, ATA_DMA_INTR | ATA_DMA_ERR); /* clear */
        }
        wr8(ap, cmd_reg(ap, ATA_REG_CMD), qc->tf.command);
        sp->hsm = HSM_ST_FIRST;
        if (sp->polling || !(qc->dev->flags & ATA_DFLAG_CDB_INTR))
            poll_queue(ap, 0);
        return 0;
    }
    if (prot == ATA_PROT_DMA) {
        const uint32_t bm = sp->io.bmdma;

        if (!sp->n_prd)
            return AC_ERR_SYSTEM; /* the buffer did not fit the PRD table */
        ap->host->pops->mmio_write32(ap->host->plat, bm + ATA_DMA_TABLE_OFS, (uint32_t)sp->prd.bus);
        wr8(ap, bm + ATA_DMA_CMD, (qc->tf.flags & ATA_TFLAG_WRITE) ? 0 : ATA_DMA_WR);
        wr8(ap, bm + ATA_DMA_STATUS, ATA_DMA_INTR | ATA_DMA_ERR); /* clear */
        wr8(ap, cmd_reg(ap, ATA_REG_CMD), qc->tf.command);
        wr8(ap, bm + ATA_DMA_CMD, (uint8_t)(rd8(ap, bm + ATA_DMA_CMD) | ATA_DMA_START));
        sp->hsm = HSM_ST_LAST;
        return 0;
    }
    wr8(ap, cmd_reg(ap, ATA_REG_CMD), qc->tf.command);
    if (prot == ATA_PROT_PIO && (qc->tf.flags & ATA_TFLAG_WRITE)) {
        sp->hsm = HSM_ST_FIRST; /* no interrupt announces the first block: poll for it */
        poll_queue(ap, 0);
        return 0;
    }
    sp->hsm = prot == ATA_PROT_PIO ? HSM_ST_DATA : HSM_ST_LAST;
    if (sp->polling)
        poll_queue(ap, ATA_SFF_POLL_FIRST_MS);
    return 0;
}

static void sff_qc_fill_rtf(struct ata_queued_cmd *qc)
{
    qc->result_tf.flags = qc->tf.flags;
    ata_sff_tf_read(qc->ap, &qc->result_tf);
}

/* ---- interrupt ---- */

/* An interrupt with no command in a state to take it: acknowledge it at the device so a
 * level-triggered line drops (libata's idle_irq). */
bool ata_sff_idle_irq(struct ata_port *ap)
{
    struct ata_sff_port *sp = ata_sff(ap);
    uint8_t status = ata_sff_check_status(ap);

    ata_bmdma_irq_clear(ap);
    sp->idle_irqs++;
    /* traced one by one up to ATA_SFF_IDLE_IRQ_TRACED, then every 10000th: a screaming line
     * calls this 100,000 times before the kernel disables it (libata only counts them) */
    if (sp->idle_irqs <= ATA_SFF_IDLE_IRQ_TRACED || sp->idle_irqs % 10000 == 0) {
        const struct sata_trace_field f[] = { TF_HEX("status", status), TF_INT("count", sp->idle_irqs) };

        ata_port_ev(ap, ATA_EV("sff.idle_irq", SATA_TC_INFO, SATA_LOG_NONE, f), NULL);
    }
    return false;
}

/* The interrupt of the channel's command (libata's ata_bmdma_port_intr and
 * __ata_sff_port_intr). A DMA command's interrupt is the bus master's Interrupt bit; the
 * engine is stopped before anything else. A device still BSY then is an idle interrupt for a
 * PIO or non-data command (the device has not got there yet), but with the engine already
 * stopped the command cannot go on: libata's HSM violation "on idle" (AC_ERR_HSM, the port
 * frozen, EH resets), with the bus-master status in the description as for every failed DMA
 * command there. */
bool ata_sff_port_intr(struct ata_port *ap)
{
    struct ata_sff_port *sp = ata_sff(ap);
    struct ata_queued_cmd *qc = ata_qc_from_tag(ap, ap->link.active_tag);
    bool bmdma_stopped = false;
    uint8_t host_stat = 0, status;

    /* FIRST: a data-out command's first block is polled, and so is a CDB unless the device
     * interrupts for it */
    if (!qc || sp->polling || sp->hsm == HSM_ST_IDLE ||
        (sp->hsm == HSM_ST_FIRST && !(ata_is_atapi(&qc->tf) && (qc->dev->flags & ATA_DFLAG_CDB_INTR))))
        return ata_sff_idle_irq(ap);
    if (sp->hsm == HSM_ST_LAST && ata_is_dma(&qc->tf)) {
        host_stat = ata_bmdma_status(ap);
        if (!(host_stat & ATA_DMA_INTR))
            return ata_sff_idle_irq(ap); /* not this channel's device */
        ata_bmdma_stop(ap);
        bmdma_stopped = true;
        if (host_stat & ATA_DMA_ERR) {
            qc->err_mask |= AC_ERR_HOST_BUS;
            ata_ehi_push_desc(&qc->dev->link->eh_info, "BMDMA stat 0x%x", host_stat);
            sp->hsm = HSM_ST_ERR;
        }
    }
    if (sp->hsm != HSM_ST_ERR && ((status = ata_sff_altstatus(ap)) & ATA_BUSY)) {
        if (!bmdma_stopped)
            return ata_sff_idle_irq(ap);
        /* Status is not read (a busy device's INTRQ stays latched until the freeze reads it) */
        {
            const struct sata_trace_field f[] = { TF_STR("state", "ST_LAST: BSY with the bus master stopped"),
                                                  TF_HEX("status", status), TF_HEX("cmd", qc->tf.command),
                                                  TF_HEX("host_stat", host_stat) };

            ata_port_ev(ap, ATA_EV("sff.hsm_violation", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        }
        qc->err_mask |= AC_ERR_HSM;
        ata_ehi_push_desc(&qc->dev->link->eh_info, "BMDMA stat 0x%x", host_stat);
        sp->hsm = HSM_ST_ERR;
        ata_bmdma_irq_clear(ap);
        ata_sff_hsm_move(ap, qc, status, false);
        return true;
    }
    status = ata_sff_check_status(ap);
    ata_bmdma_irq_clear(ap);
    ata_sff_hsm_move(ap, qc, status, false);
    return true;
}

/* A shared line: first the ports with an interrupt-driven command; if none of them had
 * anything to do, the idle ports whose bus master saw their device interrupt (libata's
 * sff_irq_check) are acknowledged, so a spurious INTRQ cannot hold the line. */
bool ata_sff_interrupt(struct ata_host *h)
{
    bool handled = false;

    ata_lock(h);
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];

        if (!(ap->flags & ATA_FLAG_DUMMY) && ata_qc_from_tag(ap, ap->link.active_tag) && !ata_sff(ap)->polling)
            handled |= ata_sff_port_intr(ap);
    }
    for (unsigned i = 0; i < h->n_ports && !handled; i++) {
        struct ata_port *ap = &h->ports[i];
        struct ata_sff_port *sp = ata_sff(ap);

        if (ap->flags & ATA_FLAG_DUMMY || (ata_qc_from_tag(ap, ap->link.active_tag) && !sp->polling))
            continue;
        if (!sp->io.has_bmdma || (ata_bmdma_status(ap) & ATA_DMA_INTR))
            ata_sff_idle_irq(ap);
    }
    ata_unlock(h);
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_port_process(&h->ports[i]);
    return handled;
}

/* Timer context, lock held: the command timed out. If the device is done, its interrupt
 * was lost: run the interrupt path as if it had come (libata's ata_sff_lost_interrupt). */
static unsigned sff_lost_interrupt(struct ata_port *ap)
{
    struct ata_queued_cmd *qc = ata_qc_from_tag(ap, ap->link.active_tag);
    uint8_t status;

    if (!qc || ata_sff(ap)->polling)
        return 0;
    status = ata_sff_altstatus(ap);
    if (status & ATA_BUSY)
        return 0;
    {
        const struct sata_trace_field f[] = { TF_HEX("status", status) };

        ata_port_ev(ap, ATA_EV("sff.lost_interrupt", SATA_TC_DECISION, SATA_LOG_WARN, f),
                    "lost interrupt (Status 0x%x)", status);
    }
    /* as long as the interrupt path makes progress (a DMA command whose bus master saw no
     * interrupt does not: it is left to time out, as in libata) */
    while (qc && ata_sff(ap)->hsm != HSM_ST_IDLE && !(ata_sff_altstatus(ap) & ATA_BUSY)) {
        if (!ata_sff_port_intr(ap))
            break;
        qc = ata_qc_from_tag(ap, ap->link.active_tag);
    }
    return qc ? 0 : 1;
}

/* ---- freeze, thaw, EH ---- */

void ata_sff_freeze(struct ata_port *ap)
{
    struct ata_sff_port *sp = ata_sff(ap);

    ata_sff_set_ctl(ap, (uint8_t)(sp->ctl | ATA_NIEN));
    sp->hsm = HSM_ST_IDLE;
    sp->polling = false;
    if (sp->poll_timer) {
        ap->host->pops->timer_cancel(ap->host->plat, sp->poll_timer);
        sp->poll_timer = 0;
    }
    ata_sff_check_status(ap); /* clear a pending INTRQ */
    ata_bmdma_irq_clear(ap);
}

void ata_sff_thaw(struct ata_port *ap)
{
    ata_sff_check_status(ap);
    ata_bmdma_irq_clear(ap);
    if (!(ap->flags & ATA_SFF_FLAG_PIO_POLLING))
        ata_sff_set_ctl(ap, (uint8_t)(ata_sff(ap)->ctl & ~ATA_NIEN));
}

/* Before the standard EH: reset the HSM and stop the bus master; a DMA command that failed
 * with the engine's Error bit set is a host bus error (libata's ata_bmdma_error_handler). */
static void bmdma_error_handler(struct ata_port *ap)
{
    struct ata_sff_port *sp = ata_sff(ap);

    ata_lock(ap->host);
    sp->hsm = HSM_ST_IDLE;
    if (sp->io.has_bmdma) {
        for (unsigned t = 0; t < ATA_MAX_QUEUE; t++) {
            struct ata_queued_cmd *qc = &ap->qcmd[t];
            uint8_t host_stat;

            if ((qc->flags & (ATA_QCFLAG_ACTIVE | ATA_QCFLAG_FAILED)) !=
                    (ATA_QCFLAG_ACTIVE | ATA_QCFLAG_FAILED) ||
                !ata_is_dma(&qc->tf))
                continue;
            host_stat = ata_bmdma_status(ap);
            if (host_stat & ATA_DMA_ERR) {
                qc->err_mask |= AC_ERR_HOST_BUS;
                ata_ehi_push_desc(&qc->dev->link->eh_info, "BMDMA stat 0x%x", host_stat);
            }
            ata_bmdma_stop(ap);
        }
        ata_bmdma_irq_clear(ap);
    }
    ata_unlock(ap->host);
    ata_std_error_handler(ap);
}

static void bmdma_post_internal_cmd(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;

    if (ata_sff(ap)->io.has_bmdma && ata_is_dma(&qc->tf)) {
        ata_lock(ap->host);
        ata_bmdma_stop(ap);
        ata_unlock(ap->host);
    }
}

/* ---- reset ---- */

int ata_sff_check_ready(struct ata_link *link) { return ata_check_ready(ata_sff_altstatus(link->ap)); }

/* The taskfile of the selected device, and whether anything owns the registers (a status of
 * FFh or 7Fh: no device drives the bus). */
static bool read_signature(struct ata_port *ap, struct ata_taskfile *tf)
{
    memset(tf, 0, sizeof(*tf));
    ata_sff_tf_read(ap, tf);
    return tf->command != 0xff && tf->command != 0x7f;
}

enum ata_dev_class ata_sff_dev_classify(struct ata_port *ap)
{
    struct ata_taskfile tf;

    wr8(ap, cmd_reg(ap, ATA_REG_DEVICE), ATA_DEVICE_OBS);
    if (!read_signature(ap, &tf))
        return ATA_DEV_NONE; /* nothing owns the registers */
    return ata_dev_classify(&tf);
}

/* Device select: the Device register's DEV bit, then the PIO cycle of an Alternate Status
 * read for the pause a select needs (libata's ata_sff_dev_select). */
static void dev_select(struct ata_port *ap, unsigned devno)
{
    wr8(ap, cmd_reg(ap, ATA_REG_DEVICE), (uint8_t)(ATA_DEVICE_OBS | (devno ? ATA_DEV1 : 0)));
    ata_sff_altstatus(ap);
}

/* Is device devno there? Sector Count and LBA Low are written 55h/AAh, AAh/55h, 55h/AAh and
 * read back: a device latches them, an empty position (no cable, or no slave on the channel)
 * does not (libata's ata_devchk). */
static bool dev_check(struct ata_port *ap, unsigned devno)
{
    static const uint8_t pat[3][2] = { { 0x55, 0xaa }, { 0xaa, 0x55 }, { 0x55, 0xaa } };

    dev_select(ap, devno);
    for (unsigned i = 0; i < 3; i++) {
        wr8(ap, cmd_reg(ap, ATA_REG_NSECT), pat[i][0]);
        wr8(ap, cmd_reg(ap, ATA_REG_LBAL), pat[i][1]);
    }
    return rd8(ap, cmd_reg(ap, ATA_REG_NSECT)) == 0x55 && rd8(ap, cmd_reg(ap, ATA_REG_LBAL)) == 0xaa;
}

/* One device's class after SRST on a channel with a slave position (libata's
 * ata_sff_dev_classify): the Error register holds the diagnostic code (ATA/ATAPI-7 vol 1
 * 9.9 EXECUTE DEVICE DIAGNOSTIC, as recalled: 01h passed, 81h device 0 passed and device 1
 * failed, 00h/other a failure); a device that failed it is taken as ATA if the device check
 * saw it, anything else with an unknown signature or a code other than 01h (81h on device
 * 0) is no device, and an ATA signature with a Status of 0 is none either. *err: the code. */
static enum ata_dev_class classify_dev(struct ata_port *ap, unsigned devno, bool present, uint8_t *err)
{
    struct ata_taskfile tf;
    enum ata_dev_class c;
    bool diag_failed = false;

    dev_select(ap, devno);
    if (!read_signature(ap, &tf)) {
        *err = tf.feature;
        return ATA_DEV_NONE;
    }
    *err = tf.feature;
    if (tf.feature == 0)
        diag_failed = true;
    else if (tf.feature != 1 && !(devno == 0 && tf.feature == 0x81))
        return ATA_DEV_NONE;
    c = ata_dev_classify(&tf);
    if (c == ATA_DEV_UNKNOWN)
        return present && diag_failed ? ATA_DEV_ATA : ATA_DEV_NONE;
    if (c == ATA_DEV_ATA && ata_sff_check_status(ap) == 0)
        return ATA_DEV_NONE;
    return c;
}

/* The wait after SRST on a channel with a slave position (libata's ata_sff_wait_after_reset):
 * device 0's BSY (the wait every reset has), then, if the device check found device 1, its
 * Sector Count and LBA Low reaching the signature's 01h (twice at most, 50 ms apart: some
 * devices never set them) and its BSY. A device 1 whose status reads FFh is no reason to
 * fail the reset. Device 0 is selected at the end. */
static int wait_after_srst_pair(struct ata_link *link, unsigned devmask, uint64_t deadline)
{
    struct ata_port *ap = link->ap;
    int rc = ata_wait_after_reset(link, deadline, ata_sff_check_ready), ret = 0;

    if (rc)
        return rc;
    if (devmask & 2) {
        dev_select(ap, 1);
        for (unsigned i = 0; i < 2; i++) {
            if (rd8(ap, cmd_reg(ap, ATA_REG_NSECT)) == 1 && rd8(ap, cmd_reg(ap, ATA_REG_LBAL)) == 1)
                break;
            ata_msleep(ap->host, 50);
        }
        rc = ata_wait_ready(link, deadline, ata_sff_check_ready);
        if (rc && rc != -ENODEV)
            return rc;
        ret = rc;
    }
    dev_select(ap, 0);
    if (devmask & 2)
        dev_select(ap, 1);
    if (devmask & 1)
        dev_select(ap, 0);
    return ret;
}

/* SRST pulse in Device Control: hold it for 20 us, release (ATA/ATAPI-7 vol 2 software
 * reset protocol). It reaches both devices of the channel. */
static void srst_pulse(struct ata_port *ap)
{
    uint8_t ctl = (uint8_t)(ATA_DEVCTL_OBS | (ata_sff(ap)->ctl & ATA_NIEN));

    ata_sff_set_ctl(ap, ctl);
    ap->host->pops->sleep_ns(ap->host->plat, 20000);
    ata_sff_set_ctl(ap, (uint8_t)(ctl | ATA_SRST));
    ap->host->pops->sleep_ns(ap->host->plat, 20000);
    ata_sff_set_ctl(ap, ctl);
}

static int softreset_fail(struct ata_link *link, int rc)
{
    return ata_softreset_fail(link, rc, rc == -EBUSY ? "timeout" : "device not ready");
}

/* A channel with a slave position: the device check of both devices, SRST, the wait for
 * each device found, and the signature of each (cls[0], cls[1]) as libata's
 * ata_sff_softreset. Device 1 is classified unless device 0 reported that device 1 failed
 * its diagnostics (81h). */
static int softreset_pair(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    struct ata_port *ap = link->ap;
    unsigned devmask = 0;
    uint8_t err = 0;
    int rc;

    if (dev_check(ap, 0))
        devmask |= 1;
    if (dev_check(ap, 1))
        devmask |= 2;
    {
        const struct sata_trace_field f[] = { TF_HEX("devmask", devmask) };

        ata_link_ev(link, ATA_EV("sff.devchk", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
    dev_select(ap, 0);
    srst_pulse(ap);
    rc = wait_after_srst_pair(link, devmask, deadline);
    if (rc && rc != -ENODEV)
        return softreset_fail(link, rc);
    cls[0] = classify_dev(ap, 0, devmask & 1, &err);
    if (err != 0x81)
        cls[1] = classify_dev(ap, 1, devmask & 2, &err);
    dev_select(ap, 0);
    return 0;
}

/* SRST: hold it for 20 us, release, wait for BSY to clear, classify (ATA/ATAPI-7 vol 2
 * software reset protocol). A channel with one device position (no ATA_FLAG_SLAVE_POSS)
 * skips the 55h/AAh device check: on device 0 it decides nothing (the wait and the
 * signature do), so it is left out there. */
int ata_sff_softreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    struct ata_port *ap = link->ap;
    int rc;

    if (ata_link_max_devices(link) > 1)
        return softreset_pair(link, cls, deadline);
    wr8(ap, cmd_reg(ap, ATA_REG_DEVICE), ATA_DEVICE_OBS);
    srst_pulse(ap);
    rc = ata_wait_after_reset(link, deadline, ata_sff_check_ready);
    if (rc && rc != -ENODEV)
        return softreset_fail(link, rc);
    *cls = rc ? ATA_DEV_NONE : ata_sff_dev_classify(ap);
    return 0;
}

/* COMRESET through SControl; the signature the device sends after it is in the taskfile. */
int sata_sff_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    bool online;
    int rc = sata_link_hardreset(link, sata_ehc_deb_timing(&link->eh_context), deadline, &online,
                                 ata_sff_check_ready);

    if (online && !rc)
        *cls = ata_sff_dev_classify(link->ap);
    return online ? rc : 0;
}

/* ---- resources ---- */

int ata_sff_port_start(struct ata_port *ap)
{
    struct ata_host *h = ap->host;
    struct ata_sff_port *sp = ap->private_data;

    if (!sp)
        return -EINVAL; /* the LLD's create allocates it and fills ioaddr */
    if (sp->io.has_bmdma && !sp->prd.cpu &&
        h->pops->dma_alloc(h->plat, 8u * ATA_SFF_PRD_ENTRIES, 4096, &sp->prd))
        return -ENOMEM;
    sp->ctl = ATA_DEVCTL_OBS | ATA_NIEN; /* frozen until the first reset thaws it */
    return 0;
}

int ata_sff_port_init(struct ata_port *ap, const struct ata_host_config *cfg, const struct ata_sff_ioaddr *io,
                      unsigned xfer_mask)
{
    struct ata_sff_port *sp;

    ata_port_init_tags(ap, 1); /* one command at a time; EH's internal one runs in slot 0 too */
    ap->ncq_depth = 0;
    ap->xfer_mask = xfer_mask;
    ap->max_segs = ATA_SFF_MAX_SEGS;
    ap->seg_max_bytes = ATA_PRD_MAX_BYTES;
    if (cfg->pio_polling)
        ap->flags |= ATA_SFF_FLAG_PIO_POLLING;
    if (cfg->port_mask && !(cfg->port_mask & (1u << ap->port_no))) {
        ap->flags |= ATA_FLAG_DUMMY;
        return 0;
    }
    sp = calloc(1, sizeof(*sp));
    if (!sp)
        return -ENOMEM;
    sp->io = *io;
    ap->private_data = sp;
    return ata_sff_port_start(ap);
}

void ata_sff_port_stop(struct ata_port *ap)
{
    struct ata_sff_port *sp = ap->private_data;

    if (!sp)
        return;
    if (sp->prd.cpu)
        ap->host->pops->dma_free(ap->host->plat, &sp->prd);
    free(sp);
    ap->private_data = NULL;
}

/* ---- base tables ---- */

const struct ata_port_operations ata_sff_port_ops = {
    .inherits = &sata_port_ops,
    .qc_prep = sff_qc_prep,
    .qc_issue = sff_qc_issue,
    .qc_fill_rtf = sff_qc_fill_rtf,
    .freeze = ata_sff_freeze,
    .thaw = ata_sff_thaw,
    .softreset = ata_sff_softreset,
    .lost_interrupt = sff_lost_interrupt,
    .port_start = ata_sff_port_start,
    .port_stop = ata_sff_port_stop,
    .irq_handler = ata_sff_interrupt,
};

const struct ata_port_operations ata_bmdma_port_ops = {
    .inherits = &ata_sff_port_ops,
    .qc_prep = bmdma_qc_prep,
    .error_handler = bmdma_error_handler,
    .post_internal_cmd = bmdma_post_internal_cmd,
};
