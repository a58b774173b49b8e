/* ATAPI in the core: a PACKET command's taskfile and the DMA choice (libata's atapi_xlat and
 * atapi_check_dma, their rules only). The PIO byte count is what the host offers per DRQ
 * block (LBA mid/high): the transfer length, at most 63 KiB; a DMA command carries DMADIR
 * when the device or libata.atapi_dmadir asks for it. */
#include "internal.h"

bool atapi_use_dma(const struct ata_device *dev, const struct ata_packet *pc)
{
    /* DMA needs a DMA transfer mode, data, and a length in whole 16-byte units (libata's
     * atapi_check_dma: controllers and bridges that mishandle the rest) */
    return !pc->pio && (dev->flags & ATA_DFLAG_DMA) && pc->dir == ATA_PACKET_FROM_DEV && pc->len &&
           !(pc->len & 15);
}

void atapi_build_tf(const struct ata_device *dev, uint32_t nbytes, bool dma, uint16_t byte_count,
                    struct ata_taskfile *tf)
{
    uint32_t bc = byte_count ? byte_count : nbytes;

    ata_tf_init(dev, tf);
    tf->command = ATA_CMD_PACKET;
    if (bc > ATAPI_MAX_BYTE_COUNT)
        bc = ATAPI_MAX_BYTE_COUNT;
    tf->lbam = (uint8_t)bc;
    tf->lbah = (uint8_t)(bc >> 8);
    if (!nbytes) {
        tf->protocol = ATAPI_PROT_NODATA;
        return;
    }
    if (dma) {
        tf->protocol = ATAPI_PROT_DMA;
        tf->feature = ATAPI_PKT_DMA;
        if (dev->flags & ATA_DFLAG_DMADIR)
            tf->feature |= ATAPI_DMADIR; /* data-in: DMADIR set means to the host */
        return;
    }
    tf->protocol = ATAPI_PROT_PIO;
}
