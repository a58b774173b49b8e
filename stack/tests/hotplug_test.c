/* Hotplug, replacement, warm-plug and the requests of a device that goes away: the whole
 * EH pass (autopsy, reset, revalidate/attach, finish) against a fake LLD whose "drive" can
 * be pulled, put back or swapped. The LLD answers internal commands at once (IDENTIFY from
 * an id_spec) and keeps block I/O in flight until the test completes or aborts it. */
#include <string.h>

#include "tests.h"

static struct {
    bool present;
    const struct id_spec *drive;
    uint32_t scontrol, serror;
    unsigned n_hardreset, n_io;
    uint8_t io_cmd[64];
} hp;

static const struct id_spec drive_a = {
    .model = "SATASIM DISK A", .serial = "A0001", .fw = "1.0", .lba28_sectors = 0x0fffffff,
    .lba48_sectors = 2000000, .ncq = true, .depth = 32, .udma = 0x7f, .w80 = 0x1f0,
};
static const struct id_spec drive_b = {
    .model = "SATASIM DISK B", .serial = "B0002", .fw = "2.0", .lba28_sectors = 0x0fffffff,
    .lba48_sectors = 4000000, .ncq = true, .depth = 32, .udma = 0x7f, .w80 = 0x1f0,
};

static int hp_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    (void)link;
    switch (reg) {
    case SCR_STATUS: *val = hp.present ? 0x133 : 0; return 0;
    case SCR_CONTROL: *val = hp.scontrol; return 0;
    case SCR_ERROR: *val = hp.serror; return 0;
    default: return -EINVAL;
    }
}

static int hp_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    (void)link;
    if (reg == SCR_CONTROL)
        hp.scontrol = val;
    else if (reg == SCR_ERROR)
        hp.serror &= ~val;
    return 0;
}

static int hp_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    (void)deadline;
    hp.n_hardreset++;
    ata_msleep(link->ap->host, 100);
    if (hp.present)
        *cls = ATA_DEV_ATA;
    return 0;
}

static void nop_prep(struct ata_queued_cmd *qc) { (void)qc; }

/* the D2H area keeps the drive's last good status, also for a command that timed out */
static void ok_rtf(struct ata_queued_cmd *qc) { qc->result_tf.command = ATA_DRDY; }

static unsigned hp_issue(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;

    if (qc->bio) { /* stays in flight */
        ck_assert_uint_lt(hp.n_io, 64);
        hp.io_cmd[hp.n_io++] = qc->tf.command;
        return 0;
    }
    if (!hp.present)
        return AC_ERR_TIMEOUT; /* not reached: nothing is asked of an empty link */
    if (qc->tf.command == ATA_CMD_ID_ATA)
        build_id_bytes(ap->id_buf.cpu, hp.drive);
    ata_qc_complete(qc);
    return 0;
}

static const struct ata_port_operations hp_ops = {
    .qc_defer = ata_std_qc_defer,
    .qc_prep = nop_prep,
    .qc_issue = hp_issue,
    .qc_fill_rtf = ok_rtf,
    .prereset = ata_std_prereset,
    .hardreset = hp_hardreset,
    .postreset = ata_std_postreset,
    .error_handler = ata_std_error_handler,
    .scr_read = hp_scr_read,
    .scr_write = hp_scr_write,
};

/* A host whose boot probe found drive (or nothing). */
static struct eh_rig *hrig_boot(const struct id_spec *drive, const char *policy)
{
    struct eh_rig *r;

    memset(&hp, 0, sizeof(hp));
    hp.present = drive != NULL;
    hp.drive = drive;
    hp.scontrol = 0x300;
    r = eh_rig_boot(&hp_ops, policy, 0);
    if (drive)
        ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);
    else
        ck_assert_ptr_null(ata_host_device(r->h, 0, -1, 0));
    r->p.n_ev = 0; /* the boot probe's events are not what the tests look at */
    return r;
}

/* What the LLDs do on a PhyRdy / connect change interrupt. */
static void hotplug_irq(struct eh_rig *r)
{
    struct ata_eh_info *ehi = &r->ap->link.eh_info;

    hp.serror = 0x04010000; /* N, X */
    ata_lock(r->h);
    ehi->serror |= hp.serror;
    ata_ehi_push_desc(ehi, "irq_stat 0x%08x", 0x00400040u);
    ata_ehi_hotplugged(ehi);
    ata_ehi_push_desc(ehi, "connection status changed");
    ata_port_freeze(r->ap);
    ata_unlock(r->h);
}

START_TEST(boot_probe_attaches)
{
    struct eh_rig *r = hrig_boot(&drive_a, NULL);
    struct ata_dev_info info;

    ck_assert(r->dev->flags & ATA_DFLAG_ATTACHED);
    ck_assert_int_eq(ata_dev_get_info(r->dev, &info), 0);
    ck_assert_str_eq(info.model, "SATASIM DISK A");
    ck_assert(info.ncq);
    eh_rig_free(r);
}
END_TEST

START_TEST(unplug_detaches_and_fails_everything)
{
    struct eh_rig *r = hrig_boot(&drive_a, NULL);
    struct ata_bio b[40];
    int i_disabled, i_complete, i_detached;

    /* 31 NCQ commands in flight (the depth), 9 waiting for a tag */
    eh_rig_submit_reads(r, r->dev, b, 40);
    ck_assert_uint_eq(hp.n_io, 31);
    hp.present = false;
    hotplug_irq(r);
    ck_assert(ata_port_is_frozen(r->h, 0));
    ck_assert(ata_port_eh_pending(r->h, 0));
    hp.n_hardreset = 0;
    ata_host_eh_run(r->h);

    /* libata's unplug: three hard resets finding the link down, then the device's tries
     * are used up: disabled, detached, reported after EH */
    ck_assert_str_eq(fake_find(&r->p, "eh.exception")->msg,
                     "exception Emask 0x10 SAct 0x7fffffff SErr 0x4010000 action 0xe frozen");
    ck_assert_str_eq(fake_find(&r->p, "eh.desc")->msg, "irq_stat 0x00400040, connection status changed");
    ck_assert_uint_eq(hp.n_hardreset, 3);
    ck_assert_uint_eq(fake_count(&r->p, "probe.link_down"), 3);
    ck_assert_str_eq(fake_find(&r->p, "probe.link_down")->msg, "SATA link down (SStatus 0 SControl 300)");
    ck_assert_uint_eq(fake_count(&r->p, "dev.disabled"), 1);
    i_disabled = fake_index(&r->p, "dev.disabled");
    i_complete = fake_index(&r->p, "eh.complete");
    i_detached = fake_index(&r->p, "dev.detached");
    ck_assert_int_lt(i_disabled, i_complete);
    ck_assert_int_lt(i_complete, i_detached);
    ck_assert_str_eq(r->p.ev[i_detached].msg, "detaching (SCSI 0:0:0:0)");
    ck_assert_int_eq(r->p.ev[i_detached].dev, 0);

    /* every request came back, none retried, none lost */
    ck_assert_int_eq(r->done, 40);
    ck_assert_uint_eq(hp.n_io, 31);
    for (unsigned i = 0; i < 40; i++)
        ck_assert(b[i].err_mask & AC_ERR_NODEV_HINT);
    ck_assert_uint_eq(r->ap->qc_active, 0);
    ck_assert_ptr_null(r->ap->pending.head);
    ck_assert_uint_eq(fake_count(&r->p, "eh.qc_fail"), 31);

    /* the port listens for the next plug; the device is gone for submitters */
    ck_assert(!ata_port_is_frozen(r->h, 0));
    ck_assert(!ata_port_eh_pending(r->h, 0));
    ck_assert_ptr_null(ata_host_device(r->h, 0, -1, 0));
    b[0] = eh_rig_bio(r, ATA_IO_AUTO, 0);
    ck_assert_int_eq(ata_bio_submit(r->dev, &b[0]), -ENODEV);
    eh_rig_free(r);
}
END_TEST

START_TEST(plug_attaches_like_boot)
{
    struct eh_rig *r = hrig_boot(NULL, NULL);
    struct ata_bio b;

    hp.present = true;
    hp.drive = &drive_b;
    hotplug_irq(r);
    ata_host_eh_run(r->h);
    ck_assert_str_eq(fake_find(&r->p, "probe.link_up")->msg, "SATA link up 6.0 Gbps (SStatus 133 SControl 300)");
    ck_assert_str_eq(fake_find(&r->p, "probe.identify")->msg, "ATA-8: SATASIM DISK B, 2.0, max UDMA/133");
    ck_assert_str_eq(fake_find(&r->p, "probe.configured")->msg, "configured for UDMA/133");
    /* nothing was in flight: the autopsy makes the run quiet (6.1 ata_eh_link_autopsy, "if
     * (nr_quiet == nr_failed) ehc->i.flags |= ATA_EHI_QUIET;"), so neither the exception,
     * the "hard resetting link" nor "EH complete" is logged; "configured for" is, after the
     * hardreset (ata_dev_set_mode: "if (!(ehc->i.flags & ATA_EHI_QUIET) || ehc->i.flags &
     * ATA_EHI_DID_HARDRESET)") */
    ck_assert_ptr_null(fake_find(&r->p, "eh.complete"));
    ck_assert_str_eq(fake_find(&r->p, "eh.exception")->msg, "");
    ck_assert_str_eq(fake_find(&r->p, "eh.reset")->msg, "");
    ck_assert_ptr_null(fake_find(&r->p, "dev.detached")); /* nothing was there before */
    ck_assert_ptr_null(fake_find(&r->p, "dev.disabled"));
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);
    ck_assert(!ata_port_is_frozen(r->h, 0));
    b = eh_rig_bio(r, ATA_IO_AUTO, 0);
    ck_assert_int_eq(ata_bio_submit(r->dev, &b), 0);
    ck_assert_uint_eq(hp.io_cmd[hp.n_io - 1], ATA_CMD_FPDMA_READ);
    eh_rig_complete_all(r);
    ck_assert_int_eq(r->done, 1);
    ck_assert_uint_eq(b.err_mask, 0);
    eh_rig_free(r);
}
END_TEST

START_TEST(hotplug_same_drive_is_kept)
{
    struct eh_rig *r = hrig_boot(&drive_a, NULL);
    struct ata_bio b[2];

    eh_rig_submit_reads(r, r->dev, b, 2);
    hotplug_irq(r); /* a PHY event; the same drive answers again */
    ata_host_eh_run(r->h);
    ck_assert_uint_eq(hp.n_hardreset, 2); /* boot + this one */
    ck_assert_ptr_null(fake_find(&r->p, "dev.disabled"));
    ck_assert_ptr_null(fake_find(&r->p, "dev.detached"));
    ck_assert_ptr_null(fake_find(&r->p, "eh.revalidate_failed"));
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);
    /* the aborted commands went out again (a bus error is charged as one retry) */
    ck_assert_uint_eq(hp.n_io, 4);
    ck_assert_int_eq(r->done, 0);
    ck_assert_uint_eq(b[0].q_retries, 1);
    eh_rig_complete_all(r);
    ck_assert_int_eq(r->done, 2);
    ck_assert_uint_eq(b[0].err_mask | b[1].err_mask, 0);
    eh_rig_free(r);
}
END_TEST

START_TEST(replacement_detaches_old_probes_new)
{
    struct eh_rig *r = hrig_boot(&drive_a, NULL);
    struct ata_dev_info info;
    struct ata_bio b[3];
    int i_mismatch, i_fail, i_new, i_complete, i_detached;

    eh_rig_submit_reads(r, r->dev, b, 3);
    hp.drive = &drive_b; /* swapped while the link was down */
    hotplug_irq(r);
    ata_host_eh_run(r->h);

    i_mismatch = fake_index(&r->p, "eh.dev_mismatch");
    i_fail = fake_index(&r->p, "eh.revalidate_failed");
    i_new = fake_index(&r->p, "probe.identify");
    i_complete = fake_index(&r->p, "eh.complete");
    i_detached = fake_index(&r->p, "dev.detached");
    ck_assert_int_ge(i_mismatch, 0);
    ck_assert_str_eq(r->p.ev[i_mismatch].msg, "model number mismatch 'SATASIM DISK A' != 'SATASIM DISK B'");
    ck_assert_str_eq(r->p.ev[i_fail].msg, "revalidation failed (errno=-19)");
    ck_assert_uint_eq(fake_count(&r->p, "eh.revalidate_failed"), 2); /* -ENODEV: one more chance */
    ck_assert_int_lt(fake_index(&r->p, "dev.disabled"), i_new);
    ck_assert_str_eq(r->p.ev[i_new].msg, "ATA-8: SATASIM DISK B, 2.0, max UDMA/133");
    ck_assert_int_lt(i_new, i_complete);
    ck_assert_int_lt(i_complete, i_detached);

    /* the old drive's requests never reach the new one */
    ck_assert_int_eq(r->done, 3);
    for (unsigned i = 0; i < 3; i++)
        ck_assert(b[i].err_mask & AC_ERR_NODEV_HINT);
    ck_assert_uint_eq(hp.n_io, 3);
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);
    ck_assert_int_eq(ata_dev_get_info(r->dev, &info), 0);
    ck_assert_str_eq(info.model, "SATASIM DISK B");
    ck_assert_str_eq(info.serial, "B0002");
    ck_assert_uint_eq(info.n_sectors, 4000000);
    ck_assert(r->dev->flags & ATA_DFLAG_ATTACHED);
    ck_assert(!(r->dev->flags & ATA_DFLAG_DETACHED));
    ck_assert(!ata_port_is_frozen(r->h, 0));
    eh_rig_free(r);
}
END_TEST

START_TEST(delete_then_scan)
{
    struct eh_rig *r = hrig_boot(&drive_a, NULL);
    struct ata_bio b[3];

    eh_rig_submit_reads(r, r->dev, b, 3);
    ck_assert_int_eq(ata_dev_delete(r->h, 1), -EINVAL);
    ck_assert_int_eq(ata_dev_delete(r->h, 0), 0);
    /* libata disables it and has no SCSI device left to report; nothing was recovered */
    ck_assert_uint_eq(fake_count(&r->p, "dev.disabled"), 1);
    ck_assert_ptr_null(fake_find(&r->p, "dev.detached"));
    ck_assert_ptr_null(fake_find(&r->p, "eh.complete"));
    ck_assert_ptr_null(fake_find(&r->p, "eh.exception"));
    ck_assert_uint_eq(hp.n_hardreset, 1); /* no reset for a delete */
    ck_assert_int_eq(r->done, 3);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_uint_eq(b[i].err_mask, AC_ERR_NODEV_HINT);
    ck_assert_ptr_null(ata_host_device(r->h, 0, -1, 0));
    ck_assert_int_eq(ata_dev_delete(r->h, 0), -ENODEV);
    ck_assert(!ata_port_is_frozen(r->h, 0));
    ck_assert(!ata_port_eh_pending(r->h, 0));

    /* the drive is still on the cable: a scan finds it again */
    r->p.n_ev = 0;
    ck_assert_int_eq(ata_port_scan(r->h, 0), 0);
    ck_assert_uint_eq(hp.n_hardreset, 2);
    /* a user scan fails no command: 6.1's autopsy makes the run quiet (no "hard resetting
     * link", no "EH complete"); the probe's lines are not quiet after a hardreset */
    ck_assert_str_eq(fake_find(&r->p, "eh.reset")->msg, "");
    ck_assert_str_eq(fake_find(&r->p, "probe.identify")->msg, "ATA-8: SATASIM DISK A, 1.0, max UDMA/133");
    ck_assert_ptr_null(fake_find(&r->p, "eh.complete"));
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);

    /* a scan over a present drive revalidates and keeps it */
    r->p.n_ev = 0;
    ck_assert_int_eq(ata_port_scan(r->h, 0), 0);
    ck_assert_uint_eq(hp.n_hardreset, 3);
    ck_assert_ptr_null(fake_find(&r->p, "probe.identify"));
    ck_assert_ptr_null(fake_find(&r->p, "dev.disabled"));
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);
    eh_rig_free(r);
}
END_TEST

START_TEST(scan_of_an_empty_port)
{
    struct eh_rig *r = hrig_boot(NULL, NULL);

    ck_assert_int_eq(ata_port_scan(r->h, 0), 0);
    ck_assert_str_eq(fake_find(&r->p, "probe.link_down")->msg, "SATA link down (SStatus 0 SControl 300)");
    ck_assert_ptr_null(ata_host_device(r->h, 0, -1, 0));
    ck_assert_uint_eq(hp.n_hardreset, 2);
    hp.present = true;
    hp.drive = &drive_a;
    ck_assert_int_eq(ata_port_scan(r->h, 0), 0);
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);
    ck_assert_int_eq(ata_port_scan(r->h, 7), -EINVAL);
    r->h->started = false;
    ck_assert_int_eq(ata_port_scan(r->h, 0), -ENODEV);
    eh_rig_free(r);
}
END_TEST

START_TEST(unplug_2006_profile)
{
    struct eh_rig *r = hrig_boot(&drive_a, "libata-2006");
    struct ata_bio b = eh_rig_bio(r, ATA_IO_AUTO, 0);

    ck_assert_int_eq(ata_bio_submit(r->dev, &b), 0);
    hp.present = false;
    hotplug_irq(r);
    ata_host_eh_run(r->h);
    /* -EIO on an offline link, 3 tries; detached the same way */
    ck_assert_ptr_nonnull(fake_find(&r->p, "dev.detached"));
    ck_assert_int_eq(r->done, 1);
    ck_assert(b.err_mask & AC_ERR_NODEV_HINT);
    ck_assert(!ata_port_is_frozen(r->h, 0));
    ck_assert_ptr_null(ata_host_device(r->h, 0, -1, 0));
    eh_rig_free(r);
}
END_TEST

/* A drive that hangs: the command times out, EH hardresets (the drive only answers a
 * COMRESET), revalidates and retries. Timeouts are TOUT_HSM in the ering; the 4th within
 * 10 minutes turns NCQ off (libata-modern rule 4) and the retried NCQ request goes out as
 * READ DMA. */
static void time_out_tag0(struct eh_rig *r)
{
    struct ata_queued_cmd *qc = &r->ap->qcmd[0];

    ck_assert(qc->flags & ATA_QCFLAG_ACTIVE);
    ck_assert_uint_ne(qc->timer, 0);
    r->p.now += ATA_MS(ATA_TMOUT_BIO);
    fake_fire_timer(&r->p, qc->timer);
    ck_assert(ata_port_is_frozen(r->h, 0));
    ck_assert(ata_port_eh_pending(r->h, 0));
    ata_host_eh_run(r->h);
    ck_assert(!ata_port_is_frozen(r->h, 0));
}

START_TEST(timeouts_reset_retry_then_ncq_off)
{
    struct eh_rig *r = hrig_boot(&drive_a, NULL);
    struct ata_bio warm = eh_rig_bio(r, ATA_IO_AUTO, 64), b = eh_rig_bio(r, ATA_IO_NCQ, 0);
    unsigned resets = hp.n_hardreset;

    /* one good transfer verifies the mode chosen at probe (no DUBIOUS categories after) */
    ck_assert_int_eq(ata_bio_submit(r->dev, &warm), 0);
    eh_rig_complete_all(r);
    ck_assert_uint_eq(warm.err_mask, 0);

    ck_assert_int_eq(ata_bio_submit(r->dev, &b), 0);
    for (unsigned i = 1; i <= 4; i++) {
        r->p.n_ev = 0;
        time_out_tag0(r);
        ck_assert_uint_eq(hp.n_hardreset, resets + i);
        ck_assert_str_eq(fake_find(&r->p, "eh.exception")->msg,
                         "exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x6 frozen");
        ck_assert_str_eq(fake_find(&r->p, "eh.failed_qc_res")->msg,
                         "res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x4 (timeout)");
        ck_assert_str_eq(fake_find(&r->p, "eh.reset")->msg, "hard resetting link");
        ck_assert_ptr_nonnull(fake_find(&r->p, "eh.retry"));
        ck_assert_uint_eq(b.q_retries, i);
        ck_assert_int_eq(r->done, 1);
        if (i < 4) {
            ck_assert_ptr_null(fake_find(&r->p, "eh.ncq_off"));
            ck_assert_uint_eq(hp.io_cmd[hp.n_io - 1], ATA_CMD_FPDMA_READ);
        }
    }
    ck_assert_str_eq(fake_find(&r->p, "eh.ncq_off")->msg, "NCQ disabled due to excessive errors");
    ck_assert(!(r->dev->flags & ATA_DFLAG_NCQ));
    ck_assert_uint_eq(hp.io_cmd[hp.n_io - 1], ATA_CMD_READ_DMA);
    eh_rig_complete_all(r);
    ck_assert_int_eq(r->done, 2);
    ck_assert_uint_eq(b.err_mask, 0);
    eh_rig_free(r);
}
END_TEST

/* An event source that fires again during every EH run (a flapping PHY): after 5 runs EH
 * gives up, and what the last event left must not hang -- the port is thawed and its
 * aborted commands go out again. */
static void flapping_error_handler(struct ata_port *ap)
{
    struct ata_eh_info *ehi = &ap->link.eh_info;

    ata_std_error_handler(ap);
    ata_lock(ap->host);
    ehi->serror |= 0x00010000;
    ata_ehi_hotplugged(ehi);
    ata_ehi_push_desc(ehi, "PHY RDY changed");
    ata_port_freeze(ap);
    ata_unlock(ap->host);
}

START_TEST(eh_giveup_leaves_port_usable)
{
    struct eh_rig *r = hrig_boot(&drive_a, NULL);
    struct ata_port_operations flap_ops = hp_ops;
    struct ata_bio b[2];

    flap_ops.error_handler = flapping_error_handler;
    r->ap->ops = &flap_ops;
    eh_rig_submit_reads(r, r->dev, b, 2);
    hotplug_irq(r);
    ata_host_eh_run(r->h);
    ck_assert_str_eq(fake_find(&r->p, "eh.giveup")->msg, "EH pending after 5 tries, giving up");
    ck_assert(!ata_port_is_frozen(r->h, 0));
    ck_assert(!ata_port_eh_pending(r->h, 0));
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);
    /* the commands the last flap aborted were requeued and issued again */
    ck_assert_uint_eq(r->ap->qc_active, 0x3);
    ck_assert_int_eq(r->done, 0);
    eh_rig_complete_all(r);
    ck_assert_int_eq(r->done, 2);
    r->ap->ops = &hp_ops;
    eh_rig_free(r);
}
END_TEST

/* libata-2006 prefers softreset; on an offline link the prereset drops it. That counts as
 * the softreset 2006 ran there: the device is revalidated (fails: offline), the next try
 * escalates to hardreset, and after its tries the unplugged device is detached. */
static unsigned n_softreset;
static int hp_softreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    (void)link, (void)deadline;
    n_softreset++;
    if (hp.present)
        *cls = ATA_DEV_ATA;
    return 0;
}

START_TEST(unplug_2006_softreset_escalates)
{
    struct eh_rig *r = hrig_boot(&drive_a, "libata-2006");
    struct ata_port_operations srst_ops = hp_ops;
    struct ata_bio b = eh_rig_bio(r, ATA_IO_AUTO, 0);

    srst_ops.softreset = hp_softreset;
    r->ap->ops = &srst_ops;
    n_softreset = 0;
    hp.n_hardreset = 0;
    ck_assert_int_eq(ata_bio_submit(r->dev, &b), 0);
    hp.present = false;
    hotplug_irq(r);
    ata_host_eh_run(r->h);
    ck_assert_uint_eq(n_softreset, 0);  /* dropped by prereset: the link is offline */
    ck_assert_uint_eq(hp.n_hardreset, 2); /* tries 2 and 3 escalate */
    ck_assert_uint_eq(fake_count(&r->p, "dev.disabled"), 1);
    ck_assert_ptr_nonnull(fake_find(&r->p, "dev.detached"));
    ck_assert_int_eq(r->done, 1);
    ck_assert(b.err_mask & AC_ERR_NODEV_HINT);
    ck_assert(!ata_port_is_frozen(r->h, 0));

    /* the same drive plugged back; the link speed limit of the last try is pending, which
     * only a hardreset applies (2006's choice), then the drive is probed as at boot */
    r->p.n_ev = 0;
    hp.present = true;
    hotplug_irq(r);
    ata_host_eh_run(r->h);
    ck_assert_str_eq(fake_find(&r->p, "eh.reset")->msg, "hard resetting link");
    ck_assert_str_eq(fake_find(&r->p, "probe.identify")->msg, "ATA-8: SATASIM DISK A, 1.0, max UDMA/133");
    ck_assert_ptr_eq(ata_host_device(r->h, 0, -1, 0), r->dev);
    ck_assert(!ata_port_is_frozen(r->h, 0));
    r->ap->ops = &hp_ops;
    eh_rig_free(r);
}
END_TEST

START_TEST(queries_on_bad_ports)
{
    struct sata_platform p;
    struct ata_host *h;

    fake_init(&p);
    h = ata_host_alloc(&p, &fake_ops, &hp_ops, 2);
    ck_assert(ata_port_is_frozen(h, 0)); /* until the first reset */
    ck_assert(!ata_port_eh_pending(h, 0));
    h->ports[1].flags |= ATA_FLAG_DUMMY;
    ck_assert(!ata_port_eh_pending(h, 1));
    ck_assert(!ata_port_is_frozen(h, 2));
    ck_assert(!ata_port_eh_pending(h, 2));
    h->ports[0].pflags = ATA_PFLAG_EH_PENDING; /* pending EH counts as frozen for the harness */
    ck_assert(ata_port_is_frozen(h, 0));
    ck_assert(ata_port_eh_pending(h, 0));
    ck_assert(!ata_port_is_frozen(NULL, 0));
    ck_assert(!ata_port_eh_pending(NULL, 0));
    ck_assert_int_eq(ata_port_scan(NULL, 0), -EINVAL);
    ck_assert_int_eq(ata_dev_delete(h, 0), -ENODEV); /* not started */
    ata_host_free(h);
}
END_TEST

Suite *hotplug_suite(void)
{
    Suite *s = suite_create("hotplug");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, boot_probe_attaches);
    tcase_add_test(tc, unplug_detaches_and_fails_everything);
    tcase_add_test(tc, plug_attaches_like_boot);
    tcase_add_test(tc, hotplug_same_drive_is_kept);
    tcase_add_test(tc, replacement_detaches_old_probes_new);
    tcase_add_test(tc, delete_then_scan);
    tcase_add_test(tc, scan_of_an_empty_port);
    tcase_add_test(tc, unplug_2006_profile);
    tcase_add_test(tc, timeouts_reset_retry_then_ncq_off);
    tcase_add_test(tc, eh_giveup_leaves_port_usable);
    tcase_add_test(tc, unplug_2006_softreset_escalates);
    tcase_add_test(tc, queries_on_bad_ports);
    suite_add_tcase(s, tc);
    return s;
}
