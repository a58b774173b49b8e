/* EH's reset of a link, run in the EH context: the method the profile chooses, prereset,
 * the attempts against the profile's deadline table with their pauses and speed-downs, the
 * follow-up softreset of a hardreset that could not classify, and the class check
 * afterwards (docs/libata-eh.md 3.5, 3.6, 7). The reset methods themselves are the LLD's
 * (or the standard ones of core/sata.c). */
#include <string.h>

#include "internal.h"

/* The reset deadline table, pauses, method preference and try counts come from the
 * host's EH profile (eh_policy.h). */

/* ---- reset ---- */

/* The boot probe's EH runs quiet (libata's ATA_EHI_QUIET from ata_port_probe): the reset is
 * still a decision in the trace, but the log does not say "hard resetting link" for it. */
static void eh_reset_start(struct ata_link *link, bool hard, unsigned try, bool followup)
{
    const struct sata_trace_field f[] = { TF_STR("method", hard ? "hard" : "soft"), TF_INT("try", try) };

    /* a hardreset's follow-up softreset is not announced either: libata's ata_eh_reset
     * prints "%s resetting link" for the reset it chose, then runs the follow-up SRST
     * with ata_do_reset alone (a PMP's fan-out links show "hard resetting link" only) */
    if ((link->eh_context.i.flags & ATA_EHI_QUIET) || followup)
        ata_link_ev(link, ATA_EV("eh.reset", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    else
        ata_link_ev(link, ATA_EV("eh.reset", SATA_TC_DECISION, SATA_LOG_INFO, f), "%s resetting link",
                    hard ? "hard" : "soft");
}

/* Called with the reset done: trust each device's class only as far as the link state
 * allows. Returns the devices the link says are there but the reset could not classify. */
static unsigned eh_reset_check_class(struct ata_link *link, enum ata_dev_class *cls)
{
    unsigned misclassified = 0;

    for (unsigned d = 0; d < ata_link_max_devices(link); d++) {
        /* each device by the link of its own PHY (a slave link's for device 1) */
        struct ata_link *phys = ata_dev_phys_link(&link->device[d]);

        if (ata_link_online(phys)) {
            if (cls[d] == ATA_DEV_UNKNOWN) {
                cls[d] = ATA_DEV_NONE;
                misclassified++;
            }
        } else if (ata_link_offline(phys) || cls[d] == ATA_DEV_UNKNOWN) {
            cls[d] = ATA_DEV_NONE;
        }
    }
    return misclassified;
}

/* Every device slot of the link gets class c. */
static void set_classes(struct ata_link *link, enum ata_dev_class *cls, enum ata_dev_class c)
{
    for (unsigned d = 0; d < ata_link_max_devices(link); d++)
        cls[d] = c;
}

/* The class the reset found: the link's one device as a link record, or on a link with two
 * device slots one record per device (ata1.00, ata1.01). */
static void class_event(struct ata_link *link, const enum ata_dev_class *cls)
{
    if (ata_link_max_devices(link) == 1) {
        const struct sata_trace_field f[] = { TF_STR("cls", ata_class_name(cls[0])) };

        ata_link_ev(link, ATA_EV("probe.class", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        return;
    }
    for (unsigned d = 0; d < ata_link_max_devices(link); d++) {
        const struct sata_trace_field f[] = { TF_STR("cls", ata_class_name(cls[d])) };

        ata_dev_ev(&link->device[d], ATA_EV("probe.class", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
}

/* Behind a PMP: once the PMP itself needs a reset (its control port failed under this link's
 * recovery), nothing this link tries can succeed. Its recovery stops there without spending
 * the device's tries, and the PMP's recovery takes over (libata returns -ERESTART too). */
bool ata_eh_host_reset_pending(const struct ata_link *link)
{
    return !ata_is_host_link(link) && (link->ap->link.eh_context.i.action & ATA_EH_RESET);
}

/* The cool-down before a second reset of one EH run (libata's ata_eh_reset: "make sure each
 * reset attempt is at least COOL_DOWN apart", ATA_EH_RESET_COOL_DOWN after the last reset
 * ended). libata sleeps there with one schedule_timeout_uninterruptible() and does not go
 * back to sleep for what is left (its other EH sleeps, msleep and the failed reset's wait for
 * its deadline, loop until the time is up): the wake_up_process() of scsi_schedule_eh, which
 * any EH scheduling does -- a hotplug or PHY interrupt on the thawed port -- ends it, and the
 * reset starts at that event. So a pulled drive's resets follow the PHY events of the pull
 * rather than 5 s steps (dmesg corpus 42, a RHEL kernel: 1.35 and 1.94 s after the previous
 * reset ended; 30, 2.6.38: the drive back 2.1 s after the first reset, reset at once). The
 * event's eh_info is then taken by the reset (it clears the link's eh_info and EH_PENDING
 * after the reset): no new EH run, no report, the device's tries go on counting. */
static void eh_reset_cool_down(struct ata_link *link, uint64_t until)
{
    struct ata_port *ap = link->ap;
    struct ata_host *h = ap->host;
    uint64_t now = ata_now(h);

    if (until <= now)
        return;
    h->pops->completion_reinit(h->plat, ap->eh_kick);
    if (h->pops->wait_for_completion_timeout(h->plat, ap->eh_kick, until - now)) {
        const struct sata_trace_field f[] = { TF_INT("slept_ms", (ata_now(h) - now) / 1000000u),
                                              TF_INT("left_ms", (until - ata_now(h)) / 1000000u) };

        ata_link_ev(link, ATA_EV("eh.cool_down_cut", SATA_TC_INFO, SATA_LOG_NONE, f), NULL);
    }
}

/* The slave link's hardreset (a port with ata_slave_link_init): "hard resetting link" on it
 * unless the master's run is quiet, the COMRESET through its own SControl. */
static int hardreset_slave(struct ata_link *master, ata_reset_fn hardreset, unsigned try, uint64_t deadline)
{
    struct ata_link *slave = master->ap->slave_link;
    struct ata_eh_context *sehc = &slave->eh_context;
    enum ata_dev_class scls[ATA_MAX_DEVICES] = { ATA_DEV_UNKNOWN, ATA_DEV_UNKNOWN };
    const struct sata_trace_field f[] = { TF_STR("method", "hard"), TF_INT("try", try) };

    if (master->eh_context.i.flags & ATA_EHI_QUIET)
        ata_link_ev(slave, ATA_EV("eh.reset", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    else
        ata_link_ev(slave, ATA_EV("eh.reset", SATA_TC_DECISION, SATA_LOG_INFO, f), "hard resetting link");
    sehc->last_reset = ata_now(master->ap->host);
    sehc->i.flags |= ATA_EHI_DID_HARDRESET | (master->eh_context.i.flags & ATA_EHI_HOTPLUGGED);
    return hardreset(slave, scls, deadline);
}

static int eh_reset(struct ata_link *link, bool classify, ata_prereset_fn prereset,
                    ata_reset_fn softreset, ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    struct ata_port *ap = link->ap;
    struct ata_host *h = ap->host;
    struct ata_eh_context *ehc = &link->eh_context;
    enum ata_dev_class *cls = ehc->classes;
    const struct ata_eh_policy *pol = h->eh_policy;
    const unsigned max_tries = pol->n_reset_tries;
    unsigned try = 0, method;
    ata_reset_fn reset;
    uint64_t deadline;
    int rc;

    /* a PMP's enclosure bridge takes no SRST (libata's ATA_LFLAG_NO_SRST) */
    if (link->flags & ATA_LFLAG_ASSUME_SEMB)
        softreset = NULL;

    /* A reset puts every device back in PIO0 (ATA8-ACS: a COMRESET or SRST restores the
     * default transfer mode), and libata's ata_eh_reset (2.6.24 on) records that before it
     * resets, timing the controller for it: the "last chance" PIO down-step of a revalidation
     * that fails after a reset finds nothing to lower (dmesg-corpus 42: a pulled drive's three
     * resets print no "limiting speed to UDMA/133:PIO3"); one after a failed SET XFERMODE,
     * with no reset between, does (53). */
    for (unsigned d = 0; d < ata_link_max_devices(link); d++) {
        link->device[d].pio_mode = XFER_PIO_0;
        if (ap->ops->set_piomode)
            ap->ops->set_piomode(ap, &link->device[d]);
    }
    /* a second reset in one EH run waits out the cool-down after the previous one */
    if (pol->reset_cool_down_ms && (ehc->i.flags & (ATA_EHI_DID_SOFTRESET | ATA_EHI_DID_HARDRESET)))
        eh_reset_cool_down(link, ehc->last_reset + ATA_MS(pol->reset_cool_down_ms));
    {
        const struct ata_reset_choice_in in = {
            .have_softreset = softreset != NULL,
            .have_hardreset = hardreset != NULL,
            .action = ehc->i.action,
            .spd_change_pending = hardreset && sata_set_spd_needed(link),
        };
        method = ata_reset_choose(pol, &in);
    }
    ehc->i.action &= ~ATA_EH_RESET;
    ehc->i.action |= method;
    reset = method == ATA_EH_HARDRESET ? hardreset : softreset;
    if (!method) {
        ata_link_ev(link, ATA_EV0("eh.no_reset_method", SATA_TC_DECISION, SATA_LOG_WARN),
                    "no reset method available, skipping reset");
        set_classes(link, cls, ATA_DEV_ATA);
        ehc->i.action &= ~ATA_EH_RESET;
        return 0;
    }

    if (prereset) {
        rc = prereset(link, ata_deadline(h, ATA_TMOUT_PRERESET));
        if (rc == -ENOENT) {
            ata_link_ev(link, ATA_EV0("eh.port_disabled", SATA_TC_DECISION, SATA_LOG_DEBUG),
                        "port disabled--ignoring");
            ehc->i.action &= ~ATA_EH_RESET;
            set_classes(link, cls, ATA_DEV_NONE);
            return 0;
        }
        if (rc) {
            const struct sata_trace_field f[] = { TF_INT("errno", rc) };

            ata_link_ev(link, ATA_EV("eh.prereset_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                        "prereset failed (errno=%d)", rc);
            return rc;
        }
        /* prereset may have changed the method, or found nothing to reset */
        if (ehc->i.action & ATA_EH_HARDRESET)
            reset = hardreset;
        else if (ehc->i.action & ATA_EH_SOFTRESET)
            reset = softreset;
        else {
            set_classes(link, cls, ATA_DEV_NONE);
            ata_eh_thaw_port(ap);
            /* The link is empty (softreset dropped on an offline link). Count it as the
             * softreset libata-2006 ran there (its LLD softresets returned class NONE on an
             * offline port) and check a device still enabled: revalidation fails on the
             * offline link, so the next try escalates to a hardreset (a PHY that wants a
             * COMRESET comes back) and an unplugged drive is detached after its tries.
             * Without this the device stayed enabled and its requests timed out in turn. */
            ehc->i.flags |= ATA_EHI_DID_SOFTRESET;
            ehc->i.action |= ATA_EH_REVALIDATE;
            return 0;
        }
    }

retry:
    deadline = ata_deadline(h, ata_reset_deadline_ms(pol, try++));
    /* a fan-out link is reset through the PMP's control port: the port stays live */
    if (ata_is_host_link(link))
        ata_eh_freeze_port(ap);
    eh_reset_start(link, reset == hardreset, try, false);
    ehc->last_reset = ata_now(h);
    ehc->i.flags |= reset == hardreset ? ATA_EHI_DID_HARDRESET : ATA_EHI_DID_SOFTRESET;
    set_classes(link, cls, ATA_DEV_UNKNOWN);

    rc = reset(link, cls, deadline);
    if (ap->slave_link && link == &ap->link && reset == hardreset && (!rc || rc == -EAGAIN)) {
        /* the slave link's COMRESET right after the master's, announced on it as the
         * master's was; what it finds is classified by the master's follow-up SRST
         * (libata's ata_eh_reset: "hardreset slave link if existent") */
        int tmp = hardreset_slave(link, hardreset, try, deadline);

        if (tmp && tmp != -EAGAIN) {
            rc = tmp;
            goto fail;
        }
        if (tmp == -EAGAIN)
            rc = -EAGAIN;
    }
    if (rc == -EAGAIN && reset == hardreset) {
        /* the hardreset could not classify: a follow-up softreset must */
        if (!softreset) {
            ata_link_ev(link, ATA_EV0("eh.no_followup_srst", SATA_TC_DECISION, SATA_LOG_ERR),
                        "follow-up softreset required but no softreset available");
            rc = -EINVAL;
            goto fail;
        }
        /* (with a slave link: unless both links are offline; the SRST classifies both) */
        if (!ata_link_offline(link) || (ap->slave_link && link == &ap->link && !ata_link_offline(ap->slave_link))) {
            eh_reset_start(link, false, try, true);
            ehc->i.flags |= ATA_EHI_DID_SOFTRESET;
            set_classes(link, cls, ATA_DEV_UNKNOWN);
            rc = softreset(link, cls, deadline);
        } else {
            rc = 0;
        }
    }
    if (rc)
        goto fail;

    {
        uint32_t sstatus;

        if (!sata_scr_read(link, SCR_STATUS, &sstatus))
            link->sata_spd = (sstatus >> 4) & 0xf;
        if (ap->slave_link && link == &ap->link && !sata_scr_read(ap->slave_link, SCR_STATUS, &sstatus))
            ap->slave_link->sata_spd = (sstatus >> 4) & 0xf;
    }
    if (ata_is_host_link(link))
        ata_eh_thaw_port(ap);
    if (postreset) {
        postreset(link, cls);
        if (ap->slave_link && link == &ap->link)
            postreset(ap->slave_link, cls);
    }
    /* events that arrived during the reset are stale now */
    ata_lock(h);
    memset(&link->eh_info, 0, sizeof(link->eh_info));
    /* a fan-out link's reset leaves the port live: what arrived meanwhile still counts */
    if (ata_is_host_link(link))
        ap->pflags &= ~ATA_PFLAG_EH_PENDING;
    ata_unlock(h);

    {
        unsigned wrong = eh_reset_check_class(link, cls);

        if (classify && wrong) {
            const struct sata_trace_field fm[] = { TF_INT("count", wrong), TF_INT("try", try) };

            if (try < max_tries) {
                ata_link_ev(link, ATA_EV("eh.misclassified", SATA_TC_DECISION, SATA_LOG_WARN, fm),
                            "link online but %u devices misclassified, retrying", wrong);
                rc = -EAGAIN;
                goto fail;
            }
            ata_link_ev(link, ATA_EV("eh.misclassified", SATA_TC_DECISION, SATA_LOG_WARN, fm),
                        "link online but %u devices misclassified, device detection might fail",
                        wrong);
        }
        class_event(link, cls);
    }
    ehc->i.action &= ~ATA_EH_RESET;
    ehc->i.action |= ATA_EH_REVALIDATE;
    ehc->last_reset = ata_now(h);
    return 0;

fail:
    if (try >= max_tries || ata_eh_host_reset_pending(link)) {
        ata_eh_thaw_port(ap);
        return rc;
    }
    {
        uint64_t now = ata_now(h);
        uint64_t wait = pol->reset_retry_pause_ms ? ATA_MS(pol->reset_retry_pause_ms)
                        : deadline > now          ? deadline - now
                                                  : 0;
        unsigned secs = (unsigned)((wait + ATA_MS(1000) - 1) / ATA_MS(1000));
        const struct sata_trace_field f[] = { TF_INT("errno", rc), TF_INT("retry_s", secs) };

        /* wait out this attempt's deadline before the next one */
        if (wait) {
            ata_link_ev(link, ATA_EV("eh.reset_failed", SATA_TC_DECISION, SATA_LOG_WARN, f),
                        "reset failed (errno=%d), retrying in %u secs", rc, secs);
            h->pops->sleep_ns(h->plat, wait);
        } else {
            ata_link_ev(link, ATA_EV("eh.reset_failed", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        }
    }
    /* slower is better than lost: 4.x before the last attempt (or when the link would not
     * settle), 2006 after every failed hardreset */
    if (pol->spd_down_before_last_try) {
        if (try == max_tries - 1 || rc == -EPIPE)
            sata_down_spd_limit(link, 0);
    } else if (reset == hardreset) {
        sata_down_spd_limit(link, 0);
    }
    if (hardreset)
        reset = hardreset;
    goto retry;
}


/* The hotplug debounce timing serves the resets of the EH run that saw the event, then
 * normal timing again (libata clears HOTPLUGGED at the end of ata_eh_reset). */
int ata_eh_reset(struct ata_link *link, bool classify, ata_prereset_fn prereset,
                 ata_reset_fn softreset, ata_reset_fn hardreset, ata_postreset_fn postreset)
{
#ifdef SATASIM_PLANT_HOTPLUG_FLAG_CLEARED_BEFORE_RESET
    link->eh_context.i.flags &= ~(unsigned)ATA_EHI_HOTPLUGGED; /* planted: before the reset */
#endif
    int rc = eh_reset(link, classify, prereset, softreset, hardreset, postreset);

    link->eh_context.i.flags &= ~(unsigned)ATA_EHI_HOTPLUGGED;
    return rc;
}
