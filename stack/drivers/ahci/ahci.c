/* AHCI low-level driver (AHCI 1.3.1, docs/hardware.md 5): HBA init, per-port memory and
 * engine control, command building and issue, the interrupt handler, COMRESET and SRST.
 * Everything generic lives in the core; this file only knows the registers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahci.h"

enum {
    AHCI_TMOUT_HOST_RESET = 1000,
    AHCI_TMOUT_ENGINE_STOP = 500,
    AHCI_TMOUT_FIS_RX_STOP = 1000,
    AHCI_TMOUT_CLO = 500,
    AHCI_POLL_ENGINE = 1,
    AHCI_POLL_HOST_RESET = 10,
    AHCI_AE_TRIES = 5,
    AHCI_FBS_DEC_TRIES = 3,       /* libahci polls DEC 3 x 1 us */
};

struct ahci_host_priv {
    uint32_t cap, cap2, port_map, version; /* as the firmware left them; cap with the quirks */
    uint32_t saved_cap;                    /* CAP as read, restored after an HBA reset */
    bool onchip;                           /* ATA_HQ_ONCHIP_CMD_AREA */
    struct ata_onchip_area area;           /* its offsets in the register window */
};

struct ahci_port_priv {
    struct plat_dma_buf mem; /* command list | RX FIS | command tables; on chip: the tables */
    size_t tbl_off;          /* of the first command table in mem */
    uint8_t rx_copy[AHCI_RX_FIS_SZ]; /* on chip: the RX FIS bytes last read through MMIO */
    struct plat_dma_buf fbs_rx; /* CAP.FBS: 16 RX FIS areas (the only RX area then) */
    uint32_t intr_mask;
    bool fbs_enabled;  /* PxFBS.EN set at PMP attach */
    int fbs_last_dev;  /* PxFBS.DEV as last written, -1 = unknown */
};

static const struct ata_port_operations ahci_ops;

/* ---- register access ---- */

static uint32_t pread(const struct ata_port *ap, uint32_t reg)
{
    return ata_mmio_read(ap->host, AHCI_PORT_BASE(ap->port_no) + reg);
}

static void pwrite(const struct ata_port *ap, uint32_t reg, uint32_t v)
{
    ata_mmio_write(ap->host, AHCI_PORT_BASE(ap->port_no) + reg, v);
}

static struct ahci_host_priv *hpriv(const struct ata_host *h) { return h->private_data; }
static struct ahci_port_priv *ppriv(const struct ata_port *ap) { return ap->private_data; }

/* Poll until (reg & mask) == 0; true on success. */
static bool wait_clear(const struct ata_host *h, uint32_t off, uint32_t mask, unsigned interval_ms,
                       unsigned timeout_ms)
{
    return ata_wait_register(h, off, mask, 0, interval_ms, timeout_ms);
}

/* ---- command structures (pure) ---- */

static void prd_emit(void *ctx, unsigned idx, uint64_t addr, uint32_t len)
{
    uint8_t *e = (uint8_t *)ctx + idx * AHCI_PRD_SZ;

    put_le32(e, (uint32_t)addr);
    put_le32(e + 4, (uint32_t)(addr >> 32));
    put_le32(e + 8, 0);
    put_le32(e + 12, len - 1); /* byte count - 1; no completion interrupt per PRD */
}

int ahci_fill_prdt(uint8_t *prdt, unsigned max_prd, const struct ata_sg *sg, unsigned n_sg,
                   uint32_t nbytes)
{
    return ata_sg_split(sg, n_sg, nbytes, AHCI_PRD_MAX_BYTES, max_prd, prd_emit, prdt);
}

void ahci_fill_cmd_slot(uint8_t *slot, uint32_t opts, uint64_t tbl_bus)
{
    memset(slot, 0, AHCI_CMD_SLOT_SZ);
    put_le32(slot, opts);
    put_le32(slot + 8, (uint32_t)tbl_bus);
    put_le32(slot + 12, (uint32_t)(tbl_bus >> 32));
}

static uint8_t *cmd_tbl(const struct ata_port *ap, unsigned tag, uint64_t *bus)
{
    struct ahci_port_priv *pp = ppriv(ap);
    size_t off = pp->tbl_off + (size_t)tag * AHCI_CMD_TBL_SZ;

    *bus = pp->mem.bus + off;
    return (uint8_t *)pp->mem.cpu + off;
}

static void sync_dev(const struct ata_port *ap, size_t off, size_t len)
{
    ap->host->pops->dma_sync_for_device(ap->host->plat, &ppriv(ap)->mem, off, len);
}

/* ATA_HQ_ONCHIP_CMD_AREA: the port's command list and RX FIS area in the register window. */
static uint32_t onchip_cl(const struct ata_port *ap)
{
    const struct ahci_host_priv *hp = hpriv(ap->host);

    return hp->area.clb + ap->port_no * hp->area.stride;
}

static uint32_t onchip_fis(const struct ata_port *ap)
{
    const struct ahci_host_priv *hp = hpriv(ap->host);

    return hp->area.fb + ap->port_no * hp->area.stride;
}

/* A command header into its slot of the command list: system memory, handed to the device,
 * or the on-chip list through MMIO (the HBA reads it when PxCI is written). */
static void ahci_put_cmd_slot(const struct ata_port *ap, unsigned tag, const uint8_t *slot)
{
    if (hpriv(ap->host)->onchip) {
        for (unsigned i = 0; i < AHCI_CMD_SLOT_SZ; i += 4)
            ata_mmio_write(ap->host, onchip_cl(ap) + tag * AHCI_CMD_SLOT_SZ + i,
                           (uint32_t)slot[i] | (uint32_t)slot[i + 1] << 8 | (uint32_t)slot[i + 2] << 16 |
                               (uint32_t)slot[i + 3] << 24);
        return;
    }
    memcpy((uint8_t *)ppriv(ap)->mem.cpu + tag * AHCI_CMD_SLOT_SZ, slot, AHCI_CMD_SLOT_SZ);
    sync_dev(ap, (size_t)tag * AHCI_CMD_SLOT_SZ, AHCI_CMD_SLOT_SZ);
}

/* The RX FIS area the HBA fills for PM port pmp: with FBS enabled each device has its own
 * 256 B area at PxFB + 256 * pmp (libahci: rx_fis + pmp * AHCI_RX_FIS_SZ). */
static const struct plat_dma_buf *rx_area(const struct ata_port *ap, unsigned pmp, size_t *off)
{
    struct ahci_port_priv *pp = ppriv(ap);

    if (pp->fbs_rx.cpu) {
        *off = pp->fbs_enabled ? (size_t)(pmp & 0xfu) * AHCI_RX_FIS_SZ : 0;
        return &pp->fbs_rx;
    }
    *off = AHCI_RX_FIS_OFF;
    return &pp->mem;
}

/* The RX FIS area of PM port pmp, of which bytes [at, at + len) are current: in system
 * memory (the whole area handed back to the CPU), or on chip (those bytes read through MMIO,
 * whole dwords, into the port's copy). */
static const uint8_t *rx_fis(const struct ata_port *ap, unsigned pmp, unsigned at, unsigned len)
{
    size_t off;
    const struct plat_dma_buf *buf;

    if (hpriv(ap->host)->onchip) {
        uint8_t *rx = ppriv(ap)->rx_copy;

        for (unsigned i = at & ~3u; i < at + len && i < AHCI_RX_FIS_SZ; i += 4)
            put_le32(rx + i, ata_mmio_read(ap->host, onchip_fis(ap) + i));
        return rx;
    }
    buf = rx_area(ap, pmp, &off);
    ap->host->pops->dma_sync_for_cpu(ap->host->plat, buf, off, AHCI_RX_FIS_SZ);
    return (const uint8_t *)buf->cpu + off;
}

/* Slot + table for one H2D FIS, handed to the device. */
static unsigned ahci_build_cmd(struct ata_port *ap, unsigned tag, const struct ata_taskfile *tf,
                               bool is_cmd, uint32_t flags, const struct ata_sg *sg, unsigned n_sg,
                               uint32_t nbytes, unsigned pmp)
{
    uint64_t tbl_bus;
    uint8_t *tbl = cmd_tbl(ap, tag, &tbl_bus);
    uint8_t slot[AHCI_CMD_SLOT_SZ];
    int n_prd = 0;

    ata_tf_to_fis(tf, pmp, is_cmd, tbl);
    if (n_sg)
        n_prd = ahci_fill_prdt(tbl + AHCI_CMD_TBL_HDR_SZ, AHCI_MAX_SG, sg, n_sg, nbytes);
    if (n_prd < 0) /* the core validated against the same limits */
        n_prd = 0;
    ahci_fill_cmd_slot(slot, AHCI_CMD_FIS_LEN | flags | (pmp & 0xfu) << 12 | (uint32_t)n_prd << 16, tbl_bus);
    sync_dev(ap, (size_t)(tbl - (uint8_t *)ppriv(ap)->mem.cpu),
             AHCI_CMD_TBL_HDR_SZ + (size_t)n_prd * AHCI_PRD_SZ);
    ahci_put_cmd_slot(ap, tag, slot);
    return (unsigned)n_prd;
}

/* ---- engine control ---- */

static bool ahci_enable_ahci(struct sata_platform *p, const struct sata_platform_ops *pops)
{
    uint32_t ctl = pops->mmio_read32(p, HOST_CTL);

    /* some HBAs need AE written more than once */
    for (unsigned i = 0; !(ctl & HOST_AHCI_EN); i++) {
        if (i == AHCI_AE_TRIES)
            return false;
        pops->mmio_write32(p, HOST_CTL, ctl | HOST_AHCI_EN);
        ctl = pops->mmio_read32(p, HOST_CTL);
        if (!(ctl & HOST_AHCI_EN))
            pops->sleep_ns(p, ATA_MS(10));
    }
    return true;
}

/* Clear a PxCMD enable bit and wait until the HBA drops the matching running bit; true if
 * both are clear (also when they already were). */
static bool ahci_port_cmd_stop(struct ata_port *ap, uint32_t enable, uint32_t running, unsigned timeout_ms)
{
    uint32_t cmd = pread(ap, PORT_CMD);

    if (!(cmd & (enable | running)))
        return true;
    pwrite(ap, PORT_CMD, cmd & ~enable);
    return wait_clear(ap->host, AHCI_PORT_BASE(ap->port_no) + PORT_CMD, running, AHCI_POLL_ENGINE, timeout_ms);
}

static int ahci_stop_engine(struct ata_port *ap)
{
    /* the HBA clears PxCI/PxSACT, then CR */
    return ahci_port_cmd_stop(ap, PORT_CMD_START, PORT_CMD_LIST_ON, AHCI_TMOUT_ENGINE_STOP) ? 0 : -EIO;
}

/* ST may only be set with a device present and BSY/DRQ clear (AHCI 10.3.1); otherwise
 * the engine stays stopped until a reset or CLO makes it legal. */
static bool ahci_start_engine(struct ata_port *ap)
{
    uint32_t cmd;

    if ((pread(ap, PORT_SCR_STAT) & 0xf) != 3 || (pread(ap, PORT_TFDATA) & (ATA_BUSY | ATA_DRQ)))
        return false;
    cmd = pread(ap, PORT_CMD);
    if (cmd & PORT_CMD_START)
        return true;
    pwrite(ap, PORT_CMD, cmd | PORT_CMD_START);
    pread(ap, PORT_CMD); /* flush */
    return true;
}

static void ahci_start_fis_rx(struct ata_port *ap)
{
    struct ahci_port_priv *pp = ppriv(ap);
    uint64_t cl = pp->mem.bus, fb = pp->fbs_rx.cpu ? pp->fbs_rx.bus : pp->mem.bus + AHCI_RX_FIS_OFF;
    uint32_t cmd;

    /* with on-chip areas (the HBA's own RAM) PxCLB/PxFB are not the driver's to program */
    if (!hpriv(ap->host)->onchip) {
        if (hpriv(ap->host)->cap & HOST_CAP_64) {
            pwrite(ap, PORT_LST_ADDR_HI, (uint32_t)(cl >> 32));
            pwrite(ap, PORT_FIS_ADDR_HI, (uint32_t)(fb >> 32));
        }
        pwrite(ap, PORT_LST_ADDR, (uint32_t)cl);
        pwrite(ap, PORT_FIS_ADDR, (uint32_t)fb);
    }
    cmd = pread(ap, PORT_CMD);
    pwrite(ap, PORT_CMD, cmd | PORT_CMD_FIS_RX);
    pread(ap, PORT_CMD);
}

static int ahci_stop_fis_rx(struct ata_port *ap)
{
    return ahci_port_cmd_stop(ap, PORT_CMD_FIS_RX, PORT_CMD_FIS_ON, AHCI_TMOUT_FIS_RX_STOP) ? 0 : -EBUSY;
}

static void ahci_power_up(struct ata_port *ap)
{
    uint32_t cmd = pread(ap, PORT_CMD) & ~PORT_CMD_ICC_MASK;

    if (hpriv(ap->host)->cap & HOST_CAP_SSS) {
        cmd |= PORT_CMD_SPIN_UP;
        pwrite(ap, PORT_CMD, cmd);
    }
    pwrite(ap, PORT_CMD, cmd | PORT_CMD_ICC_ACTIVE);
}

static void ahci_deinit_port(struct ata_port *ap)
{
    int rc = ahci_stop_engine(ap);

    if (!rc)
        rc = ahci_stop_fis_rx(ap);
    if (rc) {
        const struct sata_trace_field f[] = { TF_INT("errno", rc) };

        ata_port_ev(ap, ATA_EV("ahci.deinit_failed", SATA_TC_INFO, SATA_LOG_WARN, f),
                    "failed to stop engine (%d)", rc);
    }
}

/* Stop, clear a stuck BSY/DRQ with CLO if the HBA can, start again. */
static int ahci_kick_engine(struct ata_port *ap)
{
    bool busy = pread(ap, PORT_TFDATA) & (ATA_BUSY | ATA_DRQ);
    int rc = ahci_stop_engine(ap);

    if (rc)
        goto out;
    if (!busy)
        goto out;
    if (!(hpriv(ap->host)->cap & HOST_CAP_CLO)) {
        rc = -EOPNOTSUPP;
        goto out;
    }
    pwrite(ap, PORT_CMD, pread(ap, PORT_CMD) | PORT_CMD_CLO);
    if (!wait_clear(ap->host, AHCI_PORT_BASE(ap->port_no) + PORT_CMD, PORT_CMD_CLO,
                    AHCI_POLL_ENGINE, AHCI_TMOUT_CLO))
        rc = -EIO;
out:
    ahci_start_engine(ap);
    return rc;
}

/* ---- host init ---- */

static int ahci_reset_controller(struct ata_host *h)
{
    struct ahci_host_priv *hp = hpriv(h);
    uint32_t ctl;

    if (!ahci_enable_ahci(h->plat, h->pops))
        return -EIO;
    ctl = ata_mmio_read(h, HOST_CTL);
    if (!(ctl & HOST_RESET)) {
        ata_mmio_write(h, HOST_CTL, ctl | HOST_RESET);
        ata_mmio_read(h, HOST_CTL);
    }
    if (!wait_clear(h, HOST_CTL, HOST_RESET, AHCI_POLL_HOST_RESET, AHCI_TMOUT_HOST_RESET)) {
        const struct sata_trace_field f[] = { TF_HEX("ghc", ata_mmio_read(h, HOST_CTL)) };

        ata_host_ev(h, ATA_EV("ahci.reset_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                    "controller reset failed (0x%x)", ata_mmio_read(h, HOST_CTL));
        return -EIO;
    }
    if (!ahci_enable_ahci(h->plat, h->pops))
        return -EIO;
    /* HBA reset may lose what the firmware programmed into the write-once registers */
    ata_mmio_write(h, HOST_CAP, hp->saved_cap);
    if (hp->version >= 0x00010200)
        ata_mmio_write(h, HOST_CAP2, hp->cap2);
    ata_mmio_write(h, HOST_PORTS_IMPL, hp->port_map);
    return 0;
}

static void ahci_port_init(struct ata_port *ap)
{
    uint32_t v;

    ahci_deinit_port(ap);
    v = pread(ap, PORT_SCR_ERR);
    pwrite(ap, PORT_SCR_ERR, v);
    v = pread(ap, PORT_IRQ_STAT);
    if (v)
        pwrite(ap, PORT_IRQ_STAT, v);
    ata_mmio_write(ap->host, HOST_IRQ_STAT, 1u << ap->port_no);
    ahci_start_fis_rx(ap);
    ahci_power_up(ap);
    /* PxIE stays 0: the port is frozen until its first reset */
}

static int ahci_host_start(struct ata_host *h)
{
    int rc = ahci_reset_controller(h);
    uint32_t ctl;

    if (rc)
        return rc;
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ahci_port_init(&h->ports[i]);
    ctl = ata_mmio_read(h, HOST_CTL);
    ata_mmio_write(h, HOST_CTL, ctl | HOST_IRQ_EN);
    ata_mmio_read(h, HOST_CTL);
    return 0;
}

static void ahci_host_stop(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];

        if (ap->flags & ATA_FLAG_DUMMY)
            continue;
        pwrite(ap, PORT_IRQ_MASK, 0);
        ahci_deinit_port(ap);
    }
    ata_mmio_write(h, HOST_CTL, ata_mmio_read(h, HOST_CTL) & ~HOST_IRQ_EN);
    ata_mmio_read(h, HOST_CTL);
}

static int ahci_port_start(struct ata_port *ap)
{
    struct ata_host *h = ap->host;
    struct ahci_port_priv *pp = calloc(1, sizeof(*pp));
    /* on chip: only the command tables (128 B aligned) are system memory */
    bool onchip = hpriv(h)->onchip;
    size_t size = onchip ? AHCI_MAX_CMDS * AHCI_CMD_TBL_SZ : AHCI_PORT_PRIV_DMA_SZ;
    int rc;

    if (!pp)
        return -ENOMEM;
    rc = h->pops->dma_alloc(h->plat, size, onchip ? AHCI_CMD_TBL_HDR_SZ : AHCI_CMD_LIST_SZ, &pp->mem);
    if (rc) {
        free(pp);
        return rc;
    }
    if (ap->dma_mask && pp->mem.bus + size - 1 > ap->dma_mask) {
        h->pops->dma_free(h->plat, &pp->mem);
        free(pp);
        return -ENOMEM; /* the HBA could not reach its own command list */
    }
    memset(pp->mem.cpu, 0, size);
    pp->tbl_off = onchip ? 0 : AHCI_CMD_TBL_OFF;
    /* FIS-based switching may be turned on at PMP attach (EH), which allocates nothing:
     * an FBS-capable HBA gets its 16 RX FIS areas now */
    if ((hpriv(h)->cap & (HOST_CAP_FBS | HOST_CAP_PMP)) == (HOST_CAP_FBS | HOST_CAP_PMP)) {
        rc = h->pops->dma_alloc(h->plat, AHCI_RX_FIS_FBS_SZ, AHCI_RX_FIS_FBS_SZ, &pp->fbs_rx);
        if (rc) {
            h->pops->dma_free(h->plat, &pp->mem);
            free(pp);
            return rc;
        }
        memset(pp->fbs_rx.cpu, 0, AHCI_RX_FIS_FBS_SZ);
    }
    pp->fbs_last_dev = -1;
    pp->intr_mask = DEF_PORT_IRQ;
    ap->private_data = pp;
    return 0;
}

static void ahci_port_stop(struct ata_port *ap)
{
    struct ahci_port_priv *pp = ppriv(ap);

    ap->host->pops->dma_free(ap->host->plat, &pp->mem);
    if (pp->fbs_rx.cpu)
        ap->host->pops->dma_free(ap->host->plat, &pp->fbs_rx);
    free(pp);
    ap->private_data = NULL;
}

/* ---- command path ---- */

static void ahci_qc_prep(struct ata_queued_cmd *qc)
{
    uint32_t opts = (qc->tf.flags & ATA_TFLAG_WRITE) ? AHCI_CMD_WRITE : 0;

    /* ATAPI: the CDB in the table's ACMD area, and the A bit (with P, as libahci) so the HBA
     * sends it when the device's PIO Setup asks for the packet (AHCI 1.3 4.2.3, 5.3.7) */
    if (ata_is_atapi(&qc->tf)) {
        uint64_t tbl_bus;
        uint8_t *tbl = cmd_tbl(qc->ap, qc->hw_tag, &tbl_bus);

        memset(tbl + AHCI_CMD_TBL_CDB, 0, 16);
        memcpy(tbl + AHCI_CMD_TBL_CDB, qc->cdb, qc->dev->cdb_len ? qc->dev->cdb_len : ATAPI_CDB_LEN);
        opts |= AHCI_CMD_ATAPI | AHCI_CMD_PREFETCH;
    }
    ahci_build_cmd(qc->ap, qc->hw_tag, &qc->tf, true, opts, qc->sg, qc->n_sg, qc->nbytes, ata_qc_pmp_port(qc));
}

/* FBS: PxFBS.DEV names the device the next PxCI write issues to (written when it changes,
 * as libahci; DEC is never written back). */
static void ahci_fbs_set_dev(struct ata_port *ap, unsigned pmp)
{
    struct ahci_port_priv *pp = ppriv(ap);
    uint32_t fbs;

    if (!pp->fbs_enabled || pp->fbs_last_dev == (int)pmp)
        return;
    fbs = pread(ap, PORT_FBS) & ~(PORT_FBS_DEV_MASK | PORT_FBS_DEC);
    pwrite(ap, PORT_FBS, fbs | (pmp & 0xfu) << PORT_FBS_DEV_SHIFT);
    pp->fbs_last_dev = (int)pmp;
}

static unsigned ahci_qc_issue(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;

    /* PxCI is fetched only while PxCMD.ST is set (AHCI 1.3.1 3.3.14): an EH command given
     * to an engine EH could not restart would sit there until its timeout. Only EH's own
     * commands are checked: I/O is issued after EH has left the engine running */
    if (ata_qc_is_internal(qc) && !(pread(ap, PORT_CMD) & PORT_CMD_START))
        return AC_ERR_SYSTEM;
    ahci_fbs_set_dev(ap, ata_qc_pmp_port(qc));
    if (ata_is_ncq(&qc->tf))
        pwrite(ap, PORT_SCR_ACT, 1u << qc->hw_tag);
    pwrite(ap, PORT_CMD_ISSUE, 1u << qc->hw_tag);
    pread(ap, PORT_CMD_ISSUE); /* flush */
    return 0;
}

/* NCQ ends with an SDB FIS (the D2H area is stale then); a good PIO read ends with
 * PIO Setup's E_Status; everything else with a D2H Register FIS. */
static void ahci_qc_fill_rtf(struct ata_queued_cmd *qc)
{
    unsigned pmp = ata_qc_pmp_port(qc);
    const uint8_t *rx;

    /* a failed or aborted NCQ command takes the D2H area (as libahci): the SDB FIS's error
     * belongs to whichever command the device names in its NCQ log */
    if (ata_is_ncq(&qc->tf) && !(qc->flags & ATA_QCFLAG_FAILED)) {
        rx = rx_fis(qc->ap, pmp, RX_FIS_SDB, 4);
        qc->result_tf.command = rx[RX_FIS_SDB + 2];
        qc->result_tf.feature = rx[RX_FIS_SDB + 3];
    } else if (qc->tf.protocol == ATA_PROT_PIO && !(qc->tf.flags & ATA_TFLAG_WRITE) &&
               !(qc->flags & ATA_QCFLAG_FAILED)) {
        rx = rx_fis(qc->ap, pmp, RX_FIS_PIO_SETUP, 20);
        ata_tf_from_fis(rx + RX_FIS_PIO_SETUP, &qc->result_tf);
        qc->result_tf.command = rx[RX_FIS_PIO_SETUP + 15];
    } else {
        rx = rx_fis(qc->ap, pmp, RX_FIS_D2H_REG, 20);
        ata_tf_from_fis(rx + RX_FIS_D2H_REG, &qc->result_tf);
    }
}

static void ahci_freeze(struct ata_port *ap) { pwrite(ap, PORT_IRQ_MASK, 0); }

static void ahci_thaw(struct ata_port *ap)
{
    uint32_t sts = pread(ap, PORT_IRQ_STAT);

    if (sts)
        pwrite(ap, PORT_IRQ_STAT, sts);
    ata_mmio_write(ap->host, HOST_IRQ_STAT, 1u << ap->port_no);
    pwrite(ap, PORT_IRQ_MASK, ppriv(ap)->intr_mask);
}

static int scr_offset(const struct ata_port *ap, unsigned reg, uint32_t *off)
{
    static const uint32_t map[] = {
        [SCR_STATUS] = PORT_SCR_STAT, [SCR_ERROR] = PORT_SCR_ERR, [SCR_CONTROL] = PORT_SCR_CTL,
        [SCR_ACTIVE] = PORT_SCR_ACT,  [SCR_NOTIFICATION] = PORT_SCR_NTF,
    };

    if (reg >= ATA_ARRAY_SIZE(map) ||
        (reg == SCR_NOTIFICATION && !(hpriv(ap->host)->cap & HOST_CAP_SNTF)))
        return -EINVAL;
    *off = map[reg];
    return 0;
}

static int ahci_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    uint32_t off;
    int rc = scr_offset(link->ap, reg, &off);

    if (!rc)
        *val = pread(link->ap, off);
    return rc;
}

static int ahci_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    uint32_t off;
    int rc = scr_offset(link->ap, reg, &off);

    if (!rc)
        pwrite(link->ap, off, val);
    return rc;
}

/* ---- interrupts (irq context, lock held) ---- */

/* PxFBS.DEC after a single device error: the HBA drops the failed device's commands and
 * lets it take new ones (EH's log read, resets); it self-clears (libahci polls 3 x 1 us;
 * the interrupt handler cannot wait, so it reads back 3 times). */
static void ahci_fbs_dec(struct ata_port *ap)
{
    uint32_t fbs = pread(ap, PORT_FBS);

    pwrite(ap, PORT_FBS, fbs | PORT_FBS_DEC);
    for (unsigned i = 0; i < AHCI_FBS_DEC_TRIES; i++) {
        fbs = pread(ap, PORT_FBS);
        if (!(fbs & PORT_FBS_DEC))
            return;
    }
    {
        const struct sata_trace_field f[] = { TF_HEX("fbs", fbs) };

        ata_port_ev(ap, ATA_EV("ahci.fbs_dec_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                    "failed to clear device error");
    }
}

/* FBS single device error (AHCI 1.3.1 9.3.6): PxFBS.SDE set and DWE names an attached
 * fan-out link. libahci also asks ata_link_online(), which on a fan-out link is a PSCR read
 * through the PMP; the interrupt handler cannot issue commands, so a link counts if it is
 * enabled and has a device. NULL: a port-wide error. */
static struct ata_link *ahci_fbs_error_link(struct ata_port *ap)
{
    uint32_t fbs;
    unsigned pmp;
    struct ata_link *link;

    if (!ppriv(ap)->fbs_enabled)
        return NULL;
    fbs = pread(ap, PORT_FBS);
    pmp = (fbs & PORT_FBS_DWE_MASK) >> PORT_FBS_DWE_SHIFT;
    if (!(fbs & PORT_FBS_SDE) || pmp >= ap->nr_pmp_links)
        return NULL;
    link = &ap->pmp_link[pmp];
    if ((link->flags & ATA_LFLAG_DISABLED) || !ata_dev_enabled(&link->device[0]))
        return NULL;
    return link;
}

static void ahci_error_intr(struct ata_port *ap, uint32_t irq_stat)
{
    struct ata_link *link = &ap->link;
    struct ata_eh_info *ehi = &link->eh_info;
    struct ata_link *fbs_link = ahci_fbs_error_link(ap);
    struct ata_queued_cmd *active_qc = ata_qc_from_tag(ap, (fbs_link ? fbs_link : link)->active_tag);
    uint32_t serror = 0;

    /* AHCI may lock up unless SError is cleared */
    if (!ahci_scr_read(link, SCR_ERROR, &serror))
        ahci_scr_write(link, SCR_ERROR, serror);
    ehi->serror |= serror;
    ata_ehi_push_desc(ehi, "irq_stat 0x%08x", irq_stat);
    if (fbs_link)
        ata_ehi_push_desc(ehi, "FBS device error on PMP port %u", (unsigned)fbs_link->pmp);

    if (irq_stat & PORT_IRQ_TF_ERR) {
        /* a non-queued command is the culprit; during NCQ EH must read log 10h */
        if (active_qc)
            active_qc->err_mask |= AC_ERR_DEV;
        else
            ehi->err_mask |= AC_ERR_DEV;
    }
    /* the descriptions in libahci's order (ahci_error_intr, 2.6.24 .. 6.x): unknown FIS and
     * incorrect PMP before host bus error, interface fatal error and the PHY's changes
     * (dmesg corpus 48: "irq_stat 0xffffffff, unknown FIS 00000000 ..., host bus error") */
    if (irq_stat & PORT_IRQ_UNK_FIS) {
        /* the first four dwords of the U-FIS area, as libahci shows them */
        const uint8_t *u = rx_fis(ap, fbs_link ? (unsigned)fbs_link->pmp : 0, RX_FIS_UNK, 16) + RX_FIS_UNK;

        ehi->err_mask |= AC_ERR_HSM;
        ehi->action |= ATA_EH_RESET;
        ata_ehi_push_desc(ehi, "unknown FIS %08x %08x %08x %08x", get_le32(u), get_le32(u + 4), get_le32(u + 8),
                          get_le32(u + 12));
    }
    if (sata_pmp_attached(ap) && (irq_stat & PORT_IRQ_BAD_PMP)) {
        ehi->err_mask |= AC_ERR_HSM;
        ehi->action |= ATA_EH_RESET;
        ata_ehi_push_desc(ehi, "incorrect PMP");
    }
    if (irq_stat & (PORT_IRQ_HBUS_ERR | PORT_IRQ_HBUS_DATA_ERR)) {
        ehi->err_mask |= AC_ERR_HOST_BUS;
        ehi->action |= ATA_EH_RESET;
        ata_ehi_push_desc(ehi, "host bus error");
    }
#ifdef SATASIM_PLANT_AHCI_IFS_IGNORED
    if (0) { /* planted: PxIS.IFS (interface fatal) not decoded */
#else
    if (irq_stat & PORT_IRQ_IF_ERR) {
#endif
        ehi->err_mask |= AC_ERR_ATA_BUS;
        ehi->action |= ATA_EH_RESET;
        ata_ehi_push_desc(ehi, "interface fatal error");
    }
    if (irq_stat & (PORT_IRQ_CONNECT | PORT_IRQ_PHYRDY)) {
        ata_ehi_hotplugged(ehi);
        ata_ehi_push_desc(ehi, "%s", (irq_stat & PORT_IRQ_CONNECT) ? "connection status changed"
                                                                    : "PHY RDY changed");
    }
    {
        const struct sata_trace_field f[] = { TF_HEX("irq_stat", irq_stat), TF_HEX("serror", serror),
                                              TF_BOOL("freeze", irq_stat & PORT_IRQ_FREEZE) };

        ata_port_ev(ap, ATA_EV("ahci.error_irq", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
    if (irq_stat & PORT_IRQ_FREEZE) {
        ata_port_freeze(ap);
    } else if (fbs_link) {
        /* the error is on that link only: its commands go to EH, the others keep running,
         * and the HBA is told to forget the failed device's commands (libahci) */
        const struct sata_trace_field f[] = { TF_INT("pmp", fbs_link->pmp), TF_HEX("irq_stat", irq_stat) };

        ata_link_ev(fbs_link, ATA_EV("ahci.fbs_dev_error", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
        ata_link_abort(fbs_link);
        ahci_fbs_dec(ap);
    } else {
        ata_port_abort(ap);
    }
}

static void ahci_port_intr(struct ata_port *ap)
{
    uint32_t status = pread(ap, PORT_IRQ_STAT);
    uint32_t hw_active;

    pwrite(ap, PORT_IRQ_STAT, status);
    /* under LPM a PhyRdy change is the link entering or leaving a power state (libahci) */
    if (sata_lpm_ignore_phy_events(&ap->link)) {
        status &= ~(uint32_t)PORT_IRQ_PHYRDY;
        ahci_scr_write(&ap->link, SCR_ERROR, 1u << 16); /* DIAG.N */
    }
    if (status & PORT_IRQ_ERROR) {
        ahci_error_intr(ap, status);
        return;
    }
    /* a PMP's asynchronous notification comes as an SDB FIS with N set: PxSNTF (libahci) */
    if ((status & PORT_IRQ_SDB_FIS) && (ap->flags & ATA_FLAG_AN) && sata_pmp_attached(ap)) {
        uint32_t sntf = pread(ap, PORT_SCR_NTF);

        /* EH is only scheduled: what this SDB FIS completes is completed below */
        if (sntf) {
            pwrite(ap, PORT_SCR_NTF, sntf);
            sata_async_notification(ap, sntf);
        }
    }
    /* with FBS NCQ and non-NCQ commands to different devices are in flight together */
    if (ppriv(ap)->fbs_enabled)
        hw_active = pread(ap, PORT_SCR_ACT) | pread(ap, PORT_CMD_ISSUE);
    else
        hw_active = ata_port_sactive(ap) ? pread(ap, PORT_SCR_ACT) : pread(ap, PORT_CMD_ISSUE);
    if (ata_qc_complete_multiple(ap, hw_active) < 0) {
        ap->link.eh_info.err_mask |= AC_ERR_HSM;
        ap->link.eh_info.action |= ATA_EH_RESET;
        ata_port_freeze(ap);
    }
}

static bool ahci_interrupt(struct ata_host *h)
{
    uint32_t irq_stat, pending;

    ata_lock(h);
    irq_stat = ata_mmio_read(h, HOST_IRQ_STAT);
    /* A controller that is gone reads all ones (master abort): IS then has bits of ports it
     * does not implement, which a present one never sets. With all 32 ports implemented,
     * all ones is every port interrupting (libata's ahci rejects only 0). */
    if (irq_stat == 0xffffffffu && hpriv(h)->port_map != 0xffffffffu) {
        ata_unlock(h);
        return false;
    }
    pending = irq_stat & hpriv(h)->port_map;
    for (unsigned i = 0; i < h->n_ports; i++)
        if ((pending & (1u << i)) && !(h->ports[i].flags & ATA_FLAG_DUMMY))
            ahci_port_intr(&h->ports[i]);
    /* IS is a level latch over PxIS: clear it only after the ports (AHCI 1.1 10.6.2) */
    if (irq_stat)
        ata_mmio_write(h, HOST_IRQ_STAT, irq_stat);
    ata_unlock(h);

    for (unsigned i = 0; i < h->n_ports; i++)
        if (pending & (1u << i))
            ata_port_process(&h->ports[i]);
    return pending != 0; /* libata's ahci: IRQ_RETVAL of the implemented ports' bits */
}

/* ---- reset and EH methods (process context) ---- */

static int ahci_check_ready(struct ata_link *link)
{
    return ata_check_ready((uint8_t)pread(link->ap, PORT_TFDATA));
}

static enum ata_dev_class ahci_dev_classify(struct ata_port *ap)
{
    uint32_t sig = pread(ap, PORT_SIG);
    struct ata_taskfile tf = {
        .nsect = (uint8_t)sig,
        .lbal = (uint8_t)(sig >> 8),
        .lbam = (uint8_t)(sig >> 16),
        .lbah = (uint8_t)(sig >> 24),
    };
    return ata_dev_classify(&tf);
}

static int ahci_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    struct ata_port *ap = link->ap;
    bool online;
    int rc;

    ahci_stop_engine(ap);
    /* make a fresh D2H FIS recognisable: pre-load the area with BSY */
    if (hpriv(ap->host)->onchip) {
        ata_mmio_write(ap->host, onchip_fis(ap) + RX_FIS_D2H_REG, 0x34u | (uint32_t)ATA_BUSY << 16);
        for (unsigned i = 4; i < 20; i += 4)
            ata_mmio_write(ap->host, onchip_fis(ap) + RX_FIS_D2H_REG + i, 0);
    } else {
        size_t rx_off;
        const struct plat_dma_buf *rx = rx_area(ap, 0, &rx_off);
        uint8_t *d2h = (uint8_t *)rx->cpu + rx_off + RX_FIS_D2H_REG;

        memset(d2h, 0, 20);
        d2h[0] = 0x34;
        d2h[2] = ATA_BUSY;
        ap->host->pops->dma_sync_for_device(ap->host->plat, rx, rx_off + RX_FIS_D2H_REG, 20);
    }

    /* a hotplug event asks for the longer debounce (libahci: sata_ehc_deb_timing) */
    rc = sata_link_hardreset(link, sata_ehc_deb_timing(&link->eh_context), deadline, &online, ahci_check_ready);
    ahci_start_engine(ap);
    if (online)
        *cls = ahci_dev_classify(ap);
    return rc;
}

/* Slot 0, polled: the EH owns the port and nothing else is in flight. */
static int ahci_exec_polled_cmd(struct ata_port *ap, unsigned pmp, const struct ata_taskfile *tf,
                                uint32_t flags, unsigned timeout_ms)
{
    ahci_build_cmd(ap, 0, tf, false, flags, NULL, 0, 0, pmp);
    ahci_fbs_set_dev(ap, pmp);
    pwrite(ap, PORT_CMD_ISSUE, 1);
    if (!timeout_ms) {
        pread(ap, PORT_CMD_ISSUE);
        return 0;
    }
    if (!wait_clear(ap->host, AHCI_PORT_BASE(ap->port_no) + PORT_CMD_ISSUE, 1, AHCI_POLL_ENGINE,
                    timeout_ms)) {
        ahci_kick_engine(ap);
        return -EBUSY;
    }
    return 0;
}

/* SRST: two Device Control FISes (SRST set, then clear), then the signature. */
static int ahci_softreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    struct ata_port *ap = link->ap;
    unsigned pmp = ata_link_pmp_port(link);
    struct ata_taskfile tf;
    uint64_t now;
    unsigned msecs = 0;
    int rc;

    rc = ahci_kick_engine(ap);
    if (rc && rc != -EOPNOTSUPP) {
        const struct sata_trace_field f[] = { TF_INT("errno", rc) };

        ata_link_ev(link, ATA_EV("ahci.kick_failed", SATA_TC_INFO, SATA_LOG_WARN, f),
                    "failed to reset engine (errno=%d)", rc);
    }
    ata_tf_init(&link->device[0], &tf);
    now = ata_now(ap->host);
    if (deadline > now)
        msecs = (unsigned)((deadline - now) / ATA_MS(1));

    tf.ctl |= ATA_SRST;
    if (ahci_exec_polled_cmd(ap, pmp, &tf, AHCI_CMD_RESET | AHCI_CMD_CLR_BUSY, msecs ? msecs : 1))
        return ata_softreset_fail(link, -EIO, "1st FIS failed");
    ata_msleep(ap->host, 1); /* spec wants >= 5 us */
    tf.ctl &= (uint8_t)~ATA_SRST;
    ahci_exec_polled_cmd(ap, pmp, &tf, 0, 0);

    rc = ata_wait_after_reset(link, deadline, ahci_check_ready);
    if (rc == -EBUSY)
        return ata_softreset_fail(link, rc, "device not ready");
    if (rc)
        return ata_softreset_fail(link, rc, "link down");
    *cls = ahci_dev_classify(ap);
    return 0;
}

static void ahci_postreset(struct ata_link *link, enum ata_dev_class *cls)
{
    struct ata_port *ap = link->ap;
    uint32_t cmd = pread(ap, PORT_CMD), want;

    ata_std_postreset(link, cls);
    want = *cls == ATA_DEV_ATAPI ? cmd | PORT_CMD_ATAPI : cmd & ~PORT_CMD_ATAPI;
    if (want != cmd) {
        pwrite(ap, PORT_CMD, want);
        pread(ap, PORT_CMD);
    }
}

static void ahci_post_internal_cmd(struct ata_queued_cmd *qc)
{
    if (qc->err_mask)
        ahci_kick_engine(qc->ap);
}

static void ahci_error_handler(struct ata_port *ap)
{
    /* a running engine must let go of the aborted commands before EH issues its own */
    if (!(ap->pflags & ATA_PFLAG_FROZEN)) {
        ahci_stop_engine(ap);
        ahci_start_engine(ap);
    }
    sata_pmp_error_handler(ap);
    if (!ata_dev_enabled(&ap->link.device[0]))
        ahci_stop_engine(ap);
}

/* FIS-based switching (libahci ahci_enable_fbs): only with the engine stopped; the 16 RX
 * FIS areas were PxFB since port init. */
static void ahci_enable_fbs(struct ata_port *ap)
{
    struct ahci_port_priv *pp = ppriv(ap);
    uint32_t fbs = pread(ap, PORT_FBS);

    if (fbs & PORT_FBS_EN) {
        pp->fbs_enabled = true;
        pp->fbs_last_dev = -1;
        return;
    }
    if (ahci_stop_engine(ap))
        return;
    pwrite(ap, PORT_FBS, fbs | PORT_FBS_EN);
    fbs = pread(ap, PORT_FBS);
    if (fbs & PORT_FBS_EN) {
        const struct sata_trace_field f[] = { TF_HEX("fbs", fbs),
                                              TF_INT("ado", (fbs >> PORT_FBS_ADO_SHIFT) & 0xfu) };

        pp->fbs_enabled = true;
        pp->fbs_last_dev = -1;
        ata_port_ev(ap, ATA_EV("ahci.fbs_enabled", SATA_TC_DECISION, SATA_LOG_INFO, f), "FBS is enabled");
    } else {
        ata_port_ev(ap, ATA_EV0("ahci.fbs_enable_failed", SATA_TC_DECISION, SATA_LOG_ERR),
                    "Failed to enable FBS");
    }
    ahci_start_engine(ap);
}

static void ahci_disable_fbs(struct ata_port *ap)
{
    struct ahci_port_priv *pp = ppriv(ap);
    uint32_t fbs = pread(ap, PORT_FBS);

    if (!(fbs & PORT_FBS_EN)) {
        pp->fbs_enabled = false;
        return;
    }
    if (ahci_stop_engine(ap))
        return;
    pwrite(ap, PORT_FBS, fbs & ~PORT_FBS_EN);
    fbs = pread(ap, PORT_FBS);
    if (fbs & PORT_FBS_EN) {
        ata_port_ev(ap, ATA_EV0("ahci.fbs_disable_failed", SATA_TC_DECISION, SATA_LOG_ERR),
                    "Failed to disable FBS");
    } else {
        pp->fbs_enabled = false;
        ata_port_ev(ap, ATA_EV0("ahci.fbs_disabled", SATA_TC_DECISION, SATA_LOG_INFO), "FBS is disabled");
    }
    ahci_start_engine(ap);
}

/* PxCMD.PMA tells the HBA a PMP is there; with CAP.FBS and PxCMD.FBSCP FIS-based
 * switching is turned on too (libahci ahci_pmp_attach), else commands switch by command. */
static void ahci_pmp_attach(struct ata_port *ap)
{
    uint32_t cmd = pread(ap, PORT_CMD) | PORT_CMD_PMP;

    pwrite(ap, PORT_CMD, cmd);
    pread(ap, PORT_CMD);
    if (ppriv(ap)->fbs_rx.cpu && (cmd & PORT_CMD_FBSCP))
        ahci_enable_fbs(ap);
}

static void ahci_pmp_detach(struct ata_port *ap)
{
    pwrite(ap, PORT_CMD, pread(ap, PORT_CMD) & ~PORT_CMD_PMP);
    pread(ap, PORT_CMD);
    if (ppriv(ap)->fbs_rx.cpu)
        ahci_disable_fbs(ap);
}

/* With FBS every fan-out link follows the standard per-link rules (NCQ and non-NCQ
 * exclusion per device); without, one fan-out link at a time (libahci ahci_pmp_qc_defer). */
static bool ahci_pmp_qc_defer(const struct ata_queued_cmd *qc)
{
    if (!sata_pmp_attached(qc->ap) || ppriv(qc->ap)->fbs_enabled)
        return ata_std_qc_defer(qc);
    return sata_pmp_qc_defer_cmd_switch(qc);
}

/* libahci's ahci_set_aggressive_devslp (AHCI 1.3.1 8.5; Linux 6.x): off, ADSE cleared and the
 * drive's DevSleep disabled; on, with the engine stopped, PxDEVSLP programmed from the drive's
 * DEVSLP timing (MDAT and DETO, 10 ms and 20 ms where the log gives none) and DITO for
 * libahci's devslp_idle_timeout (1000 ms) in units of DM + 1, then ADSE and the drive's
 * DevSleep enabled. */
enum { AHCI_DEVSLP_IDLE_TIMEOUT_MS = 1000 };

static void ahci_set_aggressive_devslp(struct ata_port *ap, bool sleep)
{
    struct ata_device *dev = ap->link.device;
    uint32_t devslp = pread(ap, PORT_DEVSLP), dm, dito, mdat = 10, deto = 20;
    unsigned err_mask;

    if (!(devslp & PORT_DEVSLP_DSP)) {
        ata_port_ev(ap, ATA_EV0("ahci.no_devslp", SATA_TC_INFO, SATA_LOG_INFO), "port does not support device sleep");
        return;
    }
    if (!sleep) {
        if (devslp & PORT_DEVSLP_ADSE) {
            pwrite(ap, PORT_DEVSLP, devslp & ~PORT_DEVSLP_ADSE);
            err_mask = ata_dev_set_feature(dev, SETFEATURES_SATA_DISABLE, SATA_DEVSLP);
            if (err_mask && err_mask != AC_ERR_DEV)
                ata_dev_ev(dev, ATA_EV0("ahci.devslp_failed", SATA_TC_DECISION, SATA_LOG_WARN),
                           "failed to disable DEVSLP");
        }
        return;
    }
    dm = (devslp >> PORT_DEVSLP_DM_SHIFT) & 0xf;
    dito = AHCI_DEVSLP_IDLE_TIMEOUT_MS / (dm + 1);
    if (dito > 0x3ff)
        dito = 0x3ff;
    /* already on with this DITO */
    if ((devslp & PORT_DEVSLP_ADSE) && ((devslp >> PORT_DEVSLP_DITO_SHIFT) & 0x3ff) == dito)
        return;
    if (ahci_stop_engine(ap))
        return;
    if (dev->devslp_timing[ATA_LOG_DEVSLP_VALID] & ATA_LOG_DEVSLP_VALID_MASK) {
        mdat = dev->devslp_timing[ATA_LOG_DEVSLP_MDAT] & ATA_LOG_DEVSLP_MDAT_MASK;
        deto = dev->devslp_timing[ATA_LOG_DEVSLP_DETO];
        if (!mdat)
            mdat = 10;
        if (!deto)
            deto = 20;
    }
    devslp &= ~(uint32_t)PORT_DEVSLP_TIMING_MASK;
    devslp |= dito << PORT_DEVSLP_DITO_SHIFT | mdat << PORT_DEVSLP_MDAT_SHIFT | deto << PORT_DEVSLP_DETO_SHIFT |
              PORT_DEVSLP_ADSE;
    pwrite(ap, PORT_DEVSLP, devslp);
    ahci_start_engine(ap);
    {
        const struct sata_trace_field f[] = { TF_INT("dito_ms", dito * (dm + 1)), TF_INT("mdat_ms", mdat),
                                              TF_INT("deto_ms", deto) };

        ata_port_ev(ap, ATA_EV("ahci.devslp", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
    err_mask = ata_dev_set_feature(dev, SETFEATURES_SATA_ENABLE, SATA_DEVSLP);
    if (err_mask && err_mask != AC_ERR_DEV)
        ata_dev_ev(dev, ATA_EV0("ahci.devslp_failed", SATA_TC_DECISION, SATA_LOG_WARN), "failed to enable DEVSLP");
}

/* libahci's ahci_set_lpm (AHCI 1.3.1 3.3.7, 8.3): above max_performance the PhyRdy
 * interrupt is masked and SControl.IPM set for the policy; with CAP.SALP, HIPM runs through
 * ALPE (ASP for min_power: Slumber, else Partial), and max_performance (or a device without
 * HIPM) clears ALPE/ASP and asks ICC for Active; back at max_performance IPM is restored and
 * the PhyRdy interrupt unmasked. */
static int ahci_set_lpm(struct ata_link *link, enum ata_lpm_policy policy, unsigned hints)
{
    struct ata_port *ap = link->ap;
    struct ahci_port_priv *pp = ppriv(ap);

    if (policy != ATA_LPM_MAX_POWER) {
        pp->intr_mask &= ~(uint32_t)PORT_IRQ_PHYRDY;
        pwrite(ap, PORT_IRQ_MASK, pp->intr_mask);
        sata_link_scr_lpm(link, policy, false);
    }
    if (hpriv(ap->host)->cap & HOST_CAP_ALPM) {
        uint32_t cmd = pread(ap, PORT_CMD);

        if (policy == ATA_LPM_MAX_POWER || !(hints & ATA_LPM_HIPM)) {
            cmd &= ~(PORT_CMD_ASP | PORT_CMD_ALPE);
            cmd |= PORT_CMD_ICC_ACTIVE;
            pwrite(ap, PORT_CMD, cmd);
            pread(ap, PORT_CMD);
            ata_msleep(ap->host, 10); /* out of any power state by now */
        } else {
            cmd |= PORT_CMD_ALPE;
            if (policy == ATA_LPM_MIN_POWER)
                cmd |= PORT_CMD_ASP;
            else if (policy == ATA_LPM_MIN_POWER_WITH_PARTIAL)
                cmd &= ~(uint32_t)PORT_CMD_ASP;
            pwrite(ap, PORT_CMD, cmd);
        }
    }
    /* aggressive DevSleep with the min policies, where host and drive have it */
    if ((hpriv(ap->host)->cap2 & (HOST_CAP2_SDS | HOST_CAP2_SADM)) == (HOST_CAP2_SDS | HOST_CAP2_SADM) &&
        (link->device->flags & ATA_DFLAG_DEVSLP))
        ahci_set_aggressive_devslp(ap, policy == ATA_LPM_MIN_POWER || policy == ATA_LPM_MIN_POWER_WITH_PARTIAL);
    if (policy == ATA_LPM_MAX_POWER) {
        sata_link_scr_lpm(link, policy, false);
        pp->intr_mask |= PORT_IRQ_PHYRDY;
        pwrite(ap, PORT_IRQ_MASK, pp->intr_mask);
    }
    return 0;
}

static const struct ata_port_operations ahci_ops = {
    .inherits = &sata_pmp_port_ops,
    .qc_defer = ahci_pmp_qc_defer,
    .pmp_attach = ahci_pmp_attach,
    .pmp_detach = ahci_pmp_detach,
    .qc_prep = ahci_qc_prep,
    .qc_issue = ahci_qc_issue,
    .qc_fill_rtf = ahci_qc_fill_rtf,
    .freeze = ahci_freeze,
    .thaw = ahci_thaw,
    .softreset = ahci_softreset,
    .hardreset = ahci_hardreset,
    .postreset = ahci_postreset,
    .error_handler = ahci_error_handler,
    .post_internal_cmd = ahci_post_internal_cmd,
    .set_lpm = ahci_set_lpm,
    .scr_read = ahci_scr_read,
    .scr_write = ahci_scr_write,
    .port_start = ahci_port_start,
    .port_stop = ahci_port_stop,
    .host_start = ahci_host_start,
    .host_stop = ahci_host_stop,
    .irq_handler = ahci_interrupt,
};

/* ---- create ---- */

static void ahci_print_info(struct ata_host *h)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } flags[] = {
        { HOST_CAP_64, "64bit" }, { HOST_CAP_NCQ, "ncq" },   { HOST_CAP_SNTF, "sntf" },
        { HOST_CAP_MPS, "ilck" }, { HOST_CAP_SSS, "stag" },  { HOST_CAP_ALPM, "pm" },
        { HOST_CAP_LED, "led" },  { HOST_CAP_CLO, "clo" },   { HOST_CAP_ONLY, "only" },
        { HOST_CAP_PMP, "pmp" },  { HOST_CAP_FBS, "fbs" },   { HOST_CAP_PIO_MULTI, "pio" },
        { HOST_CAP_SSC, "slum" }, { HOST_CAP_PART, "part" }, { HOST_CAP_CCC, "ccc" },
        { HOST_CAP_EMS, "ems" },  { HOST_CAP_SXS, "sxs" },
    };
    static const char *const speed[] = { "?", "1.5", "3", "6" };
    const struct ahci_host_priv *hp = hpriv(h);
    unsigned iss = HOST_CAP_ISS(hp->cap);
    char list[128] = "";
    size_t len = 0;

    for (size_t i = 0; i < ATA_ARRAY_SIZE(flags); i++)
        if ((hp->cap & flags[i].bit) && len < sizeof(list))
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? " " : "", flags[i].name);
    {
        const struct sata_trace_field f[] = {
            TF_HEX("version", hp->version), TF_HEX("cap", hp->cap), TF_HEX("pi", hp->port_map),
            TF_INT("slots", HOST_CAP_NCS(hp->cap)), TF_INT("ports", HOST_CAP_NP(hp->cap)),
            TF_STR("flags", list),
        };
        ata_host_ev(h, ATA_EV("ahci.init", SATA_TC_INFO, SATA_LOG_INFO, f),
                    "AHCI %02x%02x.%02x%02x %u slots %u ports %s Gbps 0x%x impl SATA mode",
                    (hp->version >> 24) & 0xff, (hp->version >> 16) & 0xff,
                    (hp->version >> 8) & 0xff, hp->version & 0xff, HOST_CAP_NCS(hp->cap),
                    HOST_CAP_NP(hp->cap), iss < ATA_ARRAY_SIZE(speed) ? speed[iss] : "?",
                    hp->port_map);
    }
    ata_host_ev(h, ATA_EV0("ahci.flags", SATA_TC_INFO, SATA_LOG_INFO), "flags: %s", list);
}

/* A board's quirks (ata_host_config.quirks) over the CAP the HBA reports, as libata's
 * ahci_save_initial_config applies a board's hflags: everything after acts on the result. */
static uint32_t ahci_quirked_cap(uint32_t cap, uint32_t quirks)
{
    if (quirks & ATA_HQ_NO_NCQ)
        cap &= ~HOST_CAP_NCQ;
    if (quirks & ATA_HQ_32BIT_ONLY)
        cap &= ~HOST_CAP_64;
    if (quirks & ATA_HQ_NO_PMP)
        cap &= ~(HOST_CAP_PMP | HOST_CAP_FBS);
    if (quirks & ATA_HQ_SINGLE_SLOT)
        cap &= ~(0x1fu << 8); /* NCS = 0: one slot */
    if (quirks & ATA_HQ_ONCHIP_CMD_AREA)
        cap &= ~HOST_CAP_FBS; /* one RX FIS area per port on chip */
    return cap;
}

/* One line per quirk that took away something CAP advertised. */
static void ahci_print_quirks(struct ata_host *h, uint32_t saved, uint32_t cap)
{
    static const struct {
        uint32_t bits, kept; /* bits lost while the kept bits are still there */
        const char *msg;
    } lost[] = {
        { HOST_CAP_NCQ, 0, "controller can't do NCQ, turning off CAP_NCQ" },
        { HOST_CAP_64, 0, "controller can't do 64bit DMA, forcing 32bit" },
        { HOST_CAP_PMP, 0, "controller can't do PMP, turning off CAP_PMP" },
        { 0x1fu << 8, 0, "controller has one command slot, ignoring CAP.NCS" },
        /* FBS alone: the on-chip quirk (no PMP takes it with PMP) */
        { HOST_CAP_FBS, HOST_CAP_PMP, "controller has one FIS area per port on chip, turning off CAP_FBS" },
    };

    for (size_t i = 0; i < ATA_ARRAY_SIZE(lost); i++) {
        if (!(saved & lost[i].bits) || (cap & lost[i].bits) || (cap & lost[i].kept) != lost[i].kept)
            continue;
        {
            const struct sata_trace_field f[] = { TF_HEX("cap", saved), TF_HEX("cleared", saved & ~cap & lost[i].bits) };

            ata_host_ev(h, ATA_EV("ahci.quirk", SATA_TC_INFO, SATA_LOG_INFO, f), "%s", lost[i].msg);
        }
    }
}

static const char create_failed_ev[] = "ahci.create_failed";

/* libata's line per port at registration: the ABAR (its length as sized) and the port's
 * register block in it, or DUMMY for a port not in use. */
static void ahci_port_descs(struct ata_host *h)
{
    const struct ata_pci_bar *abar = &h->pci.bar[5];

    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];
        char desc[96];

        if (ap->flags & ATA_FLAG_DUMMY) {
            ata_port_ev(ap, ATA_EV0("probe.port_desc", SATA_TC_INFO, SATA_LOG_INFO), "DUMMY");
            continue;
        }
        snprintf(desc, sizeof(desc), "abar m%u@0x%llx port 0x%llx", abar->len, (unsigned long long)abar->start,
                 (unsigned long long)(abar->start + AHCI_PORT_BASE(i)));
        ata_port_pci_desc(ap, "SATA", desc);
    }
}

/* ATA_HQ_ONCHIP_CMD_AREA: the areas must be dwords of the window past the port registers. */
static bool onchip_area_ok(const struct ata_onchip_area *a, unsigned n_ports)
{
    uint32_t regs_end = AHCI_PORT_BASE(n_ports);

    return !((a->clb | a->fb | a->stride) & 3u) && a->clb >= regs_end && a->fb >= regs_end;
}

/* One line saying where the on-chip areas are (they replace PxCLB/PxFB in a dump). */
static void ahci_print_onchip(struct ata_host *h)
{
    const struct ahci_host_priv *hp = hpriv(h);
    const struct sata_trace_field f[] = { TF_HEX("clb", hp->area.clb), TF_HEX("fb", hp->area.fb),
                                          TF_HEX("stride", hp->area.stride) };

    ata_host_ev(h, ATA_EV("ahci.onchip", SATA_TC_INFO, SATA_LOG_INFO, f),
                "command list at 0x%x, FIS area at 0x%x (port stride 0x%x) in the register window",
                hp->area.clb, hp->area.fb, hp->area.stride);
}

struct ata_host *ahci_host_create(struct sata_platform *p, const struct sata_platform_ops *pops,
                                  const struct ata_host_config *cfg)
{
    static const struct ata_host_config dflt;
    struct ahci_host_priv *hp;
    struct ata_host *h;
    uint32_t cap, saved_cap, pi;
    unsigned n_ports, n_tags;

    if (!pops)
        return NULL;
    if (!cfg)
        cfg = &dflt;
    if (!ahci_enable_ahci(p, pops)) {
        ata_report_create_failed(p, pops, create_failed_ev, "AHCI enable failed");
        return NULL;
    }
    saved_cap = pops->mmio_read32(p, HOST_CAP);
    cap = ahci_quirked_cap(saved_cap, cfg->quirks);
    pi = pops->mmio_read32(p, HOST_PORTS_IMPL);
    if (!pi)
        pi = (uint32_t)((1ull << HOST_CAP_NP(cap)) - 1); /* firmware left PI unset */
    n_ports = HOST_CAP_NP(cap);
    for (unsigned i = n_ports; i < AHCI_MAX_PORTS; i++)
        if (pi & (1u << i))
            n_ports = i + 1;
    n_tags = HOST_CAP_NCS(cap); /* one slot: EH's internal command shares slot 0 */

    h = ata_host_alloc_priv(p, pops, &ahci_ops, n_ports, sizeof(*hp), cfg, create_failed_ev);
    if (!h)
        return NULL;
    hp = h->private_data;
    hp->cap = cap;
    hp->saved_cap = saved_cap;
    if (cfg->quirks & ATA_HQ_ONCHIP_CMD_AREA) {
        if (!onchip_area_ok(&cfg->onchip, n_ports))
            return ata_host_create_failed(h, create_failed_ev, "on-chip command area misplaced");
        hp->onchip = true;
        hp->area = cfg->onchip;
    }
    hp->port_map = pi;
    hp->version = pops->mmio_read32(p, HOST_VERSION);
    hp->cap2 = hp->version >= 0x00010200 ? pops->mmio_read32(p, HOST_CAP2) : 0;
    /* the ports are probed at once unless the HBA staggers spin-up (CAP.SSS), as libata's
     * ahci_init_one decides */
    if (!(cap & HOST_CAP_SSS))
        h->flags |= ATA_HOST_PARALLEL_SCAN;
    else
        ata_host_ev(h, ATA_EV0("ahci.sss", SATA_TC_INFO, SATA_LOG_INFO), "SSS flag set, parallel bus scan disabled");

    for (unsigned i = 0; i < n_ports; i++) {
        struct ata_port *ap = &h->ports[i];

        ata_port_init_tags(ap, n_tags);
        ap->ncq_depth = (cap & HOST_CAP_NCQ) && !cfg->no_ncq ? ap->tags.n_tags : 0;
        /* PIO0-4, UDMA/16-UDMA/133 (mode setting has no wire effect on SATA) */
        ap->xfer_mask = (0x1fu << ATA_SHIFT_PIO) | (0x7fu << ATA_SHIFT_UDMA);
        ap->max_segs = AHCI_MAX_SG;
        ap->seg_max_bytes = AHCI_PRD_MAX_BYTES;
        ap->dma_mask = (cap & HOST_CAP_64) ? 0 : 0xffffffffu; /* libata: dma_set_mask(32) */
        if (!(pi & (1u << i)) || (cfg->port_mask && !(cfg->port_mask & (1u << i)))) {
            ap->flags |= ATA_FLAG_DUMMY;
            continue;
        }
        /* libahci: every AHCI with NCQ is taken to pass the Auxiliary field on */
        if (cap & HOST_CAP_NCQ)
            ap->flags |= ATA_FLAG_FPDMA_AUX;
        if (cap & HOST_CAP_PMP)
            ap->flags |= ATA_FLAG_PMP;
        if ((cap & (HOST_CAP_PMP | HOST_CAP_SNTF)) == (HOST_CAP_PMP | HOST_CAP_SNTF))
            ap->flags |= ATA_FLAG_AN;
        if (ahci_port_start(ap))
            return ata_host_create_failed(h, create_failed_ev, "failed to allocate port memory");
    }
    ahci_print_quirks(h, saved_cap, cap);
    if (hp->onchip)
        ahci_print_onchip(h);
    ahci_print_info(h);
    if (h->has_pci)
        ahci_port_descs(h);
    ata_host_force_spd_limit(h, cfg->spd_limit);
    ata_host_fixed_spd(h, cfg->only_gen);
    return h;
}

/* The PCI IDs ahci takes (a few of libata's Intel entries, then every function of class
 * 01/06/01, AHCI 1.0: libata's generic entry). */
static const struct ata_pci_device_id ahci_pci_tbl[] = {
    { 0x8086, 0x2652, 0, 0, 0 }, /* ICH6 */
    { 0x8086, 0x2653, 0, 0, 0 }, /* ICH6M */
    { 0x8086, 0x27c1, 0, 0, 0 }, /* ICH7 */
    { 0x8086, 0x27c5, 0, 0, 0 }, /* ICH7M */
    { 0x8086, 0x2821, 0, 0, 0 }, /* ICH8 */
    { 0x8086, 0x2829, 0, 0, 0 }, /* ICH8M */
    { 0x8086, 0x2922, 0, 0, 0 }, /* ICH9 */
    { 0x8086, 0x2923, 0, 0, 0 }, /* ICH9 */
    { 0x8086, 0x2929, 0, 0, 0 }, /* ICH9M */
    { 0x8086, 0x3a22, 0, 0, 0 }, /* ICH10 */
    { ATA_PCI_ANY_ID, ATA_PCI_ANY_ID, 0x010601, 0xffffff, 0 },
    { 0, 0, 0, 0, 0 },
};

const struct ata_pci_driver ahci_pci_driver = {
    .name = "ahci", .create_name = "ahci_host_create", .create = ahci_host_create, .id_table = ahci_pci_tbl,
    .msi = true,
};
