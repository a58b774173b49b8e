/* EH's autopsy of a link, run in the EH context: SError (the link's or, on a fan-out link,
 * its PSCR), the NCQ error log for a culprit, each failed command's err_mask and
 * retryability, the actions to take, and the speed-down verdict of the offending device's
 * error ring (docs/libata-eh.md 1, 2, 3). The pure pieces are analyze.c, the verdict the
 * profile's (policy/). */
#include <string.h>

#include "internal.h"

/* ---- speed-down (docs/libata-eh.md 2) ---- */

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
    /* never for SATA disks: only on a parallel ATA cable or for ATAPI devices */
    if (!done && (verdict & ATA_EH_SPDN_FALLBACK_TO_PIO) && dev->spdn_cnt >= 2 &&
        (dev->flags & ATA_DFLAG_DMA) && (link->ap->cbl != ATA_CBL_SATA || dev->class == ATA_DEV_ATAPI) &&
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

        /* libata since 5.16 (ata_read_log_page) names the log and page it could not read,
         * on the device, before EH's own line */
        if (ap->host->eh_policy->report_style == ATA_EH_REPORT_MODERN) {
            const struct sata_trace_field rf[] = { TF_HEX("log", ATA_LOG_SATA_NCQ), TF_HEX("page", 0),
                                                   TF_HEX("err_mask", err_mask) };

            ata_dev_ev(dev, ATA_EV("eh.read_log_failed", SATA_TC_DECISION, SATA_LOG_ERR, rf),
                       "Read log 0x%02x page 0x%02x failed, Emask 0x%x", ATA_LOG_SATA_NCQ, 0, err_mask);
        }
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
    unsigned all_err_mask, eflags = 0, nr_failed = 0;
    bool io_err = false;
    uint32_t serror;
    int rc;

    if (ehc->i.flags & ATA_EHI_NO_AUTOPSY)
        return;

    /* A fan-out link's SError is the PMP's PSCR, read and cleared through the control port
     * (nobody else clears it; the HBA's interrupt handler clears the host link's). On a
     * frozen port the READ PORT MULTIPLIER is refused (ata_exec_internal: AC_ERR_SYSTEM), so
     * each fan-out link logs "failed to read SCR 1 (Emask=0x40)" and, as libata's
     * ata_eh_link_autopsy does with a failed SError read, gets AC_ERR_OTHER, a reset and a
     * probe: every link reports "exception Emask 0x100 ... frozen" and its commands that
     * had no error of their own "Emask 0x100 (unknown error)" (real logs: dmesg corpus 38,
     * 52). */
    rc = sata_scr_read(link, SCR_ERROR, &serror);
    if (!rc && serror && !ata_is_host_link(link))
        rc = sata_scr_write(link, SCR_ERROR, serror);
    if (!rc) {
        ehc->i.serror |= serror;
        /* hotplug does not work with LPM: PhyRdy and DevExch then mean nothing (libata's
         * ata_eh_analyze_serror, "hotplug doesn't work w/ LPM") */
        if (ata_eh_analyze_serror_bits(pol, ehc->i.serror, &ehc->i.err_mask, &ehc->i.action) &&
            link->lpm_policy <= ATA_LPM_MAX_POWER)
            ata_ehi_hotplugged(&ehc->i);
    } else if (rc != -EOPNOTSUPP) {
        ehc->i.probe_mask |= ATA_ALL_DEVICES;
        ehc->i.action |= pol->act_hardreset;
        ehc->i.err_mask |= AC_ERR_OTHER;
    }
    ata_eh_analyze_ncq_error(link);
    if (ehc->i.err_mask & ~(unsigned)AC_ERR_OTHER)
        ehc->i.err_mask &= ~(unsigned)AC_ERR_OTHER;
    all_err_mask = ehc->i.err_mask;

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];
        bool is_io;

        if (!ata_eh_link_failed_qc(link, qc))
            continue;
        nr_failed++;
        qc->err_mask |= ehc->i.err_mask;
        if (ata_eh_analyze_tf_regs(qc->dev->class, qc->result_tf.command, qc->result_tf.feature, &qc->err_mask))
            ehc->i.action |= pol->act_reset;
        /* ATAPI: a device error is a CHECK CONDITION; its sense is read now, while the device
         * still holds it (not on a frozen port: a reset comes first and clears it) */
        if (ata_is_atapi(&qc->tf) && qc->dev->class == ATA_DEV_ATAPI && (qc->err_mask & AC_ERR_DEV) &&
            !(ap->pflags & ATA_PFLAG_FROZEN)) {
            uint8_t sense[18];
            unsigned tmp = atapi_eh_request_sense(qc->dev, sense, sizeof(sense), qc->result_tf.feature >> 4);

            if (!tmp) {
                qc->flags |= ATA_QCFLAG_SENSE_VALID;
                if (qc->bio && qc->bio->packet) {
                    memcpy(qc->bio->packet->sense, sense, sizeof(sense));
                    qc->bio->packet->sense_len = sizeof(sense);
                }
            } else {
                qc->err_mask |= tmp;
            }
        }
        qc->err_mask = ata_eh_cleanup_mask(qc->err_mask);
        /* the sense is the SCSI layer's to act on: it trumps the device error (and so the
         * revalidation a device error would bring), as libata's autopsy */
        if (qc->flags & ATA_QCFLAG_SENSE_VALID)
            qc->err_mask &= ~(unsigned)(AC_ERR_DEV | AC_ERR_OTHER);
        /* I/O in libata's sense is a request from the block layer (ATA_QCFLAG_IO), not an
         * ATAPI command: atapi_xlat never sets the flag, so a PACKET command's HSM violation
         * or device error is no speed-down category and no retry by rule */
        is_io = qc->bio != NULL && qc->bio->op != ATA_BIO_PACKET;
        if (qc->err_mask && pol->worth_retry(qc->err_mask, is_io))
            qc->flags |= ATA_QCFLAG_RETRY;
        if (qc->err_mask) {
            offender = qc->dev;
            if (is_io)
                io_err = true;
        }
        if (is_io)
            eflags |= ATA_EFLAG_IS_IO;
        all_err_mask |= qc->err_mask;
    }

    /* "If all failed commands requested silence, then be quiet" (6.1): none asks for it
     * here (no RQF_QUIET requests), so only a run in which none failed is quiet (a user
     * scan, a hotplug event with nothing in flight) */
    if (pol->quiet_without_failed_qc && !nr_failed)
        ehc->i.flags |= ATA_EHI_QUIET;

    if ((ap->pflags & ATA_PFLAG_FROZEN) || (all_err_mask & (AC_ERR_HSM | AC_ERR_TIMEOUT)))
        ehc->i.action |= pol->act_reset;
    else if (pol->revalidate_on_any_error ? all_err_mask != 0
                                          : (io_err || (all_err_mask & ~(unsigned)AC_ERR_DEV)))
        ehc->i.action |= ATA_EH_REVALIDATE;
    /* a command that timed out behind a PMP: the PMP is reset (the host link's autopsy,
     * which runs after the fan-out links', sees the timeout) */
    if (!ata_is_host_link(link) && (all_err_mask & AC_ERR_TIMEOUT))
        ap->link.eh_context.i.err_mask |= AC_ERR_TIMEOUT;

    /* On a link with two devices the revalidation is the failed commands' device's only
     * (libata moves ATA_EH_PERDEV_MASK to ehi->dev_action): a media error on device 1 does
     * not revalidate device 0. A reset is the link's and revalidates both (ata_eh_reset).
     * On a one-device link the two are the same, and the action stays the link's. */
    if (offender && ata_link_max_devices(link) > 1) {
        ehc->i.dev_action[offender->devno] |= ehc->i.action & ATA_EH_PERDEV_MASK;
        ehc->i.action &= ~(unsigned)ATA_EH_PERDEV_MASK;
    }
    /* the offender carries the blame; on a one-device link the device does anyway (with two,
     * a link-wide error such as a frozen port blames neither) */
    if (!offender && ata_link_max_devices(link) == 1 && ata_dev_enabled(&link->device[0]) &&
        link->device[0].class != ATA_DEV_PMP)
        offender = &link->device[0];
    if (offender && ata_dev_enabled(offender)) {
        if (offender->flags & ATA_DFLAG_DUBIOUS_XFER)
            eflags |= ATA_EFLAG_DUBIOUS_XFER;
        ehc->i.action |= ata_eh_speed_down(offender, eflags, all_err_mask);
    }
}
