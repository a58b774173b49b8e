/* Profile "libata-4.x": the libata-modern rules (modern.c: the verdicts, the retry rule, the
 * reset table, everything but the wording) as kernels before 6.x word their log, which field
 * reports of 2.6.3x-4.x show:
 *  - a queued command's cmd line says "ncq 4096 in" (3.x and 4.1 in the corpus; the 4.9 and
 *    later reports print prot_str[ATA_PROT_NCQ] = "ncq dma");
 *  - an EH run reports even when no command failed (a hotplug event, a user scan): the
 *    exception, "hard resetting link", "EH complete" -- the autopsy's "if (nr_quiet ==
 *    nr_failed) ehc->i.flags |= ATA_EHI_QUIET;" came later (6.1 has it; a 4.15 DevExch loop
 *    and a 2.6.38 hotplug in harness/tests/fixtures/dmesg-corpus/ report every run);
 *  - ata_dev_disable() says "disabled" (until 5.16; "disable device" since 5.17). */
#include "eh_policy.h"
#include "internal.h"

const struct ata_eh_policy ata_eh_policy_libata4x = {
    .name = "libata-4.x",
    .summary = "the libata-modern rules in the wording of 2.6.3x-4.x kernels: every EH run reports, \"disabled\"",
    .dubious_categories = true,
    .record_uncategorized = false,
    .clear_marks_old = true,
    .verdict = ata_eh_verdict_modern,
    .xfer_steps_dma = { ATA_DNXFER_DMA, ATA_DNXFER_40C },
    .xfer_steps_pio = { ATA_DNXFER_PIO, ATA_DNXFER_FORCE_PIO0 },
    .n_xfer_steps = 2,
    .repeat_last_step = false,
    .speed_down_spd_action = ATA_EH_RESET,
    .speed_down_xfer_action = ATA_EH_RESET,
    .act_reset = ATA_EH_RESET,
    .act_hardreset = ATA_EH_RESET,
    .serror_recovered_counts = false,
    .revalidate_on_any_error = false,
    .prefer_hardreset = true,
    .reset_timeouts_ms = { 10000, 10000, 35000, 5000 },
    .n_reset_tries = 4,
    .reset_retry_pause_ms = 0,
    .spd_down_before_last_try = true,
    .reset_cool_down_ms = 5000,
    .dev_tries = 3,
    .recover_retry_pause_ms = 5000,
    .recover_idle_pause_ms = 500,
    .enodev_zero_tries = false,
    .report_style_2006 = false,
    .quiet_without_failed_qc = false,
    .disable_msg = "disabled",
    .ncq_prot_name = "ncq",
    .internal_tag_reserved = false,
    .max_retries = 5,
    .worth_retry = ata_eh_worth_retry_modern,
};
