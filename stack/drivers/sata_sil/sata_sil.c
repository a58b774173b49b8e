/* Silicon Image SiI3112 low-level driver: the SFF/BMDMA layer (stack/sff) with the chip's
 * own interrupt decode (BMDMA2: the channel's interrupt pending and its SATA interrupt from
 * SError.N), freeze/thaw through SYSCFG and SIEN, SCR access in BAR5 (so COMRESET
 * hardreset), the FIFO thresholds and the mod15write errata fixup (dev_config). Everything
 * else is inherited from ata_bmdma_port_ops. */
#include <stdio.h>
#include <string.h>

#include "sata_sil.h"

const struct sil_port_regs sil_port[SIL_N_PORTS] = {
    { .tf = 0x80, .ctl = 0x8a, .bmdma = 0x00, .bmdma2 = 0x10, .fifo_cfg = 0x40, .scr = 0x100, .sien = 0x148 },
    { .tf = 0xc0, .ctl = 0xca, .bmdma = 0x08, .bmdma2 = 0x18, .fifo_cfg = 0x44, .scr = 0x180, .sien = 0x1c8 },
};

static const struct ata_port_operations sil_ops;

static uint32_t mmio_rd(struct ata_host *h, uint32_t off) { return ata_mmio_read(h, off); }
static void mmio_wr(struct ata_host *h, uint32_t off, uint32_t v) { ata_mmio_write(h, off, v); }

/* ---- SCRs ---- */

static int sil_scr_offset(unsigned reg, uint32_t *off)
{
    switch (reg) {
    case SCR_CONTROL: *off = 0; return 0;
    case SCR_STATUS: *off = 4; return 0;
    case SCR_ERROR: *off = 8; return 0;
    default: return -EINVAL;
    }
}

static int sil_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    uint32_t off;
    int rc = sil_scr_offset(reg, &off);

    if (!rc)
        *val = mmio_rd(link->ap->host, sil_port[link->ap->port_no].scr + off);
    return rc;
}

static int sil_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    uint32_t off;
    int rc = sil_scr_offset(reg, &off);

    if (!rc)
        mmio_wr(link->ap->host, sil_port[link->ap->port_no].scr + off, val);
    return rc;
}

/* ---- freeze / thaw ---- */

static void sil_freeze(struct ata_port *ap)
{
    struct ata_host *h = ap->host;

    mmio_wr(h, sil_port[ap->port_no].sien, 0); /* SYSCFG's mask does not block the SATA interrupt */
    mmio_wr(h, SIL_SYSCFG, mmio_rd(h, SIL_SYSCFG) | (SIL_MASK_IDE0_INT << ap->port_no));
    ata_sff_freeze(ap);
}

static void sil_thaw(struct ata_port *ap)
{
    struct ata_host *h = ap->host;

    ata_sff_thaw(ap);
    mmio_wr(h, sil_port[ap->port_no].sien, SIL_SIEN_N);
    mmio_wr(h, SIL_SYSCFG, mmio_rd(h, SIL_SYSCFG) & ~(SIL_MASK_IDE0_INT << ap->port_no));
}

/* ---- interrupt ---- */

/* One channel's share (lock held). Where the chip's driver differs from the generic path:
 * a SATA interrupt (PHY event) freezes the port for EH as a hotplug; an interrupt with no
 * command in flight also freezes it (sata_sil of the 2006 rework does: a spurious interrupt
 * there is taken as a confused controller, not ignored; today's sata_sil only reads Status to
 * clear it). The SATA interrupt adds no description (sata_sil pushes none). A device still BSY
 * at the interrupt of a command is an HSM violation whatever the protocol (sata_sil's
 * err_hsm, in every version: AC_ERR_HSM, the port frozen, no description), after a DMA
 * command's engine has been stopped (with BMDMA2's Error a host bus error too); the generic
 * path would take a PIO command's busy interrupt as idle. */
static void sil_host_intr(struct ata_port *ap, uint32_t bmdma2)
{
    struct ata_eh_info *ehi = &ap->link.eh_info;
    struct ata_queued_cmd *qc = ata_qc_from_tag(ap, ap->link.active_tag);

    if (bmdma2 & SIL_DMA_SATA_IRQ) {
        uint32_t serror = 0;

        sil_scr_read(&ap->link, SCR_ERROR, &serror);
        sil_scr_write(&ap->link, SCR_ERROR, serror); /* the line stays up while SError.N is set */
        if (!(ap->pflags & ATA_PFLAG_FROZEN)) {
            ata_ehi_hotplugged(ehi);
            ehi->serror |= serror;
        }
        ata_port_freeze(ap); /* no description: sata_sil pushes none, the SError line says it */
        return;
    }
    if (!qc) {
        const struct sata_trace_field f[] = { TF_HEX("bmdma2", bmdma2) };

        ata_port_ev(ap, ATA_EV("sil.irq_without_command", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        ata_ehi_push_desc(ehi, "interrupt with no command, BMDMA2 0x%08x", bmdma2);
        ata_port_freeze(ap);
        return;
    }
    if (!ata_sff(ap)->polling && (ata_sff_altstatus(ap) & ATA_BUSY)) {
        uint8_t status;

        if (ata_sff(ap)->hsm == HSM_ST_LAST && ata_is_dma(&qc->tf)) {
            ata_bmdma_stop(ap);
            if (bmdma2 & SIL_DMA_ERROR)
                qc->err_mask |= AC_ERR_HOST_BUS;
        }
        status = ata_sff_check_status(ap);
        {
            const struct sata_trace_field f[] = { TF_STR("state", "BSY at the interrupt"), TF_HEX("status", status),
                                                  TF_HEX("cmd", qc->tf.command), TF_HEX("bmdma2", bmdma2) };

            ata_port_ev(ap, ATA_EV("sff.hsm_violation", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        }
        qc->err_mask |= AC_ERR_HSM;
        ata_port_freeze(ap);
        return;
    }
    if (ata_sff_port_intr(ap) && qc->err_mask && ata_is_dma(&qc->tf))
        ata_ehi_push_desc(ehi, "BMDMA2 stat 0x%x", bmdma2);
}

/* Handled if a channel's BMDMA2 showed its interrupt or a SATA interrupt (libata's
 * sil_interrupt: IRQ_RETVAL of that); a line up with neither is not ours (IRQ_NONE). */
static bool sil_interrupt(struct ata_host *h)
{
    bool handled = false;

    ata_lock(h);
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];
        uint32_t bmdma2 = mmio_rd(h, sil_port[i].bmdma2);

        if (ap->flags & ATA_FLAG_DUMMY)
            continue;
        if (bmdma2 == 0xffffffffu || !(bmdma2 & (SIL_DMA_COMPLETE | SIL_DMA_SATA_IRQ)))
            continue;
        sil_host_intr(ap, bmdma2);
        handled = true;
    }
    ata_unlock(h);
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_port_process(&h->ports[i]);
    return handled;
}

/* ---- device errata ---- */

/* Drives with the SiI3112 "mod15write" erratum, by their IDENTIFY model string as sata_sil
 * lists them (docs/hardware.md 9.11): eleven Seagate Barracuda 7200.7 family models and one
 * Toshiba. The erratum itself is under NDA; sata_sil's fixup is to keep every command under
 * 8 KiB, at most 15 sectors. A model must match exactly: a drive with the erratum that is
 * not listed gets no fixup (scenarios/sff/sil3112-mod15write-unlisted.yaml). */
static const char *const sil_mod15write[] = {
    "ST320012AS",  "ST330013AS",   "ST340017AS",   "ST360015AS",   "ST380023AS",   "ST3120023AS",
    "ST340014ASL", "ST360014ASL",  "ST380011ASL",  "ST3120022ASL", "ST3160021ASL", "TOSHIBA MK2561GSYN",
};

enum { SIL_MOD15WRITE_MAX_SECTORS = 15 };

static bool sil_has_mod15write(const char *model)
{
    for (unsigned i = 0; i < sizeof(sil_mod15write) / sizeof(sil_mod15write[0]); i++)
        if (!strcmp(model, sil_mod15write[i]))
            return true;
    return false;
}

/* After every IDENTIFY (probe and revalidation): a listed drive runs at most 15 sectors per
 * command; the core splits longer requests. Printed once, at probe, as libata does. (The
 * Maxtor UDMA5 entry of sata_sil's list is moot here: the host offers UDMA5 at most.) */
static void sil_dev_config(struct ata_device *dev)
{
    const bool print = dev->link->ap->link.eh_context.i.flags & ATA_EHI_PRINTINFO;

    if (dev->class != ATA_DEV_ATA || !sil_has_mod15write(dev->model))
        return;
    dev->max_sectors = SIL_MOD15WRITE_MAX_SECTORS;
    if (print) {
        const struct sata_trace_field f[] = { TF_STR("model", dev->model),
                                              TF_INT("max_sectors", dev->max_sectors) };

        ata_dev_ev(dev, ATA_EV("sil.mod15write", SATA_TC_DECISION, SATA_LOG_INFO, f),
                   "applying Seagate errata fix (mod15write workaround)");
    }
}

/* ---- host ---- */

/* FIFO PCI bus arbitration: both thresholds at (cache line / 8) + 1, in 8-byte units, as
 * sata_sil programs them from the PCI cache line size; ports masked until EH thaws them. */
static int sil_host_start(struct ata_host *h)
{
    const unsigned cls = (SIL_PCI_CACHE_LINE >> 3) + 1;
    uint32_t mask = 0;

    for (unsigned i = 0; i < h->n_ports; i++) {
        h->pops->mmio_write16(h->plat, sil_port[i].fifo_cfg, (uint16_t)(cls << 8 | cls));
        mmio_wr(h, sil_port[i].sien, 0);
        mask |= SIL_MASK_IDE0_INT << i;
    }
    mmio_wr(h, SIL_SYSCFG, mmio_rd(h, SIL_SYSCFG) | mask);
    return 0;
}

static void sil_host_stop(struct ata_host *h)
{
    uint32_t mask = 0;

    for (unsigned i = 0; i < h->n_ports; i++) {
        mmio_wr(h, sil_port[i].sien, 0);
        mask |= SIL_MASK_IDE0_INT << i;
    }
    mmio_wr(h, SIL_SYSCFG, mmio_rd(h, SIL_SYSCFG) | mask);
}

static const struct ata_port_operations sil_ops = {
    .inherits = &ata_bmdma_port_ops,
    .dev_config = sil_dev_config,
    .freeze = sil_freeze,
    .thaw = sil_thaw,
    .hardreset = sata_sff_hardreset,
    .scr_read = sil_scr_read,
    .scr_write = sil_scr_write,
    .host_start = sil_host_start,
    .host_stop = sil_host_stop,
    .irq_handler = sil_interrupt,
};

/* ---- create ---- */

static const char create_failed_ev[] = "sil.create_failed";

struct ata_host *sil_host_create(struct sata_platform *p, const struct sata_platform_ops *pops,
                                 const struct ata_host_config *cfg)
{
    static const struct ata_host_config dflt;
    struct ata_host *h;

    if (!pops)
        return NULL;
    if (!cfg)
        cfg = &dflt;
    if (pops->mmio_read32(p, SIL_SYSCFG) == 0xffffffffu) {
        ata_report_create_failed(p, pops, create_failed_ev, "controller not responding");
        return NULL;
    }
    h = ata_host_alloc_priv(p, pops, &sil_ops, SIL_N_PORTS, 0, cfg, create_failed_ev);
    if (!h)
        return NULL;
    for (unsigned i = 0; i < SIL_N_PORTS; i++) {
        const struct ata_sff_ioaddr io = {
            .cmd = sil_port[i].tf, .ctl = sil_port[i].ctl, .bmdma = sil_port[i].bmdma, .has_bmdma = true,
        };

        /* pio0-4, mwdma0-2, udma0-5 (sata_sil's ATA_UDMA5) */
        if (ata_sff_port_init(&h->ports[i], cfg, &io,
                              (0x1fu << ATA_SHIFT_PIO) | (0x7u << ATA_SHIFT_MWDMA) | (0x3fu << ATA_SHIFT_UDMA)))
            return ata_host_create_failed(h, create_failed_ev, "failed to allocate port memory");
    }
    {
        const struct sata_trace_field f[] = { TF_INT("ports", SIL_N_PORTS) };

        ata_host_ev(h, ATA_EV("sil.init", SATA_TC_INFO, SATA_LOG_INFO, f), "SiI3112 %u ports (SFF + BMDMA)",
                    SIL_N_PORTS);
    }
    if (h->has_pci)
        for (unsigned i = 0; i < SIL_N_PORTS; i++) {
            char desc[96];

            /* sata_sil's: the MMIO BAR5 and the port's taskfile block in it */
            snprintf(desc, sizeof(desc), "mmio m%u@0x%llx tf 0x%llx", h->pci.bar[5].len,
                     (unsigned long long)h->pci.bar[5].start,
                     (unsigned long long)(h->pci.bar[5].start + sil_port[i].tf));
            ata_port_pci_desc(&h->ports[i], "SATA", desc);
        }
    ata_host_force_spd_limit(h, cfg->spd_limit);
    return h;
}

/* sata_sil's PCI IDs: the SiI3112, 3512, 3114 and their variants, and ATI's IXP parts. */
static const struct ata_pci_device_id sil_pci_tbl[] = {
    { 0x1095, 0x3112, 0, 0, 0 }, { 0x1095, 0x0240, 0, 0, 0 }, { 0x1095, 0x3512, 0, 0, 0 },
    { 0x1095, 0x3114, 0, 0, 0 }, { 0x1002, 0x436e, 0, 0, 0 }, { 0x1002, 0x4379, 0, 0, 0 },
    { 0x1002, 0x437a, 0, 0, 0 }, { 0, 0, 0, 0, 0 },
};

const struct ata_pci_driver sil_pci_driver = {
    .name = "sata_sil", .create_name = "sil_host_create", .create = sil_host_create, .id_table = sil_pci_tbl,
    .msi = false,
};
