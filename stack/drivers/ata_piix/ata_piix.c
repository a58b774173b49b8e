/* Intel ICH/PIIX SATA in IDE mode, low-level driver: the SFF/BMDMA layer (stack/sff) on the
 * legacy channels. Before the ICH8 the controller has no SCRs here, so there is no
 * hardreset: EH resets with SRST and reads the signature from the taskfile, and no link
 * state is printed (libata's ata_piix behaves the same on such parts). The ICH8 (part
 * ICH8_SATA) has the SATA index/data pair: SCRs per SATA port, COMRESET, link lines, and
 * on a channel with a slave position libata's slave link (ataN.00 / ataN.01). Both legacy interrupt
 * lines reach the one handler (ata_sff_interrupt): an interrupt a channel has no use for is
 * acknowledged and ignored (idle), unlike sata_sil, which freezes the port on one.
 * With the port map given (ata_host_config.piix_map), a channel whose slave position maps a
 * SATA port (ICH6 MAP 00b: P2 and P3) has two devices, master/slave emulation: the SFF
 * layer's softreset checks, resets and classifies both, and EH runs per device.
 * Everything but the host start/stop and the port layout is ata_bmdma_port_ops. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ata_sff.h"

enum { PIIX_N_PORTS = 2 };

static const struct ata_sff_ioaddr piix_io[PIIX_N_PORTS] = {
    { .cmd = 0x1f0, .ctl = 0x3f6, .bmdma = 0xc000, .has_bmdma = true },
    { .cmd = 0x170, .ctl = 0x376, .bmdma = 0xc008, .has_bmdma = true },
};

/* Nothing to program: the channels come up with interrupts masked by nIEN (port_start) until
 * EH's first reset thaws them. */
static int piix_host_start(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_sff_set_ctl(&h->ports[i], ata_sff(&h->ports[i])->ctl);
    return 0;
}

static void piix_host_stop(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_sff_freeze(&h->ports[i]);
}

static const struct ata_port_operations piix_sata_ops = {
    .inherits = &ata_bmdma_port_ops,
    .host_start = piix_host_start,
    .host_stop = piix_host_stop,
};

/* ---- the ICH8's SATA index/data pair (SIDPR; docs/hardware.md 10.8) ----
 * BAR5, 16 bytes of I/O: an index at +0 selecting ((channel * 2 + device) << 8) | SCR (0
 * SStatus, 1 SControl, 2 SError) and the data at +4 (ata_piix's piix_sidpr_sel and
 * piix_sidx_map, read for the facts). Each SATA port's SCRs are its link's: the master
 * link's device 0, a slave link's device 1. */
enum { PIIX_SIDPR_BAR = 5, PIIX_SIDPR_LEN = 16, PIIX_SIDPR_IDX = 0, PIIX_SIDPR_DATA = 4 };

struct piix_host_priv {
    uint32_t sidpr; /* the window's I/O base; 0: no SIDPR */
};

static struct piix_host_priv *piix_hpriv(const struct ata_host *h) { return h->private_data; }

static void piix_sidpr_sel(struct ata_link *link, unsigned reg)
{
    struct ata_port *ap = link->ap;
    const unsigned devno = link == ap->slave_link ? 1 : 0;

    ata_mmio_write(ap->host, piix_hpriv(ap->host)->sidpr + PIIX_SIDPR_IDX, ((ap->port_no * 2 + devno) << 8) | reg);
}

static int piix_sidpr_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    if (reg > SCR_CONTROL)
        return -EINVAL;
    piix_sidpr_sel(link, reg == SCR_STATUS ? 0 : reg == SCR_ERROR ? 2 : 1);
    *val = ata_mmio_read(link->ap->host, piix_hpriv(link->ap->host)->sidpr + PIIX_SIDPR_DATA);
    return 0;
}

static int piix_sidpr_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    if (reg > SCR_CONTROL)
        return -EINVAL;
    piix_sidpr_sel(link, reg == SCR_STATUS ? 0 : reg == SCR_ERROR ? 2 : 1);
    ata_mmio_write(link->ap->host, piix_hpriv(link->ap->host)->sidpr + PIIX_SIDPR_DATA, val);
    return 0;
}

/* With SIDPR the links have SCRs: a COMRESET through SControl, the class from the follow-up
 * SRST (libata's piix_sidpr_sata_ops: sata_std_hardreset). */
static const struct ata_port_operations piix_sidpr_sata_ops = {
    .inherits = &piix_sata_ops,
    .hardreset = sata_std_hardreset,
    .scr_read = piix_sidpr_scr_read,
    .scr_write = piix_sidpr_scr_write,
};

/* ---- the PIIX3/PIIX4 IDE function: parallel ATA (docs/hardware.md 10) ----
 * The function's PCI configuration registers: IDETIM per channel (40h primary, 42h
 * secondary), SIDETIM (44h, the slaves' timing), and on the PIIX4 UDMACTL (48h) and UDMATIM
 * (4Ah), read and written with configuration cycles (pci_read_config_word etc.). Programmed
 * per device at mode setting, as ata_piix's piix_set_timings / do_piix_set_dmamode do (facts
 * read there; written anew). */
enum {
    PIIX_IDETIM = 0x40,  /* + 2 per channel, 16 bit */
    PIIX_SIDETIM = 0x44, /* 8 bit: 3:0 primary slave, 7:4 secondary slave (ISP 2 bits, RTC 2 bits) */
    PIIX_UDMACTL = 0x48, /* 8 bit: bit 2 * channel + devno enables UDMA */
    PIIX_UDMATIM = 0x4a, /* 16 bit: CT in bits 1:0 << 4 * (2 * channel + devno) */
    PIIX_IDETIM_IDE = 1u << 15,  /* decode enable */
    PIIX_IDETIM_SITRE = 1u << 14, /* the slave's ISP/RTC from SIDETIM */
    /* per device nibble (device 0 bits 3:0, device 1 bits 7:4) */
    PIIX_TIME = 1u << 0, PIIX_IE = 1u << 1, PIIX_PPE = 1u << 2, PIIX_DTE = 1u << 3,
};

static uint16_t piix_cfg_read16(struct ata_port *ap, uint32_t reg)
{
    return (uint16_t)ap->host->pops->pci_config_read(ap->host->plat, reg, 2);
}

static void piix_cfg_write16(struct ata_port *ap, uint32_t reg, uint16_t v)
{
    ap->host->pops->pci_config_write(ap->host->plat, reg, 2, v);
}

static uint8_t piix_cfg_read8(struct ata_port *ap, uint32_t reg)
{
    return (uint8_t)ap->host->pops->pci_config_read(ap->host->plat, reg, 1);
}

static void piix_cfg_write8(struct ata_port *ap, uint32_t reg, uint8_t v)
{
    ap->host->pops->pci_config_write(ap->host->plat, reg, 1, v);
}

/* A channel whose IDE decode the BIOS left off is not there (ata_piix's piix_pata_prereset:
 * -ENOENT, EH skips the port); then the SFF prereset. */
static int piix_pata_prereset(struct ata_link *link, uint64_t deadline)
{
    struct ata_port *ap = link->ap;

    if (!(piix_cfg_read16(ap, PIIX_IDETIM + 2 * ap->port_no) & PIIX_IDETIM_IDE))
        return -ENOENT;
    return ata_std_prereset(link, deadline);
}

/* The UDMA enable of the device (PIIX4 only: a PIIX3 has no UDMACTL). */
static void piix_udma_enable(struct ata_port *ap, struct ata_device *dev, bool on)
{
    const uint8_t bit = (uint8_t)(1u << (2 * ap->port_no + dev->devno));
    uint8_t v;

    if (!(ap->xfer_mask & ATA_MASK_UDMA))
        return;
    v = piix_cfg_read8(ap, PIIX_UDMACTL);
    piix_cfg_write8(ap, PIIX_UDMACTL, on ? (uint8_t)(v | bit) : (uint8_t)(v & ~bit));
}

/* Fast timing for PIO mode `pio` (0..4): the IORDY sample point and recovery time of the
 * datasheet's table as ata_piix uses it, TIME from PIO2 on, IE when the mode needs IORDY
 * (PIO3 and up), PPE for a disk, DTE when the drive's own PIO mode is slower than this timing
 * (the fast timing then serves DMA only). Device 0's ISP/RTC are IDETIM's, device 1's
 * SIDETIM's (SITRE set). The UDMA enable goes off: a DMA mode turns it back on. */
static void piix_set_timings(struct ata_port *ap, struct ata_device *dev, unsigned pio)
{
    static const uint8_t isp_rtc[5][2] = { { 0, 0 }, { 0, 0 }, { 1, 0 }, { 2, 1 }, { 2, 3 } };
    const uint32_t idetim = PIIX_IDETIM + 2 * ap->port_no;
    unsigned ctl = 0;
    uint16_t t = piix_cfg_read16(ap, idetim);

    if (pio > 4)
        pio = 4;
    if (pio >= 2)
        ctl |= PIIX_TIME;
    if (pio >= 3)
        ctl |= PIIX_IE;
    if (dev->class == ATA_DEV_ATA)
        ctl |= PIIX_PPE;
    if (dev->pio_mode < XFER_PIO_0 + pio)
        ctl |= PIIX_DTE;
    if (dev->devno) {
        const unsigned shift = ap->port_no ? 4 : 0;
        uint8_t st = piix_cfg_read8(ap, PIIX_SIDETIM);

        t = (uint16_t)((t & 0xff0fu) | ctl << 4 | PIIX_IDETIM_SITRE);
        st = (uint8_t)((st & ~(0xfu << shift)) | (unsigned)(isp_rtc[pio][0] << 2 | isp_rtc[pio][1]) << shift);
        piix_cfg_write8(ap, PIIX_SIDETIM, st);
    } else {
        t = (uint16_t)((t & 0xccf0u) | ctl | (unsigned)isp_rtc[pio][0] << 12 | (unsigned)isp_rtc[pio][1] << 8);
    }
    piix_cfg_write16(ap, idetim, t);
    piix_udma_enable(ap, dev, false);
    {
        const struct sata_trace_field f[] = { TF_INT("devno", dev->devno), TF_INT("pio", pio),
                                              TF_HEX("idetim", t), TF_HEX("sidetim", piix_cfg_read8(ap, PIIX_SIDETIM)) };

        ata_port_ev(ap, ATA_EV("piix.timing", SATA_TC_INFO, SATA_LOG_NONE, f), NULL);
    }
}

static void piix_set_piomode(struct ata_port *ap, struct ata_device *dev)
{
    piix_set_timings(ap, dev, (unsigned)(dev->pio_mode - XFER_PIO_0));
}

/* UDMA: the device's UDMATIM cycle time (UDMA0 00b, UDMA1 01b, UDMA2 10b) and its UDMACTL
 * bit. MWDMA: the PIO timing of the same speed (MWDMA0 as PIO0, MWDMA1 as PIO3, MWDMA2 as
 * PIO4), with the UDMA enable off. */
static void piix_set_dmamode(struct ata_port *ap, struct ata_device *dev)
{
    if (dev->xfer_mode >= XFER_UDMA_0) {
        const unsigned udma = (unsigned)(dev->xfer_mode - XFER_UDMA_0), devid = 2 * ap->port_no + dev->devno;
        const unsigned ct = udma < 2 ? udma : 2;
        uint16_t ut = piix_cfg_read16(ap, PIIX_UDMATIM);

        ut = (uint16_t)((ut & ~(0x3u << (4 * devid))) | ct << (4 * devid));
        piix_cfg_write16(ap, PIIX_UDMATIM, ut);
        piix_udma_enable(ap, dev, true);
        {
            const struct sata_trace_field f[] = { TF_INT("devno", dev->devno), TF_INT("udma", udma),
                                                  TF_HEX("udmatim", ut), TF_HEX("udmactl", piix_cfg_read8(ap, PIIX_UDMACTL)) };

            ata_port_ev(ap, ATA_EV("piix.udma_timing", SATA_TC_INFO, SATA_LOG_NONE, f), NULL);
        }
    } else {
        static const unsigned pio_of_mwdma[3] = { 0, 3, 4 };
        const unsigned mw = (unsigned)(dev->xfer_mode - XFER_MW_DMA_0);

        piix_set_timings(ap, dev, pio_of_mwdma[mw < 2 ? mw : 2]);
    }
}

static const struct ata_port_operations piix_pata_ops = {
    .inherits = &ata_bmdma_port_ops,
    .host_start = piix_host_start,
    .host_stop = piix_host_stop,
    .prereset = piix_pata_prereset,
    .set_piomode = piix_set_piomode,
    .set_dmamode = piix_set_dmamode,
};

/* libata's port description line at host registration ("ata1: PATA max UDMA/33 cmd 0x1f0 ctl
 * 0x3f6 bmdma 0xc000 irq 14"): the port's own mask's top mode, the legacy ports and line (a
 * compatibility-mode channel's legacy IRQ 14 or 15). */
static void piix_port_desc(struct ata_port *ap, const char *kind, const struct ata_sff_ioaddr *io)
{
    const unsigned irq = ap->port_no ? 15 : 14;
    const struct sata_trace_field f[] = { TF_STR("max", ata_mode_string(ap->xfer_mask)), TF_HEX("cmd", io->cmd),
                                          TF_HEX("ctl", io->ctl), TF_HEX("bmdma", io->bmdma), TF_INT("irq", irq) };

    ata_port_ev(ap, ATA_EV("piix.port_desc", SATA_TC_INFO, SATA_LOG_INFO, f),
                "%s max %s cmd 0x%x ctl 0x%x bmdma 0x%x irq %u", kind, ata_mode_string(ap->xfer_mask), io->cmd,
                io->ctl, io->bmdma, irq);
}

static const char create_failed_ev[] = "piix.create_failed";

/* ata_piix's piix_init_sidpr, before the host exists: the window at BAR5 (16 bytes), tried
 * on port 0's SControl, which must hold IPM 3 (0x300) or take it. Returns the window's base,
 * 0 when there is none or it does not answer (*broken: ata_piix's "SCR access via SIDPR is
 * available but doesn't work"). */
static uint32_t piix_probe_sidpr(struct sata_platform *p, const struct sata_platform_ops *pops,
                                 const struct ata_host_config *cfg, bool *broken)
{
    uint32_t base, scontrol;

    *broken = false;
    if (!cfg->pci || cfg->pci->bar[PIIX_SIDPR_BAR].len != PIIX_SIDPR_LEN)
        return 0;
    base = (uint32_t)cfg->pci->bar[PIIX_SIDPR_BAR].start;
    pops->mmio_write32(p, base + PIIX_SIDPR_IDX, 1); /* port 0, SControl */
    scontrol = pops->mmio_read32(p, base + PIIX_SIDPR_DATA);
    if ((scontrol & 0xf00) != 0x300) {
        pops->mmio_write32(p, base + PIIX_SIDPR_DATA, scontrol | 0x300);
        scontrol = pops->mmio_read32(p, base + PIIX_SIDPR_DATA);
        if ((scontrol & 0xf00) != 0x300) {
            *broken = true;
            return 0;
        }
    }
    return base;
}

/* The port map of a MAP value: the SATA port at the primary master, primary slave,
 * secondary master and secondary slave positions, PIIX_NA where the position has none (the
 * ICH5 and ICH6 tables of ata_piix, MAP value 0 each). */
enum { PIIX_NA = -1 };
static const int piix_map_ich5[4] = { 0, PIIX_NA, 1, PIIX_NA };
static const int piix_map_ich6[4] = { 0, 2, 1, 3 };

/* Reading MAP (ata_piix's piix_init_sata_map): a channel whose slave position holds a SATA
 * port may have a device 1 (ATA_FLAG_SLAVE_POSS); the map is logged as libata logs it,
 * "MAP [ P0 P2 P1 P3 ]" ("--" for a position with no port). */
static void piix_init_sata_map(struct ata_host *h, enum ata_piix_map which)
{
    const int *map = which == ATA_PIIX_MAP_ICH6 ? piix_map_ich6 : piix_map_ich5;
    char line[40] = "MAP [";
    size_t n = strlen(line);

    for (unsigned i = 0; i < 4; i++) {
        if (map[i] == PIIX_NA)
            n += (size_t)snprintf(line + n, sizeof(line) - n, " --");
        else
            n += (size_t)snprintf(line + n, sizeof(line) - n, " P%d", map[i]);
        if ((i & 1) && map[i] != PIIX_NA && !(h->ports[i / 2].flags & ATA_FLAG_DUMMY))
            h->ports[i / 2].flags |= ATA_FLAG_SLAVE_POSS;
    }
    snprintf(line + n, sizeof(line) - n, " ]");
    {
        const struct sata_trace_field f[] = { TF_STR("map", which == ATA_PIIX_MAP_ICH6 ? "ich6" : "ich5"),
                                              TF_INT("slave_poss", (h->ports[0].flags & ATA_FLAG_SLAVE_POSS ? 1 : 0) |
                                                                       (h->ports[1].flags & ATA_FLAG_SLAVE_POSS ? 2 : 0)) };

        ata_host_ev(h, ATA_EV("piix.map", SATA_TC_INFO, SATA_LOG_INFO, f), "%s", line);
    }
}

/* The PIIX3/PIIX4 IDE function: two parallel ATA channels, each with a master and a slave
 * (ATA_FLAG_SLAVE_POSS), 40-wire cables as ata_piix says for these parts (no cable bit), the
 * part's modes (ata_piix's piix_pata_mwdma and piix_pata_33 port_info: PIO0-4, MWDMA1-2 and on
 * the PIIX4 UDMA0-2). */
static struct ata_host *piix_pata_host_create(struct sata_platform *p, const struct sata_platform_ops *pops,
                                              const struct ata_host_config *cfg)
{
    const bool piix4 = cfg->piix_part == ATA_PIIX_PIIX4;
    const unsigned mask = (0x1fu << ATA_SHIFT_PIO) | (0x6u << ATA_SHIFT_MWDMA) | (piix4 ? 0x7u << ATA_SHIFT_UDMA : 0);
    struct ata_host *h = ata_host_alloc_priv(p, pops, &piix_pata_ops, PIIX_N_PORTS, 0, cfg, create_failed_ev);

    if (!h)
        return NULL;
    h->flags |= ATA_HOST_PARALLEL_SCAN;
    for (unsigned i = 0; i < PIIX_N_PORTS; i++) {
        struct ata_port *ap = &h->ports[i];

        if (ata_sff_port_init(ap, cfg, &piix_io[i], mask))
            return ata_host_create_failed(h, create_failed_ev, "failed to allocate port memory");
        if (ap->flags & ATA_FLAG_DUMMY)
            continue;
        ap->flags |= ATA_FLAG_SLAVE_POSS;
        ap->cbl = ATA_CBL_PATA40;
        piix_port_desc(ap, "PATA", &piix_io[i]);
    }
    {
        const struct sata_trace_field f[] = { TF_STR("part", piix4 ? "piix4" : "piix3"), TF_INT("ports", PIIX_N_PORTS) };

        ata_host_ev(h, ATA_EV("piix.init", SATA_TC_INFO, SATA_LOG_INFO, f),
                    "%s IDE function, %u parallel ATA channels (SFF + BMDMA)", piix4 ? "PIIX4" : "PIIX3",
                    PIIX_N_PORTS);
    }
    return h;
}

struct ata_host *piix_host_create(struct sata_platform *p, const struct sata_platform_ops *pops,
                                  const struct ata_host_config *cfg)
{
    static const struct ata_host_config dflt;
    struct ata_host *h;
    uint32_t sidpr = 0;
    bool sidpr_broken = false;

    if (!pops)
        return NULL;
    if (!cfg)
        cfg = &dflt;
    /* the bus-master block where BAR4 says (the legacy ports are fixed) */
    if (cfg->pci && cfg->pci->bar[4].len && cfg->pci->bar[4].start != piix_io[0].bmdma) {
        ata_report_create_failed(p, pops, create_failed_ev, "BAR4 (bus master) is not at the I/O base this driver maps");
        return NULL;
    }
    if (cfg->piix_part == ATA_PIIX_PIIX3 || cfg->piix_part == ATA_PIIX_PIIX4)
        return piix_pata_host_create(p, pops, cfg);
    if (cfg->piix_part == ATA_PIIX_ICH8_SATA)
        sidpr = piix_probe_sidpr(p, pops, cfg, &sidpr_broken);
    h = ata_host_alloc_priv(p, pops, sidpr ? &piix_sidpr_sata_ops : &piix_sata_ops, PIIX_N_PORTS,
                            sizeof(struct piix_host_priv), cfg, create_failed_ev);
    if (!h)
        return NULL;
    piix_hpriv(h)->sidpr = sidpr;
    if (sidpr_broken)
        ata_host_ev(h, ATA_EV0("piix.sidpr_broken", SATA_TC_INFO, SATA_LOG_INFO),
                    "SCR access via SIDPR is available but doesn't work");
    h->flags |= ATA_HOST_PARALLEL_SCAN; /* ata_piix probes its channels at once */
    for (unsigned i = 0; i < PIIX_N_PORTS; i++)
        /* pio0-4, mwdma0-2, udma0-6 (ata_piix's SATA ports: ATA_UDMA6) */
        if (ata_sff_port_init(&h->ports[i], cfg, &piix_io[i],
                              (0x1fu << ATA_SHIFT_PIO) | (0x7u << ATA_SHIFT_MWDMA) | (0x7fu << ATA_SHIFT_UDMA)))
            return ata_host_create_failed(h, create_failed_ev, "failed to allocate port memory");
    if (cfg->piix_map != ATA_PIIX_MAP_NONE)
        piix_init_sata_map(h, cfg->piix_map);
    /* with SCRs, a channel with a slave position gets a slave link for device 1 */
    for (unsigned i = 0; i < PIIX_N_PORTS && sidpr; i++)
        if ((h->ports[i].flags & (ATA_FLAG_SLAVE_POSS | ATA_FLAG_DUMMY)) == ATA_FLAG_SLAVE_POSS)
            ata_slave_link_init(&h->ports[i]);
    {
        const struct sata_trace_field f[] = { TF_INT("ports", PIIX_N_PORTS), TF_BOOL("sidpr", sidpr) };

        ata_host_ev(h, ATA_EV("piix.init", SATA_TC_INFO, SATA_LOG_INFO, f),
                    "ICH SATA in IDE mode, %u channels (SFF + BMDMA, %s)", PIIX_N_PORTS,
                    sidpr ? "SCRs through SIDPR" : "no SCRs");
    }
    if (h->has_pci)
        for (unsigned i = 0; i < PIIX_N_PORTS; i++)
            piix_port_desc(&h->ports[i], "SATA", &piix_io[i]);
    return h;
}

/* ata_piix's PCI IDs (driver_data: the part, enum ata_piix_part). */
static const struct ata_pci_device_id piix_pci_tbl[] = {
    { 0x8086, 0x7010, 0, 0, ATA_PIIX_PIIX3 },    /* 82371SB PIIX3 IDE */
    { 0x8086, 0x7111, 0, 0, ATA_PIIX_PIIX4 },    /* 82371AB PIIX4 IDE */
    { 0x8086, 0x24d1, 0, 0, ATA_PIIX_ICH_SATA }, /* 82801EB ICH5 SATA */
    { 0x8086, 0x24df, 0, 0, ATA_PIIX_ICH_SATA }, /* 82801ER ICH5R SATA */
    { 0x8086, 0x2651, 0, 0, ATA_PIIX_ICH_SATA }, /* 82801FB ICH6 SATA */
    { 0x8086, 0x27c0, 0, 0, ATA_PIIX_ICH_SATA }, /* 82801GB ICH7 SATA */
    { 0x8086, 0x2820, 0, 0, ATA_PIIX_ICH8_SATA }, /* 82801HB ICH8 SATA (4 ports), with SIDPR */
    { 0, 0, 0, 0, 0 },
};

const struct ata_pci_driver piix_pci_driver = {
    .name = "ata_piix", .create_name = "piix_host_create", .create = piix_host_create, .id_table = piix_pci_tbl,
    .msi = false,
};
