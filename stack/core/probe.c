/* Probe and recovery of a link, run in the EH context: reset with retries and the
 * deadline table, classification, IDENTIFY, configure, transfer mode, revalidation,
 * and the per-device try budget (libata-eh.md 3.5, 3.6, 7). */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The reset deadline table, pauses, method preference and try counts come from the
 * host's EH profile (eh_policy.h). */

/* ---- reset ---- */

static void eh_reset_start(struct ata_link *link, bool hard, unsigned try)
{
    const struct sata_trace_field f[] = { TF_STR("method", hard ? "hard" : "soft"), TF_INT("try", try) };

    ata_link_ev(link, ATA_EV("eh.reset", SATA_TC_DECISION, SATA_LOG_INFO, f), "%s resetting link",
                hard ? "hard" : "soft");
}

/* Called with the reset done: trust the class only as far as the link state allows. */
static unsigned eh_reset_check_class(struct ata_link *link, enum ata_dev_class *cls)
{
    unsigned misclassified = 0;

    if (ata_link_online(link)) {
        if (*cls == ATA_DEV_UNKNOWN) {
            *cls = ATA_DEV_NONE;
            misclassified++;
        }
    } else if (ata_link_offline(link) || *cls == ATA_DEV_UNKNOWN) {
        *cls = ATA_DEV_NONE;
    }
    return misclassified;
}

/* Behind a PMP: once the PMP itself needs a reset (its control port failed under this link's
 * recovery), nothing this link tries can succeed. Its recovery stops there without spending
 * the device's tries, and the PMP's recovery takes over (libata returns -ERESTART too). */
static bool pmp_reset_pending(const struct ata_link *link)
{
    return !ata_is_host_link(link) && (link->ap->link.eh_context.i.action & ATA_EH_RESET);
}

static int eh_reset(struct ata_link *link, bool classify, ata_prereset_fn prereset,
                    ata_reset_fn softreset, ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    struct ata_port *ap = link->ap;
    struct ata_host *h = ap->host;
    struct ata_eh_context *ehc = &link->eh_context;
    enum ata_dev_class *cls = &ehc->classes[0];
    const struct ata_eh_policy *pol = h->eh_policy;
    const unsigned max_tries = pol->n_reset_tries;
    unsigned try = 0, method;
    ata_reset_fn reset;
    uint64_t deadline;
    int rc;

    /* a second reset in one EH run waits out the cool-down after the previous one */
    if (pol->reset_cool_down_ms && (ehc->i.flags & (ATA_EHI_DID_SOFTRESET | ATA_EHI_DID_HARDRESET))) {
        uint64_t until = ehc->last_reset + ATA_MS(pol->reset_cool_down_ms), now = ata_now(h);

        if (until > now)
            h->pops->sleep_ns(h->plat, until - now);
    }
    {
        const struct ata_reset_choice_in in = {
            .have_softreset = softreset != NULL,
            .have_hardreset = hardreset != NULL,
            .action = ehc->i.action,
            .spd_change_pending = hardreset && sata_set_spd_needed(link),
        };
        method = ata_reset_choose(pol, &in);
    }
    ehc->i.action &= ~ATA_EH_RESET;
    ehc->i.action |= method;
    reset = method == ATA_EH_HARDRESET ? hardreset : softreset;
    if (!method) {
        ata_link_ev(link, ATA_EV0("eh.no_reset_method", SATA_TC_DECISION, SATA_LOG_WARN),
                    "no reset method available, skipping reset");
        *cls = ATA_DEV_ATA;
        ehc->i.action &= ~ATA_EH_RESET;
        return 0;
    }

    if (prereset) {
        rc = prereset(link, ata_deadline(h, ATA_TMOUT_PRERESET));
        if (rc == -ENOENT) {
            ata_link_ev(link, ATA_EV0("eh.port_disabled", SATA_TC_DECISION, SATA_LOG_DEBUG),
                        "port disabled--ignoring");
            ehc->i.action &= ~ATA_EH_RESET;
            *cls = ATA_DEV_NONE;
            return 0;
        }
        if (rc) {
            const struct sata_trace_field f[] = { TF_INT("errno", rc) };

            ata_link_ev(link, ATA_EV("eh.prereset_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                        "prereset failed (errno=%d)", rc);
            return rc;
        }
        /* prereset may have changed the method, or found nothing to reset */
        if (ehc->i.action & ATA_EH_HARDRESET)
            reset = hardreset;
        else if (ehc->i.action & ATA_EH_SOFTRESET)
            reset = softreset;
        else {
            *cls = ATA_DEV_NONE;
            ata_eh_thaw_port(ap);
            /* The link is empty (softreset dropped on an offline link). Count it as the
             * softreset libata-2006 ran there (its LLD softresets returned class NONE on an
             * offline port) and check a device still enabled: revalidation fails on the
             * offline link, so the next try escalates to a hardreset (a PHY that wants a
             * COMRESET comes back) and an unplugged drive is detached after its tries.
             * Without this the device stayed enabled and its requests timed out in turn. */
            ehc->i.flags |= ATA_EHI_DID_SOFTRESET;
            ehc->i.action |= ATA_EH_REVALIDATE;
            return 0;
        }
    }

retry:
    deadline = ata_deadline(h, ata_reset_deadline_ms(pol, try++));
    /* a fan-out link is reset through the PMP's control port: the port stays live */
    if (ata_is_host_link(link))
        ata_eh_freeze_port(ap);
    eh_reset_start(link, reset == hardreset, try);
    ehc->last_reset = ata_now(h);
    ehc->i.flags |= reset == hardreset ? ATA_EHI_DID_HARDRESET : ATA_EHI_DID_SOFTRESET;
    *cls = ATA_DEV_UNKNOWN;

    rc = reset(link, cls, deadline);
    if (rc == -EAGAIN && reset == hardreset) {
        /* the hardreset could not classify: a follow-up softreset must */
        if (!softreset) {
            ata_link_ev(link, ATA_EV0("eh.no_followup_srst", SATA_TC_DECISION, SATA_LOG_ERR),
                        "follow-up softreset required but no softreset available");
            rc = -EINVAL;
            goto fail;
        }
        if (!ata_link_offline(link)) {
            eh_reset_start(link, false, try);
            ehc->i.flags |= ATA_EHI_DID_SOFTRESET;
            *cls = ATA_DEV_UNKNOWN;
            rc = softreset(link, cls, deadline);
        } else {
            rc = 0;
        }
    }
    if (rc)
        goto fail;

    {
        uint32_t sstatus;

        if (!sata_scr_read(link, SCR_STATUS, &sstatus))
            link->sata_spd = (sstatus >> 4) & 0xf;
    }
    if (ata_is_host_link(link))
        ata_eh_thaw_port(ap);
    if (postreset)
        postreset(link, cls);
    /* events that arrived during the reset are stale now */
    ata_lock(h);
    memset(&link->eh_info, 0, sizeof(link->eh_info));
    /* a fan-out link's reset leaves the port live: what arrived meanwhile still counts */
    if (ata_is_host_link(link))
        ap->pflags &= ~ATA_PFLAG_EH_PENDING;
    ata_unlock(h);

    {
        unsigned wrong = eh_reset_check_class(link, cls);
        const struct sata_trace_field f[] = { TF_STR("cls", ata_class_name(*cls)) };

        if (classify && wrong) {
            const struct sata_trace_field fm[] = { TF_INT("count", wrong), TF_INT("try", try) };

            if (try < max_tries) {
                ata_link_ev(link, ATA_EV("eh.misclassified", SATA_TC_DECISION, SATA_LOG_WARN, fm),
                            "link online but %u devices misclassified, retrying", wrong);
                rc = -EAGAIN;
                goto fail;
            }
            ata_link_ev(link, ATA_EV("eh.misclassified", SATA_TC_DECISION, SATA_LOG_WARN, fm),
                        "link online but %u devices misclassified, device detection might fail",
                        wrong);
        }
        ata_link_ev(link, ATA_EV("probe.class", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
    ehc->i.action &= ~ATA_EH_RESET;
    ehc->i.action |= ATA_EH_REVALIDATE;
    ehc->last_reset = ata_now(h);
    return 0;

fail:
    if (try >= max_tries || pmp_reset_pending(link)) {
        ata_eh_thaw_port(ap);
        return rc;
    }
    {
        uint64_t now = ata_now(h);
        uint64_t wait = pol->reset_retry_pause_ms ? ATA_MS(pol->reset_retry_pause_ms)
                        : deadline > now          ? deadline - now
                                                  : 0;
        unsigned secs = (unsigned)((wait + ATA_MS(1000) - 1) / ATA_MS(1000));
        const struct sata_trace_field f[] = { TF_INT("errno", rc), TF_INT("retry_s", secs) };

        /* wait out this attempt's deadline before the next one */
        if (wait) {
            ata_link_ev(link, ATA_EV("eh.reset_failed", SATA_TC_DECISION, SATA_LOG_WARN, f),
                        "reset failed (errno=%d), retrying in %u secs", rc, secs);
            h->pops->sleep_ns(h->plat, wait);
        } else {
            ata_link_ev(link, ATA_EV("eh.reset_failed", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        }
    }
    /* slower is better than lost: 4.x before the last attempt (or when the link would not
     * settle), 2006 after every failed hardreset */
    if (pol->spd_down_before_last_try) {
        if (try == max_tries - 1 || rc == -EPIPE)
            sata_down_spd_limit(link, 0);
    } else if (reset == hardreset) {
        sata_down_spd_limit(link, 0);
    }
    if (hardreset)
        reset = hardreset;
    goto retry;
}


/* The hotplug debounce timing serves the resets of the EH run that saw the event, then
 * normal timing again (libata clears HOTPLUGGED at the end of ata_eh_reset). */
int ata_eh_reset(struct ata_link *link, bool classify, ata_prereset_fn prereset,
                 ata_reset_fn softreset, ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    int rc = eh_reset(link, classify, prereset, softreset, hardreset, postreset);

    link->eh_context.i.flags &= ~(unsigned)ATA_EHI_HOTPLUGGED;
    return rc;
}

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

static unsigned exec_nodata(struct ata_device *dev, uint8_t cmd, uint8_t feature, uint8_t nsect,
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
}

int ata_dev_configure(struct ata_device *dev)
{
    struct ata_port *ap = dev->link->ap;
    const struct ata_host_caps hc = { .ncq_depth = ap->ncq_depth, .xfer_mask = ap->xfer_mask };
    struct ata_dev_config c;

    ata_id_configure(dev->id, dev->class, &hc, &c);
    /* what EH took away stays away over revalidation */
    if (dev->xfer_limit && (c.xfer_mask & dev->xfer_limit) != c.xfer_mask && (c.xfer_mask & dev->xfer_limit)) {
        c.xfer_mask &= dev->xfer_limit;
        c.xfer_mode = ata_xfer_bit_to_mode(ata_xfer_mask_highest(c.xfer_mask));
    }
    if (dev->flags & ATA_DFLAG_NCQ_OFF)
        c.ncq = false;

    if (c.multi_count && c.multi_cur != c.multi_count) {
        unsigned err_mask = exec_nodata(dev, ATA_CMD_SET_MULTI, 0, (uint8_t)c.multi_count, 0);

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
    dev->max_sectors = c.max_sectors;
    dev->multi_count = c.multi_count;
    dev->xfer_mask = c.xfer_mask;
    dev->xfer_mode = c.xfer_mode;
    dev->ncq_depth = c.ncq_depth;
    dev->flags &= ATA_DFLAG_ENABLED | ATA_DFLAG_NCQ_OFF | ATA_DFLAG_DUBIOUS_XFER | ATA_DFLAG_ATTACHED |
                  ATA_DFLAG_DETACH | ATA_DFLAG_DETACHED;
    dev->flags |= (c.lba ? ATA_DFLAG_LBA : 0) | (c.lba48 ? ATA_DFLAG_LBA48 : 0) |
                  (c.flush_ext ? ATA_DFLAG_FLUSH_EXT : 0) | (c.ncq ? ATA_DFLAG_NCQ : 0) |
                  (c.xfer_mode >= XFER_MW_DMA_0 ? ATA_DFLAG_DMA : 0) | (c.wcache_on ? ATA_DFLAG_WCACHE : 0);

    if (dev->link->eh_context.i.flags & ATA_EHI_PRINTINFO)
        print_config(dev, &c);
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

int ata_set_mode(struct ata_link *link, struct ata_device **failed)
{
    struct ata_eh_context *ehc = &link->eh_context;

    for (unsigned d = 0; d < ATA_MAX_DEVICES; d++) {
        struct ata_device *dev = &link->device[d];
        uint8_t mode = dev->xfer_mode;
        unsigned err_mask;
        int rc;

        if (!ata_dev_enabled(dev) || dev->class == ATA_DEV_PMP)
            continue;
        err_mask = exec_nodata(dev, ATA_CMD_SET_FEATURES, SETFEATURES_XFER, mode, ATA_TMOUT_XFERMODE);
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
        if (!(ehc->i.flags & ATA_EHI_QUIET) || (ehc->i.flags & ATA_EHI_DID_HARDRESET)) {
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

/* ---- recovery loop ---- */

static void ata_dev_init(struct ata_device *dev)
{
    struct ata_link *link = dev->link;
    unsigned devno = dev->devno, detached = dev->flags & ATA_DFLAG_DETACHED;

    memset(dev, 0, sizeof(*dev));
    dev->link = link;
    dev->devno = devno;
    dev->class = ATA_DEV_UNKNOWN;
    dev->flags = detached; /* the old device's detach is still to be reported */
}

void ata_dev_disable(struct ata_device *dev)
{
    if (!ata_dev_enabled(dev))
        return;
    ata_dev_ev(dev, ATA_EV0("dev.disabled", SATA_TC_DECISION, SATA_LOG_WARN), "disabled");
    dev->flags &= ~ATA_DFLAG_ENABLED;
    /* from now on the ring counts probe failures */
    ata_ering_clear(&dev->ering, false);
}

void ata_eh_detach_dev(struct ata_device *dev)
{
    struct ata_port *ap = dev->link->ap;
    struct ata_host *h = ap->host;
    bool had_users = dev->flags & ATA_DFLAG_ATTACHED;

    ata_dev_disable(dev);
    ata_lock(h);
    dev->flags &= ~(unsigned)(ATA_DFLAG_ATTACHED | ATA_DFLAG_DETACH);
    if (had_users)
        dev->flags |= ATA_DFLAG_DETACHED;
    /* Commands EH holds for it and requests still queued for it end now with a no-device
     * error: the slot may get a new device in this very EH run, and a request meant for the
     * old drive must never reach the new one (libata: the SCSI device goes offline). */
    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!(qc->flags & ATA_QCFLAG_FAILED) || qc->dev != dev || !qc->bio)
            continue;
        {
            const struct sata_trace_field f[] = {
                TF_INT("tag", tag), TF_HEX("cmd", qc->tf.command), TF_HEX("emask", qc->err_mask),
                TF_INT("retries", qc->bio->q_retries), TF_STR("reason", "device detached"),
            };
            ata_dev_ev(dev, ATA_EV("eh.qc_fail", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        }
        qc->err_mask |= AC_ERR_NODEV_HINT;
        ata_eh_qc_complete(qc);
    }
    ata_bio_fail_dev(ap, dev, AC_ERR_NODEV_HINT);
    ata_unlock(h);
}

/* A probe forgets the old device and asks for a reset; once per EH run per device. */
static bool ata_eh_schedule_probe(struct ata_device *dev)
{
    struct ata_eh_context *ehc = &dev->link->eh_context;
    unsigned bit = 1u << dev->devno;

    if (!(ehc->i.probe_mask & bit) || (ehc->did_probe_mask & bit))
        return false;
    ata_eh_detach_dev(dev);
    ata_dev_init(dev);
    ehc->did_probe_mask |= bit;
    ehc->i.action |= ATA_EH_RESET;
    ehc->tries[dev->devno] = (int)dev->link->ap->host->eh_policy->dev_tries;
    return true;
}

static int ata_eh_revalidate_and_attach(struct ata_device *dev)
{
    struct ata_link *link = dev->link;
    struct ata_eh_context *ehc = &link->eh_context;
    enum ata_dev_class cls = ehc->classes[dev->devno];
    int rc;

    if (ata_dev_enabled(dev)) {
        if (!(ehc->i.action & ATA_EH_REVALIDATE))
            return 0;
        if (ata_link_offline(link))
            return -EIO;
        rc = ata_dev_revalidate(dev, cls);
        if (rc)
            return rc;
        ehc->i.action &= ~ATA_EH_REVALIDATE;
        ehc->i.flags |= ATA_EHI_SETMODE;
        return 0;
    }
    if (!ehc->tries[dev->devno] || !ata_class_probeable(cls))
        return 0;
    if (cls == ATA_DEV_PMP) {
        const struct sata_trace_field f[] = { TF_STR("cls", ata_class_name(cls)) };

        if (!(link->ap->flags & ATA_FLAG_PMP) || !ata_is_host_link(link)) {
            ata_dev_ev(dev, ATA_EV("probe.unsupported", SATA_TC_DECISION, SATA_LOG_WARN, f),
                       "port multiplier support not available, ignoring");
            return 0;
        }
        dev->class = cls;
        rc = sata_pmp_attach(dev);
        if (rc) {
            dev->class = ATA_DEV_UNKNOWN;
            return rc == -EOPNOTSUPP ? 0 : rc;
        }
        dev->flags |= ATA_DFLAG_ENABLED;
        ehc->i.action &= ~ATA_EH_REVALIDATE;
        return 0;
    }
    dev->class = cls;
    rc = ata_dev_read_id(dev, &cls, dev->id);
    if (rc == -ENOENT) {
        /* nobody answered: no reset needed, just forget the slot */
        dev->class = ATA_DEV_UNKNOWN;
        ata_eh_thaw_port(link->ap);
        return 0;
    }
    if (!rc) {
        dev->class = cls;
        ehc->i.flags |= ATA_EHI_PRINTINFO;
        rc = ata_dev_configure(dev);
        ehc->i.flags &= ~ATA_EHI_PRINTINFO;
    }
    if (rc) {
        dev->class = ATA_DEV_UNKNOWN;
        return rc;
    }
    dev->flags |= ATA_DFLAG_ENABLED | ATA_DFLAG_ATTACHED;
    ata_ering_clear(&dev->ering, false); /* a new device starts with a clean history */
    ehc->i.action &= ~ATA_EH_REVALIDATE;
    ehc->i.flags |= ATA_EHI_SETMODE;
    return 0;
}

/* Spend one of the device's tries; ask for another round with a reset, or give up. */
static void ata_eh_handle_dev_fail(struct ata_device *dev, int err)
{
    struct ata_link *link = dev->link;
    struct ata_eh_context *ehc = &link->eh_context;
    const struct ata_eh_policy *pol = link->ap->host->eh_policy;
    int *tries = &ehc->tries[dev->devno];

    if (err != -EAGAIN)
        (*tries)--;
    if (err == -ENODEV) {
        ehc->i.probe_mask |= 1u << dev->devno;
        if (pol->enodev_zero_tries)
            *tries = 0;
    }
    if ((err == -ENODEV || err == -EINVAL) && *tries > 1)
        *tries = 1;
    /* last chance: slower is better than lost */
    if ((err == -ENODEV || err == -EINVAL || err == -EIO) && *tries == 1) {
        sata_down_spd_limit(link, 0);
        if (dev->xfer_mode > XFER_PIO_0 && dev->xfer_mode < XFER_MW_DMA_0)
            ata_dev_down_xfermask(dev, ATA_DNXFER_PIO);
    }

    if (ata_dev_enabled(dev) && !*tries) {
        ata_dev_disable(dev);
        /* gone from the cable (unplugged): take it from its users */
        if (ata_link_offline(link))
            ata_eh_detach_dev(dev);
        ata_eh_schedule_probe(dev);
        return;
    }
    /* 2006 escalates to a hardreset once a reset was tried */
    ehc->i.action |= !pol->prefer_hardreset && (ehc->i.flags & (ATA_EHI_DID_SOFTRESET | ATA_EHI_DID_HARDRESET))
                         ? ATA_EH_HARDRESET
                         : ATA_EH_RESET;
}

/* libata's ata_eh_skip_recovery: a link with no device left needs nothing more once the
 * reset it asked for is done and found the slot empty. A frozen port is never skipped. */
static bool ata_eh_skip_recovery(struct ata_link *link)
{
    struct ata_eh_context *ehc = &link->eh_context;

    if (link->flags & ATA_LFLAG_DISABLED)
        return true;
    if ((link->ap->pflags & ATA_PFLAG_FROZEN) || ata_dev_enabled(&link->device[0]))
        return false;
    if ((ehc->i.action & ATA_EH_RESET) && !(ehc->i.flags & (ATA_EHI_DID_SOFTRESET | ATA_EHI_DID_HARDRESET)))
        return false;
    for (unsigned d = 0; d < ATA_MAX_DEVICES; d++)
        if (link->device[d].class == ATA_DEV_UNKNOWN && ehc->classes[d] != ATA_DEV_NONE)
            return false;
    return true;
}

int ata_eh_recover(struct ata_port *ap, ata_prereset_fn prereset, ata_reset_fn softreset,
                   ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    return ata_eh_recover_link(&ap->link, prereset, softreset, hardreset, postreset);
}

/* One link's recovery: reset, revalidate or probe its device, transfer mode, retries. */
int ata_eh_recover_link(struct ata_link *link, ata_prereset_fn prereset, ata_reset_fn softreset,
                        ata_reset_fn hardreset, ata_postreset_fn postreset)
{
    struct ata_port *ap = link->ap;
    struct ata_eh_context *ehc = &link->eh_context;
    struct ata_device *dev = &link->device[0];
    struct ata_device *failed = NULL;
    int rc;

    const struct ata_eh_policy *pol = ap->host->eh_policy;

    ehc->tries[0] = (int)pol->dev_tries;
    ehc->i.action &= ~(unsigned)ATA_EH_ENABLE_LINK; /* no PMP links to re-enable */
    /* a delete the user asked for (libata-eh.md 5.5): no SCSI device is left to report */
    if (dev->flags & ATA_DFLAG_DETACH) {
        dev->flags &= ~(unsigned)ATA_DFLAG_ATTACHED;
        ata_eh_detach_dev(dev);
    }
    /* Only an empty slot is probed up front. A present device after a hotplug event is
     * revalidated behind the reset: still there and the same -> kept; link offline -> its
     * tries run out and it is detached; another drive -> -ENODEV, detach, probe. */
    if (!ata_dev_enabled(dev))
        ata_eh_schedule_probe(dev);

retry:
    rc = 0;
    if (ap->pflags & ATA_PFLAG_UNLOADING)
        return 0;
    if (ata_eh_skip_recovery(link)) {
        ehc->i.action = 0;
        return 0;
    }
    if (pmp_reset_pending(link))
        return -ERESTART;
    if (ehc->i.action & ATA_EH_RESET) {
        rc = ata_eh_reset(link, !ata_dev_enabled(dev), prereset, softreset, hardreset, postreset);
        if (rc && pmp_reset_pending(link))
            return -ERESTART;
        if (rc) {
            ata_link_ev(link, ATA_EV0("eh.reset_giveup", SATA_TC_DECISION, SATA_LOG_ERR),
                        "reset failed, giving up");
            ata_dev_disable(dev);
            return rc;
        }
    }
    rc = ata_eh_revalidate_and_attach(dev);
    if (!rc && (ehc->i.flags & ATA_EHI_SETMODE)) {
        rc = ata_set_mode(link, &failed);
        if (!rc)
            ehc->i.flags &= ~ATA_EHI_SETMODE;
    }
    if (!rc)
        return 0;
    if (pmp_reset_pending(link))
        return -ERESTART;

    ata_eh_handle_dev_fail(dev, rc);
    if (!(ehc->i.action & ATA_EH_RESET) || ata_eh_skip_recovery(link))
        return 0;
    if (ata_dev_enabled(dev)) {
        const struct sata_trace_field f[] = { TF_INT("errno", rc), TF_INT("tries", ehc->tries[0]) };

        ata_link_ev(link, ATA_EV("eh.recover_retry", SATA_TC_DECISION, SATA_LOG_WARN, f),
                    "failed to recover some devices, retrying in 5 secs");
        ata_msleep(ap->host, pol->recover_retry_pause_ms);
    } else {
        ata_msleep(ap->host, pol->recover_idle_pause_ms);
    }
    goto retry;
}
