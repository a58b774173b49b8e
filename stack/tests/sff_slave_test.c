/* Master/slave emulation on a taskfile channel (ATA_FLAG_SLAVE_POSS): the SFF softreset's
 * device check, SRST, wait and signature per device against a two-device register pair
 * emulated here (the ata_piix LLD on the fake platform, ICH6 map), and EH's per-device
 * decisions (probe order, which device is revalidated, blamed, disabled) against a fake LLD
 * on the EH rig. */
#include <errno.h>
#include <string.h>

#include "tests.h"
#include "ata_sff.h"

/* ---- a channel's two devices at the register level ---- */

/* One device position of the primary channel (0x1f0 / 0x3f6): what it latched, its
 * signature after SRST and how long it stays busy. An absent position reads 7Fh and latches
 * nothing (the model's empty slave position, model/sff/sff_decoder.h). */
struct pair_dev {
    bool present;
    uint8_t nsect, lbal, lbam, lbah, err, status;
    uint8_t sig_lbam, sig_lbah, diag; /* signature after SRST, diagnostic code (01h passed) */
    uint64_t busy_ns, busy_until;
};

static struct {
    struct pair_dev d[2];
    unsigned sel;
    bool srst;
} pr;

enum { PR_CMD = 0x1f0, PR_CTL = 0x3f6 };

static uint8_t pr_read8(struct sata_platform *p, uint32_t off)
{
    struct pair_dev *d = &pr.d[pr.sel];

    if (off < PR_CMD || (off > PR_CMD + 7 && off != PR_CTL))
        return fake_ops.mmio_read8(p, off); /* the bus master and the other channel */
    if (!d->present)
        return 0x7f;
    switch (off == PR_CTL ? 7 : off - PR_CMD) {
    case 1: return d->err;
    case 2: return d->nsect;
    case 3: return d->lbal;
    case 4: return d->lbam;
    case 5: return d->lbah;
    case 6: return (uint8_t)(0xa0 | pr.sel << 4);
    case 7: return p->now < d->busy_until ? ATA_BUSY : d->status;
    default: return 0;
    }
}

static void pr_write8(struct sata_platform *p, uint32_t off, uint8_t v)
{
    if (off == PR_CTL) {
        if (v & ATA_SRST) {
            pr.srst = true;
        } else if (pr.srst) { /* release: every device runs its reset and posts its signature */
            pr.srst = false;
            for (unsigned i = 0; i < 2; i++) {
                struct pair_dev *d = &pr.d[i];

                if (!d->present)
                    continue;
                d->nsect = d->lbal = 1;
                d->lbam = d->sig_lbam;
                d->lbah = d->sig_lbah;
                d->err = d->diag;
                d->status = ATA_DRDY;
                d->busy_until = p->now + d->busy_ns;
            }
        }
        return;
    }
    if (off < PR_CMD || off > PR_CMD + 7) {
        fake_ops.mmio_write8(p, off, v);
        return;
    }
    for (unsigned i = 0; i < 2; i++) { /* the cable: both devices see every register write */
        struct pair_dev *d = &pr.d[i];

        if (!d->present)
            continue;
        if (off == PR_CMD + 2)
            d->nsect = v;
        else if (off == PR_CMD + 3)
            d->lbal = v;
    }
    if (off == PR_CMD + 6)
        pr.sel = (v >> 4) & 1;
}

static struct sata_platform_ops pair_ops;

static void pair_init(bool m, bool s)
{
    memset(&pr, 0, sizeof(pr));
    pr.d[0] = (struct pair_dev){ .present = m, .diag = 1, .busy_ns = ATA_MS(300) };
    pr.d[1] = (struct pair_dev){ .present = s, .diag = 1, .busy_ns = ATA_MS(300) };
    pair_ops = fake_ops;
    pair_ops.mmio_read8 = pr_read8;
    pair_ops.mmio_write8 = pr_write8;
}

/* softreset of the primary channel of an ICH6-mapped PIIX; classes in cls */
static int pair_softreset(struct sata_platform *p, enum ata_piix_map map, enum ata_dev_class cls[2])
{
    const struct ata_host_config cfg = { .piix_map = map };
    struct ata_host *h = piix_host_create(p, &pair_ops, &cfg);
    int rc;

    ck_assert_ptr_nonnull(h);
    cls[0] = cls[1] = ATA_DEV_UNKNOWN;
    rc = ata_sff_softreset(&h->ports[0].link, cls, p->now + ATA_MS(10000));
    ata_host_destroy(h);
    fake_check_all_freed(p);
    return rc;
}

START_TEST(map_sets_slave_poss_and_prints_it)
{
    struct sata_platform p;
    const struct ata_host_config ich6 = { .piix_map = ATA_PIIX_MAP_ICH6 }, ich5 = { .piix_map = ATA_PIIX_MAP_ICH5 };
    struct ata_host *h;

    pair_init(true, true);
    fake_init(&p);
    h = piix_host_create(&p, &pair_ops, &ich6);
    ck_assert_ptr_nonnull(h);
    ck_assert_str_eq(fake_find(&p, "piix.map")->msg, "MAP [ P0 P2 P1 P3 ]");
    ck_assert(h->ports[0].flags & ATA_FLAG_SLAVE_POSS);
    ck_assert(h->ports[1].flags & ATA_FLAG_SLAVE_POSS);
    ck_assert_uint_eq(ata_link_max_devices(&h->ports[1].link), 2);
    ata_host_destroy(h);

    fake_init(&p);
    h = piix_host_create(&p, &pair_ops, &ich5);
    ck_assert_str_eq(fake_find(&p, "piix.map")->msg, "MAP [ P0 -- P1 -- ]");
    ck_assert(!(h->ports[0].flags & ATA_FLAG_SLAVE_POSS));
    ata_host_destroy(h);

    fake_init(&p); /* no map given: not read, not printed, one device per channel */
    h = piix_host_create(&p, &pair_ops, NULL);
    ck_assert_ptr_null(fake_find(&p, "piix.map"));
    ck_assert(!(h->ports[0].flags & ATA_FLAG_SLAVE_POSS));
    ata_host_destroy(h);
    fake_check_all_freed(&p);
}
END_TEST

START_TEST(softreset_classifies_master_and_slave)
{
    struct sata_platform p;
    enum ata_dev_class cls[2];

    pair_init(true, true);
    pr.d[1].sig_lbam = 0x14; /* an ATAPI slave */
    pr.d[1].sig_lbah = 0xeb;
    fake_init(&p);
    ck_assert_int_eq(pair_softreset(&p, ATA_PIIX_MAP_ICH6, cls), 0);
    ck_assert_int_eq(cls[0], ATA_DEV_ATA);
    ck_assert_int_eq(cls[1], ATA_DEV_ATAPI);
    ck_assert_ptr_nonnull(fake_find(&p, "sff.devchk"));
}
END_TEST

/* The device check tells who is there: an empty slave position latches nothing (7Fh), so it
 * is not waited for and classifies as none; an empty master position with a slave present is
 * none while the slave is classified. */
START_TEST(softreset_empty_positions_are_none)
{
    struct sata_platform p;
    enum ata_dev_class cls[2];

    pair_init(true, false);
    fake_init(&p);
    ck_assert_int_eq(pair_softreset(&p, ATA_PIIX_MAP_ICH6, cls), 0);
    ck_assert_int_eq(cls[0], ATA_DEV_ATA);
    ck_assert_int_eq(cls[1], ATA_DEV_NONE);

    pair_init(false, true);
    fake_init(&p);
    ck_assert_int_eq(pair_softreset(&p, ATA_PIIX_MAP_ICH6, cls), 0);
    ck_assert_int_eq(cls[0], ATA_DEV_NONE);
    ck_assert_int_eq(cls[1], ATA_DEV_ATA);
}
END_TEST

/* Device 1 is waited for on its own: a slave still busy 3 s after SRST (the master long
 * ready) is classified only once it is ready; without the map (one device per channel) the
 * slave is neither waited for nor classified. */
START_TEST(softreset_waits_for_the_slave)
{
    struct sata_platform p;
    enum ata_dev_class cls[2];

    pair_init(true, true);
    pr.d[1].busy_ns = ATA_MS(3000);
    fake_init(&p);
    ck_assert_int_eq(pair_softreset(&p, ATA_PIIX_MAP_ICH6, cls), 0);
    ck_assert_int_eq(cls[1], ATA_DEV_ATA);
    ck_assert_uint_ge(p.now, ATA_MS(3000));

    pair_init(true, true);
    pr.d[1].busy_ns = ATA_MS(3000);
    fake_init(&p);
    ck_assert_int_eq(pair_softreset(&p, ATA_PIIX_MAP_NONE, cls), 0);
    ck_assert_int_eq(cls[0], ATA_DEV_ATA);
    ck_assert_int_eq(cls[1], ATA_DEV_UNKNOWN);
    ck_assert_uint_lt(p.now, ATA_MS(3000));
    ck_assert_ptr_null(fake_find(&p, "sff.devchk"));
}
END_TEST

/* The diagnostic code: 81h from device 0 says device 1 failed, and libata does not classify
 * device 1 then; a device 1 reporting a failed diagnostic (00h) with an unknown signature
 * that the device check saw is taken as ATA. */
START_TEST(softreset_diagnostic_codes)
{
    struct sata_platform p;
    enum ata_dev_class cls[2];

    pair_init(true, true);
    pr.d[0].diag = 0x81;
    fake_init(&p);
    ck_assert_int_eq(pair_softreset(&p, ATA_PIIX_MAP_ICH6, cls), 0);
    ck_assert_int_eq(cls[0], ATA_DEV_ATA);
    ck_assert_int_eq(cls[1], ATA_DEV_UNKNOWN);

    pair_init(true, true);
    pr.d[1].diag = 0;
    pr.d[1].sig_lbam = 0x12; /* no known signature */
    pr.d[1].sig_lbah = 0x34;
    fake_init(&p);
    ck_assert_int_eq(pair_softreset(&p, ATA_PIIX_MAP_ICH6, cls), 0);
    ck_assert_int_eq(cls[1], ATA_DEV_ATA);
}
END_TEST

/* ---- EH per device, on the rig ---- */

static const struct id_spec drive_m = {
    .model = "SATASIM MASTER", .serial = "M0001", .fw = "1.0", .lba28_sectors = 0x0fffffff,
    .lba48_sectors = 2000000, .udma = 0x7f, .w80 = 0x1f0,
};
static const struct id_spec drive_s = {
    .model = "SATASIM SLAVE", .serial = "S0002", .fw = "2.0", .lba28_sectors = 0x0fffffff,
    .lba48_sectors = 4000000, .udma = 0x7f, .w80 = 0x1f0,
};

/* what the LLD saw: resets, and every IDENTIFY and SET FEATURES as device << 8 | command */
static struct {
    bool present[2];
    bool id_times_out[2]; /* the device hangs on IDENTIFY (the command times out) */
    unsigned n_srst;
    unsigned log[32], n_log;
} ms;

#define ID(d) ((d) << 8 | ATA_CMD_ID_ATA)
#define SF(d) ((d) << 8 | ATA_CMD_SET_FEATURES)

/* the LLD's log since the mark equals want[0..n) */
static void ms_log_is(unsigned mark, const unsigned *want, unsigned n)
{
    ck_assert_uint_eq(ms.n_log - mark, n);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_eq(ms.log[mark + i], want[i]);
}

static int ms_softreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    (void)deadline;
    ms.n_srst++;
    ata_msleep(link->ap->host, 150);
    for (unsigned d = 0; d < 2; d++)
        cls[d] = ms.present[d] ? ATA_DEV_ATA : ATA_DEV_NONE;
    return 0;
}

static void ms_prep(struct ata_queued_cmd *qc) { (void)qc; }
static void ms_rtf(struct ata_queued_cmd *qc)
{
    if (!qc->err_mask)
        qc->result_tf.command = ATA_DRDY;
}

static unsigned ms_issue(struct ata_queued_cmd *qc)
{
    unsigned d = qc->dev->devno;

    if (qc->bio)
        return 0; /* stays in flight until the test ends it */
    if (!ms.present[d]) {
        qc->err_mask = AC_ERR_NODEV_HINT;
    } else {
        if ((qc->tf.command == ATA_CMD_ID_ATA || qc->tf.command == ATA_CMD_SET_FEATURES) && ms.n_log < 32)
            ms.log[ms.n_log++] = d << 8 | qc->tf.command;
        if (qc->tf.command == ATA_CMD_ID_ATA && ms.id_times_out[d])
            qc->err_mask = AC_ERR_TIMEOUT;
        else if (qc->tf.command == ATA_CMD_ID_ATA)
            build_id_bytes(qc->ap->id_buf.cpu, d ? &drive_s : &drive_m);
    }
    ata_qc_complete(qc);
    return 0;
}

static const struct ata_port_operations ms_ops = {
    .qc_defer = ata_std_qc_defer,
    .qc_prep = ms_prep,
    .qc_issue = ms_issue,
    .qc_fill_rtf = ms_rtf,
    .softreset = ms_softreset,
    .error_handler = ata_std_error_handler,
};

static struct eh_rig *ms_boot(bool m, bool s)
{
    memset(&ms, 0, sizeof(ms));
    ms.present[0] = m;
    ms.present[1] = s;
    return eh_rig_boot(&ms_ops, NULL, ATA_FLAG_SLAVE_POSS);
}

/* the in-flight command of dev */
static struct ata_queued_cmd *ms_qc_of(struct eh_rig *r, struct ata_device *dev)
{
    for (unsigned t = 0; t < ATA_MAX_QUEUE; t++)
        if ((r->ap->qc_active & (1u << t)) && r->ap->qcmd[t].dev == dev)
            return &r->ap->qcmd[t];
    ck_abort_msg("no command in flight");
    return NULL;
}

static unsigned ering_entries(const struct ata_device *dev)
{
    unsigned n = 0;

    for (unsigned i = 0; i < ATA_ERING_SIZE; i++)
        n += dev->ering.ring[i].err_mask != 0;
    return n;
}

/* The boot probe: one SRST for the channel, IDENTIFY of device 1 before device 0 (libata's
 * reverse order), then the transfer mode of device 0 and device 1 (SET FEATURES and the
 * post-setmode IDENTIFY each); the ID lines in device order. */
START_TEST(probe_identifies_backwards_configures_forwards)
{
    struct eh_rig *r = ms_boot(true, true);
    struct ata_device *d1 = &r->ap->link.device[1];
    int id0, id1;

    const unsigned want[] = { ID(1), ID(0), SF(0), ID(0), SF(1), ID(1) };

    ck_assert_uint_eq(ms.n_srst, 1);
    ms_log_is(0, want, 6);
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 1), d1);
    ck_assert_str_eq(d1->model, "SATASIM SLAVE");
    ck_assert(d1->flags & ATA_DFLAG_ATTACHED);
    ck_assert_int_eq(fake_find_nth(&r->p, "probe.class", 0)->dev, 0);
    ck_assert_int_eq(fake_find_nth(&r->p, "probe.class", 1)->dev, 1);
    id0 = fake_index(&r->p, "probe.identify");
    ck_assert_int_eq(r->p.ev[id0].dev, 0);
    id1 = id0 + 1;
    while (id1 < (int)r->p.n_ev && strcmp(r->p.ev[id1].name, "probe.identify"))
        id1++;
    ck_assert_int_eq(r->p.ev[id1].dev, 1);
    eh_rig_free(r);
}
END_TEST

/* A device error (ABRT) on the slave: no reset, only the slave is revalidated (its IDENTIFY before
 * any SET FEATURES) and blamed (its error ring); the transfer mode is then set again on both
 * devices of the link, as libata's ata_set_mode does after a revalidation. */
START_TEST(slave_device_error_revalidates_the_slave_only)
{
    struct eh_rig *r = ms_boot(true, true);
    struct ata_device *d0 = &r->ap->link.device[0], *d1 = &r->ap->link.device[1];
    struct ata_bio b = eh_rig_bio(r, ATA_IO_DMA, 64);
    struct ata_queued_cmd *qc;
    const struct fake_event *ex;
    const unsigned want[] = { ID(1), SF(0), ID(0), SF(1), ID(1) };
    unsigned mark = ms.n_log;

    ck_assert_int_eq(ata_bio_submit(d1, &b), 0);
    r->p.n_ev = 0;
    ata_lock(r->h);
    qc = ms_qc_of(r, d1);
    qc->err_mask = AC_ERR_DEV;
    qc->result_tf.command = ATA_DRDY | ATA_ERR;
    qc->result_tf.feature = ATA_ABORTED; /* a device error EH counts (UNC would not be recorded) */
    ata_qc_complete(qc);
    ata_unlock(r->h);
    ata_host_eh_run(r->h);
    ck_assert_uint_eq(ms.n_srst, 1); /* the boot's only */
    ms_log_is(mark, want, 5);
    ck_assert_uint_eq(ering_entries(d1), 1);
    ck_assert_uint_eq(ering_entries(d0), 0);
    ex = fake_find(&r->p, "eh.exception");
    ck_assert_int_eq(ex->dev, 1); /* ata1.01: exception ... */
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), d0);
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 1), d1);
    eh_rig_free(r);
}
END_TEST

static void slave_read_times_out(struct eh_rig *r, struct ata_bio *b);

/* ---- libata's slave link (ata_piix with SIDPR: docs/hardware.md 10.8) ----
 * The ms LLD with SCRs per link and a hardreset that records the link it reset: the master
 * link's SStatus is device 0's PHY, the slave link's device 1's. */
static struct {
    struct ata_link *reset_link[16];
    unsigned n_hardreset;
} sl;

static int sl_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    const unsigned d = link == link->ap->slave_link ? 1 : 0;

    *val = reg == SCR_STATUS ? (ms.present[d] ? 0x123u : 0u) : reg == SCR_CONTROL ? 0x300u : 0u;
    return 0;
}

static int sl_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    (void)link, (void)reg, (void)val;
    return 0;
}

static int sl_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    (void)cls, (void)deadline;
    if (sl.n_hardreset < 16)
        sl.reset_link[sl.n_hardreset] = link;
    sl.n_hardreset++;
    return -EAGAIN; /* online: the class comes from the master's follow-up SRST */
}

static const struct ata_port_operations sl_ops = {
    .qc_defer = ata_std_qc_defer,
    .qc_prep = ms_prep,
    .qc_issue = ms_issue,
    .qc_fill_rtf = ms_rtf,
    .softreset = ms_softreset,
    .hardreset = sl_hardreset,
    .postreset = ata_std_postreset,
    .scr_read = sl_scr_read,
    .scr_write = sl_scr_write,
    .error_handler = ata_std_error_handler,
};

static struct eh_rig *sl_boot(const char *policy)
{
    memset(&ms, 0, sizeof(ms));
    memset(&sl, 0, sizeof(sl));
    ms.present[0] = ms.present[1] = true;
    return eh_rig_boot_with(&sl_ops, policy, ATA_FLAG_SLAVE_POSS, ata_slave_link_init);
}

/* The links and their names: device 1's PHY is the slave link, device 0's the port's own;
 * both count as host links (not a PMP's fan-out); the boot probe hard-resets the master link,
 * then the slave link, and one follow-up SRST (the master's) classifies both devices; each
 * link reports its own "SATA link up", as ataN.00 and ataN.01 (link 0 and 1). */
START_TEST(slave_link_probe_resets_both_links)
{
    struct eh_rig *r = sl_boot(NULL);
    struct ata_port *ap = r->ap;
    const struct fake_event *up0 = fake_find_nth(&r->p, "probe.link_up", 0);
    const struct fake_event *up1 = fake_find_nth(&r->p, "probe.link_up", 1);

    ck_assert_ptr_eq(ata_dev_phys_link(&ap->link.device[0]), &ap->link);
    ck_assert_ptr_eq(ata_dev_phys_link(&ap->link.device[1]), ap->slave_link);
    ck_assert(ata_is_host_link(ap->slave_link));
    ck_assert_uint_eq(sl.n_hardreset, 2);
    ck_assert_ptr_eq(sl.reset_link[0], &ap->link);
    ck_assert_ptr_eq(sl.reset_link[1], ap->slave_link);
    ck_assert_uint_eq(ms.n_srst, 1);
    ck_assert_ptr_nonnull(up0);
    ck_assert_ptr_nonnull(up1);
    ck_assert_int_eq(up0->link, 0);
    ck_assert_int_eq(up1->link, 1);
    ck_assert(ap->link.device[0].flags & ATA_DFLAG_ATTACHED);
    ck_assert(ap->link.device[1].flags & ATA_DFLAG_ATTACHED);
    eh_rig_free(r);
}
END_TEST

/* A slave command that times out: the slave link's autopsy finds it and reports it as
 * ata1.01 with "action 0x0" (its actions moved to the master link, libata's ata_eh_autopsy),
 * and the reset is the master link's, then the slave's, both announced (libata-4.x: the
 * master with no failed command is not quiet), as dmesg corpus 14 shows. Under 6.x's quiet
 * rule the master is quiet and passes it to the slave: no exception line, quiet resets. */
START_TEST(slave_link_timeout_reports_on_the_slave_and_resets_both)
{
    struct eh_rig *r = sl_boot("libata-4.x");
    struct ata_bio b;
    const struct fake_event *ex, *rs0, *rs1;

    r->p.n_ev = 0;
    sl.n_hardreset = 0;
    slave_read_times_out(r, &b);
    ex = fake_find(&r->p, "eh.exception");
    ck_assert_ptr_nonnull(ex);
    ck_assert_int_eq(ex->dev, 1);
    ck_assert_ptr_nonnull(strstr(ex->msg, "action 0x0 frozen"));
    rs0 = fake_find_nth(&r->p, "eh.reset", 0);
    rs1 = fake_find_nth(&r->p, "eh.reset", 1);
    ck_assert_int_eq(rs0->link, 0);
    ck_assert_str_eq(rs0->msg, "hard resetting link");
    ck_assert_int_eq(rs1->link, 1);
    ck_assert_str_eq(rs1->msg, "hard resetting link");
    ck_assert_uint_eq(sl.n_hardreset, 2);
    ck_assert(ata_dev_enabled(&r->ap->link.device[1]));
    eh_rig_complete_all(r);
    eh_rig_free(r);

    r = sl_boot(NULL); /* libata-modern: 6.x's quiet rule */
    r->p.n_ev = 0;
    slave_read_times_out(r, &b);
    ex = fake_find(&r->p, "eh.exception");
    ck_assert(ex == NULL || ex->msg[0] == '\0');
    ck_assert_str_eq(fake_find_nth(&r->p, "eh.reset", 0)->msg, "");
    eh_rig_complete_all(r);
    eh_rig_free(r);
}
END_TEST

/* A read of the slave's times out (its command timer fires) and EH runs. */
static void slave_read_times_out(struct eh_rig *r, struct ata_bio *b)
{
    struct ata_device *d1 = &r->ap->link.device[1];

    *b = eh_rig_bio(r, ATA_IO_DMA, 64);
    ck_assert_int_eq(ata_bio_submit(d1, b), 0);
    fake_fire_timer(&r->p, ms_qc_of(r, d1)->timer);
    ata_host_eh_run(r->h);
}

/* A read of dev times out (its command timer fires) and EH runs. */
static void read_times_out(struct eh_rig *r, struct ata_device *dev, struct ata_bio *b)
{
    *b = eh_rig_bio(r, ATA_IO_DMA, 64);
    ck_assert_int_eq(ata_bio_submit(dev, b), 0);
    fake_fire_timer(&r->p, ms_qc_of(r, dev)->timer);
    ata_host_eh_run(r->h);
}

/* A device disabled because its revalidation kept failing (not gone: its IDENTIFY times
 * out, so no probe is asked for) stays disabled when a later EH run resets the channel and
 * the device answers again: libata's ata_dev_disable turns its class into *_UNSUP and
 * ata_eh_revalidate_and_attach attaches only a slot whose class is ATA_DEV_UNKNOWN; only a
 * probe (hotplug, a SCSI rescan of the host) forgets it and identifies the slot again. */
START_TEST(a_disabled_device_is_not_attached_again_by_a_later_reset)
{
    struct eh_rig *r = ms_boot(true, true);
    struct ata_device *d0 = &r->ap->link.device[0], *d1 = &r->ap->link.device[1];
    const unsigned want[] = { ID(0), SF(0), ID(0) };
    struct ata_bio b0, b1;
    unsigned mark;

    ms.id_times_out[1] = true;
    read_times_out(r, d1, &b1);
    ck_assert_uint_eq(fake_count(&r->p, "dev.disabled"), 1);
    ck_assert(!ata_dev_enabled(d1));
    ck_assert(ata_dev_enabled(d0));

    /* the slave answers again; a timeout on the master resets the channel */
    ms.id_times_out[1] = false;
    mark = ms.n_log;
    r->p.n_ev = 0;
    read_times_out(r, d0, &b0);
    ck_assert_uint_ge(ms.n_srst, 3);
    ms_log_is(mark, want, 3); /* the master revalidated, no IDENTIFY of the slave */
    ck_assert(!ata_dev_enabled(d1));
    ck_assert_ptr_null(ata_host_device(r->h, 0, -1, 1));
    for (unsigned i = 0; i < fake_count(&r->p, "probe.configured"); i++)
        ck_assert_int_eq(fake_find_nth(&r->p, "probe.configured", i)->dev, 0);
    ck_assert(ata_dev_enabled(d0));
    eh_rig_free(r);
}
END_TEST

/* A timeout on the slave: the channel is reset (one SRST reaches both devices), both are
 * revalidated, the slave first, their modes set, and only the slave is blamed. */
START_TEST(slave_timeout_resets_the_channel_and_revalidates_both)
{
    struct eh_rig *r = ms_boot(true, true);
    struct ata_device *d0 = &r->ap->link.device[0], *d1 = &r->ap->link.device[1];
    const unsigned want[] = { ID(1), ID(0), SF(0), ID(0), SF(1), ID(1) };
    unsigned mark = ms.n_log;
    struct ata_bio b;

    slave_read_times_out(r, &b);
    ck_assert_uint_eq(ms.n_srst, 2);
    ms_log_is(mark, want, 6);
    ck_assert_uint_eq(ering_entries(d1), 1);
    ck_assert_uint_eq(ering_entries(d0), 0);
    ck_assert(ata_dev_enabled(d0) && ata_dev_enabled(d1));
    eh_rig_free(r);
}
END_TEST

/* The slave leaves after a timeout (nothing answers at its position): its tries run out and
 * it alone is disabled and detached; the master stays attached. */
START_TEST(slave_gone_is_disabled_master_kept)
{
    struct eh_rig *r = ms_boot(true, true);
    struct ata_device *d0 = &r->ap->link.device[0], *d1 = &r->ap->link.device[1];
    struct ata_bio b;

    ms.present[1] = false;
    slave_read_times_out(r, &b);
    ck_assert(!ata_dev_enabled(d1));
    ck_assert_ptr_null(ata_host_device(r->h, 0, -1, 1));
    ck_assert(ata_dev_enabled(d0));
    ck_assert(d0->flags & ATA_DFLAG_ATTACHED);
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), d0);
    ck_assert_int_eq(r->done, 1); /* the slave's request ended (failed) */
    eh_rig_free(r);
}
END_TEST

Suite *sff_slave_suite(void)
{
    Suite *s = suite_create("sff_slave");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, map_sets_slave_poss_and_prints_it);
    tcase_add_test(tc, softreset_classifies_master_and_slave);
    tcase_add_test(tc, softreset_empty_positions_are_none);
    tcase_add_test(tc, softreset_waits_for_the_slave);
    tcase_add_test(tc, softreset_diagnostic_codes);
    tcase_add_test(tc, probe_identifies_backwards_configures_forwards);
    tcase_add_test(tc, slave_device_error_revalidates_the_slave_only);
    tcase_add_test(tc, slave_timeout_resets_the_channel_and_revalidates_both);
    tcase_add_test(tc, slave_gone_is_disabled_master_kept);
    tcase_add_test(tc, a_disabled_device_is_not_attached_again_by_a_later_reset);
    tcase_add_test(tc, slave_link_probe_resets_both_links);
    tcase_add_test(tc, slave_link_timeout_reports_on_the_slave_and_resets_both);
    suite_add_tcase(s, tc);
    return s;
}
