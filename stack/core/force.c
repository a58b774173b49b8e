/* libata.force: the per-port and per-device options of the kernel parameter (link speed
 * limit, transfer mode limit, NCQ off), applied where libata applies them: a link's speed
 * limit when the link is initialised (host start, PMP fan-out link init), a device's
 * transfer mode and NCQ horkage at every configure. The caller parses the parameter's
 * syntax into struct ata_force_param (ata.h); matching follows libata: port = print id,
 * device = fan-out port, or 15 (also 0) for the device on the host link; for the link speed
 * and the transfer mode the last matching entry wins, horkage entries all apply. */
#include <stddef.h>
#include <string.h>

#include "internal.h"

void ata_force_copy(struct ata_host *h, const struct ata_host_config *cfg)
{
    unsigned n = cfg->force ? cfg->n_force : 0;

    if (n > ATA_FORCE_MAX)
        n = ATA_FORCE_MAX;
    if (n)
        memcpy(h->force, cfg->force, n * sizeof(h->force[0]));
    h->n_force = n;
}

static bool ata_force_port_match(const struct ata_force_param *fe, const struct ata_port *ap)
{
    return fe->port == -1 || fe->port == (int)ap->port_no + 1;
}

/* libata's linkno: a fan-out link is its PMP port, the host link is 15. */
static bool ata_force_link_match(const struct ata_force_param *fe, const struct ata_link *link)
{
    int linkno = ata_is_host_link(link) ? 15 : link->pmp;

    return ata_force_port_match(fe, link->ap) && (fe->device == -1 || fe->device == linkno);
}

/* libata's devno / alt_devno: a device on the host link answers to 0 and to 15. */
static bool ata_force_dev_match(const struct ata_force_param *fe, const struct ata_device *dev)
{
    int devno = ata_is_host_link(dev->link) ? (int)dev->devno : dev->link->pmp + (int)dev->devno;
    int alt = ata_is_host_link(dev->link) ? devno + 15 : devno;

    return ata_force_port_match(fe, dev->link->ap) &&
           (fe->device == -1 || fe->device == devno || fe->device == alt);
}

void ata_force_link_limits(struct ata_link *link)
{
    const struct ata_host *h = link->ap->host;

    for (unsigned i = h->n_force; i-- > 0;) {
        const struct ata_force_param *fe = &h->force[i];

        if (!fe->spd_limit || fe->spd_limit > 3 || !ata_force_link_match(fe, link))
            continue;
        link->sata_spd_limit = link->hw_sata_spd_limit = (1u << fe->spd_limit) - 1;
        {
            const struct sata_trace_field f[] = { TF_INT("spd", fe->spd_limit), TF_STR("param", fe->name) };

            ata_link_ev(link, ATA_EV("force.spd_limit", SATA_TC_INFO, SATA_LOG_INFO, f),
                        "FORCE: PHY spd limit set to %s", fe->name);
        }
        return;
    }
}

void ata_force_host_links(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_force_link_limits(&h->ports[i].link);
}

/* The modes the entry leaves, as libata's ata_force_xfermask: a UDMA entry keeps PIO and
 * MWDMA and that one UDMA mode, an MWDMA entry drops UDMA, a PIO entry leaves that PIO mode. */
static unsigned ata_force_mask_of(unsigned forced, unsigned mask)
{
    if (forced & ATA_MASK_UDMA)
        return (mask & (ATA_MASK_PIO | ATA_MASK_MWDMA)) | (forced & ATA_MASK_UDMA);
    if (forced & ATA_MASK_MWDMA)
        return (mask & ATA_MASK_PIO) | (forced & ATA_MASK_MWDMA);
    return forced & ATA_MASK_PIO;
}

unsigned ata_force_xfermask(struct ata_device *dev, unsigned mask, bool print)
{
    const struct ata_host *h = dev->link->ap->host;

    for (unsigned i = h->n_force; i-- > 0;) {
        const struct ata_force_param *fe = &h->force[i];

        if (!fe->xfer_mask || !ata_force_dev_match(fe, dev))
            continue;
        if (print) {
            const struct sata_trace_field f[] = { TF_HEX("xfer_mask", fe->xfer_mask), TF_STR("param", fe->name) };

            ata_dev_ev(dev, ATA_EV("force.xfer_mask", SATA_TC_INFO, SATA_LOG_INFO, f),
                       "FORCE: xfer_mask set to %s", fe->name);
        }
        return ata_force_mask_of(fe->xfer_mask, mask);
    }
    return mask;
}

bool ata_force_noncq(struct ata_device *dev, bool print)
{
    const struct ata_host *h = dev->link->ap->host;
    bool noncq = false;

    for (unsigned i = 0; i < h->n_force; i++) {
        const struct ata_force_param *fe = &h->force[i];

        if (!fe->ncq || !ata_force_dev_match(fe, dev))
            continue;
        noncq = fe->ncq < 0; /* in the parameter's order: the last one stands */
        if (print) {
            const struct sata_trace_field f[] = { TF_STR("param", fe->name) };

            ata_dev_ev(dev, ATA_EV("force.horkage", SATA_TC_INFO, SATA_LOG_INFO, f),
                       "FORCE: horkage modified (%s)", fe->name);
        }
    }
    return noncq;
}

void ata_force_nodma(struct ata_device *dev, bool print)
{
    const struct ata_host *h = dev->link->ap->host;

    for (unsigned i = 0; i < h->n_force; i++) {
        const struct ata_force_param *fe = &h->force[i];
        const bool on = fe->dma < 0;

        if (!fe->dma || !ata_force_dev_match(fe, dev))
            continue;
        if (on == !!(dev->flags & ATA_DFLAG_NODMA))
            continue; /* libata prints only an entry that changes the horkage */
        dev->flags = on ? dev->flags | ATA_DFLAG_NODMA : dev->flags & ~(unsigned)ATA_DFLAG_NODMA;
        if (print) {
            const struct sata_trace_field f[] = { TF_STR("param", fe->name) };

            ata_dev_ev(dev, ATA_EV("force.horkage", SATA_TC_INFO, SATA_LOG_INFO, f),
                       "FORCE: horkage modified (%s)", fe->name);
        }
    }
}

/* A horkage flag that libata.force turns on (a negative entry: "nolpm", "noncqtrim") or off
 * ("lpm", "ncqtrim"), entries in the parameter's order from `start` (the last one stands),
 * each matching one printed when print. field: the entry's int for that flag. */
static bool ata_force_horkage_flag(struct ata_device *dev, size_t field, bool start, bool print)
{
    const struct ata_host *h = dev->link->ap->host;
    bool on = start;

    for (unsigned i = 0; i < h->n_force; i++) {
        const struct ata_force_param *fe = &h->force[i];
        int v;

        memcpy(&v, (const char *)fe + field, sizeof v);
        if (!v || !ata_force_dev_match(fe, dev))
            continue;
        on = v < 0;
        if (print) {
            const struct sata_trace_field f[] = { TF_STR("param", fe->name) };

            ata_dev_ev(dev, ATA_EV("force.horkage", SATA_TC_INFO, SATA_LOG_INFO, f),
                       "FORCE: horkage modified (%s)", fe->name);
        }
    }
    return on;
}

bool ata_force_nolpm(struct ata_device *dev, bool print)
{
    return ata_force_horkage_flag(dev, offsetof(struct ata_force_param, lpm), false, print);
}

bool ata_force_no_ncq_trim(struct ata_device *dev, bool listed, bool print)
{
    return ata_force_horkage_flag(dev, offsetof(struct ata_force_param, ncq_trim), listed, print);
}
