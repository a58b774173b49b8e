/* Sense data as libata builds it: the ATA Status/Error -> sense key, ASC, ASCQ table
 * (libata's ata_to_sense_error, Linux 6.x before the July 2025 status-table change; compared
 * row by row with SAT, as a SATL implements it, in docs/sat.md), fixed (70h) and descriptor
 * (72h) format (SPC-4 4.5.3 / 4.5.2), the INFORMATION field, the sense-key specific field
 * pointer and the ATA Status Return descriptor (SAT-4). */
#include <string.h>

#include "sat.h"

/* Error register bits in priority order: the first entry whose bits are all set wins
 * (several bits at once first). ABRT alone is not in it: it says too little, and the
 * Status register decides. */
static const struct sat_sense_row {
    uint8_t bits, sk, asc, ascq;
} sat_err_table[] = {
    { 0xd1, SCSI_SK_ABORTED_COMMAND, 0x00, 0x00 }, /* BBK|UNC|IDNF|AMNF: device busy */
    { 0xd0, SCSI_SK_ABORTED_COMMAND, 0x00, 0x00 }, /* BBK|UNC|IDNF: device busy */
    { 0x61, SCSI_SK_HARDWARE_ERROR, 0x00, 0x00 },  /* UNC|MC|AMNF: device fault */
    { 0x84, SCSI_SK_ABORTED_COMMAND, 0x47, 0x00 }, /* ICRC|ABRT: interface CRC, "SCSI PARITY ERROR" */
    { 0x37, SCSI_SK_NOT_READY, 0x04, 0x00 },       /* MC|IDNF|ABRT|TK0NF|AMNF: unit offline */
    { 0x09, SCSI_SK_NOT_READY, 0x04, 0x00 },       /* MCR|AMNF: unrecovered disk error */
    { 0x01, SCSI_SK_MEDIUM_ERROR, 0x13, 0x00 },    /* AMNF: "ADDRESS MARK NOT FOUND FOR DATA FIELD" */
    { 0x02, SCSI_SK_HARDWARE_ERROR, 0x00, 0x00 },  /* TK0NF: track 0 not found */
    { 0x08, SCSI_SK_NOT_READY, 0x04, 0x00 },       /* MCR: media change request */
    { 0x10, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x00 }, /* IDNF: "LOGICAL BLOCK ADDRESS OUT OF RANGE" */
    { 0x20, SCSI_SK_UNIT_ATTENTION, 0x28, 0x00 },  /* MC: "NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED" */
    { 0x40, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04 },    /* UNC: "UNRECOVERED READ ERROR - AUTO REALLOCATE FAILED" */
    { 0x80, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04 },    /* BBK: block marked bad */
};

/* Status register bits, when no Error row matched: the first bit set wins (BSY first: with
 * BSY set no other bit, Error register included, means anything). */
static const struct sat_sense_row sat_stat_table[] = {
    { ATA_BUSY, SCSI_SK_ABORTED_COMMAND, 0x47, 0x00 }, /* BSY: "SCSI PARITY ERROR" stands in */
    { ATA_DRDY, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x04 }, /* DRDY: "UNALIGNED WRITE COMMAND" */
    { ATA_DF, SCSI_SK_HARDWARE_ERROR, 0x44, 0x00 },    /* DF: "INTERNAL TARGET FAILURE" */
    { ATA_DRQ, SCSI_SK_ABORTED_COMMAND, 0x47, 0x00 },  /* DRQ: transfer timed out */
    { 0x04, SCSI_SK_RECOVERED_ERROR, 0x11, 0x00 },     /* CORR (obsolete): recovered ECC error */
};

void sat_ata_to_sense(uint8_t status, uint8_t error, uint8_t *sk, uint8_t *asc, uint8_t *ascq)
{
    const struct sat_sense_row *hit = NULL;

    if (status & ATA_BUSY)
        error = 0;
    for (unsigned i = 0; error && !hit && i < ATA_ARRAY_SIZE(sat_err_table); i++)
        if ((error & sat_err_table[i].bits) == sat_err_table[i].bits)
            hit = &sat_err_table[i];
    for (unsigned i = 0; !hit && i < ATA_ARRAY_SIZE(sat_stat_table); i++)
        if (status & sat_stat_table[i].bits)
            hit = &sat_stat_table[i];
    if (!hit) { /* nothing to go by: an error no one could act on wrongly */
        *sk = SCSI_SK_ABORTED_COMMAND;
        *asc = *ascq = 0;
        return;
    }
    *sk = hit->sk;
    *asc = hit->asc;
    *ascq = hit->ascq;
}

static bool sense_is_desc(const struct ata_scsi_cmd *cmd)
{
    return cmd->sense_len && (cmd->sense[0] & 0x7f) >= 0x72;
}

void sat_set_sense(struct ata_scsi_cmd *cmd, bool desc, uint8_t sk, uint8_t asc, uint8_t ascq)
{
    memset(cmd->sense, 0, sizeof(cmd->sense));
    cmd->status = SAM_STAT_CHECK_CONDITION;
    if (desc) {
        /* SPC-4 4.5.2: response code 72h, key, ASC, ASCQ, additional length (byte 7) */
        cmd->sense[0] = 0x72;
        cmd->sense[1] = sk & 0xf;
        cmd->sense[2] = asc;
        cmd->sense[3] = ascq;
        cmd->sense_len = 8;
    } else {
        /* SPC-4 4.5.3: response code 70h, key in byte 2, additional length 0Ah, ASC/ASCQ in
         * bytes 12/13 */
        cmd->sense[0] = 0x70;
        cmd->sense[2] = sk & 0xf;
        cmd->sense[7] = 0x0a;
        cmd->sense[12] = asc;
        cmd->sense[13] = ascq;
        cmd->sense_len = 18;
    }
}

/* A new descriptor of len bytes at the end of descriptor-format sense data; NULL if the
 * buffer is full. */
static uint8_t *sense_add_desc(struct ata_scsi_cmd *cmd, unsigned len)
{
    uint8_t *d;

    if (cmd->sense_len + len > sizeof(cmd->sense))
        return NULL;
    d = cmd->sense + cmd->sense_len;
    cmd->sense_len += len;
    cmd->sense[7] = (uint8_t)(cmd->sense_len - 8);
    return d;
}

void sat_set_sense_info(struct ata_scsi_cmd *cmd, uint64_t info)
{
    if (sense_is_desc(cmd)) {
        /* SPC-4 4.5.2.2: type 00h, additional length 0Ah, VALID, 8 bytes big-endian */
        uint8_t *d = sense_add_desc(cmd, 12);

        if (!d)
            return;
        d[0] = 0x00;
        d[1] = 0x0a;
        d[2] = 0x80;
        for (unsigned i = 0; i < 8; i++)
            d[4 + i] = (uint8_t)(info >> (56 - 8 * i));
    } else if (cmd->sense_len) {
        cmd->sense[0] |= 0x80; /* VALID */
        for (unsigned i = 0; i < 4; i++)
            cmd->sense[3 + i] = (uint8_t)(info >> (24 - 8 * i));
    }
}

void sat_set_invalid_field(struct ata_scsi_cmd *cmd, bool desc, bool in_cdb, uint16_t field, uint8_t bit)
{
    uint8_t sks[3];

    sat_set_sense(cmd, desc, SCSI_SK_ILLEGAL_REQUEST, in_cdb ? 0x24 : 0x26, 0x00);
    /* SPC-4 4.5.2.4.2 field pointer: SKSV, C/D (1 = the CDB), BPV + bit pointer, field */
    sks[0] = (uint8_t)(0x80 | (in_cdb ? 0x40 : 0) | (bit != 0xff ? 0x08 | (bit & 7) : 0));
    sks[1] = (uint8_t)(field >> 8);
    sks[2] = (uint8_t)field;
    if (desc) {
        /* SPC-4 4.5.2.4.1: sense key specific descriptor, type 02h, additional length 06h */
        uint8_t *d = sense_add_desc(cmd, 8);

        if (d) {
            d[0] = 0x02;
            d[1] = 0x06;
            memcpy(d + 4, sks, 3);
        }
    } else {
        memcpy(cmd->sense + 15, sks, 3); /* SPC-4 4.5.3: bytes 15-17 */
    }
}

void sat_set_ata_status_return(struct ata_scsi_cmd *cmd, const struct ata_bio_regs *rtf)
{
    if (sense_is_desc(cmd)) {
        /* SAT-4 ATA Status Return descriptor: 09h, additional length 0Ch, EXTEND,
         * ERROR, COUNT 15:8/7:0, LBA 31:24/7:0, 39:32/15:8, 47:40/23:16, DEVICE, STATUS */
        uint8_t *d = sense_add_desc(cmd, 14);

        if (!d)
            return;
        d[0] = 0x09;
        d[1] = 0x0c;
        d[2] = rtf->lba48 ? 0x01 : 0x00;
        d[3] = rtf->feature;
        d[5] = rtf->nsect;
        d[7] = rtf->lbal;
        d[9] = rtf->lbam;
        d[11] = rtf->lbah;
        d[12] = rtf->device;
        d[13] = rtf->command;
        if (rtf->lba48) {
            d[4] = rtf->hob_nsect;
            d[6] = rtf->hob_lbal;
            d[8] = rtf->hob_lbam;
            d[10] = rtf->hob_lbah;
        }
    } else if (cmd->sense_len) {
        /* SAT-4 fixed format: INFORMATION = ERROR, STATUS, DEVICE, COUNT 7:0;
         * COMMAND-SPECIFIC INFORMATION = EXTEND, COUNT UPPER NONZERO, LBA UPPER NONZERO,
         * then LBA 7:0, 15:8, 23:16 */
        uint8_t *s = cmd->sense;

        s[0] |= 0x80;
        s[3] = rtf->feature;
        s[4] = rtf->command;
        s[5] = rtf->device;
        s[6] = rtf->nsect;
        if (rtf->lba48) {
            s[8] |= 0x80;
            if (rtf->hob_nsect)
                s[8] |= 0x40;
            if (rtf->hob_lbal || rtf->hob_lbam || rtf->hob_lbah)
                s[8] |= 0x20;
        }
        s[9] = rtf->lbal;
        s[10] = rtf->lbam;
        s[11] = rtf->lbah;
    }
}

bool ata_scsi_sense_parse(const uint8_t *sense, unsigned len, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
    uint8_t code;

    if (!sense || len < 4)
        return false;
    code = sense[0] & 0x7f;
    if (code == 0x72 || code == 0x73) {
        *key = sense[1] & 0xf;
        *asc = sense[2];
        *ascq = sense[3];
        return true;
    }
    if ((code == 0x70 || code == 0x71) && len >= 14) {
        *key = sense[2] & 0xf;
        *asc = sense[12];
        *ascq = sense[13];
        return true;
    }
    return false;
}
