/* Port multiplier support against a scripted PMP: a fake LLD whose host link has a PMP
 * answering READ/WRITE PORT MULTIPLIER from tables (GSCR, per-port PSCR), disks on some of
 * its fan-out ports, and block I/O kept in flight until the test completes it. Checks
 * attach (GSCR, log lines, fan-out probe through PSCR), routing by PM port, command-based
 * switching, per-link EH, control-port failure (whole PMP reset) and product change. */
#include <stdio.h>
#include <string.h>

#include "tests.h"

static struct {
    bool pmp;                       /* a PMP on the host link (else one plain disk) */
    uint32_t gscr_prod, gscr_rev, nports, feat, feat_en, err_en, pol;
    bool disk[SATA_PMP_MAX_PORTS];
    uint32_t sctl[SATA_PMP_MAX_PORTS], serr[SATA_PMP_MAX_PORTS];
    bool ctrl_hang;                 /* the control port stops answering */
    unsigned hang_after;            /* ... after this many more PMP reads (0 = at once) */
    unsigned n_host_hardreset, n_pmp_read, n_port_hardreset[SATA_PMP_MAX_PORTS];
    unsigned n_srst[16];            /* SRSTs per PM port */
    unsigned n_id[SATA_PMP_MAX_PORTS];
    uint32_t host_scontrol, host_sstatus;
    uint32_t rtf_val;               /* value the last READ PM returned */
    /* block I/O in flight */
    struct ata_queued_cmd *io[64];
    unsigned n_io, io_port[64];
    unsigned max_links_busy;
    bool pma;
    /* NCQ error log (page 10h): the tag it names, reads per PM port */
    unsigned log_tag, n_log[16];
    uint8_t io_stat, io_err;        /* result of failed block I/O (0: DRDY) */
} pm;

static const struct id_spec disk_spec = {
    .model = "SATASIM PMP DISK", .serial = "P0000", .fw = "1.0", .lba28_sectors = 0x0fffffff,
    .lba48_sectors = 2000000, .ncq = true, .depth = 32, .udma = 0x7f, .w80 = 0x1f0,
};

static uint32_t pscr_sstatus(unsigned p)
{
    return pm.disk[p] && (pm.sctl[p] & 0xf) == 0 ? 0x123 : 0;
}

static int f_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    ck_assert(ata_is_host_link(link)); /* fan-out SCRs go through the PMP */
    switch (reg) {
    case SCR_STATUS: *val = pm.host_sstatus; return 0;
    case SCR_CONTROL: *val = pm.host_scontrol; return 0;
    case SCR_ERROR: *val = 0; return 0;
    default: return -EINVAL;
    }
}

static int f_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    ck_assert(ata_is_host_link(link));
    if (reg == SCR_CONTROL)
        pm.host_scontrol = val;
    return 0;
}

static int f_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    (void)deadline;
    (void)cls;
    ck_assert(ata_is_host_link(link));
    pm.n_host_hardreset++;
    pm.ctrl_hang = false; /* a COMRESET revives a hung PMP */
    ata_msleep(link->ap->host, 10);
    return -EAGAIN; /* PMP-capable: the follow-up SRST classifies */
}

static int f_softreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    unsigned port = ata_link_pmp_port(link);

    (void)deadline;
    pm.n_srst[port]++;
    if (ata_is_host_link(link)) {
        ck_assert_uint_eq(port, SATA_PMP_CTRL_PORT);
        *cls = pm.pmp ? ATA_DEV_PMP : ATA_DEV_ATA;
    } else {
        ck_assert_uint_lt(port, pm.nports);
        *cls = pscr_sstatus(port) ? ATA_DEV_ATA : ATA_DEV_NONE;
    }
    return 0;
}

static void nop_prep(struct ata_queued_cmd *qc) { (void)qc; }

static void f_rtf(struct ata_queued_cmd *qc)
{
    qc->result_tf.command = ATA_DRDY;
    if (qc->bio && qc->err_mask && pm.io_stat) {
        qc->result_tf.command = pm.io_stat;
        qc->result_tf.feature = pm.io_err;
    }
    if (qc->tf.command == ATA_CMD_PMP_READ && !qc->err_mask) {
        qc->result_tf.nsect = (uint8_t)pm.rtf_val;
        qc->result_tf.lbal = (uint8_t)(pm.rtf_val >> 8);
        qc->result_tf.lbam = (uint8_t)(pm.rtf_val >> 16);
        qc->result_tf.lbah = (uint8_t)(pm.rtf_val >> 24);
    }
}

static bool gscr_read(unsigned reg, uint32_t *v)
{
    switch (reg) {
    case SATA_PMP_GSCR_PROD_ID: *v = pm.gscr_prod; return true;
    case SATA_PMP_GSCR_REV: *v = pm.gscr_rev; return true;
    case SATA_PMP_GSCR_PORT_INFO: *v = pm.nports; return true;
    case SATA_PMP_GSCR_ERROR:
        *v = 0;
        for (unsigned p = 0; p < pm.nports; p++)
            if (pm.serr[p] & pm.err_en)
                *v |= 1u << p;
        return true;
    case SATA_PMP_GSCR_ERROR_EN: *v = pm.err_en; return true;
    case SATA_PMP_GSCR_FEAT: *v = pm.feat; return true;
    case SATA_PMP_GSCR_FEAT_EN: *v = pm.feat_en; return true;
    case SATA_PMP_GSCR_SII_POL: *v = pm.pol; return true;
    default: return false;
    }
}

static unsigned links_busy(struct ata_port *ap)
{
    unsigned n = 0;

    for (unsigned i = 0; i < ap->nr_pmp_links; i++)
        n += ap->pmp_link[i].active_tag != ATA_TAG_NONE || ap->pmp_link[i].sactive;
    return n;
}

static unsigned f_issue(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;
    unsigned port = ata_qc_pmp_port(qc);

    if (qc->bio) {
        ck_assert(pm.pma);
        ck_assert_uint_lt(pm.n_io, 64);
        ck_assert_int_eq((int)port, qc->dev->link->pmp);
        pm.io[pm.n_io] = qc;
        pm.io_port[pm.n_io++] = port;
        if (links_busy(ap) > pm.max_links_busy)
            pm.max_links_busy = links_busy(ap);
        return 0;
    }
    switch (qc->tf.command) {
    case ATA_CMD_PMP_READ:
    case ATA_CMD_PMP_WRITE: {
        unsigned target = qc->tf.device & 0xf, reg = qc->tf.feature;
        bool wr = qc->tf.command == ATA_CMD_PMP_WRITE;
        uint32_t v = (uint32_t)qc->tf.nsect | (uint32_t)qc->tf.lbal << 8 | (uint32_t)qc->tf.lbam << 16 |
                     (uint32_t)qc->tf.lbah << 24;

        ck_assert_uint_eq(port, SATA_PMP_CTRL_PORT);
        ck_assert(qc->tf.flags & ATA_TFLAG_LBA48);
        if (pm.ctrl_hang || (pm.hang_after && !--pm.hang_after && (pm.ctrl_hang = true)))
            return 0; /* never completes: the internal command times out */
        pm.n_pmp_read += !wr;
        if (target == SATA_PMP_CTRL_PORT) {
            if (wr) {
                if (reg == SATA_PMP_GSCR_ERROR_EN)
                    pm.err_en = v;
                else if (reg == SATA_PMP_GSCR_FEAT_EN)
                    pm.feat_en = v;
                else if (reg == SATA_PMP_GSCR_SII_POL)
                    pm.pol = v;
            } else {
                ck_assert(gscr_read(reg, &pm.rtf_val));
            }
        } else {
            ck_assert_uint_lt(target, pm.nports);
            ck_assert_uint_le(reg, SCR_CONTROL);
            if (wr) {
                if (reg == SCR_CONTROL) {
                    if ((v & 0xf) == 1 && (pm.sctl[target] & 0xf) != 1)
                        pm.n_port_hardreset[target]++;
                    pm.sctl[target] = v;
                } else if (reg == SCR_ERROR) {
                    pm.serr[target] &= ~v;
                }
            } else {
                pm.rtf_val = reg == SCR_STATUS ? pscr_sstatus(target) : reg == SCR_ERROR ? pm.serr[target]
                                                                                     : pm.sctl[target];
            }
        }
        break;
    }
    case ATA_CMD_ID_ATA: {
        struct id_spec s = disk_spec;
        char serial[16];

        ck_assert_uint_lt(port, pm.nports);
        ck_assert(pscr_sstatus(port));
        pm.n_id[port]++;
        snprintf(serial, sizeof(serial), "P%04u", port);
        s.serial = serial;
        build_id_bytes(ap->id_buf.cpu, &s);
        break;
    }
    case ATA_CMD_READ_LOG_EXT: {
        uint8_t *log = ap->log_buf.cpu, sum = 0;

        ck_assert_uint_lt(port, pm.nports);
        ck_assert_uint_eq(qc->tf.lbal, ATA_LOG_SATA_NCQ);
        pm.n_log[port]++;
        /* the failed tag, status DRDY|ERR, error UNC, checksum over the page */
        memset(log, 0, ATA_SECT_SIZE);
        log[0] = (uint8_t)pm.log_tag;
        log[2] = ATA_DRDY | ATA_ERR;
        log[3] = ATA_UNC;
        for (unsigned i = 0; i < ATA_SECT_SIZE - 1; i++)
            sum = (uint8_t)(sum + log[i]);
        log[ATA_SECT_SIZE - 1] = (uint8_t)-sum;
        break;
    }
    default:
        ck_assert_uint_lt(port, pm.nports);
        break;
    }
    ata_qc_complete(qc);
    return 0;
}

static void f_pmp_attach(struct ata_port *ap) { (void)ap, pm.pma = true; }
static void f_pmp_detach(struct ata_port *ap) { (void)ap, pm.pma = false; }

/* a PMP-capable LLD: command-based switching, the PMP error handler and the standard
 * pre/postreset come from the base table */
static const struct ata_port_operations pm_ops = {
    .inherits = &sata_pmp_port_ops,
    .qc_prep = nop_prep,
    .qc_issue = f_issue,
    .qc_fill_rtf = f_rtf,
    .softreset = f_softreset,
    .hardreset = f_hardreset,
    .scr_read = f_scr_read,
    .scr_write = f_scr_write,
    .pmp_attach = f_pmp_attach,
    .pmp_detach = f_pmp_detach,
};

static void pm_setup(unsigned nports, unsigned n_disks, uint32_t prod)
{
    memset(&pm, 0, sizeof(pm));
    pm.pmp = true;
    pm.gscr_prod = prod;
    pm.gscr_rev = (1u << 3) | (1u << 2) | (0x23u << 8);
    pm.nports = nports;
    pm.feat = 0x9;
    pm.feat_en = 0x9;
    pm.pol = 1;
    pm.host_scontrol = 0x300;
    pm.host_sstatus = 0x123; /* the host link up at 3.0 Gbps */
    for (unsigned i = 0; i < n_disks; i++)
        pm.disk[i] = true;
    for (unsigned i = 0; i < SATA_PMP_MAX_PORTS; i++)
        pm.sctl[i] = 0x300;
}

static bool boot_with_an;
static const char *boot_policy;

/* A host whose boot probe found a PMP (product id prod) with nports fan-out ports, disks
 * on the first n_disks. */
static struct eh_rig *prig_boot(unsigned nports, unsigned n_disks, uint32_t prod)
{
    pm_setup(nports, n_disks, prod);
    return eh_rig_boot(&pm_ops, boot_policy, ATA_FLAG_PMP | (boot_with_an ? ATA_FLAG_AN : 0));
}

static const struct fake_event *find_link_ev(const struct sata_platform *p, const char *name, int link)
{
    for (unsigned i = 0; i < p->n_ev; i++)
        if (!strcmp(p->ev[i].name, name) && p->ev[i].link == link)
            return &p->ev[i];
    return NULL;
}

/* complete the commands in flight, oldest first, with err_mask (lock taken here) */
static void complete_io(struct eh_rig *r, unsigned err_mask)
{
    unsigned n = pm.n_io;
    struct ata_queued_cmd *io[64];

    memcpy(io, pm.io, sizeof(io));
    pm.n_io = 0;
    ata_lock(r->h);
    for (unsigned i = 0; i < n; i++) {
        io[i]->err_mask |= err_mask;
        ata_qc_complete(io[i]);
    }
    ata_unlock(r->h);
    ata_port_process(r->ap);
}

/* The PMP's and the first three fan-out links' hardreset counts at some point of a test. */
struct reset_counts {
    unsigned host, port[3];
};

static struct reset_counts reset_counts_now(void)
{
    struct reset_counts c = { .host = pm.n_host_hardreset };

    memcpy(c.port, pm.n_port_hardreset, sizeof(c.port));
    return c;
}

/* Since then: no PMP reset, and one hardreset of each fan-out link in reset_ports (bit i:
 * port i), none of the others. */
static void check_resets_since(const struct reset_counts *then, unsigned reset_ports)
{
    ck_assert_uint_eq(pm.n_host_hardreset, then->host);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_uint_eq(pm.n_port_hardreset[i], then->port[i] + (reset_ports >> i & 1));
}

/* The first command in flight timed out (the port is frozen), then EH runs. */
static void time_out_first_io(struct eh_rig *r)
{
    ata_lock(r->h);
    pm.io[0]->err_mask |= AC_ERR_TIMEOUT;
    pm.n_io = 0;
    ata_port_freeze(r->ap);
    ata_unlock(r->h);
    ata_host_eh_run(r->h);
}

/* b, the only request, is in flight (again) and completes without error. */
static void check_only_io_completes(struct eh_rig *r, const struct ata_bio *b)
{
    ck_assert_uint_eq(pm.n_io, 1);
    complete_io(r, 0);
    ck_assert_int_eq(r->done, 1);
    ck_assert_int_eq(b->err_mask, 0);
}

static void check_boot(unsigned nports, unsigned n_disks)
{
    struct eh_rig *r;
    char want[96];

    r = prig_boot(nports, n_disks, 0x37261095);
    ck_assert(pm.pma);
    ck_assert_uint_eq(r->ap->nr_pmp_links, nports);
    snprintf(want, sizeof(want), "Port Multiplier 1.2, 0x1095:0x3726 r35, %u ports, feat 0x9/0x9", nports);
    ck_assert_str_eq(find_link_ev(&r->p, "pmp.attach", 15)->msg, want);
    ck_assert_uint_eq(pm.feat_en & SATA_PMP_FEAT_NOTIFY, 0); /* AN off: the stack polls */
    ck_assert_uint_eq(pm.err_en, 1u << 16);
    ck_assert_uint_eq(pm.pol & 1, 0); /* SiI: early R_OK off */
    ck_assert_ptr_null(ata_host_device(r->h, 0, -1, 0));
    for (unsigned i = 0; i < SATA_PMP_MAX_PORTS; i++) {
        struct ata_device *dev = ata_host_device(r->h, 0, (int)i, 0);
        struct ata_dev_info info;
        bool cfg = i == 5; /* the SiI3726's config port */

        if (i < n_disks && i < nports && !cfg) {
            char serial[16];

            ck_assert_ptr_nonnull(dev);
            ck_assert_int_eq(ata_dev_get_info(dev, &info), 0);
            snprintf(serial, sizeof(serial), "P%04u", i);
            ck_assert_str_eq(info.serial, serial);
            ck_assert_uint_eq(pm.n_port_hardreset[i], 1);
            ck_assert_uint_eq(pm.n_srst[i], 1);
            /* SPD 2: a fan-out link no faster than the 3.0 Gbps host link */
            ck_assert_str_eq(find_link_ev(&r->p, "probe.link_up", (int)i)->msg,
                             "SATA link up 3.0 Gbps (SStatus 123 SControl 320)");
            ck_assert_str_eq(find_link_ev(&r->p, "probe.configured", (int)i)->msg, "configured for UDMA/133");
        } else if (cfg && i < nports) {
            /* the SiI3726's enclosure bridge: hard reset and reported like any fan-out link,
             * never SRST, nothing attached (libata's ATA_LFLAG_NO_SRST | ASSUME_SEMB) */
            ck_assert_ptr_null(dev);
            ck_assert_uint_eq(pm.n_port_hardreset[i], 1);
            ck_assert_uint_eq(pm.n_srst[i], 0);
            ck_assert_ptr_nonnull(find_link_ev(&r->p, i < n_disks ? "probe.link_up" : "probe.link_down", (int)i));
            ck_assert_ptr_null(find_link_ev(&r->p, "probe.configured", (int)i));
        } else {
            ck_assert_ptr_null(dev);
            if (i < nports && !cfg)
                ck_assert_str_eq(find_link_ev(&r->p, "probe.link_down", (int)i)->msg,
                                 "SATA link down (SStatus 0 SControl 320)");
        }
    }
    if (nports > 5)
        ck_assert_ptr_nonnull(find_link_ev(&r->p, "pmp.config_port", 5));
    /* libata's order (ata_eh_recover over every fan-out link): every link is reset before
     * any device is revalidated or attached (dmesg corpus 51) */
    if (n_disks) {
        unsigned last_reset = 0, first_cfg = r->p.n_ev;

        for (unsigned e = 0; e < r->p.n_ev; e++) {
            const struct fake_event *ev = &r->p.ev[e];

            if (ev->link < 0 || ev->link >= SATA_PMP_CTRL_PORT)
                continue;
            if (!strcmp(ev->name, "probe.link_up") || !strcmp(ev->name, "probe.link_down"))
                last_reset = e;
            if (!strcmp(ev->name, "probe.configured") && e < first_cfg)
                first_cfg = e;
        }
        ck_assert_uint_lt(last_reset, first_cfg);
    }
    /* the boot probe is quiet on the host link, but attaching a PMP recovers its fan-out
     * links, which are not (libata sets ATA_PFLAG_RECOVERED in ata_eh_about_to_do "if
     * (!(ehc->i.flags & ATA_EHI_QUIET))", per link): a real 6.x boot with a JMB PMP ends
     * "ata6: EH complete" (harness/tests/fixtures/dmesg-corpus/46) */
    ck_assert_uint_eq(fake_count(&r->p, "eh.complete"), 1);
    eh_rig_free(r);
}

START_TEST(attach_1_5_15)
{
    check_boot(1, 1);
    check_boot(5, 5);
    check_boot(5, 3);
    check_boot(6, 6); /* SiI3726: port 5 is its config device */
}
END_TEST

/* libata's __sata_set_spd_needed: a fan-out link's limit is masked with the host link's
 * negotiated speed, so each fan-out COMRESET writes SControl.SPD = the host link's
 * generation (real logs: "SControl 330" behind a 6.0 Gbps JMB575, dmesg corpus 46; "320"
 * behind 3.0 Gbps, 21 and 52), and an EH limit below it still wins. */
static void check_fanout_spd(uint32_t host_sstatus, uint32_t want_sctl)
{
    struct eh_rig *r;
    char want[64];

    pm_setup(2, 1, 0x57551b97);
    pm.host_sstatus = host_sstatus;
    r = eh_rig_boot(&pm_ops, boot_policy, ATA_FLAG_PMP);
    ck_assert_uint_eq(r->ap->link.sata_spd, (host_sstatus >> 4) & 0xf);
    ck_assert_uint_eq(pm.sctl[0], want_sctl);
    ck_assert_uint_eq(pm.sctl[1], want_sctl);
    snprintf(want, sizeof(want), "SATA link up 3.0 Gbps (SStatus 123 SControl %X)", want_sctl);
    ck_assert_str_eq(find_link_ev(&r->p, "probe.link_up", 0)->msg, want);
    snprintf(want, sizeof(want), "SATA link down (SStatus 0 SControl %X)", want_sctl);
    ck_assert_str_eq(find_link_ev(&r->p, "probe.link_down", 1)->msg, want);
    /* a speed limit of the fan-out link's own below the host's: that one */
    r->ap->pmp_link[0].sata_spd_limit = 0x1;
    ck_assert(sata_set_spd_needed(&r->ap->pmp_link[0]) == (want_sctl != 0x310));
    ck_assert_uint_eq(sata_spd_target(&r->ap->pmp_link[0]), 1);
    /* the host link itself is not capped by anything */
    ck_assert_uint_eq(sata_spd_target(&r->ap->link), 0);
    eh_rig_free(r);
}

START_TEST(fanout_spd_follows_host_link)
{
    check_fanout_spd(0x133, 0x330);
    check_fanout_spd(0x123, 0x320);
    check_fanout_spd(0x113, 0x310);
}
END_TEST

START_TEST(attach_15_generic)
{
    struct eh_rig *r;

    r = prig_boot(15, 15, 0x00011b4b);
    ck_assert_uint_eq(r->ap->nr_pmp_links, 15);
    ck_assert_str_eq(find_link_ev(&r->p, "pmp.attach", 15)->msg,
                     "Port Multiplier 1.2, 0x1b4b:0x0001 r35, 15 ports, feat 0x9/0x9");
    for (unsigned i = 0; i < 15; i++)
        ck_assert_ptr_nonnull(ata_host_device(r->h, 0, (int)i, 0));
    ck_assert_uint_eq(pm.pol, 1); /* not a SiI part */
    eh_rig_free(r);
}
END_TEST

/* CBS: commands to one fan-out link at a time, FIFO order keeps the next link from starving. */
START_TEST(cmd_switching)
{
    struct eh_rig *r;
    struct ata_bio b[12];
    struct ata_device *d[3];

    r = prig_boot(3, 3, 0x00011b4b);
    for (unsigned i = 0; i < 3; i++)
        d[i] = ata_host_device(r->h, 0, (int)i, 0);
    /* 4 to disk 0, 4 to disk 1, 4 to disk 2, interleaved 0,0,1,1,2,2,... */
    for (unsigned i = 0; i < 12; i++) {
        b[i] = eh_rig_bio(r, ATA_IO_AUTO, 8 * i);
        ck_assert_int_eq(ata_bio_submit(d[(i / 2) % 3], &b[i]), 0);
    }
    ck_assert_uint_eq(pm.n_io, 2);
    ck_assert_uint_eq(pm.io_port[0], 0);
    ck_assert_uint_eq(pm.io_port[1], 0);
    complete_io(r, 0);
    ck_assert_uint_eq(pm.n_io, 2);
    ck_assert_uint_eq(pm.io_port[0], 1);
    for (unsigned k = 0; k < 5; k++) {
        ck_assert_uint_eq(pm.n_io, 2);
        ck_assert_uint_eq(pm.io_port[0], pm.io_port[1]);
        complete_io(r, 0);
    }
    ck_assert_int_eq(r->done, 12);
    ck_assert_uint_eq(pm.max_links_busy, 1);
    eh_rig_free(r);
}
END_TEST

/* A device error on one fan-out link: that link is revalidated, the PMP and the others are
 * not reset. */
START_TEST(dev_error_stays_on_link)
{
    struct eh_rig *r;
    struct ata_bio b;
    struct reset_counts resets;

    r = prig_boot(3, 3, 0x00011b4b);
    resets = reset_counts_now();
    b = eh_rig_bio(r, ATA_IO_AUTO, 0);
    ck_assert_int_eq(ata_bio_submit(ata_host_device(r->h, 0, 1, 0), &b), 0);
    r->p.n_ev = 0;
    complete_io(r, AC_ERR_DEV);
    ck_assert(ata_port_eh_pending(r->h, 0));
    ata_host_eh_run(r->h);
    check_resets_since(&resets, 0);
    ck_assert_ptr_nonnull(find_link_ev(&r->p, "pmp.eh_route", 1));
    /* attach + set-mode check at boot, revalidation + set-mode check now */
    ck_assert_uint_eq(pm.n_id[1], 4);
    ck_assert_uint_eq(pm.n_id[0], 2);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(ata_host_device(r->h, 0, (int)i, 0));
    eh_rig_free(r);
}
END_TEST

/* An NCQ error on a disk behind the PMP, recorded by the LLD on the host link as a device
 * error without a culprit (SDB FIS with ERR): the autopsy of that fan-out link reads log
 * page 10h from its own disk (PM port 1), only the tag named there is blamed (a media error,
 * not retried), the other command goes back for free; no reset, NCQ stays on. */
START_TEST(ncq_error_log_on_fanout)
{
    struct eh_rig *r;
    struct ata_bio b[3];
    struct ata_device *dev;
    const struct fake_event *ev;
    struct reset_counts resets;
    unsigned culprit;

    r = prig_boot(3, 3, 0x00011b4b);
    resets = reset_counts_now();
    dev = ata_host_device(r->h, 0, 1, 0);
    ck_assert(dev->flags & ATA_DFLAG_NCQ);
    eh_rig_submit_reads(r, dev, b, 3);
    ck_assert_uint_eq(pm.n_io, 3);
    for (unsigned i = 0; i < 3; i++)
        ck_assert(ata_is_ncq(&pm.io[i]->tf));
    culprit = pm.io[1]->tag;
    pm.log_tag = culprit;
    r->p.n_ev = 0;
    /* what an LLD does on TFES during NCQ: link error DEV, every command aborted */
    ata_lock(r->h);
    r->ap->link.eh_info.err_mask |= AC_ERR_DEV;
    ata_ehi_push_desc(&r->ap->link.eh_info, "irq_stat 0x40000008");
    pm.n_io = 0;
    ck_assert_uint_eq(ata_port_abort(r->ap), 3);
    ata_unlock(r->h);
    ata_host_eh_run(r->h);

    /* log 10h read once, from the failing disk only */
    ck_assert_uint_eq(pm.n_log[1], 1);
    ck_assert_uint_eq(pm.n_log[0] + pm.n_log[2] + pm.n_log[SATA_PMP_CTRL_PORT], 0);
    ck_assert_ptr_nonnull(find_link_ev(&r->p, "pmp.eh_route", 1));
    ev = find_link_ev(&r->p, "eh.ncq_culprit", 1);
    ck_assert_ptr_nonnull(ev);
    ck_assert_ptr_null(find_link_ev(&r->p, "eh.ncq_culprit", -1));
    /* the exception is that disk's, with the LLD's description */
    ev = find_link_ev(&r->p, "eh.exception", 1);
    ck_assert_ptr_nonnull(ev);
    ck_assert_str_eq(ev->msg, "exception Emask 0x0 SAct 0x7 SErr 0x0 action 0x0");
    ck_assert_str_eq(find_link_ev(&r->p, "eh.desc", 1)->msg, "irq_stat 0x40000008");
    ck_assert_ptr_null(find_link_ev(&r->p, "eh.exception", -1));
    ck_assert_ptr_null(find_link_ev(&r->p, "eh.exception", SATA_PMP_CTRL_PORT));
    ck_assert_uint_eq(fake_count(&r->p, "eh.failed_qc"), 1);
    ck_assert_str_eq(find_link_ev(&r->p, "eh.failed_qc_error", 1)->msg, "error: { UNC }");
    ck_assert_uint_eq(fake_count(&r->p, "eh.ncq_off"), 0);
    /* nothing reset: not the PMP, not a link */
    check_resets_since(&resets, 0);
    /* the culprit failed with its media error, the two others were issued again */
    ck_assert_int_eq(r->done, 1);
    ck_assert(b[1].err_mask & AC_ERR_MEDIA);
    ck_assert_uint_eq(pm.n_io, 2);
    complete_io(r, 0);
    ck_assert_int_eq(r->done, 3);
    ck_assert_int_eq(b[0].err_mask, 0);
    ck_assert_int_eq(b[2].err_mask, 0);
    ck_assert(dev->flags & ATA_DFLAG_NCQ);
    eh_rig_free(r);
}
END_TEST

/* A CRC error on fan-out link 2, latched in its PSCR SError (C, T): that link's autopsy
 * reads (and clears) it through the PMP, classifies an ATA bus error there and resets that
 * link only; the PMP and the other links are not reset. */
START_TEST(fanout_serror_resets_link_only)
{
    struct eh_rig *r;
    struct ata_bio b;
    const struct fake_event *ev;
    struct reset_counts resets;

    r = prig_boot(3, 3, 0x00011b4b);
    resets = reset_counts_now();
    b = eh_rig_bio(r, ATA_IO_AUTO, 0);
    ck_assert_int_eq(ata_bio_submit(ata_host_device(r->h, 0, 2, 0), &b), 0);
    pm.serr[2] = (1u << 21) | (1u << 8);
    r->p.n_ev = 0;
    /* the drive saw R_ERR: it fails the command with ICRC|ABRT */
    pm.io_stat = ATA_DRDY | ATA_ERR;
    pm.io_err = ATA_ICRC | ATA_ABORTED;
    complete_io(r, AC_ERR_DEV);
    pm.io_stat = 0;
    ata_host_eh_run(r->h);
    ev = find_link_ev(&r->p, "eh.exception", 2);
    ck_assert_ptr_nonnull(ev);
    ck_assert_str_eq(ev->msg, "exception Emask 0x10 SAct 0x1 SErr 0x200100 action 0x6");
    ck_assert_str_eq(find_link_ev(&r->p, "eh.serror", 2)->msg, "SError: { UnrecovData BadCRC }");
    ev = find_link_ev(&r->p, "eh.ering", 2);
    ck_assert_ptr_nonnull(ev);
    ck_assert_uint_eq(pm.serr[2], 0);
    check_resets_since(&resets, 1u << 2);
    /* an ATA bus error is retried */
    check_only_io_completes(r, &b);
    eh_rig_free(r);
}
END_TEST

/* A timeout on a fan-out link resets the whole PMP and revalidates every device. */
START_TEST(timeout_resets_pmp)
{
    struct eh_rig *r;
    struct ata_bio b;

    r = prig_boot(3, 2, 0x00011b4b);
    b = eh_rig_bio(r, ATA_IO_AUTO, 0);
    ck_assert_int_eq(ata_bio_submit(ata_host_device(r->h, 0, 0, 0), &b), 0);
    r->p.n_ev = 0;
    time_out_first_io(r);
    ck_assert_uint_eq(pm.n_host_hardreset, 2);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_uint_eq(pm.n_port_hardreset[i], 2);
    ck_assert_uint_eq(pm.n_id[0], 4);
    ck_assert_uint_eq(pm.n_id[1], 4);
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 0, 0));
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 1, 0));
    /* the command went out again */
    check_only_io_completes(r, &b);
    eh_rig_free(r);
}
END_TEST

/* The control port stops answering during a fan-out link's recovery: the whole PMP is reset
 * (host link hardreset) and everything re-attached. */
START_TEST(ctrl_port_failure_resets_pmp)
{
    struct eh_rig *r;

    r = prig_boot(2, 2, 0x00011b4b);
    r->p.n_ev = 0;
    ck_assert_uint_eq(pm.n_host_hardreset, 1);
    /* user scan of the port; the PMP hangs after a few register reads */
    pm.hang_after = 6;
    ck_assert_int_eq(ata_port_scan(r->h, 0), 0);
    ck_assert_ptr_nonnull(fake_find(&r->p, "qc.internal_timeout"));
    ck_assert_ptr_nonnull(fake_find(&r->p, "pmp.scr_failed"));
    /* the boot's and the one the hung PSCR access asks for: the scan itself resets only the
     * fan-out links (user_scan_probes_fan_out_links_only) */
    ck_assert_uint_eq(pm.n_host_hardreset, 2);
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 0, 0));
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 1, 0));
    ck_assert(!ata_port_is_frozen(r->h, 0));
    eh_rig_free(r);
}
END_TEST

/* Another PMP behind the same cable (the host link's PHY-ready change, as an enclosure swap
 * gives it): detach everything, attach the new one. */
START_TEST(product_change_reattaches)
{
    struct eh_rig *r;

    r = prig_boot(2, 2, 0x00011b4b);
    r->p.n_ev = 0;
    pm.gscr_prod = 0x47261095;
    pm.nports = 3;
    pm.disk[2] = true;
    ata_lock(r->h);
    ata_ehi_hotplugged(&r->ap->link.eh_info);
    ata_port_freeze(r->ap);
    ata_unlock(r->h);
    ata_host_eh_run(r->h);
    ck_assert_ptr_nonnull(fake_find(&r->p, "pmp.mismatch"));
    ck_assert_ptr_nonnull(fake_find(&r->p, "pmp.detach"));
    ck_assert_str_eq(find_link_ev(&r->p, "pmp.attach", 15)->msg,
                     "Port Multiplier 1.2, 0x1095:0x4726 r35, 3 ports, feat 0x9/0x1");
    ck_assert_uint_eq(fake_count(&r->p, "dev.detached"), 2);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(ata_host_device(r->h, 0, (int)i, 0));
    eh_rig_free(r);
}
END_TEST

/* A user scan of a PMP's port (echo "- - -" > .../scan) resets and probes the fan-out links
 * only: libata's ata_scsi_user_scan sets probe_mask and ATA_EH_RESET on each edge link
 * (ata_for_each_link(link, ap, EDGE)), so the PMP is neither reset nor attached again
 * (dmesg corpus 07's third probe, which attaches its PMP anew, is therefore no user scan). */
START_TEST(user_scan_probes_fan_out_links_only)
{
    struct eh_rig *r;
    struct reset_counts then;

    r = prig_boot(3, 2, 0x00011b4b);
    then = reset_counts_now();
    r->p.n_ev = 0;
    ck_assert_int_eq(ata_port_scan(r->h, 0), 0);
    check_resets_since(&then, 0x7);
    ck_assert_ptr_null(fake_find(&r->p, "pmp.attach"));
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 0, 0));
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 1, 0));
    ck_assert_ptr_null(ata_host_device(r->h, 0, 2, 0));
    ck_assert(!ata_port_is_frozen(r->h, 0));
    eh_rig_free(r);
}
END_TEST

/* A fan-out link that never comes back after its device vanished: detached, others kept. */
START_TEST(unplug_behind_pmp)
{
    struct eh_rig *r;
    struct ata_bio b[2];

    r = prig_boot(2, 2, 0x00011b4b);
    b[0] = eh_rig_bio(r, ATA_IO_AUTO, 0);
    b[1] = eh_rig_bio(r, ATA_IO_AUTO, 8);
    ck_assert_int_eq(ata_bio_submit(ata_host_device(r->h, 0, 1, 0), &b[0]), 0);
    pm.disk[1] = false;
    r->p.n_ev = 0;
    time_out_first_io(r);
    ck_assert_ptr_null(ata_host_device(r->h, 0, 1, 0));
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 0, 0));
    ck_assert_int_eq(r->done, 1);
    ck_assert(b[0].err_mask & AC_ERR_NODEV_HINT);
    ck_assert_ptr_nonnull(find_link_ev(&r->p, "dev.detached", 1));
    /* the other disk still works */
    ck_assert_int_eq(ata_bio_submit(ata_host_device(r->h, 0, 0, 0), &b[1]), 0);
    ck_assert_uint_eq(pm.n_io, 1);
    complete_io(r, 0);
    ck_assert_int_eq(r->done, 2);
    eh_rig_free(r);
}
END_TEST

/* Asynchronous notification: the PMP latched SError.N on ports 1 (unplug) and 2 (plug);
 * EH's per-link autopsy finds them in those links' PSCR SError, recovers those two links
 * only, the disk on port 0 is untouched. */
START_TEST(async_notification_hotplug)
{
    struct eh_rig *r;
    unsigned resets0;

    boot_with_an = true;
    r = prig_boot(3, 2, 0x00011b4b);
    boot_with_an = false;
    ck_assert_uint_eq(pm.feat_en & SATA_PMP_FEAT_NOTIFY, SATA_PMP_FEAT_NOTIFY);
    ck_assert_ptr_null(ata_host_device(r->h, 0, 2, 0));
    resets0 = pm.n_port_hardreset[0];
    pm.disk[1] = false;
    pm.disk[2] = true;
    pm.serr[1] |= 0x04010000;
    pm.serr[2] |= 0x04010000;
    r->p.n_ev = 0;
    ata_lock(r->h);
    ck_assert(!sata_async_notification(r->ap, 1u << 2)); /* not the PMP's bit */
    ck_assert(sata_async_notification(r->ap, 1u << 15));
    ata_unlock(r->h);
    ata_host_eh_run(r->h);
    /* each fan-out link's autopsy reads its PSCR SError (and clears it): N/X = hotplug on
     * links 1 and 2 only, so GSCR[32] is clean after recovery */
    /* no command failed on them: 6.1's autopsy makes both runs quiet ("if (nr_quiet ==
     * nr_failed)"), so the exception is a trace record without a log line */
    ck_assert_str_eq(find_link_ev(&r->p, "eh.exception", 1)->msg, "");
    ck_assert_str_eq(find_link_ev(&r->p, "eh.exception", 2)->msg, "");
    ck_assert_ptr_null(find_link_ev(&r->p, "eh.exception", 0));
    ck_assert_ptr_null(fake_find(&r->p, "pmp.events"));
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 0, 0));
    ck_assert_ptr_null(ata_host_device(r->h, 0, 1, 0));
    ck_assert_ptr_nonnull(ata_host_device(r->h, 0, 2, 0));
    ck_assert_ptr_nonnull(find_link_ev(&r->p, "dev.detached", 1));
    ck_assert_ptr_nonnull(find_link_ev(&r->p, "probe.configured", 2));
    ck_assert_uint_eq(pm.n_port_hardreset[0], resets0);
    ck_assert_uint_eq(pm.serr[1] | pm.serr[2], 0);
    ck_assert(!ata_port_is_frozen(r->h, 0));
    eh_rig_free(r);
}
END_TEST

/* Issue 17 item 2: a notification about port 1 while the disk on port 0 has commands in
 * flight. libata's
 * sata_async_notification only schedules EH, whose fast drain lets the commands finish:
 * the disks still hold them, so aborting and reissuing them would reuse NCQ tags the
 * disks have outstanding. Here both complete while EH drains; nothing is retried. */
static void complete_io_cb(struct sata_platform *p, void *arg)
{
    (void)p;
    complete_io(arg, 0);
}

START_TEST(async_notification_drains_inflight)
{
    struct eh_rig *r;
    struct ata_bio b[2];

    boot_with_an = true;
    r = prig_boot(3, 2, 0x00011b4b);
    boot_with_an = false;
    b[0] = eh_rig_bio(r, ATA_IO_NCQ, 0);
    b[1] = eh_rig_bio(r, ATA_IO_NCQ, 8);
    ck_assert_int_eq(ata_bio_submit(ata_host_device(r->h, 0, 0, 0), &b[0]), 0);
    ck_assert_int_eq(ata_bio_submit(ata_host_device(r->h, 0, 0, 0), &b[1]), 0);
    ck_assert_uint_eq(pm.n_io, 2);
    pm.serr[1] |= 0x00010000; /* a PHY event on port 1 that did not lose the disk */
    r->p.n_ev = 0;
    ata_lock(r->h);
    ck_assert(sata_async_notification(r->ap, 1u << 15));
    ata_unlock(r->h);
    ck_assert_int_eq(r->done, 0); /* nothing aborted under the disks */
    r->p.on_timed_wait = complete_io_cb;
    r->p.on_timed_wait_arg = r;
    ata_host_eh_run(r->h);
    ck_assert_int_eq(r->done, 2);
    ck_assert_uint_eq(b[0].err_mask, 0);
    ck_assert_uint_eq(b[1].err_mask, 0);
    ck_assert_ptr_null(fake_find(&r->p, "eh.qc_retry"));
    ck_assert_ptr_null(fake_find(&r->p, "eh.fast_drain_timeout"));
    ck_assert_uint_eq(pm.n_io, 0); /* no command went out twice */
    ck_assert(!ata_port_is_frozen(r->h, 0));
    eh_rig_free(r);
}
END_TEST

/* Issue 17 item 1: the disk on port 1 lost its link with a command in flight, and the PMP
 * notified. The command never ends; after ATA_EH_FASTDRAIN_INTERVAL without progress the
 * fast drain fails it with a timeout and freezes the port, so EH resets before it issues
 * anything (libata's ata_eh_fastdrain_timerfn), and the command is retried after. */
START_TEST(async_notification_fast_drain_times_out)
{
    struct eh_rig *r;
    struct ata_bio b;
    uint64_t t0;
    unsigned host_resets;
    const struct fake_event *e;

    boot_with_an = true;
    r = prig_boot(3, 2, 0x00011b4b);
    boot_with_an = false;
    b = eh_rig_bio(r, ATA_IO_NCQ, 0);
    ck_assert_int_eq(ata_bio_submit(ata_host_device(r->h, 0, 1, 0), &b), 0);
    pm.n_io = 0; /* lost with the link */
    pm.serr[1] |= 0x04010000;
    host_resets = pm.n_host_hardreset;
    r->p.n_ev = 0;
    t0 = r->p.now;
    ata_lock(r->h);
    ck_assert(sata_async_notification(r->ap, 1u << 15));
    ata_unlock(r->h);
    ck_assert_int_eq(r->done, 0);
    ata_host_eh_run(r->h);
    e = fake_find(&r->p, "eh.fast_drain_timeout");
    ck_assert_ptr_nonnull(e);
    ck_assert_int_lt(fake_index(&r->p, "eh.fast_drain_timeout"), fake_index(&r->p, "eh.exception"));
    ck_assert_uint_ge(r->p.now - t0, ATA_MS(ATA_EH_FASTDRAIN_INTERVAL));
    ck_assert_str_eq(find_link_ev(&r->p, "eh.failed_qc_res", 1)->msg,
                     "res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x4 (timeout)");
    ck_assert_uint_eq(pm.n_host_hardreset, host_resets + 1); /* frozen: the PMP is reset first */
    ck_assert_uint_eq(pm.n_io, 1);                          /* retried after recovery */
    complete_io(r, 0);
    ck_assert_int_eq(r->done, 1);
    ck_assert_uint_eq(b.err_mask, 0);
    eh_rig_free(r);
}
END_TEST

/* libata-2006 prefers softreset: fan-out links are probed with an SRST to their port. */
START_TEST(attach_2006)
{
    struct eh_rig *r;

    boot_policy = "libata-2006";
    r = prig_boot(4, 3, 0x00011b4b);
    boot_policy = NULL;
    for (unsigned i = 0; i < 4; i++) {
        if (i < 3)
            ck_assert_ptr_nonnull(ata_host_device(r->h, 0, (int)i, 0));
        else
            ck_assert_ptr_null(ata_host_device(r->h, 0, (int)i, 0));
    }
    eh_rig_free(r);
}
END_TEST

Suite *pmp_suite(void)
{
    Suite *s = suite_create("pmp");
    TCase *tc = tcase_create("pmp");

    tcase_add_test(tc, attach_1_5_15);
    tcase_add_test(tc, attach_15_generic);
    tcase_add_test(tc, cmd_switching);
    tcase_add_test(tc, dev_error_stays_on_link);
    tcase_add_test(tc, ncq_error_log_on_fanout);
    tcase_add_test(tc, fanout_serror_resets_link_only);
    tcase_add_test(tc, fanout_spd_follows_host_link);
    tcase_add_test(tc, timeout_resets_pmp);
    tcase_add_test(tc, ctrl_port_failure_resets_pmp);
    tcase_add_test(tc, product_change_reattaches);
    tcase_add_test(tc, user_scan_probes_fan_out_links_only);
    tcase_add_test(tc, unplug_behind_pmp);
    tcase_add_test(tc, async_notification_hotplug);
    tcase_add_test(tc, async_notification_drains_inflight);
    tcase_add_test(tc, async_notification_fast_drain_times_out);
    tcase_add_test(tc, attach_2006);
    suite_add_tcase(s, tc);
    return s;
}
