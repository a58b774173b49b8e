/* Port multiplier support in the image of libata's (docs/libata-eh.md 6, docs/hardware.md 7): GSCR and
 * PSCR access through READ/WRITE PORT MULTIPLIER on the control port, attach (GSCR, features,
 * quirks, fan-out links), command-based switching, and PMP EH: the PMP itself first, then
 * every fan-out link with its own reset, devices and try budget. Process context unless noted. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

enum {
    SATA_PMP_RW_TIMEOUT = 3000, /* ms, as libata */
    SATA_PMP_EH_TRIES = 5,      /* PMP recoveries per EH run */
};

static struct ata_device *pmp_dev(struct ata_port *ap) { return &ap->link.device[0]; }

/* ---- register access ---- */

static void pmp_tf(struct ata_port *ap, struct ata_taskfile *tf, uint8_t cmd, unsigned port, unsigned reg)
{
    ata_tf_init(pmp_dev(ap), tf);
    tf->protocol = ATA_PROT_NODATA;
    tf->flags |= ATA_TFLAG_LBA48;
    tf->command = cmd;
    tf->feature = (uint8_t)reg;
    tf->hob_feature = (uint8_t)(reg >> 8);
    tf->device = (uint8_t)(port & 0xf);
}

static unsigned sata_pmp_read(struct ata_port *ap, unsigned port, unsigned reg, uint32_t *val)
{
    struct ata_taskfile tf;
    unsigned err_mask;

    pmp_tf(ap, &tf, ATA_CMD_PMP_READ, port, reg);
    err_mask = ata_exec_internal(pmp_dev(ap), &tf, NULL, 0, SATA_PMP_RW_TIMEOUT);
    if (!err_mask)
        *val = (uint32_t)tf.nsect | (uint32_t)tf.lbal << 8 | (uint32_t)tf.lbam << 16 | (uint32_t)tf.lbah << 24;
    return err_mask;
}

static unsigned sata_pmp_write(struct ata_port *ap, unsigned port, unsigned reg, uint32_t val)
{
    struct ata_taskfile tf;

    pmp_tf(ap, &tf, ATA_CMD_PMP_WRITE, port, reg);
    tf.nsect = (uint8_t)val;
    tf.lbal = (uint8_t)(val >> 8);
    tf.lbam = (uint8_t)(val >> 16);
    tf.lbah = (uint8_t)(val >> 24);
    return ata_exec_internal(pmp_dev(ap), &tf, NULL, 0, SATA_PMP_RW_TIMEOUT);
}

static int pmp_scr_fail(struct ata_link *link, bool write, unsigned reg, unsigned err_mask)
{
    const struct sata_trace_field f[] = { TF_BOOL("write", write), TF_INT("reg", reg), TF_HEX("err_mask", err_mask) };

    ata_link_ev(link, ATA_EV("pmp.scr_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                "failed to %s SCR %u (Emask=0x%x)", write ? "write" : "read", reg, err_mask);
    /* the control port did not answer: the PMP itself needs a reset */
    link->ap->link.eh_context.i.action |= ATA_EH_HARDRESET;
    return -EIO;
}

static int sata_pmp_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    unsigned err_mask;

    if (reg > SCR_CONTROL)
        return -EINVAL;
    err_mask = sata_pmp_read(link->ap, (unsigned)link->pmp, reg, val);
    return err_mask ? pmp_scr_fail(link, false, reg, err_mask) : 0;
}

static int sata_pmp_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    unsigned err_mask;

    if (reg > SCR_CONTROL)
        return -EINVAL;
    err_mask = sata_pmp_write(link->ap, (unsigned)link->pmp, reg, val);
    return err_mask ? pmp_scr_fail(link, true, reg, err_mask) : 0;
}

/* ---- command-based switching (lock held) ---- */

/* Commands may be outstanding to one fan-out link only; the port's FIFO issue order keeps the
 * waiting link from starving (it blocks everything queued behind it, libata's excl_link). */
bool sata_pmp_qc_defer_cmd_switch(const struct ata_queued_cmd *qc)
{
    const struct ata_port *ap = qc->ap;
    const struct ata_link *link = qc->dev->link;

    if (sata_pmp_attached(ap) && !ata_is_host_link(link)) {
        for (unsigned i = 0; i < ap->nr_pmp_links; i++) {
            const struct ata_link *o = &ap->pmp_link[i];

            if (o != link && (o->active_tag != ATA_TAG_NONE || o->sactive))
                return true;
        }
    }
    return ata_std_qc_defer(qc);
}

/* ---- attach / detach ---- */

static const char *pmp_spec_rev(uint32_t rev)
{
    if (rev & (1u << 3))
        return "1.2";
    if (rev & (1u << 2))
        return "1.1";
    if (rev & (1u << 1))
        return "1.0";
    return "<unknown>";
}

static void pmp_link_reset_state(struct ata_link *link)
{
    struct ata_device *dev = &link->device[0];
    unsigned detached = dev->flags & ATA_DFLAG_DETACHED; /* still to be reported */

    memset(&link->eh_info, 0, sizeof(link->eh_info));
    memset(&link->eh_context, 0, sizeof(link->eh_context));
    link->flags = 0;
    link->fail_runs = 0;
    link->sata_spd = 0;
    link->sata_spd_limit = 0;
    link->hw_sata_spd_limit = 0;
    link->active_tag = ATA_TAG_NONE;
    link->sactive = 0;
    link->nr_ncq = 0;
    ata_disk_detach(dev);
    memset(dev, 0, sizeof(*dev));
    dev->link = link;
    dev->class = ATA_DEV_UNKNOWN;
    dev->flags = detached;
}

/* SiI 3726/3826 and 4726 hide a config device (SEMB) on their last port (docs/libata-eh.md 6.4):
 * port 5 of 6, port 6 of 7. Only taken as such when it is the last port. */
static unsigned pmp_config_port(uint16_t vendor, uint16_t devid)
{
    if (vendor != 0x1095)
        return SATA_PMP_MAX_PORTS;
    if (devid == 0x3726 || devid == 0x3826)
        return 5;
    if (devid == 0x4726)
        return 6;
    return SATA_PMP_MAX_PORTS;
}

static int pmp_read_gscr(struct ata_port *ap, unsigned reg, uint32_t *val)
{
    unsigned err_mask = sata_pmp_read(ap, SATA_PMP_CTRL_PORT, reg, val);

    if (err_mask) {
        const struct sata_trace_field f[] = { TF_INT("reg", reg), TF_HEX("err_mask", err_mask) };

        ata_pmp_ev(ap, ATA_EV("pmp.gscr_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                   "failed to read PMP GSCR[%u] (Emask=0x%x)", reg, err_mask);
        return -EIO;
    }
    return 0;
}

static int sata_pmp_attach(struct ata_device *dev)
{
    struct ata_port *ap = dev->link->ap;
    uint32_t gscr[3], feat, feat_en;
    unsigned nr_ports, cfg;
    uint16_t vendor, devid;
    int rc = 0;

    if (!(ap->flags & ATA_FLAG_PMP) || !ata_is_host_link(dev->link) || !ap->ops->pmp_attach) {
        ata_dev_ev(dev, ATA_EV0("probe.unsupported", SATA_TC_DECISION, SATA_LOG_WARN),
                   "port multiplier support not available, ignoring");
        return -EOPNOTSUPP;
    }
    for (unsigned r = 0; r < 3 && !rc; r++)
        rc = pmp_read_gscr(ap, r, &gscr[r]);
    if (!rc)
        rc = pmp_read_gscr(ap, SATA_PMP_GSCR_FEAT, &feat);
    if (!rc)
        rc = pmp_read_gscr(ap, SATA_PMP_GSCR_FEAT_EN, &feat_en);
    if (rc)
        return rc;
    vendor = (uint16_t)gscr[0];
    devid = (uint16_t)(gscr[0] >> 16);
    nr_ports = gscr[2] & 0xf;
    if (!nr_ports || nr_ports > SATA_PMP_MAX_PORTS) {
        const struct sata_trace_field f[] = { TF_INT("nr_ports", nr_ports) };

        ata_pmp_ev(ap, ATA_EV("pmp.invalid_ports", SATA_TC_DECISION, SATA_LOG_ERR, f), "invalid nr_ports");
        return -EINVAL;
    }
    {
        const struct sata_trace_field f[] = {
            TF_STR("spec", pmp_spec_rev(gscr[1])), TF_HEX("vendor", vendor), TF_HEX("devid", devid),
            TF_INT("rev", (gscr[1] >> 8) & 0xff), TF_INT("ports", nr_ports), TF_HEX("feat", feat),
            TF_HEX("feat_en", feat_en),
        };
        ata_pmp_ev(ap, ATA_EV("pmp.attach", SATA_TC_DECISION, SATA_LOG_INFO, f),
                   "Port Multiplier %s, 0x%04x:0x%04x r%u, %u ports, feat 0x%x/0x%x", pmp_spec_rev(gscr[1]),
                   vendor, devid, (unsigned)((gscr[1] >> 8) & 0xff), nr_ports, (unsigned)feat, (unsigned)feat_en);
    }
    /* configure: SError.N of every port feeds GSCR[32]; asynchronous notification on when
     * both sides have it, else off (GSCR[32] is still read after every PMP EH run); SiI: no
     * early R_OK */
    ap->pmp_quirks = 0;
    if (vendor == 0x1095 && (devid == 0x3726 || devid == 0x3826 || devid == 0x4723 || devid == 0x4726))
        ap->pmp_quirks |= ATA_PMP_QUIRK_SII_POL;
    {
        unsigned err_mask = sata_pmp_write(ap, SATA_PMP_CTRL_PORT, SATA_PMP_GSCR_ERROR_EN, 1u << 16);
        uint32_t pol;

        if (!err_mask && (ap->flags & ATA_FLAG_AN) && (feat & SATA_PMP_FEAT_NOTIFY))
            feat_en |= SATA_PMP_FEAT_NOTIFY;
        else
            feat_en &= ~(uint32_t)SATA_PMP_FEAT_NOTIFY;
        if (!err_mask)
            err_mask = sata_pmp_write(ap, SATA_PMP_CTRL_PORT, SATA_PMP_GSCR_FEAT_EN, feat_en);
        if (!err_mask && (ap->pmp_quirks & ATA_PMP_QUIRK_SII_POL)) {
            err_mask = sata_pmp_read(ap, SATA_PMP_CTRL_PORT, SATA_PMP_GSCR_SII_POL, &pol);
            if (!err_mask && (pol & 1))
                err_mask = sata_pmp_write(ap, SATA_PMP_CTRL_PORT, SATA_PMP_GSCR_SII_POL, pol & ~1u);
        }
        if (err_mask) {
            const struct sata_trace_field f[] = { TF_HEX("err_mask", err_mask) };

            ata_pmp_ev(ap, ATA_EV("pmp.config_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                       "failed to configure Port Multiplier (Emask=0x%x)", err_mask);
            return -EIO;
        }
    }
    memcpy(ap->pmp_gscr, gscr, sizeof(gscr));
    ap->pmp_feat = feat;
    ap->pmp_feat_en = feat_en;
    cfg = pmp_config_port(vendor, devid);
    for (unsigned i = 0; i < nr_ports; i++) {
        struct ata_link *link = &ap->pmp_link[i];

        pmp_link_reset_state(link);
        ata_force_link_limits(link);
        link->eh_context.i.probe_mask = 1;
        link->eh_context.i.action = ATA_EH_RESET;
        /* not quiet, even at boot: libata's sata_pmp_init_links asks a reset and a probe of
         * each fan-out link without ATA_EHI_QUIET, so each one logs "hard resetting link" */
        link->eh_context.i.flags = 0;
        link->eh_context.tries[0] = (int)ap->host->eh_policy->dev_tries;
        if (i == cfg && i == nr_ports - 1) {
            /* the vendor's enclosure bridge (SEMB), not a disk: libata's sata_pmp_quirks gives
             * it ATA_LFLAG_NO_SRST | ATA_LFLAG_ASSUME_SEMB ("port 5 is for SEMB device and it
             * doesn't like SRST", since 2.6.26): its link is hard reset and reported like any
             * other (dmesg corpus 51, 2.6.28, and 52, 2.6.35: "ata1.05: hard resetting link",
             * "SATA link up 1.5 Gbps"), and nothing is attached there */
            ata_link_ev(link, ATA_EV0("pmp.config_port", SATA_TC_DECISION, SATA_LOG_NONE), NULL);
            link->flags |= ATA_LFLAG_ASSUME_SEMB;
        }
    }
    ata_lock(ap->host);
    ap->nr_pmp_links = nr_ports;
    ata_unlock(ap->host);
    ap->ops->pmp_attach(ap);
    return 0;
}

static void sata_pmp_detach(struct ata_port *ap)
{
    if (!sata_pmp_attached(ap))
        return;
    /* libata's wording, every version since 2.6.24 (sata_pmp_detach) */
    ata_pmp_ev(ap, ATA_EV0("pmp.detach", SATA_TC_DECISION, SATA_LOG_INFO), "Port Multiplier detaching");
    for (unsigned i = 0; i < ap->nr_pmp_links; i++) {
        struct ata_device *dev = &ap->pmp_link[i].device[0];

        if (ata_dev_enabled(dev))
            ata_eh_detach_dev(dev);
    }
    if (ap->ops->pmp_detach)
        ap->ops->pmp_detach(ap);
    ata_lock(ap->host);
    ap->nr_pmp_links = 0;
    ata_unlock(ap->host);
    ata_dev_disable(pmp_dev(ap));
    pmp_dev(ap)->class = ATA_DEV_UNKNOWN;
    /* what is on the cable now is probed afresh */
    ap->link.eh_context.i.probe_mask |= 1;
    ap->link.eh_context.i.action |= ATA_EH_RESET;
}

/* ---- fan-out link reset methods ---- */

/* COMRESET through PSCR SControl, debounce through PSCR SStatus; the class comes from a
 * follow-up SRST to that PM port. */
static int sata_pmp_std_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    bool online;
    int rc = sata_link_hardreset(link, sata_ehc_deb_timing(&link->eh_context), deadline, &online, NULL);

    if (rc)
        return rc;
    if (link->flags & ATA_LFLAG_ASSUME_SEMB) {
        /* no SRST to the bridge: the class is assumed (libata's ata_eh_reset class override) */
        cls[0] = online ? ATA_DEV_SEMB_UNSUP : ATA_DEV_NONE;
        return 0;
    }
    return online ? -EAGAIN : 0;
}

/* ---- EH ---- */

/* Same PMP as at attach? Full: product, revision, port count; quick: product only. */
static int pmp_revalidate(struct ata_port *ap, bool full)
{
    uint32_t gscr[3];
    unsigned n = full ? 3 : 1;

    for (unsigned r = 0; r < n; r++)
        if (pmp_read_gscr(ap, r, &gscr[r]))
            return -EIO;
    for (unsigned r = 0; r < n; r++) {
        if (gscr[r] != ap->pmp_gscr[r]) {
            const struct sata_trace_field f[] = { TF_INT("reg", r), TF_HEX("old", ap->pmp_gscr[r]),
                                                  TF_HEX("new", gscr[r]) };

            ata_pmp_ev(ap, ATA_EV("pmp.mismatch", SATA_TC_DECISION, SATA_LOG_WARN, f),
                       "PMP GSCR[%u] changed from 0x%08x to 0x%08x", r, ap->pmp_gscr[r], gscr[r]);
            return -ENODEV;
        }
    }
    return 0;
}

static int pmp_recover_pmp(struct ata_port *ap)
{
    const struct ata_port_operations *ops = ap->ops;
    struct ata_link *host = &ap->link;
    struct ata_eh_context *ehc = &host->eh_context;
    bool full = false;
    int rc;

    if (pmp_dev(ap)->flags & ATA_DFLAG_DETACH) {
        pmp_dev(ap)->flags &= ~(unsigned)ATA_DFLAG_DETACH;
        sata_pmp_detach(ap);
        ehc->i.probe_mask &= ~1u; /* a user delete: nothing is probed */
        ehc->i.action = 0;
        return 0;
    }
    if (ehc->i.action & ATA_EH_RESET) {
        rc = ata_eh_reset(host, false, ops->prereset, ops->softreset, ops->hardreset, ops->postreset);
        if (rc) {
            ata_pmp_ev(ap, ATA_EV0("pmp.reset_failed", SATA_TC_DECISION, SATA_LOG_ERR),
                       "failed to reset PMP, giving up");
            return rc;
        }
        if (ehc->classes[0] != ATA_DEV_PMP) {
            const struct sata_trace_field f[] = { TF_STR("cls", ata_class_name(ehc->classes[0])) };

            ata_pmp_ev(ap, ATA_EV("pmp.gone", SATA_TC_DECISION, SATA_LOG_WARN, f),
                       "Port Multiplier gone, class %s", ata_class_name(ehc->classes[0]));
            sata_pmp_detach(ap);
            return -ENODEV;
        }
        /* after a PMP reset no fan-out link state is trusted: reset and revalidate them all */
        for (unsigned i = 0; i < ap->nr_pmp_links; i++) {
            ap->pmp_link[i].eh_context.i.action |= ATA_EH_HARDRESET;
            ap->pmp_link[i].eh_context.i.probe_mask |= 1;
        }
        full = true;
    }
    if (full || (ehc->i.action & ATA_EH_REVALIDATE)) {
        rc = pmp_revalidate(ap, full || (ehc->i.action & ATA_EH_REVALIDATE));
        if (rc == -ENODEV)
            sata_pmp_detach(ap);
        if (rc)
            return rc;
    }
    ehc->i.action &= ~(unsigned)ATA_EH_REVALIDATE;
    return 0;
}

/* The LLDs record what the HBA saw on the host link. Behind a PMP a device error without a
 * culprit (an NCQ error: the SDB FIS with ERR) belongs to the fan-out link whose commands
 * failed (command-based switching: the one active link; FBS: the link of the single device
 * error), as libahci records it on the active link: it moves there with the description,
 * so that link's autopsy reads its own disk's log page 10h and blames only the tag named
 * there. Failed commands on several links with such an error: no device can be told, the
 * PMP is reset. Everything else stays where it was recorded; each link's autopsy decides
 * its own recovery, the host link's (frozen port, fan-out timeout) a PMP reset. */
static void sata_pmp_route_errors(struct ata_port *ap)
{
    struct ata_eh_info *hi = &ap->link.eh_context.i;
    struct ata_link *only = NULL;
    bool many = false;

    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &ap->qcmd[tag];

        if (!(qc->flags & ATA_QCFLAG_FAILED) || !qc->dev || ata_is_host_link(qc->dev->link))
            continue;
        if (only && only != qc->dev->link)
            many = true;
        only = qc->dev->link;
    }
    if (!only)
        return;
    if (many) {
        const struct sata_trace_field f[] = { TF_HEX("emask", hi->err_mask), TF_BOOL("many", many) };

        if (!(hi->err_mask & AC_ERR_DEV))
            return; /* each link's autopsy judges its own commands */
        ata_pmp_ev(ap, ATA_EV("pmp.eh_route", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        hi->action |= ATA_EH_RESET;
        return;
    }
    {
        const struct sata_trace_field f[] = { TF_HEX("emask", hi->err_mask & AC_ERR_DEV), TF_BOOL("many", many) };

        ata_link_ev(only, ATA_EV("pmp.eh_route", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
    if (!(hi->err_mask & AC_ERR_DEV))
        return;
    only->eh_context.i.err_mask |= AC_ERR_DEV;
    hi->err_mask &= ~(unsigned)AC_ERR_DEV;
    if (!only->eh_context.i.desc[0])
        memcpy(only->eh_context.i.desc, hi->desc, sizeof(hi->desc));
    if (!hi->err_mask)
        hi->desc[0] = '\0';
}

/* libata's step 6: ports whose SError.N is latched in GSCR[32] had a PHY event since the
 * last look (plug, unplug): mark those links hotplugged. 1 = recover again, 0 = nothing,
 * -EIO = the PMP did not answer. */
static int pmp_check_events(struct ata_port *ap, int *tries)
{
    uint32_t gscr_err;
    unsigned mask = 0;

    if (pmp_read_gscr(ap, SATA_PMP_GSCR_ERROR, &gscr_err))
        return -EIO;
    for (unsigned i = 0; i < ap->nr_pmp_links; i++)
        if ((gscr_err & (1u << i)) && !(ap->pmp_link[i].flags & ATA_LFLAG_DISABLED))
            mask |= 1u << i;
    if (!mask)
        return 0;
    {
        const struct sata_trace_field f[] = { TF_HEX("ports", mask), TF_INT("tries_left", *tries) };

        if (!*tries) {
            ata_pmp_ev(ap, ATA_EV("pmp.events_giveup", SATA_TC_DECISION, SATA_LOG_WARN, f),
                       "PHY status changed but maxed out on retries, giving up");
            return 0;
        }
        ata_pmp_ev(ap, ATA_EV("pmp.events", SATA_TC_DECISION, SATA_LOG_INFO, f),
                   "PMP SError.N set for some ports, repeating recovery");
    }
    (*tries)--;
    for (unsigned i = 0; i < ap->nr_pmp_links; i++) {
        struct ata_link *link = &ap->pmp_link[i];
        uint32_t serror;

        if (!(mask & (1u << i)))
            continue;
#ifdef SATASIM_PLANT_PMP_EVENT_SERROR_NOT_CLEARED
        if (sata_scr_read(link, SCR_ERROR, &serror)) /* planted: PSCR SError left set */
#else
        if (sata_scr_read(link, SCR_ERROR, &serror) || sata_scr_write(link, SCR_ERROR, serror))
#endif
            return -EIO;
        link->eh_context.i.serror |= serror;
        ata_ehi_hotplugged(&link->eh_context.i);
        link->eh_context.did_probe_mask = 0;
    }
    return 1;
}

/* ---- asynchronous notification (irq context, lock held) ---- */

bool sata_async_notification(struct ata_port *ap, uint32_t sntf)
{
    if (!sata_pmp_attached(ap) || !(sntf & (1u << SATA_PMP_CTRL_PORT)))
        return false;
    /* EH is running (its internal commands must not be aborted): it runs again after
     * this pass and reads GSCR[32] then, as libata's EH-pending repeat */
    if (ap->pflags & ATA_PFLAG_EH_IN_PROGRESS) {
        ata_port_schedule_eh(ap);
        return true;
    }
    ata_ehi_push_desc(&ap->link.eh_info, "async notification 0x%x", (unsigned)sntf);
    /* EH is only scheduled, as by libata's sata_async_notification: the commands in flight
     * are still the disks', and EH's fast drain lets them end (a disk whose link went down
     * ends none of its own: the drain times those out) before it reads GSCR[32] */
    ata_port_schedule_eh(ap);
    return true;
}

static void pmp_disable_link(struct ata_link *link)
{
    const struct sata_trace_field f[] = { TF_INT("tries", SATA_PMP_LINK_TRIES) };

    ata_link_ev(link, ATA_EV("pmp.link_disabled", SATA_TC_DECISION, SATA_LOG_WARN, f),
                "failed to recover link after %d tries, disabling", SATA_PMP_LINK_TRIES);
    link->flags |= ATA_LFLAG_DISABLED;
    if (ata_dev_enabled(&link->device[0]))
        ata_eh_detach_dev(&link->device[0]);
    link->eh_context.i.action = 0;
}

/* Asynchronous notification off while the fan-out links are reset (each COMRESET latches
 * SError.N, which would notify), back on before GSCR[32] is read (libata's step 4 and 6).
 * A PMP reset turned it off in the PMP already; the write is repeated anyway. */
static int pmp_set_notify(struct ata_port *ap, bool on)
{
    uint32_t feat_en = ap->pmp_feat_en;
    unsigned err_mask;

    if (!(feat_en & SATA_PMP_FEAT_NOTIFY))
        return 0;
    if (!on)
        feat_en &= ~(uint32_t)SATA_PMP_FEAT_NOTIFY;
    err_mask = sata_pmp_write(ap, SATA_PMP_CTRL_PORT, SATA_PMP_GSCR_FEAT_EN, feat_en);
    if (err_mask) {
        const struct sata_trace_field f[] = { TF_BOOL("on", on), TF_HEX("err_mask", err_mask) };

        ata_pmp_ev(ap, ATA_EV("pmp.notify_failed", SATA_TC_DECISION, SATA_LOG_WARN, f),
                   on ? "failed to write PMP_FEAT_EN (Emask=0x%x)" : "failed to disable NOTIFY (err_mask=0x%x)",
                   err_mask);
        return -EIO;
    }
    return 0;
}

static void sata_pmp_eh_recover(struct ata_port *ap)
{
    const struct ata_port_operations *ops = ap->ops;
    struct ata_link *host = &ap->link;
    int pmp_tries = SATA_PMP_EH_TRIES, event_tries = SATA_PMP_EH_TRIES;
    struct ata_link *failed = NULL;
    int rc;

retry:
    if (ap->pflags & ATA_PFLAG_UNLOADING)
        return;
    if (!sata_pmp_attached(ap)) {
        /* no PMP (any more): the host link as usual; a PMP found there attaches itself */
        ata_eh_recover(ap, ops->prereset, ops->softreset, ops->hardreset, ops->postreset);
        if (!sata_pmp_attached(ap))
            return;
    } else {
        rc = pmp_recover_pmp(ap);
        if (rc)
            goto pmp_fail;
        if (!sata_pmp_attached(ap))
            return; /* deleted by the user */
    }
    /* The PMP is there and answers: libata's sata_pmp_eh_recover_pmp ends "okay, PMP
     * resurrected" with ehc->i.flags = 0 (also after a new PMP's attach, which falls through
     * to it), so the boot probe's QUIET and this run's reset flags are gone: a later PMP reset
     * of the same EH run is logged and waits no cool-down (dmesg corpus 51, 2.6.28: "ata7.15:
     * hard resetting link" at once after a failed round, its link up 2.2 s later). */
    host->eh_context.i.flags = 0;
    rc = pmp_set_notify(ap, false);
    if (rc)
        goto pmp_fail;

    /* every fan-out link reset first, then each link's devices (libata's ata_eh_recover over
     * all links); a link that fails is retried with a PMP reset, three times, then disabled,
     * and the PMP is reset once more (libata's link_fail falls through to pmp_fail) */
    rc = ata_eh_recover_links(ap, ops->pmp_prereset, ops->softreset, ops->pmp_hardreset, ops->pmp_postreset,
                              &failed);
    if (host->eh_context.i.action & ATA_EH_RESET) {
        /* the control port failed under a link's recovery: reset the whole PMP */
        ata_pmp_ev(ap, ATA_EV0("pmp.ctrl_failed", SATA_TC_DECISION, SATA_LOG_WARN), NULL);
        rc = -EIO;
        goto pmp_fail;
    }
    if (rc) {
        if (++failed->fail_runs < SATA_PMP_LINK_TRIES) {
            const struct sata_trace_field f[] = { TF_INT("errno", rc), TF_INT("tries", failed->fail_runs) };

            ata_link_ev(failed, ATA_EV("pmp.link_retry", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
            host->eh_context.i.action |= ATA_EH_HARDRESET;
            goto retry;
        }
        pmp_disable_link(failed);
        goto pmp_fail;
    }
    for (unsigned i = 0; i < ap->nr_pmp_links; i++)
        ap->pmp_link[i].fail_runs = 0;
    rc = pmp_set_notify(ap, true);
    if (rc)
        goto pmp_fail;
    rc = pmp_check_events(ap, &event_tries);
    if (rc > 0)
        goto retry;
    if (rc < 0) {
        ap->link.eh_context.i.action |= ATA_EH_HARDRESET;
        goto pmp_fail;
    }
    return;

pmp_fail:
    if (!sata_pmp_attached(ap))
        goto retry; /* the PMP vanished: start over without one */
    if (--pmp_tries > 0) {
        const struct sata_trace_field f[] = { TF_INT("errno", rc), TF_INT("tries_left", pmp_tries) };

        ata_pmp_ev(ap, ATA_EV("pmp.recover_retry", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        host->eh_context.i.action |= ATA_EH_HARDRESET;
        goto retry;
    }
    /* a port's line (ata_port_printk): "ata7: failed to recover PMP after 5 tries, giving up" */
    ata_port_ev(ap, ATA_EV0("pmp.giveup", SATA_TC_DECISION, SATA_LOG_ERR),
                "failed to recover PMP after %d tries, giving up", SATA_PMP_EH_TRIES);
    sata_pmp_detach(ap);
    /* libata's ata_dev_disable(pmp_dev) after the detach: the class becomes unsupported, so
     * no later run of this EH attaches the PMP again (only a probe, a hotplug or a rescan) */
    pmp_dev(ap)->class = ATA_DEV_PMP;
    host->eh_context.i.probe_mask &= ~1u;
    host->eh_context.i.action = 0;
}

/* ---- the error handler and the base table ---- */

void sata_pmp_error_handler(struct ata_port *ap)
{
    const struct ata_port_operations *ops = ap->ops;

    /* a device error the LLD recorded on the host link goes to its fan-out link first */
    if (sata_pmp_attached(ap))
        sata_pmp_route_errors(ap);
    ata_eh_autopsy(ap);
    ata_eh_report(ap);
    /* a PMP-capable port: the PMP (if one is or turns up there), then its fan-out links */
    if (ap->flags & ATA_FLAG_PMP) {
        const unsigned quiet = ap->link.eh_context.i.flags & ATA_EHI_QUIET;

        sata_pmp_eh_recover(ap);
        /* "PMP resurrected" cleared the host link's flags for the resets still to come; whether
         * the run ends with "EH complete" is decided as before: libata's RECOVERED is set where
         * a link acts while not quiet, not by that late clear */
        ap->link.eh_context.i.flags |= quiet;
    } else
        ata_eh_recover(ap, ops->prereset, ops->softreset, ops->hardreset, ops->postreset);
    ata_eh_conclude(ap);
}

const struct ata_port_operations sata_pmp_port_ops = {
    .inherits = &sata_port_ops,
    .qc_defer = sata_pmp_qc_defer_cmd_switch,
    .error_handler = sata_pmp_error_handler,
    .pmp_probe = sata_pmp_attach,
    .pmp_scr_read = sata_pmp_scr_read,
    .pmp_scr_write = sata_pmp_scr_write,
    .pmp_prereset = ata_std_prereset,
    .pmp_hardreset = sata_pmp_std_hardreset,
    .pmp_postreset = ata_std_postreset,
};
