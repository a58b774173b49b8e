/* The Host Protected Area at configure time (ATA8-ACS 4.11, 7.48-7.50; docs/device.md 2), as
 * libata's ata_hpa_resize decides it: a device with the HPA feature set enabled is asked its
 * native size (READ NATIVE MAX ADDRESS (EXT)); sectors hidden beyond the IDENTIFY capacity are
 * reported ("HPA detected: current X, native Y"), or, with libata.ignore_hpa, unlocked with a
 * volatile SET MAX ADDRESS (EXT) to the native size and IDENTIFY read again ("HPA
 * unlocked: X -> Y, native Y"). A device that refuses either command is marked broken and
 * left as it is; another failure fails the configuration (EH retries it). */
#include <stdio.h>

#include "internal.h"

static uint64_t rtf_lba(const struct ata_taskfile *tf, bool lba48)
{
    uint64_t lba = (uint64_t)tf->lbah << 16 | (uint64_t)tf->lbam << 8 | tf->lbal;

    if (lba48)
        return lba | (uint64_t)tf->hob_lbah << 40 | (uint64_t)tf->hob_lbam << 32 | (uint64_t)tf->hob_lbal << 24;
    return lba | (uint64_t)(tf->device & 0xf) << 24;
}

static void hpa_warn(struct ata_device *dev, const char *what, unsigned err_mask)
{
    const struct sata_trace_field f[] = { TF_STR("what", what), TF_HEX("err_mask", err_mask) };

    ata_dev_ev(dev, ATA_EV("probe.hpa_cmd_failed", SATA_TC_DECISION, SATA_LOG_WARN, f),
               "failed to %s (err_mask=0x%x)", what, err_mask);
}

/* An internal HPA command; -EACCES when the device refused it (ABRT, or IDNF for SET MAX),
 * -EIO for anything else, 0 with the result taskfile in *tf. */
static int hpa_exec(struct ata_device *dev, struct ata_taskfile *tf, const char *what, uint8_t refused)
{
    unsigned err_mask = ata_exec_internal(dev, tf, NULL, 0, 0);

    if (!err_mask)
        return 0;
    hpa_warn(dev, what, err_mask);
    return err_mask == AC_ERR_DEV && (tf->feature & refused) ? -EACCES : -EIO;
}

static int read_native_max(struct ata_device *dev, bool lba48, uint64_t *sectors)
{
    struct ata_taskfile tf;
    int rc;

    ata_tf_init(dev, &tf);
    tf.protocol = ATA_PROT_NODATA;
    tf.command = lba48 ? ATA_CMD_READ_NATIVE_MAX_EXT : ATA_CMD_READ_NATIVE_MAX;
    tf.flags |= lba48 ? ATA_TFLAG_LBA48 : 0;
    tf.device |= ATA_LBA;
    rc = hpa_exec(dev, &tf, "read native max address", ATA_ABORTED);
    if (!rc)
        *sectors = rtf_lba(&tf, lba48) + 1;
    return rc;
}

static int set_max_sectors(struct ata_device *dev, bool lba48, uint64_t sectors)
{
    struct ata_taskfile tf;
    uint64_t max = sectors - 1;

    ata_tf_init(dev, &tf);
    tf.protocol = ATA_PROT_NODATA;
    tf.command = lba48 ? ATA_CMD_SET_MAX_EXT : ATA_CMD_SET_MAX;
    tf.flags |= lba48 ? ATA_TFLAG_LBA48 : 0;
    tf.device |= ATA_LBA | (lba48 ? 0 : (uint8_t)((max >> 24) & 0xf));
    tf.lbal = (uint8_t)max;
    tf.lbam = (uint8_t)(max >> 8);
    tf.lbah = (uint8_t)(max >> 16);
    if (lba48) {
        tf.hob_lbal = (uint8_t)(max >> 24);
        tf.hob_lbam = (uint8_t)(max >> 32);
        tf.hob_lbah = (uint8_t)(max >> 40);
    }
    /* Count bit 0 (VV) clear, as libata: the new size lasts until the next power-on or
     * hardware reset (a COMRESET); the configure after it unlocks again */
    return hpa_exec(dev, &tf, "set max address", ATA_ABORTED | ATA_IDNF);
}

/* No more HPA handling for this device (libata's ATA_HORKAGE_BROKEN_HPA), and why. */
static void hpa_broken(struct ata_device *dev, const char *line, uint64_t sectors, uint64_t native)
{
    const struct sata_trace_field f[] = { TF_INT("sectors", sectors), TF_INT("native", native) };

    dev->flags |= ATA_DFLAG_BROKEN_HPA;
    ata_dev_ev(dev, ATA_EV("probe.hpa_broken", SATA_TC_DECISION, SATA_LOG_WARN, f), "%s", line);
}

int ata_hpa_resize(struct ata_device *dev, bool print)
{
    const bool unlock = dev->link->ap->host->ignore_hpa;
    const bool lba48 = ata_id_has_lba48(dev->id);
    uint64_t sectors = ata_id_n_sectors(dev->id), native = 0, now;
    enum ata_dev_class cls = dev->class;
    int rc;

    if (dev->class != ATA_DEV_ATA || !ata_id_has_lba(dev->id) || !ata_id_hpa_enabled(dev->id) ||
        (dev->flags & ATA_DFLAG_BROKEN_HPA))
        return 0;

    rc = read_native_max(dev, lba48, &native);
    if (rc) {
        /* a refusal, or a failure that no unlock depends on: stop asking */
        if (rc == -EACCES || !unlock) {
            hpa_broken(dev, "HPA support seems broken, skipping HPA handling", sectors, native);
            if (rc == -EACCES)
                rc = 0;
        }
        return rc;
    }
    dev->n_native_sectors = native;

    if (native <= sectors || !unlock) {
        if (!print || native == sectors)
            return 0;
        if (native > sectors) {
            const struct sata_trace_field f[] = { TF_INT("sectors", sectors), TF_INT("native", native) };

            ata_dev_ev(dev, ATA_EV("probe.hpa_detected", SATA_TC_DECISION, SATA_LOG_INFO, f),
                       "HPA detected: current %llu, native %llu", (unsigned long long)sectors,
                       (unsigned long long)native);
        } else {
            const struct sata_trace_field f[] = { TF_INT("sectors", sectors), TF_INT("native", native) };

            ata_dev_ev(dev, ATA_EV("probe.hpa_native_smaller", SATA_TC_DECISION, SATA_LOG_WARN, f),
                       "native sectors (%llu) is smaller than sectors (%llu)", (unsigned long long)native,
                       (unsigned long long)sectors);
        }
        return 0;
    }

    rc = set_max_sectors(dev, lba48, native);
    if (rc == -EACCES) {
        char line[96];

        snprintf(line, sizeof(line), "device aborted resize (%llu -> %llu), skipping HPA handling",
                 (unsigned long long)sectors, (unsigned long long)native);
        hpa_broken(dev, line, sectors, native);
        return 0;
    }
    if (rc)
        return rc;

    /* IDENTIFY again: its capacity words now say the native size */
    rc = ata_dev_read_id(dev, &cls, dev->id);
    if (rc) {
        const struct sata_trace_field f[] = { TF_INT("errno", rc) };

        ata_dev_ev(dev, ATA_EV("probe.hpa_reread_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                   "failed to re-read IDENTIFY data after HPA resizing");
        return rc;
    }
    now = ata_id_n_sectors(dev->id);
    if (print) {
        const struct sata_trace_field f[] = { TF_INT("sectors", sectors), TF_INT("new", now),
                                              TF_INT("native", native) };

        ata_dev_ev(dev, ATA_EV("probe.hpa_unlocked", SATA_TC_DECISION, SATA_LOG_INFO, f),
                   "HPA unlocked: %llu -> %llu, native %llu", (unsigned long long)sectors,
                   (unsigned long long)now, (unsigned long long)native);
    }
    return 0;
}
