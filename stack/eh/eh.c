/* Error handling entry: scheduling, freeze/thaw, abort, and the standard EH sequence
 * autopsy -> report -> recover -> finish (docs/libata-eh.md 1, 3). The EH context is the one
 * place that resets links, probes devices and decides the fate of failed commands; the
 * irq paths only record what they saw (link eh_info, qc err_mask) and schedule EH. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- scheduling, freeze, abort (lock held) ---- */

/* Wake the port's own EH context where the backend has one per port (as libata, whose every
 * port is a SCSI host with its own EH thread); else the host's single one. */
void ata_port_wake_eh(struct ata_port *ap)
{
    const struct sata_platform_ops *pops = ap->host->pops;

    if (pops->schedule_port_eh)
        pops->schedule_port_eh(ap->host->plat, ap->port_no);
    else
        pops->schedule_eh(ap->host->plat);
}

/* libata's ata_std_sched_eh: EH pending, and scsi_schedule_eh, whose scsi_eh_wakeup does
 * wake_up_process() on the port's EH thread -- a thread in the middle of a run, too: it cuts
 * short the one sleep of ata_eh_reset that does not loop on what is left, the reset cool-down
 * (eh/reset.c). */
void ata_port_schedule_eh(struct ata_port *ap)
{
    ap->pflags |= ATA_PFLAG_EH_PENDING;
    if (ap->eh_kick)
        ap->host->pops->complete(ap->host->plat, ap->eh_kick);
    ata_port_wake_eh(ap);
}

/* Every in-flight command of link (NULL: of the whole port) becomes EH's; with nothing in
 * flight EH is scheduled anyway (libata's ata_do_link_abort). The 2.6.21+ EH marks itself
 * pending first, whatever is in flight (ata_eh_set_pending: "we're gonna abort all
 * commands"): an aborted internal command, which goes back to its waiter and not to EH,
 * still asks for another run -- a PMP register access failing on the control port makes the
 * running EH repeat unless a host-link reset clears it (dmesg corpus 51, 2.6.28: after the
 * PMP give-up the repeat reports "ata7: exception Emask 0x3 ... frozen t4" and resets). */
static unsigned ata_do_link_abort(struct ata_port *ap, const struct ata_link *link)
{
    unsigned n = 0;

    if (ap->host->eh_policy->abort_sets_pending)
        ap->pflags |= ATA_PFLAG_EH_PENDING;

    for (unsigned tag = 0; tag <= ATA_TAG_INTERNAL; tag++) { /* the internal command too */
        struct ata_queued_cmd *qc = ata_qc_from_tag(ap, tag);

        if (!qc || !(ap->qc_active & (1u << qc->hw_tag)) || (link && qc->dev->link != link))
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
    ehi->probe_mask |= ATA_ALL_DEVICES;
    ehi->flags |= ATA_EHI_HOTPLUGGED;
    ehi->action |= ATA_EH_RESET | ATA_EH_ENABLE_LINK;
    ehi->err_mask |= AC_ERR_ATA_BUS;
}

/* ---- finish ---- */

bool ata_eh_bio_retry(const struct ata_eh_policy *pol, struct ata_bio *bio, unsigned err_mask, bool retry_flag)
{
    if (!err_mask)
        return true;
    if (!retry_flag || bio->fail_fast || bio->passthrough || bio->q_retries >= pol->max_retries)
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
        /* an ATAPI command whose sense EH read: the SCSI layer decides on the sense (sr fails a
         * removable device's UNIT ATTENTION, NOT READY, ILLEGAL REQUEST), never a free retry */
        if (qc->flags & ATA_QCFLAG_SENSE_VALID) {
            const struct sata_trace_field f[] = { TF_INT("tag", tag), TF_HEX("cmd", qc->tf.command),
                                                  TF_STR("reason", "sense valid") };
            ata_dev_ev(qc->dev, ATA_EV("eh.qc_fail", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
            ata_eh_qc_complete(qc);
            continue;
        }
        if (!ata_dev_enabled(qc->dev) ||
            !ata_eh_bio_retry(pol, qc->bio, emask, qc->flags & ATA_QCFLAG_RETRY)) {
            const struct sata_trace_field f[] = {
                TF_INT("tag", tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", emask),
                TF_INT("retries", qc->bio->q_retries),
                TF_STR("reason", !ata_dev_enabled(qc->dev) ? "device disabled"
                                 : !(qc->flags & ATA_QCFLAG_RETRY) ? "not retryable"
                                 : qc->bio->fail_fast ? "fail-fast"
                                 : qc->bio->passthrough ? "passthrough"
                                                      : "retries exhausted"),
            };
            /* a disabled device takes no retries: its requests end with a no-device error */
            if (!ata_dev_enabled(qc->dev))
                qc->err_mask |= AC_ERR_NODEV_HINT;
            else if (!emask)
                qc->err_mask = AC_ERR_OTHER;
            ata_dev_ev(qc->dev, ATA_EV("eh.qc_fail", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
            /* the block layer's last word on a request a live device failed (a detached
             * device's requests end offline, without this line) */
            if (!(qc->err_mask & AC_ERR_NODEV_HINT) && qc->bio->op != ATA_BIO_PACKET &&
                !qc->bio->passthrough)
                ata_blk_print_req_error(qc);
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

/* ---- the standard sequence ---- */

/* Autopsy per link: the fan-out links first (a PMP's, if one is attached: each one's SError
 * is its PSCR, its NCQ log is its disk's), the host link last (a fan-out link's timeout
 * reaches it); libata's ata_eh_autopsy. */
void ata_eh_autopsy(struct ata_port *ap)
{
    for (unsigned i = 0; i < ap->nr_pmp_links; i++)
        if (!(ap->pmp_link[i].flags & ATA_LFLAG_DISABLED))
            ata_eh_link_autopsy(&ap->pmp_link[i]);
    ata_eh_link_autopsy(&ap->link);
    /* A slave link's autopsy is its own (device 1's failed commands, its SError), but what it
     * asks for is done from the master link, where the recovery runs: its actions, device
     * 1's and its flags move there, and its own report then shows "action 0x0" (libata's
     * ata_eh_autopsy, 2.6.26 on) */
    if (ap->slave_link) {
        struct ata_eh_context *mehc = &ap->link.eh_context, *sehc = &ap->slave_link->eh_context;

        /* the master's quiet goes to the slave first (ATA_EHI_TO_SLAVE_MASK): under the
         * 6.x autopsy's quiet rule the master, with no failed command of its own, is quiet,
         * and so is the slave's whole report; before it (libata-4.x) both report */
        sehc->i.flags |= mehc->i.flags & ATA_EHI_QUIET;
        ata_eh_link_autopsy(ap->slave_link);
        mehc->i.action |= sehc->i.action;
        mehc->i.dev_action[1] |= sehc->i.dev_action[1] | sehc->i.dev_action[0];
        mehc->i.flags |= sehc->i.flags;
        sehc->i.action = 0;
        memset(sehc->i.dev_action, 0, sizeof(sehc->i.dev_action));
    }
}

/* The report, host link first (libata's ata_eh_report). */
void ata_eh_report(struct ata_port *ap)
{
    ata_eh_link_report(&ap->link);
    if (ap->slave_link)
        ata_eh_link_report(ap->slave_link);
    for (unsigned i = 0; i < ap->nr_pmp_links; i++)
        if (!(ap->pmp_link[i].flags & ATA_LFLAG_DISABLED))
            ata_eh_link_report(&ap->pmp_link[i]);
}

void ata_eh_conclude(struct ata_port *ap)
{
    bool loud = !(ap->link.eh_context.i.flags & ATA_EHI_QUIET);

    /* Every path out of recovery leaves the port listening: a reset thaws it, but a slot
     * given up on (no reset asked, or an internal command froze it after the last reset)
     * would otherwise miss the PhyRdy/COMINIT interrupt of the next plug. Where the freeze
     * left EH pending (abort_sets_pending: libata 2.6.21 on), the next run's autopsy finds
     * the port frozen and resets it first, which thaws it, as libata's does (the repeat
     * reports it frozen); the port stays frozen until then. */
    if ((ap->pflags & (ATA_PFLAG_FROZEN | ATA_PFLAG_UNLOADING | ATA_PFLAG_EH_PENDING)) == ATA_PFLAG_FROZEN)
        ata_eh_thaw_port(ap);
    ata_eh_finish(ap);
    /* libata sets RECOVERED when it is about to act on a link that is not quiet (behind a
     * PMP: a fan-out link's recovery counts, the host link's autopsy being quiet) */
    for (unsigned i = 0; i < ap->nr_pmp_links && !loud; i++)
        if (!(ap->pmp_link[i].flags & ATA_LFLAG_DISABLED))
            loud = !(ap->pmp_link[i].eh_context.i.flags & ATA_EHI_QUIET);
    if (loud)
        ap->pflags |= ATA_PFLAG_RECOVERED;
}

void ata_do_eh(struct ata_port *ap, ata_prereset_fn prereset, ata_reset_fn softreset,
               ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    ata_eh_autopsy(ap);
    ata_eh_report(ap);
    ata_eh_recover(ap, prereset, softreset, hardreset, postreset);
    ata_eh_conclude(ap);
}

void ata_std_error_handler(struct ata_port *ap)
{
    const struct ata_port_operations *ops = ap->ops;

    ata_do_eh(ap, ops->prereset, ops->softreset, ops->hardreset, ops->postreset);
}

/* ---- EH entry ---- */

/* libata's hotplug task runs after EH and removes the SCSI devices of detached ATA devices
 * ("detaching (SCSI H:C:I:L)"). One SCSI host per port here, host number = port number. */
static void ata_eh_report_detached(struct ata_port *ap)
{
    for (int l = -1; l < SATA_PMP_MAX_PORTS; l++) {
        struct ata_link *link = l < 0 ? &ap->link : &ap->pmp_link[l];

        for (unsigned d = 0; d < ata_link_max_devices(link); d++) {
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
    for (unsigned d = 0; d < ata_link_max_devices(link); d++) {
        link->eh_context.saved_xfer_mode[d] = link->device[d].xfer_mode;
        link->eh_context.saved_ncq[d] = link->device[d].flags & ATA_DFLAG_NCQ;
    }
}

/* Run the port's EH while it keeps being rescheduled, at most ATA_EH_MAX_REPEAT times. */
unsigned ata_eh_nr_in_flight(struct ata_port *ap)
{
    unsigned n = 0;

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = ata_qc_from_tag(ap, tag);

        if (qc && (ap->qc_active & (1u << tag)) && !ata_qc_is_internal(qc))
            n++;
    }
    return n;
}

void ata_eh_drain_check(struct ata_port *ap)
{
    if (ap->drain_waiting && !ata_eh_nr_in_flight(ap)) {
        ap->drain_waiting = false;
        ap->host->pops->complete(ap->host->plat, ap->drain_done);
    }
}

/* libata's fast drain (docs/libata-eh.md 3.2): EH that became pending while commands were
 * in flight lets them finish first, as SCSI EH starts only once every command has
 * completed or failed. They are not aborted under the devices that hold them: an NCQ tag
 * EH reissued would collide with the one the device still has. Each
 * ATA_EH_FASTDRAIN_INTERVAL in which none of them ended gives up on the rest: they fail
 * with AC_ERR_TIMEOUT and the port is frozen, which aborts them into EH and makes it
 * reset before it issues anything (libata's ata_eh_fastdrain_timerfn). */
static void ata_eh_fast_drain(struct ata_port *ap)
{
    struct ata_host *h = ap->host;
    unsigned cnt;

    ata_lock(h);
    cnt = ata_eh_nr_in_flight(ap);
    while (cnt && !(ap->pflags & ATA_PFLAG_FROZEN)) {
        unsigned last = cnt;

        h->pops->completion_reinit(h->plat, ap->drain_done);
        ap->drain_waiting = true;
        ata_unlock(h);
        h->pops->wait_for_completion_timeout(h->plat, ap->drain_done, ATA_MS(ATA_EH_FASTDRAIN_INTERVAL));
        ata_lock(h);
        ap->drain_waiting = false;
        cnt = ata_eh_nr_in_flight(ap);
        if (cnt && cnt == last) {
            const struct sata_trace_field f[] = { TF_INT("in_flight", cnt) };

            ata_port_ev(ap, ATA_EV("eh.fast_drain_timeout", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
            for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
                struct ata_queued_cmd *qc = ata_qc_from_tag(ap, tag);

                if (qc && (ap->qc_active & (1u << tag)) && !ata_qc_is_internal(qc))
                    qc->err_mask |= AC_ERR_TIMEOUT;
            }
            ata_port_freeze(ap);
            break;
        }
    }
    ata_unlock(h);
}

static void ata_port_eh(struct ata_port *ap)
{
    struct ata_host *h = ap->host;
    struct ata_link *link = &ap->link;
    unsigned runs = 0;

    for (;;) {
        ata_lock(h);
        if (!(ap->pflags & ATA_PFLAG_EH_PENDING)) {
            /* "this run is complete, make sure EH info is clear" (libata's
             * ata_scsi_port_error_handler): what an interrupt noted during recovery without
             * asking for EH again (an irq_stat description) is not the next report's */
            memset(&link->eh_info, 0, sizeof(link->eh_info));
            for (unsigned i = 0; i < ap->nr_pmp_links; i++)
                memset(&ap->pmp_link[i].eh_info, 0, sizeof(ap->pmp_link[i].eh_info));
            if (ap->slave_link)
                memset(&ap->slave_link->eh_info, 0, sizeof(ap->slave_link->eh_info));
            ata_unlock(h);
            break;
        }
        ata_unlock(h);
        ata_eh_fast_drain(ap);
        ata_lock(h);
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
        if (ap->slave_link)
            ata_eh_link_init_context(ap->slave_link, ATA_EH_MAX_REPEAT - (int)runs + 1);
        for (unsigned i = 0; i < ap->nr_pmp_links; i++)
            ata_eh_link_init_context(&ap->pmp_link[i], ATA_EH_MAX_REPEAT - (int)runs + 1);
        ata_unlock(h);
        {
            /* The run's snapshot of what the interrupt paths recorded (libata's "fetch &
             * clear EH info"): its report describes this, and whatever they record from now
             * on waits in eh_info for the next run (or is cleared by a reset). Trace only:
             * the EH-rule monitor judges each report by the errors read before its snapshot. */
            const struct ata_eh_info *ehi = &link->eh_context.i;
            const struct sata_trace_field f[] = { TF_INT("run", runs), TF_HEX("emask", ehi->err_mask),
                                                  TF_HEX("action", ehi->action), TF_HEX("serr", ehi->serror) };

            ata_port_ev(ap, ATA_EV("eh.snapshot", SATA_TC_INFO, SATA_LOG_NONE, f), NULL);
        }

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


/* One EH pass of one port, in its EH context; then whoever waited for that pass (a user scan
 * or delete, the host's boot probe) hears of it. */
void ata_port_eh_run(struct ata_host *h, unsigned port)
{
    struct ata_port *ap;
    bool wake, probed, all_probed;

    if (!h || port >= h->n_ports || (h->ports[port].flags & ATA_FLAG_DUMMY))
        return;
    ap = &h->ports[port];
    /* a serial boot probe runs a port's first pass in its turn only */
    if (ap->boot_probing && !ap->boot_probe_started)
        return;
    ata_port_eh(ap);
    /* user scans and deletes waiting for a pass; they check whether it covered them */
    ata_lock(h);
    wake = ap->eh_waiter;
    ap->eh_waiter = false;
    probed = ap->boot_probing;
    ap->boot_probing = false;
    if (probed) {
        h->n_boot_probing--;
        if (!(h->flags & ATA_HOST_PARALLEL_SCAN))
            ata_host_probe_next(h);
    }
    /* the last port's boot probe ended: ata_host_start goes on */
    all_probed = probed && !h->n_boot_probing && h->eh_waiter;
    if (all_probed)
        h->eh_waiter = false;
    ata_unlock(h);
    if (probed && h->probe_next)
        ata_host_probe_ended(h);
    if (wake)
        h->pops->complete(h->plat, ap->eh_wait);
    if (all_probed)
        h->pops->complete(h->plat, h->eh_done);
}

void ata_host_eh_run(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        ata_port_eh_run(h, i);
}
