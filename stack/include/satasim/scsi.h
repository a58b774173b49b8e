/* Public API of the stack's SCSI/ATA translation layer (stack/scsi/, docs/sat.md): what
 * Linux's libata-scsi is between the SCSI midlayer and libata. A SCSI command (CDB, data
 * buffer, direction, length) goes in; it is answered from the device's IDENTIFY data
 * (INQUIRY, READ CAPACITY, MODE SENSE, ...) or translated into ATA commands that go through
 * the block I/O path (ata_bio_submit: tags, NCQ/non-NCQ exclusion, EH); SCSI status and sense
 * data come out. An ATAPI device gets the CDB passed through unchanged.
 * Standards: SAT-4 (T10 BSR INCITS 491) for the translation, SPC-4 (T10/1731-D) for sense
 * data, INQUIRY and mode pages, SBC-3 (T10/1799-D) for the block commands.
 */
#ifndef SATASIM_SCSI_H
#define SATASIM_SCSI_H

#include <stdbool.h>
#include <stdint.h>

#include "ata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operation codes (SPC-4 / SBC-3 / SAT-4). */
enum {
    SCSI_TEST_UNIT_READY = 0x00, SCSI_REQUEST_SENSE = 0x03, SCSI_READ_6 = 0x08, SCSI_WRITE_6 = 0x0a,
    SCSI_INQUIRY = 0x12, SCSI_MODE_SELECT_6 = 0x15, SCSI_MODE_SENSE_6 = 0x1a, SCSI_START_STOP = 0x1b,
    SCSI_READ_CAPACITY_10 = 0x25, SCSI_READ_10 = 0x28, SCSI_WRITE_10 = 0x2a, SCSI_SYNC_CACHE_10 = 0x35,
    SCSI_UNMAP = 0x42, SCSI_MODE_SELECT_10 = 0x55, SCSI_MODE_SENSE_10 = 0x5a, SCSI_ATA_16 = 0x85,
    SCSI_READ_16 = 0x88, SCSI_WRITE_16 = 0x8a, SCSI_SYNC_CACHE_16 = 0x91, SCSI_WRITE_SAME_16 = 0x93,
    SCSI_SERVICE_IN_16 = 0x9e, SCSI_ATA_12 = 0xa1, SCSI_VERIFY_10 = 0x2f, SCSI_VERIFY_16 = 0x8f,
    SCSI_REPORT_LUNS = 0xa0,
    SCSI_SAI_READ_CAPACITY_16 = 0x10, /* SERVICE ACTION IN (16) service action */
};

/* SAM-5 status codes. */
enum { SAM_STAT_GOOD = 0x00, SAM_STAT_CHECK_CONDITION = 0x02 };

/* SPC-4 sense keys. */
enum {
    SCSI_SK_NO_SENSE = 0x0, SCSI_SK_RECOVERED_ERROR = 0x1, SCSI_SK_NOT_READY = 0x2, SCSI_SK_MEDIUM_ERROR = 0x3,
    SCSI_SK_HARDWARE_ERROR = 0x4, SCSI_SK_ILLEGAL_REQUEST = 0x5, SCSI_SK_UNIT_ATTENTION = 0x6,
    SCSI_SK_ABORTED_COMMAND = 0xb,
};

enum { ATA_SCSI_SENSE_MAX = 96 }; /* the midlayer's SCSI_SENSE_BUFFERSIZE */

enum ata_scsi_dir { ATA_SCSI_DIR_NONE = 0, ATA_SCSI_DIR_TO_DEV, ATA_SCSI_DIR_FROM_DEV };

struct ata_scsi_cmd {
    /* in */
    uint8_t cdb[16];
    unsigned cdb_len;            /* 6, 10, 12 or 16 */
    enum ata_scsi_dir dir;
    const struct ata_sg *sg;     /* the data buffer by bus address (dma_alloc memory) */
    unsigned n_sg;
    uint32_t len;                /* bytes the buffer holds (the transfer the initiator allows) */
    /* a SCSI pass-through request (SG_IO, as sg_raw sends it: no retries above EH, no block
     * layer I/O error line) rather than the disk driver's own request (sd: 5 retries) */
    bool passthrough;
    /* the block layer's tag for the request (a disk's ATA command takes it if it is free,
     * else the lowest free one; ata_bio.want_tag): which command slot keeps its result */
    bool want_tag;
    unsigned blk_tag;
    /* an ATAPI device only (a disk ignores them): PIO even where DMA is allowed, and the byte
     * count limit to program (0: libata's, len capped at 63 KiB). A test's choice, as QEMU's
     * ahci-test makes it: libata itself picks both (atapi_check_dma, atapi_xlat) */
    bool atapi_pio;
    uint16_t atapi_byte_count;
    void (*done)(struct ata_scsi_cmd *cmd); /* called once: from ata_scsi_queuecmd for a
                                               command answered at once, else irq/EH context */
    void *priv;
    /* out, valid in done() */
    uint8_t status;              /* SAM_STAT_GOOD or SAM_STAT_CHECK_CONDITION */
    uint8_t sense[ATA_SCSI_SENSE_MAX];
    unsigned sense_len;          /* 0 = no sense data */
    uint32_t resid;              /* bytes of len not transferred */
    unsigned err_mask;           /* AC_ERR_* of the ATA command, 0 if none ran or it succeeded */
    uint8_t ata_cmd;             /* the ATA command it became, 0 if answered without one */
    /* private to the stack while queued; leave zeroed */
    struct ata_bio bio;
    struct ata_packet q_packet;  /* an ATAPI device's PACKET command (ata_scsi_atapi_queuecmd) */
    struct ata_device *q_dev;
    uint32_t q_xfer;             /* bytes a success moves */
};

/* Queue a SCSI command to dev (libata's ata_scsi_queuecmd). Returns 0, and done() will be
 * called (possibly before this returns), or a negative errno: -ENODEV no usable device,
 * -EINVAL a malformed command struct (CDB length, buffer shorter than len, no done). An
 * unsupported or malformed CDB is not an errno: it completes with CHECK CONDITION and the
 * sense data libata gives (ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE or INVALID
 * FIELD IN CDB with the field pointer). A device of class ATAPI takes the CDB unchanged
 * (ata_scsi_atapi_queuecmd). */
int ata_scsi_queuecmd(struct ata_device *dev, struct ata_scsi_cmd *cmd);

/* The ATAPI entry point (libata's atapi_xlat): the CDB goes to the device unchanged as a
 * PACKET command (an ATA_BIO_PACKET request: DMA where libata's atapi_check_dma allows it,
 * the byte count limit libata's). ata_scsi_queuecmd calls it for an ATAPI device. done()
 * gets GOOD, or CHECK CONDITION with the sense data EH's REQUEST SENSE read from the device
 * (fixed format, as the device gives it), or, for a command that failed without sense, the
 * sense libata makes from the taskfile. Returns 0, or -EINVAL for a CDB longer than the
 * device's packet size (libata: DID_ERROR) or data to the device (the packet path reads
 * only), or ata_bio_submit's errno. */
int ata_scsi_atapi_queuecmd(struct ata_device *dev, struct ata_scsi_cmd *cmd);

/* Sense key, ASC and ASCQ of sense data in either format (SPC-4 4.5.2/4.5.3); false if the
 * buffer holds none (response code not 70h-73h, or too short). */
bool ata_scsi_sense_parse(const uint8_t *sense, unsigned len, uint8_t *key, uint8_t *asc, uint8_t *ascq);

#ifdef __cplusplus
}
#endif

#endif
