/* Trace/log helpers: every message leaves the stack as one structured event through the
 * platform's trace sink, addressed by port/link/device so the backend can add "ataN:" or
 * "ataN.DD:". Field and message pointers are valid only during the sink call. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

enum { ATA_MSG_LEN = 256 };

static void emit_as(struct ata_host *h, int port, int link, int dev, int pmp_host, struct ata_ev ev,
                    const char *fmt, va_list ap)
{
    char msg[ATA_MSG_LEN];
    struct sata_trace_event te = {
        .name = ev.name,
        .cls = ev.cls,
        .level = ev.level,
        .port = port,
        .link = link,
        .dev = dev,
        .msg = NULL,
        .n_fields = ev.n_fields,
        .fields = ev.fields,
        .log_pmp_host = pmp_host,
    };

    if (fmt) {
        vsnprintf(msg, sizeof(msg), fmt, ap);
        te.msg = msg;
    }
    h->pops->trace(h->plat, &te);
}

static void emit(struct ata_host *h, int port, int link, int dev, struct ata_ev ev, const char *fmt, va_list ap)
{
    emit_as(h, port, link, dev, 0, ev, fmt, ap);
}

void ata_host_ev(struct ata_host *h, struct ata_ev ev, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit(h, -1, -1, -1, ev, fmt, ap);
    va_end(ap);
}

void ata_port_ev(struct ata_port *port, struct ata_ev ev, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit(port->host, (int)port->port_no, -1, -1, ev, fmt, ap);
    va_end(ap);
}

void ata_link_ev(struct ata_link *link, struct ata_ev ev, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    /* the host link's lines while a PMP is attached read "ataN.15:" (ata_link_printk);
     * with a slave link the master's read "ataN.00:", the slave's "ataN.01:" */
    if (link->ap->slave_link)
        emit(link->ap->host, (int)link->ap->port_no, link == link->ap->slave_link ? 1 : 0, -1, ev, fmt, ap);
    else
        emit_as(link->ap->host, (int)link->ap->port_no, link->pmp, -1,
                ata_is_host_link(link) && sata_pmp_attached(link->ap), ev, fmt, ap);
    va_end(ap);
}

void ata_link_eh_ev(struct ata_link *link, struct ata_ev ev, const char *fmt, ...)
{
    int addr = link->ap->slave_link                                  ? (link == link->ap->slave_link ? 1 : 0)
               : ata_is_host_link(link) && sata_pmp_attached(link->ap) ? SATA_PMP_CTRL_PORT
                                                                       : link->pmp;
    va_list ap;

    va_start(ap, fmt);
    emit(link->ap->host, (int)link->ap->port_no, addr, -1, ev, fmt, ap);
    va_end(ap);
}

void ata_pmp_ev(struct ata_port *port, struct ata_ev ev, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit(port->host, (int)port->port_no, SATA_PMP_CTRL_PORT, -1, ev, fmt, ap);
    va_end(ap);
}

void ata_dev_ev(struct ata_device *dev, struct ata_ev ev, const char *fmt, ...)
{
    struct ata_link *link = dev->link;
    va_list ap;

    va_start(ap, fmt);
    /* the PMP itself is addressed as its control port ("ata1.15") while it is attached, as
     * libata's (sata_pmp_attach sets link->pmp = 15, sata_pmp_detach back to 0: the PMP's
     * own "disabled" after a give-up reads "ata7.00: disabled", dmesg corpus 51) */
    if (dev->class == ATA_DEV_PMP && link->pmp < 0 && sata_pmp_attached(link->ap))
        emit(link->ap->host, (int)link->ap->port_no, SATA_PMP_CTRL_PORT, -1, ev, fmt, ap);
    else
        emit(link->ap->host, (int)link->ap->port_no, link->pmp, (int)dev->devno, ev, fmt, ap);
    va_end(ap);
}

/* Most severe bit wins, in libata's order. */
const char *ata_err_string(unsigned err_mask)
{
    static const struct {
        unsigned bit;
        const char *s;
    } order[] = {
        { AC_ERR_HOST_BUS, "host bus error" }, { AC_ERR_ATA_BUS, "ATA bus error" },
        { AC_ERR_TIMEOUT, "timeout" },         { AC_ERR_HSM, "HSM violation" },
        { AC_ERR_SYSTEM, "internal error" },   { AC_ERR_MEDIA, "media error" },
        { AC_ERR_INVALID, "invalid argument" }, { AC_ERR_DEV, "device error" },
    };

    for (size_t i = 0; i < ATA_ARRAY_SIZE(order); i++)
        if (err_mask & order[i].bit)
            return order[i].s;
    return "unknown error";
}

const char *ata_class_name(enum ata_dev_class cls)
{
    switch (cls) {
    case ATA_DEV_NONE: return "none";
    case ATA_DEV_ATA: return "ata";
    case ATA_DEV_ATAPI: return "atapi";
    case ATA_DEV_PMP: return "pmp";
    case ATA_DEV_SEMB: return "semb";
    case ATA_DEV_ZAC: return "zac";
    case ATA_DEV_SEMB_UNSUP: return "semb_unsup";
    case ATA_DEV_UNKNOWN: break;
    }
    return "unknown";
}
