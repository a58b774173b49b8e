/* The SCSI/ATA translation layer (docs/sat.md), in the image of libata-scsi: a SCSI command
 * is answered from the device's IDENTIFY data (libata's ata_scsi_simulate: INQUIRY and its
 * VPD pages, READ CAPACITY, MODE SENSE, REQUEST SENSE, TEST UNIT READY) or translated into
 * one ATA command (ata_scsi_translate: READ/WRITE, SYNCHRONIZE CACHE, MODE SELECT, START STOP
 * UNIT, ATA PASS-THROUGH, WRITE SAME with UNMAP) that goes through the block I/O path, and
 * the result becomes SCSI status and sense data (sat_sense.c). Section numbers: SAT-4
 * (T10 BSR INCITS 491 r06), SPC-4 (T10/1731-D r37), SBC-3 (T10/1799-D r36). */
#include <stdio.h>
#include <string.h>

#include "sat.h"

enum {
    SAT_RBUF = 640,         /* the largest simulated answer: VPD page 89h, 572 bytes */
    SAT_CMD_VERIFY = 0x40, SAT_CMD_VERIFY_EXT = 0x42, SAT_CMD_STANDBY_IMM = 0xe0, SAT_CMD_DSM = 0x06,
    SAT_SETFEATURES_WC_ON = 0x02, SAT_SETFEATURES_WC_OFF = 0x82,
    SAT_SETFEATURES_RA_ON = 0xaa, SAT_SETFEATURES_RA_OFF = 0x55,
    SAT_CMD_INIT_DEV_PARAMS = 0x91,
};

/* Mode page lengths (SBC-3): read-write error recovery, caching, control. */
enum { SAT_RW_RECOVERY_LEN = 12, SAT_CACHE_LEN = 20, SAT_CONTROL_LEN = 12 };

static bool cmd_desc_sense(const struct ata_device *dev) { return dev->flags & ATA_DFLAG_D_SENSE; }

static void put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    put_be16(p, (uint16_t)(v >> 16));
    put_be16(p + 2, (uint16_t)v);
}

static void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

static uint32_t get_be(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* ---- IDENTIFY words (ACS-3, IDENTIFY DEVICE data) ---- */


unsigned sat_id_log2_per_physical(const uint16_t *id)
{
    return (id[106] & 0xe000) == 0x6000 ? id[106] & 0xf : 0;
}

uint16_t sat_id_lowest_aligned(const uint16_t *id, unsigned log2_per_phys)
{
    uint16_t first = id[209] & 0x3fff;

    if ((id[209] & 0xc000) == 0x4000 && first)
        return (uint16_t)((1u << log2_per_phys) - first);
    return 0;
}

bool sat_id_wcache_enabled(const uint16_t *id)
{
    return (id[87] & 0xc000) == 0x4000 && (id[85] & (1u << 5));
}

bool sat_id_rahead_enabled(const uint16_t *id)
{
    return (id[87] & 0xc000) == 0x4000 && (id[85] & (1u << 6));
}

/* ATA string of IDENTIFY words, as the device sends it (two characters a word, the first
 * in the high byte), not NUL-terminated. */
static void id_string(const uint16_t *id, uint8_t *out, unsigned word, unsigned len)
{
    for (unsigned i = 0; i < len; i += 2) {
        out[i] = (uint8_t)(id[word + i / 2] >> 8);
        out[i + 1] = (uint8_t)id[word + i / 2];
    }
}

/* ---- data in and out of the command's buffer ---- */

static uint32_t sat_copy(struct ata_device *dev, struct ata_scsi_cmd *cmd, uint8_t *buf, uint32_t n, bool out)
{
    const struct ata_host *h = dev->link->ap->host;
    uint32_t done = 0;

    if (n > cmd->len)
        n = cmd->len;
    for (unsigned i = 0; i < cmd->n_sg && done < n; i++) {
        uint32_t seg = cmd->sg[i].len < n - done ? cmd->sg[i].len : n - done;
        uint8_t *p = h->pops->dma_cpu_addr ? h->pops->dma_cpu_addr(h->plat, cmd->sg[i].bus, seg) : NULL;

        if (!p)
            break;
        if (out)
            memcpy(p, buf + done, seg);
        else
            memcpy(buf + done, p, seg);
        done += seg;
    }
    return done;
}

/* A simulated command's answer: at most alloc bytes of rbuf (the CDB's allocation length)
 * go to the initiator; the rest of its buffer is residue. */
static void sat_reply(struct ata_device *dev, struct ata_scsi_cmd *cmd, uint8_t *rbuf, uint32_t rlen, uint32_t alloc)
{
    uint32_t n = rlen < alloc ? rlen : alloc;

    cmd->status = SAM_STAT_GOOD;
    cmd->resid = cmd->len - sat_copy(dev, cmd, rbuf, n, true);
}

static void sat_invalid_field(struct ata_device *dev, struct ata_scsi_cmd *cmd, uint16_t field, uint8_t bit)
{
    sat_set_invalid_field(cmd, cmd_desc_sense(dev), true, field, bit);
}

static void sat_sense(struct ata_device *dev, struct ata_scsi_cmd *cmd, uint8_t sk, uint8_t asc, uint8_t ascq)
{
    sat_set_sense(cmd, cmd_desc_sense(dev), sk, asc, ascq);
}

static void sat_invalid_opcode(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x20, 0x00);
}

/* ---- INQUIRY (SAT-4, SPC-4 INQUIRY) ---- */

static uint32_t inq_std(const struct ata_device *dev, uint8_t *rbuf)
{
    const uint16_t *id = dev->id;

    rbuf[0] = dev->class == ATA_DEV_ZAC ? 0x14 : 0x00; /* direct access block device / ZBC */
    rbuf[1] = (id[0] & (1u << 7)) ? 0x80 : 0;          /* RMB: word 0 bit 7 (removable media) */
    rbuf[2] = dev->class == ATA_DEV_ZAC ? 0x07 : 0x05; /* VERSION: SPC-3 (SPC-5 for ZAC) */
    rbuf[3] = 2;                                       /* RESPONSE DATA FORMAT */
    rbuf[4] = 95 - 4;                                  /* ADDITIONAL LENGTH: 96 bytes */
    rbuf[7] = 2;                                       /* CMDQUE */
    memcpy(rbuf + 8, "ATA     ", 8);                   /* T10 VENDOR IDENTIFICATION */
    id_string(id, rbuf + 16, 27, 16);                  /* PRODUCT: model, words 27-34 */
    /* PRODUCT REVISION LEVEL: the last four characters of the firmware revision (words
     * 25-26), its first four (words 23-24) when those are blank; "n/a" when empty */
    id_string(id, rbuf + 32, 25, 4);
    if (!memcmp(rbuf + 32, "    ", 4))
        id_string(id, rbuf + 32, 23, 4);
    if (rbuf[32] == 0 || rbuf[32] == ' ')
        memcpy(rbuf + 32, "n/a ", 4);
    /* VERSION DESCRIPTORS: SAM-3, SBC-2, SPC-3 (no version claimed) */
    put_be16(rbuf + 58, 0x0060);
    put_be16(rbuf + 60, 0x0320);
    put_be16(rbuf + 62, 0x0300);
    return 96;
}

static const uint8_t sat_vpd_pages[] = { 0x00, 0x80, 0x83, 0x89, 0xb0, 0xb1, 0xb2 };

static uint32_t inq_vpd(const struct ata_device *dev, uint8_t page, uint8_t *rbuf)
{
    const uint16_t *id = dev->id;
    unsigned n;

    rbuf[1] = page;
    switch (page) {
    case 0x00: /* supported VPD pages (SPC-4) */
        memcpy(rbuf + 4, sat_vpd_pages, sizeof(sat_vpd_pages));
        rbuf[3] = sizeof(sat_vpd_pages);
        return 4 + sizeof(sat_vpd_pages);
    case 0x80: /* unit serial number (SAT-4): words 10-19 */
        rbuf[3] = 20;
        id_string(id, rbuf + 4, 10, 20);
        return 24;
    case 0x83: /* device identification (SAT-4) */
        n = 4;
        /* vendor specific designator: the serial number (ASCII, associated with the LU) */
        rbuf[n] = 2;
        rbuf[n + 3] = 20;
        id_string(id, rbuf + n + 4, 10, 20);
        n += 24;
        /* T10 vendor ID based designator: "ATA", model and serial (SAT-4) */
        rbuf[n] = 2;
        rbuf[n + 1] = 1;
        rbuf[n + 3] = 68;
        memcpy(rbuf + n + 4, "ATA     ", 8);
        id_string(id, rbuf + n + 12, 27, 40);
        id_string(id, rbuf + n + 52, 10, 20);
        n += 72;
        /* NAA designator from the world wide name, words 108-111 (word 87 bit 8) */
        if ((id[87] & 0xc100) == 0x4100) {
            rbuf[n] = 1;
            rbuf[n + 1] = 3;
            rbuf[n + 3] = 8;
            id_string(id, rbuf + n + 4, 108, 8);
            n += 12;
        }
        rbuf[3] = (uint8_t)(n - 4);
        return n;
    case 0x89: /* ATA information (SAT-4): the SATL's identity, a D2H signature
                  FIS (faked: the stack keeps none), the IDENTIFY data */
        put_be16(rbuf + 2, 0x238);
        memcpy(rbuf + 8, "linux   ", 8);
        memcpy(rbuf + 16, "libata          ", 16);
        memcpy(rbuf + 32, "3.00", 4);
        rbuf[36] = 0x34;
        rbuf[37] = 0x80;
        rbuf[38] = ATA_DRDY;
        rbuf[40] = 0x01;
        rbuf[48] = 0x01;
        rbuf[56] = ATA_CMD_ID_ATA;
        for (unsigned i = 0; i < ATA_ID_WORDS; i++)
            put_le16(rbuf + 60 + 2 * i, id[i]);
        return 0x23c;
    case 0xb0: { /* block limits (SBC-3, SAT-4) */
        rbuf[3] = 0x3c;
        put_be16(rbuf + 6, (uint16_t)(1u << sat_id_log2_per_physical(id)));
        if (ata_id_has_trim(id)) {
            put_be32(rbuf + 28, 1);                          /* OPTIMAL UNMAP GRANULARITY */
            put_be64(rbuf + 36, ATA_TRIM_MAX_SECTORS); /* MAXIMUM WRITE SAME LENGTH */
        }
        return 64;
    }
    case 0xb1: { /* block device characteristics (SBC-3): words 217, 168, 69 */
        uint16_t rate = id[217], ff = id[168] & 0xf;
        bool acs = ata_id_major_version(id) >= 7;

        if (!acs || rate == 0 || rate == 0xffff || (rate > 1 && rate < 0x401))
            rate = 0;
        if (!acs || id[168] == 0xffff || ff > 8)
            ff = 0;
        rbuf[3] = 0x3c;
        put_be16(rbuf + 4, rate);
        rbuf[7] = (uint8_t)ff;
        rbuf[8] = (uint8_t)((id[69] & 3) << 4);
        return 64;
    }
    case 0xb2: /* logical block provisioning (SBC-3): WRITE SAME (16) with UNMAP */
        rbuf[3] = 0x04;
        rbuf[5] = 0x40; /* LBPWS */
        return 8;
    default:
        return 0;
    }
}

static void sat_inquiry(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    uint8_t rbuf[SAT_RBUF] = { 0 };
    const uint8_t *cdb = cmd->cdb;
    uint32_t alloc = get_be(cdb + 3, 2), n;

    if (cdb[1] & 2) /* CmdDt (obsolete) */
        {
            sat_invalid_field(dev, cmd, 1, 0xff);
            return;
        }
    if (!(cdb[1] & 1))
        {
            sat_reply(dev, cmd, rbuf, inq_std(dev, rbuf), alloc);
            return;
        }
    n = inq_vpd(dev, cdb[2], rbuf);
    if (!n)
        {
            sat_invalid_field(dev, cmd, 2, 0xff);
            return;
        }
    sat_reply(dev, cmd, rbuf, n, alloc);
}

/* ---- READ CAPACITY (SAT-4, SBC-3) ---- */

static void sat_read_capacity(struct ata_device *dev, struct ata_scsi_cmd *cmd, bool sixteen)
{
    const uint16_t *id = dev->id;
    uint8_t rbuf[32] = { 0 };
    uint64_t last = dev->n_sectors ? dev->n_sectors - 1 : 0;
    uint32_t ss = ata_dev_sector_size(dev); /* IDENTIFY 106, 117-118 */
    unsigned log2pp = sat_id_log2_per_physical(id);
    uint16_t low = sat_id_lowest_aligned(id, log2pp);

    if (!sixteen) {
        put_be32(rbuf, last >= 0xffffffffull ? 0xffffffffu : (uint32_t)last);
        put_be32(rbuf + 4, ss);
        {
            sat_reply(dev, cmd, rbuf, 8, 8);
            return;
        }
    }
    if ((cmd->cdb[1] & 0x1f) != SCSI_SAI_READ_CAPACITY_16)
        {
            sat_invalid_field(dev, cmd, 1, 0xff);
            return;
        }
    put_be64(rbuf, last);
    put_be32(rbuf + 8, ss);
    rbuf[13] = (uint8_t)log2pp;                  /* LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT */
    rbuf[14] = (uint8_t)((low >> 8) & 0x3f);     /* LOWEST ALIGNED LOGICAL BLOCK ADDRESS */
    rbuf[15] = (uint8_t)low;
    if (ata_id_has_trim(id))
        rbuf[14] |= 0x80;                        /* LBPME */
    if (dev->class == ATA_DEV_ZAC || (id[69] & 3))
        rbuf[12] = 0x10;                         /* RC BASIS */
    sat_reply(dev, cmd, rbuf, 32, get_be(cmd->cdb + 10, 4));
}

/* ---- MODE SENSE (SAT-4, SPC-4) ---- */

static uint32_t mpage_rw_recovery(uint8_t *p)
{
    memset(p, 0, SAT_RW_RECOVERY_LEN);
    p[0] = 0x01;
    p[1] = SAT_RW_RECOVERY_LEN - 2;
    p[2] = 0x80; /* AWRE */
    return SAT_RW_RECOVERY_LEN;
}

static uint32_t mpage_caching(const uint16_t *id, uint8_t *p, bool changeable)
{
    memset(p, 0, SAT_CACHE_LEN);
    p[0] = 0x08;
    p[1] = SAT_CACHE_LEN - 2;
    if (changeable) {
        p[2] = 0x04; /* WCE: MODE SELECT turns it into SET FEATURES */
    } else {
        p[2] = sat_id_wcache_enabled(id) ? 0x04 : 0;
        p[12] = sat_id_rahead_enabled(id) ? 0 : 0x20; /* DRA */
    }
    return SAT_CACHE_LEN;
}

static uint32_t mpage_control(const struct ata_device *dev, uint8_t *p, bool changeable)
{
    memset(p, 0, SAT_CONTROL_LEN);
    p[0] = 0x0a;
    p[1] = SAT_CONTROL_LEN - 2;
    p[2] = 0x02; /* GLTSD */
    if (changeable || (dev->flags & ATA_DFLAG_D_SENSE))
        p[2] |= 0x04; /* D_SENSE (changeable: the one bit MODE SELECT takes) */
    p[8] = 0xff;  /* BUSY TIMEOUT PERIOD: unlimited */
    p[9] = 0xff;
    p[11] = 30;   /* EXTENDED SELF-TEST COMPLETION TIME */
    return SAT_CONTROL_LEN;
}

static void sat_mode_sense(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    static const uint8_t blk_desc[8] = { 0, 0, 0, 0, 0, 0, 0x02, 0x00 }; /* 512-byte blocks */
    const uint8_t *cdb = cmd->cdb;
    const bool six = cdb[0] == SCSI_MODE_SENSE_6, ebd = !(cdb[1] & 0x08);
    const unsigned pc = cdb[2] >> 6, pg = cdb[2] & 0x3f, spg = cdb[3];
    const bool ch = pc == 1;
    uint8_t rbuf[SAT_RBUF] = { 0 };
    uint8_t *p = rbuf + (six ? 4 : 8) + (ebd ? 8 : 0);
    uint32_t len;

    if (pc == 3) /* saved values */
        {
            sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x39, 0x00);
            return;
        }
    if (spg && spg != 0xff) /* no subpages, but "all subpages" is asked for fairly */
        {
            sat_invalid_field(dev, cmd, 3, 0xff);
            return;
        }
    switch (pg) {
    case 0x01:
        p += mpage_rw_recovery(p);
        break;
    case 0x08:
        p += mpage_caching(dev->id, p, ch);
        break;
    case 0x0a:
        p += mpage_control(dev, p, ch);
        break;
    case 0x3f:
        p += mpage_rw_recovery(p);
        p += mpage_caching(dev->id, p, ch);
        p += mpage_control(dev, p, ch);
        break;
    default:
        {
            sat_invalid_field(dev, cmd, 2, 0xff);
            return;
        }
    }
    len = (uint32_t)(p - rbuf);
    /* the mode parameter header (SPC-4): DPOFUA in the device-specific parameter */
    if (six) {
        rbuf[0] = (uint8_t)(len - 1);
        rbuf[2] = (dev->flags & ATA_DFLAG_FUA) ? 0x10 : 0;
        if (ebd) {
            rbuf[3] = 8;
            memcpy(rbuf + 4, blk_desc, 8);
        }
        {
            sat_reply(dev, cmd, rbuf, len, cdb[4]);
            return;
        }
    }
    put_be16(rbuf, (uint16_t)(len - 2));
    rbuf[3] = (dev->flags & ATA_DFLAG_FUA) ? 0x10 : 0;
    if (ebd) {
        rbuf[7] = 8;
        memcpy(rbuf + 8, blk_desc, 8);
    }
    sat_reply(dev, cmd, rbuf, len, get_be(cdb + 7, 2));
}

/* ---- REQUEST SENSE (SPC-4) ---- */

/* Sense data goes with the failing command (autosense), so none is kept for later: the
 * answer is NO SENSE, in the format the DESC bit asks for. */
static void sat_request_sense(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    struct ata_scsi_cmd tmp = { 0 };

    sat_set_sense(&tmp, cmd->cdb[1] & 1, SCSI_SK_NO_SENSE, 0, 0);
    sat_reply(dev, cmd, tmp.sense, tmp.sense_len, cmd->cdb[4]);
}

/* ---- completion ---- */

static const char *const sat_sk_names[16] = {
    "No Sense", "Recovered Error", "Not Ready", "Medium Error", "Hardware Error", "Illegal Request",
    "Unit Attention", "Data Protect", "Blank Check", "Vendor Specific", "Copy Aborted", "Aborted Command",
    "Equal", "Volume Overflow", "Miscompare", "Completed",
};

/* The command is finished: its record, then the initiator's done(). A CHECK CONDITION is
 * what the upper layers decide on (sd's "Sense Key" and "Add. Sense" lines): a decision
 * record with the whole sense data; GOOD an info record. */
void sat_complete(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    char cdb[3 * 16 + 1] = "", sense[3 * ATA_SCSI_SENSE_MAX + 1] = "";
    uint8_t sk = 0, asc = 0, ascq = 0;

    for (unsigned i = 0, n = 0; i < cmd->cdb_len && i < 16; i++)
        n += (unsigned)snprintf(cdb + n, sizeof(cdb) - n, i ? " %02x" : "%02x", cmd->cdb[i]);
    if (cmd->status == SAM_STAT_GOOD) {
        const struct sata_trace_field f[] = {
            TF_STR("cdb", cdb), TF_HEX("status", cmd->status), TF_INT("resid", cmd->resid),
            TF_HEX("ata_cmd", cmd->ata_cmd),
        };
        ata_dev_ev(dev, ATA_EV("scsi.done", SATA_TC_INFO, SATA_LOG_NONE, f), NULL);
    } else {
        unsigned n = 0;

        for (unsigned i = 0; i < cmd->sense_len && i < ATA_SCSI_SENSE_MAX; i++)
            n += (unsigned)snprintf(sense + n, sizeof(sense) - n, i ? " %02x" : "%02x", cmd->sense[i]);
        ata_scsi_sense_parse(cmd->sense, cmd->sense_len, &sk, &asc, &ascq);
        {
            const bool desc = cmd->sense_len && (cmd->sense[0] & 0x7f) >= 0x72;
            const struct sata_trace_field f[] = {
                TF_STR("cdb", cdb),        TF_HEX("status", cmd->status), TF_HEX("key", sk),
                TF_HEX("asc", asc),        TF_HEX("ascq", ascq),          TF_STR("sense", sense),
                TF_HEX("ata_cmd", cmd->ata_cmd), TF_HEX("emask", cmd->err_mask),
            };
            ata_dev_ev(dev, ATA_EV("scsi.sense", SATA_TC_DECISION, SATA_LOG_INFO, f),
                       "CDB %s: Sense Key : %s [current]%s, Add. Sense: %02x/%02x", cdb, sat_sk_names[sk & 0xf],
                       desc ? " [descriptor]" : "", asc, ascq);
        }
    }
    cmd->done(cmd);
}

/* ---- translated commands: the ATA command through the block I/O path ---- */

static void sat_schedule_revalidate(struct ata_device *dev)
{
    struct ata_port *ap = dev->link->ap;

    /* a setting IDENTIFY reports changed: libata revalidates the device (ata_qc_complete) */
    ata_lock(ap->host);
    dev->link->eh_info.dev_action[dev->devno] |= ATA_EH_REVALIDATE;
    ata_port_schedule_eh(ap);
    ata_unlock(ap->host);
}

static bool sat_is_passthru(const struct ata_scsi_cmd *cmd)
{
    return cmd->cdb[0] == SCSI_ATA_16 || cmd->cdb[0] == SCSI_ATA_12;
}

/* The LBA a failed command's result registers name (libata's ata_tf_read_block). */
static uint64_t rtf_block(const struct ata_bio_regs *r)
{
    uint64_t lba = (uint64_t)r->lbah << 16 | (uint64_t)r->lbam << 8 | r->lbal;

    if (r->lba48)
        return lba | (uint64_t)r->hob_lbah << 40 | (uint64_t)r->hob_lbam << 32 | (uint64_t)r->hob_lbal << 24;
    return lba | (uint64_t)(r->device & 0xf) << 24;
}

static void sat_bio_done(struct ata_bio *bio)
{
    struct ata_scsi_cmd *cmd = bio->priv;
    struct ata_device *dev = cmd->q_dev;
    const bool passthru = sat_is_passthru(cmd), ck_cond = passthru && (cmd->cdb[2] & 0x20);
    struct ata_bio_regs rtf = bio->result;

    cmd->err_mask = bio->err_mask;
    rtf.command = bio->status;
    rtf.feature = bio->error;
    if (!bio->err_mask) {
        cmd->status = SAM_STAT_GOOD;
        cmd->resid = cmd->len - cmd->q_xfer;
        if (bio->op == ATA_BIO_TASKFILE) {
            const uint8_t c = bio->regs.command, f = bio->regs.feature;

            if ((c == ATA_CMD_SET_FEATURES && (f == SAT_SETFEATURES_WC_ON || f == SAT_SETFEATURES_WC_OFF ||
                                               f == SAT_SETFEATURES_RA_ON || f == SAT_SETFEATURES_RA_OFF)) ||
                c == SAT_CMD_INIT_DEV_PARAMS || c == ATA_CMD_SET_MULTI)
                sat_schedule_revalidate(dev);
        }
        if (ck_cond) {
            /* CK_COND: ATA PASS-THROUGH INFORMATION AVAILABLE, always descriptor format */
            sat_set_sense(cmd, true, SCSI_SK_RECOVERED_ERROR, 0x00, 0x1d);
            sat_set_ata_status_return(cmd, &rtf);
        }
    } else {
        cmd->resid = cmd->len;
        if (bio->err_mask & AC_ERR_NODEV_HINT) {
            /* the device is gone: LOGICAL UNIT NOT READY, HARD RESET REQUIRED */
            sat_sense(dev, cmd, SCSI_SK_NOT_READY, 0x04, 0x21);
        } else {
            uint8_t sk, asc, ascq;

            sat_ata_to_sense(rtf.command, rtf.feature, &sk, &asc, &ascq);
            sat_sense(dev, cmd, sk, asc, ascq);
            if (passthru)
                sat_set_ata_status_return(cmd, &rtf);
            else if (bio->op == ATA_BIO_READ || bio->op == ATA_BIO_WRITE || cmd->cdb[0] == SCSI_VERIFY_10 ||
                     cmd->cdb[0] == SCSI_VERIFY_16)
                sat_set_sense_info(cmd, rtf_block(&rtf));
        }
    }
    cmd->q_dev = NULL;
    sat_complete(dev, cmd);
}

/* Submits cmd->bio (filled by the caller); a refusal becomes sense data. */
static void sat_submit(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    struct ata_bio *bio = &cmd->bio;
    int rc;

    bio->sg = cmd->sg;
    bio->n_sg = cmd->n_sg;
    bio->passthrough = cmd->passthrough;
    bio->want_tag = cmd->want_tag;
    bio->blk_tag = cmd->blk_tag;
    bio->done = sat_bio_done;
    bio->priv = cmd;
    cmd->q_dev = dev;
    cmd->status = SAM_STAT_GOOD;
    /* what a success moves: the data blocks, or the whole parameter list a MODE SELECT took */
    cmd->q_xfer = cmd->cdb[0] == SCSI_MODE_SELECT_6 || cmd->cdb[0] == SCSI_MODE_SELECT_10
                      ? cmd->len
                      : bio->op == ATA_BIO_FLUSH ? 0 : bio->n_sectors * ata_bio_sect_size(dev, bio);
    if (bio->op == ATA_BIO_TASKFILE)
        cmd->ata_cmd = bio->regs.command;
    rc = ata_bio_submit(dev, bio);
    if (!rc)
        return;
    cmd->q_dev = NULL;
    cmd->err_mask = AC_ERR_INVALID;
    if (rc == -ENODEV)
        sat_sense(dev, cmd, SCSI_SK_NOT_READY, 0x04, 0x21);
    else if (rc == -EOPNOTSUPP)
        sat_invalid_field(dev, cmd, 1, 0xff);
    else if (bio->op == ATA_BIO_READ || bio->op == ATA_BIO_WRITE)
        sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x00); /* LBA OUT OF RANGE */
    else
        sat_invalid_field(dev, cmd, 0, 0xff);
    sat_complete(dev, cmd);
}

static void sat_taskfile(struct ata_scsi_cmd *cmd, uint8_t command, uint8_t feature)
{
    memset(&cmd->bio, 0, sizeof(cmd->bio));
    cmd->bio.op = ATA_BIO_TASKFILE;
    cmd->bio.proto = ATA_BIO_PROTO_NODATA;
    cmd->bio.regs.command = command;
    cmd->bio.regs.feature = feature;
    cmd->bio.regs.device = ATA_DEVICE_OBS;
}

/* READ/WRITE (6/10/16): SAT-4, libata's ata_scsi_rw_xlat. */
static bool sat_rw(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    const uint8_t *cdb = cmd->cdb;
    const bool write = cdb[0] == SCSI_WRITE_6 || cdb[0] == SCSI_WRITE_10 || cdb[0] == SCSI_WRITE_16;
    uint64_t lba;
    uint32_t n;
    bool fua = false;

    switch (cdb[0]) {
    case SCSI_READ_6:
    case SCSI_WRITE_6:
        lba = (uint64_t)(cdb[1] & 0x1f) << 16 | get_be(cdb + 2, 2);
        n = cdb[4] ? cdb[4] : 256; /* a transfer length of 0 means 256 blocks (SBC-3 READ (6)) */
        break;
    case SCSI_READ_10:
    case SCSI_WRITE_10:
        lba = get_be(cdb + 2, 4);
        n = get_be(cdb + 7, 2);
        fua = cdb[1] & 0x08;
        break;
    default:
        lba = (uint64_t)get_be(cdb + 2, 4) << 32 | get_be(cdb + 6, 4);
        n = get_be(cdb + 10, 4);
        fua = cdb[1] & 0x08;
        break;
    }
    if (!n) { /* no blocks: nothing to do (ATA's count 0 would mean 256 or 65536) */
        cmd->status = SAM_STAT_GOOD;
        cmd->resid = cmd->len;
        return true;
    }
    if ((uint64_t)n * ata_dev_sector_size(dev) > cmd->len)
        return false;
    if (lba >= dev->n_sectors || n > dev->n_sectors - lba || n > ATA_MAX_SECTORS_LBA48) {
        sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x00);
        return true;
    }
    memset(&cmd->bio, 0, sizeof(cmd->bio));
    cmd->bio.op = write ? ATA_BIO_WRITE : ATA_BIO_READ;
    cmd->bio.mode = ATA_IO_AUTO;
    cmd->bio.lba = lba;
    cmd->bio.n_sectors = n;
    cmd->bio.fua = write && fua; /* FUA on a read has no ATA command: the read goes out plain */
    cmd->status = 0xff;          /* queued */
    return true;
}

/* VERIFY (10/16) (SBC-3, SAT-4), as libata's ata_scsi_verify_xlat: READ VERIFY SECTORS when
 * the range fits 28-bit addressing (end below 2^28, at most 256 blocks), else READ VERIFY
 * SECTORS EXT (at most 65536 blocks, LBA48 devices only); no blocks: GOOD with no command; a
 * range past the end, or one no command can carry: LOGICAL BLOCK ADDRESS OUT OF RANGE. BYTCHK
 * is not looked at (libata's neither): the medium is verified, no data moves. */
static bool sat_verify(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    const uint8_t *cdb = cmd->cdb;
    uint64_t lba;
    uint32_t n;
    struct ata_bio_regs *r = &cmd->bio.regs;

    if (cdb[0] == SCSI_VERIFY_10) {
        lba = get_be(cdb + 2, 4);
        n = get_be(cdb + 7, 2);
    } else {
        lba = (uint64_t)get_be(cdb + 2, 4) << 32 | get_be(cdb + 6, 4);
        n = get_be(cdb + 10, 4);
    }
    if (!n)
        return false; /* GOOD: nothing to verify */
    if (lba >= dev->n_sectors || n > dev->n_sectors - lba || !(dev->flags & ATA_DFLAG_LBA)) {
        sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x00);
        return false;
    }
    if (lba + n < (1ull << 28) && n <= 256) {
        sat_taskfile(cmd, SAT_CMD_VERIFY, 0);
        r->device |= (uint8_t)((lba >> 24) & 0x0f);
    } else if (n <= 65536 && (dev->flags & ATA_DFLAG_LBA48)) {
        sat_taskfile(cmd, SAT_CMD_VERIFY_EXT, 0);
        r->lba48 = true;
        r->hob_nsect = (uint8_t)(n >> 8);
        r->hob_lbal = (uint8_t)(lba >> 24);
        r->hob_lbam = (uint8_t)(lba >> 32);
        r->hob_lbah = (uint8_t)(lba >> 40);
    } else {
        sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x00);
        return false;
    }
    r->nsect = (uint8_t)n; /* 256 / 65536 blocks: count 0 */
    r->lbal = (uint8_t)lba;
    r->lbam = (uint8_t)(lba >> 8);
    r->lbah = (uint8_t)(lba >> 16);
    r->device |= ATA_LBA;
    sat_submit(dev, cmd);
    return true;
}

/* REPORT LUNS (SPC-4), as libata's ata_scsiop_report_luns: one logical unit, LUN 0: a
 * LUN list length of 8 and one all-zero entry, whatever the SELECT REPORT field asks. */
static void sat_report_luns(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    uint8_t rbuf[16] = { 0 };

    rbuf[3] = 8;
    sat_reply(dev, cmd, rbuf, sizeof(rbuf), get_be(cmd->cdb + 6, 4));
}

/* START STOP UNIT (SAT-4): START -> READ VERIFY SECTORS of block 0 (spins the drive
 * up), else STANDBY IMMEDIATE. */
static bool sat_start_stop(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    const uint8_t *cdb = cmd->cdb;

    if (cdb[4] & 0x02) { /* LOEJ */
        sat_invalid_field(dev, cmd, 4, 1);
        return false;
    }
    if (cdb[4] >> 4) { /* POWER CONDITION */
        sat_invalid_field(dev, cmd, 4, 3);
        return false;
    }
    if (cdb[4] & 0x01) {
        sat_taskfile(cmd, SAT_CMD_VERIFY, 0);
        cmd->bio.regs.nsect = 1;
        cmd->bio.regs.device |= ATA_LBA;
    } else {
        sat_taskfile(cmd, SAT_CMD_STANDBY_IMM, 0);
    }
    sat_submit(dev, cmd);
    return true;
}

/* MODE SELECT (SAT-4, SPC-4): the caching page's WCE becomes SET FEATURES
 * 02h/82h, the control page's D_SENSE is kept by the SATL; the rest must read as MODE SENSE
 * gives it. */
/* true: queued (SET FEATURES); false: answered, or refused with sense data */
static bool sat_mode_select(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    const uint8_t *cdb = cmd->cdb;
    const bool six = cdb[0] == SCSI_MODE_SELECT_6;
    const unsigned hdr = six ? 4 : 8;
    uint32_t len = six ? cdb[4] : get_be(cdb + 7, 2), bd, pg_len, spg, off;
    uint8_t buf[256] = { 0 }, ref[SAT_CACHE_LEN];
    const uint8_t *p;
    unsigned pg;

    if ((cdb[1] & 0x11) != 0x10) /* PF=1, SP=0 only */
        {
            sat_invalid_field(dev, cmd, 1, (cdb[1] & 0x01) ? 0 : 4);
            return false;
        }
    if (len > cmd->len || len > sizeof(buf) || len < hdr || sat_copy(dev, cmd, buf, len, false) < len)
        {
            sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x1a, 0x00);
            return false;
        } /* PARAMETER LIST LENGTH ERROR */
    bd = six ? buf[3] : get_be(buf + 6, 2);
    len -= hdr;
    if (len < bd)
        {
            sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x1a, 0x00);
            return false;
        }
    if (bd != 0 && bd != 8)
        {
            sat_set_invalid_field(cmd, cmd_desc_sense(dev), false, (uint16_t)((six ? 3 : 6) + bd + hdr), 0xff);
            return false;
        }
    len -= bd;
    p = buf + hdr + bd;
    cmd->resid = 0; /* the parameter list is taken */
    if (!len)
        return false;
    pg = p[0] & 0x3f;
    if (p[0] & 0x40) { /* SPF: the sub_page format header */
        if (len < 4)
            {
            sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x1a, 0x00);
            return false;
        }
        spg = p[1];
        pg_len = get_be(p + 2, 2);
        off = 4;
    } else {
        if (len < 2)
            {
            sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x1a, 0x00);
            return false;
        }
        spg = 0;
        pg_len = p[1];
        off = 2;
    }
    if (spg && spg != 0xff)
        {
            sat_set_invalid_field(cmd, cmd_desc_sense(dev), false, (uint16_t)(hdr + bd + ((p[0] & 0x40) ? 1 : 0)), 0xff);
            return false;
        }
    len -= off;
    if (pg_len > len)
        {
            sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x1a, 0x00);
            return false;
        }
    p += off;
    if (len > pg_len) /* one page at a time: only one has a changeable field */
        {
            sat_set_invalid_field(cmd, cmd_desc_sense(dev), false, (uint16_t)(hdr + bd), 0xff);
            return false;
        }
    if (pg == 0x08 || pg == 0x0a) {
        const unsigned plen = pg == 0x08 ? SAT_CACHE_LEN : SAT_CONTROL_LEN;

        if (pg_len != plen - 2)
            {
            sat_set_invalid_field(cmd, cmd_desc_sense(dev), false,
                                         (uint16_t)(hdr + bd + (pg_len < plen - 2 ? pg_len : plen - 2)), 0xff);
            return false;
        }
        if (pg == 0x08)
            mpage_caching(dev->id, ref, false);
        else
            mpage_control(dev, ref, false);
        /* every byte but the one holding WCE / D_SENSE must be what MODE SENSE says */
        for (unsigned i = 1; i < plen - 2; i++)
            if (ref[2 + i] != p[i])
                {
            sat_set_invalid_field(cmd, cmd_desc_sense(dev), false, (uint16_t)(hdr + bd + i), 0xff);
            return false;
        }
        if (pg == 0x0a) {
            if (p[0] & 0x04)
                dev->flags |= ATA_DFLAG_D_SENSE;
            else
                dev->flags &= ~(unsigned)ATA_DFLAG_D_SENSE;
            return false;
        }
        sat_taskfile(cmd, ATA_CMD_SET_FEATURES, (p[0] & 0x04) ? SAT_SETFEATURES_WC_ON : SAT_SETFEATURES_WC_OFF);
        sat_submit(dev, cmd);
        return true;
    }
    sat_set_invalid_field(cmd, cmd_desc_sense(dev), false, (uint16_t)(hdr + bd), 0xff);
    return false;
}

/* ATA PASS-THROUGH (12/16): SAT-4, libata's ata_scsi_pass_thru. */
static void sat_pass_thru(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    const uint8_t *cdb = cmd->cdb;
    const bool sixteen = cdb[0] == SCSI_ATA_16;
    const unsigned proto = (cdb[1] >> 1) & 0xf;
    struct ata_bio *bio = &cmd->bio;
    struct ata_bio_regs *r = &bio->regs;

    memset(bio, 0, sizeof(*bio));
    bio->op = ATA_BIO_TASKFILE;
    bio->result_tf = true; /* "result TF is copied back" (ata_scsi_pass_thru, 2.6.2x to 6.1) */
    switch (proto) {
    case 3: /* non-data */
        bio->proto = ATA_BIO_PROTO_NODATA;
        break;
    case 4: /* PIO data-in */
    case 5: /* PIO data-out */
        bio->proto = ATA_BIO_PROTO_PIO;
        break;
    case 6:  /* DMA */
    case 10: /* UDMA data in */
    case 11: /* UDMA data out */
        bio->proto = ATA_BIO_PROTO_DMA;
        if (!(dev->flags & ATA_DFLAG_DMA)) {
            sat_invalid_field(dev, cmd, 1, 0xff);
            return;
        }
        break;
    default: /* resets, diagnostics, queued (FPDMA) and response information: not issued */
        sat_invalid_field(dev, cmd, 1, 0xff);
        return;
    }
    if (sixteen) {
        if (cdb[1] & 1) {
            r->lba48 = true;
            r->hob_feature = cdb[3];
            r->hob_nsect = cdb[5];
            r->hob_lbal = cdb[7];
            r->hob_lbam = cdb[9];
            r->hob_lbah = cdb[11];
        }
        r->feature = cdb[4];
        r->nsect = cdb[6];
        r->lbal = cdb[8];
        r->lbam = cdb[10];
        r->lbah = cdb[12];
        r->device = cdb[13];
        r->command = cdb[14];
    } else {
        r->feature = cdb[3];
        r->nsect = cdb[4];
        r->lbal = cdb[5];
        r->lbam = cdb[6];
        r->lbah = cdb[7];
        r->device = cdb[8];
        r->command = cdb[9];
    }
    /* a MULTIPLE COUNT on a command that is not READ/WRITE MULTIPLE */
    if ((cdb[1] & 0xe0) && r->command != ATA_CMD_READ_MULTI && r->command != ATA_CMD_WRITE_MULTI &&
        r->command != ATA_CMD_READ_MULTI_EXT && r->command != ATA_CMD_WRITE_MULTI_EXT &&
        r->command != ATA_CMD_WRITE_MULTI_FUA_EXT) {
        sat_invalid_field(dev, cmd, 1, 0xff);
        return;
    }
    /* SET FEATURES - set transfer mode needs the controller's timing too: never passed */
    if (r->command == ATA_CMD_SET_FEATURES && r->feature == SETFEATURES_XFER) {
        sat_invalid_field(dev, cmd, sixteen ? 4 : 3, 0xff);
        return;
    }
    /* TPM commands are filtered (libata.allow_tpm is off) */
    if (r->command >= 0x5c && r->command <= 0x5f) {
        sat_invalid_field(dev, cmd, sixteen ? 14 : 9, 0xff);
        return;
    }
    if (bio->proto != ATA_BIO_PROTO_NODATA) {
        /* the data: the whole buffer, in 512-byte blocks, the way the protocol moves it */
        const bool to_dev = cmd->dir == ATA_SCSI_DIR_TO_DEV;

        if (cmd->dir == ATA_SCSI_DIR_NONE || !cmd->len || cmd->len % ATA_SECT_SIZE ||
            (proto == 4 && to_dev) || (proto == 5 && !to_dev) || (proto == 10 && to_dev) || (proto == 11 && !to_dev)) {
            sat_invalid_field(dev, cmd, 2, 0xff);
            return;
        }
        bio->tf_write = to_dev;
        bio->n_sectors = cmd->len / ATA_SECT_SIZE;
    }
    cmd->status = 0xff;
    return;
}

/* WRITE SAME (16) with UNMAP (SAT-4): DATA SET MANAGEMENT TRIM, the range list
 * written over the command's one-block data buffer (so never for SG_IO, whose buffer is the
 * user's: INVALID COMMAND OPERATION CODE, as libata). */
static bool sat_write_same(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    const uint8_t *cdb = cmd->cdb;
    uint64_t lba = (uint64_t)get_be(cdb + 2, 4) << 32 | get_be(cdb + 6, 4);
    uint32_t n = get_be(cdb + 10, 4);
    uint8_t list[ATA_TRIM_PAYLOAD];

    if (!(dev->flags & ATA_DFLAG_DMA) || cmd->passthrough)
        {
        sat_invalid_opcode(dev, cmd);
        return false;
    }
    if (!(cdb[1] & 0x08) || !ata_id_has_trim(dev->id)) /* UNMAP, and a device with TRIM */
        {
        sat_invalid_field(dev, cmd, 1, 3);
        return false;
    }
    if (n > ATA_TRIM_MAX_SECTORS)
        {
        sat_invalid_field(dev, cmd, 2, 0xff);
        return false;
    }
    if (cmd->len != ATA_SECT_SIZE || cmd->dir != ATA_SCSI_DIR_TO_DEV)
        {
        sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x1a, 0x00);
        return false;
    }
    if (lba >= dev->n_sectors || n > dev->n_sectors - lba)
        {
        sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x00);
        return false;
    }
    /* the range list as the block path's TRIM writes it (core/trim.c) */
    ata_trim_format(list, lba, n);
    if (sat_copy(dev, cmd, list, sizeof(list), true) != sizeof(list))
        {
        sat_sense(dev, cmd, SCSI_SK_ILLEGAL_REQUEST, 0x1a, 0x00);
        return false;
    }
    sat_taskfile(cmd, SAT_CMD_DSM, 0x01 /* TRIM */);
    cmd->bio.proto = ATA_BIO_PROTO_DMA;
    cmd->bio.tf_write = true;
    cmd->bio.n_sectors = 1;
    cmd->bio.regs.nsect = 1;
    cmd->bio.regs.lba48 = true;
    cmd->bio.regs.device |= ATA_LBA;
    sat_submit(dev, cmd);
    return true;
}

/* ---- dispatch ---- */

static unsigned cdb_len_of(uint8_t op)
{
    switch (op >> 5) {
    case 0:
        return 6;
    case 1:
    case 2:
        return 10;
    case 4:
        return 16;
    case 5:
        return 12;
    default:
        return 0;
    }
}

int ata_scsi_queuecmd(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    struct ata_port *ap;
    bool ok, queued = false;
    uint64_t have = 0;
    uint8_t op;

    if (!dev)
        return -ENODEV;
    if (!cmd || !cmd->done || (cmd->cdb_len != 6 && cmd->cdb_len != 10 && cmd->cdb_len != 12 && cmd->cdb_len != 16) ||
        (cmd->len && !cmd->sg) || (cmd->dir == ATA_SCSI_DIR_NONE && cmd->len))
        return -EINVAL;
    for (unsigned i = 0; i < cmd->n_sg; i++)
        have += cmd->sg[i].len;
    if (have < cmd->len)
        return -EINVAL;
    op = cmd->cdb[0];
    /* the data direction each command implies */
    if (cmd->len && ((op == SCSI_READ_6 || op == SCSI_READ_10 || op == SCSI_READ_16 || op == SCSI_INQUIRY ||
                      op == SCSI_MODE_SENSE_6 || op == SCSI_MODE_SENSE_10 || op == SCSI_READ_CAPACITY_10 ||
                      op == SCSI_SERVICE_IN_16 || op == SCSI_REQUEST_SENSE) &&
                     cmd->dir != ATA_SCSI_DIR_FROM_DEV))
        return -EINVAL;
    if (cmd->len && ((op == SCSI_WRITE_6 || op == SCSI_WRITE_10 || op == SCSI_WRITE_16 || op == SCSI_MODE_SELECT_6 ||
                      op == SCSI_MODE_SELECT_10 || op == SCSI_WRITE_SAME_16) &&
                     cmd->dir != ATA_SCSI_DIR_TO_DEV))
        return -EINVAL;
    ap = dev->link->ap;
    ata_lock(ap->host);
    ok = ata_dev_enabled(dev) && !(ap->pflags & ATA_PFLAG_UNLOADING);
    ata_unlock(ap->host);
    if (!ok)
        return -ENODEV;

    cmd->status = SAM_STAT_GOOD;
    cmd->sense_len = 0;
    memset(cmd->sense, 0, sizeof(cmd->sense));
    cmd->resid = cmd->len;
    cmd->err_mask = 0;
    cmd->ata_cmd = 0;
    if (dev->class == ATA_DEV_ATAPI)
        return ata_scsi_atapi_queuecmd(dev, cmd);
    if (dev->class != ATA_DEV_ATA && dev->class != ATA_DEV_ZAC)
        return -ENODEV;

    if (cdb_len_of(op) && cmd->cdb_len < cdb_len_of(op)) {
        sat_invalid_field(dev, cmd, (uint16_t)(cmd->cdb_len - 1), 0xff);
        sat_complete(dev, cmd);
        return 0;
    }
    switch (op) {
    case SCSI_TEST_UNIT_READY:
        break;
    case SCSI_REQUEST_SENSE:
        sat_request_sense(dev, cmd);
        break;
    case SCSI_INQUIRY:
        sat_inquiry(dev, cmd);
        break;
    case SCSI_READ_CAPACITY_10:
        sat_read_capacity(dev, cmd, false);
        break;
    case SCSI_SERVICE_IN_16:
        sat_read_capacity(dev, cmd, true);
        break;
    case SCSI_MODE_SENSE_6:
    case SCSI_MODE_SENSE_10:
        sat_mode_sense(dev, cmd);
        break;
    case SCSI_MODE_SELECT_6:
    case SCSI_MODE_SELECT_10:
        queued = sat_mode_select(dev, cmd);
        break;
    case SCSI_READ_6:
    case SCSI_READ_10:
    case SCSI_READ_16:
    case SCSI_WRITE_6:
    case SCSI_WRITE_10:
    case SCSI_WRITE_16:
        if (!sat_rw(dev, cmd))
            return -EINVAL;
        if (cmd->status == 0xff) {
            sat_submit(dev, cmd);
            queued = true;
        }
        break;
    case SCSI_SYNC_CACHE_10:
    case SCSI_SYNC_CACHE_16:
        memset(&cmd->bio, 0, sizeof(cmd->bio));
        cmd->bio.op = ATA_BIO_FLUSH;
        sat_submit(dev, cmd);
        queued = true;
        break;
    case SCSI_START_STOP:
        queued = sat_start_stop(dev, cmd);
        break;
    case SCSI_ATA_12:
    case SCSI_ATA_16:
        sat_pass_thru(dev, cmd);
        if (cmd->status == 0xff) {
            sat_submit(dev, cmd);
            queued = true;
        }
        break;
    case SCSI_WRITE_SAME_16:
        queued = sat_write_same(dev, cmd);
        break;
    case SCSI_VERIFY_10:
    case SCSI_VERIFY_16:
        queued = sat_verify(dev, cmd);
        break;
    case SCSI_REPORT_LUNS:
        sat_report_luns(dev, cmd);
        break;
    default:
        /* UNMAP among them: VPD page B2h offers WRITE SAME (16) only, as libata's */
        sat_invalid_opcode(dev, cmd);
        break;
    }
    if (!queued)
        sat_complete(dev, cmd);
    return 0;
}
