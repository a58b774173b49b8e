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
    ATA_EH_POLICY_MODERN_RULES,
    /* a link down at the last chance is limited to 1.5 Gbps, as to 4.14 (dmesg corpus 23, a
     * RHEL 5/6 pull: "limiting SATA link speed to 1.5 Gbps" after a reset found SStatus 0) */
    .spd_down_unknown = ATA_SPD_DOWN_UNKNOWN_LOWEST,
    .quiet_without_failed_qc = false,
    .disable_msg = "disabled",
    .ncq_prot_name = "ncq",
};

/* Profile "libata-4.9": the same, as 4.9 to 5.16 word it: the cmd line's queued protocol is
 * prot_str[ATA_PROT_NCQ] = "ncq dma" (a 4.18 report in the corpus, 38), ata_dev_disable()
 * still says "disabled" (until 5.16), every EH run reports (a 4.15 DevExch loop). dmesg
 * corpus 41: "tag 6 ncq dma 4096 in" and "ata8.00: disabled" in one log. */
const struct ata_eh_policy ata_eh_policy_libata49 = {
    .name = "libata-4.9",
    .summary = "libata-4.x as 4.9-5.16 word it: \"ncq dma 4096 in\", \"disabled\", every EH run reports",
    ATA_EH_POLICY_MODERN_RULES,
    /* most of 4.9-5.16 is 4.15 on: a link of unknown speed is left alone */
    .spd_down_unknown = ATA_SPD_DOWN_UNKNOWN_KEEP,
    .quiet_without_failed_qc = false,
    .disable_msg = "disabled",
    .ncq_prot_name = "ncq dma",
};
