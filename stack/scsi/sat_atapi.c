/* The ATAPI entry point of the SCSI layer (docs/sat.md "ATAPI devices"): libata's atapi_xlat
 * and atapi_qc_complete. Nothing is translated: the SCSI command's CDB goes out unchanged as
 * a PACKET command through the block I/O path's ATA_BIO_PACKET request (core/atapi.c chooses
 * PIO or DMA and the byte count limit as atapi_check_dma / atapi_xlat do), and the status and
 * sense data EH read with REQUEST SENSE come back as the SCSI command's. */
#include <string.h>

#include "sat.h"

static void sat_atapi_done(struct ata_bio *bio)
{
    struct ata_scsi_cmd *cmd = bio->priv;
    struct ata_device *dev = cmd->q_dev;
    const struct ata_packet *pc = &cmd->q_packet;

    cmd->err_mask = bio->err_mask;
    cmd->q_dev = NULL;
    if (pc->status == SAM_STAT_GOOD) {
        cmd->status = SAM_STAT_GOOD;
        cmd->resid = 0; /* the device's byte counts are not summed up: a success moved len */
    } else if (pc->sense_len) {
        /* the sense data EH's REQUEST SENSE read (ATA_QCFLAG_SENSE_VALID), as the device gave
         * it: fixed format, whatever the control page says (sense is not translated) */
        cmd->status = SAM_STAT_CHECK_CONDITION;
        memset(cmd->sense, 0, sizeof(cmd->sense));
        memcpy(cmd->sense, pc->sense, pc->sense_len);
        cmd->sense_len = pc->sense_len;
        cmd->resid = cmd->len;
    } else {
        /* failed without sense (timeout, HSM or bus error, REQUEST SENSE failed): libata makes
         * sense from the taskfile (ata_gen_passthru_sense), or NOT READY, HARD RESET REQUIRED
         * for a device that is gone */
        cmd->resid = cmd->len;
        if (bio->err_mask & AC_ERR_NODEV_HINT) {
            sat_set_sense(cmd, dev->flags & ATA_DFLAG_D_SENSE, SCSI_SK_NOT_READY, 0x04, 0x21);
        } else {
            struct ata_bio_regs rtf = bio->result;
            uint8_t sk, asc, ascq;

            rtf.command = bio->status;
            rtf.feature = bio->error;
            sat_ata_to_sense(rtf.command, rtf.feature, &sk, &asc, &ascq);
            sat_set_sense(cmd, dev->flags & ATA_DFLAG_D_SENSE, sk, asc, ascq);
            sat_set_ata_status_return(cmd, &rtf);
        }
    }
    sat_complete(dev, cmd);
}

int ata_scsi_atapi_queuecmd(struct ata_device *dev, struct ata_scsi_cmd *cmd)
{
    struct ata_packet *pc;
    struct ata_bio *bio;
    int rc;

    if (!dev || !cmd || !cmd->done)
        return -EINVAL;
    /* a CDB longer than the device takes is the host's error, not sense (libata:
     * DID_ERROR); the packet path reads no data to the device */
    if (cmd->cdb_len > dev->cdb_len || cmd->cdb_len > sizeof(cmd->cdb) || cmd->dir == ATA_SCSI_DIR_TO_DEV)
        return -EINVAL;
    pc = &cmd->q_packet;
    memset(pc, 0, sizeof(*pc));
    memcpy(pc->cdb, cmd->cdb, cmd->cdb_len);
    pc->cdb_len = cmd->cdb_len;
    pc->dir = cmd->len ? ATA_PACKET_FROM_DEV : ATA_PACKET_NONE;
    pc->len = cmd->len;
    pc->pio = cmd->atapi_pio;               /* else DMA where atapi_check_dma allows it */
    pc->byte_count = cmd->atapi_byte_count; /* 0: libata's limit, len at most 63 KiB */

    bio = &cmd->bio;
    memset(bio, 0, sizeof(*bio));
    bio->op = ATA_BIO_PACKET;
    bio->packet = pc;
    bio->sg = cmd->len ? cmd->sg : NULL;
    bio->n_sg = cmd->len ? cmd->n_sg : 0;
    bio->passthrough = cmd->passthrough;
    bio->done = sat_atapi_done;
    bio->priv = cmd;
    cmd->q_dev = dev;
    cmd->status = SAM_STAT_GOOD;
    cmd->ata_cmd = ATA_CMD_PACKET;
    rc = ata_bio_submit(dev, bio);
    if (rc)
        cmd->q_dev = NULL;
    return rc;
}
