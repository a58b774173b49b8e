/* IDENTIFY DEVICE data (docs/hardware.md 8.3) and the configuration decisions derived from it.
 * Pure functions: no device, no platform, so every decision is unit-testable. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const xfer_names[ATA_NR_PIO + ATA_NR_MWDMA + ATA_NR_UDMA] = {
    "PIO0",     "PIO1",     "PIO2",     "PIO3",     "PIO4",     "PIO5",     "PIO6",
    "MWDMA0",   "MWDMA1",   "MWDMA2",   "MWDMA3",   "MWDMA4",
    "UDMA/16",  "UDMA/25",  "UDMA/33",  "UDMA/44",  "UDMA/66",  "UDMA/100", "UDMA/133", "UDMA7",
};

static bool is_pow2(unsigned v) { return v && !(v & (v - 1)); }

static uint32_t id_u32(const uint16_t *id, unsigned w) { return (uint32_t)id[w + 1] << 16 | id[w]; }

static uint64_t id_u64(const uint16_t *id, unsigned w)
{
    return (uint64_t)id_u32(id, w + 2) << 32 | id_u32(id, w);
}

/* Words hold two characters, high byte first; trailing blanks are dropped. len counts
 * the terminating NUL. */
void ata_id_c_string(const uint16_t *id, char *s, unsigned ofs, unsigned len)
{
    unsigned n = len - 1;

    for (unsigned i = 0; i < n; i += 2) {
        s[i] = (char)(id[ofs + i / 2] >> 8);
        if (i + 1 < n)
            s[i + 1] = (char)(id[ofs + i / 2] & 0xff);
    }
    s[n] = '\0';
    while (n && s[n - 1] == ' ')
        s[--n] = '\0';
}

bool ata_id_is_ata(const uint16_t *id) { return !(id[0] & (1u << 15)); }
bool ata_id_is_cfa(const uint16_t *id) { return id[0] == 0x848a; }
bool ata_id_has_lba(const uint16_t *id) { return id[49] & (1u << 9); }
static bool ata_id_has_dma(const uint16_t *id) { return id[49] & (1u << 8); }
bool ata_id_has_ncq(const uint16_t *id) { return id[76] & (1u << 8); }
unsigned ata_id_queue_depth(const uint16_t *id) { return (id[75] & 0x1f) + 1u; }

/* Words 83/84 and 87 mean something only when bits 15:14 read 01. */
static bool w_valid(const uint16_t *id, unsigned w) { return (id[w] & 0xc000) == 0x4000; }

bool ata_id_has_lba48(const uint16_t *id)
{
    return w_valid(id, 83) && (id[83] & (1u << 10)) && id_u64(id, 100) != 0;
}

/* The Host Protected Area feature set supported (word 82 bit 10, valid through word 83) and
 * enabled (word 85 bit 10, valid through word 87): libata's ata_id_hpa_enabled */
bool ata_id_hpa_enabled(const uint16_t *id)
{
    return w_valid(id, 83) && w_valid(id, 87) && (id[85] & (1u << 10)) && (id[82] & (1u << 10));
}

static bool ata_id_has_flush_ext(const uint16_t *id) { return w_valid(id, 83) && (id[83] & (1u << 13)); }
static bool ata_id_has_wcache(const uint16_t *id) { return id[82] != 0xffff && (id[82] & (1u << 5)); }
/* WRITE DMA FUA EXT and WRITE MULTIPLE FUA EXT supported: word 84 bit 6, in a word 84 that
 * is valid (bits 15:14 = 01) */
static bool ata_id_has_fua(const uint16_t *id) { return (id[84] & 0xC000) == 0x4000 && (id[84] & (1u << 6)); }
static bool ata_id_wcache_enabled(const uint16_t *id) { return w_valid(id, 87) && (id[85] & (1u << 5)); }

unsigned ata_id_major_version(const uint16_t *id)
{
    unsigned v;

    if (id[80] == 0xffff)
        return 0;
    for (v = 14; v >= 1; v--)
        if (id[80] & (1u << v))
            break;
    return v;
}

static bool ata_id_current_chs_valid(const uint16_t *id)
{
    return (id[53] & 1) && id[54] && id[55] && id[55] <= 16 && id[56];
}

uint64_t ata_id_n_sectors(const uint16_t *id)
{
    if (ata_id_has_lba(id))
        return ata_id_has_lba48(id) ? id_u64(id, 100) : id_u32(id, 60);
    if (ata_id_current_chs_valid(id))
        return id_u32(id, 57);
    return (uint64_t)id[1] * id[3] * id[6];
}

uint32_t ata_id_logical_sector_size(const uint16_t *id)
{
    /* D000h: valid (15:14 = 01b) and bit 12; bit 13 (several per physical) does not matter */
    if ((id[106] & 0xd000) == 0x5000)
        return ((uint32_t)id[117] | (uint32_t)id[118] << 16) * 2;
    return ATA_SECT_SIZE;
}

/* Modes the device claims: PIO from words 64/51, MWDMA word 63, UDMA word 88. */
unsigned ata_id_xfermask(const uint16_t *id)
{
    unsigned pio, mwdma = 0, udma = 0;

    if (id[53] & (1u << 1)) {
        pio = ((id[64] & 0x03u) << 3) | 0x7u;
    } else {
        unsigned mode = (id[51] >> 8) & 0xff;
        pio = mode < 5 ? (2u << mode) - 1 : 1u;
    }
    if (ata_id_has_dma(id)) {
        mwdma = id[63] & 0x07u;
        if (id[53] & (1u << 2))
            udma = id[88] & 0xffu;
    }
    return pio << ATA_SHIFT_PIO | mwdma << ATA_SHIFT_MWDMA | udma << ATA_SHIFT_UDMA;
}

int ata_xfer_mask_highest(unsigned mask)
{
    for (int bit = ATA_SHIFT_UDMA + ATA_NR_UDMA - 1; bit >= 0; bit--)
        if (mask & (1u << bit))
            return bit;
    return -1;
}

uint8_t ata_xfer_bit_to_mode(int bit)
{
    if (bit >= ATA_SHIFT_UDMA)
        return (uint8_t)(XFER_UDMA_0 + bit - ATA_SHIFT_UDMA);
    if (bit >= ATA_SHIFT_MWDMA)
        return (uint8_t)(XFER_MW_DMA_0 + bit - ATA_SHIFT_MWDMA);
    return (uint8_t)(XFER_PIO_0 + bit);
}

const char *ata_mode_string(unsigned mask)
{
    int bit = ata_xfer_mask_highest(mask);

    return bit < 0 ? "<n/a>" : xfer_names[bit];
}

const char *ata_xfer_mode_name(uint8_t mode)
{
    if (mode >= XFER_UDMA_0 && mode < XFER_UDMA_0 + ATA_NR_UDMA)
        return xfer_names[ATA_SHIFT_UDMA + mode - XFER_UDMA_0];
    if (mode >= XFER_MW_DMA_0 && mode < XFER_MW_DMA_0 + ATA_NR_MWDMA)
        return xfer_names[ATA_SHIFT_MWDMA + mode - XFER_MW_DMA_0];
    if (mode >= XFER_PIO_0 && mode < XFER_PIO_0 + ATA_NR_PIO)
        return xfer_names[mode - XFER_PIO_0];
    return "<n/a>";
}

/* Highest DMA mode if any, else highest PIO mode (PIO0 when nothing is claimed). */
static uint8_t choose_mode(unsigned mask)
{
    int dma = ata_xfer_mask_highest(mask & (ATA_MASK_MWDMA | ATA_MASK_UDMA));
    int pio = ata_xfer_mask_highest(mask & ATA_MASK_PIO);

    if (dma >= 0)
        return ata_xfer_bit_to_mode(dma);
    return pio >= 0 ? ata_xfer_bit_to_mode(pio) : XFER_PIO_0;
}

/* Multiple count: words 47 (maximum, high byte 0x80) and 59 (current, bit 8 valid), both
 * powers of two. The stack wants the maximum and sets it if the current one differs. */
static void config_multi(const uint16_t *id, struct ata_dev_config *c)
{
    unsigned max = (id[47] >> 8) == 0x80 ? id[47] & 0xffu : 0;
    unsigned cur = (id[59] & 0x100) ? id[59] & 0xffu : 0;

    c->multi_max = is_pow2(max) ? max : 0;
    c->multi_cur = is_pow2(cur) && cur <= c->multi_max ? cur : 0;
    c->multi_count = c->multi_max;
}

void ata_id_configure(const uint16_t *id, enum ata_dev_class cls, const struct ata_host_caps *hc,
                      struct ata_dev_config *c)
{
    bool atapi = cls == ATA_DEV_ATAPI;
    bool dma;

    memset(c, 0, sizeof(*c));
    c->cls = cls;
    ata_id_c_string(id, c->serial, 10, sizeof(c->serial));
    ata_id_c_string(id, c->fw, 23, sizeof(c->fw));
    ata_id_c_string(id, c->model, 27, sizeof(c->model));
    c->ata_major = ata_id_major_version(id);
    c->cfa = ata_id_is_cfa(id);

    c->dev_xfer_mask = ata_id_xfermask(id);
    c->xfer_mask = c->dev_xfer_mask & hc->xfer_mask;
    c->xfer_mode = choose_mode(c->xfer_mask);
    dma = c->xfer_mode >= XFER_MW_DMA_0;

    if (atapi) {
        c->max_sectors = ATA_MAX_SECTORS;
        c->cdb_intr = ((id[0] >> 5) & 3) == 1;
        c->dmadir = hc->atapi_dmadir || (id[62] & 0x8000);
        c->cdb_len = (id[0] & 3) == 1 ? 16 : 12;
        return;
    }

    c->lba = ata_id_has_lba(id);
    c->lba48 = c->lba && ata_id_has_lba48(id);
    c->wcache = ata_id_has_wcache(id);
    c->wcache_on = c->wcache && ata_id_wcache_enabled(id);
    c->n_sectors = ata_id_n_sectors(id);
    /* the LBAs and counts of every read and write are in logical sectors; the block layer
     * takes 512 to 4096 bytes (sd's sd_read_capacity), the rest is not modelled: 512 */
    c->sector_size = ata_id_logical_sector_size(id);
    if (c->sector_size < ATA_SECT_SIZE || c->sector_size > 4096 || !is_pow2(c->sector_size))
        c->sector_size = ATA_SECT_SIZE;
    /* libata's rule: FLUSH CACHE EXT only for a disk the 28-bit range cannot cover */
    c->flush_ext = c->lba48 && c->n_sectors >= (1ull << 28) && ata_id_has_flush_ext(id);
    if (!c->lba) {
        bool cur = ata_id_current_chs_valid(id);
        c->cyls = cur ? id[54] : id[1];
        c->heads = cur ? id[55] : id[3];
        c->sectors = cur ? id[56] : id[6];
    }
    config_multi(id, c);
    c->max_sectors = c->lba48 ? ATA_MAX_SECTORS_LBA48 : ATA_MAX_SECTORS;

    c->dev_ncq = ata_id_has_ncq(id);
    if (c->dev_ncq) {
        c->dev_depth = ata_id_queue_depth(id);
        c->host_depth = hc->ncq_depth;
        c->ncq_not_used = hc->dev_noncq;
        /* NCQ needs a host queue and a DMA transfer mode */
        c->ncq = c->host_depth > 0 && dma && !c->ncq_not_used;
        if (c->ncq)
            c->ncq_depth = c->dev_depth < c->host_depth ? c->dev_depth : c->host_depth;
    }
    /* libata's ata_dev_config_fua: libata.fua on, WRITE DMA FUA EXT (so LBA48), and NCQ
     * supported by device and host (its FUA bit is what drives get right) */
    c->fua = hc->fua && c->lba48 && ata_id_has_fua(id) && c->ncq;
}

void ata_config_id_line(const struct ata_dev_config *c, char *buf, size_t len)
{
    const char *max = ata_mode_string(c->dev_xfer_mask);

    if (c->cls == ATA_DEV_ATAPI)
        snprintf(buf, len, "ATAPI: %s, %s, max %s%s%s", c->model, c->fw, max, c->cdb_intr ? ", CDB intr" : "",
                 c->dmadir ? ", DMADIR" : "");
    else if (c->cfa)
        snprintf(buf, len, "CFA: %s, %s, max %s", c->model, c->fw, max);
    else
        snprintf(buf, len, "ATA-%u: %s, %s, max %s", c->ata_major, c->model, c->fw, max);
}

void ata_config_size_line(const struct ata_dev_config *c, char *buf, size_t len)
{
    char ncq[48] = "";

    if (c->cls == ATA_DEV_ATAPI) {
        buf[0] = '\0';
        return;
    }
    if (!c->lba) {
        snprintf(buf, len, "%llu sectors, multi %u, CHS %u/%u/%u", (unsigned long long)c->n_sectors,
                 c->multi_count, c->cyls, c->heads, c->sectors);
        return;
    }
    /* libata's ata_dev_config_ncq: a NONCQ horkage says so instead of the depths */
    if (c->dev_ncq && c->ncq_not_used)
        snprintf(ncq, sizeof(ncq), " NCQ (not used)");
    else if (c->dev_ncq) {
        if (c->host_depth >= c->dev_depth)
            snprintf(ncq, sizeof(ncq), " NCQ (depth %u)", c->dev_depth);
        else
            snprintf(ncq, sizeof(ncq), " NCQ (depth %u/%u)", c->host_depth, c->dev_depth);
    }
    snprintf(buf, len, "%llu sectors, multi %u: %s%s", (unsigned long long)c->n_sectors,
             c->multi_count, c->lba48 ? "LBA48" : "LBA", ncq);
}
