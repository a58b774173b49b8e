/* Block I/O: validation, command selection through the issue path, and the deferral
 * rules of the per-port FIFO. The LLD here only records what it was asked to issue. */
#include <stdio.h>
#include <string.h>

#include "tests.h"

struct issued {
    unsigned tag;
    uint8_t cmd, device;
    enum ata_prot prot;
    uint32_t lba, nsect, nbytes;
    unsigned n_sg;
    struct ata_sg sg0, sg_last;
    uint8_t feature;
    uint8_t hob_nsect;
    uint32_t aux;
};

struct rec {
    struct issued log[64];
    unsigned n;
};

static void rec_prep(struct ata_queued_cmd *qc) { (void)qc; }

static unsigned rec_issue(struct ata_queued_cmd *qc)
{
    struct rec *r = qc->ap->private_data;

    ck_assert_uint_lt(r->n, 64);
    r->log[r->n++] = (struct issued){
        qc->tag, qc->tf.command, qc->tf.device, qc->tf.protocol,
        (uint32_t)qc->tf.lbah << 16 | (uint32_t)qc->tf.lbam << 8 | qc->tf.lbal,
        qc->tf.nsect, qc->nbytes, qc->n_sg,
        qc->n_sg ? qc->sg[0] : (struct ata_sg){ 0, 0 }, qc->n_sg ? qc->sg[qc->n_sg - 1] : (struct ata_sg){ 0, 0 },
        qc->tf.feature, qc->tf.hob_nsect, qc->tf.auxiliary,
    };
    return 0;
}

static void rec_fill_rtf(struct ata_queued_cmd *qc)
{
    qc->result_tf.command = ATA_DRDY | 0x10;
    qc->result_tf.feature = 0;
}

static const struct ata_port_operations rec_ops = {
    .qc_defer = ata_std_qc_defer,
    .qc_prep = rec_prep,
    .qc_issue = rec_issue,
    .qc_fill_rtf = rec_fill_rtf,
};

struct rig {
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_device *dev;
    struct rec rec;
    int done;
};

enum { NCQ_DEV = ATA_DFLAG_LBA48 | ATA_DFLAG_DMA | ATA_DFLAG_NCQ | ATA_DFLAG_FLUSH_EXT };

static void rig_init(struct rig *r, unsigned dev_flags, unsigned ncq_depth)
{
    memset(r, 0, sizeof(*r));
    fake_init(&r->p);
    r->h = ata_host_alloc(&r->p, &fake_ops, &rec_ops, 1);
    ck_assert_ptr_nonnull(r->h);
    r->ap = &r->h->ports[0];
    r->ap->private_data = &r->rec;
    r->ap->pflags = 0;
    r->ap->max_segs = 168;
    r->ap->seg_max_bytes = 4u << 20;
    r->ap->ncq_depth = 31;
    r->dev = &r->ap->link.device[0];
    r->dev->class = ATA_DEV_ATA;
    r->dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | dev_flags;
    r->dev->n_sectors = 1000000;
    r->dev->max_sectors = (dev_flags & ATA_DFLAG_LBA48) ? 65535 : 256;
    r->dev->multi_count = 16;
    r->dev->ncq_depth = ncq_depth;
}

static void rig_fini(struct rig *r)
{
    ata_host_free(r->h);
    fake_check_all_freed(&r->p);
    ck_assert_int_eq(r->p.lock_depth, 0);
}

static const struct ata_sg data_sg = { 0x100000, 65535u * 512 };

static void count_done(struct ata_bio *bio) { ++*(int *)bio->priv; }

static struct ata_bio mkbio(struct rig *r, enum ata_bio_op op, enum ata_io_mode mode, uint64_t lba,
                            uint32_t n)
{
    return (struct ata_bio){ .op = op, .mode = mode, .lba = lba, .n_sectors = n, .sg = &data_sg,
                             .n_sg = 1, .done = count_done, .priv = &r->done };
}

/* n 8-sector reads at lba 0, 8, 16, ... into b, each submitted */
static void submit_reads(struct rig *r, struct ata_bio *b, unsigned n, enum ata_io_mode mode)
{
    for (unsigned i = 0; i < n; i++) {
        b[i] = mkbio(r, ATA_BIO_READ, mode, 8 * (uint64_t)i, 8);
        ck_assert_int_eq(ata_bio_submit(r->dev, &b[i]), 0);
    }
}

/* The controller reports every issued tag except those in still_active as done. */
static void hw_complete(struct rig *r, uint32_t done_tags)
{
    ata_lock(r->h);
    ck_assert_int_eq(ata_qc_complete_multiple(r->ap, r->ap->qc_active & ~done_tags), 0);
    ata_unlock(r->h);
    ata_port_process(r->ap);
}

START_TEST(validation)
{
    struct rig r;
    struct ata_bio b;
    struct ata_sg shrt = { 0x100000, 512 };

    rig_init(&r, NCQ_DEV, 31);
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 1000000 - 8, 9);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL); /* beyond capacity */
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 1000000, 1);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 0);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL); /* zero sectors */
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 65536);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL); /* > max_sectors */
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_AUTO, 0, 2);
    b.sg = &shrt;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL); /* sg shorter than the transfer */
    b = mkbio(&r, ATA_BIO_FLUSH, ATA_IO_AUTO, 0, 1);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL); /* flush carries no sectors */
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 1);
    b.done = NULL;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    ck_assert_int_eq(ata_bio_submit(NULL, &b), -ENODEV);

    /* modes the device does not have */
    r.dev->flags &= ~ATA_DFLAG_NCQ;
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_NCQ, 0, 1);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EOPNOTSUPP);
    r.dev->flags &= ~ATA_DFLAG_DMA;
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 0, 1);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EOPNOTSUPP);

    /* a 28-bit device cannot address past 2^28 - 1 even if it claims more */
    r.dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | ATA_DFLAG_DMA;
    r.dev->max_sectors = 256;
    r.dev->n_sectors = 1ull << 29;
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 1u << 28, 1);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 257);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);

    /* a buffer beyond the controller's DMA mask (a 32-bit HBA: ahci without CAP.S64A) */
    {
        const struct ata_sg high = { 0xfffff000u, 8192 }, low = { 0xffffe000u, 8192 };

        r.ap->dma_mask = 0xffffffffu;
        b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 16);
        b.sg = &high;
        ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL); /* its last 4 KiB are above 4 GiB */
        b.sg = &low;
        ck_assert_int_eq(ata_bio_check(r.ap, r.dev, &b), 0); /* ends at the last byte below */
        r.ap->dma_mask = 0;
        b.sg = &high;
        ck_assert_int_eq(ata_bio_check(r.ap, r.dev, &b), 0); /* a 64-bit HBA reaches it */
    }

    /* a disabled device */
    r.dev->flags &= ~ATA_DFLAG_ENABLED;
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 1);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -ENODEV);

    ck_assert_uint_eq(r.rec.n, 0);
    ck_assert_int_eq(r.done, 0);
    rig_fini(&r);
}
END_TEST

/* FUA as libata issues it: the FPDMA command's FUA bit, WRITE DMA FUA EXT and WRITE MULTIPLE
 * FUA EXT (48-bit even where 28 bits would do); a device without FUA (libata.fua off), and PIO
 * without multiple mode, get the write and then a FLUSH CACHE, done() after the flush; a
 * device with its write cache off gets the write alone. */
START_TEST(fua_writes_and_the_flush_fallback)
{
    struct rig r;
    struct ata_bio b;

    rig_init(&r, NCQ_DEV | ATA_DFLAG_FUA | ATA_DFLAG_WCACHE, 31);
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_NCQ, 100, 8);
    b.fua = true;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.log[0].cmd, ATA_CMD_FPDMA_WRITE);
    ck_assert_uint_eq(r.rec.log[0].device, ATA_LBA | 0x80);
    ck_assert_uint_eq(b.blk_flags, 0x20800); /* REQ_SYNC | REQ_FUA */
    hw_complete(&r, 1u << 0);
    ck_assert_int_eq(r.done, 1);
    ck_assert_uint_eq(r.rec.n, 1);

    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_DMA, 100, 8);
    b.fua = true;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.log[1].cmd, ATA_CMD_WRITE_FUA_EXT); /* 48-bit for FUA */
    hw_complete(&r, 1u << 0);
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_PIO, 100, 8);
    b.fua = true;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.log[2].cmd, ATA_CMD_WRITE_MULTI_FUA_EXT);
    hw_complete(&r, 1u << 0);
    ck_assert_int_eq(r.done, 3);
    ck_assert_uint_eq(r.rec.n, 3);

    /* PIO without multiple mode: no FUA command, so the write and a flush */
    r.dev->multi_count = 0;
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_PIO, 100, 8);
    b.fua = true;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.log[3].cmd, ATA_CMD_WRITE_SECTORS);
    hw_complete(&r, 1u << 0);
    ck_assert_int_eq(r.done, 3); /* not yet: its flush runs */
    ck_assert_uint_eq(r.rec.n, 5);
    ck_assert_uint_eq(r.rec.log[4].cmd, ATA_CMD_FLUSH_EXT);
    ck_assert_uint_eq(r.rec.log[4].nbytes, 0);
    ck_assert_uint_eq(r.rec.log[4].n_sg, 0);
    hw_complete(&r, 1u << 0);
    ck_assert_int_eq(r.done, 4);
    ck_assert_int_eq(b.err_mask, 0);
    r.dev->multi_count = 16;

    /* libata.fua off: WRITE FPDMA QUEUED without the bit, then FLUSH CACHE EXT */
    r.dev->flags &= ~ATA_DFLAG_FUA;
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_NCQ, 100, 8);
    b.fua = true;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(b.blk_flags, 0x800); /* the flush machinery took REQ_FUA off */
    ck_assert_uint_eq(r.rec.log[5].cmd, ATA_CMD_FPDMA_WRITE);
    ck_assert_uint_eq(r.rec.log[5].device, ATA_LBA);
    hw_complete(&r, 1u << 0);
    ck_assert_uint_eq(r.rec.log[6].cmd, ATA_CMD_FLUSH_EXT);
    hw_complete(&r, 1u << 0);
    ck_assert_int_eq(r.done, 5);
    ck_assert_uint_eq(r.rec.n, 7);

    /* the write cache off: nothing to flush, the write is durable when it is done */
    r.dev->flags &= ~ATA_DFLAG_WCACHE;
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_NCQ, 100, 8);
    b.fua = true;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    hw_complete(&r, 1u << 0);
    ck_assert_int_eq(r.done, 6);
    ck_assert_uint_eq(r.rec.n, 8);
    rig_fini(&r);
}
END_TEST

START_TEST(selection_and_completion)
{
    struct rig r;
    struct ata_bio b[4];

    rig_init(&r, NCQ_DEV, 31);
    r.dev->n_sectors = 1ull << 32;
    b[0] = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 100, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b[0]), 0);
    ck_assert_uint_eq(r.rec.n, 1);
    ck_assert_uint_eq(r.rec.log[0].cmd, ATA_CMD_FPDMA_READ);
    ck_assert_uint_eq(r.rec.log[0].tag, 0);
    ck_assert_uint_eq(r.p.timers_armed, 1);
    hw_complete(&r, 1u << 0);
    ck_assert_int_eq(r.done, 1);
    ck_assert_uint_eq(b[0].err_mask, 0);
    ck_assert_uint_eq(b[0].status, 0x50);
    ck_assert_uint_eq(b[0].tag, 0);
    ck_assert_uint_eq(r.p.timers_cancelled, 1);
    ck_assert_uint_eq(r.ap->qc_active, 0);
    ck_assert_uint_eq(r.ap->link.sactive, 0);

    b[1] = mkbio(&r, ATA_BIO_WRITE, ATA_IO_DMA, 1u << 28, 8);
    b[2] = mkbio(&r, ATA_BIO_WRITE, ATA_IO_PIO, 0, 8);
    b[3] = mkbio(&r, ATA_BIO_FLUSH, ATA_IO_AUTO, 0, 0);
    b[3].sg = NULL;
    b[3].n_sg = 0;
    for (int i = 1; i < 4; i++) {
        ck_assert_int_eq(ata_bio_submit(r.dev, &b[i]), 0);
        ck_assert_uint_eq(r.rec.n, (unsigned)i + 1);
        hw_complete(&r, 1u << 0);
    }
    ck_assert_uint_eq(r.rec.log[1].cmd, ATA_CMD_WRITE_DMA_EXT);
    ck_assert_uint_eq(r.rec.log[2].cmd, ATA_CMD_WRITE_MULTI);
    ck_assert_int_eq(r.rec.log[2].prot, ATA_PROT_PIO);
    ck_assert_uint_eq(r.rec.log[3].cmd, ATA_CMD_FLUSH_EXT);
    ck_assert_int_eq(r.done, 4);
    rig_fini(&r);
}
END_TEST

START_TEST(ncq_waits_for_non_ncq_and_fifo_order)
{
    struct rig r;
    struct ata_bio n[4], d;

    rig_init(&r, NCQ_DEV, 31);
    for (int i = 0; i < 3; i++) {
        n[i] = mkbio(&r, ATA_BIO_READ, ATA_IO_NCQ, (uint64_t)i * 8, 8);
        ck_assert_int_eq(ata_bio_submit(r.dev, &n[i]), 0);
    }
    ck_assert_uint_eq(r.rec.n, 3);
    ck_assert_uint_eq(r.ap->link.sactive, 0x7);

    /* non-NCQ waits while NCQ is active; the NCQ request behind it keeps FIFO order */
    d = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 64, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &d), 0);
    n[3] = mkbio(&r, ATA_BIO_READ, ATA_IO_NCQ, 72, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &n[3]), 0);
    ck_assert_uint_eq(r.rec.n, 3);

    hw_complete(&r, 0x3);
    ck_assert_int_eq(r.done, 2);
    ck_assert_uint_eq(r.rec.n, 3); /* tag 2 still queued */

    hw_complete(&r, 0x4);
    ck_assert_uint_eq(r.rec.n, 4);
    ck_assert_uint_eq(r.rec.log[3].cmd, ATA_CMD_READ_DMA);
    ck_assert_uint_eq(r.ap->link.active_tag, 0);

    /* NCQ waits while the non-NCQ command is active */
    ck_assert_uint_eq(r.rec.n, 4);
    hw_complete(&r, 0x1);
    ck_assert_uint_eq(r.rec.n, 5);
    ck_assert_uint_eq(r.rec.log[4].cmd, ATA_CMD_FPDMA_READ);
    ck_assert_uint_eq(r.ap->link.active_tag, ATA_TAG_NONE);
    hw_complete(&r, 0x1);
    ck_assert_int_eq(r.done, 5);
    ck_assert_uint_eq(d.tag, 0);
    rig_fini(&r);
}
END_TEST

START_TEST(non_ncq_waits_for_anything)
{
    struct rig r;
    struct ata_bio a, b, c;

    rig_init(&r, NCQ_DEV, 31);
    a = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 0, 8);
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_PIO, 8, 8);
    c = mkbio(&r, ATA_BIO_READ, ATA_IO_NCQ, 16, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &a), 0);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_int_eq(ata_bio_submit(r.dev, &c), 0);
    ck_assert_uint_eq(r.rec.n, 1);
    hw_complete(&r, 0x1);
    ck_assert_uint_eq(r.rec.n, 2);
    ck_assert_uint_eq(r.rec.log[1].cmd, ATA_CMD_WRITE_MULTI);
    hw_complete(&r, 0x1);
    ck_assert_uint_eq(r.rec.n, 3);
    ck_assert_uint_eq(r.rec.log[2].cmd, ATA_CMD_FPDMA_READ);
    rig_fini(&r);
}
END_TEST

START_TEST(no_free_tag_waits)
{
    struct rig r;
    struct ata_bio b[32];

    rig_init(&r, NCQ_DEV, 31);
    submit_reads(&r, b, 32, ATA_IO_NCQ);
    ck_assert_uint_eq(r.rec.n, 31); /* tag 31 is for EH only */
    ck_assert_uint_eq(r.ap->link.sactive, 0x7fffffff);
    hw_complete(&r, 1u << 7);
    ck_assert_uint_eq(r.rec.n, 32);
    ck_assert_uint_eq(r.rec.log[31].tag, 7);
    ck_assert_uint_eq(b[31].tag, ATA_TAG_NONE); /* not done yet */
    hw_complete(&r, r.ap->qc_active);
    ck_assert_int_eq(r.done, 32);
    ck_assert_uint_eq(b[31].tag, 7);
    rig_fini(&r);
}
END_TEST

START_TEST(device_queue_depth_limits_ncq)
{
    struct rig r;
    struct ata_bio b[6];

    rig_init(&r, NCQ_DEV, 4);
    submit_reads(&r, b, 6, ATA_IO_NCQ);
    ck_assert_uint_eq(r.rec.n, 4);
    hw_complete(&r, 0x2);
    ck_assert_uint_eq(r.rec.n, 5);
    ck_assert_uint_eq(r.rec.log[4].tag, 1); /* tags stay below the device depth */
    hw_complete(&r, r.ap->qc_active);
    ck_assert_uint_eq(r.rec.n, 6);
    hw_complete(&r, r.ap->qc_active);
    ck_assert_int_eq(r.done, 6);
    rig_fini(&r);
}
END_TEST

START_TEST(eh_pending_holds_queue)
{
    struct rig r;
    struct ata_bio a;

    rig_init(&r, NCQ_DEV, 31);
    r.ap->pflags |= ATA_PFLAG_EH_PENDING;
    a = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &a), 0);
    ck_assert_uint_eq(r.rec.n, 0);
    r.ap->pflags &= ~ATA_PFLAG_EH_PENDING;
    ata_port_process(r.ap);
    ck_assert_uint_eq(r.rec.n, 1);
    hw_complete(&r, 0x1);
    ck_assert_int_eq(r.done, 1);
    rig_fini(&r);
}
END_TEST

START_TEST(illegal_hw_active)
{
    struct rig r;
    struct ata_bio a;

    rig_init(&r, NCQ_DEV, 31);
    a = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &a), 0);
    ata_lock(r.h);
    /* the controller claims tag 5, never issued */
    ck_assert_int_eq(ata_qc_complete_multiple(r.ap, 0x21), -EINVAL);
    ata_unlock(r.h);
    ck_assert_ptr_nonnull(fake_find(&r.p, "qc.illegal_active"));
    hw_complete(&r, 0x1);
    rig_fini(&r);
}
END_TEST

/* EH turned NCQ off ("NCQ disabled due to excessive errors"): NCQ is a transport choice,
 * so queued and new NCQ requests go out as READ/WRITE DMA; a device that never had NCQ
 * keeps refusing them. */
START_TEST(ncq_off_falls_back_to_dma)
{
    struct rig r;
    struct ata_bio q[2], a, n, w;

    rig_init(&r, NCQ_DEV, 31);
    r.ap->pflags |= ATA_PFLAG_EH_PENDING; /* EH holds the queue while it decides */
    q[0] = mkbio(&r, ATA_BIO_READ, ATA_IO_NCQ, 0, 8);
    q[1] = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 8, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &q[0]), 0);
    ck_assert_int_eq(ata_bio_submit(r.dev, &q[1]), 0);
    ck_assert_uint_eq(r.rec.n, 0);
    r.dev->flags = (r.dev->flags & ~(unsigned)ATA_DFLAG_NCQ) | ATA_DFLAG_NCQ_OFF;
    r.ap->pflags &= ~ATA_PFLAG_EH_PENDING;
    ata_port_process(r.ap);
    ck_assert_uint_eq(r.rec.n, 1);
    ck_assert_uint_eq(r.rec.log[0].cmd, ATA_CMD_READ_DMA);
    ck_assert_int_eq(r.rec.log[0].prot, ATA_PROT_DMA);
    hw_complete(&r, 0x1);
    ck_assert_uint_eq(r.rec.log[1].cmd, ATA_CMD_READ_DMA);
    hw_complete(&r, 0x1);
    ck_assert_int_eq(r.done, 2);
    ck_assert_uint_eq(q[0].err_mask | q[1].err_mask, 0);

    n = mkbio(&r, ATA_BIO_READ, ATA_IO_NCQ, 16, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &n), 0);
    w = mkbio(&r, ATA_BIO_WRITE, ATA_IO_NCQ, 24, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &w), 0);
    hw_complete(&r, 0x1);
    hw_complete(&r, 0x1);
    ck_assert_uint_eq(r.rec.log[2].cmd, ATA_CMD_READ_DMA);
    ck_assert_uint_eq(r.rec.log[3].cmd, ATA_CMD_WRITE_DMA);
    ck_assert_int_eq(r.done, 4);

    /* no DMA either: PIO */
    r.dev->flags &= ~(unsigned)ATA_DFLAG_DMA;
    a = mkbio(&r, ATA_BIO_READ, ATA_IO_NCQ, 0, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &a), 0);
    ck_assert_uint_eq(r.rec.log[4].cmd, ATA_CMD_READ_MULTI);
    hw_complete(&r, 0x1);

    /* never had NCQ: refused at submit, as before */
    r.dev->flags = (r.dev->flags | ATA_DFLAG_DMA) & ~(unsigned)ATA_DFLAG_NCQ_OFF;
    a = mkbio(&r, ATA_BIO_READ, ATA_IO_NCQ, 0, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &a), -EOPNOTSUPP);
    rig_fini(&r);
}
END_TEST

/* A request queued for a device that is disabled before it could go out fails with the
 * no-device error, never reaching the drive. */
START_TEST(queued_for_disabled_device_fails_nodev)
{
    struct rig r;
    struct ata_bio a, b;

    rig_init(&r, NCQ_DEV, 31);
    r.ap->pflags |= ATA_PFLAG_EH_PENDING;
    a = mkbio(&r, ATA_BIO_READ, ATA_IO_AUTO, 0, 8);
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_DMA, 8, 8);
    ck_assert_int_eq(ata_bio_submit(r.dev, &a), 0);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    r.dev->flags &= ~(unsigned)ATA_DFLAG_ENABLED;
    r.ap->pflags &= ~ATA_PFLAG_EH_PENDING;
    ata_port_process(r.ap);
    ck_assert_uint_eq(r.rec.n, 0);
    ck_assert_int_eq(r.done, 2);
    ck_assert_uint_eq(a.err_mask, AC_ERR_NODEV_HINT);
    ck_assert_uint_eq(b.err_mask, AC_ERR_NODEV_HINT);
    ck_assert_uint_eq(b.tag, ATA_TAG_NONE);
    rig_fini(&r);
}
END_TEST

/* ata_bio_fail_dev takes only the given device's requests out of the FIFO, in order. */
START_TEST(fail_dev_keeps_others_in_order)
{
    struct rig r;
    struct ata_device other = { 0 };
    struct ata_bio b[4];

    rig_init(&r, NCQ_DEV, 31);
    r.ap->pflags |= ATA_PFLAG_EH_PENDING;
    submit_reads(&r, b, 4, ATA_IO_AUTO);
    b[1].q_dev = &other; /* stands in for a second device on the port (PMP) */
    b[3].q_dev = &other;
    ata_lock(r.h);
    ck_assert_uint_eq(ata_bio_fail_dev(r.ap, r.dev, AC_ERR_NODEV_HINT), 2);
    ata_unlock(r.h);
    ck_assert_ptr_eq(r.ap->pending.head, &b[1]);
    ck_assert_ptr_eq(b[1].q_next, &b[3]);
    ck_assert_ptr_eq(r.ap->pending.tail, &b[3]);
    ck_assert_ptr_eq(r.ap->done.head, &b[0]);
    ck_assert_ptr_eq(b[0].q_next, &b[2]);
    b[1].q_dev = b[3].q_dev = r.dev;
    r.ap->pflags &= ~ATA_PFLAG_EH_PENDING;
    ata_port_process(r.ap);
    ck_assert_int_eq(r.done, 2);
    ck_assert_uint_eq(r.rec.n, 2);
    hw_complete(&r, r.ap->qc_active);
    ck_assert_int_eq(r.done, 4);
    rig_fini(&r);
}
END_TEST

/* A driver lowered max_sectors (sata_sil's mod15write fixup: 15): a longer request is
 * accepted up to the command set's limit and goes out as commands of 15 sectors, in order,
 * each with its own slice of the sg; done() runs once, after the last piece. */
START_TEST(split_at_max_sectors)
{
    struct rig r;
    struct ata_bio b;
    /* 40 sectors in two segments: 4 KiB (8 sectors), then 16 KiB */
    const struct ata_sg sg[2] = { { 0x100000, 4096 }, { 0x200000, 32 * 512 } };

    rig_init(&r, ATA_DFLAG_LBA48 | ATA_DFLAG_DMA, 0);
    r.dev->cmd_max_sectors = 65535;
    r.dev->max_sectors = 15;
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_DMA, 1000, 40);
    b.sg = sg;
    b.n_sg = 2;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.n, 1);
    ck_assert_uint_eq(r.rec.log[0].cmd, ATA_CMD_WRITE_DMA);
    ck_assert_uint_eq(r.rec.log[0].lba, 1000);
    ck_assert_uint_eq(r.rec.log[0].nsect, 15);
    ck_assert_uint_eq(r.rec.log[0].nbytes, 15 * 512);
    ck_assert_uint_eq(r.rec.log[0].n_sg, 2);
    ck_assert_uint_eq(r.rec.log[0].sg_last.bus, 0x200000);
    ck_assert_uint_eq(r.rec.log[0].sg_last.len, 7 * 512);
    hw_complete(&r, 0x1);
    ck_assert_int_eq(r.done, 0);
    ck_assert_uint_eq(r.rec.n, 2);
    ck_assert_uint_eq(r.rec.log[1].lba, 1015);
    ck_assert_uint_eq(r.rec.log[1].nsect, 15);
    ck_assert_uint_eq(r.rec.log[1].n_sg, 1);
    ck_assert_uint_eq(r.rec.log[1].sg0.bus, 0x200000 + 7 * 512);
    ck_assert_uint_eq(r.rec.log[1].sg0.len, 15 * 512);
    hw_complete(&r, 0x1);
    ck_assert_uint_eq(r.rec.n, 3);
    ck_assert_uint_eq(r.rec.log[2].lba, 1030);
    ck_assert_uint_eq(r.rec.log[2].nsect, 10);
    ck_assert_uint_eq(r.rec.log[2].nbytes, 10 * 512);
    ck_assert_uint_eq(r.rec.log[2].sg0.bus, 0x200000 + 22 * 512);
    hw_complete(&r, 0x1);
    ck_assert_int_eq(r.done, 1);
    ck_assert_uint_eq(b.err_mask, 0);
    ck_assert_uint_eq(r.rec.n, 3);

    /* the command set's limit still holds: beyond it, refused */
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 0, 65536);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    /* a piece whose first sector needs more than ATA_SPLIT_SG_MAX entries: refused (the
     * same request unsplit is fine: 65 entries are within the port's 168) */
    {
        static struct ata_sg frag[65];

        for (unsigned i = 0; i < 64; i++)
            frag[i] = (struct ata_sg){ 0x300000 + 8 * i, 8 };
        frag[64] = (struct ata_sg){ 0x400000, 19 * 512 };
        b = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 0, 20);
        b.sg = frag;
        b.n_sg = 65;
        ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
        r.dev->max_sectors = 65535;
        ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
        ck_assert_uint_eq(r.rec.log[3].nsect, 20);
        ck_assert_uint_eq(r.rec.log[3].n_sg, 65);
        hw_complete(&r, 0x1);
        ck_assert_int_eq(r.done, 2);
    }
    ck_assert_uint_eq(r.rec.n, 4);
    rig_fini(&r);
}
END_TEST

/* A split request whose second piece fails: the pieces after it are still issued (each is
 * the block layer's own request of the split bio), and done() runs once, after the last,
 * with the failed piece's result. */
START_TEST(split_piece_failure_goes_on)
{
    struct rig r;
    struct ata_bio b;

    rig_init(&r, ATA_DFLAG_LBA48 | ATA_DFLAG_DMA, 0);
    r.dev->cmd_max_sectors = 65535;
    r.dev->max_sectors = 15;
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 1000, 40);
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    hw_complete(&r, 0x1); /* piece 1 [1000,1015) */
    ck_assert_uint_eq(r.rec.n, 2);
    ata_lock(r.h); /* piece 2 [1015,1030) fails as EH would complete it */
    r.ap->qcmd[0].err_mask = AC_ERR_DEV | AC_ERR_MEDIA;
    ata_eh_qc_complete(&r.ap->qcmd[0]);
    ata_unlock(r.h);
    ata_port_process(r.ap);
    ck_assert_int_eq(r.done, 0);
    ck_assert_uint_eq(r.rec.n, 3); /* piece 3 went out all the same */
    ck_assert_uint_eq(r.rec.log[2].lba, 1030);
    ck_assert_uint_eq(r.rec.log[2].nsect, 10);
    hw_complete(&r, 0x1);
    ck_assert_int_eq(r.done, 1);
    ck_assert_uint_eq(b.err_mask, AC_ERR_DEV | AC_ERR_MEDIA); /* the first error, not the last piece's 0 */
    rig_fini(&r);
}
END_TEST

/* The sector of "I/O error, dev sda, sector N": the failed request's (a split piece's)
 * start, advanced to the LBA the drive reports when the error translates to a MEDIUM or
 * HARDWARE ERROR sense key and that LBA lies in a request of more than one sector (sd's
 * completion of the good part), and phys_seg counts the segments left from there. */
static unsigned long long printed_sector(struct rig *r, struct ata_queued_cmd *qc, unsigned *phys_seg)
{
    const struct fake_event *e;
    unsigned long long sector = ~0ull;

    r->p.n_ev = 0;
    ata_blk_print_req_error(qc);
    e = fake_find(&r->p, "blk.io_error");
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(sscanf(e->msg, "I/O error, dev sda, sector %llu op %*s flags %*s phys_seg %u", &sector, phys_seg), 2);
    return sector;
}

START_TEST(io_error_line_names_the_failed_sector)
{
    struct rig r;
    struct ata_bio b;
    struct ata_queued_cmd qc;
    /* the piece's 15 sectors in two segments: 4 sectors, then 11 */
    const struct ata_sg piece_sg[2] = { { 0x100000, 4 * 512 }, { 0x200000, 11 * 512 } };
    unsigned seg = 0;

    rig_init(&r, ATA_DFLAG_LBA48 | ATA_DFLAG_DMA, 0);
    r.dev->disk = 1;
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 4096, 128);
    b.q_done = 30; /* the third piece: [4126, 4141) */
    b.q_piece = 15;
    b.q_piece_sg = 2;
    memset(&qc, 0, sizeof(qc));
    qc.dev = r.dev;
    qc.bio = &b;
    qc.sg = piece_sg;
    qc.n_sg = 2;
    qc.err_mask = AC_ERR_DEV | AC_ERR_MEDIA;
    qc.result_tf.command = ATA_DRDY | ATA_ERR;
    qc.result_tf.feature = ATA_UNC;
    qc.result_tf.lbal = 4130 & 0xff; /* 28-bit: LBA 4130 */
    qc.result_tf.lbam = 4130 >> 8;
    qc.result_tf.device = ATA_LBA;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4130);
    ck_assert_uint_eq(seg, 1); /* 4130 is in the second segment */
    qc.result_tf.lbal = 4127 & 0xff;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4127);
    ck_assert_uint_eq(seg, 2);
    /* an LBA outside the piece (a drive reporting garbage): the piece's start */
    qc.result_tf.lbal = 4200 & 0xff;
    qc.result_tf.lbam = 4200 >> 8;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4126);
    ck_assert_uint_eq(seg, 2);
    /* LBA48 result: the HOB bytes count (0x1_0000_1020 is outside, 0x1020 = 4128 inside) */
    qc.result_tf.flags = ATA_TFLAG_LBA48;
    qc.result_tf.lbal = 0x20;
    qc.result_tf.lbam = 0x10;
    qc.result_tf.hob_lbal = 1;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4126);
    qc.result_tf.hob_lbal = 0;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4128);
    /* IDNF is ILLEGAL REQUEST, a DF with DRDY too (the Status table's DRDY entry comes first):
     * nothing completes, the start is printed */
    qc.result_tf.feature = ATA_IDNF;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4126);
    qc.result_tf.command = ATA_DRDY | ATA_DF | ATA_ERR;
    qc.result_tf.feature = ATA_ABORTED;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4126);
    /* a DF without DRDY is HARDWARE ERROR: advanced */
    qc.result_tf.command = ATA_DF | ATA_ERR;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4128);
    /* a timeout: the result taskfile is the reset's, the start is printed */
    qc.err_mask = AC_ERR_TIMEOUT;
    qc.result_tf.command = ATA_DRDY | ATA_ERR;
    qc.result_tf.feature = ATA_UNC;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4126);
    /* a one-sector request: sd completes nothing of it */
    qc.err_mask = AC_ERR_DEV | AC_ERR_MEDIA;
    b.q_piece = 0;
    b.q_done = 0;
    b.lba = 4128;
    b.n_sectors = 1;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4128);
    b.lba = 4127;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 4127);
    r.dev->disk = 0;
    rig_fini(&r);
}
END_TEST

/* A 4Kn device (dev->sector_size 4096, IDENTIFY 106/117-118): a request's sectors are its
 * logical ones, so a command of n moves 4096 n bytes (qc->nbytes, qc->sect_size for the PIO
 * DRQ block), a split piece's sg is cut at 4096-byte sectors, and the I/O error line counts
 * 512-byte sectors (the block layer's, blk_rq_pos): a failure at LBA 101 is sector 808.
 * Before: 512 bytes a sector everywhere, the piece cut mid-sector. */
START_TEST(native_4k_sectors_size_the_transfers)
{
    struct rig r;
    struct ata_bio b;
    struct ata_queued_cmd qc;
    /* 10 sectors of 4096 in two segments: 6 KiB (a sector and a half), then 34 KiB */
    const struct ata_sg sg[2] = { { 0x100000, 6144 }, { 0x200000, 34816 } };
    unsigned seg = 0;

    rig_init(&r, ATA_DFLAG_LBA48 | ATA_DFLAG_DMA, 0);
    r.dev->sector_size = 4096;
    r.dev->n_sectors = 262144;
    r.dev->cmd_max_sectors = 65535;
    r.dev->max_sectors = 4;
    b = mkbio(&r, ATA_BIO_WRITE, ATA_IO_DMA, 100, 10);
    b.sg = sg;
    b.n_sg = 2;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.n, 1);
    ck_assert_uint_eq(r.rec.log[0].nsect, 4);
    ck_assert_uint_eq(r.rec.log[0].nbytes, 4 * 4096);
    ck_assert_uint_eq(r.rec.log[0].n_sg, 2);
    ck_assert_uint_eq(r.rec.log[0].sg_last.len, 4 * 4096 - 6144);
    ck_assert_uint_eq(r.ap->qcmd[0].sect_size, 4096);
    hw_complete(&r, 0x1);
    ck_assert_uint_eq(r.rec.n, 2);
    ck_assert_uint_eq(r.rec.log[1].lba, 104);
    ck_assert_uint_eq(r.rec.log[1].sg0.bus, 0x200000 + 4 * 4096 - 6144);
    ck_assert_uint_eq(r.rec.log[1].nbytes, 4 * 4096);
    hw_complete(&r, 0x1);
    ck_assert_uint_eq(r.rec.log[2].nsect, 2);
    ck_assert_uint_eq(r.rec.log[2].nbytes, 2 * 4096);
    hw_complete(&r, 0x1);
    ck_assert_int_eq(r.done, 1);
    /* a buffer one 512-byte sector short of the request: refused */
    r.dev->max_sectors = 65535;
    {
        const struct ata_sg short_sg = { 0x100000, 2 * 4096 - 512 };

        b = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 0, 2);
        b.sg = &short_sg;
        ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    }
    /* the I/O error line */
    r.dev->disk = 1;
    b = mkbio(&r, ATA_BIO_READ, ATA_IO_DMA, 100, 4);
    memset(&qc, 0, sizeof(qc));
    qc.dev = r.dev;
    qc.bio = &b;
    qc.sg = &data_sg;
    qc.n_sg = 1;
    qc.err_mask = AC_ERR_DEV | AC_ERR_MEDIA;
    qc.result_tf.command = ATA_DRDY | ATA_ERR;
    qc.result_tf.feature = ATA_UNC;
    qc.result_tf.lbal = 101;
    qc.result_tf.device = ATA_LBA;
    ck_assert_uint_eq(printed_sector(&r, &qc, &seg), 808);
    r.dev->disk = 0;
    rig_fini(&r);
}
END_TEST

/* ATA_BIO_TRIM: DATA SET MANAGEMENT with TRIM, one 512-byte block of ranges written into the
 * caller's payload buffer (8 bytes each: 48-bit LBA, 16-bit count up to 0xffff, rest zero),
 * refused on a device without IDENTIFY word 169 bit 0 and for a region it cannot describe. */
static uint64_t trim_entry(const uint8_t *p)
{
    uint64_t v = 0;

    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

START_TEST(trim_builds_the_range_list)
{
    struct rig r;
    struct ata_bio b;
    uint8_t page[ATA_TRIM_PAYLOAD + 16];
    struct ata_sg sg[2] = { { (uintptr_t)page, 100 }, { (uintptr_t)page + 100, ATA_TRIM_PAYLOAD - 100 } };
    const uint64_t lba = 0x123456789aull;
    const uint32_t n = 0xffffu * 2 + 10;

    rig_init(&r, NCQ_DEV, 31);
    r.dev->n_sectors = 1ull << 40;
    b = mkbio(&r, ATA_BIO_TRIM, ATA_IO_AUTO, lba, n);
    b.sg = sg;
    b.n_sg = 2;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EOPNOTSUPP); /* no word 169 bit 0 */
    ck_assert(!ata_trim_supported(r.dev));
    r.dev->id[169] = 0x0001;
    r.dev->id[80] = 0x0040; /* ATA/ATAPI-6: word 169 is not believed before ACS-2 (libata) */
    ck_assert(!ata_trim_supported(r.dev));
    r.dev->id[80] = 0x0080; /* ACS-2 */
    ck_assert(ata_trim_supported(r.dev) && !ata_trim_reads_zeroes(r.dev));
    r.dev->id[69] = 0x4000;
    ck_assert(!ata_trim_reads_zeroes(r.dev)); /* deterministic, not zeroes */
    r.dev->id[69] = 0x4020;
    ck_assert(ata_trim_reads_zeroes(r.dev));

    memset(page, 0xee, sizeof(page));
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.n, 1);
    ck_assert_uint_eq(r.rec.log[0].cmd, ATA_CMD_DSM);
    ck_assert_uint_eq(r.rec.log[0].feature, 0x01);
    ck_assert_int_eq(r.rec.log[0].prot, ATA_PROT_DMA);
    ck_assert_uint_eq(r.rec.log[0].nsect, 1);
    ck_assert_uint_eq(r.rec.log[0].nbytes, ATA_TRIM_PAYLOAD);
    ck_assert_uint_eq(r.rec.log[0].n_sg, 2);
    ck_assert_uint_eq(trim_entry(page), lba | 0xffffull << 48);
    ck_assert_uint_eq(trim_entry(page + 8), (lba + 0xffff) | 0xffffull << 48);
    ck_assert_uint_eq(trim_entry(page + 16), (lba + 0x1fffe) | 10ull << 48);
    for (unsigned i = 24; i < ATA_TRIM_PAYLOAD; i++)
        ck_assert_uint_eq(page[i], 0);
    ck_assert_uint_eq(page[ATA_TRIM_PAYLOAD], 0xee); /* nothing written past the block */
    hw_complete(&r, 1u << 0);
    ck_assert_int_eq(r.done, 1);
    ck_assert_uint_eq(b.err_mask, 0);

    /* the region must fit one block's 64 ranges, the device, and a 512-byte payload */
    b.n_sectors = ATA_TRIM_MAX_SECTORS;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(trim_entry(page + 63 * 8), (lba + 63ull * 0xffff) | 0xffffull << 48);
    hw_complete(&r, 1u << 0);
    b.n_sectors = ATA_TRIM_MAX_SECTORS + 1;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    b.n_sectors = 8;
    b.lba = r.dev->n_sectors - 4;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    b.lba = 0;
    b.n_sg = 1; /* 100 bytes */
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    b.sg = NULL;
    b.n_sg = 0;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), -EINVAL);
    ck_assert_uint_eq(r.rec.n, 2);
    ck_assert_int_eq(r.done, 2);
    rig_fini(&r);
}
END_TEST

/* Queued TRIM as libata chooses it: SEND FPDMA QUEUED (64h) with the tag in Count 7:3,
 * subcommand DSM (00h) in the high Count byte, one block in Features and the TRIM bit in the
 * Auxiliary field, only while NCQ is in use and the device's log 13h copy says DSM TRIM (the
 * NO_NCQ_TRIM horkage clears that bit); otherwise DATA SET MANAGEMENT. The horkage list
 * matches libata's glob patterns. */
START_TEST(queued_trim_only_where_the_log_says)
{
    struct rig r;
    struct ata_bio b;
    uint8_t page[ATA_TRIM_PAYLOAD];
    struct ata_sg sg = { (uintptr_t)page, ATA_TRIM_PAYLOAD };

    rig_init(&r, NCQ_DEV, 31);
    r.dev->n_sectors = 1ull << 30;
    r.dev->id[169] = 0x0001;
    r.dev->id[80] = 0x0080;
    b = mkbio(&r, ATA_BIO_TRIM, ATA_IO_AUTO, 4096, 64);
    b.sg = &sg;
    b.n_sg = 1;

    /* the log read, DSM supported but not TRIM (what the horkage leaves): not queued */
    r.dev->flags |= ATA_DFLAG_NCQ_SEND_RECV;
    r.dev->ncq_send_recv_cmds[ATA_LOG_NCQ_SEND_RECV_SUBCMDS_OFFSET] = ATA_LOG_NCQ_SEND_RECV_SUBCMDS_DSM;
    ck_assert(!ata_fpdma_trim_supported(r.dev));
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.log[0].cmd, ATA_CMD_DSM);
    ck_assert_int_eq(r.rec.log[0].prot, ATA_PROT_DMA);
    ck_assert_uint_eq(r.rec.log[0].aux, 0);
    hw_complete(&r, 1u << r.rec.log[0].tag);

    /* TRIM in the log: queued */
    r.dev->ncq_send_recv_cmds[ATA_LOG_NCQ_SEND_RECV_DSM_OFFSET] = ATA_LOG_NCQ_SEND_RECV_DSM_TRIM;
    ck_assert(ata_fpdma_trim_supported(r.dev));
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.n, 2);
    ck_assert_uint_eq(r.rec.log[1].cmd, ATA_CMD_FPDMA_SEND);
    ck_assert_int_eq(r.rec.log[1].prot, ATA_PROT_NCQ);
    ck_assert_uint_eq(r.rec.log[1].nsect, r.rec.log[1].tag << 3);
    ck_assert_uint_eq(r.rec.log[1].hob_nsect, ATA_SUBCMD_FPDMA_SEND_DSM);
    ck_assert_uint_eq(r.rec.log[1].feature, 1);
    ck_assert_uint_eq(r.rec.log[1].aux, 1);
    ck_assert_uint_eq(r.rec.log[1].nbytes, ATA_TRIM_PAYLOAD);
    ck_assert_uint_eq(trim_entry(page), 4096 | 64ull << 48);
    hw_complete(&r, 1u << r.rec.log[1].tag);

    /* NCQ not in use (EH turned it off): DATA SET MANAGEMENT again */
    r.dev->flags &= ~(unsigned)ATA_DFLAG_NCQ;
    ck_assert_int_eq(ata_bio_submit(r.dev, &b), 0);
    ck_assert_uint_eq(r.rec.log[2].cmd, ATA_CMD_DSM);
    hw_complete(&r, 1u << r.rec.log[2].tag);
    ck_assert_int_eq(r.done, 3);
    rig_fini(&r);

    /* libata's NO_NCQ_TRIM entries, by model */
    ck_assert(ata_model_no_ncq_trim("Samsung SSD 850 EVO 250GB"));
    ck_assert(ata_model_no_ncq_trim("Micron_M550_MTFDDAK256MAY"));
    ck_assert(ata_model_no_ncq_trim("Crucial_CT256MX100SSD1"));
    ck_assert(!ata_model_no_ncq_trim("Micron_M600_MTFDDAK256MBF"));
    ck_assert(!ata_model_no_ncq_trim("Samsung SSD 860 EVO 250GB"));
    ck_assert(!ata_model_no_ncq_trim("SATASIM SSD"));
}
END_TEST

Suite *bio_suite(void)
{
    Suite *s = suite_create("bio");
    TCase *tc = tcase_create("queue");

    tcase_add_test(tc, validation);
    tcase_add_test(tc, selection_and_completion);
    tcase_add_test(tc, ncq_waits_for_non_ncq_and_fifo_order);
    tcase_add_test(tc, non_ncq_waits_for_anything);
    tcase_add_test(tc, no_free_tag_waits);
    tcase_add_test(tc, device_queue_depth_limits_ncq);
    tcase_add_test(tc, eh_pending_holds_queue);
    tcase_add_test(tc, illegal_hw_active);
    tcase_add_test(tc, ncq_off_falls_back_to_dma);
    tcase_add_test(tc, queued_for_disabled_device_fails_nodev);
    tcase_add_test(tc, fail_dev_keeps_others_in_order);
    tcase_add_test(tc, split_at_max_sectors);
    tcase_add_test(tc, split_piece_failure_goes_on);
    tcase_add_test(tc, native_4k_sectors_size_the_transfers);
    tcase_add_test(tc, io_error_line_names_the_failed_sector);
    tcase_add_test(tc, fua_writes_and_the_flush_fallback);
    tcase_add_test(tc, trim_builds_the_range_list);
    tcase_add_test(tc, queued_trim_only_where_the_log_says);
    suite_add_tcase(s, tc);
    return s;
}
