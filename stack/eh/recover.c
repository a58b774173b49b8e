/* EH's recovery of a link, run in the EH context: devices the user deleted, probing an
 * empty slot, reset, revalidation or attach of the device, transfer mode, and the
 * per-device try budget with its last-chance speed-downs (docs/libata-eh.md 3.5, 3.6, 5, 7).
 * IDENTIFY, configure and revalidation are the core's (core/probe.c). */
#include <string.h>

#include "internal.h"

/* ---- recovery loop ---- */

static void ata_dev_init(struct ata_device *dev)
{
    struct ata_link *link = dev->link;
    unsigned devno = dev->devno, detached = dev->flags & ATA_DFLAG_DETACHED;
    struct ata_ering ering = dev->ering;

    /* the SATA speed limit is bound to the attached device and reset with it (libata's
     * ata_dev_init, CORE-6.0: "link->sata_spd_limit = link->hw_sata_spd_limit;
     * link->sata_spd = 0"): what EH's speed-downs took goes, a libata.force limit or a
     * one-speed PHY stays. The profiles with probe trials (the same code); the 2.6.2x
     * profile keeps a speed-down over a re-plug, as it did. */
    if (link->ap->host->eh_policy->probe_trials) {
        link->sata_spd_limit = link->hw_sata_spd_limit;
        link->sata_spd = 0;
    }
    ata_disk_detach(dev);
    memset(dev, 0, sizeof(*dev));
    dev->link = link;
    dev->devno = devno;
    dev->class = ATA_DEV_UNKNOWN;
    dev->flags = detached; /* the old device's detach is still to be reported */
    /* the error ring is kept (libata clears the device only up to ATA_DEVICE_CLEAR_END):
     * from the disable to the next attach it counts probe trials */
    dev->ering = ering;
}

void ata_dev_disable(struct ata_device *dev)
{
    if (!ata_dev_enabled(dev))
        return;
    ata_dev_ev(dev, ATA_EV0("dev.disabled", SATA_TC_DECISION, SATA_LOG_WARN), "%s",
               dev->link->ap->host->eh_policy->disable_msg);
    dev->flags &= ~ATA_DFLAG_ENABLED;
    /* from now on the ring counts probe failures */
    ata_ering_clear(&dev->ering, false);
}

void ata_eh_detach_dev(struct ata_device *dev)
{
    struct ata_port *ap = dev->link->ap;
    struct ata_host *h = ap->host;
    bool had_users = dev->flags & ATA_DFLAG_ATTACHED;

    ata_dev_disable(dev);
    ata_lock(h);
    dev->flags &= ~(unsigned)(ATA_DFLAG_ATTACHED | ATA_DFLAG_DETACH);
    if (had_users)
        dev->flags |= ATA_DFLAG_DETACHED;
    ata_disk_detach(dev);
    /* Commands EH holds for it and requests still queued for it end now with a no-device
     * error: the slot may get a new device in this very EH run, and a request meant for the
     * old drive must never reach the new one (libata: the SCSI device goes offline). */
    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!(qc->flags & ATA_QCFLAG_FAILED) || qc->dev != dev || !qc->bio)
            continue;
        {
            const struct sata_trace_field f[] = {
                TF_INT("tag", tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", qc->err_mask),
                TF_INT("retries", qc->bio->q_retries), TF_STR("reason", "device detached"),
            };
            ata_dev_ev(dev, ATA_EV("eh.qc_fail", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        }
        qc->err_mask |= AC_ERR_NODEV_HINT;
        ata_eh_qc_complete(qc);
    }
    ata_bio_fail_dev(ap, dev, AC_ERR_NODEV_HINT);
    ata_unlock(h);
}

/* Probe trials (docs/libata-eh.md 5.6): each probe is recorded on the device's ring
 * (AC_ERR_OTHER, a category no speed-down verdict counts); more than ATA_EH_PROBE_TRIALS of
 * them within ATA_EH_PROBE_TRIAL_INTERVAL, with no attach between (an attach clears the
 * ring), force the link to 1.5 Gbps: a failed speed negotiation that makes the device look
 * absent would otherwise loop on DevExch / PHYRdyChg events for ever (libata's
 * ata_eh_schedule_probe and ata_count_probe_trials_cb). */
enum { ATA_EH_PROBE_TRIALS = 2, ATA_EH_PROBE_TRIAL_INTERVAL_MS = 60000 };

struct probe_trials {
    uint64_t since;
    unsigned n;
};

static int count_probe_trial(struct ata_ering_entry *ent, void *arg)
{
    struct probe_trials *t = arg;

    if (ent->timestamp < t->since)
        return -1;
    t->n++;
    return 0;
}

static void ata_eh_count_probe_trial(struct ata_device *dev)
{
    struct ata_link *link = dev->link;
    struct ata_host *h = link->ap->host;
    uint64_t now = ata_now(h), win = ATA_MS(ATA_EH_PROBE_TRIAL_INTERVAL_MS);
    struct probe_trials t = { now > win ? now - win : 0, 0 };

    if (!h->eh_policy->probe_trials || (link->eh_context.probe_trial_mask & (1u << dev->devno)))
        return;
    /* one trial per device per EH run, as libata's one probe (the PMP layer's repeat of
     * recovery probes a hotplugged fan-out link again, which libata attaches without a new
     * probe: pmp/pmp.c) */
    link->eh_context.probe_trial_mask |= 1u << dev->devno;
    ata_ering_record(&dev->ering, 0, AC_ERR_OTHER, now);
    ata_ering_map(&dev->ering, count_probe_trial, &t);
    if (t.n > ATA_EH_PROBE_TRIALS)
        sata_down_spd_limit(link, 1);
}

/* A probe forgets the old device and asks for a reset; once per EH run per device. */
static bool ata_eh_schedule_probe(struct ata_device *dev)
{
    struct ata_eh_context *ehc = &dev->link->eh_context;
    unsigned bit = 1u << dev->devno;

    if (!(ehc->i.probe_mask & bit) || (ehc->did_probe_mask & bit))
        return false;
    ata_eh_detach_dev(dev);
    ata_dev_init(dev);
    ehc->did_probe_mask |= bit;
    ehc->i.action |= ATA_EH_RESET;
    ehc->tries[dev->devno] = (int)dev->link->ap->host->eh_policy->dev_tries;
    ata_eh_count_probe_trial(dev);
    return true;
}

/* A per-device action is done for dev (libata's ata_eh_clear_action with a device): a
 * link-wide request first becomes each device's own, so the other devices still get it. */
static void eh_dev_action_done(struct ata_device *dev, unsigned action)
{
    struct ata_link *link = dev->link;
    struct ata_eh_info *ehi = &link->eh_context.i;

    if (ehi->action & action) {
        for (unsigned d = 0; d < ata_link_max_devices(link); d++)
            ehi->dev_action[d] |= ehi->action & action;
        ehi->action &= ~action;
    }
    ehi->dev_action[dev->devno] &= ~action;
}

/* Revalidate the enabled devices that need it and IDENTIFY the new ones, from the last
 * device to the first (libata: on a parallel cable device 1 releases PDIAG- before device 0
 * is identified); then configure and attach the new ones from the first to the last, so the
 * ID lines come in device order. On failure *r_failed is the device that failed. */
static int ata_eh_revalidate_and_attach(struct ata_link *link, struct ata_device **r_failed)
{
    struct ata_eh_context *ehc = &link->eh_context;
    struct ata_device *dev = NULL;
    unsigned new_mask = 0;
    int rc;

    for (unsigned n = ata_link_max_devices(link); n-- > 0;) {
        enum ata_dev_class cls = ehc->classes[n];

        dev = &link->device[n];
        if (ata_dev_enabled(dev)) {
            if (!(ata_eh_dev_action(dev) & ATA_EH_REVALIDATE))
                continue;
            /* a link in Partial/Slumber is woken first (libata: max_performance before the
             * revalidation; the end of recovery restores the target policy) */
            if (link->lpm_policy > ATA_LPM_MAX_POWER) {
                struct ata_device *lpm_failed = dev;

                rc = ata_eh_link_set_lpm(link, ATA_LPM_MAX_POWER, &lpm_failed);
                if (rc) {
                    dev = lpm_failed ? lpm_failed : dev;
                    goto err;
                }
            }
            /* the device's own PHY: a slave link's for device 1 (ata_dev_phys_link) */
            if (ata_link_offline(ata_dev_phys_link(dev))) {
                rc = -EIO;
                goto err;
            }
            rc = ata_dev_revalidate(dev, cls);
            if (rc)
                goto err;
            eh_dev_action_done(dev, ATA_EH_REVALIDATE);
            ehc->i.flags |= ATA_EHI_SETMODE;
            continue;
        }
        /* Only a vacant slot is attached: a disabled device keeps its class (libata's
         * ata_dev_disable turns it into the class's *_UNSUP, and ata_eh_revalidate_and_attach
         * attaches only dev->class == ATA_DEV_UNKNOWN), so no later reset brings it back;
         * a probe (hotplug, rescan) forgets it first (ata_dev_init). */
        if (dev->class != ATA_DEV_UNKNOWN || !ehc->tries[n] || !ata_class_probeable(cls))
            continue;
        if (cls == ATA_DEV_PMP) {
            const struct sata_trace_field f[] = { TF_STR("cls", ata_class_name(cls)) };

            /* the PMP layer attaches it (sata_pmp_port_ops' pmp_probe) */
            if (!(link->ap->flags & ATA_FLAG_PMP) || !ata_is_host_link(link) || !link->ap->ops->pmp_probe) {
                ata_dev_ev(dev, ATA_EV("probe.unsupported", SATA_TC_DECISION, SATA_LOG_WARN, f),
                           "port multiplier support not available, ignoring");
                continue;
            }
            dev->class = cls;
            rc = link->ap->ops->pmp_probe(dev);
            if (rc) {
                dev->class = ATA_DEV_UNKNOWN;
                if (rc == -EOPNOTSUPP)
                    continue;
                goto err;
            }
            dev->flags |= ATA_DFLAG_ENABLED;
            ehc->i.action &= ~ATA_EH_REVALIDATE;
            continue;
        }
        dev->class = cls;
        rc = ata_dev_read_id(dev, &cls, dev->id);
        /* the class is the device's once it is configured */
        dev->class = ATA_DEV_UNKNOWN;
        if (rc == -ENOENT) {
            /* nobody answered: no reset needed, just forget the slot */
            ata_eh_thaw_port(link->ap);
            continue;
        }
        if (rc)
            goto err;
        ehc->classes[n] = cls;
        new_mask |= 1u << n;
    }
    for (unsigned n = 0; n < ata_link_max_devices(link); n++) {
        if (!(new_mask & (1u << n)))
            continue;
        dev = &link->device[n];
        dev->class = ehc->classes[n];
        ehc->i.flags |= ATA_EHI_PRINTINFO;
        rc = ata_dev_configure(dev);
        ehc->i.flags &= ~ATA_EHI_PRINTINFO;
        if (rc) {
            dev->class = ATA_DEV_UNKNOWN;
            goto err;
        }
        dev->flags |= ATA_DFLAG_ENABLED | ATA_DFLAG_ATTACHED;
        ata_disk_attach(dev);
        ata_ering_clear(&dev->ering, false); /* a new device starts with a clean history */
        eh_dev_action_done(dev, ATA_EH_REVALIDATE);
        ehc->i.flags |= ATA_EHI_SETMODE;
    }
    return 0;

err:
    *r_failed = dev;
    return rc;
}

/* Spend one of the device's tries; ask for another round with a reset, or give up. */
static void ata_eh_handle_dev_fail(struct ata_device *dev, int err)
{
    struct ata_link *link = dev->link;
    struct ata_eh_context *ehc = &link->eh_context;
    const struct ata_eh_policy *pol = link->ap->host->eh_policy;
    int *tries = &ehc->tries[dev->devno];

    if (err != -EAGAIN)
        (*tries)--;
    if (err == -ENODEV) {
        ehc->i.probe_mask |= 1u << dev->devno;
        if (pol->enodev_zero_tries)
            *tries = 0;
    }
    if ((err == -ENODEV || err == -EINVAL) && *tries > 1)
        *tries = 1;
    /* last chance: slower is better than lost; libata lowers the PIO mode the device was
     * timed for whatever its transfer mode ("limiting speed to UDMA/133:PIO3", dmesg-corpus 53) */
    if ((err == -ENODEV || err == -EINVAL || err == -EIO) && *tries == 1) {
        sata_down_spd_limit(link, 0);
        if (dev->pio_mode > XFER_PIO_0)
            ata_dev_down_xfermask(dev, ATA_DNXFER_PIO);
    }

    if (ata_dev_enabled(dev) && !*tries) {
        ata_dev_disable(dev);
        /* gone from the cable (unplugged): take it from its users */
        if (ata_link_offline(ata_dev_phys_link(dev)))
            ata_eh_detach_dev(dev);
        ata_eh_schedule_probe(dev);
        return;
    }
    /* 2006 escalates to a hardreset once a reset was tried */
    ehc->i.action |= !pol->prefer_hardreset && (ehc->i.flags & (ATA_EHI_DID_SOFTRESET | ATA_EHI_DID_HARDRESET))
                         ? ATA_EH_HARDRESET
                         : ATA_EH_RESET;
}

/* libata's ata_eh_skip_recovery: a link with no device left needs nothing more once the
 * reset it asked for is done and found the slot empty. A frozen port is never skipped. */
static bool ata_eh_skip_recovery(struct ata_link *link)
{
    struct ata_eh_context *ehc = &link->eh_context;

    if (link->flags & ATA_LFLAG_DISABLED)
        return true;
    if ((link->ap->pflags & ATA_PFLAG_FROZEN) || ata_link_nr_enabled(link))
        return false;
    if ((ehc->i.action & ATA_EH_RESET) && !(ehc->i.flags & (ATA_EHI_DID_SOFTRESET | ATA_EHI_DID_HARDRESET)))
        return false;
    for (unsigned d = 0; d < ata_link_max_devices(link); d++)
        if (link->device[d].class == ATA_DEV_UNKNOWN && ehc->classes[d] != ATA_DEV_NONE)
            return false;
    return true;
}

int ata_eh_recover(struct ata_port *ap, ata_prereset_fn prereset, ata_reset_fn softreset,
                   ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    return ata_eh_recover_link(&ap->link, prereset, softreset, hardreset, postreset);
}

/* The link is okay now: it forgets this EH run's resets (libata clears the link's EH flags
 * there), so a later pass of the same run -- a PMP retry, or the ports GSCR[32] names --
 * that asks for a reset (a hotplug) gets one, and probes, instead of being skipped. */
/* A link with nothing to recover still gets its power management configured (libata's
 * config_lpm runs for every link at the end of ata_eh_recover). */
static int ata_eh_config_lpm(struct ata_link *link)
{
    if (link->lpm_policy == link->ap->target_lpm_policy)
        return 0;
    return ata_eh_link_set_lpm(link, link->ap->target_lpm_policy, NULL);
}

static void ata_eh_link_recovered(struct ata_link *link)
{
    link->eh_context.i.flags &= ~(unsigned)(ATA_EHI_DID_SOFTRESET | ATA_EHI_DID_HARDRESET);
}

/* Before the first pass: the device tries are armed, a user's delete is done, an empty slot
 * is scheduled for a probe (libata's "prep for recovery" in ata_eh_recover). */
static void ata_eh_link_prep(struct ata_link *link)
{
    struct ata_eh_context *ehc = &link->eh_context;
    const unsigned n_dev = ata_link_max_devices(link);
    const struct ata_eh_policy *pol = link->ap->host->eh_policy;

#ifndef SATASIM_PLANT_EH_TRIES_NEVER_RESET
    for (unsigned d = 0; d < n_dev; d++)
        ehc->tries[d] = (int)pol->dev_tries; /* (planted: armed at probe only, spent tries carry over) */
#else
    (void)pol;
#endif
    ehc->i.action &= ~(unsigned)ATA_EH_ENABLE_LINK; /* no PMP links to re-enable */
    for (unsigned d = 0; d < n_dev; d++) {
        struct ata_device *dev = &link->device[d];

        /* a delete the user asked for (docs/libata-eh.md 5.5): no SCSI device is left to report */
        if (dev->flags & ATA_DFLAG_DETACH) {
            dev->flags &= ~(unsigned)ATA_DFLAG_ATTACHED;
            ata_eh_detach_dev(dev);
        }
        /* Only an empty slot is probed up front. A present device after a hotplug event is
         * revalidated behind the reset: still there and the same -> kept; link offline -> its
         * tries run out and it is detached; another drive -> -ENODEV, detach, probe. */
        if (!ata_dev_enabled(dev))
            ata_eh_schedule_probe(dev);
    }
}

/* A link that needs nothing more this pass (libata's ata_eh_skip_recovery): it forgets the
 * run's resets and gets its power management configured. */
static bool ata_eh_link_skip(struct ata_link *link)
{
    if (!ata_eh_skip_recovery(link))
        return false;
    link->eh_context.i.action = 0;
    ata_eh_link_recovered(link);
    (void)ata_eh_config_lpm(link); /* a failure only switches LPM off (no device to charge) */
    return true;
}

/* The reset a link asks for; a failed one gives the link up ("reset failed, giving up"). */
static int ata_eh_link_reset(struct ata_link *link, ata_prereset_fn prereset, ata_reset_fn softreset,
                             ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    struct ata_eh_context *ehc = &link->eh_context;
    const unsigned n_dev = ata_link_max_devices(link);
    int rc;

    if (ata_eh_host_reset_pending(link))
        return -ERESTART;
    if (!(ehc->i.action & ATA_EH_RESET))
        return 0;
    /* the class check counts only when a slot is vacant (libata: ata_link_nr_vacant) */
    rc = ata_eh_reset(link, ata_link_nr_enabled(link) < n_dev, prereset, softreset, hardreset, postreset);
    if (rc && ata_eh_host_reset_pending(link))
        return -ERESTART;
    if (rc) {
        ata_link_ev(link, ATA_EV0("eh.reset_giveup", SATA_TC_DECISION, SATA_LOG_ERR),
                    "reset failed, giving up");
        for (unsigned d = 0; d < n_dev; d++)
            ata_dev_disable(&link->device[d]);
    }
    return rc;
}

/* After the reset: revalidate or attach the link's devices, their transfer mode, the link's
 * power management. 0 = the link is recovered. */
static int ata_eh_link_configure(struct ata_link *link, struct ata_device **r_failed)
{
    struct ata_port *ap = link->ap;
    struct ata_eh_context *ehc = &link->eh_context;
    int rc;

    rc = ata_eh_revalidate_and_attach(link, r_failed);
    if (!rc && (ehc->i.flags & ATA_EHI_SETMODE)) {
        rc = ata_set_mode(link, r_failed);
        if (!rc)
            ehc->i.flags &= ~ATA_EHI_SETMODE;
    }
    /* configure link power saving: the port's target policy */
    if (!rc && link->lpm_policy != ap->target_lpm_policy)
        rc = ata_eh_link_set_lpm(link, ap->target_lpm_policy, r_failed);
    if (!rc)
        ata_eh_link_recovered(link);
    return rc;
}

/* A device of the link failed and spent a try (ata_eh_handle_dev_fail did that): does the
 * link want another pass? Says so, and pauses, as the profile does. */
static bool ata_eh_link_retry(struct ata_link *link, struct ata_device *failed, int rc)
{
    struct ata_port *ap = link->ap;
    struct ata_eh_context *ehc = &link->eh_context;
    const struct ata_eh_policy *pol = ap->host->eh_policy;

    /* nothing more to do once no reset is asked for and no device is left to revalidate */
    if ((!(ehc->i.action & ATA_EH_RESET) && !ata_link_nr_enabled(link)) || ata_eh_skip_recovery(link))
        return false;
    if (ata_dev_enabled(failed)) {
        const struct sata_trace_field f[] = { TF_INT("errno", rc), TF_INT("tries", ehc->tries[failed->devno]) };

        /* the 2.6.2x EH says so and sleeps; libata 4.x/6.x retries at once, quietly (the
         * next reset waits out its cool-down) */
        if (pol->recover_retry_pause_ms) {
            ata_link_ev(link, ATA_EV("eh.recover_retry", SATA_TC_DECISION, SATA_LOG_WARN, f),
                        "failed to recover some devices, retrying in 5 secs");
            ata_msleep(ap->host, pol->recover_retry_pause_ms);
        } else {
            ata_link_ev(link, ATA_EV("eh.recover_retry", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        }
    } else if (pol->recover_idle_pause_ms) {
        ata_msleep(ap->host, pol->recover_idle_pause_ms);
    }
    return true;
}

/* One link's recovery: reset, revalidate or probe its devices, transfer mode, retries. */
int ata_eh_recover_link(struct ata_link *link, ata_prereset_fn prereset, ata_reset_fn softreset,
                        ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    struct ata_port *ap = link->ap;
    struct ata_device *failed;
    int rc;

    ata_eh_link_prep(link);
    for (;;) {
        failed = NULL;
        if (ap->pflags & ATA_PFLAG_UNLOADING)
            return 0;
        if (ata_eh_link_skip(link))
            return 0;
        rc = ata_eh_link_reset(link, prereset, softreset, hardreset, postreset);
        if (rc)
            return rc;
        rc = ata_eh_link_configure(link, &failed);
        if (!rc)
            return 0;
        if (ata_eh_host_reset_pending(link))
            return -ERESTART;
        if (!failed)
            failed = &link->device[0];
        ata_eh_handle_dev_fail(failed, rc);
        if (!ata_eh_link_retry(link, failed, rc))
            return 0;
    }
}

/* A port multiplier's fan-out links in libata's order (ata_eh_recover with every link,
 * libata-eh.c since 2.6.24; sata_pmp_eh_recover's "recover links"): each link's prep, then
 * one loop that resets every link asking for it, then link by link the revalidation or
 * attach of its devices, their transfer mode and LPM. So no device is revalidated before
 * every link is reset: a link whose reset freezes the port (dmesg corpus 51: the SiI3726's
 * bridge ABRTs its SError read) fails the next link's IDENTIFY with err_mask 0x40. A failed
 * device spends a try; on a frozen port the pass ends there ("PMP reset requires working
 * host port"), else the other links go on and the pass repeats while a device failed.
 * A disabled link is skipped. *r_failed names the link a non-zero return is about. */
int ata_eh_recover_links(struct ata_port *ap, ata_prereset_fn prereset, ata_reset_fn softreset,
                         ata_reset_fn hardreset, ata_postreset_fn postreset, struct ata_link **r_failed)
{
    bool skip[SATA_PMP_MAX_PORTS];
    const unsigned n = ap->nr_pmp_links;
    bool again;
    int rc;

    for (unsigned i = 0; i < n; i++)
        if (!(ap->pmp_link[i].flags & ATA_LFLAG_DISABLED))
            ata_eh_link_prep(&ap->pmp_link[i]);
    do {
        if (ap->pflags & ATA_PFLAG_UNLOADING)
            return 0;
        for (unsigned i = 0; i < n; i++)
            skip[i] = (ap->pmp_link[i].flags & ATA_LFLAG_DISABLED) || ata_eh_link_skip(&ap->pmp_link[i]);
        for (unsigned i = 0; i < n; i++) {
            if (skip[i])
                continue;
            rc = ata_eh_link_reset(&ap->pmp_link[i], prereset, softreset, hardreset, postreset);
            if (rc) {
                *r_failed = &ap->pmp_link[i];
                return rc;
            }
        }
        again = false;
        for (unsigned i = 0; i < n; i++) {
            struct ata_link *link = &ap->pmp_link[i];
            struct ata_device *failed = NULL;

            if (skip[i])
                continue;
            if (ata_eh_host_reset_pending(link)) {
                *r_failed = link;
                return -ERESTART;
            }
            rc = ata_eh_link_configure(link, &failed);
            if (!rc)
                continue;
            *r_failed = link;
            if (ata_eh_host_reset_pending(link))
                return -ERESTART;
            if (!failed)
                failed = &link->device[0];
            ata_eh_handle_dev_fail(failed, rc);
            if (ap->pflags & ATA_PFLAG_FROZEN)
                return rc;
            again |= ata_eh_link_retry(link, failed, rc);
        }
    } while (again);
    return 0;
}
