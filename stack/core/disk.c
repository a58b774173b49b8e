/* The block layer's view of the attached disks: their names (sda, sdb, ... as the SCSI disk
 * driver hands them out: the lowest free index at attach, freed at detach) and the line the
 * block layer logs when it finally fails a request (Linux 6.1 blk_print_req_error:
 * "I/O error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2"). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "sat.h"

/* Linux's req_op values and the REQ_SYNC flag bit (blk_types.h: op in bits 0..7, then the
 * flags, REQ_SYNC = bit 11), as the I/O error line prints them. */
enum { REQ_OP_READ = 0, REQ_OP_WRITE = 1, REQ_OP_DISCARD = 3, REQ_SYNC_BIT = 1u << 11 };
/* a task's default I/O priority class (IOPRIO_CLASS_BE from its nice level, 6.x) */
enum { IOPRIO_CLASS_BE = 2 };

/* The names this host hands out from: the machine's (shared by its hosts) or its own. */
static struct ata_disk_names *disk_names(struct ata_host *h)
{
    return h->disk_names ? h->disk_names : &h->own_names;
}

void ata_disk_attach(struct ata_device *dev)
{
    struct ata_host *h = dev->link->ap->host;

    /* sd takes disks only (an ATAPI device is sr0, a PMP has no block device); a port's boot
     * probe leaves naming to the scan in port order after every port's probe */
    if (dev->disk || (dev->class != ATA_DEV_ATA && dev->class != ATA_DEV_ZAC) ||
        dev->link->ap->boot_probing)
        return;
    for (unsigned i = 0; i < ATA_MAX_DISKS; i++) {
        uint64_t bit = 1ull << (i % 64);

        if (!(disk_names(h)->used[i / 64] & bit)) {
            disk_names(h)->used[i / 64] |= bit;
            dev->disk = i + 1;
            return;
        }
    }
}

/* The scan after the boot probe: every enabled disk by port, then by fan-out port. */
void ata_disk_attach_all(struct ata_host *h)
{
    ata_lock(h);
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];

        for (int l = -1; l < (int)ap->nr_pmp_links; l++) {
            struct ata_link *link = l < 0 ? &ap->link : &ap->pmp_link[l];

            for (unsigned d = 0; d < ata_link_max_devices(link); d++)
                if (ata_dev_enabled(&link->device[d]))
                    ata_disk_attach(&link->device[d]);
        }
    }
    ata_unlock(h);
}

void ata_disk_detach(struct ata_device *dev)
{
    struct ata_host *h = dev->link->ap->host;

    if (!dev->disk)
        return;
    disk_names(h)->used[(dev->disk - 1) / 64] &= ~(1ull << ((dev->disk - 1) % 64));
    dev->disk = 0;
}

/* "sd" + the index in bijective base 26: 0 = sda, 25 = sdz, 26 = sdaa, 701 = sdzz, 702 = sdaaa. */
void ata_disk_name(const struct ata_device *dev, char *buf, size_t len)
{
    char rev[8];
    size_t n = 0;
    long idx = dev->disk ? (long)dev->disk - 1 : -1;

    if (idx < 0 || len < 3) {
        snprintf(buf, len, "?");
        return;
    }
    do {
        rev[n++] = (char)('a' + idx % 26);
        idx = idx / 26 - 1;
    } while (idx >= 0 && n < sizeof(rev));
    if (n + 3 > len)
        n = len - 3;
    buf[0] = 's';
    buf[1] = 'd';
    for (size_t i = 0; i < n; i++)
        buf[2 + i] = rev[n - 1 - i];
    buf[2 + n] = '\0';
}

/* The SCSI sense key libata's translation gives an ATA result: the SAT layer's table
 * (scsi/sat_sense.c, libata's ata_to_sense_error). Only the two keys sd's completion treats
 * as "part of the request went through" are told apart here. */
enum blk_sense { SENSE_OTHER, SENSE_MEDIUM, SENSE_HARDWARE };

static enum blk_sense blk_sense_of(uint8_t status, uint8_t error)
{
    uint8_t sk, asc, ascq;

    sat_ata_to_sense(status, error, &sk, &asc, &ascq);
    return sk == SCSI_SK_MEDIUM_ERROR ? SENSE_MEDIUM : sk == SCSI_SK_HARDWARE_ERROR ? SENSE_HARDWARE : SENSE_OTHER;
}

/* The LBA a result taskfile names (libata's ata_tf_read_block, LBA addressing). */
static uint64_t rtf_lba(const struct ata_taskfile *tf)
{
    uint64_t lba = (uint64_t)tf->lbah << 16 | (uint64_t)tf->lbam << 8 | tf->lbal;

    if (tf->flags & ATA_TFLAG_LBA48)
        return lba | (uint64_t)tf->hob_lbah << 40 | (uint64_t)tf->hob_lbam << 32 | (uint64_t)tf->hob_lbal << 24;
    return lba | (uint64_t)(tf->device & 0xf) << 24;
}

/* The sector the block layer's line names for a failed read/write command: the request's
 * (a split request's piece's: the block layer's request is that piece) start, advanced past
 * the sectors that went through. sd's completion (sd_completed_bytes, Linux 6.1) takes those
 * from the sense data libata builds: for a MEDIUM ERROR or HARDWARE ERROR sense key whose
 * information field (the LBA in the result taskfile) lies inside a request of more than one
 * sector, the sectors before it complete and the request fails from that LBA on. Only device
 * errors are read this way: after a timeout or a host error the result taskfile holds
 * whatever the reset left there, and the start is printed (docs/controllers.md). */
static uint64_t req_error_sector(const struct ata_queued_cmd *qc)
{
    const struct ata_bio *bio = qc->bio;
    const uint64_t start = bio->lba + (bio->q_piece ? bio->q_done : 0);
    const uint32_t n = bio->q_piece ? bio->q_piece : bio->n_sectors;
    uint64_t bad;

    if (!(qc->err_mask & (AC_ERR_DEV | AC_ERR_MEDIA)) || n <= 1 ||
        blk_sense_of(qc->result_tf.command, qc->result_tf.feature) == SENSE_OTHER)
        return start;
    bad = rtf_lba(&qc->result_tf);
    return bad >= start && bad < start + n ? bad : start;
}

/* The request the block layer gives up on. A cache flush is the empty REQ_OP_WRITE with
 * PREFLUSH that blkdev_issue_flush sends: the flush machinery turns PREFLUSH into REQ_SYNC
 * and the request has no data, so the line reads "sector 0 op 0x1:(WRITE) flags 0x800
 * phys_seg 0". A discard (ATA_BIO_TRIM) is REQ_OP_DISCARD, its payload one special segment. */
void ata_blk_print_req_error(const struct ata_queued_cmd *qc)
{
    struct ata_device *dev = qc->dev;
    const struct ata_bio *bio = qc->bio;
    bool flush = bio->op == ATA_BIO_FLUSH || bio->q_postflush;
    bool discard = bio->op == ATA_BIO_TRIM;
    unsigned op = bio->op == ATA_BIO_READ ? REQ_OP_READ : discard ? REQ_OP_DISCARD : REQ_OP_WRITE;
    unsigned flags = bio->blk_flags | (flush ? REQ_SYNC_BIT : 0);
    const uint32_t ss = ata_dev_sector_size(dev);
    const uint64_t lba = flush ? 0 : discard ? bio->lba : req_error_sector(qc);
    /* the block layer counts in 512-byte sectors whatever the disk's logical block
     * (blk_rq_pos): a 4Kn disk's LBA 100 is sector 800 */
    unsigned long long sector = (unsigned long long)(lba * (ss / ATA_SECT_SIZE));
    unsigned phys_seg = discard ? 1 : 0;
    char disk[16];

    /* the segments left of the request: the block layer recounts them after the part that
     * went through (all of the request's when none did) */
    if (!flush && !discard) {
        const uint64_t skip = (lba - (bio->lba + (bio->q_piece ? bio->q_done : 0))) * ss;
        uint64_t end = 0;

        for (unsigned i = 0; i < qc->n_sg; i++) {
            end += qc->sg[i].len;
            phys_seg += end > skip;
        }
    }

    ata_disk_name(dev, disk, sizeof(disk));
    {
        const struct sata_trace_field f[] = {
            TF_STR("disk", disk),        TF_INT("sector", (int64_t)sector), TF_HEX("op", op),
            TF_HEX("flags", flags),      TF_INT("phys_seg", phys_seg),
            TF_INT("prio_class", IOPRIO_CLASS_BE),
        };
        ata_dev_ev(dev, ATA_EV("blk.io_error", SATA_TC_DECISION, SATA_LOG_ERR, f),
                   "I/O error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u", disk,
                   sector, op, op == REQ_OP_READ ? "READ" : discard ? "DISCARD" : "WRITE", flags, phys_seg, IOPRIO_CLASS_BE);
    }
}
