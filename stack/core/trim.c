/* TRIM (DATA SET MANAGEMENT 06h): the range list and the command, as libata builds them for
 * a discard (its ata_scsi_write_same_xlat and ata_format_dsm_trim_descr, facts only: one
 * 512-byte block of 64 entries, each 8 bytes little-endian, LBA in bits 47:0 and the sector
 * count in bits 63:48, at most 0xffff per entry, the unused entries zero; READ/WRITE DMA
 * style DATA OUT, Feature 01h, Count the number of blocks).
 * Queued TRIM (SEND FPDMA QUEUED 64h, subcommand DSM) as libata chooses it: on a host that
 * sends the H2D FIS's Auxiliary field (ATA_FLAG_FPDMA_AUX), with NCQ in use, when IDENTIFY
 * word 77 bit 6 offers NCQ SEND/RECEIVE, the log directory lists log 13h and that log says
 * DSM TRIM, unless the device carries the NO_NCQ_TRIM horkage (its model in libata's list,
 * or libata.force=noncqtrim), which clears the TRIM bit it keeps of the log. */
#include <stdio.h>
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

/* libata's ata_fpdma_dsm_supported: the log 13h copy says DSM TRIM (what the horkage clears) */
bool ata_fpdma_trim_supported(const struct ata_device *dev)
{
    return (dev->flags & ATA_DFLAG_NCQ_SEND_RECV) &&
           (dev->ncq_send_recv_cmds[ATA_LOG_NCQ_SEND_RECV_DSM_OFFSET] & ATA_LOG_NCQ_SEND_RECV_DSM_TRIM);
}

/* Drives libata's device list marks ATA_HORKAGE_NO_NCQ_TRIM (queued TRIM corrupts data or
 * fails on them), by IDENTIFY model, as its glob patterns: a few of its entries. */
static const char *const no_ncq_trim_models[] = {
    "Micron_M500_*", "Crucial_CT*M500*", "Micron_M5[15]0_*", "Crucial_CT*M550*", "Crucial_CT*MX100*",
    "Samsung SSD 840*", "Samsung SSD 850*", "FCCT*M500*",
};

/* '*' any run, '[...]' one of the listed characters, anything else itself */
static bool glob_match(const char *pat, const char *s)
{
    for (; *pat; pat++, s++) {
        if (*pat == '*') {
            for (;; s++) {
                if (glob_match(pat + 1, s))
                    return true;
                if (!*s)
                    return false;
            }
        }
        if (!*s)
            return false;
        if (*pat == '[') {
            const char *end = strchr(pat, ']');
            bool hit = false;

            if (!end)
                return false;
            for (const char *c = pat + 1; c < end; c++)
                hit = hit || *c == *s;
            if (!hit)
                return false;
            pat = end;
        } else if (*pat != *s) {
            return false;
        }
    }
    return !*s;
}

bool ata_model_no_ncq_trim(const char *model)
{
    for (size_t i = 0; i < ATA_ARRAY_SIZE(no_ncq_trim_models); i++)
        if (glob_match(no_ncq_trim_models[i], model))
            return true;
    return false;
}

void ata_dev_config_ncq_send_recv(struct ata_device *dev, bool no_ncq_trim, bool print)
{
    const uint8_t *buf = dev->link->ap->log_buf.cpu;

    memset(dev->ncq_send_recv_cmds, 0, sizeof(dev->ncq_send_recv_cmds));
    /* libata's ata_log_supported: the directory's entry for the log counts its pages */
    if (ata_read_log_page(dev, ATA_LOG_DIRECTORY, 0, print) ||
        !(buf[2 * ATA_LOG_NCQ_SEND_RECV] | buf[2 * ATA_LOG_NCQ_SEND_RECV + 1])) {
        if (print)
            ata_dev_ev(dev, ATA_EV0("probe.ncq_send_recv_missing", SATA_TC_DECISION, SATA_LOG_WARN),
                       "NCQ Send/Recv Log not supported");
        return;
    }
    if (ata_read_log_page(dev, ATA_LOG_NCQ_SEND_RECV, 0, print))
        return;
    dev->flags |= ATA_DFLAG_NCQ_SEND_RECV;
    memcpy(dev->ncq_send_recv_cmds, buf, sizeof(dev->ncq_send_recv_cmds));
    if (no_ncq_trim && (dev->ncq_send_recv_cmds[ATA_LOG_NCQ_SEND_RECV_DSM_OFFSET] & ATA_LOG_NCQ_SEND_RECV_DSM_TRIM)) {
        dev->ncq_send_recv_cmds[ATA_LOG_NCQ_SEND_RECV_DSM_OFFSET] &= (uint8_t)~ATA_LOG_NCQ_SEND_RECV_DSM_TRIM;
        if (print)
            ata_dev_ev(dev, ATA_EV0("probe.no_ncq_trim", SATA_TC_DECISION, SATA_LOG_DEBUG),
                       "disabling queued TRIM support");
    }
}

int ata_trim_build_tf(const struct ata_device *dev, const struct ata_bio *bio, unsigned tag, struct ata_taskfile *tf)
{
    if (!ata_trim_supported(dev))
        return -EOPNOTSUPP;
    if (!(dev->flags & ATA_DFLAG_DMA) || !(dev->flags & ATA_DFLAG_LBA48))
        return -EOPNOTSUPP;
    if (!bio->n_sectors || bio->n_sectors > ATA_TRIM_MAX_SECTORS || bio->lba >= dev->n_sectors ||
        bio->n_sectors > dev->n_sectors - bio->lba)
        return -EINVAL;
    tf->flags |= ATA_TFLAG_LBA48 | ATA_TFLAG_WRITE;
    tf->device |= ATA_LBA;
    /* libata's choice: queued where NCQ is in use and the device's log says queued TRIM */
    if ((dev->flags & ATA_DFLAG_NCQ) && ata_fpdma_trim_supported(dev)) {
        tf->protocol = ATA_PROT_NCQ;
        tf->command = ATA_CMD_FPDMA_SEND;
        tf->nsect = (uint8_t)(tag << 3);
        tf->hob_nsect = ATA_SUBCMD_FPDMA_SEND_DSM & 0x1f;
        tf->feature = ATA_TRIM_PAYLOAD / ATA_SECT_SIZE;
        tf->hob_feature = 0;
        tf->auxiliary = 1; /* TRIM */
        return 0;
    }
    tf->protocol = ATA_PROT_DMA;
    tf->command = ATA_CMD_DSM;
    tf->feature = 0x01; /* TRIM */
    tf->nsect = ATA_TRIM_PAYLOAD / ATA_SECT_SIZE;
    tf->hob_nsect = 0;
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
