/* TRIM (DATA SET MANAGEMENT 06h): the range list and the command, as libata builds them for
 * a discard (its ata_scsi_write_same_xlat and ata_format_dsm_trim_descr, facts only: one
 * 512-byte block of 64 entries, each 8 bytes little-endian, LBA in bits 47:0 and the sector
 * count in bits 63:48, at most 0xffff per entry, the unused entries zero; READ/WRITE DMA
 * style DATA OUT, Feature 01h, Count the number of blocks). */
#include <string.h>

#include "internal.h"

/* libata's ata_id_has_trim: word 169 bit 0, believed from ACS-2 (major version 7) on */
bool ata_id_has_trim(const uint16_t *id)
{
    return ata_id_major_version(id) >= 7 && (id[169] & 0x0001);
}

bool ata_trim_supported(const struct ata_device *dev)
{
    return dev && ata_id_has_trim(dev->id);
}

bool ata_trim_reads_zeroes(const struct ata_device *dev)
{
    return ata_trim_supported(dev) && (dev->id[69] & 0x4020) == 0x4020;
}

/* The range list of [lba, lba + n) into buf (ATA_TRIM_PAYLOAD bytes). */
void ata_trim_format(uint8_t *buf, uint64_t lba, uint32_t n)
{
    memset(buf, 0, ATA_TRIM_PAYLOAD);
    for (unsigned i = 0; n && i < ATA_TRIM_RANGES; i++) {
        uint32_t take = n > 0xffff ? 0xffff : n;
        uint64_t v = (lba & 0xffffffffffffull) | (uint64_t)take << 48;

        for (unsigned k = 0; k < 8; k++)
            buf[i * 8 + k] = (uint8_t)(v >> (8 * k));
        lba += take;
        n -= take;
    }
}

int ata_trim_build_tf(const struct ata_device *dev, const struct ata_bio *bio, struct ata_taskfile *tf)
{
    if (!ata_trim_supported(dev))
        return -EOPNOTSUPP;
    if (!(dev->flags & ATA_DFLAG_DMA) || !(dev->flags & ATA_DFLAG_LBA48))
        return -EOPNOTSUPP;
    if (!bio->n_sectors || bio->n_sectors > ATA_TRIM_MAX_SECTORS || bio->lba >= dev->n_sectors ||
        bio->n_sectors > dev->n_sectors - bio->lba)
        return -EINVAL;
    tf->protocol = ATA_PROT_DMA;
    tf->flags |= ATA_TFLAG_LBA48 | ATA_TFLAG_WRITE;
    tf->command = ATA_CMD_DSM;
    tf->feature = 0x01; /* TRIM */
    tf->nsect = ATA_TRIM_PAYLOAD / ATA_SECT_SIZE;
    tf->hob_nsect = 0;
    tf->device |= ATA_LBA;
    return 0;
}

/* At submit: the payload buffer is the caller's (sd's page); the list goes into it. */
int ata_trim_fill_payload(const struct ata_port *ap, const struct ata_bio *bio)
{
    const struct ata_host *h = ap->host;
    uint8_t block[ATA_TRIM_PAYLOAD];
    size_t done = 0;

    if (!bio->sg || !h->pops->dma_cpu_addr)
        return -EINVAL;
    ata_trim_format(block, bio->lba, bio->n_sectors);
    for (unsigned i = 0; i < bio->n_sg && done < sizeof(block); i++) {
        size_t len = bio->sg[i].len < sizeof(block) - done ? bio->sg[i].len : sizeof(block) - done;
        uint8_t *dst = h->pops->dma_cpu_addr(h->plat, bio->sg[i].bus, len);

        if (!dst)
            return -EINVAL;
        memcpy(dst, block + done, len);
        done += len;
    }
    return done == sizeof(block) ? 0 : -EINVAL;
}
