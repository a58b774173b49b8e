/* EH's report of a link: the exception line, its description and SError, and each failed
 * command, in the wording of the host's profile (4.x blocks or 2006 one-liners,
 * docs/libata-eh.md 3.7). The line formats are analyze.c's. */
#include <stdio.h>

#include "internal.h"

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

/* 2.6.20-2.6.23 (ata_eh_report): one printk, "cmd %02x/%02x:%02x:%02x:%02x:%02x/%02x:%02x:
 * %02x:%02x:%02x/%02x tag %d cdb 0x%x data %u %s\n         res %02x/.../%02x Emask 0x%x
 * (%s)\n": the cdb's first byte (qc->cdb is filled for ATAPI only: 0 for an ATA command)
 * and the data direction ("in", "out", "" without data); no status or error line. */
static void report_qc_2620(struct ata_queued_cmd *qc)
{
    const bool atapi = ata_is_atapi(&qc->tf);
    const struct sata_trace_field f[] = {
        TF_INT("tag", qc->tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", qc->err_mask),
        TF_HEX("stat", qc->result_tf.command), TF_HEX("err", qc->result_tf.feature),
        TF_STR("name", ata_eh_cmd_name(qc->tf.command)), TF_INT("nbytes", qc->nbytes),
    };
    char line[256];

    ata_dev_ev(qc->dev, ATA_EV("eh.failed_qc", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    ata_eh_format_cmd_line_2620(line, sizeof(line), &qc->tf, qc->tag, atapi ? qc->cdb[0] : 0, qc->nbytes);
    ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_cmd", SATA_TC_DECISION, SATA_LOG_ERR), "%s", line);
    ata_eh_format_res_line(line, sizeof(line), &qc->result_tf, qc->err_mask & ~AC_ERR_NCQ);
    ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_res", SATA_TC_DECISION, SATA_LOG_CONT), "%s", line);
}

static void report_qc_modern(struct ata_queued_cmd *qc)
{
    const bool atapi = ata_is_atapi(&qc->tf);
    char line[256], cdb[128] = "";

    /* an ATAPI command names no ATA command: its CDB, as the SCSI layer formats it, opens
     * the res line's continuation instead ("cmd a0/...\n         Read(10) 28 00 ...res ...") */
    if (atapi) {
        const struct sata_trace_field f[] = {
            TF_INT("tag", qc->tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", qc->err_mask),
            TF_HEX("stat", qc->result_tf.command), TF_HEX("err", qc->result_tf.feature),
            TF_HEX("cdb0", qc->cdb[0]), TF_INT("nbytes", qc->nbytes),
            TF_BOOL("retry", qc->flags & ATA_QCFLAG_RETRY),
        };
        ata_dev_ev(qc->dev, ATA_EV("eh.failed_qc", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        ata_eh_format_cdb(cdb, sizeof(cdb), qc->cdb,
                          qc->bio && qc->bio->packet ? qc->bio->packet->cdb_len : qc->dev->cdb_len);
    } else {
        const struct sata_trace_field f[] = {
            TF_INT("tag", qc->tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", qc->err_mask),
            TF_HEX("stat", qc->result_tf.command), TF_HEX("err", qc->result_tf.feature),
            TF_STR("name", ata_eh_cmd_name(qc->tf.command)), TF_INT("nbytes", qc->nbytes),
            TF_BOOL("ncq_culprit", qc->err_mask & AC_ERR_NCQ), TF_BOOL("retry", qc->flags & ATA_QCFLAG_RETRY),
        };
        ata_dev_ev(qc->dev, ATA_EV("eh.failed_qc", SATA_TC_DECISION, SATA_LOG_ERR, f), "failed command: %s",
                   ata_eh_cmd_name(qc->tf.command));
    }
    ata_eh_format_cmd_line(line, sizeof(line), &qc->tf, qc->tag, qc->nbytes, qc->ap->host->eh_policy->ncq_prot_name);
    ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_cmd", SATA_TC_DECISION, SATA_LOG_ERR), "%s", line);
    /* one printk in libata: "cmd ...\n         res ..." (ata_eh_link_report), so the log
     * shows the res line as the cmd line's continuation, without a prefix */
    ata_eh_format_res_line(line, sizeof(line), &qc->result_tf, qc->err_mask);
    ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_res", SATA_TC_DECISION, SATA_LOG_CONT), "%s%s", cdb, line);
    ata_eh_format_status(line, sizeof(line), qc->result_tf.command);
    if (line[0])
        ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_status", SATA_TC_DECISION, SATA_LOG_ERR), "status: %s", line);
    /* a packet device's Error bits 7:4 are the sense key, not ICRC/UNC/IDNF: libata prints no
     * "error:" line for a PACKET command (ata_eh_link_report, "cmd->command !=
     * ATA_CMD_PACKET", 2.6.2x to 6.x) */
    ata_eh_format_error(line, sizeof(line), qc->result_tf.feature);
    if (line[0] && !atapi)
        ata_dev_ev(qc->dev, ATA_EV0("eh.failed_qc_error", SATA_TC_DECISION, SATA_LOG_ERR), "error: %s", line);
}

/* A line of a link's error report, spoken by the failed commands' device if there is one,
 * else by the link (the host link of a port with a PMP as the PMP: ata_link_eh_ev). */
static void report_link_line(struct ata_link *link, struct ata_device *offender, struct ata_ev ev,
                             const char *line)
{
    if (offender)
        ata_dev_ev(offender, ev, "%s", line);
    else
        ata_link_eh_ev(link, ev, "%s", line);
}

void ata_eh_link_report(struct ata_link *link)
{
    struct ata_port *ap = link->ap;
    struct ata_eh_context *ehc = &link->eh_context;
    const struct ata_eh_policy *pol = ap->host->eh_policy;
    bool style_2006 = pol->report_style != ATA_EH_REPORT_MODERN; /* both old styles */
    bool frozen = ap->pflags & ATA_PFLAG_FROZEN;
    struct ata_device *offender = NULL;
    unsigned nr_failed = 0, action = ehc->i.action;
    char line[160];

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        if (!ata_eh_link_failed_qc(link, &ap->qcmd[tag]))
            continue;
        offender = ap->qcmd[tag].dev;
        if (ap->qcmd[tag].err_mask)
            nr_failed++;
    }
    if (!nr_failed && !ehc->i.err_mask)
        return;
    if (ehc->i.flags & ATA_EHI_QUIET) {
        /* a run the autopsy made quiet for want of a failed command (6.1: a hotplug event,
         * a user scan) keeps its exception in the trace, without a log line */
        if (pol->quiet_without_failed_qc && !nr_failed) {
            const struct sata_trace_field f[] = {
                TF_HEX("emask", ehc->i.err_mask), TF_HEX("sact", link->sactive), TF_HEX("serr", ehc->i.serror),
                TF_HEX("action", action),         TF_BOOL("frozen", frozen),     TF_STR("desc", ehc->i.desc),
                TF_INT("nr_failed", 0),           TF_BOOL("quiet", true),
            };
            ata_link_eh_ev(link, ATA_EV("eh.exception", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        }
        return;
    }
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

        report_link_line(link, offender, ATA_EV("eh.exception", SATA_TC_DECISION, SATA_LOG_ERR, f),
                         line);
    }
    /* the description shares the exception line's prefix; the SError line is always the
     * link's (libata's ata_eh_link_report prints it with ata_link_err) */
    if (ehc->i.desc[0]) {
        snprintf(line, sizeof(line), style_2006 ? "(%s)" : "%s", ehc->i.desc);
        report_link_line(link, offender, ATA_EV0("eh.desc", SATA_TC_INFO, SATA_LOG_ERR), line);
    }
    if (!style_2006 && ehc->i.serror) {
        ata_eh_format_serror(line, sizeof(line), ehc->i.serror);
        report_link_line(link, NULL, ATA_EV0("eh.serror", SATA_TC_INFO, SATA_LOG_ERR), line);
    }
    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!ata_eh_link_failed_qc(link, qc) || !qc->err_mask)
            continue;
        if (pol->report_style == ATA_EH_REPORT_2006)
            report_qc_2006(qc);
        else if (pol->report_style == ATA_EH_REPORT_2620)
            report_qc_2620(qc);
        else
            report_qc_modern(qc);
    }
}
