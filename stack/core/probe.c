/* Probe of a device, run in the EH context: IDENTIFY (with the class fallback), configure
 * from the IDENTIFY decisions (identify.c), revalidation of a known device and the transfer
 * mode (docs/libata-eh.md 3.6, 7). EH's reset and recovery loop that call these are in
 * eh/reset.c and eh/recover.c. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- IDENTIFY ---- */

int ata_dev_read_id(struct ata_device *dev, enum ata_dev_class *cls, uint16_t *id)
{
    struct ata_port *ap = dev->link->ap;
    const uint8_t *raw = ap->id_buf.cpu;
    bool may_fallback = true;
    struct ata_taskfile tf;
    const char *reason;
    unsigned err_mask;
    int rc;

retry:
    ata_tf_init(dev, &tf);
    switch (*cls) {
    case ATA_DEV_ATA:
    case ATA_DEV_SEMB: /* some disks report the SEMB signature */
    case ATA_DEV_ZAC:
        tf.command = ATA_CMD_ID_ATA;
        break;
    case ATA_DEV_ATAPI:
        tf.command = ATA_CMD_ID_ATAPI;
        break;
    default:
        rc = -ENODEV;
        reason = "unsupported class";
        err_mask = 0;
        goto err;
    }
    tf.protocol = ATA_PROT_PIO;
    err_mask = ata_exec_internal(dev, &tf, &ap->id_buf, ATA_SECT_SIZE, 0);
    if (err_mask) {
        if (err_mask & AC_ERR_NODEV_HINT)
            return -ENOENT;
        /* the device may have reported the wrong class: try the other IDENTIFY once */
        if (err_mask == AC_ERR_DEV && (tf.feature & ATA_ABORTED)) {
            if (may_fallback && (*cls == ATA_DEV_ATA || *cls == ATA_DEV_ATAPI)) {
                may_fallback = false;
                *cls = *cls == ATA_DEV_ATA ? ATA_DEV_ATAPI : ATA_DEV_ATA;
                goto retry;
            }
            ata_dev_ev(dev, ATA_EV0("probe.identify_aborted", SATA_TC_DECISION, SATA_LOG_DEBUG),
                       "both IDENTIFYs aborted, assuming NODEV");
            return -ENOENT;
        }
        rc = -EIO;
        reason = "I/O error";
        goto err;
    }
    for (unsigned i = 0; i < ATA_ID_WORDS; i++)
        id[i] = (uint16_t)(raw[2 * i] | raw[2 * i + 1] << 8);

    if (*cls == ATA_DEV_ATAPI ? ata_id_is_ata(id) : !(ata_id_is_ata(id) || ata_id_is_cfa(id))) {
        rc = -EINVAL;
        reason = "device reports invalid type";
        goto err;
    }
    if (*cls == ATA_DEV_SEMB)
        *cls = ATA_DEV_ATA;
    return 0;

err:
    {
        const struct sata_trace_field f[] = { TF_INT("errno", rc), TF_HEX("err_mask", err_mask),
                                              TF_STR("reason", reason) };

        ata_dev_ev(dev, ATA_EV("probe.identify_failed", SATA_TC_DECISION, SATA_LOG_WARN, f),
                   "failed to IDENTIFY (%s, err_mask=0x%x)", reason, err_mask);
    }
    return rc;
}

/* ---- configure ---- */

unsigned ata_exec_nodata(struct ata_device *dev, uint8_t cmd, uint8_t feature, uint8_t nsect,
                         unsigned timeout_ms)
{
    struct ata_taskfile tf;

    ata_tf_init(dev, &tf);
    tf.protocol = ATA_PROT_NODATA;
    tf.command = cmd;
    tf.feature = feature;
    tf.nsect = nsect;
    return ata_exec_internal(dev, &tf, NULL, 0, timeout_ms);
}

static void print_config(struct ata_device *dev, const struct ata_dev_config *c)
{
    char line[160];

    ata_config_id_line(c, line, sizeof(line));
    {
        const struct sata_trace_field f[] = {
            TF_STR("cls", ata_class_name(c->cls)), TF_STR("model", c->model), TF_STR("fw", c->fw),
            TF_STR("serial", c->serial),          TF_INT("ata_major", c->ata_major),
            TF_STR("max_mode", ata_mode_string(c->dev_xfer_mask)),
        };
        ata_dev_ev(dev, ATA_EV("probe.identify", SATA_TC_INFO, SATA_LOG_INFO, f), "%s", line);
    }
    if (c->cls == ATA_DEV_ATAPI)
        return;
    ata_config_size_line(c, line, sizeof(line));
    {
        const struct sata_trace_field f[] = {
            TF_INT("n_sectors", c->n_sectors), TF_INT("multi", c->multi_count),
            TF_BOOL("lba48", c->lba48),        TF_BOOL("dev_ncq", c->dev_ncq),
            TF_INT("dev_depth", c->dev_depth), TF_INT("host_depth", c->host_depth),
        };
        ata_dev_ev(dev, ATA_EV("probe.capacity", SATA_TC_INFO, SATA_LOG_INFO, f), "%s", line);
    }
    /* libata's ata_dev_print_features: a line only when the device has one of its features,
     * in its order (FUA, Dev-Sleep, NCQ-sndrcv) */
    if (c->fua || (dev->flags & (ATA_DFLAG_DEVSLP | ATA_DFLAG_NCQ_SEND_RECV))) {
        const bool devslp = dev->flags & ATA_DFLAG_DEVSLP, sndrcv = dev->flags & ATA_DFLAG_NCQ_SEND_RECV;

        if (devslp) {
            const struct sata_trace_field f[] = { TF_BOOL("fua", c->fua), TF_BOOL("devslp", true),
                                                  TF_BOOL("ncq_sndrcv", sndrcv) };

            ata_dev_ev(dev, ATA_EV("probe.features", SATA_TC_INFO, SATA_LOG_INFO, f), "Features:%s Dev-Sleep%s",
                       c->fua ? " FUA" : "", sndrcv ? " NCQ-sndrcv" : "");
        } else if (sndrcv) { /* (the trace fields as before DevSleep was modelled) */
            const struct sata_trace_field f[] = { TF_BOOL("fua", c->fua), TF_BOOL("ncq_sndrcv", true) };

            ata_dev_ev(dev, ATA_EV("probe.features", SATA_TC_INFO, SATA_LOG_INFO, f), "Features:%s NCQ-sndrcv",
                       c->fua ? " FUA" : "");
        } else {
            const struct sata_trace_field f[] = { TF_BOOL("fua", true) };

            ata_dev_ev(dev, ATA_EV("probe.features", SATA_TC_INFO, SATA_LOG_INFO, f), "Features: FUA");
        }
    }
}

/* ---- what mode setting allows (libata's ata_dev_xfermask and ata_do_set_mode) ---- */

#define ATA_UDMA_ABOVE_33 (0xf8u << ATA_SHIFT_UDMA) /* UDMA3 and up: need an 80-wire cable */

/* A parallel ATA drive's IDENTIFY word 93 says 80 wires (bits 15:13 = 011b); a SATA drive
 * (word 93 zero, ATA-5 or later) is never on a 40-wire cable (libata's ata_drive_40wire). */
static bool ata_id_40wire(const uint16_t *id)
{
    if (id[93] == 0 && (int16_t)id[80] >= 0x0020)
        return false;
    return (id[93] & 0xe000) != 0x6000;
}

bool ata_cable_is_40wire(struct ata_port *ap)
{
    if (ap->cbl == ATA_CBL_PATA40)
        return true;
    if (ap->cbl == ATA_CBL_SATA)
        return false;
    /* unknown, or 80-wire by the host: every drive on it must say 80 wires */
    for (unsigned d = 0; d < ata_link_max_devices(&ap->link); d++) {
        const struct ata_device *dev = &ap->link.device[d];

        if (ata_dev_enabled(dev) && !ata_id_40wire(dev->id))
            return false;
    }
    return true;
}

static bool ata_dev_has_pair(const struct ata_device *dev)
{
    return ata_link_max_devices(dev->link) == 2 && ata_dev_enabled(&dev->link->device[1 - dev->devno]);
}

/* libata.dma: the class of the device (ATA, ATAPI or CF) has its DMA turned off */
static bool ata_dev_dma_off(const struct ata_device *dev)
{
    const unsigned dma_off = dev->link->ap->host->dma_off;

    if (dev->class == ATA_DEV_ATAPI)
        return dma_off & 0x2u;
    return dma_off & (ata_id_is_cfa(dev->id) ? 0x4u : 0x1u);
}

/* The modes of `mask` mode setting leaves the device: no PIO5/6 or MWDMA3/4 on a shared cable
 * (CFA timings), no DMA with the NODMA horkage or libata.dma off for its class, UDMA/33 at
 * most on a 40-wire cable. warn: the warnings libata prints at every mode setting. */
static unsigned ata_dev_setmode_mask(struct ata_device *dev, unsigned mask, bool warn)
{
    struct ata_port *ap = dev->link->ap;

    if (ata_dev_has_pair(dev))
        mask &= ~((0x3u << (ATA_SHIFT_PIO + 5)) | (0x3u << (ATA_SHIFT_MWDMA + 3)));
    if (dev->flags & ATA_DFLAG_NODMA) {
        mask &= ~(ATA_MASK_MWDMA | ATA_MASK_UDMA);
        if (warn)
            ata_dev_ev(dev, ATA_EV0("probe.nodma", SATA_TC_DECISION, SATA_LOG_WARN),
                       "device is on DMA blacklist, disabling DMA");
    }
    if ((mask & ATA_UDMA_ABOVE_33) && ata_cable_is_40wire(ap)) {
        mask &= ~ATA_UDMA_ABOVE_33;
        if (warn)
            ata_dev_ev(dev, ATA_EV0("probe.cable_40wire", SATA_TC_DECISION, SATA_LOG_WARN),
                       "limited to UDMA/33 due to 40-wire cable");
    }
    if (ata_dev_dma_off(dev))
        mask &= ~(ATA_MASK_MWDMA | ATA_MASK_UDMA);
    return mask;
}

int ata_dev_configure(struct ata_device *dev)
{
    struct ata_port *ap = dev->link->ap;
    const bool print = dev->link->eh_context.i.flags & ATA_EHI_PRINTINFO;
    struct ata_host_caps hc = { .ncq_depth = ap->ncq_depth,
                                /* libata.force: a transfer mode limit narrows what the host
                                 * offers the device */
                                .xfer_mask = ata_force_xfermask(dev, ap->xfer_mask, print),
                                .dev_noncq = ata_force_noncq(dev, print),
                                .fua = ap->host->fua,
                                .atapi_dmadir = ap->host->atapi_dmadir };
    struct ata_dev_config c;
    bool no_ncq_trim;
    int rc;

    ata_force_nodma(dev, print);
    ata_dev_config_lpm(dev, print);
    hc.xfer_mask = ata_dev_setmode_mask(dev, hc.xfer_mask, false);

    /* libata: HPA first, as unlocking it changes the IDENTIFY data everything below reads */
    rc = ata_hpa_resize(dev, print);
    if (rc)
        return rc;
    ata_id_configure(dev->id, dev->class, &hc, &c);
    /* the NO_NCQ_TRIM horkage: libata's device list by model, then libata.force */
    no_ncq_trim = c.cls != ATA_DEV_ATAPI && ata_force_no_ncq_trim(dev, ata_model_no_ncq_trim(c.model), print);
    /* what EH took away stays away over revalidation */
    if (dev->xfer_limit && (c.xfer_mask & dev->xfer_limit) != c.xfer_mask && (c.xfer_mask & dev->xfer_limit)) {
        c.xfer_mask &= dev->xfer_limit;
        c.xfer_mode = ata_xfer_bit_to_mode(ata_xfer_mask_highest(c.xfer_mask));
    }
    if (dev->flags & ATA_DFLAG_NCQ_OFF)
        c.ncq = false;

    if (c.multi_count && c.multi_cur != c.multi_count) {
        unsigned err_mask = ata_exec_nodata(dev, ATA_CMD_SET_MULTI, 0, (uint8_t)c.multi_count, 0);

        if (err_mask) {
            const struct sata_trace_field f[] = { TF_HEX("err_mask", err_mask), TF_INT("multi", c.multi_count) };

            ata_dev_ev(dev, ATA_EV("probe.set_multi_failed", SATA_TC_DECISION, SATA_LOG_WARN, f),
                       "failed to set multiple mode (err_mask=0x%x)", err_mask);
            /* a refusing device just runs without it; anything else needs recovery */
            if (err_mask != AC_ERR_DEV)
                return -EIO;
            c.multi_count = 0;
        }
    }

    memcpy(dev->model, c.model, sizeof(dev->model));
    memcpy(dev->serial, c.serial, sizeof(dev->serial));
    memcpy(dev->fw, c.fw, sizeof(dev->fw));
    dev->n_sectors = c.n_sectors;
    dev->sector_size = c.sector_size ? c.sector_size : ATA_SECT_SIZE;
    dev->max_sectors = dev->cmd_max_sectors = c.max_sectors;
    dev->multi_count = c.multi_count;
    dev->xfer_mask = c.xfer_mask;
    dev->xfer_mode = c.xfer_mode;
    dev->ncq_depth = c.ncq_depth;
    dev->flags &= ATA_DFLAG_ENABLED | ATA_DFLAG_NCQ_OFF | ATA_DFLAG_NODMA | ATA_DFLAG_DUBIOUS_XFER | ATA_DFLAG_ATTACHED |
                  ATA_DFLAG_DETACH | ATA_DFLAG_DETACHED | ATA_DFLAG_BROKEN_HPA | ATA_DFLAG_D_SENSE;
    dev->flags |= (c.lba ? ATA_DFLAG_LBA : 0) | (c.lba48 ? ATA_DFLAG_LBA48 : 0) |
                  (c.flush_ext ? ATA_DFLAG_FLUSH_EXT : 0) | (c.ncq ? ATA_DFLAG_NCQ : 0) |
                  (c.xfer_mode >= XFER_MW_DMA_0 ? ATA_DFLAG_DMA : 0) | (c.wcache_on ? ATA_DFLAG_WCACHE : 0) |
                  (c.fua ? ATA_DFLAG_FUA : 0) | (c.cdb_intr ? ATA_DFLAG_CDB_INTR : 0) |
                  (c.dmadir ? ATA_DFLAG_DMADIR : 0);
    dev->cdb_len = c.cdb_len;
    /* libata's ata_dev_config_ncq: the SEND/RECEIVE FPDMA subcommands, where the host sends
     * the Auxiliary field and the device offers them (IDENTIFY word 77 bit 6) */
    memset(dev->ncq_send_recv_cmds, 0, sizeof(dev->ncq_send_recv_cmds));
    if (c.dev_ncq && !c.ncq_not_used && (ap->flags & ATA_FLAG_FPDMA_AUX) && (dev->id[77] & (1u << 6)))
        ata_dev_config_ncq_send_recv(dev, no_ncq_trim, print);
    if (c.cls != ATA_DEV_ATAPI)
        ata_dev_config_devslp(dev, print);

    if (print)
        print_config(dev, &c);
    /* libata: the LLD's errata fixups come last, after the ID lines */
    if (ap->ops->dev_config)
        ap->ops->dev_config(dev);
    if (dev->max_sectors < 1 || dev->max_sectors > dev->cmd_max_sectors)
        dev->max_sectors = dev->cmd_max_sectors;
    return 0;
}

/* ---- revalidation ---- */

static int revalidate_fail(struct ata_device *dev, int rc)
{
    const struct sata_trace_field f[] = { TF_INT("errno", rc) };

    ata_dev_ev(dev, ATA_EV("eh.revalidate_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
               "revalidation failed (errno=%d)", rc);
    return rc;
}

/* Same device still there? Re-IDENTIFY into scratch, compare, reconfigure quietly. */
int ata_dev_revalidate(struct ata_device *dev, enum ata_dev_class new_class)
{
    enum ata_dev_class cls = dev->class;
    uint16_t id[ATA_ID_WORDS];
    char model[41], serial[21];
    uint64_t n_sectors = dev->n_sectors;
    int rc;

    if (!ata_dev_enabled(dev))
        return -ENODEV;
    if (new_class != ATA_DEV_UNKNOWN && new_class != ATA_DEV_NONE && new_class != dev->class) {
        const struct sata_trace_field f[] = { TF_STR("old", ata_class_name(dev->class)),
                                              TF_STR("new", ata_class_name(new_class)) };

        ata_dev_ev(dev, ATA_EV("eh.class_mismatch", SATA_TC_DECISION, SATA_LOG_INFO, f),
                   "class mismatch %d != %d", dev->class, new_class);
        return revalidate_fail(dev, -ENODEV);
    }
    rc = ata_dev_read_id(dev, &cls, id);
    if (rc)
        return revalidate_fail(dev, rc);
    ata_id_c_string(id, model, 27, sizeof(model));
    ata_id_c_string(id, serial, 10, sizeof(serial));
    if (cls != dev->class || strcmp(model, dev->model) || strcmp(serial, dev->serial)) {
        const struct sata_trace_field f[] = { TF_STR("model", model), TF_STR("serial", serial) };

        ata_dev_ev(dev, ATA_EV("eh.dev_mismatch", SATA_TC_DECISION, SATA_LOG_INFO, f),
                   "%s mismatch '%s' != '%s'", strcmp(model, dev->model) ? "model number" : "serial number",
                   strcmp(model, dev->model) ? dev->model : dev->serial,
                   strcmp(model, dev->model) ? model : serial);
        return revalidate_fail(dev, -ENODEV);
    }
    memcpy(dev->id, id, sizeof(id));
    rc = ata_dev_configure(dev);
    if (rc)
        return revalidate_fail(dev, rc);
    if (dev->n_sectors != n_sectors) {
        const struct sata_trace_field f[] = { TF_INT("old", n_sectors), TF_INT("new", dev->n_sectors) };

        ata_dev_ev(dev, ATA_EV("eh.size_mismatch", SATA_TC_DECISION, SATA_LOG_WARN, f),
                   "n_sectors mismatch %llu != %llu", (unsigned long long)n_sectors,
                   (unsigned long long)dev->n_sectors);
        dev->n_sectors = n_sectors;
        return revalidate_fail(dev, -ENODEV);
    }
    return 0;
}

/* ---- transfer mode ---- */

/* libata's ata_do_set_mode before SET FEATURES: the mode-setting warnings of every device,
 * then the controller's timing, the PIO timing of every device first, then the DMA timing of
 * those in a DMA mode (->set_piomode, ->set_dmamode). */
static void ata_set_mode_timing(struct ata_link *link)
{
    struct ata_port *ap = link->ap;

    for (unsigned d = 0; d < ata_link_max_devices(link); d++) {
        struct ata_device *dev = &link->device[d];
        int pio;

        if (!ata_dev_enabled(dev) || dev->class == ATA_DEV_PMP)
            continue;
        ata_dev_setmode_mask(dev, ap->xfer_mask & ata_id_xfermask(dev->id), true);
        pio = ata_xfer_mask_highest(dev->xfer_mask & ATA_MASK_PIO);
        dev->pio_mode = pio >= 0 ? ata_xfer_bit_to_mode(pio) : XFER_PIO_0;
        if (ap->ops->set_piomode)
            ap->ops->set_piomode(ap, dev);
    }
    for (unsigned d = 0; d < ata_link_max_devices(link); d++) {
        struct ata_device *dev = &link->device[d];

        if (ata_dev_enabled(dev) && dev->class != ATA_DEV_PMP && dev->xfer_mode >= XFER_MW_DMA_0 &&
            ap->ops->set_dmamode)
            ap->ops->set_dmamode(ap, dev);
    }
}

int ata_set_mode(struct ata_link *link, struct ata_device **failed)
{
    struct ata_eh_context *ehc = &link->eh_context;

    ata_set_mode_timing(link);
    for (unsigned d = 0; d < ata_link_max_devices(link); d++) {
        struct ata_device *dev = &link->device[d];
        uint8_t mode = dev->xfer_mode;
        unsigned err_mask;
        int rc;

        if (!ata_dev_enabled(dev) || dev->class == ATA_DEV_PMP)
            continue;
        err_mask = ata_exec_nodata(dev, ATA_CMD_SET_FEATURES, SETFEATURES_XFER, mode, ATA_TMOUT_XFERMODE);
        /* devices that only do PIO0 may refuse the command itself */
        if (err_mask & AC_ERR_DEV && mode == XFER_PIO_0)
            err_mask &= ~AC_ERR_DEV;
        if (err_mask) {
            const struct sata_trace_field f[] = { TF_HEX("err_mask", err_mask), TF_HEX("xfer", mode) };

            ata_dev_ev(dev, ATA_EV("probe.setmode_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                       "failed to set xfermode (err_mask=0x%x)", err_mask);
            *failed = dev;
            return -EIO;
        }
        ehc->i.flags |= ATA_EHI_POST_SETMODE;
        rc = ata_dev_revalidate(dev, ATA_DEV_UNKNOWN);
        ehc->i.flags &= ~ATA_EHI_POST_SETMODE;
        if (rc) {
            *failed = dev;
            return rc;
        }
        /* a new mode or NCQ state is dubious until a data transfer proves it */
        if (dev->xfer_mode != ehc->saved_xfer_mode[d] ||
            !!(dev->flags & ATA_DFLAG_NCQ) != ehc->saved_ncq[d])
            dev->flags |= ATA_DFLAG_DUBIOUS_XFER;
        else if (!(dev->flags & ATA_DFLAG_DUBIOUS_XFER))
            dev->ering.ring[dev->ering.cursor].eflags &= ~(unsigned)ATA_EFLAG_DUBIOUS_XFER;
        if (link->ap->host->eh_policy->configured_always || !(ehc->i.flags & ATA_EHI_QUIET) ||
            (ehc->i.flags & ATA_EHI_DID_HARDRESET)) {
            const struct sata_trace_field f[] = {
                TF_STR("mode", ata_xfer_mode_name(dev->xfer_mode)),
                TF_HEX("xfer", dev->xfer_mode),
                TF_BOOL("ncq", dev->flags & ATA_DFLAG_NCQ),
                TF_INT("ncq_depth", dev->ncq_depth),
                TF_INT("max_sectors", dev->max_sectors),
                TF_INT("multi", dev->multi_count),
                TF_BOOL("lba48", dev->flags & ATA_DFLAG_LBA48),
                TF_INT("n_sectors", dev->n_sectors),
                TF_BOOL("write_cache", dev->flags & ATA_DFLAG_WCACHE),
            };
            ata_dev_ev(dev, ATA_EV("probe.configured", SATA_TC_DECISION, SATA_LOG_INFO, f),
                       "configured for %s", ata_xfer_mode_name(dev->xfer_mode));
        }
    }
    return 0;
}
