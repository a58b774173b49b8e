/* AHCI driver pieces that do not need a controller to answer: what create reads from
 * CAP/PI and allocates, and the bytes qc_prep/qc_issue put in memory and registers. */
#include <string.h>

#include "tests.h"
#include "ahci.h"

/* 64-bit, NCQ, CLO, 6 Gbps, 32 slots, 6 ports */
#define CAP_6P 0xc1301f05u

static void regs(struct sata_platform *p, uint32_t cap, uint32_t pi)
{
    fake_init(p);
    p->mmio[HOST_CAP / 4] = cap;
    p->mmio[HOST_CTL / 4] = HOST_AHCI_EN;
    p->mmio[HOST_PORTS_IMPL / 4] = pi;
    p->mmio[HOST_VERSION / 4] = 0x00010301;
}

START_TEST(create_reads_caps)
{
    struct sata_platform p;
    struct ata_host_config cfg = { 0 };
    struct ata_host *h;
    const struct fake_event *e;

    regs(&p, CAP_6P, 0x3f);
    h = ahci_host_create(&p, &fake_ops, &cfg);
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(ata_host_n_ports(h), 6);
    for (unsigned i = 0; i < 6; i++) {
        ck_assert(!(h->ports[i].flags & ATA_FLAG_DUMMY));
        ck_assert_uint_eq(h->ports[i].tags.n_tags, 32);
        ck_assert_uint_eq(h->ports[i].tags.int_hw, 0); /* libata-modern: slot 0 for EH */
        ck_assert_uint_eq(h->ports[i].ncq_depth, 32);
        ck_assert(h->ports[i].pflags & ATA_PFLAG_FROZEN);
        ck_assert_ptr_null(ata_host_device(h, i, -1, 0)); /* nothing probed yet */
    }
    for (unsigned i = 0; i < 6; i++) {
        const struct plat_dma_buf *m = fake_nth_alloc(&p, AHCI_PORT_PRIV_DMA_SZ, i);

        ck_assert_ptr_nonnull(m);
        ck_assert_uint_eq(m->bus % 1024, 0);
    }
    e = fake_find(&p, "ahci.init");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->msg, "AHCI 0001.0301 32 slots 6 ports 6 Gbps 0x3f impl SATA mode");
    ck_assert_int_eq(e->port, -1);
    ck_assert_str_eq(fake_find(&p, "ahci.flags")->msg, "flags: 64bit ncq clo");
    ata_host_destroy(h);
    fake_check_all_freed(&p);
}
END_TEST

START_TEST(port_mask_no_ncq_and_holes)
{
    struct sata_platform p;
    struct ata_host_config cfg = { .no_ncq = true, .port_mask = 0x5 };
    struct ata_host *h;

    regs(&p, CAP_6P, 0x3f);
    h = ahci_host_create(&p, &fake_ops, &cfg);
    ck_assert_ptr_nonnull(h);
    for (unsigned i = 0; i < 6; i++) {
        ck_assert_int_eq(!(h->ports[i].flags & ATA_FLAG_DUMMY), i == 0 || i == 2);
        ck_assert_uint_eq(h->ports[i].ncq_depth, 0);
    }
    ck_assert_ptr_nonnull(fake_nth_alloc(&p, AHCI_PORT_PRIV_DMA_SZ, 1));
    ck_assert_ptr_null(fake_nth_alloc(&p, AHCI_PORT_PRIV_DMA_SZ, 2));
    ata_host_destroy(h);

    /* PI with a hole beyond CAP.NP: ports up to the highest PI bit, gaps dummy */
    regs(&p, 0x40001f00u, 0x21);
    p.bus_base = 0x10000000u; /* no CAP.S64A: the port memory must lie below 4 GiB */
    h = ahci_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(ata_host_n_ports(h), 6);
    ck_assert(!(h->ports[0].flags & ATA_FLAG_DUMMY));
    ck_assert(h->ports[3].flags & ATA_FLAG_DUMMY);
    ck_assert(!(h->ports[5].flags & ATA_FLAG_DUMMY));
    ata_host_destroy(h);
    ck_assert_uint_eq(p.live_allocs, 0);
}
END_TEST

/* A controller that is gone (surprise removal, a dead QEMU) reads all ones: the handler
 * leaves it alone instead of taking every port's PxIS for errors. */
START_TEST(interrupt_from_a_gone_controller_is_ignored)
{
    struct sata_platform p;
    struct ata_host *h;

    regs(&p, CAP_6P, 0x3f);
    h = ahci_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    for (unsigned i = 0; i < sizeof(p.mmio) / sizeof(p.mmio[0]); i++)
        p.mmio[i] = 0xffffffffu;
    p.n_wlog = 0;
    h->ops->irq_handler(h);
    ck_assert_uint_eq(p.n_wlog, 0);
    for (unsigned i = 0; i < 6; i++)
        ck_assert(!(h->ports[i].pflags & ATA_PFLAG_EH_PENDING));
    ata_host_destroy(h);
}
END_TEST

/* CAP.NCS = 0: one command slot. EH's internal command shares slot 0 with the one
 * normal tag (AHCI 1.3.1 3.1.1; libata issues the internal command on hw tag 0). */
START_TEST(create_single_slot)
{
    struct sata_platform p;
    struct ata_host *h;

    regs(&p, 0x40000000u, 0x1);
    p.bus_base = 0x10000000u; /* no CAP.S64A: the port memory must lie below 4 GiB */
    h = ahci_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(h->ports[0].tags.n_tags, 1);
    ck_assert_uint_eq(h->ports[0].tags.int_hw, 0);
    ck_assert_str_eq(fake_find(&p, "ahci.init")->msg, "AHCI 0001.0301 1 slots 1 ports ? Gbps 0x1 impl SATA mode");
    ck_assert_ptr_null(fake_find(&p, "ahci.quirk")); /* CAP said it: no quirk needed */
    ata_host_destroy(h);
    ck_assert_uint_eq(p.live_allocs, 0);
}
END_TEST

/* Quirks (ata_host_config.quirks, libata ahci's hflags) take away what CAP advertises: the
 * driver acts on the quirked CAP and logs one line per feature it turned off. */
START_TEST(quirks_override_cap)
{
    struct sata_platform p;
    struct ata_host_config cfg = { .quirks = ATA_HQ_NO_NCQ | ATA_HQ_32BIT_ONLY | ATA_HQ_SINGLE_SLOT | ATA_HQ_NO_PMP,
                                   .only_gen = 2 };
    const uint32_t cap = CAP_6P | HOST_CAP_PMP | HOST_CAP_FBS | HOST_CAP_SNTF;
    struct ata_host *h;

    regs(&p, cap, 0x3);
    p.bus_base = 0x10000000u; /* below 4 GiB */
    h = ahci_host_create(&p, &fake_ops, &cfg);
    ck_assert_ptr_nonnull(h);
    for (unsigned i = 0; i < 2; i++) {
        const struct ata_port *ap = &h->ports[i];

        ck_assert_uint_eq(ap->tags.n_tags, 1);
        ck_assert_uint_eq(ap->ncq_depth, 0);
        ck_assert_uint_eq(ap->dma_mask, 0xffffffffu);
        ck_assert(!(ap->flags & (ATA_FLAG_PMP | ATA_FLAG_AN)));
        ck_assert_uint_eq(ap->link.sata_spd_limit, 0x2); /* Gen2 and nothing else */
    }
    ck_assert_ptr_null(fake_nth_alloc(&p, AHCI_RX_FIS_FBS_SZ, 0)); /* no FBS areas without PMP */
    ck_assert_str_eq(fake_find_nth(&p, "ahci.quirk", 0)->msg, "controller can't do NCQ, turning off CAP_NCQ");
    ck_assert_str_eq(fake_find_nth(&p, "ahci.quirk", 1)->msg, "controller can't do 64bit DMA, forcing 32bit");
    ck_assert_str_eq(fake_find_nth(&p, "ahci.quirk", 2)->msg, "controller can't do PMP, turning off CAP_PMP");
    ck_assert_str_eq(fake_find_nth(&p, "ahci.quirk", 3)->msg, "controller has one command slot, ignoring CAP.NCS");
    ck_assert_ptr_null(fake_find_nth(&p, "ahci.quirk", 4));
    ck_assert_str_eq(fake_find(&p, "ahci.flags")->msg, "flags: sntf clo");
    ck_assert_str_eq(fake_find(&p, "host.fixed_spd")->msg, "controller PHY runs 3.0 Gbps only, no speed-down");
    ata_host_destroy(h);
    ck_assert_uint_eq(p.live_allocs, 0);

    /* 32-bit only, but the allocator put the command list above 4 GiB: the HBA could not
     * reach it, so create fails instead of programming a truncated PxCLB */
    regs(&p, cap, 0x1);
    p.bus_base = 0x100000000ull;
    cfg.quirks = ATA_HQ_32BIT_ONLY;
    ck_assert_ptr_null(ahci_host_create(&p, &fake_ops, &cfg));
    ck_assert_ptr_nonnull(fake_find(&p, "ahci.create_failed"));
    ck_assert_uint_eq(p.live_allocs, 0);
    /* a 64-bit HBA takes the same memory */
    regs(&p, cap, 0x1);
    p.bus_base = 0x100000000ull;
    cfg.quirks = 0;
    h = ahci_host_create(&p, &fake_ops, &cfg);
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(h->ports[0].dma_mask, 0);
    ata_host_destroy(h);
    ck_assert_uint_eq(p.live_allocs, 0);
}
END_TEST

START_TEST(prep_and_issue_ncq)
{
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_queued_cmd *qc;
    const struct ata_sg sg[] = { { 0x40000, 4096 }, { 0x50000, 4096 } };
    const struct plat_dma_buf *mem;
    struct ata_bio bio = { .op = ATA_BIO_WRITE, .mode = ATA_IO_NCQ, .lba = 0x1234, .n_sectors = 16 };
    const uint8_t *slot, *tbl;
    uint8_t fis[20];
    uint64_t tbl_bus;
    unsigned n_w;

    regs(&p, CAP_6P, 0x1);
    h = ahci_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ap = &h->ports[0];
    mem = fake_nth_alloc(&p, AHCI_PORT_PRIV_DMA_SZ, 0);
    ap->link.device[0].class = ATA_DEV_ATA;
    ap->link.device[0].flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | ATA_DFLAG_LBA48 |
                               ATA_DFLAG_DMA | ATA_DFLAG_NCQ;
    ap->link.device[0].n_sectors = 1u << 20;
    ap->link.device[0].max_sectors = 65535;

    qc = &ap->qcmd[3];
    qc->dev = &ap->link.device[0];
    qc->sg = sg;
    qc->n_sg = 2;
    qc->nbytes = 16 * 512;
    ck_assert_int_eq(ata_bio_build_tf(qc->dev, &bio, 3, &qc->tf), 0);
    ap->ops->qc_prep(qc);

    slot = (const uint8_t *)mem->cpu + 3 * AHCI_CMD_SLOT_SZ;
    tbl_bus = mem->bus + AHCI_CMD_TBL_OFF + 3 * AHCI_CMD_TBL_SZ;
    ck_assert_uint_eq(le32(slot), AHCI_CMD_FIS_LEN | AHCI_CMD_WRITE | 2u << 16);
    ck_assert_uint_eq(le32(slot + 4), 0);
    ck_assert_uint_eq(le32(slot + 8), (uint32_t)tbl_bus);
    ck_assert_uint_eq(le32(slot + 12), (uint32_t)(tbl_bus >> 32));
    ck_assert_uint_eq(tbl_bus % 128, 0);
    tbl = (const uint8_t *)mem->cpu + AHCI_CMD_TBL_OFF + 3 * AHCI_CMD_TBL_SZ;
    ata_tf_to_fis(&qc->tf, 0, true, fis);
    ck_assert_mem_eq(tbl, fis, 20);
    ck_assert_uint_eq(tbl[12], 3 << 3);
    ck_assert_uint_eq(le32(tbl + 0x80), 0x40000);
    ck_assert_uint_eq(le32(tbl + 0x80 + 12), 4095);
    ck_assert_uint_eq(le32(tbl + 0x90), 0x50000);

    n_w = p.n_wlog;
    ck_assert_uint_eq(ap->ops->qc_issue(qc), 0);
    ck_assert_uint_eq(p.n_wlog, n_w + 2);
    ck_assert_uint_eq(p.wlog_off[n_w], AHCI_PORT_BASE(0) + PORT_SCR_ACT);
    ck_assert_uint_eq(p.wlog_val[n_w], 1u << 3);
    ck_assert_uint_eq(p.wlog_off[n_w + 1], AHCI_PORT_BASE(0) + PORT_CMD_ISSUE);
    ck_assert_uint_eq(p.wlog_val[n_w + 1], 1u << 3);
    ata_host_destroy(h);
}
END_TEST

/* Issue 17 item 1: PxCI is only fetched while PxCMD.ST is set (AHCI 1.3.1 3.3.14). An EH
 * command on the reserved tag given to a stopped engine is refused at once instead of being
 * written to PxCI, where it would wait for its timeout; with ST set it goes out. */
START_TEST(internal_cmd_refused_with_engine_stopped)
{
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_queued_cmd *qc;
    unsigned tag, n_w;

    regs(&p, CAP_6P, 0x1);
    h = ahci_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ap = &h->ports[0];
    tag = ATA_TAG_INTERNAL;
    qc = &ap->qcmd[tag];
    qc->ap = ap;
    qc->tag = tag;
    qc->hw_tag = ap->tags.int_hw;
    qc->dev = &ap->link.device[0];
    ata_tf_init(qc->dev, &qc->tf);
    qc->tf.command = ATA_CMD_PMP_READ;
    ap->ops->qc_prep(qc);

    p.mmio[(AHCI_PORT_BASE(0) + PORT_CMD) / 4] &= ~PORT_CMD_START;
    n_w = p.n_wlog;
    ck_assert_uint_eq(ap->ops->qc_issue(qc), AC_ERR_SYSTEM);
    ck_assert_uint_eq(p.n_wlog, n_w); /* PxCI untouched */

    p.mmio[(AHCI_PORT_BASE(0) + PORT_CMD) / 4] |= PORT_CMD_START;
    ck_assert_uint_eq(ap->ops->qc_issue(qc), 0);
    ck_assert_uint_eq(p.n_wlog, n_w + 1);
    ck_assert_uint_eq(p.wlog_off[n_w], AHCI_PORT_BASE(0) + PORT_CMD_ISSUE);
    ck_assert_uint_eq(p.wlog_val[n_w], 1u << qc->hw_tag); /* the internal command's slot */
    ata_host_destroy(h);
}
END_TEST

/* ATA_HQ_ONCHIP_CMD_AREA: the command list and RX FIS area are the HBA's RAM in its register
 * window (here the fake's register array). Headers go there through MMIO, results come from
 * there, the D2H pre-load of a hard reset too; only the command tables are system memory. */
enum { OC_CLB = 0x1000, OC_FB = 0x1400, OC_STRIDE = 0x800 };

static struct ata_host *onchip_host(struct sata_platform *p, uint32_t cap)
{
    struct ata_host_config cfg = { .quirks = ATA_HQ_ONCHIP_CMD_AREA,
                                   .onchip = { .clb = OC_CLB, .fb = OC_FB, .stride = OC_STRIDE } };

    regs(p, cap, 0x3);
    return ahci_host_create(p, &fake_ops, &cfg);
}

START_TEST(onchip_create)
{
    struct sata_platform p;
    struct ata_host_config cfg = { .quirks = ATA_HQ_ONCHIP_CMD_AREA, .onchip = { .clb = 0x200, .fb = 0x1400 } };
    struct ata_host *h = onchip_host(&p, CAP_6P | HOST_CAP_PMP | HOST_CAP_FBS);

    ck_assert_ptr_nonnull(h);
    /* no command list / RX area in memory, no FBS areas: 32 command tables per port */
    ck_assert_ptr_null(fake_nth_alloc(&p, AHCI_PORT_PRIV_DMA_SZ, 0));
    ck_assert_ptr_null(fake_nth_alloc(&p, AHCI_RX_FIS_FBS_SZ, 0));
    ck_assert_ptr_nonnull(fake_nth_alloc(&p, AHCI_MAX_CMDS * AHCI_CMD_TBL_SZ, 1));
    ck_assert_uint_eq(fake_nth_alloc(&p, AHCI_MAX_CMDS * AHCI_CMD_TBL_SZ, 0)->bus % 128, 0);
    ck_assert_str_eq(fake_find(&p, "ahci.onchip")->msg,
                     "command list at 0x1000, FIS area at 0x1400 (port stride 0x800) in the register window");
    ck_assert_str_eq(fake_find(&p, "ahci.quirk")->msg,
                     "controller has one FIS area per port on chip, turning off CAP_FBS");
    ata_host_destroy(h);
    ck_assert_uint_eq(p.live_allocs, 0);

    /* a command list on top of the port registers is refused at create */
    regs(&p, CAP_6P, 0x3);
    ck_assert_ptr_null(ahci_host_create(&p, &fake_ops, &cfg));
    ck_assert_ptr_nonnull(fake_find(&p, "ahci.create_failed"));
    ck_assert_uint_eq(p.live_allocs, 0);
}
END_TEST

START_TEST(onchip_prep_and_results)
{
    struct sata_platform p;
    struct ata_host *h = onchip_host(&p, CAP_6P);
    struct ata_port *ap;
    struct ata_queued_cmd *qc;
    const struct ata_sg sg[] = { { 0x40000, 4096 } };
    struct ata_bio bio = { .op = ATA_BIO_READ, .mode = ATA_IO_DMA, .lba = 0x1234, .n_sectors = 8 };
    const struct plat_dma_buf *tbls;
    const uint32_t *cl;
    uint64_t tbl_bus;
    uint8_t fis_h2d[20];
    unsigned n_w;

    ck_assert_ptr_nonnull(h);
    ap = &h->ports[1]; /* port 1: its areas one stride up */
    tbls = fake_nth_alloc(&p, AHCI_MAX_CMDS * AHCI_CMD_TBL_SZ, 1);
    cl = &p.mmio[(OC_CLB + OC_STRIDE) / 4];
    ap->link.device[0].class = ATA_DEV_ATA;
    ap->link.device[0].flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | ATA_DFLAG_LBA48 | ATA_DFLAG_DMA;
    ap->link.device[0].n_sectors = 1u << 20;
    ap->link.device[0].max_sectors = 65535;
    qc = &ap->qcmd[5];
    qc->ap = ap;
    qc->dev = &ap->link.device[0];
    qc->hw_tag = 5;
    qc->sg = sg;
    qc->n_sg = 1;
    qc->nbytes = 8 * 512;
    ck_assert_int_eq(ata_bio_build_tf(qc->dev, &bio, 5, &qc->tf), 0);

    /* slot 5's header: 8 dword writes into the on-chip list, the table in memory */
    n_w = p.n_wlog;
    ap->ops->qc_prep(qc);
    tbl_bus = tbls->bus + 5 * AHCI_CMD_TBL_SZ;
    ck_assert_uint_eq(p.n_wlog, n_w + 8);
    for (unsigned i = 0; i < 8; i++)
        ck_assert_uint_eq(p.wlog_off[n_w + i], OC_CLB + OC_STRIDE + 5 * AHCI_CMD_SLOT_SZ + 4 * i);
    ck_assert_uint_eq(cl[5 * 8], AHCI_CMD_FIS_LEN | 1u << 16);
    ck_assert_uint_eq(cl[5 * 8 + 1], 0); /* PRDBC */
    ck_assert_uint_eq(cl[5 * 8 + 2], (uint32_t)tbl_bus);
    ck_assert_uint_eq(cl[5 * 8 + 3], (uint32_t)(tbl_bus >> 32));
    ata_tf_to_fis(&qc->tf, 0, true, fis_h2d);
    ck_assert_mem_eq((const uint8_t *)tbls->cpu + 5 * AHCI_CMD_TBL_SZ, fis_h2d, 20);
    ck_assert_uint_eq(le32((const uint8_t *)tbls->cpu + 5 * AHCI_CMD_TBL_SZ + 0x80), 0x40000);

    /* the D2H Register FIS the HBA posted on chip is the result (status 51h, error 04h) */
    p.mmio[(OC_FB + OC_STRIDE + RX_FIS_D2H_REG) / 4] = 0x34u | 0x51u << 16 | 0x04u << 24;
    p.mmio[(OC_FB + OC_STRIDE + RX_FIS_D2H_REG) / 4 + 1] = 0x00563412u;
    ap->ops->qc_fill_rtf(qc);
    ck_assert_uint_eq(qc->result_tf.command, 0x51);
    ck_assert_uint_eq(qc->result_tf.feature, 0x04);
    ck_assert_uint_eq(qc->result_tf.lbal, 0x12);
    ck_assert_uint_eq(qc->result_tf.lbah, 0x56);
    /* a good PIO read ends with PIO Setup's E_Status (byte 15) */
    qc->tf.protocol = ATA_PROT_PIO;
    p.mmio[(OC_FB + OC_STRIDE + RX_FIS_PIO_SETUP + 12) / 4] = 0x50u << 24;
    ap->ops->qc_fill_rtf(qc);
    ck_assert_uint_eq(qc->result_tf.command, 0x50);
    /* an NCQ command's status is the SDB FIS's */
    qc->tf.protocol = ATA_PROT_NCQ;
    p.mmio[(OC_FB + OC_STRIDE + RX_FIS_SDB) / 4] = 0xa1u | 0x41u << 16 | 0x10u << 24;
    ap->ops->qc_fill_rtf(qc);
    ck_assert_uint_eq(qc->result_tf.command, 0x41);
    ck_assert_uint_eq(qc->result_tf.feature, 0x10);
    /* port 0's areas were never touched */
    for (unsigned i = 0; i < OC_STRIDE / 4; i++)
        ck_assert_uint_eq(p.mmio[OC_CLB / 4 + i], 0);
    ata_host_destroy(h);
}
END_TEST

/* An unknown FIS (PxIS.UFS) is named from the on-chip area's U-FIS bytes: four dwords, as libahci. */
START_TEST(onchip_unknown_fis)
{
    struct sata_platform p;
    struct ata_host *h = onchip_host(&p, CAP_6P);
    const struct ata_port *ap;

    ck_assert_ptr_nonnull(h);
    ap = &h->ports[0];
    p.mmio[(OC_FB + RX_FIS_UNK) / 4] = 0xdeadbeefu;
    p.mmio[(OC_FB + RX_FIS_UNK) / 4 + 3] = 0x0f0e0d0cu;
    p.mmio[HOST_IRQ_STAT / 4] = 1;
    p.mmio[(AHCI_PORT_BASE(0) + PORT_IRQ_STAT) / 4] = PORT_IRQ_UNK_FIS;
    h->ops->irq_handler(h);
    ck_assert(ap->pflags & ATA_PFLAG_FROZEN);
    ck_assert_ptr_nonnull(strstr(ap->link.eh_info.desc, "unknown FIS deadbeef 00000000 00000000 0f0e0d0c"));
    ata_host_destroy(h);
}
END_TEST


/* libahci's ahci_set_lpm against the registers (AHCI 1.3.1 3.3.7, 3.3.11): min_power with
 * HIPM sets ALPE and ASP, SControl.IPM 0 and masks PxIE.PRCE; medium_power ALPE without ASP
 * and IPM 6h; a device without HIPM gets no ALPE, ICC Active instead; max_performance clears
 * ALPE/ASP, asks ICC Active, sets IPM 7h and unmasks PRCE. DIAG.N is written to clear it. */
START_TEST(set_lpm_programs_alpe_ipm_and_prce)
{
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    const uint32_t pb = AHCI_PORT_BASE(0);
#define PREG(r) p.mmio[(pb + (r)) / 4]

    regs(&p, CAP_6P | HOST_CAP_ALPM | HOST_CAP_SSC | HOST_CAP_PART, 0x1);
    h = ahci_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ap = &h->ports[0];
    ck_assert_ptr_nonnull(h->ops->set_lpm);
    ck_assert_ptr_nonnull(strstr(fake_find(&p, "ahci.flags")->msg, "pm"));
    ck_assert_ptr_nonnull(strstr(fake_find(&p, "ahci.flags")->msg, "slum part"));
    ap->link.device[0].flags |= ATA_DFLAG_ENABLED;
    PREG(PORT_SCR_CTL) = 0x300;
    PREG(PORT_CMD) = PORT_CMD_FIS_RX | PORT_CMD_START;

    ck_assert_int_eq(h->ops->set_lpm(&ap->link, ATA_LPM_MIN_POWER, ATA_LPM_HIPM), 0);
    ck_assert_uint_eq(PREG(PORT_CMD) & (PORT_CMD_ALPE | PORT_CMD_ASP), PORT_CMD_ALPE | PORT_CMD_ASP);
    ck_assert_uint_eq(PREG(PORT_SCR_CTL) & 0xf00, 0);
    ck_assert_uint_eq(PREG(PORT_IRQ_MASK) & PORT_IRQ_PHYRDY, 0);
    ck_assert_uint_eq(PREG(PORT_SCR_ERR), 1u << 16);

    PREG(PORT_SCR_CTL) = 0x300;
    PREG(PORT_CMD) = PORT_CMD_FIS_RX | PORT_CMD_START;
    ck_assert_int_eq(h->ops->set_lpm(&ap->link, ATA_LPM_MED_POWER, ATA_LPM_HIPM), 0);
    ck_assert_uint_eq(PREG(PORT_CMD) & (PORT_CMD_ALPE | PORT_CMD_ASP), PORT_CMD_ALPE);
    ck_assert_uint_eq(PREG(PORT_SCR_CTL) & 0xf00, 0x600);

    PREG(PORT_CMD) = PORT_CMD_FIS_RX | PORT_CMD_START;
    ck_assert_int_eq(h->ops->set_lpm(&ap->link, ATA_LPM_MIN_POWER, 0), 0); /* no HIPM */
    ck_assert_uint_eq(PREG(PORT_CMD) & (PORT_CMD_ALPE | PORT_CMD_ASP), 0);
    ck_assert_uint_eq(PREG(PORT_CMD) & PORT_CMD_ICC_MASK, PORT_CMD_ICC_ACTIVE);

    PREG(PORT_CMD) = PORT_CMD_FIS_RX | PORT_CMD_START | PORT_CMD_ALPE | PORT_CMD_ASP;
    ck_assert_int_eq(h->ops->set_lpm(&ap->link, ATA_LPM_MAX_POWER, ATA_LPM_HIPM), 0);
    ck_assert_uint_eq(PREG(PORT_CMD) & (PORT_CMD_ALPE | PORT_CMD_ASP), 0);
    ck_assert_uint_eq(PREG(PORT_CMD) & PORT_CMD_ICC_MASK, PORT_CMD_ICC_ACTIVE);
    ck_assert_uint_eq(PREG(PORT_SCR_CTL) & 0xf00, 0x700);
    ck_assert(PREG(PORT_IRQ_MASK) & PORT_IRQ_PHYRDY);

    /* the PhyRdy interrupt: ignored under LPM (DIAG.N cleared), a hotplug without it */
    ap->link.lpm_policy = ATA_LPM_MIN_POWER;
    ck_assert(sata_lpm_ignore_phy_events(&ap->link));
    ap->link.lpm_policy = ATA_LPM_MAX_POWER;
    ck_assert(!sata_lpm_ignore_phy_events(&ap->link));
    ck_assert_int_eq(ata_lpm_policy_from_name("med_power_with_dipm"), ATA_LPM_MED_POWER_WITH_DIPM);
    ck_assert_int_eq(ata_lpm_policy_from_name("min_power"), ATA_LPM_MIN_POWER);
    ck_assert_int_eq(ata_lpm_policy_from_name(""), ATA_LPM_UNKNOWN);
    ck_assert_int_eq(ata_lpm_policy_from_name("max_power"), ATA_LPM_UNKNOWN); /* not a sysfs name */
#undef PREG
    ata_host_destroy(h);
}
END_TEST

Suite *ahci_suite(void)
{
    Suite *s = suite_create("ahci");
    TCase *tc = tcase_create("create");

    tcase_add_test(tc, create_reads_caps);
    tcase_add_test(tc, port_mask_no_ncq_and_holes);
    tcase_add_test(tc, create_single_slot);
    tcase_add_test(tc, quirks_override_cap);
    tcase_add_test(tc, interrupt_from_a_gone_controller_is_ignored);
    tcase_add_test(tc, prep_and_issue_ncq);
    tcase_add_test(tc, internal_cmd_refused_with_engine_stopped);
    tcase_add_test(tc, onchip_create);
    tcase_add_test(tc, onchip_prep_and_results);
    tcase_add_test(tc, onchip_unknown_fis);
    tcase_add_test(tc, set_lpm_programs_alpe_ipm_and_prce);
    suite_add_tcase(s, tc);
    return s;
}
