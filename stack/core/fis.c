/* Taskfile <-> Register FIS conversion (docs/hardware.md 1.3, 1.4) and signature classification. */
#include <string.h>

#include "internal.h"

void ata_tf_init(const struct ata_device *dev, struct ata_taskfile *tf)
{
    memset(tf, 0, sizeof(*tf));
    tf->ctl = ATA_DEVCTL_OBS;
    /* the obsolete bits are still set as on PATA; DEV addresses device 1 of a taskfile
     * channel with a slave (master/slave emulation), a SATA link's one device is device 0 */
    tf->device = dev && dev->devno ? ATA_DEVICE_OBS | ATA_DEV1 : ATA_DEVICE_OBS;
}

void ata_tf_to_fis(const struct ata_taskfile *tf, unsigned pmp, bool is_cmd, uint8_t fis[20])
{
    memset(fis, 0, SATA_FIS_REG_LEN);
    fis[0] = SATA_FIS_REG_H2D;
    fis[1] = (uint8_t)((pmp & 0xf) | (is_cmd ? SATA_FIS_C : 0));
    fis[2] = tf->command;
    fis[3] = tf->feature;
    fis[4] = tf->lbal;
    fis[5] = tf->lbam;
    fis[6] = tf->lbah;
    fis[7] = tf->device;
    fis[8] = tf->hob_lbal;
    fis[9] = tf->hob_lbam;
    fis[10] = tf->hob_lbah;
    fis[11] = tf->hob_feature;
    fis[12] = tf->nsect;
    fis[13] = tf->hob_nsect;
    fis[15] = tf->ctl;
    fis[16] = (uint8_t)tf->auxiliary;
    fis[17] = (uint8_t)(tf->auxiliary >> 8);
    fis[18] = (uint8_t)(tf->auxiliary >> 16);
    fis[19] = (uint8_t)(tf->auxiliary >> 24);
}

/* D2H (and the shared register bytes of PIO Setup): status and error land in the
 * command and feature slots, as libata keeps them. */
void ata_tf_from_fis(const uint8_t fis[20], struct ata_taskfile *tf)
{
    tf->command = fis[2];
    tf->feature = fis[3];
    tf->lbal = fis[4];
    tf->lbam = fis[5];
    tf->lbah = fis[6];
    tf->device = fis[7];
    tf->hob_lbal = fis[8];
    tf->hob_lbam = fis[9];
    tf->hob_lbah = fis[10];
    tf->nsect = fis[12];
    tf->hob_nsect = fis[13];
}

/* Only LBA mid/high of the signature count (docs/libata-eh.md 7.1). */
enum ata_dev_class ata_dev_classify(const struct ata_taskfile *tf)
{
    static const struct {
        uint8_t lbam, lbah;
        enum ata_dev_class cls;
    } sig[] = {
        { 0x00, 0x00, ATA_DEV_ATA }, { 0x14, 0xeb, ATA_DEV_ATAPI }, { 0x69, 0x96, ATA_DEV_PMP },
        { 0x3c, 0xc3, ATA_DEV_SEMB }, { 0xcd, 0xab, ATA_DEV_ZAC },
    };

    for (size_t i = 0; i < ATA_ARRAY_SIZE(sig); i++)
        if (tf->lbam == sig[i].lbam && tf->lbah == sig[i].lbah)
            return sig[i].cls;
    return ATA_DEV_UNKNOWN;
}
