/* EH policy profiles: everything in which libata's error handling changed between eras,
 * gathered behind one table so the rest of EH has no scattered constants
 * (docs/libata-eh.md 1.5, 2, 3.5, 3.6, 3.7).
 *
 * A profile owns: how an error is categorised for the error ring, the speed-down verdict
 * computed from the ring, how a verdict is applied (transfer-mode steps, ring clearing),
 * the reset method preference, the reset deadline table and pauses, the per-device
 * recovery tries and the retry budget above EH.
 *
 * Adding a profile = one new eh/policy/<name>.c defining a `const struct ata_eh_policy`
 * plus one line in the registry table in eh_policy.c.
 *
 * Everything declared here is pure (no platform access), so unit tests drive it directly.
 */
#ifndef SATASIM_EH_POLICY_H
#define SATASIM_EH_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "satasim/libata.h" /* struct ata_ering */

enum { ATA_EH_MAX_RESET_TRIES = 8 };

/* Error categories for the speed-down rules (docs/libata-eh.md 1.5). */
enum ata_ecat {
    ATA_ECAT_NONE = 0,
    ATA_ECAT_ATA_BUS = 1,
    ATA_ECAT_TOUT_HSM = 2,
    ATA_ECAT_UNK_DEV = 3,
    ATA_ECAT_DUBIOUS_NONE = 4, /* base of the "transfer not yet verified" variants */
    ATA_ECAT_DUBIOUS_ATA_BUS = 5,
    ATA_ECAT_DUBIOUS_TOUT_HSM = 6,
    ATA_ECAT_DUBIOUS_UNK_DEV = 7,
    ATA_ECAT_NR = 8,
};

/* ering entry flags */
enum {
    ATA_EFLAG_IS_IO = 1u << 0,
    ATA_EFLAG_DUBIOUS_XFER = 1u << 1,
    ATA_EFLAG_OLD_ER = 1u << 31, /* logically cleared */
};

/* speed-down verdict bits */
enum {
    ATA_EH_SPDN_NCQ_OFF = 1u << 0,
    ATA_EH_SPDN_SPEED_DOWN = 1u << 1,
    ATA_EH_SPDN_FALLBACK_TO_PIO = 1u << 2,
    ATA_EH_SPDN_KEEP_ERRORS = 1u << 3,
};

void ata_ering_record(struct ata_ering *e, unsigned eflags, unsigned err_mask, uint64_t now);
/* mark_old: keep the entries but hide them from walks (4.x); else zero the ring (2006) */
void ata_ering_clear(struct ata_ering *e, bool mark_old);
/* Newest to oldest; stops at an empty or OLD_ER slot, after one wrap, or when fn != 0. */
int ata_ering_map(struct ata_ering *e, int (*fn)(struct ata_ering_entry *ent, void *arg), void *arg);
const struct ata_ering_entry *ata_ering_top(const struct ata_ering *e); /* NULL if empty */

/* Category of an error. dubious: the profile knows DUBIOUS variants; *xfer_ok is the sticky
 * "a newer entry had a verified transfer" state of a newest-to-oldest walk (may be NULL). */
enum ata_ecat ata_eh_categorize(unsigned err_mask, unsigned eflags, bool dubious, bool *xfer_ok);

/* Transfer mask step-down selectors (docs/libata-eh.md 2.3). */
enum ata_dnxfer { ATA_DNXFER_PIO, ATA_DNXFER_DMA, ATA_DNXFER_40C, ATA_DNXFER_FORCE_PIO0, ATA_DNXFER_FORCE_PIO };
/* Returns 0 and the new mask, or -ENOENT when nothing would change / nothing is left. */
int ata_down_xfermask(unsigned mask, enum ata_dnxfer sel, unsigned *out);
/* SATA speed limit mask (bit0 1.5G, bit1 3.0G, bit2 6.0G) one step down from cur_spd (1..3,
 * 0 unknown); spd_limit (0 = none) caps further. 0 and the new mask, or -EINVAL. */
int sata_down_spd_mask(unsigned limit, unsigned cur_spd, unsigned spd_limit, unsigned *out);

/* Reset method choice inputs. */
struct ata_reset_choice_in {
    bool have_softreset, have_hardreset;
    unsigned action;        /* ATA_EH_* requested */
    bool spd_change_pending; /* SControl.SPD must change: only a hardreset applies it */
};

/* How EH's report prints a failed command (ata_eh_report / ata_eh_link_report):
 *  - MODERN (2.6.24 on): "failed command: NAME" (2.6.3x on), "cmd TF tag N dma 4096 in",
 *    "res TF Emask 0x1 (device error)", "status: { .. }", "error: { .. }", "SError: { .. }";
 *  - 2006 (2.6.18/2.6.19): one "tag N cmd 0x.. Emask 0x.. stat 0x.. err 0x.. (desc)" line;
 *  - 2620 (2.6.20 to 2.6.23): one printk of two lines, "cmd %02x/..%02x tag %d cdb 0x%x
 *    data %u %s\n         res %02x/..%02x Emask 0x%x (%s)" (the cdb's first byte, 0 for an
 *    ATA command; the direction "in", "out" or "" for no data), no status/error/SError lines.
 * The old two print the description as "(desc)" and no SError line. */
enum ata_eh_report_style { ATA_EH_REPORT_MODERN, ATA_EH_REPORT_2006, ATA_EH_REPORT_2620 };

struct ata_eh_policy {
    const char *name;
    const char *summary;

    /* error ring */
    bool dubious_categories;  /* ECAT_DUBIOUS_* exist */
    bool record_uncategorized; /* record errors whose category is NONE (2006) */
    bool clear_marks_old;     /* clearing marks OLD_ER instead of zeroing */
    /* verdict from the ring after a new error was recorded */
    unsigned (*verdict)(const struct ata_ering *e, uint64_t now, bool dubious);
    /* transfer-mode steps of a SPEED_DOWN verdict when the link speed cannot go lower:
     * n_xfer_steps entries used in order, counted in the device's spdn_cnt; when the
     * table is exhausted, repeat_last_step says whether to keep using the last entry */
    enum ata_dnxfer xfer_steps_dma[2], xfer_steps_pio[2];
    unsigned n_xfer_steps;
    bool repeat_last_step;
    unsigned speed_down_spd_action; /* ATA_EH_* requested after lowering the link speed */
    unsigned speed_down_xfer_action; /* ... after lowering the transfer mode */

    /* actions the autopsy requests ("some reset" in 4.x, specific methods in 2006) */
    unsigned act_reset;      /* HSM/timeout/bus errors, frozen port */
    unsigned act_hardreset;  /* SError.C (persistent), unreadable SError */
    bool serror_recovered_counts; /* SError I/M bits count as bus errors (2006) */
    bool revalidate_on_any_error; /* 2006: any error -> REVALIDATE */

    /* reset */
    bool prefer_hardreset;
    unsigned reset_timeouts_ms[ATA_EH_MAX_RESET_TRIES];
    unsigned n_reset_tries;
    unsigned reset_retry_pause_ms;  /* 0: wait out the failed attempt's deadline */
    bool spd_down_before_last_try;  /* 4.x; else after every failed hardreset (2006) */
    unsigned reset_cool_down_ms;    /* min gap between resets within one EH run */
    /* sata_down_spd_limit() on a link whose current speed is unknown (satasim/ata.h: LOWEST
     * to 4.14, KEEP 4.15-6.1, STEP 6.2 on); host.spd_down_unknown overrides it */
    enum ata_spd_down_unknown spd_down_unknown;

    /* recovery */
    unsigned dev_tries;
    /* after a failed recovery: 2.6.2x says "failed to recover some devices, retrying in 5
     * secs" and sleeps (500 ms when no device is left); 0: libata 4.x/6.x, whose
     * ata_eh_recover ends `if (nr_fails) goto retry;` with neither (Linux 4.0 read), the
     * next reset's cool-down (reset_cool_down_ms) spacing the attempts */
    unsigned recover_retry_pause_ms, recover_idle_pause_ms;
    bool enodev_zero_tries;          /* 2006: -ENODEV uses up the device at once */
    /* probe trials: more than 2 probes of an absent device within 60 s force the link to
     * 1.5 Gbps (ata_eh_schedule_probe; not in the 2.6.2x EH), and a probe puts the link's
     * speed limit back to the hardware's (ata_dev_init, CORE-6.0) */
    bool probe_trials;

    /* report: how a failed command and the exception's description are printed (the enum) */
    enum ata_eh_report_style report_style;
    /* libata's autopsy makes an EH run quiet when every failed command of the link asked for
     * silence, which it also does when none failed ("if (nr_quiet == nr_failed)" in
     * ata_eh_link_autopsy, 6.1): a user scan or a hotplug event with nothing in flight gets
     * no report, no "resetting link" line and no "EH complete". The 2.6 EH reports them. */
    bool quiet_without_failed_qc;
    /* what ata_dev_disable() says: "disabled" (ata_dev_warn under ata_msg_drv, to 5.16),
     * "disable device" (since 5.17, "libata: drop ata_msg_drv()") */
    const char *disable_msg;
    /* ata_dev_set_mode's "configured for" line: 2.6.2x prints it after every mode setting
     * (ata_dev_printk, unconditional; a 2.6.20 ata_piix boot in the dmesg corpus, log 54,
     * prints it for a PATA disk that only had a softreset), so does 3.x (ata_dev_info,
     * unconditional); 5.15 and 6.1 print it only when the EH is not quiet or did a
     * hardreset ("if (!(ehc->i.flags & ATA_EHI_QUIET) || ehc->i.flags &
     * ATA_EHI_DID_HARDRESET)"), so a softreset-only boot probe (PATA, SFF without SCRs) is
     * silent. true = print it always (the 2.6.2x rule) */
    bool configured_always;
    /* the cmd line's protocol for a queued data command: "ncq dma" (prot_str[ATA_PROT_NCQ],
     * 4.9 and later in the field reports) or "ncq" (3.x and 4.1: " ncq 4096 in") */
    const char *ncq_prot_name;
    /* tag 31 is EH's (2.6.18: ATA_TAG_INTERNAL = 31, NCQ depth 31/32); else internal
     * commands have a tag beyond the 32 and borrow slot 0 (4.18+: NCQ depth 32) */
    bool internal_tag_reserved;
    /* the ports' boot probes are asynchronous work (async_port_probe, 2.6.29 on): a host's
     * driver probe returns once its ports are scheduled, so the next controller's probe
     * overlaps them; the 2.6.2x core probed every port inside its driver's probe */
    bool async_port_probe;
    /* an abort marks EH pending even when it took commands (libata's ata_do_link_abort starts
     * with ata_eh_set_pending, the fast drain's, 2.6.21 on): an internal command that times
     * out inside EH (a revalidation's IDENTIFY) leaves EH pending after the run, so another
     * run follows -- a reset of the frozen port, quiet in 6.x (dmesg-corpus 35: the link-up
     * after "disable device"). 2.6.20's ata_port_abort schedules EH only when nothing was in
     * flight */
    bool abort_sets_pending;

    /* retries above EH */
    unsigned max_retries;
    bool (*worth_retry)(unsigned err_mask, bool is_io);
};

/* The registry: NULL name = the default profile; NULL on unknown names. */
const struct ata_eh_policy *ata_eh_policy_find(const char *name);
const struct ata_eh_policy *ata_eh_policy_default(void);
size_t ata_eh_policy_count(void);
const struct ata_eh_policy *ata_eh_policy_at(size_t i);

/* Helpers shared by profiles. */
struct ata_spdn_count {
    uint64_t since;           /* count entries newer than this (ns) */
    bool dubious;
    bool xfer_ok;
    unsigned nr_errors[ATA_ECAT_NR];
};
void ata_spdn_count_window(const struct ata_ering *e, uint64_t now, uint64_t window_ns, bool dubious,
                           struct ata_spdn_count *out);
unsigned ata_reset_choose(const struct ata_eh_policy *pol, const struct ata_reset_choice_in *in);
/* Deadline of attempt try (0-based) in ms, 0 past the last attempt. */
unsigned ata_reset_deadline_ms(const struct ata_eh_policy *pol, unsigned try);

extern const struct ata_eh_policy ata_eh_policy_libata2006;
extern const struct ata_eh_policy ata_eh_policy_libata2620;
extern const struct ata_eh_policy ata_eh_policy_modern;
extern const struct ata_eh_policy ata_eh_policy_libata4x;
extern const struct ata_eh_policy ata_eh_policy_libata49;
/* the 4.x-6.x rules, shared by libata-modern and libata-4.x (modern.c) */
unsigned ata_eh_verdict_modern(const struct ata_ering *e, uint64_t now, bool dubious);
bool ata_eh_worth_retry_modern(unsigned err_mask, bool is_io);
/* The 4.x-6.x rules, every field but the log wording: the initializers libata-modern and
 * libata-4.x share (one list, so the two profiles cannot drift apart). */
#define ATA_EH_POLICY_MODERN_RULES \
    .dubious_categories = true, \
    .record_uncategorized = false, \
    .clear_marks_old = true, \
    .verdict = ata_eh_verdict_modern, \
    .xfer_steps_dma = { ATA_DNXFER_DMA, ATA_DNXFER_40C }, \
    .xfer_steps_pio = { ATA_DNXFER_PIO, ATA_DNXFER_FORCE_PIO0 }, \
    .n_xfer_steps = 2, \
    .repeat_last_step = false, \
    .speed_down_spd_action = ATA_EH_RESET, \
    .speed_down_xfer_action = ATA_EH_RESET, \
    .act_reset = ATA_EH_RESET, \
    .act_hardreset = ATA_EH_RESET, \
    .serror_recovered_counts = false, \
    .revalidate_on_any_error = false, \
    .prefer_hardreset = true, \
    .reset_timeouts_ms = { 10000, 10000, 35000, 5000 }, \
    .n_reset_tries = 4, \
    .reset_retry_pause_ms = 0, \
    .spd_down_before_last_try = true, \
    .reset_cool_down_ms = 5000, \
    .dev_tries = 3, \
    .recover_retry_pause_ms = 0, \
    .recover_idle_pause_ms = 0, \
    .enodev_zero_tries = false, \
    .probe_trials = true, \
    .report_style = ATA_EH_REPORT_MODERN, \
    .internal_tag_reserved = false, \
    .abort_sets_pending = true, \
    .async_port_probe = true, \
    .max_retries = 5, \
    .worth_retry = ata_eh_worth_retry_modern

#endif
