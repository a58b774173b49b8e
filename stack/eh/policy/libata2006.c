/* Profile "libata-2006": the EH of the 2.6.18/2.6.19 rework (docs/libata-eh.md 1.5, 2.1, 3.5, 3.6).
 *  - one 15-minute window; category 1 (bus/timeout/HSM) more than 3 times, or category 2
 *    (unknown device error on I/O) more than 10 times -> speed down; no NCQ-off verdict;
 *  - speed down lowers the SATA link speed (then hardreset) or else one DMA step (then
 *    softreset); the ring is never cleared by a verdict;
 *  - softreset unless a hardreset was asked for or a link speed change is pending;
 *  - a failed reset waits 5 s, the failed hardreset lowers the link speed, later tries
 *    prefer hardreset. The reset deadline table is shared with the later era (the 2006
 *    code had a fixed try count, given as 3 from memory in the reference; the 4-entry
 *    table keeps both profiles on the same timing skeleton: recorded difference). */
#include "eh_policy.h"
#include "internal.h"

enum { SPDN_WINDOW_MS = 15 * 60 * 1000 };

static unsigned verdict_2006(const struct ata_ering *e, uint64_t now, bool dubious)
{
    const struct ata_ering_entry *top = ata_ering_top(e);
    struct ata_spdn_count c;
    enum ata_ecat cat;

    (void)dubious;
    if (!top)
        return 0;
    cat = ata_eh_categorize(top->err_mask, top->eflags, false, NULL);
    ata_spdn_count_window(e, now, ATA_MS(SPDN_WINDOW_MS), false, &c);
    switch (cat) {
    case ATA_ECAT_ATA_BUS:
    case ATA_ECAT_TOUT_HSM: /* one category in 2006 */
        if (c.nr_errors[ATA_ECAT_ATA_BUS] + c.nr_errors[ATA_ECAT_TOUT_HSM] > 3)
            return ATA_EH_SPDN_SPEED_DOWN | ATA_EH_SPDN_KEEP_ERRORS;
        return 0;
    case ATA_ECAT_UNK_DEV:
        if (c.nr_errors[ATA_ECAT_UNK_DEV] > 10)
            return ATA_EH_SPDN_SPEED_DOWN | ATA_EH_SPDN_KEEP_ERRORS;
        return 0;
    default:
        return 0;
    }
}

/* 2006 completed INVALID without retry and retried the rest; the SCSI disk layer above
 * does not retry a medium error. */
static bool worth_retry_2006(unsigned err_mask, bool is_io)
{
    (void)is_io;
    return !(err_mask & (AC_ERR_INVALID | AC_ERR_MEDIA));
}

/* The 2.6.18-2.6.23 rules, every field but the report's wording: the initializers of
 * libata-2006 and libata-2.6.20 share them (one list, so the two cannot drift apart). The
 * EH changes of 2.6.20-2.6.23 that these rules do not have (the link layer of 2.6.23, PMP
 * in 2.6.24) make no difference a single-link host shows. */
#define ATA_EH_POLICY_2006_RULES \
    .dubious_categories = false, \
    .record_uncategorized = true, \
    .clear_marks_old = false, \
    .verdict = verdict_2006, \
    .xfer_steps_dma = { ATA_DNXFER_DMA, ATA_DNXFER_DMA }, \
    .xfer_steps_pio = { ATA_DNXFER_PIO, ATA_DNXFER_PIO }, \
    .n_xfer_steps = 1, \
    .repeat_last_step = true, \
    .speed_down_spd_action = ATA_EH_HARDRESET, \
    .speed_down_xfer_action = ATA_EH_SOFTRESET, \
    .act_reset = ATA_EH_SOFTRESET, \
    .act_hardreset = ATA_EH_HARDRESET, \
    .serror_recovered_counts = true, \
    .revalidate_on_any_error = true, \
    .prefer_hardreset = false, \
    .reset_timeouts_ms = { 10000, 10000, 35000, 5000 }, \
    .n_reset_tries = 4, \
    .reset_retry_pause_ms = 5000, \
    .spd_down_before_last_try = false, \
    .reset_cool_down_ms = 0, \
    .spd_down_unknown = ATA_SPD_DOWN_UNKNOWN_LOWEST, \
    .abort_sets_pending = false, /* 2.6.21 made an abort set EH pending */ \
    .dev_tries = 3, \
    .recover_retry_pause_ms = 5000, \
    .recover_idle_pause_ms = 500, \
    .enodev_zero_tries = true, \
    .probe_trials = false, \
    .quiet_without_failed_qc = false, \
    .disable_msg = "disabled", \
    .configured_always = true, \
    .ncq_prot_name = "ncq", \
    .internal_tag_reserved = true, \
    .async_port_probe = false, /* ata_device_add probed the ports inside the driver probe */ \
    .max_retries = 5, \
    .worth_retry = worth_retry_2006

const struct ata_eh_policy ata_eh_policy_libata2006 = {
    .name = "libata-2006",
    .summary = "2.6.18 EH rework: 15-min window, softreset first, no NCQ-off",
    ATA_EH_POLICY_2006_RULES,
    .report_style = ATA_EH_REPORT_2006,
};

/* Profile "libata-2.6.20": the same EH as 2.6.20-2.6.23 word its report: each failed
 * command as "cmd TF tag N cdb 0x0 data 4096 in" + "res TF Emask 0x1 (device error)" (one
 * printk, 2.6.20's ata_eh_report; docs/libata-eh.md 3.7), no status lines (2.6.24 added
 * them). dmesg corpus 08 (sata_sil) and 24. */
const struct ata_eh_policy ata_eh_policy_libata2620 = {
    .name = "libata-2.6.20",
    .summary = "libata-2006's rules in the wording of 2.6.20-2.6.23: cmd/res lines with \"cdb 0x0 data 4096 in\"",
    ATA_EH_POLICY_2006_RULES,
    .report_style = ATA_EH_REPORT_2620,
};
