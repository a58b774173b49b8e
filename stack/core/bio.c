/* Block I/O: request validation, command selection (libata's rw taskfile rules), the
 * per-port FIFO of requests waiting for a tag or for NCQ/non-NCQ exclusion, and the
 * list of finished requests whose callbacks run outside the lock. */
#include <string.h>

#include "internal.h"

/* ---- queues (intrusive through bio->q_next) ---- */

static void q_push_back(struct ata_bio_queue *q, struct ata_bio *bio)
{
    bio->q_next = NULL;
    if (q->tail)
        q->tail->q_next = bio;
    else
        q->head = bio;
    q->tail = bio;
}

static struct ata_bio *q_pop_front(struct ata_bio_queue *q)
{
    struct ata_bio *bio = q->head;

    if (bio) {
        q->head = bio->q_next;
        if (!q->head)
            q->tail = NULL;
        bio->q_next = NULL;
    }
    return bio;
}

void ata_bio_requeue_front(struct ata_port *ap, struct ata_bio *bio)
{
    bio->q_next = ap->pending.head;
    ap->pending.head = bio;
    if (!ap->pending.tail)
        ap->pending.tail = bio;
}

unsigned ata_bio_fail_dev(struct ata_port *ap, const struct ata_device *dev, unsigned err_mask)
{
    struct ata_bio_queue keep = { NULL, NULL };
    struct ata_bio *bio;
    unsigned n = 0;

    while ((bio = q_pop_front(&ap->pending))) {
        if (bio->q_dev == dev) {
            ata_bio_fail(ap, bio, err_mask);
            n++;
        } else {
            q_push_back(&keep, bio);
        }
    }
    ap->pending = keep;
    return n;
}

/* ---- scatter/gather ---- */

int ata_sg_split(const struct ata_sg *sg, unsigned n_sg, uint32_t nbytes, uint32_t seg_max,
                 unsigned max_segs, ata_sg_emit_fn emit, void *ctx)
{
    unsigned n = 0;

    for (unsigned i = 0; i < n_sg && nbytes; i++) {
        uint64_t addr = sg[i].bus;
        uint32_t left = sg[i].len < nbytes ? sg[i].len : nbytes;

        /* ATA moves 16-bit words: odd addresses or lengths cannot be described */
        if ((addr & 1) || (left & 1))
            return -EINVAL;
        nbytes -= left;
        while (left) {
            uint32_t piece = left < seg_max ? left : seg_max;

            if (n == max_segs)
                return -EINVAL;
            if (emit)
                emit(ctx, n, addr, piece);
            n++;
            addr += piece;
            left -= piece;
        }
    }
    return nbytes ? -EINVAL : (int)n;
}

/* ---- command selection ---- */

/* [pio multiple, pio single, dma][lba48][write] */
static const uint8_t rw_cmds[3][2][2] = {
    { { ATA_CMD_READ_MULTI, ATA_CMD_WRITE_MULTI }, { ATA_CMD_READ_MULTI_EXT, ATA_CMD_WRITE_MULTI_EXT } },
    { { ATA_CMD_READ_SECTORS, ATA_CMD_WRITE_SECTORS },
      { ATA_CMD_READ_SECTORS_EXT, ATA_CMD_WRITE_SECTORS_EXT } },
    { { ATA_CMD_READ_DMA, ATA_CMD_WRITE_DMA }, { ATA_CMD_READ_DMA_EXT, ATA_CMD_WRITE_DMA_EXT } },
};

static void tf_set_lba48(struct ata_taskfile *tf, uint64_t lba)
{
    tf->hob_lbah = (uint8_t)(lba >> 40);
    tf->hob_lbam = (uint8_t)(lba >> 32);
    tf->hob_lbal = (uint8_t)(lba >> 24);
    tf->lbah = (uint8_t)(lba >> 16);
    tf->lbam = (uint8_t)(lba >> 8);
    tf->lbal = (uint8_t)lba;
}

static int select_mode(const struct ata_device *dev, enum ata_io_mode mode, enum ata_io_mode *out)
{
    bool ncq = dev->flags & ATA_DFLAG_NCQ, dma = dev->flags & ATA_DFLAG_DMA;

    /* NCQ is a transport choice: once EH turned it off ("NCQ disabled due to excessive
     * errors") libata issues the same request as a non-queued command, so an NCQ request
     * -- queued before or submitted after -- goes out as DMA (PIO without DMA). A device
     * that never had NCQ in use still refuses it (-EOPNOTSUPP, the API contract). */
    if (mode == ATA_IO_AUTO || (mode == ATA_IO_NCQ && !ncq && (dev->flags & ATA_DFLAG_NCQ_OFF)))
        mode = ncq ? ATA_IO_NCQ : dma ? ATA_IO_DMA : ATA_IO_PIO;
    if ((mode == ATA_IO_NCQ && !ncq) || (mode == ATA_IO_DMA && !dma))
        return -EOPNOTSUPP;
    if (mode != ATA_IO_NCQ && mode != ATA_IO_DMA && mode != ATA_IO_PIO)
        return -EINVAL;
    *out = mode;
    return 0;
}

/* As libata builds read/write taskfiles: NCQ always 48-bit; otherwise a 28-bit command
 * whenever the range fits (ending block below 0x0fffffff, at most 256 sectors), 48-bit
 * only when needed and the device has it. */
/* The largest request accepted: the command set's limit (a request beyond the device's
 * max_sectors up to it is split); never below max_sectors (a device set up by hand). */
static unsigned cmd_limit(const struct ata_device *dev)
{
    return dev->cmd_max_sectors > dev->max_sectors ? dev->cmd_max_sectors : dev->max_sectors;
}

/* An ATA_BIO_TASKFILE request: the registers as given (libata's ata_scsi_pass_thru builds
 * them from the CDB; here the SAT layer has). The Device register's DEV bit follows the
 * device the request is for, as libata forces it. */
static int bio_build_taskfile(const struct ata_device *dev, const struct ata_bio *bio, struct ata_taskfile *tf)
{
    const struct ata_bio_regs *r = &bio->regs;

    if ((bio->proto == ATA_BIO_PROTO_NODATA) != (bio->n_sectors == 0) || bio->n_sectors > ATA_MAX_SECTORS_LBA48 + 1)
        return -EINVAL;
    if (bio->proto == ATA_BIO_PROTO_DMA && !(dev->flags & ATA_DFLAG_DMA))
        return -EOPNOTSUPP;
    if (bio->proto != ATA_BIO_PROTO_NODATA && bio->proto != ATA_BIO_PROTO_PIO && bio->proto != ATA_BIO_PROTO_DMA)
        return -EINVAL;
    tf->protocol = bio->proto == ATA_BIO_PROTO_DMA ? ATA_PROT_DMA
                   : bio->proto == ATA_BIO_PROTO_PIO ? ATA_PROT_PIO
                                                     : ATA_PROT_NODATA;
    if (bio->tf_write && bio->proto != ATA_BIO_PROTO_NODATA)
        tf->flags |= ATA_TFLAG_WRITE;
    if (r->lba48) {
        tf->flags |= ATA_TFLAG_LBA48;
        tf->hob_feature = r->hob_feature;
        tf->hob_nsect = r->hob_nsect;
        tf->hob_lbal = r->hob_lbal;
        tf->hob_lbam = r->hob_lbam;
        tf->hob_lbah = r->hob_lbah;
    }
    tf->command = r->command;
    tf->feature = r->feature;
    tf->nsect = r->nsect;
    tf->lbal = r->lbal;
    tf->lbam = r->lbam;
    tf->lbah = r->lbah;
    tf->device = (uint8_t)(dev->devno ? r->device | ATA_DEV1 : r->device & ~ATA_DEV1);
    return 0;
}

/* The command of a request's piece in flight: [lba + q_done, q_piece sectors), or the whole
 * request before it is split (q_piece 0). */
int ata_bio_build_tf(const struct ata_device *dev, const struct ata_bio *bio, unsigned tag,
                     struct ata_taskfile *tf)
{
    uint64_t lba = bio->lba + (bio->q_piece ? bio->q_done : 0);
    uint32_t n = bio->q_piece ? bio->q_piece : bio->n_sectors;
    bool write = bio->op == ATA_BIO_WRITE;
    enum ata_io_mode mode;
    bool lba28, fua;
    int rc;

    if (bio->op == ATA_BIO_PACKET) {
        const struct ata_packet *pc = bio->packet;

        if (dev->class != ATA_DEV_ATAPI)
            return -EOPNOTSUPP;
        if (!pc || (pc->dir == ATA_PACKET_NONE) != (pc->len == 0))
            return -EINVAL;
        atapi_build_tf(dev, pc->len, atapi_use_dma(dev, pc), pc->byte_count, tf);
        return 0;
    }
    ata_tf_init(dev, tf);
    if ((dev->class != ATA_DEV_ATA && dev->class != ATA_DEV_ZAC) || !(dev->flags & ATA_DFLAG_LBA))
        return -EOPNOTSUPP;

    if (bio->op == ATA_BIO_TASKFILE)
        return bio_build_taskfile(dev, bio, tf);
    /* a flush, or the FLUSH CACHE that makes a FUA write durable where the write had no FUA */
    if (bio->op == ATA_BIO_FLUSH || bio->q_postflush) {
        if (n && bio->op == ATA_BIO_FLUSH)
            return -EINVAL;
        tf->protocol = ATA_PROT_NODATA;
        tf->command = (dev->flags & ATA_DFLAG_FLUSH_EXT) ? ATA_CMD_FLUSH_EXT : ATA_CMD_FLUSH;
        return 0;
    }
    if (bio->op == ATA_BIO_TRIM)
        return ata_trim_build_tf(dev, bio, tag, tf);
    if (bio->op != ATA_BIO_READ && !write)
        return -EINVAL;
    if (!n || n > (bio->q_piece ? dev->max_sectors : cmd_limit(dev)) || lba >= dev->n_sectors ||
        n > dev->n_sectors - lba)
        return -EINVAL;
    rc = select_mode(dev, bio->mode, &mode);
    if (rc)
        return rc;
    if (write)
        tf->flags |= ATA_TFLAG_WRITE;
    /* FUA as libata builds it: the FPDMA command's FUA bit (Device bit 7), WRITE DMA FUA EXT,
     * WRITE MULTIPLE FUA EXT (both LBA48 only); PIO without multiple mode has no FUA command,
     * so such a write is followed by a flush (ata_bio_qc_complete) */
    fua = write && bio->fua && (dev->flags & ATA_DFLAG_FUA) && (mode != ATA_IO_PIO || dev->multi_count);

    if (mode == ATA_IO_NCQ) {
        tf->protocol = ATA_PROT_NCQ;
        tf->flags |= ATA_TFLAG_LBA48;
        tf->command = write ? ATA_CMD_FPDMA_WRITE : ATA_CMD_FPDMA_READ;
        tf->nsect = (uint8_t)(tag << 3);
        tf->feature = (uint8_t)n;
        tf->hob_feature = (uint8_t)(n >> 8);
        tf_set_lba48(tf, lba);
        tf->device = ATA_LBA | (fua ? 1u << 7 : 0);
        return 0;
    }

    lba28 = !fua && lba + n < (1u << 28) - 1 && n <= ATA_MAX_SECTORS;
    if (!lba28 && !(dev->flags & ATA_DFLAG_LBA48))
        return -EINVAL;
    tf->protocol = mode == ATA_IO_DMA ? ATA_PROT_DMA : ATA_PROT_PIO;
    tf->command = rw_cmds[mode == ATA_IO_DMA ? 2 : dev->multi_count ? 0 : 1][!lba28][write];
    if (fua)
        tf->command = mode == ATA_IO_DMA ? ATA_CMD_WRITE_FUA_EXT : ATA_CMD_WRITE_MULTI_FUA_EXT;
    tf->nsect = (uint8_t)n; /* 256 (28-bit) and 65536 (48-bit) encode as 0 */
    if (lba28) {
        tf->lbah = (uint8_t)(lba >> 16);
        tf->lbam = (uint8_t)(lba >> 8);
        tf->lbal = (uint8_t)lba;
        tf->device |= (uint8_t)((lba >> 24) & 0xf);
    } else {
        tf->flags |= ATA_TFLAG_LBA48;
        tf->hob_nsect = (uint8_t)(n >> 8);
        tf_set_lba48(tf, lba);
    }
    tf->device |= ATA_LBA;
    return 0;
}

uint32_t ata_bio_sect_size(const struct ata_device *dev, const struct ata_bio *bio)
{
    return bio->op == ATA_BIO_READ || bio->op == ATA_BIO_WRITE ? ata_dev_sector_size(dev) : ATA_SECT_SIZE;
}

/* ---- splitting at the device's max_sectors ---- */

static bool bio_split(const struct ata_device *dev, const struct ata_bio *bio)
{
    return bio->op != ATA_BIO_FLUSH && bio->op != ATA_BIO_TASKFILE && bio->op != ATA_BIO_TRIM && bio->op != ATA_BIO_PACKET &&
           !bio->q_postflush && (bio->q_done || bio->n_sectors > dev->max_sectors);
}

/* The next piece of a split request, from sector `done` on: at most max_sectors, and no more
 * than ATA_SPLIT_SG_MAX entries of the request's sg describe (cut back to a whole sector).
 * Fills out[] with its sg (*n_out entries); returns its sectors, 0 if not one sector fits. */
static uint32_t bio_piece(const struct ata_device *dev, const struct ata_bio *bio, uint32_t done,
                          struct ata_sg *out, unsigned *n_out)
{
    const uint32_t ss = ata_bio_sect_size(dev, bio);
    uint32_t want = bio->n_sectors - done;
    uint64_t skip = (uint64_t)done * ss, left, got = 0, keep, acc = 0;
    unsigned n = 0, k = 0;

    if (want > dev->max_sectors)
        want = dev->max_sectors;
    left = (uint64_t)want * ss;
    for (unsigned i = 0; i < bio->n_sg && left && n < ATA_SPLIT_SG_MAX; i++) {
        uint64_t len = bio->sg[i].len;

        if (skip >= len) {
            skip -= len;
            continue;
        }
        len -= skip;
        if (len > left)
            len = left;
        out[n].bus = bio->sg[i].bus + skip;
        out[n].len = (uint32_t)len;
        n++;
        skip = 0;
        got += len;
        left -= len;
    }
    keep = got - got % ss;
    while (k < n && acc < keep) {
        if (acc + out[k].len > keep)
            out[k].len = (uint32_t)(keep - acc);
        acc += out[k].len;
        k++;
    }
    *n_out = k;
    return (uint32_t)(keep / ss);
}

int ata_bio_check(const struct ata_port *ap, const struct ata_device *dev, const struct ata_bio *bio)
{
    struct ata_taskfile tf;
    int rc;

    if (!bio->done)
        return -EINVAL;
    rc = ata_bio_build_tf(dev, bio, 0, &tf);
    if (rc)
        return rc;
    if (tf.protocol == ATA_PROT_NODATA)
        return 0;
    /* a buffer the controller cannot address (the kernel's DMA API would bounce it) */
    for (unsigned i = 0; ap->dma_mask && i < bio->n_sg; i++)
        if (bio->sg[i].len && bio->sg[i].bus + bio->sg[i].len - 1 > ap->dma_mask)
            return -EINVAL;
    if (bio->op == ATA_BIO_TRIM)
        return ata_sg_split(bio->sg, bio->n_sg, ATA_TRIM_PAYLOAD, ap->seg_max_bytes, ap->max_segs, NULL, NULL) < 0
                   ? -EINVAL
                   : 0;
    if (bio->op == ATA_BIO_PACKET)
        return ata_sg_split(bio->sg, bio->n_sg, bio->packet->len, ap->seg_max_bytes, ap->max_segs, NULL, NULL) < 0
                   ? -EINVAL
                   : 0;
    rc = ata_sg_split(bio->sg, bio->n_sg, bio->n_sectors * ata_bio_sect_size(dev, bio), ap->seg_max_bytes,
                      bio_split(dev, bio) ? ~0u : ap->max_segs, NULL, NULL);
    if (rc < 0 || !bio_split(dev, bio))
        return rc < 0 ? rc : 0;
    /* every piece must be describable, and fit the controller */
    for (uint32_t done = 0; done < bio->n_sectors;) {
        struct ata_sg piece[ATA_SPLIT_SG_MAX];
        unsigned n_sg;
        uint32_t n = bio_piece(dev, bio, done, piece, &n_sg);

        if (!n)
            return -EINVAL;
        rc = ata_sg_split(piece, n_sg, n * ata_bio_sect_size(dev, bio), ap->seg_max_bytes, ap->max_segs, NULL, NULL);
        if (rc < 0)
            return rc;
        done += n;
    }
    return 0;
}

/* ---- deferral and issue ---- */

/* An NCQ command waits while a non-NCQ command is active, the device queue is full, or its
 * tag is beyond the device's queue depth (the tag pool is the port's, shared by the links
 * behind a port multiplier: a shallow disk waits for a tag below its depth, as ACS's FPDMA
 * TAG rule requires); a non-NCQ command waits while anything is active. */
bool ata_std_qc_defer(const struct ata_queued_cmd *qc)
{
    const struct ata_link *link = qc->dev->link;

    if (ata_is_ncq(&qc->tf))
        return link->active_tag != ATA_TAG_NONE || link->nr_ncq >= qc->dev->ncq_depth ||
               qc->tag >= qc->dev->ncq_depth;
    return link->active_tag != ATA_TAG_NONE || link->sactive;
}

/* A request's command is finished (its completion callback, lock held): the result goes
 * on the done list, whose callbacks ata_port_process runs outside the lock.
 * A split request's pieces are the block layer's separate requests of one bio (bio_split
 * chains them to the parent): a piece that fails does not stop the others, each is issued
 * in turn (the next piece goes first, as the block layer's next request of the split would,
 * with a fresh retry budget), and the bio ends when the last one has, with the first
 * failed piece's result (bio_chain_endio keeps the first error). Only a device gone away
 * ends it at once: its later pieces could only fail for want of a device. */
/* Whether a write command went out with FUA. */
static bool ata_qc_fua(const struct ata_queued_cmd *qc)
{
    return qc->tf.command == ATA_CMD_WRITE_FUA_EXT || qc->tf.command == ATA_CMD_WRITE_MULTI_FUA_EXT ||
           (qc->tf.command == ATA_CMD_FPDMA_WRITE && (qc->tf.device & (1u << 7)));
}

static void ata_bio_qc_complete(struct ata_queued_cmd *qc)
{
    struct ata_bio *bio = qc->bio;

    if (bio->op == ATA_BIO_PACKET) {
        bio->packet->dma = qc->tf.protocol == ATAPI_PROT_DMA;
        /* CHECK CONDITION when the command failed; with the sense EH read, err_mask is 0
         * (libata hands the SCSI layer the sense, not an ATA error) */
        bio->packet->status = qc->err_mask || (qc->flags & ATA_QCFLAG_SENSE_VALID) ? 0x02 : 0x00;
    }
    if (!bio->q_piece || !bio->err_mask) {
        bio->err_mask = qc->err_mask;
        bio->status = qc->result_tf.command;
        bio->error = qc->result_tf.feature;
        bio->tag = qc->tag;
        {
            const struct ata_taskfile *rtf = &qc->result_tf;

            bio->result = (struct ata_bio_regs){
                .command = rtf->command, .feature = rtf->feature, .nsect = rtf->nsect, .lbal = rtf->lbal,
                .lbam = rtf->lbam, .lbah = rtf->lbah, .device = rtf->device, .hob_feature = rtf->hob_feature,
                .hob_nsect = rtf->hob_nsect, .hob_lbal = rtf->hob_lbal, .hob_lbam = rtf->hob_lbam,
                .hob_lbah = rtf->hob_lbah, .lba48 = (qc->tf.flags & ATA_TFLAG_LBA48) != 0,
            };
        }
    }
    if (bio->q_piece && bio->q_done + bio->q_piece < bio->n_sectors && !(qc->err_mask & AC_ERR_NODEV_HINT)) {
        bio->q_done += bio->q_piece;
        bio->q_piece = 0;
        bio->q_retries = 0;
        ata_bio_requeue_front(qc->ap, bio);
        return;
    }
    /* A FUA write that went out without FUA: the block layer's flush machinery follows it
     * with a flush (REQ_FSEQ_POSTFLUSH) when the device has a write cache enabled, and the
     * request ends when that does (with its result) */
    if (bio->op == ATA_BIO_WRITE && bio->fua && !bio->q_postflush && !bio->err_mask && !ata_qc_fua(qc) &&
        (qc->dev->flags & ATA_DFLAG_WCACHE)) {
        bio->q_postflush = true;
        bio->q_piece = 0;
        bio->q_retries = 0;
        ata_bio_requeue_front(qc->ap, bio);
        return;
    }
    q_push_back(&qc->ap->done, bio);
}

void ata_bio_fail(struct ata_port *ap, struct ata_bio *bio, unsigned err_mask)
{
    bio->err_mask = err_mask;
    bio->status = 0;
    bio->error = 0;
    bio->tag = ATA_TAG_NONE;
    q_push_back(&ap->done, bio);
}

/* Issue waiting requests in order; the first one that cannot go blocks the rest. */
void ata_port_kick(struct ata_port *ap)
{
    struct ata_bio *bio;

    if (ap->pflags & (ATA_PFLAG_FROZEN | ATA_PFLAG_EH_PENDING | ATA_PFLAG_EH_IN_PROGRESS |
                      ATA_PFLAG_UNLOADING))
        return;
    while ((bio = ap->pending.head)) {
        struct ata_device *dev = bio->q_dev;
        struct ata_queued_cmd *qc;
        int tag;

        /* disabled or detached since it was queued: a no-device error, never an issue */
        if (!ata_dev_enabled(dev)) {
            ata_bio_fail(ap, q_pop_front(&ap->pending), AC_ERR_NODEV_HINT);
            continue;
        }
        tag = bio->want_tag ? ata_tag_get_wanted(&ap->tags, bio->blk_tag) : ata_tag_get(&ap->tags);
        if (tag < 0)
            break;
        qc = &ap->qcmd[tag];
        qc->dev = dev;
        qc->bio = bio;
        qc->complete_fn = ata_bio_qc_complete;
        if (bio->q_postflush) {
            bio->q_piece = 0;
            qc->sg = NULL;
            qc->n_sg = 0;
        } else if (bio_split(dev, bio)) {
            bio->q_piece = bio_piece(dev, bio, bio->q_done, qc->split_sg, &bio->q_piece_sg);
            qc->sg = qc->split_sg;
            qc->n_sg = bio->q_piece_sg;
        } else {
            bio->q_piece = 0;
            qc->sg = bio->sg;
            qc->n_sg = bio->n_sg;
        }
        qc->nbytes = bio->q_postflush           ? 0
                     : bio->op == ATA_BIO_TRIM ? ATA_TRIM_PAYLOAD
                                               : (bio->q_piece ? bio->q_piece : bio->n_sectors) * ata_bio_sect_size(dev, bio);
        qc->sect_size = ata_bio_sect_size(dev, bio);
        memset(qc->cdb, 0, sizeof(qc->cdb));
        if (bio->op == ATA_BIO_PACKET) {
            qc->nbytes = bio->packet->len;
            memcpy(qc->cdb, bio->packet->cdb, sizeof(qc->cdb));
        }
        /* rebuilt at issue: EH may have changed the device (NCQ off, mode) meanwhile */
        if ((bio_split(dev, bio) && !bio->q_piece) || ata_bio_build_tf(dev, bio, (unsigned)tag, &qc->tf)) {
            ata_tag_put(&ap->tags, (unsigned)tag);
            ata_bio_fail(ap, q_pop_front(&ap->pending), AC_ERR_INVALID);
            continue;
        }
        if (ap->ops->qc_defer(qc)) {
            ata_tag_put(&ap->tags, (unsigned)tag);
            break;
        }
        q_pop_front(&ap->pending);
        ata_qc_issue(qc);
    }
}

void ata_port_process(struct ata_port *ap)
{
    struct ata_host *h = ap->host;
    struct ata_bio *bio;

    ata_lock(h);
    ata_port_kick(ap);
    bio = ap->done.head;
    ap->done.head = ap->done.tail = NULL;
    ata_unlock(h);

    while (bio) {
        struct ata_bio *next = bio->q_next;

        bio->q_next = NULL;
        bio->q_dev = NULL;
        bio->done(bio); /* may resubmit this very bio */
        bio = next;
    }
}

/* The block layer's request flags, as the requests satasim's
 * submitters stand for carry them (blk_types.h, 6.1): a fail-fast request is readahead's
 * (REQ_RAHEAD | REQ_FAILFAST_DEV | _TRANSPORT | _DRIVER = 0x80700), a write is a direct
 * or synchronous one's (REQ_SYNC = 0x800), a read a plain buffered one's (0). */
enum { BLK_REQ_FAILFAST_MASK = 0x700u, BLK_REQ_SYNC = 1u << 11, BLK_REQ_FUA = 1u << 17, BLK_REQ_RAHEAD = 1u << 19 };

/* A FUA write keeps REQ_FUA where the device takes FUA commands; elsewhere the flush
 * machinery takes it off the data request (its post-flush does the job). */
static uint32_t ata_bio_default_flags(const struct ata_device *dev, const struct ata_bio *bio)
{
    if (bio->fail_fast)
        return BLK_REQ_RAHEAD | BLK_REQ_FAILFAST_MASK;
    if (bio->op == ATA_BIO_PACKET)
        return 0;
    if (bio->op != ATA_BIO_WRITE)
        return 0;
    return BLK_REQ_SYNC | (bio->fua && (dev->flags & ATA_DFLAG_FUA) ? BLK_REQ_FUA : 0);
}

int ata_bio_submit(struct ata_device *dev, struct ata_bio *bio)
{
    struct ata_port *ap;
    int rc;

    if (!dev)
        return -ENODEV;
    if (!bio)
        return -EINVAL;
    ap = dev->link->ap;
    bio->q_postflush = false; /* (a bio resubmitted from its done() may still say otherwise) */

    ata_lock(ap->host);
    if (!ata_dev_enabled(dev) || (ap->pflags & ATA_PFLAG_UNLOADING))
        rc = -ENODEV;
    else
        rc = ata_bio_check(ap, dev, bio);
    if (!rc && bio->op == ATA_BIO_TRIM)
        rc = ata_trim_fill_payload(ap, bio);
    if (!rc) {
        bio->err_mask = 0;
        bio->status = bio->error = 0;
        bio->tag = ATA_TAG_NONE;
        bio->q_dev = dev;
        bio->q_retries = 0;
        bio->q_done = bio->q_piece = 0;
        bio->q_piece_sg = 0;
        if (bio->op == ATA_BIO_PACKET) {
            bio->packet->status = 0;
            bio->packet->sense_len = 0;
            memset(bio->packet->sense, 0, sizeof(bio->packet->sense));
        }
        bio->blk_flags = ata_bio_default_flags(dev, bio);
        q_push_back(&ap->pending, bio);
    }
    ata_unlock(ap->host);

    if (!rc)
        ata_port_process(ap);
    return rc;
}
