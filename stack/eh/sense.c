/* ATAPI sense in EH: a packet command that ended with ERR (CHECK CONDITION) has its sense
 * read by EH with REQUEST SENSE as an internal command, before anything else talks to the
 * device (libata's atapi_eh_request_sense, its rules only). The sense buffer is prefilled
 * with the sense key the Error register carried (bits 7:4), so a REQUEST SENSE that fails
 * still leaves the key; the command runs PIO with a byte count of the allocation length. */
#include <string.h>

#include "internal.h"

enum { ATAPI_SENSE_ALLOC = 96 }; /* the SCSI layer's sense buffer size (SCSI_SENSE_BUFFERSIZE) */

unsigned atapi_eh_request_sense(struct ata_device *dev, uint8_t *sense, unsigned sense_len, uint8_t dfl_key)
{
    struct ata_port *ap = dev->link->ap;
    uint8_t cdb[16] = { 0x03, 0, 0, 0, ATAPI_SENSE_ALLOC };
    struct ata_taskfile tf;
    unsigned err_mask;

    memset(sense, 0, sense_len);
    if (sense_len >= 14) {
        sense[0] = 0x70;
        sense[2] = dfl_key;
        sense[7] = 10;
    }
    atapi_build_tf(dev, ATAPI_SENSE_ALLOC, false, 0, &tf);
    err_mask = ata_exec_internal_cdb(dev, &tf, cdb, &ap->id_buf, ATAPI_SENSE_ALLOC, 0);
    {
        const uint8_t *b = ap->id_buf.cpu;
        const struct sata_trace_field f[] = {
            TF_HEX("err_mask", err_mask), TF_HEX("key", err_mask ? dfl_key : b[2] & 0xf),
            TF_HEX("asc", err_mask ? 0 : b[12]), TF_HEX("ascq", err_mask ? 0 : b[13]),
        };
        ata_dev_ev(dev, ATA_EV("eh.request_sense", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        if (!err_mask)
            memcpy(sense, b, sense_len < ATAPI_SENSE_ALLOC ? sense_len : ATAPI_SENSE_ALLOC);
    }
    return err_mask;
}
