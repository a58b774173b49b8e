/* SATA link helpers shared by every controller driver: SCR access, debounce, link resume,
 * COMRESET through SControl, waiting for the device to become ready, and the standard
 * pre/post-reset methods (docs/libata-eh.md 3.5, 5.3, 7.5). Process context only. */
#include <string.h>

#include "internal.h"

/* {interval, stable duration, timeout} in ms */
const struct sata_deb_timing sata_deb_timing_normal = { 5, 100, 2000 };
const struct sata_deb_timing sata_deb_timing_hotplug = { 25, 500, 2000 };

enum { ATA_TMOUT_SLOW_WARN = 5000, ATA_TMOUT_SLOW_LEFT = 3000, ATA_RESUME_DELAY = 200 };

int sata_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    /* a fan-out link's SCRs are the PMP's PSCRs, behind the PMP layer's entry */
    if (!ata_is_host_link(link))
        return link->ap->ops->pmp_scr_read ? link->ap->ops->pmp_scr_read(link, reg, val) : -EOPNOTSUPP;
    if (!link->ap->ops->scr_read)
        return -EOPNOTSUPP;
    return link->ap->ops->scr_read(link, reg, val);
}

int sata_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    if (!ata_is_host_link(link))
        return link->ap->ops->pmp_scr_write ? link->ap->ops->pmp_scr_write(link, reg, val) : -EOPNOTSUPP;
    if (!link->ap->ops->scr_write)
        return -EOPNOTSUPP;
    return link->ap->ops->scr_write(link, reg, val);
}

/* Online and offline are both false when SStatus cannot be read. */
bool ata_link_online(struct ata_link *link)
{
    uint32_t sstatus;

    return !sata_scr_read(link, SCR_STATUS, &sstatus) && (sstatus & 0xf) == 3;
}

bool ata_link_offline(struct ata_link *link)
{
    uint32_t sstatus;

    return !sata_scr_read(link, SCR_STATUS, &sstatus) && (sstatus & 0xf) != 3;
}

const char *sata_spd_string(unsigned spd)
{
    static const char *const s[] = { "1.5 Gbps", "3.0 Gbps", "6.0 Gbps" };

    return spd >= 1 && spd <= ATA_ARRAY_SIZE(s) ? s[spd - 1] : "<unknown>";
}

/* Wait until SStatus.DET holds still for t->duration. DET=1 (presence without
 * communication) keeps waiting until the deadline: some PHYs stick there after unplug. */
int sata_link_debounce(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline)
{
    struct ata_host *h = link->ap->host;
    uint64_t limit = ata_deadline(h, t->timeout), since;
    uint32_t cur, last;
    int rc;

    if (limit < deadline)
        deadline = limit;
    rc = sata_scr_read(link, SCR_STATUS, &cur);
    if (rc)
        return rc;
    last = cur & 0xf;
    since = ata_now(h);

    for (;;) {
        uint64_t now;

        ata_msleep(h, t->interval);
        rc = sata_scr_read(link, SCR_STATUS, &cur);
        if (rc)
            return rc;
        cur &= 0xf;
        now = ata_now(h);
        if (cur == last) {
            if (cur == 1 && now < deadline)
                continue;
            if (now - since >= ATA_MS(t->duration))
                return 0;
            continue;
        }
        last = cur;
        since = now;
        /* still changing past the deadline: the caller may lower the link speed */
        if (now >= deadline)
            return -EPIPE;
    }
}

int sata_link_resume(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline)
{
    struct ata_host *h = link->ap->host;
    unsigned tries = ATA_LINK_RESUME_TRIES;
    uint32_t scontrol, serror;
    int rc;

    rc = sata_scr_read(link, SCR_CONTROL, &scontrol);
    if (rc)
        return rc;
    do {
        /* DET=0 (no action), IPM=3 (no partial/slumber), speed limit kept */
        scontrol = (scontrol & 0x0f0) | 0x300;
        rc = sata_scr_write(link, SCR_CONTROL, scontrol);
        if (rc)
            return rc;
        ata_msleep(h, ATA_RESUME_DELAY);
        /* some controllers ignore SControl writes: check it stuck */
        rc = sata_scr_read(link, SCR_CONTROL, &scontrol);
        if (rc)
            return rc;
    } while ((scontrol & 0xf0f) != 0x300 && --tries);

    if ((scontrol & 0xf0f) != 0x300) {
        const struct sata_trace_field f[] = { TF_HEX("scontrol", scontrol) };

        ata_link_ev(link, ATA_EV("link.resume_failed", SATA_TC_INFO, SATA_LOG_WARN, f),
                    "failed to resume link (SControl %X)", scontrol);
        return 0;
    }
    if (tries < ATA_LINK_RESUME_TRIES) {
        const struct sata_trace_field f[] = { TF_INT("retries", ATA_LINK_RESUME_TRIES - tries) };

        ata_link_ev(link, ATA_EV("link.resume_retried", SATA_TC_INFO, SATA_LOG_WARN, f),
                    "link resume succeeded after %u retries", ATA_LINK_RESUME_TRIES - tries);
    }
    rc = sata_link_debounce(link, t, deadline);
    if (rc)
        return rc;
    /* some PHYs need SError cleared even for SRST to work */
    if (!sata_scr_read(link, SCR_ERROR, &serror))
        sata_scr_write(link, SCR_ERROR, serror);
    return 0;
}

/* 1: ready, 0: busy, -ENODEV: 0xff, nothing answered. */
int ata_check_ready(uint8_t status)
{
    if (!(status & ATA_BUSY))
        return 1;
    return status == 0xff ? -ENODEV : 0;
}

int ata_wait_ready(struct ata_link *link, uint64_t deadline, ata_check_ready_fn check)
{
    struct ata_host *h = link->ap->host;
    uint64_t start = ata_now(h);
    /* a parallel scan waits longer for a 0xff status to mean "no device" (libata's
     * ATA_TMOUT_FF_WAIT_LONG): the ports' drives spin up at once */
    uint64_t nodev_deadline = start + ATA_MS(h->flags & ATA_HOST_PARALLEL_SCAN ? ATA_TMOUT_FF_WAIT_LONG
                                                                                : ATA_TMOUT_FF_WAIT);
    bool warned = false;

    if (nodev_deadline > deadline)
        nodev_deadline = deadline;

    for (;;) {
        uint64_t now = ata_now(h);
        int ready = check(link);

        if (ready > 0)
            return 0;
        /* 0xff is "no device" only once the link says so; with the link up (or not yet
         * known down, for a while) the device may still be starting */
        if (ready == -ENODEV &&
            (ata_link_online(link) || (!ata_link_offline(link) && now < nodev_deadline)))
            ready = 0;
        if (ready)
            return ready;
        if (now >= deadline)
            return -EBUSY;
        if (!warned && now > start + ATA_MS(ATA_TMOUT_SLOW_WARN) &&
            deadline - now > ATA_MS(ATA_TMOUT_SLOW_LEFT)) {
            const struct sata_trace_field f[] = { TF_INT("ready", ready) };

            warned = true;
            ata_link_ev(link, ATA_EV("link.slow", SATA_TC_INFO, SATA_LOG_WARN, f),
                        "link is slow to respond, please be patient (ready=%d)", ready);
        }
        ata_msleep(h, ATA_WAIT_READY_POLL);
    }
}

int ata_wait_after_reset(struct ata_link *link, uint64_t deadline, ata_check_ready_fn check)
{
    ata_msleep(link->ap->host, ATA_WAIT_AFTER_RESET);
    return ata_wait_ready(link, deadline, check);
}

/* COMRESET: SControl DET=1 for at least 1 ms (AHCI 1.1 10.4.2), then resume and debounce.
 * *online tells the caller whether a device answered; check (optional) waits for it. */
int sata_link_hardreset(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline,
                        bool *online, ata_check_ready_fn check)
{
    uint32_t scontrol;
    int rc;

    *online = false;
    rc = sata_scr_read(link, SCR_CONTROL, &scontrol);
    if (rc)
        goto out;
    /* an EH speed limit goes into SControl.SPD; the COMRESET makes it effective */
    if (sata_set_spd_needed(link))
        scontrol = (scontrol & ~0xf0u) | (sata_spd_target(link) << 4);
    scontrol = (scontrol & 0x0f0) | 0x301;
    rc = sata_scr_write(link, SCR_CONTROL, scontrol);
    if (rc)
        goto out;
    ata_msleep(link->ap->host, 1);

    rc = sata_link_resume(link, t, deadline);
    if (rc || ata_link_offline(link))
        goto out;
    *online = true;
    /* A PMP may send no D2H FIS after COMRESET when its port 0 is empty, and it answers
     * for port 0 anyway: the signature comes from an SRST to the control port. */
    if (check && ata_is_host_link(link) && (link->ap->flags & ATA_FLAG_PMP)) {
        rc = -EAGAIN;
        goto out;
    }
    if (check)
        rc = ata_wait_ready(link, deadline, check);
out:
    if (rc && rc != -EAGAIN) {
        const struct sata_trace_field f[] = { TF_INT("errno", rc) };

        ata_link_ev(link, ATA_EV("eh.comreset_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                    "COMRESET failed (errno=%d)", rc);
    }
    return rc;
}

const struct sata_deb_timing *sata_ehc_deb_timing(const struct ata_eh_context *ehc)
{
    return (ehc->i.flags & ATA_EHI_HOTPLUGGED) ? &sata_deb_timing_hotplug : &sata_deb_timing_normal;
}

/* COMRESET with nothing to classify by: the signature comes from the follow-up softreset
 * (-EAGAIN while a device is there; libata's sata_std_hardreset). */
int sata_std_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    bool online;
    int rc = sata_link_hardreset(link, sata_ehc_deb_timing(&link->eh_context), deadline, &online, NULL);

    (void)cls;
    return online ? -EAGAIN : rc;
}

/* With hardreset chosen there is nothing to prepare; before a softreset, wake the link
 * and skip the reset when nothing is attached. */
int ata_std_prereset(struct ata_link *link, uint64_t deadline)
{
    struct ata_eh_context *ehc = &link->eh_context;
    const struct sata_deb_timing *t;
    int rc;

    if (ehc->i.action & ATA_EH_HARDRESET)
        return 0;
    t = sata_ehc_deb_timing(ehc);
    rc = sata_link_resume(link, t, deadline);
    if (rc && rc != -EOPNOTSUPP) {
        const struct sata_trace_field f[] = { TF_INT("errno", rc) };

        ata_link_ev(link, ATA_EV("eh.resume_failed", SATA_TC_DECISION, SATA_LOG_WARN, f),
                    "failed to resume link for reset (errno=%d)", rc);
    }
    if (ata_link_offline(link))
        ehc->i.action &= ~ATA_EH_SOFTRESET;
    return 0;
}

static void sata_print_link_status(struct ata_link *link)
{
    uint32_t sstatus, scontrol;

    if (sata_scr_read(link, SCR_STATUS, &sstatus) || sata_scr_read(link, SCR_CONTROL, &scontrol))
        return;
    if ((sstatus & 0xf) == 3) {
        unsigned spd = (sstatus >> 4) & 0xf;
        const struct sata_trace_field f[] = {
            TF_HEX("sstatus", sstatus), TF_HEX("scontrol", scontrol), TF_INT("spd", spd),
            TF_STR("speed", sata_spd_string(spd)),
        };
        ata_link_ev(link, ATA_EV("probe.link_up", SATA_TC_DECISION, SATA_LOG_INFO, f),
                    "SATA link up %s (SStatus %X SControl %X)", sata_spd_string(spd), sstatus,
                    scontrol);
    } else {
        const struct sata_trace_field f[] = { TF_HEX("sstatus", sstatus), TF_HEX("scontrol", scontrol) };

        ata_link_ev(link, ATA_EV("probe.link_down", SATA_TC_DECISION, SATA_LOG_INFO, f),
                    "SATA link down (SStatus %X SControl %X)", sstatus, scontrol);
    }
}

int ata_softreset_fail(struct ata_link *link, int rc, const char *reason)
{
    const struct sata_trace_field f[] = { TF_INT("errno", rc), TF_STR("reason", reason) };

    ata_link_ev(link, ATA_EV("eh.softreset_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                "softreset failed (%s)", reason);
    return rc;
}

void ata_std_postreset(struct ata_link *link, enum ata_dev_class *cls)
{
    uint32_t serror;

    (void)cls;
    if (!sata_scr_read(link, SCR_ERROR, &serror))
        sata_scr_write(link, SCR_ERROR, serror);
    sata_print_link_status(link);
}

/* ---- link speed limit ---- */

static unsigned fls_u(unsigned v)
{
    unsigned n = 0;

    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* The speed limit SControl.SPD should hold (0 = none). A fan-out link behind a PMP is kept
 * no faster than the host link came up at (libata's __sata_set_spd_needed since 2.6.24: "some
 * PMPs choke" on a faster downstream link), so behind a 3.0 Gbps host link every fan-out
 * COMRESET writes SPD 2 (SControl 320), behind a 6.0 Gbps one SPD 3 (330). */
static unsigned spd_limit_mask(const struct ata_link *link)
{
    unsigned limit = link->sata_spd_limit ? link->sata_spd_limit & 0x7u : 0;
    unsigned host_spd = link->ap->link.sata_spd;

    if (!ata_is_host_link(link) && host_spd)
        limit = (limit ? limit : 0x7u) & ((1u << host_spd) - 1);
    return limit;
}

unsigned sata_spd_target(const struct ata_link *link)
{
    return fls_u(spd_limit_mask(link));
}

bool sata_set_spd_needed(struct ata_link *link)
{
    uint32_t scontrol;

    if (!spd_limit_mask(link) || sata_scr_read(link, SCR_CONTROL, &scontrol))
        return false;
    return ((scontrol >> 4) & 0xf) != sata_spd_target(link);
}

int sata_set_spd(struct ata_link *link)
{
    uint32_t scontrol;
    int rc;

    if (!sata_set_spd_needed(link))
        return 0;
    rc = sata_scr_read(link, SCR_CONTROL, &scontrol);
    if (!rc)
        rc = sata_scr_write(link, SCR_CONTROL, (scontrol & ~0xf0u) | (sata_spd_target(link) << 4));
    return rc ? rc : 1;
}

enum ata_spd_down_unknown ata_spd_down_unknown_from_name(const char *name)
{
    static const char *const names[] = { "", "lowest", "keep", "step" };

    for (unsigned r = ATA_SPD_DOWN_UNKNOWN_LOWEST; name && r < ATA_ARRAY_SIZE(names); r++)
        if (!strcmp(name, names[r]))
            return (enum ata_spd_down_unknown)r;
    return ATA_SPD_DOWN_UNKNOWN_PROFILE;
}

int sata_down_spd_limit(struct ata_link *link, unsigned spd_limit)
{
    uint32_t sstatus;
    unsigned cur = link->sata_spd, mask;
    int rc;

    if (!link->ap->ops->scr_read)
        return -EOPNOTSUPP;
    if (!sata_scr_read(link, SCR_STATUS, &sstatus) && (sstatus & 0xf) == 3)
        cur = (sstatus >> 4) & 0xf;
    /* no current speed: the era's rule (satasim/ata.h, enum ata_spd_down_unknown); a link at
     * 1.5 Gbps has nothing lower whatever the rule (sata_down_spd_mask) */
    if (!cur) {
        enum ata_spd_down_unknown rule = link->ap->host->spd_down_unknown;

        if (rule == ATA_SPD_DOWN_UNKNOWN_PROFILE)
            rule = link->ap->host->eh_policy->spd_down_unknown;
        if (rule == ATA_SPD_DOWN_UNKNOWN_KEEP)
            return -EINVAL;
        if (rule == ATA_SPD_DOWN_UNKNOWN_LOWEST && (link->sata_spd_limit ? link->sata_spd_limit : 0x7u) > 1)
            cur = 2; /* "Force 1.5Gbps": the mask of a link at 3.0 Gbps, mask &= 1 */
        /* STEP: one step below the limit's fastest */
    }
    rc = sata_down_spd_mask(link->sata_spd_limit ? link->sata_spd_limit : 0x7u, cur, spd_limit, &mask);
    if (rc)
        return rc;
    link->sata_spd_limit = mask;
    {
        unsigned spd = fls_u(mask);
        const struct sata_trace_field f[] = { TF_HEX("limit", mask), TF_INT("spd", spd),
                                              TF_STR("speed", sata_spd_string(spd)) };

        ata_link_ev(link, ATA_EV("eh.spd_limit", SATA_TC_DECISION, SATA_LOG_WARN, f),
                    "limiting SATA link speed to %s", sata_spd_string(spd));
    }
    return 0;
}

/* libata.force=<spd>Gbps: every host link starts limited to generation spd (1..3), so the
 * first hardreset programs SControl.SPD. 0 = no limit. */
void ata_host_force_spd_limit(struct ata_host *h, unsigned spd)
{
    if (spd < 1 || spd > 3)
        return;
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_link *link = &h->ports[i].link;
        const struct sata_trace_field f[] = { TF_INT("spd", spd), TF_STR("speed", sata_spd_string(spd)) };

        if (h->ports[i].flags & ATA_FLAG_DUMMY)
            continue;
        link->sata_spd_limit = link->hw_sata_spd_limit = (1u << spd) - 1;
        /* libata prints the libata.force parameter's own name: "1.5Gbps", no space */
        ata_link_ev(link, ATA_EV("host.force_spd_limit", SATA_TC_INFO, SATA_LOG_INFO, f),
                    "FORCE: PHY spd limit set to %.3sGbps", sata_spd_string(spd));
    }
}

/* A PHY that runs one generation only (ata_host_config.only_gen, a controller quirk): every
 * host link's allowed speeds are that one, so the first hardreset programs SControl.SPD to
 * it and EH's speed-down finds nothing slower (sata_down_spd_mask). 0 = no such limit. A
 * libata.force limit below it leaves no speed: the force entry wins (the link then does
 * what the hardware does with it). */
void ata_host_fixed_spd(struct ata_host *h, unsigned gen)
{
    if (gen < 1 || gen > 3)
        return;
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_link *link = &h->ports[i].link;
        unsigned mask = (link->sata_spd_limit ? link->sata_spd_limit : 0x7u) & (1u << (gen - 1));
        const struct sata_trace_field f[] = { TF_INT("spd", gen), TF_STR("speed", sata_spd_string(gen)) };

        if ((h->ports[i].flags & ATA_FLAG_DUMMY) || !mask)
            continue;
        link->sata_spd_limit = link->hw_sata_spd_limit = mask;
        ata_link_ev(link, ATA_EV("host.fixed_spd", SATA_TC_INFO, SATA_LOG_INFO, f),
                    "controller PHY runs %s only, no speed-down", sata_spd_string(gen));
    }
}

/* ---- the base operations table ---- */

const struct ata_port_operations sata_port_ops = {
    .qc_defer = ata_std_qc_defer,
    .prereset = ata_std_prereset,
    .postreset = ata_std_postreset,
    .error_handler = ata_std_error_handler,
};
