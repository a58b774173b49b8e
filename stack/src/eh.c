/* Error handling entry: scheduling, freeze/thaw, abort, and the standard EH sequence
 * autopsy -> report -> recover -> finish (libata-eh.md 1, 3). The EH context is the one
 * place that resets links, probes devices and decides the fate of failed commands; the
 * irq paths only record what they saw (link eh_info, qc err_mask) and schedule EH. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* SError bits EH looks at */
enum {
    SERR_DATA = 1u << 8,
    SERR_PERSISTENT = 1u << 9,
    SERR_PROTOCOL = 1u << 10,
    SERR_INTERNAL = 1u << 11,
    SERR_PHYRDY_CHG = 1u << 16,
    SERR_DEV_XCHG = 1u << 26,
};

/* ---- scheduling, freeze, abort (lock held) ---- */

void ata_port_schedule_eh(struct ata_port *ap)
{
    ap->pflags |= ATA_PFLAG_EH_PENDING;
    ap->host->pops->schedule_eh(ap->host->plat);
}

/* Every in-flight command becomes EH's; with nothing in flight EH is scheduled anyway. */
unsigned ata_port_abort(struct ata_port *ap)
{
    uint32_t active = ap->qc_active;
    unsigned n = 0;

    for (unsigned tag = 0; active; tag++, active >>= 1) {
        struct ata_queued_cmd *qc;

        if (!(active & 1) || !(qc = ata_qc_from_tag(ap, tag)))
            continue;
        qc->flags |= ATA_QCFLAG_FAILED;
        ata_qc_complete(qc);
        n++;
    }
    if (!n)
        ata_port_schedule_eh(ap);
    return n;
}

static void port_freeze(struct ata_port *ap)
{
    if (ap->ops->freeze)
        ap->ops->freeze(ap);
    ap->pflags |= ATA_PFLAG_FROZEN;
}

void ata_port_freeze(struct ata_port *ap)
{
    port_freeze(ap);
    ata_port_abort(ap);
}

/* ---- process-context freeze/thaw ---- */

void ata_eh_freeze_port(struct ata_port *ap)
{
    ata_lock(ap->host);
    port_freeze(ap);
    ata_unlock(ap->host);
}

void ata_eh_thaw_port(struct ata_port *ap)
{
    ata_lock(ap->host);
    ap->pflags &= ~ATA_PFLAG_FROZEN;
    if (ap->ops->thaw)
        ap->ops->thaw(ap);
    ata_unlock(ap->host);
}

void ata_ehi_push_desc(struct ata_eh_info *ehi, const char *fmt, ...)
{
    size_t len = strlen(ehi->desc);
    va_list ap;

    if (len && len + 2 < sizeof(ehi->desc)) {
        memcpy(ehi->desc + len, ", ", 3);
        len += 2;
    }
    if (len + 1 >= sizeof(ehi->desc))
        return;
    va_start(ap, fmt);
    vsnprintf(ehi->desc + len, sizeof(ehi->desc) - len, fmt, ap);
    va_end(ap);
}

/* Something was plugged or unplugged: probe the slot again behind a reset. */
void ata_ehi_hotplugged(struct ata_eh_info *ehi)
{
    ehi->probe_mask |= (1u << ATA_MAX_DEVICES) - 1;
    ehi->flags |= ATA_EHI_HOTPLUGGED;
    ehi->action |= ATA_EH_RESET;
    ehi->err_mask |= AC_ERR_ATA_BUS;
}

/* ---- autopsy ---- */

static void ata_eh_analyze_serror(struct ata_link *link)
{
    struct ata_eh_context *ehc = &link->eh_context;
    uint32_t serror = ehc->i.serror;
    unsigned err_mask = 0, action = 0;

    if (serror & (SERR_PERSISTENT | SERR_DATA)) {
        err_mask |= AC_ERR_ATA_BUS;
        action |= ATA_EH_RESET;
    }
    if (serror & SERR_PROTOCOL) {
        err_mask |= AC_ERR_HSM;
        action |= ATA_EH_RESET;
    }
    if (serror & SERR_INTERNAL) {
        err_mask |= AC_ERR_SYSTEM;
        action |= ATA_EH_RESET;
    }
    if (serror & (SERR_PHYRDY_CHG | SERR_DEV_XCHG))
        ata_ehi_hotplugged(&ehc->i);
    ehc->i.err_mask |= err_mask;
    ehc->i.action |= action;
}

/* Classify a failed command from its result taskfile; returns actions it needs. */
static unsigned ata_eh_analyze_tf(struct ata_queued_cmd *qc)
{
    uint8_t stat = qc->result_tf.command, err = qc->result_tf.feature;

    if ((stat & (ATA_BUSY | ATA_DRQ | ATA_DRDY)) != ATA_DRDY) {
        qc->err_mask |= AC_ERR_HSM;
        return ATA_EH_RESET;
    }
    if (!(stat & (ATA_ERR | ATA_DF)))
        return 0;
    qc->err_mask |= AC_ERR_DEV;
    if (qc->dev->class == ATA_DEV_ATA || qc->dev->class == ATA_DEV_ZAC) {
        if (err & ATA_ICRC)
            qc->err_mask |= AC_ERR_ATA_BUS;
        if (err & (ATA_UNC | ATA_AMNF))
            qc->err_mask |= AC_ERR_MEDIA;
        if (err & ATA_IDNF)
            qc->err_mask |= AC_ERR_INVALID;
    }
    return (qc->err_mask & (AC_ERR_HSM | AC_ERR_TIMEOUT | AC_ERR_ATA_BUS)) ? ATA_EH_RESET : 0;
}

static void ata_eh_autopsy(struct ata_port *ap)
{
    struct ata_link *link = &ap->link;
    struct ata_eh_context *ehc = &link->eh_context;
    unsigned all_err_mask = 0;
    uint32_t serror;
    int rc;

    if (ehc->i.flags & ATA_EHI_NO_AUTOPSY)
        return;

    rc = sata_scr_read(link, SCR_ERROR, &serror);
    if (!rc) {
        ehc->i.serror |= serror;
        ata_eh_analyze_serror(link);
    } else if (rc != -EOPNOTSUPP) {
        ehc->i.probe_mask |= (1u << ATA_MAX_DEVICES) - 1;
        ehc->i.action |= ATA_EH_RESET;
        ehc->i.err_mask |= AC_ERR_OTHER;
    }
    if (ehc->i.err_mask & ~AC_ERR_OTHER)
        ehc->i.err_mask &= ~AC_ERR_OTHER;
    all_err_mask |= ehc->i.err_mask;

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!(qc->flags & ATA_QCFLAG_FAILED))
            continue;
        qc->err_mask |= ehc->i.err_mask;
        ehc->i.action |= ata_eh_analyze_tf(qc);
        /* a bus error makes the device's complaint probably spurious */
        if (qc->err_mask & AC_ERR_ATA_BUS)
            qc->err_mask &= ~(AC_ERR_DEV | AC_ERR_MEDIA | AC_ERR_INVALID);
        if (qc->err_mask & ~AC_ERR_OTHER)
            qc->err_mask &= ~AC_ERR_OTHER;
        all_err_mask |= qc->err_mask;
    }

    if ((ap->pflags & ATA_PFLAG_FROZEN) || (all_err_mask & (AC_ERR_HSM | AC_ERR_TIMEOUT)))
        ehc->i.action |= ATA_EH_RESET;
    else if (all_err_mask)
        ehc->i.action |= ATA_EH_REVALIDATE;
}

/* ---- report ---- */

static void ata_eh_report(struct ata_port *ap)
{
    struct ata_link *link = &ap->link;
    struct ata_eh_context *ehc = &link->eh_context;
    bool frozen = ap->pflags & ATA_PFLAG_FROZEN;
    unsigned nr_failed = 0;

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++)
        if ((ap->qcmd[tag].flags & ATA_QCFLAG_FAILED) && ap->qcmd[tag].err_mask)
            nr_failed++;
    if ((ehc->i.flags & ATA_EHI_QUIET) || (!nr_failed && !ehc->i.err_mask))
        return;

    {
        const struct sata_trace_field f[] = {
            TF_HEX("emask", ehc->i.err_mask), TF_HEX("sact", link->sactive),
            TF_HEX("serr", ehc->i.serror),    TF_HEX("action", ehc->i.action),
            TF_BOOL("frozen", frozen),        TF_STR("desc", ehc->i.desc),
        };
        const struct ata_ev ev = ATA_EV("eh.exception", SATA_TC_DECISION, SATA_LOG_ERR, f);
        const char *fmt = "exception Emask 0x%x SAct 0x%x SErr 0x%x action 0x%x%s";

        if (nr_failed)
            ata_dev_ev(&link->device[0], ev, fmt, ehc->i.err_mask, link->sactive, ehc->i.serror,
                       ehc->i.action, frozen ? " frozen" : "");
        else
            ata_link_ev(link, ev, fmt, ehc->i.err_mask, link->sactive, ehc->i.serror,
                        ehc->i.action, frozen ? " frozen" : "");
    }
    if (ehc->i.desc[0])
        ata_link_ev(link, ATA_EV0("eh.desc", SATA_TC_INFO, SATA_LOG_ERR), "(%s)", ehc->i.desc);

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!(qc->flags & ATA_QCFLAG_FAILED) || !qc->err_mask)
            continue;
        {
            const struct sata_trace_field f[] = {
                TF_INT("tag", tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", qc->err_mask),
                TF_HEX("stat", qc->result_tf.command), TF_HEX("err", qc->result_tf.feature),
            };
            ata_dev_ev(qc->dev, ATA_EV("eh.failed_qc", SATA_TC_DECISION, SATA_LOG_ERR, f),
                       "tag %u cmd 0x%x Emask 0x%x stat 0x%x err 0x%x (%s)", tag, qc->tf.command,
                       qc->err_mask, qc->result_tf.command, qc->result_tf.feature,
                       ata_err_string(qc->err_mask));
        }
    }
}

/* ---- finish ---- */

/* Failed commands with an error complete with it; those EH aborted without blaming them
 * (err_mask 0) go back to the head of the queue, in their original issue order. */
static void ata_eh_finish(struct ata_port *ap)
{
    struct ata_queued_cmd *retry[ATA_MAX_QUEUE];
    unsigned n = 0;

    ata_lock(ap->host);
    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!(qc->flags & ATA_QCFLAG_FAILED))
            continue;
        if (qc->err_mask || !qc->bio) {
            ata_eh_qc_complete(qc);
            continue;
        }
        /* insertion by issue order, newest first */
        unsigned i = n++;
        while (i && retry[i - 1]->seq < qc->seq) {
            retry[i] = retry[i - 1];
            i--;
        }
        retry[i] = qc;
    }
    for (unsigned i = 0; i < n; i++) {
        struct ata_bio *bio = retry[i]->bio;
        const struct sata_trace_field f[] = { TF_INT("tag", retry[i]->tag), TF_HEX("cmd", retry[i]->tf.command) };

        ata_dev_ev(retry[i]->dev, ATA_EV("eh.qc_retry", SATA_TC_CMD, SATA_LOG_NONE, f), NULL);
        ata_qc_free(retry[i]);
        ata_bio_requeue_front(ap, bio);
    }
    ata_unlock(ap->host);
}

void ata_std_error_handler(struct ata_port *ap)
{
    const struct ata_port_operations *ops = ap->ops;
    struct ata_eh_context *ehc = &ap->link.eh_context;

    ata_eh_autopsy(ap);
    ata_eh_report(ap);
    ata_eh_recover(ap, ops->prereset, ops->softreset, ops->hardreset, ops->postreset);
    ata_eh_finish(ap);
    if (!(ehc->i.flags & ATA_EHI_QUIET))
        ap->pflags |= ATA_PFLAG_RECOVERED;
}

/* ---- EH entry ---- */

/* Run the port's EH while it keeps being rescheduled, at most ATA_EH_MAX_REPEAT times. */
static void ata_port_eh(struct ata_port *ap)
{
    struct ata_host *h = ap->host;
    struct ata_link *link = &ap->link;
    unsigned runs = 0;

    for (;;) {
        uint64_t last_reset = link->eh_context.last_reset;

        ata_lock(h);
        if (!(ap->pflags & ATA_PFLAG_EH_PENDING)) {
            ata_unlock(h);
            break;
        }
        if (runs++ == ATA_EH_MAX_REPEAT) {
            ap->pflags &= ~ATA_PFLAG_EH_PENDING;
            ata_unlock(h);
            ata_port_ev(ap, ATA_EV0("eh.giveup", SATA_TC_DECISION, SATA_LOG_ERR),
                        "EH pending after %d tries, giving up", ATA_EH_MAX_REPEAT);
            break;
        }
        ap->pflags = (ap->pflags & ~ATA_PFLAG_EH_PENDING) | ATA_PFLAG_EH_IN_PROGRESS;
        memset(&link->eh_context, 0, sizeof(link->eh_context));
        link->eh_context.i = link->eh_info;
        link->eh_context.last_reset = last_reset;
        memset(&link->eh_info, 0, sizeof(link->eh_info));
        ata_unlock(h);

        if (!(ap->pflags & ATA_PFLAG_UNLOADING))
            ap->ops->error_handler(ap);

        ata_lock(h);
        ap->pflags &= ~ATA_PFLAG_EH_IN_PROGRESS;
        ata_unlock(h);
    }
    if (ap->pflags & ATA_PFLAG_RECOVERED) {
        ap->pflags &= ~ATA_PFLAG_RECOVERED;
        ata_port_ev(ap, ATA_EV0("eh.complete", SATA_TC_DECISION, SATA_LOG_INFO), "EH complete");
    }
    ata_port_process(ap);
}

void ata_host_eh_run(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_port_eh(&h->ports[i]);
    if (h->eh_waiter) {
        h->eh_waiter = false;
        h->pops->complete(h->plat, h->eh_done);
    }
}
