/* EH core with synthetic inputs: taskfile/SError classification, the error ring and the
 * speed-down verdicts of both profiles at their window and threshold edges, reset choice
 * and deadlines, the NCQ log page 10h parser, retry counting and the report wording. */
#include <stdlib.h>
#include <string.h>

#include "tests.h"

#define MIN_NS(m) ((uint64_t)(m) * 60u * 1000000000u)

static const struct ata_eh_policy *modern(void) { return ata_eh_policy_find("libata-modern"); }
static const struct ata_eh_policy *old2006(void) { return ata_eh_policy_find("libata-2006"); }

/* ---- registry ---- */

START_TEST(registry)
{
    ck_assert_ptr_nonnull(modern());
    ck_assert_ptr_nonnull(old2006());
    ck_assert_ptr_eq(ata_eh_policy_find(NULL), modern());
    ck_assert_ptr_eq(ata_eh_policy_default(), modern());
    ck_assert_ptr_null(ata_eh_policy_find("libata-2007"));
    ck_assert_ptr_null(ata_eh_policy_find(""));
    ck_assert_uint_eq(ata_eh_policy_count(), 5);
    for (size_t i = 0; i < ata_eh_policy_count(); i++) {
        const struct ata_eh_policy *p = ata_eh_policy_at(i);

        ck_assert_ptr_nonnull(p->verdict);
        ck_assert_ptr_nonnull(p->worth_retry);
        ck_assert_uint_gt(p->n_reset_tries, 0);
        ck_assert_uint_le(p->n_reset_tries, ATA_EH_MAX_RESET_TRIES);
    }
    ck_assert_ptr_null(ata_eh_policy_at(5));
}
END_TEST

/* The wording a profile gives ata_dev_disable() and quiet runs. Linux 5.16 libata-eh.c
 * ata_dev_disable: "if (ata_msg_drv(dev->link->ap)) ata_dev_warn(dev, \"disabled\\n\");";
 * 5.17 ("libata: drop ata_msg_drv()"): "ata_dev_warn(dev, \"disable device\\n\");". 6.1
 * ata_eh_link_autopsy: "if (nr_quiet == nr_failed) ehc->i.flags |= ATA_EHI_QUIET;". The
 * libata-4.x profile is modern's rules in the older wording. */
START_TEST(profile_wording)
{
    const struct ata_eh_policy *v4 = ata_eh_policy_find("libata-4.x");

    ck_assert_ptr_nonnull(v4);
    ck_assert_str_eq(modern()->disable_msg, "disable device");
    ck_assert(modern()->quiet_without_failed_qc);
    ck_assert_str_eq(old2006()->disable_msg, "disabled");
    ck_assert(!old2006()->quiet_without_failed_qc);
    ck_assert_str_eq(v4->disable_msg, "disabled");
    ck_assert_str_eq(modern()->ncq_prot_name, "ncq dma");
    ck_assert_str_eq(v4->ncq_prot_name, "ncq");
    ck_assert(!v4->quiet_without_failed_qc);
    /* the same rules as modern's */
    ck_assert_ptr_eq(v4->verdict, modern()->verdict);
    ck_assert_ptr_eq(v4->worth_retry, modern()->worth_retry);
    ck_assert_uint_eq(v4->n_reset_tries, modern()->n_reset_tries);
    for (unsigned i = 0; i < v4->n_reset_tries; i++)
        ck_assert_uint_eq(v4->reset_timeouts_ms[i], modern()->reset_timeouts_ms[i]);
    ck_assert(v4->report_style == ATA_EH_REPORT_MODERN && v4->dubious_categories && v4->prefer_hardreset);
}
END_TEST

/* 2.6.20-2.6.23 word a failed command "cmd TF tag N cdb 0x0 data 4096 in" + "res ..." (2.6.20
 * libata-eh.c ata_eh_report), with 2.6.18's EH rules; 4.9-5.16 print "ncq dma" (prot_str) and
 * still "disabled". Each is its era's rules in its own wording: the rule fields are shared. */
START_TEST(profile_wording_2620_and_49)
{
    const struct ata_eh_policy *p20 = ata_eh_policy_find("libata-2.6.20");
    const struct ata_eh_policy *v49 = ata_eh_policy_find("libata-4.9");

    ck_assert_ptr_nonnull(p20);
    ck_assert_ptr_nonnull(v49);
    ck_assert_int_eq(p20->report_style, ATA_EH_REPORT_2620);
    ck_assert_int_eq(old2006()->report_style, ATA_EH_REPORT_2006);
    ck_assert_ptr_eq(p20->verdict, old2006()->verdict);
    ck_assert_ptr_eq(p20->worth_retry, old2006()->worth_retry);
    ck_assert_uint_eq(p20->reset_retry_pause_ms, old2006()->reset_retry_pause_ms);
    ck_assert(p20->configured_always && !p20->prefer_hardreset && !p20->async_port_probe);
    ck_assert_str_eq(p20->disable_msg, "disabled");
    ck_assert_str_eq(v49->ncq_prot_name, "ncq dma");
    ck_assert_str_eq(v49->disable_msg, "disabled");
    ck_assert(!v49->quiet_without_failed_qc && v49->report_style == ATA_EH_REPORT_MODERN);
    ck_assert_ptr_eq(v49->verdict, modern()->verdict);
}
END_TEST

START_TEST(unknown_policy_fails_create)
{
    struct sata_platform p;
    struct ata_host_config cfg = { .eh_policy = "libata-1999" };
    const struct fake_event *e;

    fake_init(&p);
    p.mmio[0x00 / 4] = 0xc1301f00u; /* CAP: 1 port, 32 slots */
    p.mmio[0x04 / 4] = 1u << 31;
    p.mmio[0x0c / 4] = 1;
    p.mmio[0x10 / 4] = 0x00010301;
    ck_assert_ptr_null(ahci_host_create(&p, &fake_ops, &cfg));
    e = fake_find(&p, "eh.unknown_policy");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->msg, "unknown EH policy \"libata-1999\" (known: libata-modern, libata-2006, libata-4.x, "
                                "libata-2.6.20, libata-4.9)");
    ck_assert_uint_eq(p.live_allocs, 0);

    {
        struct ata_host *h;

        fake_init(&p);
        p.mmio[0x00 / 4] = 0xc1301f00u;
        p.mmio[0x04 / 4] = 1u << 31;
        p.mmio[0x0c / 4] = 1;
        p.mmio[0x10 / 4] = 0x00010301;
        cfg.eh_policy = "libata-2006";
        h = ahci_host_create(&p, &fake_ops, &cfg);
        ck_assert_ptr_nonnull(h);
        ck_assert_ptr_eq(h->eh_policy, old2006());
        ata_host_destroy(h);
    }
}
END_TEST

/* ---- taskfile and SError analysis ---- */

START_TEST(tf_to_err_mask)
{
    static const struct {
        enum ata_dev_class cls;
        uint8_t stat, err;
        unsigned mask;
        bool reset;
    } t[] = {
        { ATA_DEV_ATA, ATA_DRDY, 0, 0, false },
        { ATA_DEV_ATA, ATA_DRDY | ATA_ERR, ATA_UNC, AC_ERR_DEV | AC_ERR_MEDIA, false },
        { ATA_DEV_ATA, ATA_DRDY | ATA_ERR, ATA_AMNF, AC_ERR_DEV | AC_ERR_MEDIA, false },
        { ATA_DEV_ATA, ATA_DRDY | ATA_ERR, ATA_ICRC | ATA_ABORTED, AC_ERR_DEV | AC_ERR_ATA_BUS, true },
        { ATA_DEV_ATA, ATA_DRDY | ATA_ERR, ATA_IDNF, AC_ERR_DEV | AC_ERR_INVALID, false },
        { ATA_DEV_ATA, ATA_DRDY | ATA_ERR, ATA_ABORTED, AC_ERR_DEV, false },
        { ATA_DEV_ATA, ATA_DRDY | ATA_DF, 0, AC_ERR_DEV, false },
        { ATA_DEV_ATA, ATA_BUSY | ATA_DRDY, 0, AC_ERR_HSM, true },
        { ATA_DEV_ATA, ATA_DRDY | ATA_DRQ | ATA_ERR, ATA_UNC, AC_ERR_HSM, true },
        { ATA_DEV_ATA, 0x00, 0, AC_ERR_HSM, true },
        { ATA_DEV_ZAC, ATA_DRDY | ATA_ERR, ATA_UNC, AC_ERR_DEV | AC_ERR_MEDIA, false },
        /* ATAPI: the error register is a sense key, no ATA categories */
        { ATA_DEV_ATAPI, ATA_DRDY | ATA_ERR, ATA_UNC | ATA_ICRC, AC_ERR_DEV, false },
    };

    for (size_t i = 0; i < ATA_ARRAY_SIZE(t); i++) {
        unsigned m = 0;
        bool reset = ata_eh_analyze_tf_regs(t[i].cls, t[i].stat, t[i].err, &m);

        ck_assert_msg(m == t[i].mask, "row %zu: mask 0x%x want 0x%x", i, m, t[i].mask);
        ck_assert_msg(reset == t[i].reset, "row %zu: reset %d", i, reset);
    }
    /* a timeout already on the command needs a reset even with a clean status */
    {
        unsigned m = AC_ERR_TIMEOUT;

        ck_assert(ata_eh_analyze_tf_regs(ATA_DEV_ATA, ATA_DRDY, 0, &m));
    }
    /* bus error drops the device's complaint; OTHER only when alone */
    ck_assert_uint_eq(ata_eh_cleanup_mask(AC_ERR_DEV | AC_ERR_MEDIA | AC_ERR_ATA_BUS), AC_ERR_ATA_BUS);
    ck_assert_uint_eq(ata_eh_cleanup_mask(AC_ERR_OTHER | AC_ERR_TIMEOUT), AC_ERR_TIMEOUT);
    ck_assert_uint_eq(ata_eh_cleanup_mask(AC_ERR_OTHER), AC_ERR_OTHER);
    ck_assert_uint_eq(ata_eh_cleanup_mask(AC_ERR_DEV | AC_ERR_NCQ | AC_ERR_MEDIA), AC_ERR_DEV | AC_ERR_NCQ | AC_ERR_MEDIA);
}
END_TEST

START_TEST(serror_analysis)
{
    unsigned m, a;

    m = a = 0;
    ck_assert(!ata_eh_analyze_serror_bits(modern(), 1u << 9, &m, &a));
    ck_assert_uint_eq(m, AC_ERR_ATA_BUS);
    ck_assert_uint_eq(a, ATA_EH_RESET);
    m = a = 0;
    ata_eh_analyze_serror_bits(old2006(), 1u << 9, &m, &a);
    ck_assert_uint_eq(a, ATA_EH_HARDRESET);
    m = a = 0;
    ata_eh_analyze_serror_bits(old2006(), 1u << 8, &m, &a);
    ck_assert_uint_eq(m, AC_ERR_ATA_BUS);
    ck_assert_uint_eq(a, ATA_EH_SOFTRESET);

    /* recovered errors: counted in 2006, ignored in 4.x */
    m = a = 0;
    ata_eh_analyze_serror_bits(modern(), 0x3, &m, &a);
    ck_assert_uint_eq(m, 0);
    ck_assert_uint_eq(a, 0);
    m = a = 0;
    ata_eh_analyze_serror_bits(old2006(), 0x1, &m, &a);
    ck_assert_uint_eq(m, AC_ERR_ATA_BUS);

    m = a = 0;
    ata_eh_analyze_serror_bits(modern(), 1u << 10, &m, &a);
    ck_assert_uint_eq(m, AC_ERR_HSM);
    m = a = 0;
    ata_eh_analyze_serror_bits(modern(), 1u << 11, &m, &a);
    ck_assert_uint_eq(m, AC_ERR_SYSTEM);
    m = a = 0;
    ck_assert(ata_eh_analyze_serror_bits(modern(), 1u << 16, &m, &a));
    ck_assert(ata_eh_analyze_serror_bits(modern(), 1u << 26, &m, &a));
    ck_assert_uint_eq(m, 0);
    /* CRC/disparity alone are link noise the data FIS error (T) already reports */
    ck_assert(!ata_eh_analyze_serror_bits(modern(), (1u << 21) | (1u << 20), &m, &a));
    ck_assert_uint_eq(m, 0);
}
END_TEST

/* ---- error ring ---- */

static int count_cb(struct ata_ering_entry *ent, void *arg)
{
    (void)ent;
    ++*(unsigned *)arg;
    return 0;
}

START_TEST(ering_basics)
{
    static struct ata_ering e;
    unsigned n = 0;

    memset(&e, 0, sizeof(e));
    ck_assert_ptr_null(ata_ering_top(&e));
    ata_ering_record(&e, 0, 0, 5); /* no error: not recorded */
    ck_assert_ptr_null(ata_ering_top(&e));
    for (unsigned i = 1; i <= 40; i++)
        ata_ering_record(&e, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT, i);
    ck_assert_uint_eq(ata_ering_top(&e)->timestamp, 40);
    ata_ering_map(&e, count_cb, &n);
    ck_assert_uint_eq(n, ATA_ERING_SIZE); /* one wrap, oldest 8 overwritten */

    ata_ering_clear(&e, true); /* 4.x: mark old */
    n = 0;
    ata_ering_map(&e, count_cb, &n);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_ne(e.ring[e.cursor].err_mask, 0);
    ata_ering_record(&e, 0, AC_ERR_ATA_BUS, 50);
    n = 0;
    ata_ering_map(&e, count_cb, &n);
    ck_assert_uint_eq(n, 1); /* the walk stops at the first old entry */

    ata_ering_clear(&e, false); /* 2006: zero */
    ck_assert_uint_eq(e.ring[e.cursor].err_mask, 0);
}
END_TEST

START_TEST(categories)
{
    bool ok = false;

    ck_assert_int_eq(ata_eh_categorize(AC_ERR_ATA_BUS | AC_ERR_TIMEOUT, 0, true, NULL), ATA_ECAT_ATA_BUS);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_TIMEOUT, 0, true, NULL), ATA_ECAT_TOUT_HSM);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_HSM, 0, true, NULL), ATA_ECAT_NONE); /* HSM counts on I/O only */
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_HSM, ATA_EFLAG_IS_IO, true, NULL), ATA_ECAT_TOUT_HSM);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_DEV, ATA_EFLAG_IS_IO, true, NULL), ATA_ECAT_UNK_DEV);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_DEV | AC_ERR_MEDIA, ATA_EFLAG_IS_IO, true, NULL), ATA_ECAT_NONE);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_DEV | AC_ERR_INVALID, ATA_EFLAG_IS_IO, true, NULL), ATA_ECAT_NONE);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_DEV, 0, true, NULL), ATA_ECAT_NONE);
    /* dubious variants only where the profile has them; uncategorisable stays NONE */
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_TIMEOUT, ATA_EFLAG_DUBIOUS_XFER, true, NULL), ATA_ECAT_DUBIOUS_TOUT_HSM);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_TIMEOUT, ATA_EFLAG_DUBIOUS_XFER, false, NULL), ATA_ECAT_TOUT_HSM);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_MEDIA, ATA_EFLAG_DUBIOUS_XFER | ATA_EFLAG_IS_IO, true, NULL),
                     ATA_ECAT_NONE);
    /* walk: once a verified entry was seen, older dubious entries count as verified */
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_ATA_BUS, ATA_EFLAG_DUBIOUS_XFER, true, &ok), ATA_ECAT_DUBIOUS_ATA_BUS);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_ATA_BUS, 0, true, &ok), ATA_ECAT_ATA_BUS);
    ck_assert(ok);
    ck_assert_int_eq(ata_eh_categorize(AC_ERR_ATA_BUS, ATA_EFLAG_DUBIOUS_XFER, true, &ok), ATA_ECAT_ATA_BUS);
}
END_TEST

/* Fill a ring with n errors at the given ages (minutes before now), oldest first. */
static void fill(struct ata_ering *e, unsigned n, unsigned eflags, unsigned mask, uint64_t now, unsigned age_min)
{
    for (unsigned i = 0; i < n; i++)
        ata_ering_record(e, eflags, mask, now - MIN_NS(age_min));
}

static unsigned verdict_of(const struct ata_eh_policy *pol, const struct ata_ering *e, uint64_t now)
{
    return pol->verdict(e, now, pol->dubious_categories);
}

START_TEST(modern_verdicts)
{
    static struct ata_ering e;
    const uint64_t now = MIN_NS(60);
    const struct ata_eh_policy *p = modern();

    /* rule 4 + 5: timeouts on I/O: 3 in 10 min nothing, the 4th turns NCQ off and speeds down */
    memset(&e, 0, sizeof(e));
    fill(&e, 3, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT, now, 9);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);
    fill(&e, 1, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT, now, 0);
    ck_assert_uint_eq(verdict_of(p, &e, now), ATA_EH_SPDN_NCQ_OFF | ATA_EH_SPDN_SPEED_DOWN);

    /* window edge: the same four with one just outside 10 minutes */
    memset(&e, 0, sizeof(e));
    fill(&e, 1, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT, now, 11);
    fill(&e, 3, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT, now, 1);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);

    /* unknown device errors: 4 -> NCQ off only; 7 -> also speed down; within 5 min also PIO */
    memset(&e, 0, sizeof(e));
    fill(&e, 4, ATA_EFLAG_IS_IO, AC_ERR_DEV, now, 8);
    ck_assert_uint_eq(verdict_of(p, &e, now), ATA_EH_SPDN_NCQ_OFF);
    fill(&e, 3, ATA_EFLAG_IS_IO, AC_ERR_DEV, now, 8);
    ck_assert_uint_eq(verdict_of(p, &e, now), ATA_EH_SPDN_NCQ_OFF | ATA_EH_SPDN_SPEED_DOWN);
    memset(&e, 0, sizeof(e));
    fill(&e, 7, ATA_EFLAG_IS_IO, AC_ERR_DEV, now, 4);
    ck_assert_uint_eq(verdict_of(p, &e, now),
                      ATA_EH_SPDN_NCQ_OFF | ATA_EH_SPDN_SPEED_DOWN | ATA_EH_SPDN_FALLBACK_TO_PIO);

    /* bus errors: 4 in 10 min speed down, no NCQ verdict; 3 nothing */
    memset(&e, 0, sizeof(e));
    fill(&e, 3, ATA_EFLAG_IS_IO, AC_ERR_ATA_BUS, now, 2);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);
    fill(&e, 1, ATA_EFLAG_IS_IO, AC_ERR_ATA_BUS, now, 2);
    ck_assert_uint_eq(verdict_of(p, &e, now), ATA_EH_SPDN_SPEED_DOWN);

    /* media errors never count */
    memset(&e, 0, sizeof(e));
    fill(&e, 20, ATA_EFLAG_IS_IO, AC_ERR_DEV | AC_ERR_MEDIA, now, 1);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);

    /* dubious: two unverified timeouts within 5 min -> rules 1 and 2 (keep errors) */
    memset(&e, 0, sizeof(e));
    fill(&e, 1, ATA_EFLAG_IS_IO | ATA_EFLAG_DUBIOUS_XFER, AC_ERR_TIMEOUT, now, 1);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);
    fill(&e, 1, ATA_EFLAG_IS_IO | ATA_EFLAG_DUBIOUS_XFER, AC_ERR_TIMEOUT, now, 0);
    ck_assert_uint_eq(verdict_of(p, &e, now), ATA_EH_SPDN_SPEED_DOWN | ATA_EH_SPDN_FALLBACK_TO_PIO |
                                                  ATA_EH_SPDN_NCQ_OFF | ATA_EH_SPDN_KEEP_ERRORS);
    /* ... but a newer verified error makes them ordinary */
    fill(&e, 1, ATA_EFLAG_IS_IO, AC_ERR_MEDIA | AC_ERR_DEV, now, 0);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);
}
END_TEST

START_TEST(verdicts_2006)
{
    static struct ata_ering e;
    const uint64_t now = MIN_NS(60);
    const struct ata_eh_policy *p = old2006();

    memset(&e, 0, sizeof(e));
    fill(&e, 3, ATA_EFLAG_IS_IO, AC_ERR_ATA_BUS, now, 14);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);
    fill(&e, 1, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT, now, 0); /* bus and timeout share category 1 */
    ck_assert_uint_eq(verdict_of(p, &e, now), ATA_EH_SPDN_SPEED_DOWN | ATA_EH_SPDN_KEEP_ERRORS);
    /* the newest entry decides the category: a media error says nothing */
    fill(&e, 1, ATA_EFLAG_IS_IO, AC_ERR_MEDIA | AC_ERR_DEV, now, 0);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);

    /* 15-minute window edge */
    memset(&e, 0, sizeof(e));
    fill(&e, 1, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT, now, 16);
    fill(&e, 3, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT, now, 1);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);

    /* category 2: more than 10; no NCQ-off verdict ever */
    memset(&e, 0, sizeof(e));
    fill(&e, 10, ATA_EFLAG_IS_IO, AC_ERR_DEV, now, 1);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);
    fill(&e, 1, ATA_EFLAG_IS_IO, AC_ERR_DEV, now, 0);
    ck_assert_uint_eq(verdict_of(p, &e, now), ATA_EH_SPDN_SPEED_DOWN | ATA_EH_SPDN_KEEP_ERRORS);
    /* dubious flags mean nothing in 2006 */
    memset(&e, 0, sizeof(e));
    fill(&e, 3, ATA_EFLAG_IS_IO | ATA_EFLAG_DUBIOUS_XFER, AC_ERR_TIMEOUT, now, 0);
    ck_assert_uint_eq(verdict_of(p, &e, now), 0);
}
END_TEST

/* ---- step-down helpers ---- */

START_TEST(spd_and_xfer_masks)
{
    unsigned m;

    ck_assert_int_eq(sata_down_spd_mask(0x7, 3, 0, &m), 0);
    ck_assert_uint_eq(m, 0x3);
    ck_assert_int_eq(sata_down_spd_mask(0x7, 2, 0, &m), 0); /* below the current speed */
    ck_assert_uint_eq(m, 0x1);
    ck_assert_int_eq(sata_down_spd_mask(0x3, 0, 0, &m), 0);
    ck_assert_uint_eq(m, 0x1);
    ck_assert_int_eq(sata_down_spd_mask(0x7, 1, 0, &m), -EINVAL);
    ck_assert_int_eq(sata_down_spd_mask(0x1, 3, 0, &m), -EINVAL);
    /* a PHY that runs one generation only (ata_host_config.only_gen): nothing slower */
    ck_assert_int_eq(sata_down_spd_mask(0x2, 2, 0, &m), -EINVAL);
    ck_assert_int_eq(sata_down_spd_mask(0x4, 0, 0, &m), -EINVAL);
    ck_assert_int_eq(sata_down_spd_mask(0x4, 3, 1, &m), -EINVAL);
    ck_assert_int_eq(sata_down_spd_mask(0x7, 3, 1, &m), 0);
    ck_assert_uint_eq(m, 0x1);

    {
        const unsigned udma6 = 0x1fu | (0x7fu << ATA_SHIFT_UDMA);

        ck_assert_int_eq(ata_down_xfermask(udma6, ATA_DNXFER_DMA, &m), 0);
        ck_assert_uint_eq(m, 0x1fu | (0x3fu << ATA_SHIFT_UDMA));
        ck_assert_int_eq(ata_down_xfermask(udma6, ATA_DNXFER_40C, &m), 0);
        ck_assert_uint_eq(m, 0x1fu | (0x7u << ATA_SHIFT_UDMA));
        ck_assert_int_eq(ata_down_xfermask(m, ATA_DNXFER_40C, &m), -ENOENT); /* no change */
        ck_assert_int_eq(ata_down_xfermask(udma6, ATA_DNXFER_FORCE_PIO0, &m), 0);
        ck_assert_uint_eq(m, 1);
        ck_assert_int_eq(ata_down_xfermask(udma6, ATA_DNXFER_FORCE_PIO, &m), 0);
        ck_assert_uint_eq(m, 0x1f);
        ck_assert_int_eq(ata_down_xfermask(0x1f, ATA_DNXFER_PIO, &m), 0);
        ck_assert_uint_eq(m, 0xf);
        ck_assert_int_eq(ata_down_xfermask(0x1, ATA_DNXFER_PIO, &m), -ENOENT);
        ck_assert_int_eq(ata_down_xfermask(0x1f | (1u << ATA_SHIFT_UDMA), ATA_DNXFER_DMA, &m), -ENOENT);
    }
}
END_TEST

/* ---- reset choice and deadlines ---- */

START_TEST(reset_choice_and_deadlines)
{
    struct ata_reset_choice_in in = { .have_softreset = true, .have_hardreset = true, .action = ATA_EH_RESET };

    ck_assert_uint_eq(ata_reset_choose(modern(), &in), ATA_EH_HARDRESET);
    ck_assert_uint_eq(ata_reset_choose(old2006(), &in), ATA_EH_SOFTRESET);
    in.action = ATA_EH_SOFTRESET;
    ck_assert_uint_eq(ata_reset_choose(modern(), &in), ATA_EH_HARDRESET);
    ck_assert_uint_eq(ata_reset_choose(old2006(), &in), ATA_EH_SOFTRESET);
    in.action = ATA_EH_HARDRESET;
    ck_assert_uint_eq(ata_reset_choose(old2006(), &in), ATA_EH_HARDRESET);
    in.action = ATA_EH_RESET;
    in.spd_change_pending = true;
    ck_assert_uint_eq(ata_reset_choose(old2006(), &in), ATA_EH_HARDRESET);
    in.spd_change_pending = false;
    in.have_hardreset = false;
    ck_assert_uint_eq(ata_reset_choose(modern(), &in), ATA_EH_SOFTRESET);
    in.have_hardreset = true;
    in.have_softreset = false;
    ck_assert_uint_eq(ata_reset_choose(old2006(), &in), ATA_EH_HARDRESET);
    in.have_hardreset = false;
    ck_assert_uint_eq(ata_reset_choose(modern(), &in), 0);

    {
        static const unsigned want[] = { 10000, 10000, 35000, 5000, 0 };

        for (unsigned i = 0; i < ATA_ARRAY_SIZE(want); i++) {
            ck_assert_uint_eq(ata_reset_deadline_ms(modern(), i), want[i]);
            ck_assert_uint_eq(ata_reset_deadline_ms(old2006(), i), want[i]);
        }
    }
    ck_assert_uint_eq(modern()->reset_retry_pause_ms, 0); /* waits out the deadline */
    ck_assert_uint_eq(old2006()->reset_retry_pause_ms, 5000);
    ck_assert_uint_eq(modern()->dev_tries, 3);
}
END_TEST

/* ---- NCQ log page 10h ---- */

static void log_page(uint8_t *b, uint8_t b0, uint8_t stat, uint8_t err, bool good_sum)
{
    uint8_t sum = 0;

    memset(b, 0, ATA_SECT_SIZE);
    b[0] = b0;
    b[2] = stat;
    b[3] = err;
    b[4] = 0x10; b[5] = 0x20; b[6] = 0x30; b[7] = 0x40;
    b[8] = 0x01; b[9] = 0x02; b[10] = 0x03;
    b[12] = 0x08; b[13] = 0x00;
    for (unsigned i = 0; i < ATA_SECT_SIZE - 1; i++)
        sum = (uint8_t)(sum + b[i]);
    b[511] = (uint8_t)(0x100 - sum) + (good_sum ? 0 : 1);
}

START_TEST(ncq_log_page)
{
    uint8_t b[ATA_SECT_SIZE];
    struct ata_taskfile rtf;
    unsigned tag = 99;
    uint8_t csum;

    log_page(b, 0x05, 0x41, 0x40, true);
    ck_assert_int_eq(ata_ncq_log_parse(b, &tag, &rtf, &csum), 0);
    ck_assert_uint_eq(csum, 0);
    ck_assert_uint_eq(tag, 5);
    ck_assert_uint_eq(rtf.command, 0x41);
    ck_assert_uint_eq(rtf.feature, 0x40);
    ck_assert_uint_eq(rtf.lbal, 0x10);
    ck_assert_uint_eq(rtf.lbah, 0x30);
    ck_assert_uint_eq(rtf.device, 0x40);
    ck_assert_uint_eq(rtf.hob_lbah, 0x03);
    ck_assert_uint_eq(rtf.nsect, 0x08);

    log_page(b, 0x1f | 0x40, 0x41, 0x04, false); /* tag 31, reserved bit ignored, bad sum */
    ck_assert_int_eq(ata_ncq_log_parse(b, &tag, &rtf, &csum), 0);
    ck_assert_uint_eq(tag, 31);
    ck_assert_uint_ne(csum, 0);

    log_page(b, 0x80 | 0x03, 0x41, 0x04, true); /* NQ: not an NCQ command */
    ck_assert_int_eq(ata_ncq_log_parse(b, &tag, &rtf, &csum), -ENOENT);
}
END_TEST

/* ---- retries ---- */

START_TEST(retry_rules)
{
    struct ata_bio bio;
    unsigned n;

    ck_assert(modern()->worth_retry(AC_ERR_DEV, true));
    ck_assert(modern()->worth_retry(AC_ERR_TIMEOUT, true));
    ck_assert(modern()->worth_retry(AC_ERR_ATA_BUS, true));
    ck_assert(!modern()->worth_retry(AC_ERR_DEV | AC_ERR_MEDIA, true));
    ck_assert(!modern()->worth_retry(AC_ERR_DEV, false));
    ck_assert(!modern()->worth_retry(AC_ERR_DEV | AC_ERR_INVALID, false));
    ck_assert(modern()->worth_retry(AC_ERR_TIMEOUT, false));
    ck_assert(old2006()->worth_retry(AC_ERR_DEV, true));
    ck_assert(!old2006()->worth_retry(AC_ERR_DEV | AC_ERR_INVALID, true));
    ck_assert(!old2006()->worth_retry(AC_ERR_DEV | AC_ERR_MEDIA, true));

    /* a persistent retryable error: 5 retries, then it fails */
    memset(&bio, 0, sizeof(bio));
    for (n = 0; ata_eh_bio_retry(modern(), &bio, AC_ERR_DEV, true); n++)
        ck_assert_uint_lt(n, 100);
    ck_assert_uint_eq(n, 5);
    ck_assert_uint_eq(bio.q_retries, 5);
    /* innocents aborted by EH go back for free, even with the budget spent */
    ck_assert(ata_eh_bio_retry(modern(), &bio, 0, false));
    ck_assert_uint_eq(bio.q_retries, 5);
    /* not retryable (media): no retry at all */
    memset(&bio, 0, sizeof(bio));
    ck_assert(!ata_eh_bio_retry(modern(), &bio, AC_ERR_MEDIA | AC_ERR_DEV, false));
    ck_assert_uint_eq(bio.q_retries, 0);
}
END_TEST

/* ---- report wording ---- */

START_TEST(report_lines)
{
    struct ata_taskfile tf = { .protocol = ATA_PROT_NCQ, .flags = ATA_TFLAG_LBA48, .command = 0x60,
                               .feature = 0x08, .nsect = 0x18, .lbal = 0x00, .lbam = 0x10,
                               .device = 0x40 };
    struct ata_taskfile res = { .command = 0x41, .feature = 0x40, .lbal = 0x10, .device = 0x40 };
    char b[200];

    ata_eh_format_cmd_line(b, sizeof(b), &tf, 3, 4096, modern()->ncq_prot_name);
    ck_assert_str_eq(b, "cmd 60/08:18:00:10:00/00:00:00:00:00/40 tag 3 ncq dma 4096 in");
    /* 3.x/4.1 (dmesg-corpus 11, 15): "cmd 60/00:00:b1:4b:1c/01:00:14:00:00/40 tag 0 ncq 131072 in" */
    ata_eh_format_cmd_line(b, sizeof(b), &tf, 3, 4096, ata_eh_policy_find("libata-4.x")->ncq_prot_name);
    ck_assert_str_eq(b, "cmd 60/08:18:00:10:00/00:00:00:00:00/40 tag 3 ncq 4096 in");
    tf.flags |= ATA_TFLAG_WRITE;
    tf.command = 0x61;
    ata_eh_format_cmd_line(b, sizeof(b), &tf, 3, 4096, "ncq dma");
    ck_assert_str_eq(b, "cmd 61/08:18:00:10:00/00:00:00:00:00/40 tag 3 ncq dma 4096 out");
    tf = (struct ata_taskfile){ .protocol = ATA_PROT_NODATA, .command = 0xea, .device = 0x40 };
    ata_eh_format_cmd_line(b, sizeof(b), &tf, 0, 0, "ncq dma");
    ck_assert_str_eq(b, "cmd ea/00:00:00:00:00/00:00:00:00:00/40 tag 0");

    ata_eh_format_res_line(b, sizeof(b), &res, AC_ERR_DEV | AC_ERR_MEDIA | AC_ERR_NCQ);
    ck_assert_str_eq(b, "res 41/40:00:10:00:00/00:00:00:00:00/40 Emask 0x409 (media error) <F>");
    ata_eh_format_res_line(b, sizeof(b), &res, AC_ERR_TIMEOUT);
    ck_assert_str_eq(b, "res 41/40:00:10:00:00/00:00:00:00:00/40 Emask 0x4 (timeout)");

    ata_eh_format_status(b, sizeof(b), 0x41);
    ck_assert_str_eq(b, "{ DRDY ERR }");
    ata_eh_format_status(b, sizeof(b), 0xd0);
    ck_assert_str_eq(b, "{ Busy }");
    ata_eh_format_status(b, sizeof(b), 0x00);
    ck_assert_str_eq(b, "");
    ata_eh_format_error(b, sizeof(b), ATA_UNC);
    ck_assert_str_eq(b, "{ UNC }");
    ata_eh_format_error(b, sizeof(b), ATA_ICRC | ATA_ABORTED);
    ck_assert_str_eq(b, "{ ICRC ABRT }");
    ata_eh_format_error(b, sizeof(b), 0);
    ck_assert_str_eq(b, "");
    ata_eh_format_serror(b, sizeof(b), (1u << 16) | (1u << 18) | (1u << 21));
    ck_assert_str_eq(b, "SError: { PHYRdyChg CommWake BadCRC }");

    ata_eh_format_exception(b, sizeof(b), 0x1, 0x7, 0x0, 0x6, true, -1);
    ck_assert_str_eq(b, "exception Emask 0x1 SAct 0x7 SErr 0x0 action 0x6 frozen");
    ata_eh_format_exception(b, sizeof(b), 0x0, 0x0, 0x400000, 0x6, false, 4);
    ck_assert_str_eq(b, "exception Emask 0x0 SAct 0x0 SErr 0x400000 action 0x6 t4");

    ck_assert_str_eq(ata_eh_cmd_name(0x60), "READ FPDMA QUEUED");
    ck_assert_str_eq(ata_eh_cmd_name(0x35), "WRITE DMA EXT");
    ck_assert_str_eq(ata_eh_cmd_name(0x2f), "READ LOG EXT");
    ck_assert_str_eq(ata_eh_cmd_name(0x01), "unknown");
}
END_TEST

/* ---- speed-down applied to a device (host with a fake LLD for SCR access) ---- */

struct scr_state {
    uint32_t sstatus, scontrol, serror;
};
static struct scr_state scr;

static int fake_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    (void)link;
    switch (reg) {
    case SCR_STATUS: *val = scr.sstatus; return 0;
    case SCR_CONTROL: *val = scr.scontrol; return 0;
    case SCR_ERROR: *val = scr.serror; return 0;
    default: return -EINVAL;
    }
}

static int fake_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    (void)link;
    if (reg == SCR_CONTROL)
        scr.scontrol = val;
    return 0;
}

static const struct ata_port_operations scr_ops = { .scr_read = fake_scr_read, .scr_write = fake_scr_write };

struct sd_rig {
    struct sata_platform p;
    struct ata_host *h;
    struct ata_device *dev;
};

static void sd_rig_init(struct sd_rig *r, const char *policy)
{
    fake_init(&r->p);
    r->p.now = MIN_NS(100);
    r->h = ata_host_alloc(&r->p, &fake_ops, &scr_ops, 1);
    ck_assert_ptr_nonnull(r->h);
    ck_assert_int_eq(ata_host_set_eh_policy(r->h, policy), 0);
    r->dev = &r->h->ports[0].link.device[0];
    r->dev->class = ATA_DEV_ATA;
    r->dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_NCQ | ATA_DFLAG_DMA;
    r->dev->xfer_mask = 0x1fu | (0x7fu << ATA_SHIFT_UDMA);
    r->dev->xfer_mode = XFER_UDMA_0 + 6;
    scr = (struct scr_state){ .sstatus = 0x133, .scontrol = 0x300 };
}

START_TEST(speed_down_modern_sequence)
{
    struct sd_rig r;
    unsigned act;

    sd_rig_init(&r, NULL);
    /* three timeouts on I/O: recorded, no verdict */
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT), 0);
    ck_assert_ptr_null(fake_find(&r.p, "eh.ncq_off"));
    /* the 4th: NCQ off first (no reset), ring cleared */
    act = ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT);
    ck_assert_uint_eq(act, 0);
    ck_assert(r.dev->flags & ATA_DFLAG_NCQ_OFF);
    ck_assert(!(r.dev->flags & ATA_DFLAG_NCQ));
    ck_assert_str_eq(fake_find(&r.p, "eh.ncq_off")->msg, "NCQ disabled due to excessive errors");
    ck_assert_ptr_null(ata_ering_top(&r.dev->ering));
    /* four more: NCQ is already off, so the link speed goes down and a reset is asked for */
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT), 0);
    act = ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT);
    ck_assert_uint_eq(act, ATA_EH_RESET);
    ck_assert_uint_eq(r.h->ports[0].link.sata_spd_limit, 0x3);
    ck_assert_str_eq(fake_find(&r.p, "eh.spd_limit")->msg, "limiting SATA link speed to 3.0 Gbps");
    ck_assert(sata_set_spd_needed(&r.h->ports[0].link));
    ck_assert_uint_eq(sata_spd_target(&r.h->ports[0].link), 2);
    /* media errors are not even recorded */
    ck_assert_uint_eq(ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_DEV | AC_ERR_MEDIA), 0);
    ck_assert_ptr_null(ata_ering_top(&r.dev->ering));
    ata_host_free(r.h);
}
END_TEST

START_TEST(speed_down_xfer_steps_when_link_is_slowest)
{
    struct sd_rig r;
    unsigned act;

    sd_rig_init(&r, NULL);
    scr.sstatus = 0x113; /* 1.5 Gbps: nothing lower */
    r.dev->flags &= ~(unsigned)ATA_DFLAG_NCQ;
    for (int i = 0; i < 3; i++)
        ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_ATA_BUS);
    act = ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_ATA_BUS);
    ck_assert_uint_eq(act, ATA_EH_RESET);
    ck_assert_str_eq(fake_find(&r.p, "eh.xfer_limit")->msg, "limiting speed to UDMA/100:PIO4");
    ck_assert_uint_eq(r.dev->spdn_cnt, 1);
    ck_assert_uint_eq(r.dev->xfer_mode, XFER_UDMA_0 + 5);
    ata_host_free(r.h);
}
END_TEST

/* sata_down_spd_limit on a link that is down (SStatus 0, no speed recorded): the rule of the
 * kernel's era (satasim/ata.h, enum ata_spd_down_unknown). A pulled drive's last chance:
 * Linux to 4.14 forces 1.5 Gbps ("Force 1.5Gbps if current SPD is not available", dmesg corpus
 * 23); 4.15-6.1 leave the link alone (commit 2dc0b46b5ea3: return -EINVAL, no line; corpus
 * 42's RHEL kernel); 6.2 on step below the limit's fastest when no speed was ever recorded. */
START_TEST(speed_down_link_down_by_era)
{
    static const struct {
        const char *policy;
        enum ata_spd_down_unknown override;
        int rc;
        unsigned limit;
        const char *msg;
    } cases[] = {
        { "libata-4.x", ATA_SPD_DOWN_UNKNOWN_PROFILE, 0, 0x1, "limiting SATA link speed to 1.5 Gbps" },
        { "libata-2006", ATA_SPD_DOWN_UNKNOWN_PROFILE, 0, 0x1, "limiting SATA link speed to 1.5 Gbps" },
        { "libata-4.9", ATA_SPD_DOWN_UNKNOWN_PROFILE, -EINVAL, 0, NULL },
        { NULL, ATA_SPD_DOWN_UNKNOWN_PROFILE, 0, 0x3, "limiting SATA link speed to 3.0 Gbps" },
        { "libata-4.x", ATA_SPD_DOWN_UNKNOWN_KEEP, -EINVAL, 0, NULL },
        { NULL, ATA_SPD_DOWN_UNKNOWN_LOWEST, 0, 0x1, "limiting SATA link speed to 1.5 Gbps" },
        { "libata-4.9", ATA_SPD_DOWN_UNKNOWN_STEP, 0, 0x3, "limiting SATA link speed to 3.0 Gbps" },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sd_rig r;
        struct ata_link *link;

        sd_rig_init(&r, cases[i].policy);
        link = &r.h->ports[0].link;
        r.h->spd_down_unknown = cases[i].override;
        scr.sstatus = 0; /* the drive is gone */
        link->sata_spd = 0;   /* as the last reset recorded it */
        ck_assert_int_eq(sata_down_spd_limit(link, 0), cases[i].rc);
        ck_assert_uint_eq(link->sata_spd_limit, cases[i].limit);
        if (cases[i].msg)
            ck_assert_str_eq(fake_find(&r.p, "eh.spd_limit")->msg, cases[i].msg);
        else
            ck_assert_ptr_null(fake_find(&r.p, "eh.spd_limit"));
        /* a link at 1.5 Gbps has nothing lower, whatever the rule (limit already at 1.5) */
        link->sata_spd_limit = 0x1;
        ck_assert_int_eq(sata_down_spd_limit(link, 0), -EINVAL);
        ata_host_free(r.h);
    }
}
END_TEST

START_TEST(speed_down_2006)
{
    struct sd_rig r;
    unsigned act;

    sd_rig_init(&r, "libata-2006");
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT), 0);
    act = ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT);
    ck_assert_uint_eq(act, ATA_EH_HARDRESET); /* link speed first, no NCQ verdict */
    ck_assert(r.dev->flags & ATA_DFLAG_NCQ);
    ck_assert_ptr_nonnull(ata_ering_top(&r.dev->ering)); /* 2006 keeps the ring */
    /* every further error is past the threshold: now the transfer mode steps down */
    scr.sstatus = 0x123;
    act = ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT);
    ck_assert_uint_eq(act, ATA_EH_HARDRESET);
    ck_assert_uint_eq(r.h->ports[0].link.sata_spd_limit, 0x1);
    act = ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_TIMEOUT);
    ck_assert_uint_eq(act, ATA_EH_SOFTRESET);
    ck_assert_uint_eq(r.dev->xfer_mode, XFER_UDMA_0 + 5);
    /* 2006 records uncategorised errors too */
    ata_eh_speed_down(r.dev, ATA_EFLAG_IS_IO, AC_ERR_DEV | AC_ERR_MEDIA);
    ck_assert_uint_eq(ata_ering_top(&r.dev->ering)->err_mask, AC_ERR_DEV | AC_ERR_MEDIA);
    ata_host_free(r.h);
}
END_TEST

/* ---- finish: a persistently failing request through the queue ---- */

static unsigned n_issued;
static void nop_prep(struct ata_queued_cmd *qc) { (void)qc; }
static unsigned count_issue(struct ata_queued_cmd *qc)
{
    (void)qc;
    n_issued++;
    return 0;
}
static void keep_rtf(struct ata_queued_cmd *qc) { (void)qc; }
static const struct ata_port_operations issue_ops = {
    .qc_defer = ata_std_qc_defer, .qc_prep = nop_prep, .qc_issue = count_issue, .qc_fill_rtf = keep_rtf,
};

static int fin_done;
static void fin_done_cb(struct ata_bio *bio) { (void)bio; fin_done++; }

/* Every issue fails with err_mask; EH marks it the way the autopsy would; returns issues. */
static unsigned run_persistent_error(unsigned err_mask, unsigned *final_mask)
{
    static const struct ata_sg sg = { 0x100000, 4096 };
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_device *dev;
    struct ata_bio bio = { .op = ATA_BIO_READ, .mode = ATA_IO_DMA, .lba = 8, .n_sectors = 8, .sg = &sg,
                           .n_sg = 1, .done = fin_done_cb };
    unsigned rounds = 0;

    fake_init(&p);
    h = ata_host_alloc(&p, &fake_ops, &issue_ops, 1);
    ap = &h->ports[0];
    ap->pflags = 0;
    ap->max_segs = 168;
    ap->seg_max_bytes = 4u << 20;
    dev = &ap->link.device[0];
    dev->class = ATA_DEV_ATA;
    dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | ATA_DFLAG_LBA48 | ATA_DFLAG_DMA;
    dev->n_sectors = 1000000;
    dev->max_sectors = 65535;
    n_issued = 0;
    fin_done = 0;
    ck_assert_int_eq(ata_bio_submit(dev, &bio), 0);
    while (!fin_done && rounds++ < 50) {
        struct ata_queued_cmd *qc;

        ck_assert_uint_eq(n_issued, rounds);
        ata_lock(h);
        qc = ata_qc_from_tag(ap, 0);
        ck_assert_ptr_nonnull(qc);
        qc->err_mask = err_mask;
        ata_qc_complete(qc); /* failed: EH owns it */
        if (h->eh_policy->worth_retry(qc->err_mask, true))
            qc->flags |= ATA_QCFLAG_RETRY;
        ap->pflags &= ~(unsigned)ATA_PFLAG_EH_PENDING;
        ata_unlock(h);
        ata_eh_finish(ap);
        ata_port_process(ap);
    }
    *final_mask = bio.err_mask;
    ata_host_free(h);
    return n_issued;
}

START_TEST(finish_retry_counts)
{
    unsigned m;

    /* device error: the first try plus 5 retries, as sd on libata */
    ck_assert_uint_eq(run_persistent_error(AC_ERR_DEV, &m), 6);
    ck_assert_uint_eq(m, AC_ERR_DEV);
    ck_assert_uint_eq(run_persistent_error(AC_ERR_TIMEOUT, &m), 6);
    /* media error: never retried */
    ck_assert_uint_eq(run_persistent_error(AC_ERR_DEV | AC_ERR_MEDIA, &m), 1);
    ck_assert_uint_eq(m, AC_ERR_DEV | AC_ERR_MEDIA);
}
END_TEST

/* ---- autopsy + report + finish of an NCQ device error, with and without log page 10h ---- */

static bool log_aborts;
static unsigned ncq_issued;

static void ncq_fill_rtf(struct ata_queued_cmd *qc)
{
    /* the D2H area after an NCQ error: the device is ready, the error is in the log */
    if (!qc->err_mask)
        qc->result_tf.command = ATA_DRDY;
}

static unsigned ncq_issue(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;

    if (qc->tf.command != ATA_CMD_READ_LOG_EXT) {
        ncq_issued++;
        return 0;
    }
    ck_assert_uint_eq(qc->tf.lbal, 0x10);
    ck_assert_uint_eq(qc->tf.nsect, 1);
    if (log_aborts) {
        qc->result_tf.command = ATA_DRDY | ATA_ERR;
        qc->result_tf.feature = ATA_ABORTED;
        qc->err_mask = AC_ERR_DEV;
    } else {
        log_page(ap->log_buf.cpu, 1, ATA_DRDY | ATA_ERR, ATA_UNC, true);
        qc->result_tf.command = ATA_DRDY;
    }
    ata_qc_complete(qc);
    return 0;
}

static const struct ata_port_operations ncq_ops = {
    .qc_defer = ata_std_qc_defer, .qc_prep = nop_prep, .qc_issue = ncq_issue, .qc_fill_rtf = ncq_fill_rtf,
    .scr_read = fake_scr_read, .scr_write = fake_scr_write,
};

static void ncq_error_case(bool aborts)
{
    static const struct ata_sg sg = { 0x100000, 4096 };
    struct sata_platform *p = calloc(1, sizeof(*p));
    struct ata_bio bio[3];
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_link *link;
    struct ata_device *dev;
    const struct fake_event *e;

    fake_init(p);
    scr = (struct scr_state){ .sstatus = 0x133, .scontrol = 0x300 };
    log_aborts = aborts;
    ncq_issued = 0;
    fin_done = 0;
    h = ata_host_alloc(p, &fake_ops, &ncq_ops, 1);
    ap = &h->ports[0];
    link = &ap->link;
    ap->pflags = 0;
    ap->max_segs = 168;
    ap->seg_max_bytes = 4u << 20;
    ap->ncq_depth = 31;
    dev = &link->device[0];
    dev->class = ATA_DEV_ATA;
    dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | ATA_DFLAG_LBA48 | ATA_DFLAG_DMA | ATA_DFLAG_NCQ;
    dev->n_sectors = 1000000;
    dev->max_sectors = 65535;
    dev->ncq_depth = 31;
    for (unsigned i = 0; i < 3; i++) {
        bio[i] = (struct ata_bio){ .op = ATA_BIO_READ, .mode = ATA_IO_NCQ, .lba = 8 * i, .n_sectors = 8,
                                   .sg = &sg, .n_sg = 1, .done = fin_done_cb };
        ck_assert_int_eq(ata_bio_submit(dev, &bio[i]), 0);
    }
    ck_assert_uint_eq(link->sactive, 0x7);

    /* the LLD saw TFES during NCQ: device error on the link, everything aborted */
    ata_lock(h);
    link->eh_info.err_mask |= AC_ERR_DEV;
    ata_ehi_push_desc(&link->eh_info, "irq_stat 0x%08x", 0x40000008u);
    ata_port_abort(ap);
    memset(&link->eh_context, 0, sizeof(link->eh_context));
    link->eh_context.i = link->eh_info;
    link->eh_context.eh_tries_left = ATA_EH_MAX_REPEAT;
    memset(&link->eh_info, 0, sizeof(link->eh_info));
    ap->pflags &= ~(unsigned)ATA_PFLAG_EH_PENDING;
    ata_unlock(h);

    ata_eh_link_autopsy(link);
    ata_eh_link_report(link);
    if (!aborts) {
        ck_assert_uint_eq(ap->qcmd[1].err_mask, AC_ERR_DEV | AC_ERR_MEDIA | AC_ERR_NCQ);
        ck_assert(!(ap->qcmd[1].flags & ATA_QCFLAG_RETRY));
        ck_assert_uint_eq(ap->qcmd[0].err_mask, 0);
        ck_assert_uint_eq(ap->qcmd[2].err_mask, 0);
        ck_assert_uint_eq(link->eh_context.i.err_mask, 0);
        ck_assert(link->eh_context.i.action & ATA_EH_REVALIDATE);
        e = fake_find(p, "eh.exception");
        ck_assert_str_eq(e->msg, "exception Emask 0x0 SAct 0x7 SErr 0x0 action 0x0");
        ck_assert_int_eq(e->dev, 0);
        ck_assert_str_eq(fake_find(p, "eh.desc")->msg, "irq_stat 0x40000008");
        ck_assert_str_eq(fake_find(p, "eh.failed_qc")->msg, "failed command: READ FPDMA QUEUED");
        ck_assert_str_eq(fake_find(p, "eh.failed_qc_cmd")->msg,
                         "cmd 60/08:08:08:00:00/00:00:00:00:00/40 tag 1 ncq dma 4096 in");
        ck_assert_str_eq(fake_find(p, "eh.failed_qc_res")->msg,
                         "res 41/40:08:10:20:30/00:00:01:02:03/40 Emask 0x409 (media error) <F>");
        ck_assert_str_eq(fake_find(p, "eh.failed_qc_status")->msg, "status: { DRDY ERR }");
        ck_assert_str_eq(fake_find(p, "eh.failed_qc_error")->msg, "error: { UNC }");
        ck_assert_ptr_null(fake_find(p, "eh.ncq_log_failed"));
    } else {
        /* QEMU: no log page; every outstanding command carries the device error */
        ck_assert_str_eq(fake_find(p, "eh.ncq_log_failed")->msg, "failed to read log page 10h (errno=-5)");
        for (unsigned t = 0; t < 3; t++) {
            ck_assert_uint_eq(ap->qcmd[t].err_mask, AC_ERR_DEV);
            ck_assert(ap->qcmd[t].flags & ATA_QCFLAG_RETRY);
        }
        ck_assert_str_eq(fake_find(p, "eh.exception")->msg, "exception Emask 0x1 SAct 0x7 SErr 0x0 action 0x0");
        ck_assert_str_eq(fake_find(p, "eh.failed_qc_res")->msg,
                         "res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x1 (device error)");
    }
    /* a media error is not a speed-down category; an unexplained device error on I/O is */
    if (aborts) {
        ck_assert_ptr_nonnull(fake_find(p, "eh.ering"));
        ck_assert_uint_eq(ata_ering_top(&dev->ering)->err_mask, AC_ERR_DEV);
    } else {
        ck_assert_ptr_null(fake_find(p, "eh.ering"));
        ck_assert_ptr_null(ata_ering_top(&dev->ering));
    }

    ata_eh_finish(ap);
    ata_port_process(ap);
    if (!aborts) {
        ck_assert_int_eq(fin_done, 1); /* the culprit failed, media error: no retry */
        ck_assert_uint_eq(bio[1].err_mask, AC_ERR_DEV | AC_ERR_MEDIA | AC_ERR_NCQ);
        ck_assert_uint_eq(ncq_issued, 5); /* the two innocents went out again */
    } else {
        ck_assert_int_eq(fin_done, 0);
        ck_assert_uint_eq(ncq_issued, 6);
        for (unsigned i = 0; i < 3; i++)
            ck_assert_uint_eq(bio[i].q_retries, 1);
    }
    /* drain: complete what is in flight */
    ata_lock(h);
    ata_qc_complete_multiple(ap, 0);
    ata_unlock(h);
    ata_port_process(ap);
    ck_assert_int_eq(fin_done, 3);
    ata_host_free(h);
    free(p);
}

START_TEST(ncq_error_with_log) { ncq_error_case(false); }
END_TEST

START_TEST(ncq_error_log_aborted) { ncq_error_case(true); }
END_TEST

/* ---- an ATAPI command's error is not an I/O error for the speed-down rules ---- */

/* libata sets ATA_EFLAG_IS_IO only for a command with ATA_QCFLAG_IO, which ata_scsi_rw_xlat
 * gives an ATA read or write (ata_eh_link_autopsy: "if (qc->flags & ATA_QCFLAG_IO) eflags |=
 * ATA_EFLAG_IS_IO", 2.6.18 to 6.x); atapi_xlat never does. So an HSM violation or a device
 * error of a PACKET command is no speed-down category (ata_eh_categorize_error), where the
 * same error of a READ DMA is TOUT_HSM. The modern profile records no uncategorised error. */
static void hsm_error_case(bool packet)
{
    static const struct ata_sg sg = { 0x100000, 2048 };
    struct sata_platform *p = calloc(1, sizeof(*p));
    struct ata_packet pc = { .cdb = { 0x28, 0, 0, 0, 0, 0x10, 0, 0, 1, 0 }, .cdb_len = 10,
                             .dir = ATA_PACKET_FROM_DEV, .len = 2048 };
    struct ata_bio bio = { .op = ATA_BIO_READ, .mode = ATA_IO_DMA, .lba = 8, .n_sectors = 4, .sg = &sg,
                           .n_sg = 1, .done = fin_done_cb };
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_link *link;
    struct ata_device *dev;
    struct ata_queued_cmd *qc;

    if (packet)
        bio = (struct ata_bio){ .op = ATA_BIO_PACKET, .packet = &pc, .sg = &sg, .n_sg = 1, .done = fin_done_cb };
    fake_init(p);
    h = ata_host_alloc(p, &fake_ops, &issue_ops, 1);
    ap = &h->ports[0];
    link = &ap->link;
    ap->pflags = 0;
    ap->max_segs = 168;
    ap->seg_max_bytes = 4u << 20;
    dev = &link->device[0];
    dev->class = packet ? ATA_DEV_ATAPI : ATA_DEV_ATA;
    dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_DMA | (packet ? 0 : ATA_DFLAG_LBA | ATA_DFLAG_LBA48);
    dev->cdb_len = 12;
    dev->n_sectors = 1000000;
    dev->max_sectors = 65535;
    fin_done = 0;
    ck_assert_int_eq(ata_bio_submit(dev, &bio), 0);

    /* the device shows DRQ where the protocol has none: an HSM violation */
    ata_lock(h);
    qc = ata_qc_from_tag(ap, 0);
    ck_assert_ptr_nonnull(qc);
    ck_assert_int_eq(ata_is_atapi(&qc->tf), packet);
    qc->result_tf.command = ATA_DRDY | ATA_DRQ;
    qc->err_mask = AC_ERR_HSM;
    ata_qc_complete(qc); /* failed: EH owns it */
    memset(&link->eh_context, 0, sizeof(link->eh_context));
    link->eh_context.i = link->eh_info;
    link->eh_context.eh_tries_left = ATA_EH_MAX_REPEAT;
    memset(&link->eh_info, 0, sizeof(link->eh_info));
    ap->pflags &= ~(unsigned)ATA_PFLAG_EH_PENDING;
    ata_unlock(h);

    ata_eh_link_autopsy(link);
    ck_assert_uint_eq(qc->err_mask, AC_ERR_HSM);
    if (packet) {
        ck_assert_ptr_null(ata_ering_top(&dev->ering));
        ck_assert_ptr_null(fake_find(p, "eh.ering"));
    } else {
        ck_assert_ptr_nonnull(ata_ering_top(&dev->ering));
        ck_assert_uint_eq(ata_ering_top(&dev->ering)->eflags & ATA_EFLAG_IS_IO, ATA_EFLAG_IS_IO);
    }
    ata_host_free(h);
    free(p);
}

START_TEST(atapi_hsm_error_is_not_io) { hsm_error_case(true); }
END_TEST

START_TEST(ata_read_hsm_error_is_io) { hsm_error_case(false); }
END_TEST

/* ---- the reset loop: method, deadlines, pauses, speed-down, give-up ---- */

static uint64_t reset_at[8];
static char reset_kind[8];
static unsigned n_resets;

static int failing_reset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline, char kind)
{
    struct ata_host *h = link->ap->host;

    (void)cls, (void)deadline;
    ck_assert_uint_lt(n_resets, 8);
    reset_at[n_resets] = ata_now(h);
    reset_kind[n_resets++] = kind;
    ata_msleep(h, 1000);
    return -EBUSY;
}
static int fail_soft(struct ata_link *l, enum ata_dev_class *c, uint64_t d) { return failing_reset(l, c, d, 's'); }
static int fail_hard(struct ata_link *l, enum ata_dev_class *c, uint64_t d) { return failing_reset(l, c, d, 'h'); }

START_TEST(reset_loop_modern)
{
    struct sd_rig r;
    struct ata_link *link;

    sd_rig_init(&r, NULL);
    link = &r.h->ports[0].link;
    n_resets = 0;
    link->eh_context.i.action = ATA_EH_RESET;
    ck_assert_int_eq(ata_eh_reset(link, false, NULL, fail_soft, fail_hard, NULL), -EBUSY);
    ck_assert_uint_eq(n_resets, 4);
    ck_assert_mem_eq(reset_kind, "hhhh", 4);
    /* each attempt waits out the previous one's deadline: 10, 10, 35 s */
    ck_assert_uint_eq(reset_at[1] - reset_at[0], ATA_MS(10000));
    ck_assert_uint_eq(reset_at[2] - reset_at[1], ATA_MS(10000));
    ck_assert_uint_eq(reset_at[3] - reset_at[2], ATA_MS(35000));
    ck_assert_str_eq(fake_find_nth(&r.p, "eh.reset_failed", 0)->msg, "reset failed (errno=-16), retrying in 9 secs");
    ck_assert_str_eq(fake_find_nth(&r.p, "eh.reset_failed", 2)->msg, "reset failed (errno=-16), retrying in 34 secs");
    ck_assert_uint_eq(fake_count(&r.p, "eh.reset_failed"), 3);
    /* the link speed went down once, before the last attempt */
    ck_assert_uint_eq(fake_count(&r.p, "eh.spd_limit"), 1);
    ck_assert_uint_eq(link->sata_spd_limit, 0x3);
    ck_assert_str_eq(fake_find_nth(&r.p, "eh.reset", 0)->msg, "hard resetting link");
    ata_host_free(r.h);
}
END_TEST

START_TEST(reset_loop_2006)
{
    struct sd_rig r;
    struct ata_link *link;

    sd_rig_init(&r, "libata-2006");
    link = &r.h->ports[0].link;
    n_resets = 0;
    link->eh_context.i.action = ATA_EH_RESET;
    ck_assert_int_eq(ata_eh_reset(link, false, NULL, fail_soft, fail_hard, NULL), -EBUSY);
    ck_assert_uint_eq(n_resets, 4);
    ck_assert_mem_eq(reset_kind, "shhh", 4); /* softreset first, hardreset after a failure */
    ck_assert_uint_eq(reset_at[1] - reset_at[0], ATA_MS(6000)); /* 1 s reset + 5 s pause */
    ck_assert_str_eq(fake_find_nth(&r.p, "eh.reset_failed", 0)->msg, "reset failed (errno=-16), retrying in 5 secs");
    ck_assert_str_eq(fake_find_nth(&r.p, "eh.reset", 0)->msg, "soft resetting link");
    ck_assert_str_eq(fake_find_nth(&r.p, "eh.reset", 1)->msg, "hard resetting link");
    /* speed lowered after each failed hardreset that is retried: 6.0 -> 3.0 -> 1.5 */
    ck_assert_uint_eq(fake_count(&r.p, "eh.spd_limit"), 2);
    ck_assert_uint_eq(link->sata_spd_limit, 0x1);
    ata_host_free(r.h);
}
END_TEST

Suite *eh_suite(void)
{
    Suite *s = suite_create("eh");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, registry);
    tcase_add_test(tc, profile_wording);
    tcase_add_test(tc, profile_wording_2620_and_49);
    tcase_add_test(tc, unknown_policy_fails_create);
    tcase_add_test(tc, tf_to_err_mask);
    tcase_add_test(tc, serror_analysis);
    tcase_add_test(tc, ering_basics);
    tcase_add_test(tc, categories);
    tcase_add_test(tc, modern_verdicts);
    tcase_add_test(tc, verdicts_2006);
    tcase_add_test(tc, spd_and_xfer_masks);
    tcase_add_test(tc, reset_choice_and_deadlines);
    tcase_add_test(tc, ncq_log_page);
    tcase_add_test(tc, retry_rules);
    tcase_add_test(tc, report_lines);
    tcase_add_test(tc, speed_down_modern_sequence);
    tcase_add_test(tc, speed_down_xfer_steps_when_link_is_slowest);
    tcase_add_test(tc, speed_down_2006);
    tcase_add_test(tc, speed_down_link_down_by_era);
    tcase_add_test(tc, finish_retry_counts);
    tcase_add_test(tc, ncq_error_with_log);
    tcase_add_test(tc, ncq_error_log_aborted);
    tcase_add_test(tc, atapi_hsm_error_is_not_io);
    tcase_add_test(tc, ata_read_hsm_error_is_io);
    tcase_add_test(tc, reset_loop_modern);
    tcase_add_test(tc, reset_loop_2006);
    suite_add_tcase(s, tc);
    return s;
}
