/* The pure half of the EH autopsy and report: taskfile and SError classification, the
 * NCQ error log (page 10h) parser, mask cleanup, and libata-worded report lines
 * (docs/libata-eh.md 1.2-1.4, 3.3, 3.4; docs/hardware.md 8.6). No platform access: unit-tested. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* SError bits */
enum {
    SERR_DATA_RECOVERED = 1u << 0,
    SERR_COMM_RECOVERED = 1u << 1,
    SERR_DATA = 1u << 8,
    SERR_PERSISTENT = 1u << 9,
    SERR_PROTOCOL = 1u << 10,
    SERR_INTERNAL = 1u << 11,
    SERR_PHYRDY_CHG = 1u << 16,
    SERR_DEV_XCHG = 1u << 26,
};

bool ata_eh_analyze_tf_regs(enum ata_dev_class cls, uint8_t stat, uint8_t err, unsigned *err_mask)
{
    if ((stat & (ATA_BUSY | ATA_DRQ | ATA_DRDY)) != ATA_DRDY) {
        *err_mask |= AC_ERR_HSM;
        return true;
    }
    if (!(stat & (ATA_ERR | ATA_DF)))
        return (*err_mask & (AC_ERR_HSM | AC_ERR_TIMEOUT | AC_ERR_ATA_BUS)) != 0;
    *err_mask |= AC_ERR_DEV;
    if (cls == ATA_DEV_ATA || cls == ATA_DEV_ZAC) {
        if (err & ATA_ICRC)
            *err_mask |= AC_ERR_ATA_BUS;
        if (err & (ATA_UNC | ATA_AMNF))
            *err_mask |= AC_ERR_MEDIA;
        if (err & ATA_IDNF)
            *err_mask |= AC_ERR_INVALID;
    }
    return (*err_mask & (AC_ERR_HSM | AC_ERR_TIMEOUT | AC_ERR_ATA_BUS)) != 0;
}

bool ata_eh_analyze_serror_bits(const struct ata_eh_policy *pol, uint32_t serror, unsigned *err_mask,
                                unsigned *action)
{
    if (serror & SERR_PERSISTENT) {
        *err_mask |= AC_ERR_ATA_BUS;
        *action |= pol->act_hardreset;
    }
    if (serror & SERR_DATA) {
        *err_mask |= AC_ERR_ATA_BUS;
        *action |= pol->act_reset;
    }
    if (pol->serror_recovered_counts && (serror & (SERR_DATA_RECOVERED | SERR_COMM_RECOVERED))) {
        *err_mask |= AC_ERR_ATA_BUS;
        *action |= pol->act_reset;
    }
    if (serror & SERR_PROTOCOL) {
        *err_mask |= AC_ERR_HSM;
        *action |= pol->act_reset;
    }
    if (serror & SERR_INTERNAL) {
        *err_mask |= AC_ERR_SYSTEM;
        *action |= pol->act_reset;
    }
    return (serror & (SERR_PHYRDY_CHG | SERR_DEV_XCHG)) != 0;
}

unsigned ata_eh_cleanup_mask(unsigned m)
{
    /* a bus error makes the device's complaint probably spurious */
    if (m & AC_ERR_ATA_BUS)
        m &= ~(unsigned)(AC_ERR_DEV | AC_ERR_MEDIA | AC_ERR_INVALID);
    if (m & ~(unsigned)AC_ERR_OTHER)
        m &= ~(unsigned)AC_ERR_OTHER;
    return m;
}

int ata_ncq_log_parse(const uint8_t *buf, unsigned *tag, struct ata_taskfile *rtf, uint8_t *csum)
{
    uint8_t sum = 0;

    for (unsigned i = 0; i < ATA_SECT_SIZE; i++)
        sum = (uint8_t)(sum + buf[i]);
    *csum = sum;
    if (buf[0] & 0x80)
        return -ENOENT; /* NQ: the error was not in an NCQ command */
    *tag = buf[0] & 0x1f;
    memset(rtf, 0, sizeof(*rtf));
    rtf->command = buf[2];
    rtf->feature = buf[3];
    rtf->lbal = buf[4];
    rtf->lbam = buf[5];
    rtf->lbah = buf[6];
    rtf->device = buf[7];
    rtf->hob_lbal = buf[8];
    rtf->hob_lbam = buf[9];
    rtf->hob_lbah = buf[10];
    rtf->nsect = buf[12];
    rtf->hob_nsect = buf[13];
    return 0;
}

/* ---- report wording ---- */

const char *ata_eh_cmd_name(uint8_t cmd)
{
    static const struct {
        uint8_t cmd;
        const char *name;
    } names[] = {
        { ATA_CMD_READ_SECTORS, "READ SECTOR(S)" },
        { ATA_CMD_READ_SECTORS_EXT, "READ SECTOR(S) EXT" },
        { ATA_CMD_WRITE_SECTORS, "WRITE SECTOR(S)" },
        { ATA_CMD_WRITE_SECTORS_EXT, "WRITE SECTOR(S) EXT" },
        { ATA_CMD_READ_MULTI, "READ MULTIPLE" },
        { ATA_CMD_READ_MULTI_EXT, "READ MULTIPLE EXT" },
        { ATA_CMD_WRITE_MULTI, "WRITE MULTIPLE" },
        { ATA_CMD_WRITE_MULTI_EXT, "WRITE MULTIPLE EXT" },
        { ATA_CMD_READ_DMA, "READ DMA" },
        { ATA_CMD_READ_DMA_EXT, "READ DMA EXT" },
        { ATA_CMD_WRITE_DMA, "WRITE DMA" },
        { ATA_CMD_WRITE_DMA_EXT, "WRITE DMA EXT" },
        { ATA_CMD_FPDMA_READ, "READ FPDMA QUEUED" },
        { ATA_CMD_FPDMA_WRITE, "WRITE FPDMA QUEUED" },
        { ATA_CMD_FPDMA_SEND, "SEND FPDMA QUEUED" },
        { ATA_CMD_DSM, "DATA SET MANAGEMENT" },
        { ATA_CMD_FLUSH, "FLUSH CACHE" },
        { ATA_CMD_FLUSH_EXT, "FLUSH CACHE EXT" },
        { ATA_CMD_ID_ATA, "IDENTIFY DEVICE" },
        { ATA_CMD_ID_ATAPI, "IDENTIFY PACKET DEVICE" },
        { ATA_CMD_SET_FEATURES, "SET FEATURES" },
        { ATA_CMD_SET_MULTI, "SET MULTIPLE MODE" },
        { ATA_CMD_READ_LOG_EXT, "READ LOG EXT" },
    };

    for (size_t i = 0; i < ATA_ARRAY_SIZE(names); i++)
        if (names[i].cmd == cmd)
            return names[i].name;
    return "unknown";
}

static int fmt_tf(char *buf, size_t len, const struct ata_taskfile *tf)
{
    return snprintf(buf, len, "%02x/%02x:%02x:%02x:%02x:%02x/%02x:%02x:%02x:%02x:%02x/%02x", tf->command,
                    tf->feature, tf->nsect, tf->lbal, tf->lbam, tf->lbah, tf->hob_feature, tf->hob_nsect,
                    tf->hob_lbal, tf->hob_lbam, tf->hob_lbah, tf->device);
}

static const char *prot_name(const struct ata_taskfile *tf, uint32_t nbytes, const char *ncq)
{
    switch (tf->protocol) {
    case ATA_PROT_NCQ: return nbytes ? ncq : "ncq nodata";
    case ATA_PROT_DMA: return "dma";
    case ATA_PROT_PIO: return "pio";
    case ATAPI_PROT_DMA: return "dma";
    case ATAPI_PROT_PIO: return "pio";
    case ATA_PROT_NODATA:
    case ATAPI_PROT_NODATA: break;
    }
    return "nodata";
}

void ata_eh_format_cmd_line(char *buf, size_t len, const struct ata_taskfile *tf, unsigned tag, uint32_t nbytes,
                            const char *ncq)
{
    char t[64];

    fmt_tf(t, sizeof(t), tf);
    if (nbytes && tf->protocol != ATA_PROT_NODATA && tf->protocol != ATAPI_PROT_NODATA)
        snprintf(buf, len, "cmd %s tag %u %s %u %s", t, tag, prot_name(tf, nbytes, ncq), nbytes,
                 (tf->flags & ATA_TFLAG_WRITE) ? "out" : "in");
    else
        snprintf(buf, len, "cmd %s tag %u", t, tag);
}

void ata_eh_format_cmd_line_2620(char *buf, size_t len, const struct ata_taskfile *tf, unsigned tag, uint8_t cdb0,
                                 uint32_t nbytes)
{
    const bool nodata = !nbytes || tf->protocol == ATA_PROT_NODATA || tf->protocol == ATAPI_PROT_NODATA;
    char t[64];

    fmt_tf(t, sizeof(t), tf);
    /* dma_str[qc->dma_dir]: DMA_NONE prints "", which leaves the line's trailing space */
    snprintf(buf, len, "cmd %s tag %u cdb 0x%x data %u %s", t, tag, cdb0, nodata ? 0u : nbytes,
             nodata ? "" : (tf->flags & ATA_TFLAG_WRITE) ? "out" : "in");
}

void ata_eh_format_cdb(char *buf, size_t len, const uint8_t *cdb, unsigned cdb_len)
{
    /* the SCSI command names of the MMC/SPC commands a CD/DVD drive gets (scsi's constants
     * table wording) */
    static const struct {
        uint8_t op;
        const char *name;
    } names[] = {
        { 0x00, "Test Unit Ready" },  { 0x03, "Request Sense" },
        { 0x12, "Inquiry" },          { 0x1b, "Start/Stop Unit" },
        { 0x1e, "Prevent/Allow Medium Removal" }, { 0x25, "Read Capacity(10)" },
        { 0x28, "Read(10)" },         { 0x46, "Get configuration" },
        { 0x4a, "Get event status notification" }, { 0x5a, "Mode Sense(10)" },
        { 0xa8, "Read(12)" },
    };
    /* SCSI CDB length by opcode group: 0 -> 6, 1-2 -> 10, 4 -> 16, 5 -> 12 */
    static const uint8_t group_len[8] = { 6, 10, 10, 12, 16, 12, 10, 10 };
    const char *name = NULL;
    size_t o;

    if (!cdb_len)
        cdb_len = group_len[cdb[0] >> 5];
    if (cdb_len > 16)
        cdb_len = 16;
    for (size_t i = 0; i < ATA_ARRAY_SIZE(names); i++)
        if (names[i].op == cdb[0])
            name = names[i].name;
    if (name)
        o = (size_t)snprintf(buf, len, "%s", name);
    else
        o = (size_t)snprintf(buf, len, "opcode=0x%02x", cdb[0]);
    for (unsigned i = 0; i < cdb_len && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, " %02x", cdb[i]);
}

void ata_eh_format_res_line(char *buf, size_t len, const struct ata_taskfile *rtf, unsigned err_mask)
{
    char t[64];

    fmt_tf(t, sizeof(t), rtf);
    snprintf(buf, len, "res %s Emask 0x%x (%s)%s", t, err_mask, ata_err_string(err_mask),
             (err_mask & AC_ERR_NCQ) ? " <F>" : "");
}

static void fmt_bits(char *buf, size_t len, const char *const *names, const uint8_t *bits, size_t n, unsigned v)
{
    size_t o = (size_t)snprintf(buf, len, "{ ");

    for (size_t i = 0; i < n && o < len; i++)
        if (v & bits[i])
            o += (size_t)snprintf(buf + o, len - o, "%s ", names[i]);
    if (o < len)
        snprintf(buf + o, len - o, "}");
}

/* "" when the status has none of the reported bits */
void ata_eh_format_status(char *buf, size_t len, uint8_t stat)
{
    static const char *const names[] = { "DRDY", "DF", "DRQ", "ERR" };
    static const uint8_t bits[] = { ATA_DRDY, ATA_DF, ATA_DRQ, ATA_ERR };

    buf[0] = 0;
    if (stat & ATA_BUSY)
        snprintf(buf, len, "{ Busy }");
    else if (stat & (ATA_DRDY | ATA_DF | ATA_DRQ | ATA_ERR))
        fmt_bits(buf, len, names, bits, ATA_ARRAY_SIZE(names), stat);
}

void ata_eh_format_error(char *buf, size_t len, uint8_t err)
{
    static const char *const names[] = { "ICRC", "UNC", "AMNF", "IDNF", "ABRT" };
    static const uint8_t bits[] = { ATA_ICRC, ATA_UNC, ATA_AMNF, ATA_IDNF, ATA_ABORTED };

    buf[0] = 0;
    if (err & (ATA_ICRC | ATA_UNC | ATA_AMNF | ATA_IDNF | ATA_ABORTED))
        fmt_bits(buf, len, names, bits, ATA_ARRAY_SIZE(names), err);
}

void ata_eh_format_serror(char *buf, size_t len, uint32_t serror)
{
    static const struct {
        unsigned bit;
        const char *name;
    } s[] = {
        { 0, "RecovData" }, { 1, "RecovComm" }, { 8, "UnrecovData" }, { 9, "Persist" },
        { 10, "Proto" },    { 11, "HostInt" },  { 16, "PHYRdyChg" },  { 17, "PHYInt" },
        { 18, "CommWake" }, { 19, "10B8B" },    { 20, "Dispar" },     { 21, "BadCRC" },
        { 22, "Handshk" },  { 23, "LinkSeq" },  { 24, "TrStaTrns" },  { 25, "UnrecFIS" },
        { 26, "DevExch" },
    };
    size_t o = (size_t)snprintf(buf, len, "SError: { ");

    for (size_t i = 0; i < ATA_ARRAY_SIZE(s) && o < len; i++)
        if (serror & (1u << s[i].bit))
            o += (size_t)snprintf(buf + o, len - o, "%s ", s[i].name);
    if (o < len)
        snprintf(buf + o, len - o, "}");
}

void ata_eh_format_exception(char *buf, size_t len, unsigned emask, uint32_t sact, uint32_t serr,
                             unsigned action, bool frozen, int tries_left)
{
    int o = snprintf(buf, len, "exception Emask 0x%x SAct 0x%x SErr 0x%x action 0x%x%s", emask, sact, serr,
                     action, frozen ? " frozen" : "");

    if (tries_left > 0 && o > 0 && (size_t)o < len)
        snprintf(buf + o, len - (size_t)o, " t%d", tries_left);
}
