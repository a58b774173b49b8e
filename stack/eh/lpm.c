/* EH's part of link power management (docs/libata-eh.md 9), libata's ata_eh_link_set_lpm:
 * DIPM off on every device that has it, the controller's set_lpm for the policy, the policy
 * recorded, DIPM back on for the policies that use it. A failure restores the old policy and
 * is charged to the first LPM-capable device; when that device is on its last tries (or there
 * is none) LPM is switched off for good on the link ("disabling LPM on the link"), libata's
 * fallback after link errors. EH calls it with max_performance before revalidating a device
 * on a link in a power state and with the port's target policy at the end of recovery. */
#include "../core/internal.h"

static unsigned dev_set_dipm(struct ata_device *dev, bool on)
{
    return ata_exec_nodata(dev, ATA_CMD_SET_FEATURES, on ? SETFEATURES_SATA_ENABLE : SETFEATURES_SATA_DISABLE,
                           SATA_DIPM, 0);
}

static void dipm_failed(struct ata_device *dev, bool on, unsigned err_mask)
{
    const struct sata_trace_field f[] = { TF_HEX("err_mask", err_mask), TF_BOOL("enable", on) };

    ata_dev_ev(dev, ATA_EV("lpm.dipm_failed", SATA_TC_DECISION, SATA_LOG_WARN, f), "failed to %s DIPM, Emask 0x%x",
               on ? "enable" : "disable", err_mask);
}

int ata_eh_link_set_lpm(struct ata_link *link, enum ata_lpm_policy policy, struct ata_device **r_failed)
{
    struct ata_port *ap = link->ap;
    struct ata_eh_context *ehc = &link->eh_context;
    struct ata_device *dev = NULL, *link_dev = NULL, *lpm_dev = NULL;
    const enum ata_lpm_policy old_policy = link->lpm_policy;
    unsigned hints = ATA_LPM_EMPTY | ATA_LPM_HIPM;
    unsigned err_mask;
    int rc = 0;

    /* a fan-out link's PSCR power management is not modelled: nothing to configure */
    if ((link->flags & ATA_LFLAG_NO_LPM) || !ata_is_host_link(link) || !ap->ops->set_lpm ||
        policy == ATA_LPM_UNKNOWN)
        return 0;
    for (unsigned n = 0; n < ata_link_max_devices(link); n++) {
        struct ata_device *d = &link->device[n];
        const bool hipm = ata_id_has_hipm(d->id), dipm = ata_id_has_dipm(d->id);

        if (!ata_dev_enabled(d))
            continue;
        if (!link_dev)
            link_dev = d;
        if (!lpm_dev && (hipm || dipm))
            lpm_dev = d;
        hints &= ~(unsigned)ATA_LPM_EMPTY;
        if (!hipm)
            hints &= ~(unsigned)ATA_LPM_HIPM;
        /* DIPM off before the link's configuration changes */
        if (dipm) {
            err_mask = dev_set_dipm(d, false);
            if (err_mask && err_mask != AC_ERR_DEV) {
                dipm_failed(d, false, err_mask);
                dev = d;
                rc = -EIO;
                goto fail;
            }
        }
    }
    rc = ap->ops->set_lpm(link, policy, hints);
    if (rc) {
        if (rc == -EOPNOTSUPP) {
            link->flags |= ATA_LFLAG_NO_LPM;
            return 0;
        }
        dev = lpm_dev ? lpm_dev : link_dev;
        goto fail;
    }
    link->lpm_policy = policy;
    {
        const struct sata_trace_field f[] = { TF_STR("policy", ata_lpm_policy_name(policy)),
                                              TF_HEX("hints", hints) };

        ata_link_ev(link, ATA_EV("lpm.policy", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
    for (unsigned n = 0; n < ata_link_max_devices(link); n++) {
        struct ata_device *d = &link->device[n];

        if (!ata_dev_enabled(d) || policy < ATA_LPM_MED_POWER_WITH_DIPM || !ata_id_has_dipm(d->id))
            continue;
        err_mask = dev_set_dipm(d, true);
        if (err_mask && err_mask != AC_ERR_DEV) {
            dipm_failed(d, true, err_mask);
            dev = d;
            rc = -EIO;
            goto fail;
        }
    }
    link->last_lpm_change = ata_now(ap->host);
    link->flags |= ATA_LFLAG_CHANGED;
    return 0;

fail:
    link->lpm_policy = old_policy;
    if (!dev || ehc->tries[dev->devno] <= 2) {
        ata_link_ev(link, ATA_EV0("lpm.disabled", SATA_TC_DECISION, SATA_LOG_WARN), "disabling LPM on the link");
        link->flags |= ATA_LFLAG_NO_LPM;
    }
    if (r_failed)
        *r_failed = dev;
    return rc;
}
