/* The booted one-port host of the EH-level tests (hotplug, PMP); see tests.h. */
#include <stdlib.h>

#include "tests.h"

static void run_eh_cb(struct sata_platform *p, void *arg) { (void)p, ata_host_eh_run(arg); }

struct eh_rig *eh_rig_boot(const struct ata_port_operations *ops, const char *policy, unsigned port_flags)
{
    return eh_rig_boot_with(ops, policy, port_flags, NULL);
}

struct eh_rig *eh_rig_boot_with(const struct ata_port_operations *ops, const char *policy, unsigned port_flags,
                                void (*before_probe)(struct ata_port *ap))
{
    struct eh_rig *r = calloc(1, sizeof(*r));
    struct ata_eh_info *ehi;

    fake_init(&r->p);
    r->p.now = ATA_MS(1000);
    r->h = ata_host_alloc(&r->p, &fake_ops, ops, 1);
    ck_assert_ptr_nonnull(r->h);
    ck_assert_int_eq(ata_host_set_eh_policy(r->h, policy), 0);
    r->ap = &r->h->ports[0];
    r->ap->flags |= port_flags;
    r->ap->ncq_depth = 31;
    r->ap->xfer_mask = (0x1fu << ATA_SHIFT_PIO) | (0x7fu << ATA_SHIFT_UDMA);
    r->ap->max_segs = 168;
    r->ap->seg_max_bytes = 4u << 20;
    r->dev = &r->ap->link.device[0];
    r->h->started = true;
    r->p.on_wait_forever = run_eh_cb;
    r->p.on_wait_arg = r->h;
    if (before_probe)
        before_probe(r->ap);

    /* what ata_host_start asks of EH: probe the port quietly */
    ehi = &r->ap->link.eh_info;
    ehi->probe_mask = 1;
    ehi->action = ATA_EH_RESET;
    ehi->flags = ATA_EHI_NO_AUTOPSY | ATA_EHI_QUIET;
    r->ap->pflags |= ATA_PFLAG_EH_PENDING;
    ata_host_eh_run(r->h);
    ck_assert(!ata_port_is_frozen(r->h, 0));
    ck_assert(!ata_port_eh_pending(r->h, 0));
    return r;
}

void eh_rig_free(struct eh_rig *r)
{
    ck_assert_int_eq(r->p.lock_depth, 0);
    r->h->started = false;
    ata_host_free(r->h);
    fake_check_all_freed(&r->p);
    free(r);
}

static const struct ata_sg io_sg = { 0x100000, 1u << 20 };

static void count_done(struct ata_bio *bio) { ++*(int *)bio->priv; }

struct ata_bio eh_rig_bio(struct eh_rig *r, enum ata_io_mode mode, uint64_t lba)
{
    return (struct ata_bio){ .op = ATA_BIO_READ, .mode = mode, .lba = lba, .n_sectors = 8, .sg = &io_sg,
                             .n_sg = 1, .done = count_done, .priv = &r->done };
}

void eh_rig_submit_reads(struct eh_rig *r, struct ata_device *dev, struct ata_bio *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        b[i] = eh_rig_bio(r, ATA_IO_AUTO, 8 * i);
        ck_assert_int_eq(ata_bio_submit(dev, &b[i]), 0);
    }
}

void eh_rig_complete_all(struct eh_rig *r)
{
    ata_lock(r->h);
    ata_qc_complete_multiple(r->ap, 0);
    ata_unlock(r->h);
    ata_port_process(r->ap);
}
