/* The SAT layer's private declarations (stack/scsi/), shared with the stack's unit tests:
 * the sense-data builders (sat_sense.c) and the IDENTIFY words the translation reads. */
#ifndef SATASIM_SAT_H
#define SATASIM_SAT_H

#include "internal.h"
#include "satasim/scsi.h"

/* ---- sat_sense.c: sense data as libata builds it (SPC-4 4.5, SAT-4) ---- */
/* The sense key / ASC / ASCQ of a failed ATA command from its Status and Error registers:
 * libata's ata_to_sense_error (docs/sat.md "Sense table"). */
void sat_ata_to_sense(uint8_t status, uint8_t error, uint8_t *sk, uint8_t *asc, uint8_t *ascq);
/* CHECK CONDITION with fresh sense data: descriptor format (72h, SPC-4 4.5.2) when desc,
 * else fixed format (70h, SPC-4 4.5.3). */
void sat_set_sense(struct ata_scsi_cmd *cmd, bool desc, uint8_t sk, uint8_t asc, uint8_t ascq);
/* The INFORMATION field (SPC-4 4.5.2.2 descriptor 00h / fixed bytes 3-6 with VALID):
 * fixed format keeps the low 32 bits, as Linux's scsi_set_sense_information does. */
void sat_set_sense_info(struct ata_scsi_cmd *cmd, uint64_t info);
/* ILLEGAL REQUEST, INVALID FIELD IN CDB (24h/00h) or, with in_cdb false, INVALID FIELD IN
 * PARAMETER LIST (26h/00h), with the sense-key-specific field pointer (SPC-4 4.5.2.4.2):
 * byte `field`, bit `bit` (0xff: the whole byte, BPV 0). */
void sat_set_invalid_field(struct ata_scsi_cmd *cmd, bool desc, bool in_cdb, uint16_t field, uint8_t bit);
/* ATA PASS-THROUGH results (SAT-4): the ATA Status Return descriptor (09h) in
 * descriptor format, the registers in the INFORMATION/COMMAND-SPECIFIC fields in fixed. */
void sat_set_ata_status_return(struct ata_scsi_cmd *cmd, const struct ata_bio_regs *rtf);

/* ---- sat.c ---- */
/* The command is finished: its scsi.done / scsi.sense record, then the initiator's done(). */
void sat_complete(struct ata_device *dev, struct ata_scsi_cmd *cmd);

/* ---- IDENTIFY words the translation reads (ACS-3, IDENTIFY DEVICE data) ---- */
unsigned sat_id_log2_per_physical(const uint16_t *id); /* word 106 bits 3:0 when valid */
uint16_t sat_id_lowest_aligned(const uint16_t *id, unsigned log2_per_phys); /* word 209 */
bool sat_id_wcache_enabled(const uint16_t *id);   /* word 85 bit 5, word 87 valid */
bool sat_id_rahead_enabled(const uint16_t *id);   /* word 85 bit 6, word 87 valid */

#endif
