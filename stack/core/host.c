/* Host, port, link and device objects: allocation at create time (everything the I/O and
 * EH paths will ever need), start (controller init, IRQ, boot probe through EH), stop,
 * destroy, and the public lookups. No global state: destroy + create is a full reset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void ata_port_init(struct ata_host *h, struct ata_port *ap, unsigned port_no)
{
    ap->host = h;
    ap->port_no = port_no;
    ap->ops = h->ops;
    ap->pflags = ATA_PFLAG_FROZEN; /* until the first reset thaws it */
    for (int l = -1; l < SATA_PMP_MAX_PORTS; l++) {
        struct ata_link *link = l < 0 ? &ap->link : &ap->pmp_link[l];

        link->ap = ap;
        link->pmp = l;
        link->active_tag = ATA_TAG_NONE;
        for (unsigned d = 0; d < ATA_MAX_DEVICES; d++) {
            link->device[d].link = link;
            link->device[d].devno = d;
            link->device[d].class = ATA_DEV_UNKNOWN;
        }
    }
    /* the slave link's own devices are never used (device 1 stays on ap->link) */
    ap->slave_link_store.ap = ap;
    ap->slave_link_store.pmp = 1;
    ap->slave_link_store.active_tag = ATA_TAG_NONE;
    for (unsigned d = 0; d < ATA_MAX_DEVICES; d++) {
        ap->slave_link_store.device[d].link = &ap->slave_link_store;
        ap->slave_link_store.device[d].devno = d;
        ap->slave_link_store.device[d].class = ATA_DEV_NONE;
    }
    for (unsigned t = 0; t <= ATA_TAG_INTERNAL; t++) {
        ap->qcmd[t].ap = ap;
        ap->qcmd[t].tag = t;
        ap->qcmd[t].hw_tag = t;
    }
    ata_tags_init(&ap->tags, ATA_MAX_QUEUE, false);
}

void ata_slave_link_init(struct ata_port *ap)
{
    ap->slave_link = &ap->slave_link_store;
}

static int ata_port_alloc_bufs(struct ata_port *ap)
{
    struct ata_host *h = ap->host;
    int rc;

    ap->int_done = h->pops->completion_create(h->plat);
    ap->eh_wait = h->pops->completion_create(h->plat);
    ap->drain_done = h->pops->completion_create(h->plat);
    ap->eh_kick = h->pops->completion_create(h->plat);
    if (!ap->int_done || !ap->eh_wait || !ap->drain_done || !ap->eh_kick)
        return -ENOMEM;
    rc = h->pops->dma_alloc(h->plat, ATA_SECT_SIZE, 4, &ap->id_buf);
    if (!rc)
        rc = h->pops->dma_alloc(h->plat, ATA_SECT_SIZE, 4, &ap->log_buf);
    return rc;
}

/* libata's ata_finalize_port_ops: out = ops with every NULL entry taken from the nearest
 * table up its inheritance chain that has one. Every entry is listed: the assertion fails
 * the build when the table grows and this list does not. */
static void ata_finalize_port_ops(struct ata_port_operations *out, const struct ata_port_operations *ops)
{
    _Static_assert(sizeof(struct ata_port_operations) == 33 * sizeof(void *),
                   "ata_finalize_port_ops must list every entry of struct ata_port_operations");
    *out = *ops;
    for (const struct ata_port_operations *base = ops->inherits; base; base = base->inherits) {
#define INHERIT(entry) \
    if (!out->entry)   \
        out->entry = base->entry
        INHERIT(qc_defer);
        INHERIT(qc_prep);
        INHERIT(qc_issue);
        INHERIT(qc_fill_rtf);
        INHERIT(freeze);
        INHERIT(thaw);
        INHERIT(prereset);
        INHERIT(softreset);
        INHERIT(hardreset);
        INHERIT(postreset);
        INHERIT(error_handler);
        INHERIT(post_internal_cmd);
        INHERIT(set_lpm);
        INHERIT(dev_config);
        INHERIT(set_piomode);
        INHERIT(set_dmamode);
        INHERIT(lost_interrupt);
        INHERIT(pmp_attach);
        INHERIT(pmp_detach);
        INHERIT(pmp_probe);
        INHERIT(pmp_scr_read);
        INHERIT(pmp_scr_write);
        INHERIT(pmp_prereset);
        INHERIT(pmp_hardreset);
        INHERIT(pmp_postreset);
        INHERIT(scr_read);
        INHERIT(scr_write);
        INHERIT(port_start);
        INHERIT(port_stop);
        INHERIT(host_start);
        INHERIT(host_stop);
        INHERIT(irq_handler);
#undef INHERIT
    }
    out->inherits = NULL;
}

struct ata_host *ata_host_alloc(struct sata_platform *p, const struct sata_platform_ops *pops,
                                const struct ata_port_operations *ops, unsigned n_ports)
{
    struct ata_host *h = calloc(1, sizeof(*h));

    if (!h)
        return NULL;
    h->plat = p;
    h->pops = pops;
    ata_finalize_port_ops(&h->ops_final, ops);
    h->ops = &h->ops_final;
    h->ports = calloc(n_ports ? n_ports : 1, sizeof(*h->ports));
    h->eh_done = pops->completion_create(p);
    if (!h->ports || !h->eh_done) {
        ata_host_free(h);
        return NULL;
    }
    h->n_ports = n_ports;
    h->eh_policy = ata_eh_policy_default();
    for (unsigned i = 0; i < n_ports; i++) {
        ata_port_init(h, &h->ports[i], i);
        if (ata_port_alloc_bufs(&h->ports[i])) {
            ata_host_free(h);
            return NULL;
        }
    }
    return h;
}

struct ata_host *ata_host_alloc_priv(struct sata_platform *p, const struct sata_platform_ops *pops,
                                     const struct ata_port_operations *ops, unsigned n_ports,
                                     size_t priv_size, const struct ata_host_config *cfg,
                                     const char *fail_event)
{
    struct ata_host *h = ata_host_alloc(p, pops, ops, n_ports);
    void *priv = h ? calloc(1, priv_size) : NULL;

    if (!priv) {
        ata_host_free(h);
        ata_report_create_failed(p, pops, fail_event, "out of memory");
        return NULL;
    }
    h->private_data = priv;
    if (cfg->disk_names)
        h->disk_names = cfg->disk_names;
    ata_force_copy(h, cfg);
    h->fua = cfg->fua;
    h->atapi_dmadir = cfg->atapi_dmadir;
    h->dma_off = cfg->dma_off;
    h->ignore_hpa = cfg->ignore_hpa;
    if (cfg->pci) {
        h->has_pci = true;
        h->pci = *cfg->pci;
    }
    for (unsigned i = 0; i < n_ports; i++)
        h->ports[i].target_lpm_policy = cfg->lpm_policy;
    if (ata_host_set_eh_policy(h, cfg->eh_policy))
        return ata_host_create_failed(h, fail_event, "EH policy not available");
    h->spd_down_unknown = cfg->spd_down_unknown;
    return h;
}

struct ata_host *ata_host_create_failed(struct ata_host *h, const char *event, const char *msg)
{
    /* the report goes through the platform, which outlives the host */
    struct sata_platform *p = h->plat;
    const struct sata_platform_ops *pops = h->pops;

    ata_host_free(h);
    ata_report_create_failed(p, pops, event, msg);
    return NULL;
}

void ata_host_free(struct ata_host *h)
{
    if (!h)
        return;
    /* out of the probe chain: its neighbours may outlive it */
    if (h->probe_prev)
        h->probe_prev->probe_next = h->probe_next;
    if (h->probe_next)
        h->probe_next->probe_prev = h->probe_prev;
    for (unsigned i = 0; h->ports && i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];

        if (ap->private_data && ap->ops->port_stop)
            ap->ops->port_stop(ap);
        if (ap->id_buf.cpu)
            h->pops->dma_free(h->plat, &ap->id_buf);
        if (ap->log_buf.cpu)
            h->pops->dma_free(h->plat, &ap->log_buf);
        if (ap->int_done)
            h->pops->completion_destroy(h->plat, ap->int_done);
        if (ap->eh_wait)
            h->pops->completion_destroy(h->plat, ap->eh_wait);
        if (ap->drain_done)
            h->pops->completion_destroy(h->plat, ap->drain_done);
        if (ap->eh_kick)
            h->pops->completion_destroy(h->plat, ap->eh_kick);
    }
    free(h->ports);
    if (h->eh_done)
        h->pops->completion_destroy(h->plat, h->eh_done);
    free(h->private_data);
    free(h);
}

int ata_host_set_eh_policy(struct ata_host *h, const char *name)
{
    const struct ata_eh_policy *pol = ata_eh_policy_find(name);
    char known[128] = "";
    size_t len = 0;

    if (pol) {
        const struct sata_trace_field f[] = { TF_STR("name", pol->name),
                                              TF_BOOL("hardreset", h->ops && h->ops->hardreset) };

        h->eh_policy = pol;
        /* the trace names the profile (and whether the driver can hardreset): the EH rule
         * monitor judges the profile's verdicts and reset choices by its rules */
        ata_host_ev(h, ATA_EV("eh.policy", SATA_TC_INFO, SATA_LOG_NONE, f), NULL);
        return 0;
    }
    for (size_t i = 0; i < ata_eh_policy_count() && len < sizeof(known); i++)
        len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "",
                                ata_eh_policy_at(i)->name);
    {
        const struct sata_trace_field f[] = { TF_STR("eh_policy", name), TF_STR("known", known) };

        ata_host_ev(h, ATA_EV("eh.unknown_policy", SATA_TC_DECISION, SATA_LOG_ERR, f),
                    "unknown EH policy \"%s\" (known: %s)", name, known);
    }
    return -EINVAL;
}

static int ata_host_irq(void *arg)
{
    struct ata_host *h = arg;

    return h->ops->irq_handler(h);
}

/* Every probe scheduled before this host's, on the controllers brought up before it, has
 * ended (libata's async_synchronize_cookie: a serial port waits for all earlier work). */
static bool ata_host_earlier_probes_done(const struct ata_host *h)
{
    for (const struct ata_host *e = h->probe_prev; e; e = e->probe_prev)
        if (e->n_boot_probing)
            return false;
    return true;
}

/* Serial boot probe: wake the first port whose probe has not started yet (lock held). Port 0
 * starts at once; a later port waits for the earlier ports of its host and, when controllers
 * probe side by side, for every port of the controllers before it. */
void ata_host_probe_next(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];

        if (!ap->boot_probing)
            continue;
        if (!ap->boot_probe_started && (i == 0 || ata_host_earlier_probes_done(h))) {
            ap->boot_probe_started = true;
            ata_port_wake_eh(ap);
        }
        return; /* an earlier port still probing: the next one waits for it */
    }
}

/* A port's boot probe ended: the serial ports of the controllers after this one may be
 * waiting for it (lock of h not held). */
void ata_host_probe_ended(struct ata_host *h)
{
    for (struct ata_host *later = h->probe_next; later; later = later->probe_next) {
        ata_lock(later);
        if (!(later->flags & ATA_HOST_PARALLEL_SCAN))
            ata_host_probe_next(later);
        ata_unlock(later);
    }
}

/* The driver's part of a PCI probe: controller init, the interrupt. */
static int ata_host_bring_up(struct ata_host *h)
{
    int rc;

    if (!h)
        return -EINVAL;
    if (h->started)
        return -EBUSY;
    rc = h->ops->host_start(h);
    if (rc)
        return rc;
    rc = h->pops->request_irq(h->plat, ata_host_irq, h);
    if (rc) {
        h->ops->host_stop(h);
        return rc;
    }
    h->irq_requested = true;
    h->started = true;
    ata_force_host_links(h);
    return 0;
}

/* Schedule the boot probe: an EH run with probe-all and reset on every port, each port in
 * its own EH context: all at once on a host that allows it, else one after another, as
 * libata's asynchronous port probe. */
static void ata_host_schedule_probe(struct ata_host *h)
{
    ata_lock(h);
    h->n_boot_probing = 0;
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];
        struct ata_eh_info *ehi = &ap->link.eh_info;

        if (ap->flags & ATA_FLAG_DUMMY)
            continue;
        ehi->probe_mask |= ATA_ALL_DEVICES;
        ehi->action |= ATA_EH_RESET;
        ehi->flags |= ATA_EHI_NO_AUTOPSY | ATA_EHI_QUIET;
        ap->pflags |= ATA_PFLAG_EH_PENDING;
        ap->boot_probing = true;
        ap->boot_probe_started = (h->flags & ATA_HOST_PARALLEL_SCAN) != 0;
        h->n_boot_probing++;
    }
    h->pops->completion_reinit(h->plat, h->eh_done);
    h->eh_waiter = h->n_boot_probing != 0;
    if (h->flags & ATA_HOST_PARALLEL_SCAN) {
        for (unsigned i = 0; i < h->n_ports; i++)
            if (h->ports[i].boot_probing)
                ata_port_wake_eh(&h->ports[i]);
    } else {
        ata_host_probe_next(h); /* one port after another */
    }
    ata_unlock(h);
}

/* Wait for the host's boot probe, then the SCSI layer's scan. */
static void ata_host_finish_probe(struct ata_host *h)
{
    if (h->eh_waiter)
        h->pops->wait_for_completion_timeout(h->plat, h->eh_done, UINT64_MAX);
    /* The SCSI layer scans the ports in port order once their probes are done, whichever
     * finished first (libata synchronises its async probes before ata_scsi_scan_host), so
     * the disk names follow the ports, not the probe's finishing order. */
    ata_disk_attach_all(h);
}

int ata_host_start(struct ata_host *h)
{
    int rc = ata_host_bring_up(h);

    if (rc)
        return rc;
    ata_host_schedule_probe(h);
    ata_host_finish_probe(h);
    return 0;
}

int ata_hosts_start(struct ata_host *const *hosts, unsigned n)
{
    unsigned brought_up = 0;
    int rc = 0;
    bool overlap = n > 1;

    for (unsigned i = 0; i < n; i++)
        if (!hosts[i] || !hosts[i]->eh_policy->async_port_probe)
            overlap = false;
    if (!overlap) {
        for (unsigned i = 0; i < n; i++)
            if ((rc = ata_host_start(hosts[i])))
                return rc;
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        if ((rc = ata_host_bring_up(hosts[i])))
            break;
        if (i) {
            hosts[i]->probe_prev = hosts[i - 1];
            hosts[i - 1]->probe_next = hosts[i];
        }
        ata_host_schedule_probe(hosts[i]);
        brought_up++;
    }
    for (unsigned i = 0; i < brought_up; i++)
        ata_host_finish_probe(hosts[i]);
    return rc;
}

void ata_host_stop(struct ata_host *h)
{
    if (!h || !h->started)
        return;
    ata_lock(h);
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];

        ap->pflags |= ATA_PFLAG_UNLOADING;
        if (!(ap->flags & ATA_FLAG_DUMMY) && ap->ops->freeze)
            ap->ops->freeze(ap);
        ap->pflags |= ATA_PFLAG_FROZEN;
    }
    ata_unlock(h);

    h->ops->host_stop(h);
    if (h->irq_requested) {
        h->pops->free_irq(h->plat);
        h->irq_requested = false;
    }

    /* the controller is quiet: fail whatever was in flight or waiting */
    ata_lock(h);
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];
        struct ata_bio *bio;

        for (unsigned t = 0; t <= ATA_TAG_INTERNAL; t++) {
            struct ata_queued_cmd *qc = &ap->qcmd[t];

            if (!(qc->flags & ATA_QCFLAG_ACTIVE))
                continue;
            if (!qc->err_mask)
                qc->err_mask = AC_ERR_OTHER;
            ata_eh_qc_complete(qc);
        }
        while ((bio = ap->pending.head)) {
            ap->pending.head = bio->q_next;
            ata_bio_fail(ap, bio, AC_ERR_OTHER);
        }
        ap->pending.tail = NULL;
    }
    ata_unlock(h);
    for (unsigned i = 0; i < h->n_ports; i++)
        ata_port_process(&h->ports[i]);
    h->started = false;
}

void ata_host_destroy(struct ata_host *h)
{
    if (!h)
        return;
    ata_host_stop(h);
    ata_host_free(h);
}

unsigned ata_host_n_ports(const struct ata_host *h) { return h ? h->n_ports : 0; }

bool ata_port_is_frozen(const struct ata_host *h, unsigned port)
{
    /* a dummy port is never thawed: nothing uses it */
    if (!h || port >= h->n_ports || (h->ports[port].flags & ATA_FLAG_DUMMY))
        return false;
    return (h->ports[port].pflags & (ATA_PFLAG_FROZEN | ATA_PFLAG_EH_PENDING | ATA_PFLAG_EH_IN_PROGRESS)) != 0;
}

struct ata_device *ata_host_device(struct ata_host *h, unsigned port, int link, unsigned devno)
{
    struct ata_port *ap;
    struct ata_device *dev;

    if (!h || port >= h->n_ports || link < -1 || link >= SATA_PMP_MAX_PORTS || devno >= ATA_MAX_DEVICES)
        return NULL;
    ap = &h->ports[port];
    if (devno >= ata_link_max_devices(link >= 0 ? &ap->pmp_link[link] : &ap->link))
        return NULL;
    /* with a port multiplier attached the devices sit on its fan-out links */
    if (link >= 0 ? (unsigned)link >= ap->nr_pmp_links : sata_pmp_attached(ap))
        return NULL;
    dev = link >= 0 ? &ap->pmp_link[link].device[devno] : &ap->link.device[devno];
    if ((ap->flags & ATA_FLAG_DUMMY) || (ap->pflags & ATA_PFLAG_UNLOADING) || !ata_dev_enabled(dev))
        return NULL;
    return dev;
}

bool ata_port_eh_pending(const struct ata_host *h, unsigned port)
{
    if (!h || port >= h->n_ports || (h->ports[port].flags & ATA_FLAG_DUMMY))
        return false;
    return (h->ports[port].pflags & (ATA_PFLAG_EH_PENDING | ATA_PFLAG_EH_IN_PROGRESS)) != 0;
}

/* Ask EH for a scan or a delete and wait until a pass has covered it (libata's user scan
 * and ata_port_wait_eh). In-flight commands are aborted into EH -- libata instead lets SCSI
 * EH wait for them to drain; either way they finish or go out again without blame. */
static int ata_port_user_eh(struct ata_host *h, unsigned port, bool delete)
{
    struct ata_port *ap;
    struct ata_device *dev;

    if (!h || port >= h->n_ports)
        return -EINVAL;
    ap = &h->ports[port];
    dev = &ap->link.device[0];
    if (!h->started || (ap->flags & ATA_FLAG_DUMMY))
        return -ENODEV;
    ata_lock(h);
    if (ap->pflags & ATA_PFLAG_UNLOADING) {
        ata_unlock(h);
        return -ENODEV;
    }
    if (ap->eh_waiter) {
        ata_unlock(h);
        return -EBUSY;
    }
    if (delete) {
        if (!ata_dev_enabled(dev)) {
            ata_unlock(h);
            return -ENODEV;
        }
        dev->flags |= ATA_DFLAG_DETACH;
        /* nothing is recovered: no report, no "EH complete" (libata only disables it) */
        ap->link.eh_info.flags |= ATA_EHI_QUIET;
    } else if (sata_pmp_attached(ap)) {
        /* libata's ata_scsi_user_scan asks a reset and a probe of the port's edge links
         * (ata_for_each_link(link, ap, EDGE), 2.6.24 to 6.x): behind a PMP its fan-out
         * links; the PMP itself is neither reset nor probed again */
        for (unsigned i = 0; i < ap->nr_pmp_links; i++) {
            ap->pmp_link[i].eh_info.probe_mask |= ATA_ALL_DEVICES;
            ap->pmp_link[i].eh_info.action |= ATA_EH_RESET;
        }
    } else {
        ap->link.eh_info.probe_mask |= ATA_ALL_DEVICES;
        ap->link.eh_info.action |= ATA_EH_RESET;
    }
    ata_port_abort(ap); /* schedules EH even with nothing in flight */
    for (;;) {
        ap->eh_waiter = true;
        h->pops->completion_reinit(h->plat, ap->eh_wait);
        ata_unlock(h);
        h->pops->wait_for_completion_timeout(h->plat, ap->eh_wait, UINT64_MAX);
        ata_lock(h);
        /* a pass that had already gone past this port leaves it pending: wait again */
        if (!(ap->pflags & (ATA_PFLAG_EH_PENDING | ATA_PFLAG_EH_IN_PROGRESS)))
            break;
    }
    ap->eh_waiter = false;
    ata_unlock(h);
    return 0;
}

int ata_port_scan(struct ata_host *h, unsigned port) { return ata_port_user_eh(h, port, false); }
int ata_dev_delete(struct ata_host *h, unsigned port) { return ata_port_user_eh(h, port, true); }

int ata_dev_rescan(struct ata_host *h, unsigned port)
{
    struct ata_device *dev;
    int rc = 0;

    if (!h || port >= h->n_ports)
        return -EINVAL;
    if (!h->started || (h->ports[port].flags & ATA_FLAG_DUMMY))
        return -ENODEV;
    ata_lock(h);
    dev = &h->ports[port].link.device[0];
    if (!ata_dev_enabled(dev))
        rc = -ENODEV;
    ata_unlock(h);
    if (!rc) {
        const struct sata_trace_field f[] = { TF_INT("n_sectors", (int64_t)dev->n_sectors) };

        /* the SCSI layer's capacity read, answered from the cached IDENTIFY data */
        ata_dev_ev(dev, ATA_EV("dev.rescan", SATA_TC_INFO, SATA_LOG_NONE, f), NULL);
    }
    return rc;
}

int ata_dev_set_timeout(struct ata_device *dev, unsigned timeout_ms)
{
    if (!dev)
        return -EINVAL;
    ata_lock(dev->link->ap->host);
    dev->timeout_ms = timeout_ms;
    ata_unlock(dev->link->ap->host);
    return 0;
}

int ata_dev_get_info(const struct ata_device *dev, struct ata_dev_info *out)
{
    if (!dev || !out)
        return -EINVAL;
    if (!ata_dev_enabled(dev))
        return -ENODEV;
    memset(out, 0, sizeof(*out));
    out->cls = dev->class;
    memcpy(out->model, dev->model, sizeof(out->model));
    memcpy(out->serial, dev->serial, sizeof(out->serial));
    memcpy(out->firmware, dev->fw, sizeof(out->firmware));
    out->n_sectors = dev->n_sectors;
    out->sector_size = dev->sector_size;
    out->lba48 = dev->flags & ATA_DFLAG_LBA48;
    out->ncq = dev->flags & ATA_DFLAG_NCQ;
    out->ncq_depth = out->ncq ? dev->ncq_depth : 0;
    out->max_sectors = dev->max_sectors;
    out->multi_count = dev->multi_count;
    out->xfer_mode = dev->xfer_mode;
    strncpy(out->xfer_name, ata_xfer_mode_name(dev->xfer_mode), sizeof(out->xfer_name) - 1);
    out->sata_spd = dev->link->sata_spd;
    out->fua = dev->flags & ATA_DFLAG_FUA;
    return 0;
}

void ata_report_create_failed(struct sata_platform *p, const struct sata_platform_ops *pops,
                              const char *event, const char *msg)
{
    const struct sata_trace_event ev = {
        .name = event, .cls = SATA_TC_DECISION, .level = SATA_LOG_ERR,
        .port = -1, .link = -1, .dev = -1, .msg = msg,
    };
    pops->trace(p, &ev);
}
