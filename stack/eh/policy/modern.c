/* Profile "libata-modern" (default): the 4.x-6.x rules (docs/libata-eh.md 1.5, 2.2, 3.3, 3.5-3.7),
 * in Linux 6.1's wording (a run without a failed command is quiet, "disable device").
 *  - five verdict rules over 5- and 10-minute windows with DUBIOUS categories;
 *  - NCQ off, link speed down, then DMA / UDMA33 steps, PIO fallback never for SATA disks;
 *    the ring is cleared (entries marked old) unless the verdict keeps errors;
 *  - hardreset whenever the driver has one; the reset deadline table 10/10/35/5 s with the
 *    wait-out-the-deadline pause, speed lowered before the last attempt, 5 s cool-down. */
#include "eh_policy.h"
#include "internal.h"

enum { WIN_5MIN_MS = 5 * 60 * 1000, WIN_10MIN_MS = 10 * 60 * 1000 };

unsigned ata_eh_verdict_modern(const struct ata_ering *e, uint64_t now, bool dubious)
{
    struct ata_spdn_count c;
    unsigned verdict = 0;

    ata_spdn_count_window(e, now, ATA_MS(WIN_5MIN_MS), dubious, &c);
    /* rule 1 */
    if (c.nr_errors[ATA_ECAT_DUBIOUS_ATA_BUS] + c.nr_errors[ATA_ECAT_DUBIOUS_TOUT_HSM] > 1)
        verdict |= ATA_EH_SPDN_SPEED_DOWN | ATA_EH_SPDN_FALLBACK_TO_PIO | ATA_EH_SPDN_KEEP_ERRORS;
    /* rule 2 */
    if (c.nr_errors[ATA_ECAT_DUBIOUS_TOUT_HSM] + c.nr_errors[ATA_ECAT_DUBIOUS_UNK_DEV] > 1)
        verdict |= ATA_EH_SPDN_NCQ_OFF | ATA_EH_SPDN_KEEP_ERRORS;
    /* rule 3 (the code compares > 6; its comment says 8) */
    if (c.nr_errors[ATA_ECAT_ATA_BUS] + c.nr_errors[ATA_ECAT_TOUT_HSM] + c.nr_errors[ATA_ECAT_UNK_DEV] > 6)
        verdict |= ATA_EH_SPDN_FALLBACK_TO_PIO;

    ata_spdn_count_window(e, now, ATA_MS(WIN_10MIN_MS), dubious, &c);
    /* rule 4 */
#ifdef SATASIM_PLANT_NCQ_OFF_ONE_EARLY
    if (c.nr_errors[ATA_ECAT_TOUT_HSM] + c.nr_errors[ATA_ECAT_UNK_DEV] > 2) /* planted: one error early */
#else
    if (c.nr_errors[ATA_ECAT_TOUT_HSM] + c.nr_errors[ATA_ECAT_UNK_DEV] > 3)
#endif
        verdict |= ATA_EH_SPDN_NCQ_OFF;
    /* rule 5 */
    if (c.nr_errors[ATA_ECAT_ATA_BUS] + c.nr_errors[ATA_ECAT_TOUT_HSM] > 3 ||
        c.nr_errors[ATA_ECAT_UNK_DEV] > 6)
        verdict |= ATA_EH_SPDN_SPEED_DOWN;
    return verdict;
}

/* Never retry a media error; retry any file-system I/O (every ata_bio is one); for other
 * commands no retry of INVALID or of a plain device error. */
bool ata_eh_worth_retry_modern(unsigned err_mask, bool is_io)
{
#ifdef SATASIM_PLANT_MEDIA_ERROR_RETRIED
    if (is_io) /* planted: file-system I/O is retried before the media error is looked at */
        return true;
#endif
    if (err_mask & AC_ERR_MEDIA)
        return false;
    if (is_io)
        return true;
    if (err_mask & AC_ERR_INVALID)
        return false;
    return err_mask != AC_ERR_DEV;
}

const struct ata_eh_policy ata_eh_policy_modern = {
    .name = "libata-modern",
    .summary = "4.x-6.x EH: five verdict rules, dubious transfers, NCQ off, hardreset first",
    ATA_EH_POLICY_MODERN_RULES,
    .quiet_without_failed_qc = true,
    /* 6.1's wording; the rule of 6.2 and of 6.1.y since the Jan 2023 fix */
    .spd_down_unknown = ATA_SPD_DOWN_UNKNOWN_STEP,
    .disable_msg = "disable device",
    .ncq_prot_name = "ncq dma",
};
