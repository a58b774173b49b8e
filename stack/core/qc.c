/* Queued commands: tag allocation, issue, completion, command timers and internal
 * (EH) commands. A failed normal command stays active and owned by EH until EH finish;
 * an internal command always completes directly to its waiter. */
#include <string.h>

#include "internal.h"

/* ---- tags ---- */

void ata_tags_init(struct ata_tags *t, unsigned n_slots, bool reserve_tag31)
{
    unsigned max = reserve_tag31 ? ATA_MAX_QUEUE - 1 : ATA_MAX_QUEUE;

    t->used = 0;
    t->n_tags = n_slots < max ? n_slots : max;
    /* the slot beyond the normal tags if the HBA has one (2006 on 32 slots), else slot 0 */
    t->int_hw = n_slots > t->n_tags ? n_slots - 1 : 0;
    t->int_used = false;
}

void ata_port_init_tags(struct ata_port *ap, unsigned n_slots)
{
    ata_tags_init(&ap->tags, n_slots, ap->host->eh_policy->internal_tag_reserved);
}

/* Lowest free tag first: with at most D commands queued every tag stays below D, which
 * keeps NCQ tags inside the device's queue depth. */
int ata_tag_get(struct ata_tags *t)
{
    for (unsigned i = 0; i < t->n_tags; i++) {
        if (!(t->used & (1u << i))) {
            t->used |= 1u << i;
            return (int)i;
        }
    }
    return -1;
}

/* The tag a caller asks for (the block layer's), if it is one of the port's and free; else the
 * lowest free one. */
int ata_tag_get_wanted(struct ata_tags *t, unsigned want)
{
    if (want < t->n_tags && !(t->used & (1u << want))) {
        t->used |= 1u << want;
        return (int)want;
    }
    return ata_tag_get(t);
}

int ata_tag_get_internal(struct ata_tags *t)
{
    if (t->int_used)
        return -1;
    t->int_used = true;
    return ATA_TAG_INTERNAL;
}

bool ata_tag_put(struct ata_tags *t, unsigned tag)
{
    if (tag == ATA_TAG_INTERNAL) {
        bool was = t->int_used;

        t->int_used = false;
        return was;
    }
    if (tag >= t->n_tags || !(t->used & (1u << tag)))
        return false;
    t->used &= ~(1u << tag);
    return true;
}

/* ---- issue and completion ---- */

bool ata_qc_is_internal(const struct ata_queued_cmd *qc) { return qc->tag == ATA_TAG_INTERNAL; }

struct ata_queued_cmd *ata_qc_from_tag(struct ata_port *ap, unsigned tag)
{
    struct ata_queued_cmd *qc;

    if (tag > ATA_TAG_INTERNAL)
        return NULL;
    qc = &ap->qcmd[tag];
    return (qc->flags & (ATA_QCFLAG_ACTIVE | ATA_QCFLAG_FAILED)) == ATA_QCFLAG_ACTIVE ? qc : NULL;
}

/* A command the block layer timed out goes to EH as it stands: libata's
 * ata_scsi_cmd_error_handler (4.x, 6.1; ata_scsi_error in 2.6.2x) sets AC_ERR_TIMEOUT and
 * the EH flag and freezes the port without fill_result_tf, so its result taskfile is what
 * ata_qc_reinit left at issue (DRDY, no error) over what earlier commands of the slot left
 * in the other registers: a report's "res 40/00:ff:00:00:00/..." (an earlier CHECK POWER
 * MODE on that tag) or "res 40/00:00:00:4f:c2/..." (SMART). Not a completion: the abort
 * that follows (ata_port_freeze) passes it over, as libata's skips a command EH owns. */
static void qc_timed_out(struct ata_queued_cmd *qc)
{
    const struct sata_trace_field f[] = { TF_INT("tag", qc->tag), TF_HEX("cmd", qc->tf.command) };

    qc->err_mask |= AC_ERR_TIMEOUT;
    qc->flags |= ATA_QCFLAG_FAILED;
    if (qc->timer) {
        qc->ap->host->pops->timer_cancel(qc->ap->host->plat, qc->timer);
        qc->timer = 0;
    }
    ata_dev_ev(qc->dev, ATA_EV("qc.timeout", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
}

/* Timer callback, irq context: a command outlived its timeout. The port is frozen and
 * every command aborted into EH, which resets and then completes or retries them.
 * First the LLD's lost_interrupt hook, if it has one, may finish what the HBA completed
 * without raising its interrupt; such a command completes successfully, as libata's timeout
 * handler finishes one that completed in the race (docs/libata-eh.md 3.2). libata has that hook
 * only in its SFF drivers, so the AHCI LLD has none (a lost completion interrupt fails the
 * command with AC_ERR_TIMEOUT, the port is hardreset and the command retried). The sil24
 * LLD has one: issue 6 asks for the PCI-X lost-completion workaround to detect completed
 * slots (a deliberate difference from sata_sil24, which only sets IRQ_WOC). */
static void ata_qc_timeout(void *arg)
{
    struct ata_queued_cmd *qc = arg;
    struct ata_port *ap = qc->ap;

    ata_lock(ap->host);
    qc->timer = 0;
    if ((qc->flags & (ATA_QCFLAG_ACTIVE | ATA_QCFLAG_FAILED)) == ATA_QCFLAG_ACTIVE &&
        ap->ops->lost_interrupt) {
        unsigned n = ap->ops->lost_interrupt(ap);

        if (n) {
            const struct sata_trace_field f[] = { TF_INT("completed", n), TF_INT("tag", qc->tag) };

            ata_port_ev(ap, ATA_EV("eh.lost_interrupt", SATA_TC_DECISION, SATA_LOG_WARN, f),
                        "lost interrupt: %u command(s) had completed", n);
        }
        if (!(qc->flags & ATA_QCFLAG_ACTIVE)) { /* it had completed: no timeout */
            ata_unlock(ap->host);
            ata_port_process(ap);
            return;
        }
    }
    if ((qc->flags & (ATA_QCFLAG_ACTIVE | ATA_QCFLAG_FAILED)) == ATA_QCFLAG_ACTIVE) {
        const uint64_t now = ata_now(ap->host);
        struct ata_queued_cmd *expired[ATA_MAX_QUEUE + 1];
        unsigned n = 0;

        /* The block layer's timeout work expires every request whose deadline has passed,
         * not only the one whose timer fired (blk_mq_timeout_work -> blk_mq_check_expired:
         * "time_after_eq(jiffies, rq->deadline)"); each becomes a timed-out command of the
         * same EH run. Requests issued together time out together, in the order of their
         * tags (the work walks the tags, blk_mq_queue_tag_busy_iter), the one whose timer
         * fired among them: which of equal deadlines fires first is the event queue's
         * business, and the order must not depend on it (it did: dword and FIS level
         * differed). */
        bool fired_listed = false;

        for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
            struct ata_queued_cmd *t = &ap->qcmd[tag];

            if (t == qc) {
                expired[n++] = qc;
                fired_listed = true;
                continue;
            }
            if ((t->flags & (ATA_QCFLAG_ACTIVE | ATA_QCFLAG_FAILED)) != ATA_QCFLAG_ACTIVE ||
                !t->bio || !t->timer || t->deadline > now || !(ap->qc_active & (1u << t->hw_tag)))
                continue;
            expired[n++] = t;
        }
        if (!fired_listed) /* the internal command: not one of the block layer's tags */
            expired[n++] = qc;
        for (unsigned i = 0; i < n; i++)
            qc_timed_out(expired[i]);
        ata_port_freeze(ap); /* aborts the others (filled), and schedules EH */
    }
    ata_unlock(ap->host);
}

void ata_qc_issue(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;
    struct ata_link *link = qc->dev->link;
    struct ata_host *h = ap->host;
    uint32_t bit = 1u << qc->hw_tag;
    unsigned err;

    qc->flags = ATA_QCFLAG_ACTIVE | (qc->bio && qc->bio->result_tf ? ATA_QCFLAG_RESULT_TF : 0);
    qc->err_mask = 0;
    qc->timer = 0;
    qc->seq = ++ap->qc_seq;
    /* "init result_tf such that it indicates normal completion" (ata_qc_reinit, 2.6.20 to
     * 6.x): status and error only; the other registers keep what the slot's last filled
     * result left (qcmd[] starts zeroed) */
    qc->result_tf.command = ATA_DRDY;
    qc->result_tf.feature = 0;
    ap->qc_active |= bit;
    if (ata_is_ncq(&qc->tf)) {
        link->sactive |= bit;
        link->nr_ncq++;
    } else {
        link->active_tag = qc->tag;
    }

    ap->ops->qc_prep(qc);
    {
        const struct sata_trace_field f[] = {
            TF_INT("tag", qc->tag), TF_HEX("cmd", qc->tf.command), TF_INT("bytes", qc->nbytes),
        };
        ata_dev_ev(qc->dev, ATA_EV("qc.issue", SATA_TC_CMD, SATA_LOG_NONE, f), NULL);
    }
    err = ap->ops->qc_issue(qc);
    if (err) {
        qc->err_mask |= err;
        ata_qc_complete(qc);
        return;
    }
    if (qc->bio) {
        const unsigned ms = qc->dev->timeout_ms ? qc->dev->timeout_ms : ATA_TMOUT_BIO;

        qc->deadline = ata_now(h) + ATA_MS(ms);
        qc->timer = h->pops->timer_arm(h->plat, ATA_MS(ms), ata_qc_timeout, qc);
    }
}

void ata_qc_free(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;
    struct ata_link *link = qc->dev->link;
    uint32_t bit = 1u << qc->hw_tag;

    if (qc->timer) {
        ap->host->pops->timer_cancel(ap->host->plat, qc->timer);
        qc->timer = 0;
    }
    ap->qc_active &= ~bit;
    if (ata_is_ncq(&qc->tf)) {
        if (link->sactive & bit) {
            link->sactive &= ~bit;
            link->nr_ncq--;
        }
    } else if (link->active_tag == qc->tag) {
        link->active_tag = ATA_TAG_NONE;
    }
    qc->flags = 0;
#ifdef SATASIM_PLANT_INTERNAL_TAG_LEAK_ON_ERROR
    if (ata_qc_is_internal(qc) && qc->err_mask)
        return; /* planted: a failed internal command's tag is never reused */
#endif
    ata_tag_put(&ap->tags, qc->tag);
}

static void qc_trace_done(struct ata_queued_cmd *qc)
{
    const struct sata_trace_field f[] = {
        TF_INT("tag", qc->tag), TF_HEX("cmd", qc->tf.command), TF_HEX("err_mask", qc->err_mask),
        TF_HEX("status", qc->result_tf.command), TF_HEX("error", qc->result_tf.feature),
    };
    ata_dev_ev(qc->dev, ATA_EV("qc.done", SATA_TC_CMD, SATA_LOG_NONE, f), NULL);
}

void ata_qc_complete(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;

    if (qc->err_mask)
        qc->flags |= ATA_QCFLAG_FAILED;
    if (ata_qc_is_internal(qc) || (qc->flags & (ATA_QCFLAG_FAILED | ATA_QCFLAG_RESULT_TF))) {
        ap->ops->qc_fill_rtf(qc);
    } else {
        /* libata reads no result for a good command nobody asked it of (ata_qc_complete:
         * "read result TF if requested"): the slot keeps its registers. The status and error
         * the hardware holds are still read for the trace (qc.done; on a taskfile
         * controller the read is the one the HSM would make) */
        const struct ata_taskfile keep = qc->result_tf;

        ap->ops->qc_fill_rtf(qc);
        {
            const uint8_t status = qc->result_tf.command, error = qc->result_tf.feature;

            qc->result_tf = keep;
            qc->result_tf.command = status;
            qc->result_tf.feature = error;
        }
    }

    if (ata_qc_is_internal(qc)) {
        /* minimal analysis so the waiter sees why an aborted command failed */
        if ((qc->flags & ATA_QCFLAG_FAILED) && !qc->err_mask)
            qc->err_mask = (qc->result_tf.command & (ATA_ERR | ATA_DF)) ? AC_ERR_DEV : AC_ERR_OTHER;
        qc_trace_done(qc);
        ata_qc_free(qc);
        ap->host->pops->complete(ap->host->plat, ap->int_done);
        return;
    }
    if (qc->flags & ATA_QCFLAG_FAILED) {
        /* EH owns it now; the timer must not fire into EH's hands */
        if (qc->timer) {
            ap->host->pops->timer_cancel(ap->host->plat, qc->timer);
            qc->timer = 0;
        }
        ata_port_schedule_eh(ap);
        ata_eh_drain_check(ap);
        return;
    }
    ata_eh_qc_complete(qc);
    ata_eh_drain_check(ap);
}

/* EH (or teardown) finishes a command it owns, with whatever err_mask it carries. */
void ata_eh_qc_complete(struct ata_queued_cmd *qc)
{
    /* a completed data transfer verifies the transfer mode EH chose (PIO only counts on a
     * device without DMA) */
    if (qc->bio && !qc->err_mask && qc->nbytes &&
        (qc->tf.protocol != ATA_PROT_PIO || !(qc->dev->flags & ATA_DFLAG_DMA)))
        qc->dev->flags &= ~(unsigned)ATA_DFLAG_DUBIOUS_XFER;
    qc_trace_done(qc);
    if (qc->complete_fn)
        qc->complete_fn(qc);
    ata_qc_free(qc);
}

/* hw_active: the tags the controller still holds. Anything we issued that it no longer
 * holds has completed; a tag it holds that we never issued is a protocol violation. */
int ata_qc_complete_multiple(struct ata_port *ap, uint32_t hw_active)
{
    uint32_t done = ap->qc_active ^ hw_active;

    if (done & hw_active) {
        const struct sata_trace_field f[] = { TF_HEX("qc_active", ap->qc_active), TF_HEX("hw_active", hw_active) };

        ata_port_ev(ap, ATA_EV("qc.illegal_active", SATA_TC_DECISION, SATA_LOG_ERR, f),
                    "illegal qc_active transition (%08x->%08x)", ap->qc_active, hw_active);
        return -EINVAL;
    }
    for (unsigned slot = 0; done; slot++, done >>= 1) {
        struct ata_queued_cmd *qc = ata_qc_from_tag(ap, ATA_TAG_INTERNAL);

        if (!(done & 1))
            continue;
        /* qc_active is by controller slot: the internal command's is its hw_tag */
        if (!qc || qc->hw_tag != slot)
            qc = ata_qc_from_tag(ap, slot);
        if (qc)
            ata_qc_complete(qc);
#ifdef SATASIM_PLANT_SDB_MULTI_TAG_LOST
        break; /* planted: one completion per interrupt, the SDB FIS's other tags wait */
#endif
    }
    return 0;
}

/* ---- internal commands ---- */

/* Successive timeouts per command class (docs/libata-eh.md 3.8); 0 ends a row. */
static const unsigned itmo_table[ATA_ITMO_NR][3] = {
    [ATA_ITMO_DEFAULT] = { 5000, 0, 0 },
    [ATA_ITMO_IDENTIFY] = { 5000, 10000, 30000 },
    [ATA_ITMO_SETFEAT] = { 5000, 10000, 0 },
    [ATA_ITMO_FLUSH] = { 15000, 15000, 30000 },
};

static enum ata_itmo_class itmo_class(uint8_t cmd)
{
    switch (cmd) {
    case ATA_CMD_ID_ATA:
    case ATA_CMD_ID_ATAPI:
        return ATA_ITMO_IDENTIFY;
    case 0xf8: /* READ NATIVE MAX ADDRESS */
    case 0x27: /* READ NATIVE MAX ADDRESS EXT */
    case 0xf9: /* SET MAX ADDRESS */
    case 0x37: /* SET MAX ADDRESS EXT */
    case ATA_CMD_SET_FEATURES:
    case 0x91: /* INITIALIZE DEVICE PARAMETERS */
        return ATA_ITMO_SETFEAT;
    case ATA_CMD_FLUSH:
    case ATA_CMD_FLUSH_EXT:
        return ATA_ITMO_FLUSH;
    default:
        return ATA_ITMO_DEFAULT;
    }
}

unsigned ata_internal_cmd_timeout(const struct ata_device *dev, uint8_t cmd)
{
    enum ata_itmo_class c = itmo_class(cmd);

    return itmo_table[c][dev->itmo_idx[c]];
}

void ata_internal_cmd_timed_out(struct ata_device *dev, uint8_t cmd)
{
    enum ata_itmo_class c = itmo_class(cmd);
    unsigned next = dev->itmo_idx[c] + 1u;

    if (next < ATA_ARRAY_SIZE(itmo_table[c]) && itmo_table[c][next])
        dev->itmo_idx[c] = (uint8_t)next;
}

unsigned ata_exec_internal(struct ata_device *dev, struct ata_taskfile *tf,
                           const struct plat_dma_buf *buf, uint32_t len, unsigned timeout_ms)
{
    return ata_exec_internal_cdb(dev, tf, NULL, buf, len, timeout_ms);
}

unsigned ata_exec_internal_cdb(struct ata_device *dev, struct ata_taskfile *tf, const uint8_t *cdb,
                               const struct plat_dma_buf *buf, uint32_t len, unsigned timeout_ms)
{
    struct ata_link *link = dev->link;
    struct ata_port *ap = link->ap;
    struct ata_host *h = ap->host;
    struct ata_queued_cmd *qc;
    unsigned saved_tag, saved_nr_ncq, err_mask;
    uint32_t saved_sactive, saved_qc_active;
    uint8_t cmd = tf->command;
    int tag;
    bool done;

    ata_lock(h);
    if (ap->pflags & ATA_PFLAG_FROZEN) {
        ata_unlock(h);
        return AC_ERR_SYSTEM;
    }
    tag = ata_tag_get_internal(&ap->tags);
    if (tag < 0) {
        ata_unlock(h);
        return AC_ERR_SYSTEM;
    }
    qc = &ap->qcmd[tag];
    qc->hw_tag = ap->tags.int_hw;
    qc->dev = dev;
    qc->bio = NULL;
    qc->complete_fn = NULL; /* the waiter below is woken by ata_qc_complete */
    qc->tf = *tf;
    memset(qc->cdb, 0, sizeof(qc->cdb));
    if (cdb)
        memcpy(qc->cdb, cdb, sizeof(qc->cdb));
    qc->nbytes = buf ? len : 0;
    qc->sect_size = ATA_SECT_SIZE;
    qc->int_sg.bus = buf ? buf->bus : 0;
    qc->int_sg.len = qc->nbytes;
    qc->sg = buf ? &qc->int_sg : NULL;
    qc->n_sg = buf ? 1 : 0;
    if (buf)
        h->pops->dma_sync_for_device(h->plat, buf, 0, len);

    /* EH may hold failed commands; the internal command must run alone on the link */
    saved_tag = link->active_tag;
    saved_sactive = link->sactive;
    saved_nr_ncq = link->nr_ncq;
    saved_qc_active = ap->qc_active;
    link->active_tag = ATA_TAG_NONE;
    link->sactive = 0;
    link->nr_ncq = 0;
    ap->qc_active = 0;

    h->pops->completion_reinit(h->plat, ap->int_done);
    ata_qc_issue(qc);
    ata_unlock(h);

    if (!timeout_ms)
        timeout_ms = ata_internal_cmd_timeout(dev, cmd);
    done = h->pops->wait_for_completion_timeout(h->plat, ap->int_done, ATA_MS(timeout_ms));

    ata_lock(h);
    if (!done && (qc->flags & ATA_QCFLAG_ACTIVE)) {
        const struct sata_trace_field f[] = { TF_HEX("cmd", cmd), TF_INT("timeout_ms", timeout_ms) };

        qc->err_mask |= AC_ERR_TIMEOUT;
        ata_internal_cmd_timed_out(dev, cmd);
        ata_dev_ev(dev, ATA_EV("qc.internal_timeout", SATA_TC_DECISION, SATA_LOG_WARN, f),
                   "qc timeout (cmd 0x%x)", cmd);
        ata_port_freeze(ap); /* aborts, and so completes, the internal command */
    }
    link->active_tag = saved_tag;
    link->sactive = saved_sactive;
    link->nr_ncq = saved_nr_ncq;
    ap->qc_active = saved_qc_active;
    ata_unlock(h);

    if (ap->ops->post_internal_cmd)
        ap->ops->post_internal_cmd(qc);
    err_mask = qc->err_mask;
    *tf = qc->result_tf;
    if (buf && !err_mask)
        h->pops->dma_sync_for_cpu(h->plat, buf, 0, len);
    return err_mask;
}
