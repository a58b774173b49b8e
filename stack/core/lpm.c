/* Link power management (docs/libata-eh.md 9): the policy names, the IDENTIFY bits that say
 * a device takes host-initiated requests (HIPM: word 76 bit 9) or makes its own (DIPM: word
 * 78 bit 3), SControl.IPM for a policy (libata's sata_link_scr_lpm), whether a PHY event is
 * LPM's own doing (sata_lpm_ignore_phy_events), and libata.force=nolpm. The controller's part
 * is its set_lpm method (ahci: ALPE/ASP, the PhyRdy interrupt); EH's is eh/lpm.c. */
#include <string.h>

#include "internal.h"

enum { SERR_PHYRDY_CHG = 1u << 16 };

static const char *const lpm_names[] = {
    [ATA_LPM_UNKNOWN] = "max_performance", /* libata names both so */
    [ATA_LPM_MAX_POWER] = "max_performance",
    [ATA_LPM_MED_POWER] = "medium_power",
    [ATA_LPM_MED_POWER_WITH_DIPM] = "med_power_with_dipm",
    [ATA_LPM_MIN_POWER_WITH_PARTIAL] = "min_power_with_partial",
    [ATA_LPM_MIN_POWER] = "min_power",
};

const char *ata_lpm_policy_name(enum ata_lpm_policy policy)
{
    return (unsigned)policy < ATA_ARRAY_SIZE(lpm_names) ? lpm_names[policy] : "?";
}

enum ata_lpm_policy ata_lpm_policy_from_name(const char *name)
{
    if (!name || !*name)
        return ATA_LPM_UNKNOWN;
    for (unsigned p = ATA_LPM_MAX_POWER; p < ATA_ARRAY_SIZE(lpm_names); p++)
        if (!strcmp(name, lpm_names[p]))
            return (enum ata_lpm_policy)p;
    return ATA_LPM_UNKNOWN;
}

/* Word 76 is valid when neither 0000h nor FFFFh (a parallel ATA device has none). */
static bool id_sata_valid(const uint16_t *id) { return id[76] != 0 && id[76] != 0xffff; }

bool ata_id_has_hipm(const uint16_t *id) { return id_sata_valid(id) && (id[76] & (1u << 9)); }

bool ata_id_has_dipm(const uint16_t *id) { return id_sata_valid(id) && (id[78] & (1u << 3)); }

/* DevSleep (SATA 3.2): word 78 bit 8. */
bool ata_id_has_devslp(const uint16_t *id) { return id_sata_valid(id) && (id[78] & (1u << 8)); }

/* libata 6.x's ata_dev_config_devslp: a DevSleep drive whose IDENTIFY DEVICE data log has the
 * SATA settings page gets ATA_DFLAG_DEVSLP and that page's DEVSLP timing (MDAT, DETO), which
 * ahci programs into PxDEVSLP when a policy turns aggressive DevSleep on. */
void ata_dev_config_devslp(struct ata_device *dev, bool print)
{
    const uint8_t *buf = dev->link->ap->log_buf.cpu;

    memset(dev->devslp_timing, 0, sizeof(dev->devslp_timing));
    if (!ata_id_has_devslp(dev->id) || !ata_identify_page_supported(dev, ATA_LOG_SATA_SETTINGS, print))
        return;
    if (ata_read_log_page(dev, ATA_LOG_IDENTIFY_DEVICE, ATA_LOG_SATA_SETTINGS, print))
        return;
    dev->flags |= ATA_DFLAG_DEVSLP;
    memcpy(dev->devslp_timing, buf + ATA_LOG_DEVSLP_OFFSET, ATA_LOG_DEVSLP_SIZE);
}

unsigned ata_dev_set_feature(struct ata_device *dev, uint8_t subcmd, uint8_t action)
{
    return ata_exec_nodata(dev, ATA_CMD_SET_FEATURES, subcmd, action, 0);
}

/* SControl.IPM (bits 11:8) for the policy: 7h none allowed (max_performance; with
 * spm_wakeup SPM 4h also asks the link back to Active), 6h Partial only (medium_power), 0h
 * any (the DIPM and min policies; an empty link is switched off instead: DET 4h). PhyRdy
 * changes the transition made are LPM's: DIAG.N is cleared. */
int sata_link_scr_lpm(struct ata_link *link, enum ata_lpm_policy policy, bool spm_wakeup)
{
    struct ata_eh_context *ehc = &link->eh_context;
    bool woken = false;
    uint32_t scontrol;
    int rc = sata_scr_read(link, SCR_CONTROL, &scontrol);

    if (rc)
        return rc;
    switch (policy) {
    case ATA_LPM_UNKNOWN:
    case ATA_LPM_MAX_POWER:
        scontrol |= 0x7u << 8;
        if (spm_wakeup) {
            scontrol |= 0x4u << 12;
            woken = true;
        }
        break;
    case ATA_LPM_MED_POWER:
        scontrol &= ~(0x1u << 8);
        scontrol |= 0x6u << 8;
        break;
    case ATA_LPM_MED_POWER_WITH_DIPM:
    case ATA_LPM_MIN_POWER_WITH_PARTIAL:
    case ATA_LPM_MIN_POWER:
        if (ata_link_nr_enabled(link) > 0) {
            scontrol &= ~(0x7u << 8);
        } else {
            scontrol &= ~0xfu;
            scontrol |= 0x4u;
        }
        break;
    }
    rc = sata_scr_write(link, SCR_CONTROL, scontrol);
    if (rc)
        return rc;
    if (woken)
        ata_msleep(link->ap->host, 10);
    ehc->i.serror &= ~(uint32_t)SERR_PHYRDY_CHG;
    return sata_scr_write(link, SCR_ERROR, SERR_PHYRDY_CHG);
}

/* A PhyRdy change means nothing while LPM is on, nor right after the policy changed. */
bool sata_lpm_ignore_phy_events(struct ata_link *link)
{
    if (link->lpm_policy > ATA_LPM_MAX_POWER)
        return true;
    return (link->flags & ATA_LFLAG_CHANGED) &&
           ata_now(link->ap->host) < link->last_lpm_change + ATA_MS(ATA_TMOUT_SPURIOUS_PHY);
}

/* libata's ata_dev_configure: horkage NOLPM forces the port's policy to max_performance,
 * with a warning at every configure (probe and revalidation). */
void ata_dev_config_lpm(struct ata_device *dev, bool print)
{
    if (!ata_force_nolpm(dev, print))
        return;
    ata_dev_ev(dev, ATA_EV0("lpm.nolpm", SATA_TC_DECISION, SATA_LOG_WARN), "LPM support broken, forcing max_power");
    dev->link->ap->target_lpm_policy = ATA_LPM_MAX_POWER;
}
