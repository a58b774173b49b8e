/* General purpose logs (ACS-3 9.1): READ LOG EXT of one page into the port's log buffer, the
 * log directory's page count for a log (libata's ata_log_supported), and whether the IDENTIFY
 * DEVICE data log has a page (ata_identify_page_supported). The callers read what the page
 * holds: trim.c the NCQ Send and Receive log, lpm.c the DEVSLP timing. */
#include "internal.h"

/* libata's ata_read_log_page, which since 5.16 names the page it could not read; returns
 * err_mask. */
unsigned ata_read_log_page(struct ata_device *dev, uint8_t log, uint8_t page, bool print)
{
    struct ata_port *ap = dev->link->ap;
    struct ata_taskfile tf;
    unsigned err_mask;

    ata_tf_init(dev, &tf);
    tf.protocol = ATA_PROT_PIO;
    tf.flags |= ATA_TFLAG_LBA48;
    tf.command = ATA_CMD_READ_LOG_EXT;
    tf.lbal = log;
    tf.lbam = page;
    tf.nsect = 1;
    err_mask = ata_exec_internal(dev, &tf, &ap->log_buf, ATA_SECT_SIZE, 0);
    if (err_mask && print) {
        const struct sata_trace_field f[] = { TF_HEX("log", log), TF_HEX("page", page), TF_HEX("err_mask", err_mask) };

        ata_dev_ev(dev, ATA_EV("probe.read_log_failed", SATA_TC_DECISION, SATA_LOG_WARN, f),
                   "Read log 0x%02x page 0x%02x failed, Emask 0x%x", log, page, err_mask);
    }
    return err_mask;
}

/* The pages the log directory gives a log (0: not supported, or the directory unreadable). */
unsigned ata_log_supported(struct ata_device *dev, uint8_t log, bool print)
{
    const uint8_t *buf = dev->link->ap->log_buf.cpu;

    if (ata_read_log_page(dev, ATA_LOG_DIRECTORY, 0, print))
        return 0;
    return (unsigned)buf[2 * log] | (unsigned)buf[2 * log + 1] << 8;
}

/* libata 6.x: the IDENTIFY DEVICE data log is mandatory from ACS-3 (ATA major 10) on, so its
 * absence is worth a warning there; page 00h lists the pages it has. */
bool ata_identify_page_supported(struct ata_device *dev, uint8_t page, bool print)
{
    const uint8_t *buf = dev->link->ap->log_buf.cpu;

    if (!ata_log_supported(dev, ATA_LOG_IDENTIFY_DEVICE, print)) {
        if (print && ata_id_major_version(dev->id) >= 10)
            ata_dev_ev(dev, ATA_EV0("probe.id_log_missing", SATA_TC_DECISION, SATA_LOG_WARN),
                       "ATA Identify Device Log not supported");
        return false;
    }
    if (ata_read_log_page(dev, ATA_LOG_IDENTIFY_DEVICE, 0, print))
        return false;
    for (unsigned i = 0; i < buf[8]; i++)
        if (buf[9 + i] == page)
            return true;
    return false;
}
