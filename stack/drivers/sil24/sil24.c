/* Silicon Image SiI3124 low-level driver (docs/hardware.md 6, docs/libata-eh.md 8.2/8.3/9):
 * controller and port init, Port Request Blocks with flat SGE arrays, issue through the
 * slot activation registers, the interrupt handler (slot status + PORT_CMD_ERR), freeze and
 * thaw through the port interrupt enable registers, DEV_RST hardreset, SRST-PRB softreset,
 * and the PCI-X completion-interrupt-loss workaround (IRQ_WOC, clear COMPLETE before the
 * slot status is read). Command slot = the qc's hw_tag (its tag; slot 0 for EH's internal one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sil24.h"

enum {
    SIL24_POLL_MS = 1,
    SIL24_TMOUT_PORT_RST = 100,   /* power-on PORT_RST release */
    SIL24_TMOUT_INIT = 100,       /* INIT self-clear, then RDY */
    SIL24_TMOUT_RDY_AFTER_RST = 5000,
    SIL24_TMOUT_DEV_RST_OFFLINE = 100,
    SIL24_TMOUT_DEV_RST_ONLINE = 5000,
    SIL24_PORT_RST_HOLD = 10,
    SIL24_PMP_DRAIN_MAX_MS = 3000, /* libata's EH fast-drain interval */
    SIL24_PMP_DRAIN_IDLE_MS = 20,  /* slot status unchanged this long: the rest is stuck */
    SIL24_PHY_CFG_VAL = 0x20c,
    SIL24_ERR_THRESH = 0x8000u << 16, /* threshold 0x8000, count 0 */
};

/* {interval, stable duration, timeout} ms: the chip's SStatus oscillates after DEV_RST */
static const struct sata_deb_timing sil24_deb_timing_long = { 100, 2000, 5000 };

struct sil24_host_priv {
    uint32_t host_ctrl_enable; /* per-port interrupt enables of the non-dummy ports */
    bool irq_woc;              /* PCI-X completion IRQ loss workaround applied */
};

struct sil24_port_priv {
    struct plat_dma_buf mem; /* SIL24_N_SLOTS command blocks */
    bool do_port_rst;        /* next hardreset starts with a full port reset */
};

static const struct ata_port_operations sil24_ops;

/* ---- register access ---- */

static uint32_t pread(const struct ata_port *ap, uint32_t reg)
{
    return ata_mmio_read(ap->host, SIL24_PORT_BASE(ap->port_no) + reg);
}

static void pwrite(const struct ata_port *ap, uint32_t reg, uint32_t v)
{
    ata_mmio_write(ap->host, SIL24_PORT_BASE(ap->port_no) + reg, v);
}

static struct sil24_host_priv *hpriv(const struct ata_host *h) { return h->private_data; }
static struct sil24_port_priv *ppriv(const struct ata_port *ap) { return ap->private_data; }

/* Poll a port register until (reg & mask) == want; true on success. */
static bool port_wait(struct ata_port *ap, uint32_t reg, uint32_t mask, uint32_t want, unsigned timeout_ms)
{
    return ata_wait_register(ap->host, SIL24_PORT_BASE(ap->port_no) + reg, mask, want, SIL24_POLL_MS,
                             timeout_ms);
}

/* ---- command blocks (pure) ---- */

static void sge_emit(void *ctx, unsigned idx, uint64_t addr, uint32_t len)
{
    uint8_t *e = (uint8_t *)ctx + idx * SIL24_SGE_SZ;

    put_le32(e, (uint32_t)addr);
    put_le32(e + 4, (uint32_t)(addr >> 32));
    put_le32(e + 8, len);
    put_le32(e + 12, 0);
}

/* The PRB and its SGEs from sge_off on (after the PRB, or after an ATAPI command's CDB). */
static int fill_prb_at(uint8_t *blk, size_t sge_off, unsigned max_sge, uint16_t ctrl, uint16_t prot,
                       const uint8_t fis[20], const struct ata_sg *sg, unsigned n_sg, uint32_t nbytes)
{
    uint8_t *sge = blk + sge_off;
    int n = 0;

    memset(blk, 0, sge_off + SIL24_SGE_SZ);
    put_le16(blk + SIL24_PRB_CTRL, ctrl);
    put_le16(blk + SIL24_PRB_PROT, prot);
    memcpy(blk + SIL24_PRB_FIS, fis, 20);
    if (n_sg && nbytes) {
        n = ata_sg_split(sg, n_sg, nbytes, SIL24_SGE_MAX_BYTES, max_sge, sge_emit, sge);
        if (n < 0)
            return n;
    }
    if (n == 0) {
        memset(sge, 0, SIL24_SGE_SZ); /* no data: one empty terminating entry */
        n = 1;
    }
    put_le32(sge + (unsigned)(n - 1) * SIL24_SGE_SZ + 12, SIL24_SGE_TRM);
    return n;
}

int sil24_fill_prb(uint8_t *blk, uint16_t ctrl, uint16_t prot, const uint8_t fis[20],
                   const struct ata_sg *sg, unsigned n_sg, uint32_t nbytes)
{
    return fill_prb_at(blk, SIL24_PRB_SZ, SIL24_MAX_SGE, ctrl, prot, fis, sg, n_sg, nbytes);
}

/* An ATAPI command block (sata_sil24's layout): the PRB, the CDB in the 16 bytes after it
 * (where SGE 0 of an ATA command sits), then the SGEs; the control word says whether the
 * packet moves data and which way (PACKET_READ / PACKET_WRITE), the protocol word stays 0.
 * Returns the 16-byte entries after the PRB (the CDB's included). */
int sil24_fill_packet_prb(uint8_t *blk, const struct ata_taskfile *tf, const uint8_t fis[20], const uint8_t cdb[16],
                          const struct ata_sg *sg, unsigned n_sg, uint32_t nbytes)
{
    uint16_t ctrl = 0;
    int n;

    if (tf->protocol != ATAPI_PROT_NODATA)
        ctrl = (tf->flags & ATA_TFLAG_WRITE) ? SIL24_PRB_CTRL_PACKET_WRITE : SIL24_PRB_CTRL_PACKET_READ;
    n = fill_prb_at(blk, SIL24_PRB_SZ + SIL24_SGE_SZ, SIL24_MAX_SGE - 1, ctrl, 0, fis, sg, n_sg, nbytes);
    if (n < 0)
        return n;
    memcpy(blk + SIL24_PRB_SZ, cdb, 16);
    return n + 1;
}

void sil24_prb_flags(const struct ata_taskfile *tf, uint32_t nbytes, uint16_t *ctrl, uint16_t *prot)
{
    *ctrl = 0;
    *prot = 0;
    if (ata_is_ncq(tf))
        *prot |= SIL24_PRB_PROT_NCQ;
    if (nbytes || ata_is_ncq(tf))
        *prot |= (tf->flags & ATA_TFLAG_WRITE) ? SIL24_PRB_PROT_WRITE : SIL24_PRB_PROT_READ;
    if (*prot)
        *ctrl = SIL24_PRB_CTRL_PROTOCOL;
}

/* PORT_CMD_ERR (docs/hardware.md 6.5, docs/libata-eh.md 8.3). */
const char *sil24_cerr_decode(uint32_t cerr, unsigned *err_mask, unsigned *action)
{
    static const struct {
        uint32_t code;
        unsigned err_mask, action;
        const char *desc;
    } tbl[] = {
        { 0, AC_ERR_DEV, 0, "device error" },
        { 1, AC_ERR_DEV, 0, "device error via D2H FIS" },
        { 2, AC_ERR_DEV, 0, "device error via SDB FIS" },
#ifdef SATASIM_PLANT_SIL24_DATA_FIS_ERR_AS_DEV
        { 3, AC_ERR_DEV, 0, "error in data FIS" }, /* planted: a link error taken for the drive's */
#else
        { 3, AC_ERR_ATA_BUS, ATA_EH_RESET, "error in data FIS" },
#endif
        { 4, AC_ERR_ATA_BUS, ATA_EH_RESET, "failed to transmit command FIS" },
        { 5, AC_ERR_HSM, ATA_EH_RESET, "protocol mismatch" },
        { 6, AC_ERR_HSM, ATA_EH_RESET, "data direction mismatch" },
        { 7, AC_ERR_HSM, ATA_EH_RESET, "ran out of SGEs while writing" },
        { 8, AC_ERR_HSM, ATA_EH_RESET, "ran out of SGEs while reading" },
        { 11, AC_ERR_HSM, ATA_EH_RESET, "invalid data direction for ATAPI CDB" },
        { 16, AC_ERR_SYSTEM, ATA_EH_RESET, "SGT not on qword boundary" },
        { 17, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI target abort while fetching SGT" },
        { 18, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI master abort while fetching SGT" },
        { 19, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI parity error while fetching SGT" },
        { 24, AC_ERR_SYSTEM, ATA_EH_RESET, "PRB not on qword boundary" },
        { 25, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI target abort while fetching PRB" },
        { 26, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI master abort while fetching PRB" },
        { 27, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI parity error while fetching PRB" },
        { 32, AC_ERR_HOST_BUS, ATA_EH_RESET, "undefined error while transferring data" },
        { 33, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI target abort while transferring data" },
        { 34, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI master abort while transferring data" },
        { 35, AC_ERR_HOST_BUS, ATA_EH_RESET, "PCI parity error while transferring data" },
        { 36, AC_ERR_HSM, ATA_EH_RESET, "FIS received while sending service FIS" },
    };

    for (size_t i = 0; i < ATA_ARRAY_SIZE(tbl); i++) {
        if (tbl[i].code == cerr) {
            *err_mask = tbl[i].err_mask;
            *action = tbl[i].action;
            return tbl[i].desc;
        }
    }
    *err_mask = AC_ERR_OTHER;
    *action = ATA_EH_RESET;
    return NULL;
}

static uint8_t *cmd_block(const struct ata_port *ap, unsigned slot, uint64_t *bus)
{
    size_t off = (size_t)slot * SIL24_CMD_BLOCK_SZ;

    *bus = ppriv(ap)->mem.bus + off;
    return (uint8_t *)ppriv(ap)->mem.cpu + off;
}

static void sync_dev(const struct ata_port *ap, unsigned slot, size_t len)
{
    ap->host->pops->dma_sync_for_device(ap->host->plat, &ppriv(ap)->mem,
                                        (size_t)slot * SIL24_CMD_BLOCK_SZ, len);
}

static void activate(struct ata_port *ap, unsigned slot, uint64_t bus)
{
    /* 64-bit activation: low dword, then the high dword rings the doorbell */
    pwrite(ap, SIL24_PORT_CMD_ACTIVATE + 8 * slot, (uint32_t)bus);
    pwrite(ap, SIL24_PORT_CMD_ACTIVATE + 8 * slot + 4, (uint32_t)(bus >> 32));
}

/* The FIS the chip left in the slot's LRAM after it finished (or failed) the command. */
static void read_lram_fis(struct ata_port *ap, unsigned slot, uint8_t fis[20])
{
    uint32_t base = SIL24_PORT_LRAM + SIL24_PORT_LRAM_SLOT_SZ * slot + SIL24_PRB_FIS;

    for (unsigned i = 0; i < 5; i++)
        put_le32(fis + 4 * i, pread(ap, base + 4 * i));
}

/* ---- port bring-up ---- */

/* Behind a PMP the chip keeps a status and a QActive word per PM port: stale ones would
 * describe commands INIT is about to flush (libata's sil24_clear_pmp). */
static void sil24_clear_pmp(struct ata_port *ap)
{
    pwrite(ap, SIL24_PORT_CTRL_CLR, SIL24_CS_PMP_RESUME);
    for (unsigned i = 0; i < SATA_PMP_MAX_PORTS; i++) {
        pwrite(ap, SIL24_PORT_PMP + i * SIL24_PORT_PMP_SZ, 0);
        pwrite(ap, SIL24_PORT_PMP + i * SIL24_PORT_PMP_SZ + 4, 0);
    }
}

/* INIT: flush the port's commands and error state, wait for RDY. */
static int sil24_init_port(struct ata_port *ap)
{
    if (sata_pmp_attached(ap))
        sil24_clear_pmp(ap);
    pwrite(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_INIT);
    if (!port_wait(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_INIT, 0, SIL24_TMOUT_INIT) ||
        !port_wait(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_RDY, SIL24_CS_RDY, SIL24_TMOUT_INIT)) {
        ppriv(ap)->do_port_rst = true;
        return -EIO;
    }
    return 0;
}

static void sil24_config_port(struct ata_port *ap)
{
    pwrite(ap, hpriv(ap->host)->irq_woc ? SIL24_PORT_CTRL_STAT : SIL24_PORT_CTRL_CLR, SIL24_CS_IRQ_WOC);
    pwrite(ap, SIL24_PORT_DECODE_ERR_CNT, SIL24_ERR_THRESH);
    pwrite(ap, SIL24_PORT_CRC_ERR_CNT, SIL24_ERR_THRESH);
    pwrite(ap, SIL24_PORT_HSHK_ERR_CNT, SIL24_ERR_THRESH);
    /* a PORT_RST keeps the port's PMP routing (libata's sil24_config_pmp) */
    pwrite(ap, SIL24_PORT_CTRL_CLR, SIL24_CS_32BIT_ACTV | SIL24_CS_PMP_RESUME |
                                        (sata_pmp_attached(ap) ? 0 : SIL24_CS_PMP_EN));
    if (sata_pmp_attached(ap))
        pwrite(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_PMP_EN);
    pwrite(ap, SIL24_PORT_PHY_CFG, SIL24_PHY_CFG_VAL);
}

static int sil24_port_bringup(struct ata_port *ap)
{
    if (pread(ap, SIL24_PORT_CTRL_STAT) & SIL24_CS_PORT_RST) {
        pwrite(ap, SIL24_PORT_CTRL_CLR, SIL24_CS_PORT_RST);
        if (!port_wait(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_PORT_RST, 0, SIL24_TMOUT_PORT_RST))
            return -EIO;
    }
    sil24_config_port(ap);
    pwrite(ap, SIL24_PORT_IRQ_ENABLE_CLR, 0xffff); /* frozen until the first reset */
    if (sil24_init_port(ap))
        return -EIO;
    pwrite(ap, SIL24_PORT_IRQ_STAT, 0xffffffffu);
    return 0;
}

/* Full port reset when INIT/DEV_RST no longer work. */
static int sil24_port_rst(struct ata_port *ap)
{
    pwrite(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_PORT_RST);
    ata_msleep(ap->host, SIL24_PORT_RST_HOLD);
    pwrite(ap, SIL24_PORT_CTRL_CLR, SIL24_CS_PORT_RST);
    if (!port_wait(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_RDY, SIL24_CS_RDY, SIL24_TMOUT_RDY_AFTER_RST))
        return -EIO;
    sil24_config_port(ap);
    ppriv(ap)->do_port_rst = false;
    return 0;
}

static int sil24_host_start(struct ata_host *h)
{
    int rc = 0;

    ata_mmio_write(h, SIL24_HOST_FLASH_CMD, 0); /* GPIO off */
    ata_mmio_write(h, SIL24_HOST_CTRL, 0);      /* out of GLOBAL_RST, port interrupts masked */
    for (unsigned i = 0; i < h->n_ports; i++) {
        struct ata_port *ap = &h->ports[i];

        if (ap->flags & ATA_FLAG_DUMMY)
            continue;
        if (sil24_port_bringup(ap)) {
            const struct sata_trace_field f[] = { TF_HEX("ctrl", pread(ap, SIL24_PORT_CTRL_STAT)) };

            ata_port_ev(ap, ATA_EV("sil24.port_init_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                        "failed to initialize port (ctrl 0x%x)", pread(ap, SIL24_PORT_CTRL_STAT));
            ppriv(ap)->do_port_rst = true;
        }
    }
    ata_mmio_write(h, SIL24_HOST_CTRL, hpriv(h)->host_ctrl_enable);
    ata_mmio_read(h, SIL24_HOST_CTRL);
    return rc;
}

static void sil24_host_stop(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            pwrite(&h->ports[i], SIL24_PORT_IRQ_ENABLE_CLR, 0xffff);
    ata_mmio_write(h, SIL24_HOST_CTRL, 0);
    ata_mmio_read(h, SIL24_HOST_CTRL);
}

static int sil24_port_start(struct ata_port *ap)
{
    struct sil24_port_priv *pp = calloc(1, sizeof(*pp));
    struct ata_host *h = ap->host;

    if (!pp)
        return -ENOMEM;
    if (h->pops->dma_alloc(h->plat, SIL24_PORT_PRIV_DMA_SZ, 1024, &pp->mem)) {
        free(pp);
        return -ENOMEM;
    }
    ap->private_data = pp;
    return 0;
}

static void sil24_port_stop(struct ata_port *ap)
{
    struct sil24_port_priv *pp = ppriv(ap);

    if (!pp)
        return;
    ap->host->pops->dma_free(ap->host->plat, &pp->mem);
    free(pp);
    ap->private_data = NULL;
}

/* ---- command path (lock held) ---- */

static void sil24_qc_prep(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;
    unsigned pmp = ata_qc_pmp_port(qc);
    uint64_t bus;
    uint8_t *blk = cmd_block(ap, qc->hw_tag, &bus);
    uint8_t fis[20];
    uint16_t ctrl, prot;
    int n;

    ata_tf_to_fis(&qc->tf, pmp, true, fis);
    if (ata_is_atapi(&qc->tf)) {
        n = sil24_fill_packet_prb(blk, &qc->tf, fis, qc->cdb, qc->sg, qc->n_sg, qc->nbytes);
        if (n < 0)
            n = sil24_fill_packet_prb(blk, &qc->tf, fis, qc->cdb, NULL, 0, 0);
        sync_dev(ap, qc->hw_tag, SIL24_PRB_SZ + (size_t)n * SIL24_SGE_SZ);
        return;
    }
    sil24_prb_flags(&qc->tf, qc->nbytes, &ctrl, &prot);
    n = sil24_fill_prb(blk, ctrl, prot, fis, qc->sg, qc->n_sg, qc->nbytes);
    if (n < 0) /* the core validated against the same limits */
        n = sil24_fill_prb(blk, ctrl, prot, fis, NULL, 0, 0);
    sync_dev(ap, qc->hw_tag, SIL24_PRB_SZ + (size_t)n * SIL24_SGE_SZ);
}

static unsigned sil24_qc_issue(struct ata_queued_cmd *qc)
{
    uint64_t bus;

    cmd_block(qc->ap, qc->hw_tag, &bus);
    activate(qc->ap, qc->hw_tag, bus);
    return 0;
}

/* The slot's LRAM holds the FIS that ended the command (D2H, the PIO Setup with E_Status,
 * or the SDB of an NCQ command). A slot aborted before the device answered it still holds
 * its own H2D FIS: it has no result, report an idle device. */
static void sil24_qc_fill_rtf(struct ata_queued_cmd *qc)
{
    uint8_t fis[20];

    read_lram_fis(qc->ap, qc->hw_tag, fis);
    switch (fis[0]) {
    case 0x34: /* Register D2H */
    case 0x5f: /* PIO Setup, status = E_Status */
        ata_tf_from_fis(fis, &qc->result_tf);
        break;
    case 0xa1: /* Set Device Bits */
        /* An error SDB in an aborted NCQ command's slot is the port's error report (the chip
         * stores it in the PORT_CONTEXT slot, whichever command that is), not this command's
         * result: as with AHCI's D2H area, log page 10h names the culprit and gives it its
         * result, the others have none and are retried without blame. */
        if ((qc->flags & ATA_QCFLAG_FAILED) && (fis[2] & ATA_ERR)) {
            qc->result_tf.command = ATA_DRDY;
            qc->result_tf.feature = 0;
            break;
        }
        qc->result_tf.command = (uint8_t)((fis[2] & 0x77) | ATA_DRDY);
        qc->result_tf.feature = fis[3];
        break;
    default:
        qc->result_tf.command = ATA_DRDY;
        qc->result_tf.feature = 0;
        break;
    }
}

static void sil24_freeze(struct ata_port *ap)
{
    /* the HOST_CTRL per-port mask is not reliable for this: use the port's enables */
    pwrite(ap, SIL24_PORT_IRQ_ENABLE_CLR, 0xffff);
}

static void sil24_thaw(struct ata_port *ap)
{
    pwrite(ap, SIL24_PORT_IRQ_STAT, 0xffffffffu);
    pwrite(ap, SIL24_PORT_IRQ_ENABLE_SET, SIL24_DEF_PORT_IRQ);
}

static int sil24_scr_offset(unsigned reg, uint32_t *off)
{
    static const uint32_t map[] = {
        [SCR_STATUS] = SIL24_PORT_SSTATUS, [SCR_ERROR] = SIL24_PORT_SERROR,
        [SCR_CONTROL] = SIL24_PORT_SCONTROL, [SCR_ACTIVE] = SIL24_PORT_SACTIVE,
    };

    if (reg >= ATA_ARRAY_SIZE(map)) /* no SNotification on the 3124 */
        return -EINVAL;
    *off = map[reg];
    return 0;
}

static int sil24_scr_read(struct ata_link *link, unsigned reg, uint32_t *val)
{
    uint32_t off;
    int rc = sil24_scr_offset(reg, &off);

    if (!rc)
        *val = pread(link->ap, off);
    return rc;
}

static int sil24_scr_write(struct ata_link *link, unsigned reg, uint32_t val)
{
    uint32_t off;
    int rc = sil24_scr_offset(reg, &off);

    if (!rc && reg != SCR_ACTIVE)
        pwrite(link->ap, off, val);
    return rc;
}

/* ---- interrupts (irq context, lock held) ---- */

/* Fan-out links with commands in flight (libata's ap->nr_active_links behind a PMP). */
static unsigned sil24_active_links(const struct ata_port *ap)
{
    unsigned n = 0;

    for (unsigned i = 0; i < ap->nr_pmp_links; i++)
        n += ap->pmp_link[i].active_tag != ATA_TAG_NONE || ap->pmp_link[i].sactive;
    return n;
}

static void sil24_error_intr(struct ata_port *ap)
{
    struct ata_link *link = &ap->link;
    struct ata_eh_info *ehi = &link->eh_info;
    uint32_t irq_stat = pread(ap, SIL24_PORT_IRQ_STAT), cerr = 0, serror = 0;
    bool freeze = false;

    pwrite(ap, SIL24_PORT_IRQ_STAT, irq_stat);
    if (!sil24_scr_read(link, SCR_ERROR, &serror))
        sil24_scr_write(link, SCR_ERROR, serror);
    ehi->serror |= serror;
    ata_ehi_push_desc(ehi, "irq_stat 0x%08x", irq_stat);

    if (irq_stat & (SIL24_IRQ_PHYRDY_CHG | SIL24_IRQ_DEV_XCHG)) {
        ata_ehi_hotplugged(ehi);
        ata_ehi_push_desc(ehi, "%s", (irq_stat & SIL24_IRQ_PHYRDY_CHG) ? "PHY RDY changed"
                                                                       : "device exchanged");
        freeze = true;
    }
    if (irq_stat & SIL24_IRQ_UNK_FIS) {
        ehi->err_mask |= AC_ERR_HSM;
        ehi->action |= ATA_EH_RESET;
        ata_ehi_push_desc(ehi, "unknown FIS");
        freeze = true;
    }
    if (irq_stat & SIL24_IRQ_ERROR) {
        struct ata_queued_cmd *qc;
        unsigned err_mask, action;
        const char *desc;
        bool ctrl_port = false;

        /* SiI3124/3132 erratum "DMA context switch failure in port multiplier mode": with
         * commands to 3 or more devices behind a PMP, an error on any of them can corrupt
         * the chip's DMA context switching. libata's sil24_error_intr then blames the host
         * link (AC_ERR_OTHER, "PMP DMA CS errata"), freezes, and resets the whole port
         * first (PORT_RST at the next hardreset). Real log: dmesg corpus 52. */
        if (sata_pmp_attached(ap) && sil24_active_links(ap) >= 3) {
            const struct sata_trace_field f[] = { TF_INT("active_links", sil24_active_links(ap)) };

            ata_port_ev(ap, ATA_EV("sil24.pmp_dma_cs_errata", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
            ehi->err_mask |= AC_ERR_OTHER;
            ehi->action |= ATA_EH_RESET;
            ata_ehi_push_desc(ehi, "PMP DMA CS errata");
            ppriv(ap)->do_port_rst = true;
            freeze = true;
        }

        /* behind a PMP the command the port stopped on names its PM port in PORT_CONTEXT:
         * the error belongs to that fan-out link (libata's sil24_error_intr) */
        if (sata_pmp_attached(ap)) {
            unsigned pmp = (pread(ap, SIL24_PORT_CONTEXT) >> SIL24_CTX_PMP_SHIFT) & SIL24_CTX_PMP_MASK;

            if (pmp < ap->nr_pmp_links) {
                link = &ap->pmp_link[pmp];
                ehi = &link->eh_info;
                ata_ehi_push_desc(ehi, "irq_stat 0x%08x", irq_stat);
            } else {
                ehi->err_mask |= AC_ERR_HSM;
                ehi->action |= ATA_EH_RESET;
                freeze = true;
                ctrl_port = true;
            }
        }
        qc = ata_qc_from_tag(ap, link->active_tag);
        cerr = pread(ap, SIL24_PORT_CMD_ERR);
        desc = sil24_cerr_decode(cerr, &err_mask, &action);
        if (desc)
            ata_ehi_push_desc(ehi, "%s", desc);
        else
            ata_ehi_push_desc(ehi, "unknown command error %u", cerr);
        if (action & ATA_EH_RESET)
            freeze = true;
        ehi->action |= action;
        if (qc)
            qc->err_mask |= err_mask;
        /* An error on PM port 15 (the PMP's control port aborted a register access) names no
         * fan-out command: libata's sil24_error_intr leaves qc NULL there and records it all on
         * the host link, HSM|DEV (dmesg corpus 51, 2.6.28: "ata7: exception Emask 0x3 ... frozen",
         * "irq_stat 0x00060002, device error via D2H FIS"); the internal command still fails
         * with the device error its result taskfile shows (ata_exec_internal: Emask 0x1). */
        if (!qc || ctrl_port)
            ehi->err_mask |= err_mask;
    }
    {
        const struct sata_trace_field f[] = { TF_HEX("irq_stat", irq_stat), TF_INT("cmd_err", cerr),
                                              TF_HEX("serror", serror), TF_BOOL("freeze", freeze) };

        ata_port_ev(ap, ATA_EV("sil24.error_irq", SATA_TC_DECISION, SATA_LOG_NONE, f), NULL);
    }
    if (freeze)
        ata_port_freeze(ap);
    else
        ata_port_abort(ap);
}

static void sil24_port_intr(struct ata_port *ap)
{
    uint32_t slot_stat;

    /* An SDB FIS with N set. The 3124 has no SNotification register: behind a PMP it is
     * the PMP reporting a PHY event on a fan-out port (libata assumes the same). */
    if ((ap->flags & ATA_FLAG_AN) && (pread(ap, SIL24_PORT_IRQ_STAT) & SIL24_IRQ_SDB_NOTIFY)) {
        pwrite(ap, SIL24_PORT_IRQ_STAT, SIL24_IRQ_SDB_NOTIFY);
        sata_async_notification(ap, 1u << SATA_PMP_CTRL_PORT); /* EH is only scheduled */
    }

    /* PCI-X erratum workaround: acknowledge COMPLETE before sampling the slot status, so
     * a completion racing with the read raises the interrupt again */
    if (hpriv(ap->host)->irq_woc)
        pwrite(ap, SIL24_PORT_IRQ_STAT, SIL24_IRQ_COMPLETE);
    slot_stat = pread(ap, SIL24_PORT_SLOT_STAT);
    if (slot_stat & SIL24_SLOT_ATTN) {
        sil24_error_intr(ap);
        return;
    }
    if (ata_qc_complete_multiple(ap, slot_stat & SIL24_SLOT_MASK) < 0) {
        ap->link.eh_info.err_mask |= AC_ERR_HSM;
        ap->link.eh_info.action |= ATA_EH_RESET;
        ata_port_freeze(ap);
    }
}

static bool sil24_interrupt(struct ata_host *h)
{
    uint32_t status;
    bool handled = false;

    ata_lock(h);
    status = ata_mmio_read(h, SIL24_HOST_IRQ_STAT);
    if (status == 0xffffffffu) { /* the controller is gone */
        ata_unlock(h);
        return false;
    }
    for (unsigned i = 0; i < h->n_ports; i++)
        if ((status & (1u << i)) && !(h->ports[i].flags & ATA_FLAG_DUMMY)) {
            sil24_port_intr(&h->ports[i]);
            handled = true;
        }
    ata_unlock(h);

    for (unsigned i = 0; i < h->n_ports; i++)
        if (status & (1u << i))
            ata_port_process(&h->ports[i]);
    return handled;
}

/* Timer context, lock held: a command timed out; finish what the chip has completed
 * without telling us (a lost completion interrupt).
 * Not in libata's driver (only SFF drivers poll): see ata_qc_timeout. */
static unsigned sil24_lost_interrupt(struct ata_port *ap)
{
    uint32_t slot_stat = pread(ap, SIL24_PORT_SLOT_STAT);
    uint32_t before = ap->qc_active;

    if ((slot_stat & SIL24_SLOT_ATTN) || ata_qc_complete_multiple(ap, slot_stat & SIL24_SLOT_MASK) < 0)
        return 0;
    return (unsigned)__builtin_popcount(before & ~ap->qc_active);
}

/* ---- reset and EH methods (process context) ---- */

/* One polled PRB in slot 0 (EH owns the port): wait for the raw COMPLETE or ERROR bit. */
static int sil24_exec_polled(struct ata_port *ap, uint16_t ctrl, const struct ata_taskfile *tf,
                             unsigned pmp, uint64_t deadline)
{
    const uint32_t done = (SIL24_IRQ_COMPLETE | SIL24_IRQ_ERROR) << SIL24_IRQ_RAW_SHIFT;
    uint8_t fis[20];
    uint64_t bus;
    uint8_t *blk = cmd_block(ap, 0, &bus);
    uint32_t stat;

    uint32_t irq_enabled;
    int rc;

    ata_tf_to_fis(tf, pmp, false, fis);
    sil24_fill_prb(blk, ctrl, 0, fis, NULL, 0, 0);
    sync_dev(ap, 0, SIL24_PRB_SZ + SIL24_SGE_SZ);
    /* A fan-out link is reset with the port thawed: the interrupt handler must not take
     * (and acknowledge) this slot's completion (libata's sil24_exec_polled_cmd) */
    irq_enabled = pread(ap, SIL24_PORT_IRQ_ENABLE_SET);
    pwrite(ap, SIL24_PORT_IRQ_ENABLE_CLR, SIL24_IRQ_COMPLETE | SIL24_IRQ_ERROR);
    pwrite(ap, SIL24_PORT_IRQ_STAT, SIL24_IRQ_COMPLETE | SIL24_IRQ_ERROR);
    activate(ap, 0, bus);
    for (;;) {
        stat = pread(ap, SIL24_PORT_IRQ_STAT);
        if (stat & done)
            break;
        if (ata_now(ap->host) >= deadline) {
            stat = 0;
            break;
        }
        ata_msleep(ap->host, SIL24_POLL_MS);
    }
    if (stat & done) {
        pwrite(ap, SIL24_PORT_IRQ_STAT, stat & done);
        rc = (stat & (SIL24_IRQ_ERROR << SIL24_IRQ_RAW_SHIFT)) ? -EIO : 0;
    } else {
        rc = -EBUSY;
    }
    pwrite(ap, SIL24_PORT_IRQ_ENABLE_SET, irq_enabled & (SIL24_IRQ_COMPLETE | SIL24_IRQ_ERROR));
    return rc;
}

/* SRST: the chip sends both Device Control FISes itself and keeps the signature FIS. */
static int sil24_softreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    struct ata_port *ap = link->ap;
    unsigned pmp = ata_link_pmp_port(link);
    struct ata_taskfile tf;
    uint8_t fis[20];
    int rc;

    if (sil24_init_port(ap))
        return ata_softreset_fail(link, -EIO, "port not ready");
    ata_tf_init(&link->device[0], &tf);
    rc = sil24_exec_polled(ap, SIL24_PRB_CTRL_SRST, &tf, pmp, deadline);
    if (rc == -EBUSY) {
        sil24_init_port(ap);
        return ata_softreset_fail(link, rc, "timeout");
    }
    if (rc)
        return ata_softreset_fail(link, rc, "SRST command error");
    read_lram_fis(ap, 0, fis);
    ata_tf_from_fis(fis, &tf);
    *cls = ata_dev_classify(&tf);
    return 0;
}

/* COMRESET through DEV_RST. The 3124 keeps no signature afterwards, so a link that comes
 * up always needs the follow-up softreset (-EAGAIN). */
static int sil24_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline)
{
    struct ata_port *ap = link->ap;
    const char *reason;
    bool retried = false;
    int rc;

    (void)cls;
    if (ppriv(ap)->do_port_rst) {
        const struct sata_trace_field f[] = { TF_HEX("ctrl", pread(ap, SIL24_PORT_CTRL_STAT)) };

        ata_port_ev(ap, ATA_EV("sil24.port_rst", SATA_TC_DECISION, SATA_LOG_WARN, f),
                    "controller in dubious state, performing PORT_RST");
        if (sil24_port_rst(ap)) {
            reason = "timeout waiting for port ready";
            goto err;
        }
    }
    /* DEV_RST negotiates within SControl.SPD: an EH speed limit must be there first
     * (libata's sil24_hardreset calls sata_set_spd too) */
    sata_set_spd(link);
retry:
    {
        unsigned tmout = ata_link_online(link) ? SIL24_TMOUT_DEV_RST_ONLINE : SIL24_TMOUT_DEV_RST_OFFLINE;

        pwrite(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_DEV_RST);
        port_wait(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_DEV_RST, 0, tmout);
    }
    /* SStatus oscillates for a while after DEV_RST */
    rc = sata_link_debounce(link, &sil24_deb_timing_long, deadline);
    if (pread(ap, SIL24_PORT_CTRL_STAT) & SIL24_CS_DEV_RST) {
        reason = "link not ready";
        goto err;
    }
    if (rc && rc != -EPIPE) {
        reason = "debounce failed";
        goto err;
    }
    if (ata_link_offline(link))
        return 0;
    return -EAGAIN;

err:
    if (!retried) {
        const struct sata_trace_field f[] = { TF_STR("reason", reason) };

        ata_port_ev(ap, ATA_EV("sil24.port_rst", SATA_TC_DECISION, SATA_LOG_WARN, f),
                    "controller in dubious state, performing PORT_RST");
        retried = true;
        if (!sil24_port_rst(ap))
            goto retry;
    }
    {
        const struct sata_trace_field f[] = { TF_STR("reason", reason) };

        ata_link_ev(link, ATA_EV("eh.hardreset_failed", SATA_TC_DECISION, SATA_LOG_ERR, f),
                    "hardreset failed (%s)", reason);
    }
    ppriv(ap)->do_port_rst = true;
    return -EIO;
}

static void sil24_post_internal_cmd(struct ata_queued_cmd *qc)
{
    struct ata_port *ap = qc->ap;

    /* a failed command leaves the port stopped: re-init it, freeze if that fails */
    if (qc->err_mask && sil24_init_port(ap))
        ata_eh_freeze_port(ap);
}

/* FIS-based switching: the commands EH took over may still run on the other disks behind
 * the PMP. INIT now would flush their slots while the disks still answer them (FISes for
 * no command: a protocol error and a PMP reset), so let them finish first, as libata's EH
 * starts only once every command has completed or failed; PMP_RESUME lets a port stopped
 * on one disk's error go on with the others (docs/hardware.md 6.7). The failed or vanished
 * disk's slots never finish: stop once the slot status has not moved for a while. */
static void sil24_pmp_drain(struct ata_port *ap)
{
    uint32_t last = 0;
    unsigned idle = 0;

    for (unsigned ms = 0; ms < SIL24_PMP_DRAIN_MAX_MS && idle < SIL24_PMP_DRAIN_IDLE_MS; ms++) {
        uint32_t ss = pread(ap, SIL24_PORT_SLOT_STAT);

        if (!(ss & SIL24_SLOT_MASK))
            return;
        if (ss & SIL24_SLOT_ATTN)
            pwrite(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_PMP_RESUME);
        idle = (ss & SIL24_SLOT_MASK) == last ? idle + 1 : 0;
        last = ss & SIL24_SLOT_MASK;
        ata_msleep(ap->host, 1);
    }
}

static void sil24_error_handler(struct ata_port *ap)
{
    if (sata_pmp_attached(ap))
        sil24_pmp_drain(ap);
    /* a port stopped on a command error resumes only after INIT */
    if (!(ap->pflags & ATA_PFLAG_FROZEN) && sil24_init_port(ap))
        ata_eh_freeze_port(ap);
    sata_pmp_error_handler(ap);
}

/* PMP_EN: the PM port of each command comes from byte 1 of its PRB FIS (docs/hardware.md 6.7). */
static void sil24_pmp_attach(struct ata_port *ap)
{
    pwrite(ap, SIL24_PORT_CTRL_STAT, SIL24_CS_PMP_EN);
}

static void sil24_pmp_detach(struct ata_port *ap)
{
    pwrite(ap, SIL24_PORT_CTRL_CLR, SIL24_CS_PMP_EN);
}

static const struct ata_port_operations sil24_ops = {
    .inherits = &sata_pmp_port_ops,
    /* Behind a PMP the chip switches per FIS: every PM port has its own device context
     * (docs/hardware.md 6.7), so commands to different fan-out links are outstanding together and
     * only the per-link rules apply (NCQ/non-NCQ exclusion per device, libata's sil24_qc_defer;
     * its exclusive-command rule for the LRAM-read erratum is for ATAPI and result-taskfile
     * passthrough commands, which this stack does not issue). Without a PMP: the same rules. */
    .qc_defer = ata_std_qc_defer,
    .pmp_attach = sil24_pmp_attach,
    .pmp_detach = sil24_pmp_detach,
    .qc_prep = sil24_qc_prep,
    .qc_issue = sil24_qc_issue,
    .qc_fill_rtf = sil24_qc_fill_rtf,
    .freeze = sil24_freeze,
    .thaw = sil24_thaw,
    .softreset = sil24_softreset,
    .hardreset = sil24_hardreset,
    .error_handler = sil24_error_handler,
    .post_internal_cmd = sil24_post_internal_cmd,
    .lost_interrupt = sil24_lost_interrupt,
    .scr_read = sil24_scr_read,
    .scr_write = sil24_scr_write,
    .port_start = sil24_port_start,
    .port_stop = sil24_port_stop,
    .host_start = sil24_host_start,
    .host_stop = sil24_host_stop,
    .irq_handler = sil24_interrupt,
};

/* ---- create ---- */

static const char create_failed_ev[] = "sil24.create_failed";

struct ata_host *sil24_host_create(struct sata_platform *p, const struct sata_platform_ops *pops,
                                   const struct ata_host_config *cfg)
{
    static const struct ata_host_config dflt;
    struct sil24_host_priv *hp;
    struct ata_host *h;
    uint32_t host_ctrl;

    if (!pops)
        return NULL;
    if (!cfg)
        cfg = &dflt;
    host_ctrl = pops->mmio_read32(p, SIL24_HOST_CTRL);
    if (host_ctrl == 0xffffffffu) {
        ata_report_create_failed(p, pops, create_failed_ev, "controller not responding");
        return NULL;
    }
    h = ata_host_alloc_priv(p, pops, &sil24_ops, SIL24_N_PORTS, sizeof(*hp), cfg, create_failed_ev);
    if (!h)
        return NULL;
    hp = h->private_data;
    /* the erratum only bites on PCI-X: the chip latched PCI-X signals at reset */
    hp->irq_woc = !cfg->no_irq_loss_fix &&
                  (host_ctrl & (SIL24_HCTRL_TRDY | SIL24_HCTRL_STOP | SIL24_HCTRL_DEVSEL));

    for (unsigned i = 0; i < SIL24_N_PORTS; i++) {
        struct ata_port *ap = &h->ports[i];

        ata_port_init_tags(ap, SIL24_N_SLOTS);
        ap->ncq_depth = cfg->no_ncq ? 0 : ap->tags.n_tags;
        ap->xfer_mask = (0x1fu << ATA_SHIFT_PIO) | (0x7u << ATA_SHIFT_MWDMA) | (0x3fu << ATA_SHIFT_UDMA);
        ap->max_segs = SIL24_MAX_SGE;
        ap->seg_max_bytes = SIL24_SGE_MAX_BYTES;
        if (cfg->port_mask && !(cfg->port_mask & (1u << i))) {
            ap->flags |= ATA_FLAG_DUMMY;
            continue;
        }
        /* native port multiplier support; its notifications arrive as SDB_NOTIFY */
        ap->flags |= ATA_FLAG_PMP | ATA_FLAG_AN;
        hp->host_ctrl_enable |= 1u << i;
        if (sil24_port_start(ap))
            return ata_host_create_failed(h, create_failed_ev, "failed to allocate port memory");
    }
    {
        const struct sata_trace_field f[] = {
            TF_INT("ports", SIL24_N_PORTS), TF_INT("slots", SIL24_N_SLOTS), TF_HEX("host_ctrl", host_ctrl),
            TF_BOOL("pcix", host_ctrl & (SIL24_HCTRL_TRDY | SIL24_HCTRL_STOP | SIL24_HCTRL_DEVSEL)),
        };
        ata_host_ev(h, ATA_EV("sil24.init", SATA_TC_INFO, SATA_LOG_INFO, f),
                    "SiI3124 %u ports %u slots %s Gbps%s", SIL24_N_PORTS, SIL24_N_SLOTS,
                    (host_ctrl & SIL24_HCTRL_GEN2) ? "3" : "1.5",
                    (host_ctrl & (SIL24_HCTRL_TRDY | SIL24_HCTRL_STOP | SIL24_HCTRL_DEVSEL)) ? " PCI-X" : "");
    }
    if (hp->irq_woc)
        ata_host_ev(h, ATA_EV0("sil24.errata", SATA_TC_DECISION, SATA_LOG_INFO),
                    "Applying completion IRQ loss on PCI-X errata fix");
    if (h->has_pci)
        for (unsigned i = 0; i < h->n_ports; i++) {
            char desc[96];

            if (h->ports[i].flags & ATA_FLAG_DUMMY) {
                ata_port_ev(&h->ports[i], ATA_EV0("probe.port_desc", SATA_TC_INFO, SATA_LOG_INFO), "DUMMY");
                continue;
            }
            /* sata_sil24's: the global BAR0 and the port's block in BAR2 */
            snprintf(desc, sizeof(desc), "host m%u@0x%llx port 0x%llx", h->pci.bar[0].len,
                     (unsigned long long)h->pci.bar[0].start,
                     (unsigned long long)(h->pci.bar[2].start + 0x2000ull * i));
            ata_port_pci_desc(&h->ports[i], "SATA", desc);
        }
    ata_host_force_spd_limit(h, cfg->spd_limit);
    return h;
}

/* sata_sil24's PCI IDs: the SiI3124 (and Intel's), 3132, 3131/3531 and their variants. */
static const struct ata_pci_device_id sil24_pci_tbl[] = {
    { 0x1095, 0x3124, 0, 0, 0 }, { 0x8086, 0x3124, 0, 0, 0 }, { 0x1095, 0x3132, 0, 0, 0 },
    { 0x1095, 0x0242, 0, 0, 0 }, { 0x1095, 0x0244, 0, 0, 0 }, { 0x1095, 0x3131, 0, 0, 0 },
    { 0x1095, 0x3531, 0, 0, 0 }, { 0, 0, 0, 0, 0 },
};

/* msi false: sata_sil24's msi module parameter is off by default (the chip has the capability) */
const struct ata_pci_driver sil24_pci_driver = {
    .name = "sata_sil24", .create_name = "sil24_host_create", .create = sil24_host_create,
    .id_table = sil24_pci_tbl, .msi = false,
};
