/* Error handling entry: scheduling, freeze/thaw, abort, and the standard EH sequence
 * autopsy -> report -> recover -> finish (libata-eh.md 1, 3). The EH context is the one
 * place that resets links, probes devices and decides the fate of failed commands; the
 * irq paths only record what they saw (link eh_info, qc err_mask) and schedule EH. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- scheduling, freeze, abort (lock held) ---- */

void ata_port_schedule_eh(struct ata_port *ap)
{
    ap->pflags |= ATA_PFLAG_EH_PENDING;
    ap->host->pops->schedule_eh(ap->host->plat);
}

/* Every in-flight command of link (NULL: of the whole port) becomes EH's; with nothing in
 * flight EH is scheduled anyway (libata's ata_do_link_abort). */
static unsigned ata_do_link_abort(struct ata_port *ap, const struct ata_link *link)
{
    unsigned n = 0;

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = ata_qc_from_tag(ap, tag);

        if (!qc || !(ap->qc_active & (1u << tag)) || (link && qc->dev->link != link))
            continue;
        qc->flags |= ATA_QCFLAG_FAILED;
        ata_qc_complete(qc);
        n++;
    }
    if (!n)
        ata_port_schedule_eh(ap);
    return n;
}

unsigned ata_port_abort(struct ata_port *ap) { return ata_do_link_abort(ap, NULL); }

unsigned ata_link_abort(struct ata_link *link) { return ata_do_link_abort(link->ap, link); }

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
    ehi->action |= ATA_EH_RESET | ATA_EH_ENABLE_LINK;
    ehi->err_mask |= AC_ERR_ATA_BUS;
}

/* ---- speed-down (libata-eh.md 2) ---- */

static void xfer_limit_event(struct ata_device *dev, unsigned mask)
{
    unsigned dma = mask & (ATA_MASK_MWDMA | ATA_MASK_UDMA), pio = mask & ATA_MASK_PIO;
    const char *pio_name = ata_xfer_mode_name(ata_xfer_bit_to_mode(ata_xfer_mask_highest(pio)));
    const struct sata_trace_field f[] = { TF_HEX("xfer_mask", mask) };

    if (dma)
        ata_dev_ev(dev, ATA_EV("eh.xfer_limit", SATA_TC_DECISION, SATA_LOG_WARN, f), "limiting speed to %s:%s",
                   ata_xfer_mode_name(ata_xfer_bit_to_mode(ata_xfer_mask_highest(dma))), pio_name);
    else
        ata_dev_ev(dev, ATA_EV("eh.xfer_limit", SATA_TC_DECISION, SATA_LOG_WARN, f), "limiting speed to %s",
                   pio_name);
}

int ata_dev_down_xfermask(struct ata_device *dev, enum ata_dnxfer sel)
{
    unsigned mask;
    int rc = ata_down_xfermask(dev->xfer_mask, sel, &mask);

    if (rc)
        return rc;
    dev->xfer_limit = mask;
    dev->xfer_mask = mask;
    dev->xfer_mode = ata_xfer_bit_to_mode(ata_xfer_mask_highest(mask));
    xfer_limit_event(dev, mask);
    return 0;
}

unsigned ata_eh_speed_down(struct ata_device *dev, unsigned eflags, unsigned err_mask)
{
    struct ata_link *link = dev->link;
    struct ata_host *h = link->ap->host;
    const struct ata_eh_policy *pol = h->eh_policy;
    enum ata_ecat cat = ata_eh_categorize(err_mask, eflags, pol->dubious_categories, NULL);
    unsigned verdict, action = 0;
    bool done = false;

    if (cat == ATA_ECAT_NONE && !pol->record_uncategorized)
        return 0;
    ata_ering_record(&dev->ering, eflags, err_mask, ata_now(h));
    if (cat == ATA_ECAT_NONE)
        return 0;
    verdict = pol->verdict(&dev->ering, ata_now(h), pol->dubious_categories);
    {
        const struct sata_trace_field f[] = { TF_INT("category", cat), TF_HEX("eflags", eflags),
                                              TF_HEX("err_mask", err_mask), TF_HEX("verdict", verdict) };

        ata_dev_ev(dev, ATA_EV("eh.ering", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
    if (!verdict)
        return 0;

    if ((verdict & ATA_EH_SPDN_NCQ_OFF) &&
        (dev->flags & (ATA_DFLAG_NCQ | ATA_DFLAG_NCQ_OFF)) == ATA_DFLAG_NCQ) {
        dev->flags |= ATA_DFLAG_NCQ_OFF;
        dev->flags &= ~(unsigned)ATA_DFLAG_NCQ;
        ata_dev_ev(dev, ATA_EV0("eh.ncq_off", SATA_TC_DECISION, SATA_LOG_WARN),
                   "NCQ disabled due to excessive errors");
        done = true;
    }
    if (!done && (verdict & ATA_EH_SPDN_SPEED_DOWN)) {
        if (!sata_down_spd_limit(link, 0)) {
            action = pol->speed_down_spd_action;
            done = true;
        } else if (dev->spdn_cnt < pol->n_xfer_steps || pol->repeat_last_step) {
            unsigned i = dev->spdn_cnt < pol->n_xfer_steps ? dev->spdn_cnt : pol->n_xfer_steps - 1;
            enum ata_dnxfer sel = (dev->flags & ATA_DFLAG_DMA) ? pol->xfer_steps_dma[i] : pol->xfer_steps_pio[i];

            dev->spdn_cnt++;
            if (!ata_dev_down_xfermask(dev, sel)) {
                action = pol->speed_down_xfer_action;
                done = true;
            }
        }
    }
    /* never for SATA disks: only PATA cables or ATAPI devices */
    if (!done && (verdict & ATA_EH_SPDN_FALLBACK_TO_PIO) && dev->spdn_cnt >= 2 &&
        (dev->flags & ATA_DFLAG_DMA) && dev->class == ATA_DEV_ATAPI &&
        !ata_dev_down_xfermask(dev, ATA_DNXFER_FORCE_PIO)) {
        dev->spdn_cnt = 0;
        action = ATA_EH_RESET;
        done = true;
    }
    if (!done) {
        const struct sata_trace_field f[] = { TF_HEX("verdict", verdict) };

        ata_dev_ev(dev, ATA_EV("eh.speed_down_none", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        return 0;
    }
    if (!(verdict & ATA_EH_SPDN_KEEP_ERRORS))
        ata_ering_clear(&dev->ering, pol->clear_marks_old);
    return action;
}

/* ---- autopsy ---- */

/* A command EH owns that belongs to this link: its device is on it (a fan-out link's are
 * the disk's behind that PM port; without a PMP every command is the host link's). */
static bool ata_eh_link_failed_qc(const struct ata_link *link, const struct ata_queued_cmd *qc)
{
    return (qc->flags & ATA_QCFLAG_FAILED) && qc->dev && qc->dev->link == link;
}

/* An NCQ command failed and the controller could not say which: the device's NCQ error
 * log names it (and reading the log clears the device's error state). */
static void ata_eh_analyze_ncq_error(struct ata_link *link)
{
    struct ata_port *ap = link->ap;
    struct ata_eh_context *ehc = &link->eh_context;
    struct ata_device *dev = &link->device[0];
    struct ata_taskfile tf, rtf;
    struct ata_queued_cmd *qc;
    unsigned err_mask, tag;
    uint8_t csum;
    int rc;

    if ((ap->pflags & ATA_PFLAG_FROZEN) || !link->sactive || !(ehc->i.err_mask & AC_ERR_DEV) ||
        !ata_dev_enabled(dev))
        return;
    for (unsigned t = 0; t < ATA_MAX_QUEUE; t++)
        if (ata_eh_link_failed_qc(link, &ap->qcmd[t]) && ap->qcmd[t].err_mask)
            return; /* the driver already knows the culprit */

    ata_tf_init(dev, &tf);
    tf.protocol = ATA_PROT_PIO;
    tf.flags |= ATA_TFLAG_LBA48;
    tf.command = ATA_CMD_READ_LOG_EXT;
    tf.lbal = ATA_LOG_SATA_NCQ;
    tf.nsect = 1;
    err_mask = ata_exec_internal(dev, &tf, &ap->log_buf, ATA_SECT_SIZE, 0);
    if (err_mask) {
        const struct sata_trace_field f[] = { TF_INT("errno", -EIO), TF_HEX("err_mask", err_mask) };

        ata_link_ev(link, ATA_EV("eh.ncq_log_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                    "failed to read log page 10h (errno=%d)", -EIO);
        return;
    }
    rc = ata_ncq_log_parse(ap->log_buf.cpu, &tag, &rtf, &csum);
    if (csum) {
        const struct sata_trace_field f[] = { TF_HEX("csum", csum) };

        ata_link_ev(link, ATA_EV("eh.ncq_log_csum", SATA_TC_DECISION, SATA_LOG_WARN, f),
                    "invalid checksum 0x%x on log page 10h", csum);
    }
    if (rc) {
        ata_link_ev(link, ATA_EV0("eh.ncq_log_nq", SATA_TC_DECISION, SATA_LOG_NONE), NULL);
        return;
    }
    if (!(link->sactive & (1u << tag))) {
        const struct sata_trace_field f[] = { TF_INT("tag", tag) };

        ata_link_ev(link, ATA_EV("eh.ncq_log_inactive", SATA_TC_DECISION, SATA_LOG_ERR, f),
                    "log page 10h reported inactive tag %u", tag);
        return;
    }
    qc = &ap->qcmd[tag];
    rtf.protocol = qc->tf.protocol;
    rtf.flags = qc->tf.flags;
    qc->result_tf = rtf;
    qc->err_mask |= AC_ERR_DEV | AC_ERR_NCQ;
    ehc->i.err_mask &= ~(unsigned)AC_ERR_DEV;
    {
        const struct sata_trace_field f[] = { TF_INT("tag", tag), TF_HEX("stat", rtf.command),
                                              TF_HEX("err", rtf.feature) };

        ata_link_ev(link, ATA_EV("eh.ncq_culprit", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
}

void ata_eh_link_autopsy(struct ata_link *link)
{
    struct ata_port *ap = link->ap;
    struct ata_eh_context *ehc = &link->eh_context;
    const struct ata_eh_policy *pol = ap->host->eh_policy;
    struct ata_device *offender = NULL;
    unsigned all_err_mask, eflags = 0;
    bool io_err = false;
    uint32_t serror;
    int rc;

    if (ehc->i.flags & ATA_EHI_NO_AUTOPSY)
        return;

    /* A fan-out link's SError is the PMP's PSCR, read and cleared through the control port
     * (nobody else clears it; the HBA's interrupt handler clears the host link's). A frozen
     * port cannot carry READ PORT MULTIPLIER: the host link's autopsy asks for a PMP reset,
     * after which every fan-out link is hardreset and probed with its SError untrusted, so
     * the read is not tried (it would only blame the link's innocent commands). */
    if (!ata_is_host_link(link) && (ap->pflags & ATA_PFLAG_FROZEN))
        rc = -EOPNOTSUPP;
    else
        rc = sata_scr_read(link, SCR_ERROR, &serror);
    if (!rc && serror && !ata_is_host_link(link))
        rc = sata_scr_write(link, SCR_ERROR, serror);
    if (!rc) {
        ehc->i.serror |= serror;
        if (ata_eh_analyze_serror_bits(pol, ehc->i.serror, &ehc->i.err_mask, &ehc->i.action))
            ata_ehi_hotplugged(&ehc->i);
    } else if (rc != -EOPNOTSUPP) {
        ehc->i.probe_mask |= (1u << ATA_MAX_DEVICES) - 1;
        ehc->i.action |= pol->act_hardreset;
        ehc->i.err_mask |= AC_ERR_OTHER;
    }
    ata_eh_analyze_ncq_error(link);
    if (ehc->i.err_mask & ~(unsigned)AC_ERR_OTHER)
        ehc->i.err_mask &= ~(unsigned)AC_ERR_OTHER;
    all_err_mask = ehc->i.err_mask;

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!ata_eh_link_failed_qc(link, qc))
            continue;
        qc->err_mask |= ehc->i.err_mask;
        if (ata_eh_analyze_tf_regs(qc->dev->class, qc->result_tf.command, qc->result_tf.feature, &qc->err_mask))
            ehc->i.action |= pol->act_reset;
        qc->err_mask = ata_eh_cleanup_mask(qc->err_mask);
        if (qc->err_mask && pol->worth_retry(qc->err_mask, qc->bio != NULL))
            qc->flags |= ATA_QCFLAG_RETRY;
        if (qc->err_mask) {
            offender = qc->dev;
            if (qc->bio)
                io_err = true;
        }
        if (qc->bio)
            eflags |= ATA_EFLAG_IS_IO;
        all_err_mask |= qc->err_mask;
    }

    if ((ap->pflags & ATA_PFLAG_FROZEN) || (all_err_mask & (AC_ERR_HSM | AC_ERR_TIMEOUT)))
        ehc->i.action |= pol->act_reset;
    else if (pol->revalidate_on_any_error ? all_err_mask != 0
                                          : (io_err || (all_err_mask & ~(unsigned)AC_ERR_DEV)))
        ehc->i.action |= ATA_EH_REVALIDATE;
    /* a command that timed out behind a PMP: the PMP is reset (the host link's autopsy,
     * which runs after the fan-out links', sees the timeout) */
    if (!ata_is_host_link(link) && (all_err_mask & AC_ERR_TIMEOUT))
        ap->link.eh_context.i.err_mask |= AC_ERR_TIMEOUT;

    /* the offender carries the blame; on a one-device link the device does anyway */
    if (!offender && ata_dev_enabled(&link->device[0]) && link->device[0].class != ATA_DEV_PMP)
        offender = &link->device[0];
    if (offender && ata_dev_enabled(offender)) {
        if (offender->flags & ATA_DFLAG_DUBIOUS_XFER)
            eflags |= ATA_EFLAG_DUBIOUS_XFER;
        ehc->i.action |= ata_eh_speed_down(offender, eflags, all_err_mask);
    }
}

/* ---- report ---- */

static void report_qc_2006(struct ata_queued_cmd *qc)
{
    const struct sata_trace_field f[] = {
        TF_INT("tag", qc->tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", qc->err_mask),
        TF_HEX("stat", qc->result_tf.command), TF_HEX("err", qc->result_tf.feature),
        TF_STR("name", ata_eh_cmd_name(qc->tf.command)),
    };
    ata_dev_ev(qc->dev, ATA_EV("eh.failed_qc", SATA_TC_DECISION, SATA_LOG_ERR, f),
               "tag %u cmd 0x%x Emask 0x%x stat 0x%x err 0x%x (%s)", qc->tag, qc->tf.command, qc->err_mask,
               qc->result_tf.command, qc->result_tf.feature, ata_err_string(qc->err_mask));
}

static void report_qc_modern(struct ata_queued_cmd *qc)
{
    char line[160];

    {
        const struct sata_trace_field f[] = {
            TF_INT("tag", qc->tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", qc->err_mask),
            TF_HEX("stat", qc->result_tf.command), TF_HEX("err", qc->result_tf.feature),
            TF_STR("name", ata_eh_cmd_name(qc->tf.command)), TF_INT("nbytes", qc->nbytes),
            TF_BOOL("ncq_culprit", qc->err_mask & AC_ERR_NCQ), TF_BOOL("retry", qc->flags & ATA_QCFLAG_RETRY),
        };
        ata_dev_ev(qc->dev, ATA_EV("eh.failed_qc", SATA_TC_DECISION, SATA_LOG_ERR, f), "failed command: %s",
                   ata_eh_cmd_name(qc->tf.command));
    }
    ata_eh_format_cmd_line(line, sizeof(line), &qc->tf, qc->tag, qc->nbytes);
    ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_cmd", SATA_TC_DECISION, SATA_LOG_ERR), "%s", line);
    ata_eh_format_res_line(line, sizeof(line), &qc->result_tf, qc->err_mask);
    ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_res", SATA_TC_DECISION, SATA_LOG_ERR), "%s", line);
    ata_eh_format_status(line, sizeof(line), qc->result_tf.command);
    if (line[0])
        ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_status", SATA_TC_DECISION, SATA_LOG_ERR), "status: %s", line);
    ata_eh_format_error(line, sizeof(line), qc->result_tf.feature);
    if (line[0])
        ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_error", SATA_TC_DECISION, SATA_LOG_ERR), "error: %s", line);
}

/* A line of a link's error report, spoken by the failed commands' device if there is one,
 * else by the PMP (host link of a port with a PMP) or the link. */
static void report_link_line(struct ata_link *link, struct ata_device *offender, bool pmp_host,
                             struct ata_ev ev, const char *line)
{
    if (offender)
        ata_dev_ev(offender, ev, "%s", line);
    else if (pmp_host)
        ata_pmp_ev(link->ap, ev, "%s", line);
    else
        ata_link_ev(link, ev, "%s", line);
}

void ata_eh_link_report(struct ata_link *link)
{
    struct ata_port *ap = link->ap;
    struct ata_eh_context *ehc = &link->eh_context;
    const struct ata_eh_policy *pol = ap->host->eh_policy;
    bool style_2006 = pol->report_style_2006;
    bool frozen = ap->pflags & ATA_PFLAG_FROZEN;
    struct ata_device *offender = NULL;
    unsigned nr_failed = 0, action = ehc->i.action;
    /* the host link of a port with a PMP speaks as the PMP ("ata1.15"), as libata's */
    bool pmp_host = ata_is_host_link(link) && sata_pmp_attached(ap);
    char line[160];

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        if (!ata_eh_link_failed_qc(link, &ap->qcmd[tag]))
            continue;
        offender = ap->qcmd[tag].dev;
        if (ap->qcmd[tag].err_mask)
            nr_failed++;
    }
    if ((ehc->i.flags & ATA_EHI_QUIET) || (!nr_failed && !ehc->i.err_mask))
        return;
    /* libata moves per-device actions (revalidate) to the failed commands' device and
     * prints the link's remaining actions; one device per link here, so mask them */
    if (offender)
        action &= ~(unsigned)ATA_EH_REVALIDATE;

    ata_eh_format_exception(line, sizeof(line), ehc->i.err_mask, link->sactive, ehc->i.serror, action,
                            frozen, style_2006 || ehc->eh_tries_left >= ATA_EH_MAX_REPEAT ? -1 : ehc->eh_tries_left);
    {
        const struct sata_trace_field f[] = {
            TF_HEX("emask", ehc->i.err_mask), TF_HEX("sact", link->sactive),
            TF_HEX("serr", ehc->i.serror),    TF_HEX("action", action),
            TF_BOOL("frozen", frozen),        TF_STR("desc", ehc->i.desc),
            TF_INT("nr_failed", nr_failed),
        };

        report_link_line(link, offender, pmp_host, ATA_EV("eh.exception", SATA_TC_DECISION, SATA_LOG_ERR, f),
                         line);
    }
    /* the description and SError lines share the exception line's prefix */
    if (ehc->i.desc[0]) {
        snprintf(line, sizeof(line), style_2006 ? "(%s)" : "%s", ehc->i.desc);
        report_link_line(link, offender, pmp_host, ATA_EV0("eh.desc", SATA_TC_INFO, SATA_LOG_ERR), line);
    }
    if (!style_2006 && ehc->i.serror) {
        ata_eh_format_serror(line, sizeof(line), ehc->i.serror);
        report_link_line(link, offender, pmp_host, ATA_EV0("eh.serror", SATA_TC_INFO, SATA_LOG_ERR), line);
    }
    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!ata_eh_link_failed_qc(link, qc) || !qc->err_mask)
            continue;
        if (style_2006)
            report_qc_2006(qc);
        else
            report_qc_modern(qc);
    }
}

/* ---- finish ---- */

bool ata_eh_bio_retry(const struct ata_eh_policy *pol, struct ata_bio *bio, unsigned err_mask, bool retry_flag)
{
    if (!err_mask)
        return true;
    if (!retry_flag || bio->q_retries >= pol->max_retries)
        return false;
    bio->q_retries++;
    return true;
}

/* Aborted innocents (err_mask 0) go back for free; blamed commands EH marked retryable go
 * back while the retry budget lasts (as the SCSI layer above libata would); the rest
 * complete with their error. Requeued commands keep their original issue order. */
void ata_eh_finish(struct ata_port *ap)
{
    const struct ata_eh_policy *pol = ap->host->eh_policy;
    struct ata_queued_cmd *retry[ATA_MAX_QUEUE];
    unsigned n = 0;

    ata_lock(ap->host);
    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];
        unsigned emask = qc->err_mask;

        if (!(qc->flags & ATA_QCFLAG_FAILED))
            continue;
        if (!qc->bio) {
            ata_eh_qc_complete(qc);
            continue;
        }
        if (!ata_dev_enabled(qc->dev) ||
            !ata_eh_bio_retry(pol, qc->bio, emask, qc->flags & ATA_QCFLAG_RETRY)) {
            const struct sata_trace_field f[] = {
                TF_INT("tag", tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", emask),
                TF_INT("retries", qc->bio->q_retries),
                TF_STR("reason", !ata_dev_enabled(qc->dev) ? "device disabled"
                                 : !(qc->flags & ATA_QCFLAG_RETRY) ? "not retryable" : "retries exhausted"),
            };
            /* a disabled device takes no retries: its requests end with a no-device error */
            if (!ata_dev_enabled(qc->dev))
                qc->err_mask |= AC_ERR_NODEV_HINT;
            else if (!emask)
                qc->err_mask = AC_ERR_OTHER;
            ata_dev_ev(qc->dev, ATA_EV("eh.qc_fail", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
            ata_eh_qc_complete(qc);
            continue;
        }
        if (emask) {
            const struct sata_trace_field f[] = {
                TF_INT("tag", tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", emask),
                TF_INT("retry", qc->bio->q_retries), TF_INT("max", pol->max_retries),
            };
            ata_dev_ev(qc->dev, ATA_EV("eh.retry", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
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

    /* Autopsy per link: with a PMP every fan-out link first (its SError is its PSCR, its
     * NCQ log is its disk's), the host link last (a fan-out timeout reaches it); then the
     * report, host link first (libata's ata_eh_autopsy / ata_eh_report). */
    if (sata_pmp_attached(ap)) {
        sata_pmp_route_errors(ap);
        for (unsigned i = 0; i < ap->nr_pmp_links; i++)
            if (!(ap->pmp_link[i].flags & ATA_LFLAG_DISABLED))
                ata_eh_link_autopsy(&ap->pmp_link[i]);
    }
    ata_eh_link_autopsy(&ap->link);
    ata_eh_link_report(&ap->link);
    for (unsigned i = 0; i < ap->nr_pmp_links; i++)
        if (!(ap->pmp_link[i].flags & ATA_LFLAG_DISABLED))
            ata_eh_link_report(&ap->pmp_link[i]);
    /* a PMP-capable port: the PMP (if one is or turns up there), then its fan-out links */
    if (ap->flags & ATA_FLAG_PMP)
        sata_pmp_eh_recover(ap);
    else
        ata_eh_recover(ap, ops->prereset, ops->softreset, ops->hardreset, ops->postreset);
    /* Every path out of recovery leaves the port listening: a reset thaws it, but a slot
     * given up on (no reset asked, or an internal command froze it after the last reset)
     * would otherwise miss the PhyRdy/COMINIT interrupt of the next plug. */
    if ((ap->pflags & (ATA_PFLAG_FROZEN | ATA_PFLAG_UNLOADING)) == ATA_PFLAG_FROZEN)
        ata_eh_thaw_port(ap);
    ata_eh_finish(ap);
    if (!(ehc->i.flags & ATA_EHI_QUIET))
        ap->pflags |= ATA_PFLAG_RECOVERED;
}

/* ---- EH entry ---- */

/* libata's hotplug task runs after EH and removes the SCSI devices of detached ATA devices
 * ("detaching (SCSI H:C:I:L)"). One SCSI host per port here, host number = port number. */
static void ata_eh_report_detached(struct ata_port *ap)
{
    for (int l = -1; l < SATA_PMP_MAX_PORTS; l++) {
        struct ata_link *link = l < 0 ? &ap->link : &ap->pmp_link[l];

        for (unsigned d = 0; d < ATA_MAX_DEVICES; d++) {
            struct ata_device *dev = &link->device[d];

            if (!(dev->flags & ATA_DFLAG_DETACHED))
                continue;
            dev->flags &= ~(unsigned)ATA_DFLAG_DETACHED;
            /* behind a PMP the SCSI id is the fan-out port, as libata's */
            ata_dev_ev(dev, ATA_EV0("dev.detached", SATA_TC_DECISION, SATA_LOG_INFO),
                       "detaching (SCSI %u:0:%u:0)", ap->port_no, l < 0 ? d : (unsigned)l);
        }
    }
}

/* Start of an EH run for one link: its context from the events recorded so far. */
void ata_eh_link_init_context(struct ata_link *link, int tries_left)
{
    uint64_t last_reset = link->eh_context.last_reset;

    memset(&link->eh_context, 0, sizeof(link->eh_context));
    link->eh_context.i = link->eh_info;
    link->eh_context.last_reset = last_reset;
    link->eh_context.eh_tries_left = tries_left;
    memset(&link->eh_info, 0, sizeof(link->eh_info));
    for (unsigned d = 0; d < ATA_MAX_DEVICES; d++) {
        link->eh_context.saved_xfer_mode[d] = link->device[d].xfer_mode;
        link->eh_context.saved_ncq[d] = link->device[d].flags & ATA_DFLAG_NCQ;
    }
}

/* Run the port's EH while it keeps being rescheduled, at most ATA_EH_MAX_REPEAT times. */
static void ata_port_eh(struct ata_port *ap)
{
    struct ata_host *h = ap->host;
    struct ata_link *link = &ap->link;
    unsigned runs = 0;

    for (;;) {
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
            /* What the last event left must not hang: its commands are finished or requeued
             * (each retry is counted, so this ends), its event is dropped as libata drops
             * it, and the port is thawed so it can be told about the next one. */
            ata_lock(h);
            memset(&link->eh_info, 0, sizeof(link->eh_info));
            ata_unlock(h);
            ata_eh_finish(ap);
            if ((ap->pflags & (ATA_PFLAG_FROZEN | ATA_PFLAG_UNLOADING)) == ATA_PFLAG_FROZEN)
                ata_eh_thaw_port(ap);
            break;
        }
        ap->pflags = (ap->pflags & ~ATA_PFLAG_EH_PENDING) | ATA_PFLAG_EH_IN_PROGRESS;
        ata_eh_link_init_context(link, ATA_EH_MAX_REPEAT - (int)runs + 1);
        for (unsigned i = 0; i < ap->nr_pmp_links; i++)
            ata_eh_link_init_context(&ap->pmp_link[i], ATA_EH_MAX_REPEAT - (int)runs + 1);
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
    ata_eh_report_detached(ap);
    ata_port_process(ap);
}


void ata_host_eh_run(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_port_eh(&h->ports[i]);
    /* user scans and deletes waiting for a pass; they check whether it covered them */
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];
        bool wake;

        ata_lock(h);
        wake = ap->eh_waiter;
        ap->eh_waiter = false;
        ata_unlock(h);
        if (wake)
            h->pops->complete(h->plat, ap->eh_wait);
    }
    if (h->eh_waiter) {
        h->eh_waiter = false;
        h->pops->complete(h->plat, h->eh_done);
    }
}
