/* The PCI layer: what the kernel's PCI core and a libata PCI driver's probe do before the
 * driver touches its registers (docs/hardware.md 12.7). Everything through the platform's
 * configuration cycles (PCI Local Bus 3.0 chapter 6):
 *   - identify: Vendor/Device, Revision, Class Code, Subsystem IDs; the driver is the first
 *     whose ID table matches, ID entries of every driver before class entries (so ahci's
 *     generic 01/06/01 entry never takes a function another driver names);
 *   - size the BARs (6.2.5.1: save, write all ones, read the mask, restore), as the PCI core
 *     does at enumeration;
 *   - enable (pci_enable_device): I/O and memory decode for the spaces its BARs use (a legacy
 *     IDE function in compatibility mode decodes the legacy ports as I/O too);
 *   - bus master (pci_set_master): Bus Master Enable, and the latency timer raised to 64 when
 *     it reads below 16, as the x86 pcibios did ("setting latency timer to 64");
 *   - interrupt: with a driver that asks for MSI, an MSI capability (6.8.1) and no pci=nomsi,
 *     the message address/data the platform's interrupt controller gives, the enable bit and
 *     INTx disabled (6.2.2 bit 10); otherwise the INTx line firmware wrote to Interrupt Line. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

enum {
    PCI_VENDOR_ID = 0x00, PCI_DEVICE_ID = 0x02, PCI_COMMAND = 0x04, PCI_STATUS = 0x06, PCI_REVISION = 0x08,
    PCI_LATENCY = 0x0d, PCI_BAR0 = 0x10, PCI_SUBSYS_VENDOR = 0x2c, PCI_SUBSYS_ID = 0x2e, PCI_CAP_PTR = 0x34,
    PCI_INT_LINE = 0x3c, PCI_INT_PIN = 0x3d,
    PCI_CMD_IO = 1u << 0, PCI_CMD_MEMORY = 1u << 1, PCI_CMD_MASTER = 1u << 2, PCI_CMD_INTX_DISABLE = 1u << 10,
    PCI_STATUS_CAP_LIST = 1u << 4,
    PCI_CAP_ID_MSI = 0x05,
    PCI_MSI_FLAGS = 2, PCI_MSI_ADDRESS_LO = 4, PCI_MSI_ADDRESS_HI = 8, PCI_MSI_DATA_32 = 8, PCI_MSI_DATA_64 = 12,
    PCI_MSI_ENABLE = 1u << 0, PCI_MSI_64BIT = 1u << 7, PCI_MSI_MME = 7u << 4,
};

static uint32_t cfg_rd(struct sata_platform *p, const struct sata_platform_ops *pops, unsigned off, unsigned size)
{
    return pops->pci_config_read(p, off, size);
}

static void cfg_wr(struct sata_platform *p, const struct sata_platform_ops *pops, unsigned off, unsigned size,
                   uint32_t v)
{
    pops->pci_config_write(p, off, size, v);
}

/* A line of the function's own log ("ahci 0000:00:1f.2: ..."): no port, info level. */
static void pci_log(struct sata_platform *p, const struct sata_platform_ops *pops, const char *event,
                    const struct sata_trace_field *f, unsigned nf, const char *fmt, ...) ATA_PRINTF(6, 7);
static void pci_log(struct sata_platform *p, const struct sata_platform_ops *pops, const char *event,
                    const struct sata_trace_field *f, unsigned nf, const char *fmt, ...)
{
    char msg[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    {
        const struct sata_trace_event ev = {
            .name = event, .cls = SATA_TC_INFO, .level = SATA_LOG_INFO, .port = -1, .link = -1, .dev = -1,
            .msg = msg, .n_fields = nf, .fields = f,
        };
        pops->trace(p, &ev);
    }
}

static bool id_matches(const struct ata_pci_device_id *id, const struct ata_pci_dev *d, bool by_class)
{
    if (by_class != (id->class_mask != 0))
        return false;
    if (id->vendor != ATA_PCI_ANY_ID && id->vendor != d->vendor)
        return false;
    if (id->device != ATA_PCI_ANY_ID && id->device != d->device)
        return false;
    return !id->class_mask || (d->class_code & id->class_mask) == id->class_code;
}

/* The driver that takes the function and the entry it matched (NULL: none). */
static const struct ata_pci_driver *pci_match(const struct ata_pci_dev *d, const struct ata_pci_device_id **entry)
{
    static const struct ata_pci_driver *const drivers[] = {
        &piix_pci_driver, &sil_pci_driver, &sil24_pci_driver, &ahci_pci_driver,
    };

    for (int by_class = 0; by_class < 2; by_class++)
        for (size_t i = 0; i < ATA_ARRAY_SIZE(drivers); i++)
            for (const struct ata_pci_device_id *id = drivers[i]->id_table; id->vendor || id->class_mask; id++)
                if (id_matches(id, d, by_class != 0)) {
                    *entry = id;
                    return drivers[i];
                }
    return NULL;
}

/* 6.2.5.1: the size of BAR n from the mask it reads back after all ones were written; the
 * register is restored (decode is off meanwhile: the command register is not yet set). A
 * 64-bit BAR takes the next slot too; returns the slots used (1 or 2). */
static unsigned pci_size_bar(struct sata_platform *p, const struct sata_platform_ops *pops, unsigned n,
                             struct ata_pci_bar *bar)
{
    const unsigned off = PCI_BAR0 + 4 * n;
    const uint32_t saved = cfg_rd(p, pops, off, 4);
    uint32_t mask;

    cfg_wr(p, pops, off, 4, 0xffffffffu);
    mask = cfg_rd(p, pops, off, 4);
    cfg_wr(p, pops, off, 4, saved);
    memset(bar, 0, sizeof(*bar));
    if (!mask || mask == 0xffffffffu)
        return 1;
    if (mask & 1u) {
        bar->io = true;
        bar->start = saved & ~3u;
        bar->len = (uint32_t)(~(mask & ~3u) + 1u) & 0xffffu; /* x86 I/O space: 64 KiB */
        if (!bar->len)
            bar->len = (uint32_t)(~(mask & ~3u) + 1u);
        return 1;
    }
    bar->start = saved & ~0xfu;
    bar->len = ~(mask & ~0xfu) + 1u;
    if ((mask & 6u) == 4u && n < 5) { /* 64-bit: the upper dword is the next slot */
        const uint32_t hi = cfg_rd(p, pops, off + 4, 4);

        bar->start |= (uint64_t)hi << 32;
        return 2;
    }
    return 1;
}

/* MSI (6.8.1): the capability's offset, 0 if the function has none. */
static unsigned pci_find_msi(struct sata_platform *p, const struct sata_platform_ops *pops)
{
    unsigned at, guard = 0;

    if (!(cfg_rd(p, pops, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST))
        return 0;
    for (at = cfg_rd(p, pops, PCI_CAP_PTR, 1) & ~3u; at >= 0x40 && guard < 48; guard++) {
        if (cfg_rd(p, pops, at, 1) == PCI_CAP_ID_MSI)
            return at;
        at = cfg_rd(p, pops, at + 1, 1) & ~3u;
    }
    return 0;
}

/* pci_enable_msi: one message (Multiple Message Enable 0), address and data from the platform,
 * then the enable bit and INTx off. false: no MSI (the caller keeps INTx). */
static bool pci_enable_msi(struct sata_platform *p, const struct sata_platform_ops *pops, struct ata_pci_dev *d,
                           unsigned cap)
{
    uint64_t addr;
    uint32_t data;
    unsigned irq;
    uint16_t flags;

    if (!pops->msi_setup || pops->msi_setup(p, &addr, &data, &irq))
        return false;
    flags = (uint16_t)cfg_rd(p, pops, cap + PCI_MSI_FLAGS, 2);
    cfg_wr(p, pops, cap + PCI_MSI_ADDRESS_LO, 4, (uint32_t)addr);
    if (flags & PCI_MSI_64BIT) {
        cfg_wr(p, pops, cap + PCI_MSI_ADDRESS_HI, 4, (uint32_t)(addr >> 32));
        cfg_wr(p, pops, cap + PCI_MSI_DATA_64, 2, data & 0xffffu);
    } else {
        cfg_wr(p, pops, cap + PCI_MSI_DATA_32, 2, data & 0xffffu);
    }
    cfg_wr(p, pops, cap + PCI_MSI_FLAGS, 2, (flags & ~PCI_MSI_MME) | PCI_MSI_ENABLE);
    cfg_wr(p, pops, PCI_COMMAND, 2, cfg_rd(p, pops, PCI_COMMAND, 2) | PCI_CMD_INTX_DISABLE);
    d->msi = true;
    d->irq = irq;
    return true;
}

static struct ata_host *pci_fail(struct sata_platform *p, const struct sata_platform_ops *pops, const char *msg)
{
    ata_report_create_failed(p, pops, "pci.probe_failed", msg);
    return NULL;
}

struct ata_host *ata_pci_probe(struct sata_platform *p, const struct sata_platform_ops *pops,
                               const struct ata_host_config *cfg, const char **driver)
{
    static const struct ata_host_config dflt;
    const struct ata_pci_device_id *entry = NULL;
    const struct ata_pci_driver *drv;
    struct ata_host_config c;
    struct ata_pci_dev d;
    uint16_t cmd;
    unsigned msi_cap;
    bool io = false, mem = false;
    struct ata_host *h;

    if (driver)
        *driver = NULL;
    if (!pops)
        return NULL;
    if (!pops->pci_config_read || !pops->pci_config_write)
        return pci_fail(p, pops, "no PCI configuration space on this platform");
    c = cfg ? *cfg : dflt;
    memset(&d, 0, sizeof(d));
    d.vendor = (uint16_t)cfg_rd(p, pops, PCI_VENDOR_ID, 2);
    if (d.vendor == 0xffff || d.vendor == 0)
        return pci_fail(p, pops, "no PCI function answers");
    d.device = (uint16_t)cfg_rd(p, pops, PCI_DEVICE_ID, 2);
    {
        const uint32_t rc = cfg_rd(p, pops, PCI_REVISION, 4);

        d.revision = (uint8_t)rc;
        d.class_code = rc >> 8;
    }
    d.subsys_vendor = (uint16_t)cfg_rd(p, pops, PCI_SUBSYS_VENDOR, 2);
    d.subsys_device = (uint16_t)cfg_rd(p, pops, PCI_SUBSYS_ID, 2);
    drv = pci_match(&d, &entry);
    if (!drv) {
        char msg[96];

        snprintf(msg, sizeof(msg), "no driver for PCI function [%04x:%04x] class 0x%06x", d.vendor, d.device,
                 (unsigned)d.class_code);
        return pci_fail(p, pops, msg);
    }
    d.driver_data = entry->driver_data;
    if (driver)
        *driver = drv->create_name;

    /* enumeration: the BARs' sizes */
    for (unsigned n = 0; n < 6;) {
        unsigned used = pci_size_bar(p, pops, n, &d.bar[n]);

        if (d.bar[n].len) {
            io = io || d.bar[n].io;
            mem = mem || !d.bar[n].io;
        }
        n += used;
    }
    /* a legacy IDE function in compatibility mode (programming interface bits 0 and 2 clear)
     * decodes the legacy ports: I/O space */
    if ((d.class_code >> 8) == 0x0101 && (d.class_code & 0x5u) != 0x5u)
        io = true;

    /* pci_enable_device */
    cmd = (uint16_t)cfg_rd(p, pops, PCI_COMMAND, 2);
    cmd |= (io ? PCI_CMD_IO : 0) | (mem ? PCI_CMD_MEMORY : 0);
    d.pin = (uint8_t)cfg_rd(p, pops, PCI_INT_PIN, 1);
    d.irq = cfg_rd(p, pops, PCI_INT_LINE, 1);
    cfg_wr(p, pops, PCI_COMMAND, 2, cmd);
    if (d.pin) {
        const struct sata_trace_field f[] = { TF_INT("pin", d.pin), TF_INT("irq", d.irq) };

        pci_log(p, pops, "pci.intx", f, ATA_ARRAY_SIZE(f), "PCI INT %c -> GSI %u (level, low) -> IRQ %u",
                'A' + d.pin - 1, d.irq, d.irq);
    }
    /* pci_set_master */
    if (cfg_rd(p, pops, PCI_LATENCY, 1) < 16) {
        cfg_wr(p, pops, PCI_LATENCY, 1, 64);
        pci_log(p, pops, "pci.latency", NULL, 0, "setting latency timer to 64");
    }
    cfg_wr(p, pops, PCI_COMMAND, 2, cfg_rd(p, pops, PCI_COMMAND, 2) | PCI_CMD_MASTER);

    msi_cap = drv->msi && !c.no_msi ? pci_find_msi(p, pops) : 0;
    if (msi_cap && pci_enable_msi(p, pops, &d, msi_cap)) {
        const struct sata_trace_field f[] = { TF_INT("irq", d.irq) };

        pci_log(p, pops, "pci.msi", f, ATA_ARRAY_SIZE(f), "irq %u for MSI/MSI-X", d.irq);
    }
    if (drv == &piix_pci_driver) /* ata_piix's port_info comes from the ID entry */
        c.piix_part = (enum ata_piix_part)d.driver_data;
    c.pci = &d;
    h = drv->create(p, pops, &c);
    if (!h && d.msi) /* pci_disable_msi: back to INTx for whoever probes next */
        cfg_wr(p, pops, msi_cap + PCI_MSI_FLAGS, 2, cfg_rd(p, pops, msi_cap + PCI_MSI_FLAGS, 2) & ~PCI_MSI_ENABLE);
    return h;
}

void ata_port_pci_desc(struct ata_port *ap, const char *kind, const char *desc)
{
    const struct ata_host *h = ap->host;
    const struct sata_trace_field f[] = { TF_STR("max", ata_mode_string(ap->xfer_mask)), TF_STR("desc", desc),
                                          TF_INT("irq", h->pci.irq), TF_INT("msi", h->pci.msi) };

    ata_port_ev(ap, ATA_EV("probe.port_desc", SATA_TC_INFO, SATA_LOG_INFO, f), "%s max %s %s irq %u", kind,
                ata_mode_string(ap->xfer_mask), desc, h->pci.irq);
}
