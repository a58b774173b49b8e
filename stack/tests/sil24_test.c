/* sil24 driver pieces that need no controller: create (PCI-X detection, errata flag, port
 * memory), PRB/SGE building for ATA, NCQ and non-data commands, the activation writes, the
 * PORT_CMD_ERR decode table and the result taskfile read from LRAM. */
#include <string.h>

#include "tests.h"
#include "sil24.h"

#define PCIX_CTRL 0x011f0000u /* latched PCI-X signals + 3 Gb/s, as the model powers up */

static void regs(struct sata_platform *p, uint32_t host_ctrl)
{
    fake_init(p);
    p->mmio[SIL24_HOST_CTRL / 4] = host_ctrl;
}

static void setup_dev(struct ata_port *ap)
{
    ap->link.device[0].class = ATA_DEV_ATA;
    ap->link.device[0].flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | ATA_DFLAG_LBA48 | ATA_DFLAG_DMA | ATA_DFLAG_NCQ;
    ap->link.device[0].n_sectors = 1u << 20;
    ap->link.device[0].max_sectors = 65535;
}

START_TEST(create_pcix_applies_errata_fix)
{
    struct sata_platform p;
    struct ata_host *h;

    regs(&p, PCIX_CTRL);
    h = sil24_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(ata_host_n_ports(h), 4);
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_uint_eq(h->ports[i].tags.n_tags, 31);
        ck_assert_uint_eq(h->ports[i].tags.int_hw, 0);
        ck_assert_uint_eq(h->ports[i].ncq_depth, 31);
        ck_assert_uint_eq(h->ports[i].max_segs, SIL24_MAX_SGE);
        ck_assert_ptr_nonnull(fake_nth_alloc(&p, SIL24_PORT_PRIV_DMA_SZ, i));
    }
    ck_assert_str_eq(fake_find(&p, "sil24.init")->msg, "SiI3124 4 ports 31 slots 3 Gbps PCI-X");
    ck_assert_str_eq(fake_find(&p, "sil24.errata")->msg,
                     "Applying completion IRQ loss on PCI-X errata fix");
    ata_host_destroy(h);
    fake_check_all_freed(&p);
}
END_TEST

START_TEST(create_without_fix_or_pcix)
{
    struct sata_platform p;
    struct ata_host_config cfg = { .no_irq_loss_fix = true, .no_ncq = true, .port_mask = 0x2 };
    struct ata_host *h;

    regs(&p, PCIX_CTRL);
    h = sil24_host_create(&p, &fake_ops, &cfg);
    ck_assert_ptr_nonnull(h);
    ck_assert_ptr_null(fake_find(&p, "sil24.errata"));
    ck_assert(h->ports[0].flags & ATA_FLAG_DUMMY);
    ck_assert(!(h->ports[1].flags & ATA_FLAG_DUMMY));
    ck_assert_uint_eq(h->ports[1].ncq_depth, 0);
    ck_assert_ptr_null(fake_nth_alloc(&p, SIL24_PORT_PRIV_DMA_SZ, 1));
    ata_host_destroy(h);

    regs(&p, SIL24_HCTRL_GEN2); /* plain PCI: nothing to work around */
    h = sil24_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ck_assert_ptr_null(fake_find(&p, "sil24.errata"));
    ck_assert_str_eq(fake_find(&p, "sil24.init")->msg, "SiI3124 4 ports 31 slots 3 Gbps");
    ata_host_destroy(h);
    ck_assert_uint_eq(p.live_allocs, 0);
}
END_TEST

/* The EH profile is the host's, as on AHCI: a named one is used, an unknown one refused. */
START_TEST(create_takes_eh_policy)
{
    struct sata_platform p;
    struct ata_host_config cfg = { .eh_policy = "libata-2006" };
    struct ata_host *h;

    regs(&p, PCIX_CTRL);
    h = sil24_host_create(&p, &fake_ops, &cfg);
    ck_assert_ptr_nonnull(h);
    ck_assert_ptr_eq(h->eh_policy, ata_eh_policy_find("libata-2006"));
    ata_host_destroy(h);

    regs(&p, PCIX_CTRL);
    cfg.eh_policy = "libata-2099";
    ck_assert_ptr_null(sil24_host_create(&p, &fake_ops, &cfg));
    ck_assert_ptr_nonnull(fake_find(&p, "eh.unknown_policy"));
    ck_assert_str_eq(fake_find(&p, "sil24.create_failed")->msg, "EH policy not available");
    ck_assert_uint_eq(p.live_allocs, 0);
}
END_TEST

START_TEST(prep_and_issue_ncq_write)
{
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_queued_cmd *qc;
    const struct ata_sg sg[] = { { 0x40000, 4096 }, { 0x50000, 6u << 20 } };
    struct ata_bio bio = { .op = ATA_BIO_WRITE, .mode = ATA_IO_NCQ, .lba = 0x1234, .n_sectors = 8 + 12288 };
    const struct plat_dma_buf *mem;
    const uint8_t *blk;
    uint8_t fis[20];
    uint64_t blk_bus;
    unsigned n_w;

    regs(&p, PCIX_CTRL);
    h = sil24_host_create(&p, &fake_ops, NULL);
    ap = &h->ports[2];
    setup_dev(ap);
    mem = fake_nth_alloc(&p, SIL24_PORT_PRIV_DMA_SZ, 2);
    qc = &ap->qcmd[5];
    qc->dev = &ap->link.device[0];
    qc->sg = sg;
    qc->n_sg = 2;
    qc->nbytes = bio.n_sectors * 512;
    ck_assert_int_eq(ata_bio_build_tf(qc->dev, &bio, 5, &qc->tf), 0);
    ap->ops->qc_prep(qc);

    blk = (const uint8_t *)mem->cpu + 5 * SIL24_CMD_BLOCK_SZ;
    blk_bus = mem->bus + 5 * SIL24_CMD_BLOCK_SZ;
    ck_assert_uint_eq(blk_bus % 8, 0);
    ck_assert_uint_eq(le16(blk + SIL24_PRB_CTRL), SIL24_PRB_CTRL_PROTOCOL);
    ck_assert_uint_eq(le16(blk + SIL24_PRB_PROT), SIL24_PRB_PROT_NCQ | SIL24_PRB_PROT_WRITE);
    ck_assert_uint_eq(le32(blk + SIL24_PRB_XFER), 0);
    ata_tf_to_fis(&qc->tf, 0, true, fis);
    ck_assert_mem_eq(blk + SIL24_PRB_FIS, fis, 20);
    ck_assert_uint_eq(blk[SIL24_PRB_FIS + 12], 5 << 3);
    /* SGEs: 4 KiB, then the 6 MiB piece split at 4 MiB; TRM only on the last */
    ck_assert_uint_eq(le32(blk + 0x20), 0x40000);
    ck_assert_uint_eq(le32(blk + 0x28), 4096);
    ck_assert_uint_eq(le32(blk + 0x2c), 0);
    ck_assert_uint_eq(le32(blk + 0x30), 0x50000);
    ck_assert_uint_eq(le32(blk + 0x38), 4u << 20);
    ck_assert_uint_eq(le32(blk + 0x3c), 0);
    ck_assert_uint_eq(le32(blk + 0x40), 0x50000 + (4u << 20));
    ck_assert_uint_eq(le32(blk + 0x48), (2u << 20));
    ck_assert_uint_eq(le32(blk + 0x4c), SIL24_SGE_TRM);

    n_w = p.n_wlog;
    ck_assert_uint_eq(ap->ops->qc_issue(qc), 0);
    ck_assert_uint_eq(p.n_wlog, n_w + 2);
    ck_assert_uint_eq(p.wlog_off[n_w], SIL24_PORT_BASE(2) + SIL24_PORT_CMD_ACTIVATE + 8 * 5);
    ck_assert_uint_eq(p.wlog_val[n_w], (uint32_t)blk_bus);
    ck_assert_uint_eq(p.wlog_off[n_w + 1], SIL24_PORT_BASE(2) + SIL24_PORT_CMD_ACTIVATE + 8 * 5 + 4);
    ck_assert_uint_eq(p.wlog_val[n_w + 1], (uint32_t)(blk_bus >> 32));
    ata_host_destroy(h);
}
END_TEST

START_TEST(prb_flags_and_nodata)
{
    struct ata_taskfile tf = { .protocol = ATA_PROT_DMA };
    uint8_t blk[SIL24_CMD_BLOCK_SZ], fis[20] = { 0x27, 0x80, 0xef };
    uint16_t ctrl, prot;
    struct ata_sg sg = { 0x1000, 512 };

    sil24_prb_flags(&tf, 4096, &ctrl, &prot);
    ck_assert_uint_eq(ctrl, SIL24_PRB_CTRL_PROTOCOL);
    ck_assert_uint_eq(prot, SIL24_PRB_PROT_READ);
    tf.protocol = ATA_PROT_NODATA;
    sil24_prb_flags(&tf, 0, &ctrl, &prot);
    ck_assert_uint_eq(ctrl, 0);
    ck_assert_uint_eq(prot, 0);

    memset(blk, 0xa5, sizeof(blk));
    ck_assert_int_eq(sil24_fill_prb(blk, 0, 0, fis, NULL, 0, 0), 1);
    ck_assert_uint_eq(le32(blk + 0x20), 0);
    ck_assert_uint_eq(le32(blk + 0x28), 0);
    ck_assert_uint_eq(le32(blk + 0x2c), SIL24_SGE_TRM);
    ck_assert_uint_eq(blk[SIL24_PRB_FIS + 2], 0xef);
    /* SRST request: control word only */
    ck_assert_int_eq(sil24_fill_prb(blk, SIL24_PRB_CTRL_SRST, 0, fis, NULL, 0, 0), 1);
    ck_assert_uint_eq(le16(blk), SIL24_PRB_CTRL_SRST);
    /* too many pieces */
    ck_assert_int_eq(sil24_fill_prb(blk, 0, 0, fis, &sg, 1, 513), -EINVAL);
}
END_TEST

START_TEST(cmd_err_decode)
{
    unsigned em, act;

    ck_assert_ptr_nonnull(sil24_cerr_decode(1, &em, &act));
    ck_assert_uint_eq(em, AC_ERR_DEV);
    ck_assert_uint_eq(act, 0);
    sil24_cerr_decode(2, &em, &act);
    ck_assert_uint_eq(em, AC_ERR_DEV);
    sil24_cerr_decode(4, &em, &act);
    ck_assert_uint_eq(em, AC_ERR_ATA_BUS);
    ck_assert_uint_eq(act, ATA_EH_RESET);
    sil24_cerr_decode(8, &em, &act);
    ck_assert_uint_eq(em, AC_ERR_HSM);
    sil24_cerr_decode(24, &em, &act);
    ck_assert_uint_eq(em, AC_ERR_SYSTEM);
    sil24_cerr_decode(34, &em, &act);
    ck_assert_uint_eq(em, AC_ERR_HOST_BUS);
    ck_assert_ptr_null(sil24_cerr_decode(99, &em, &act));
    ck_assert_uint_eq(em, AC_ERR_OTHER);
    ck_assert_uint_eq(act, ATA_EH_RESET);
}
END_TEST

START_TEST(result_tf_from_lram)
{
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_queued_cmd *qc;
    uint32_t base;

    regs(&p, PCIX_CTRL);
    h = sil24_host_create(&p, &fake_ops, NULL);
    ap = &h->ports[0];
    setup_dev(ap);
    qc = &ap->qcmd[3];
    qc->dev = &ap->link.device[0];
    base = (SIL24_PORT_BASE(0) + SIL24_PORT_LRAM + 3 * SIL24_PORT_LRAM_SLOT_SZ + SIL24_PRB_FIS) / 4;
    p.mmio[base] = 0x04510034;   /* D2H, status 0x51, error 0x04 */
    ap->ops->qc_fill_rtf(qc);
    ck_assert_uint_eq(qc->result_tf.command, 0x51);
    ck_assert_uint_eq(qc->result_tf.feature, 0x04);
    p.mmio[base] = 0x00258027;   /* only the H2D copy: no result of its own */
    ap->ops->qc_fill_rtf(qc);
    ck_assert_uint_eq(qc->result_tf.command, ATA_DRDY);
    ck_assert_uint_eq(qc->result_tf.feature, 0);
    ata_host_destroy(h);
}
END_TEST

/* A chip whose DEV_RST never completes (PORT_CTRL_STAT keeps the bit, RDY never comes back):
 * the hardreset gives the port one PORT_RST and a second DEV_RST, then fails ("hardreset
 * failed (link not ready)", -EIO, as libata's sil24_hardreset) and leaves the port marked,
 * so the next hardreset starts with a PORT_RST ("controller in dubious state"). */
START_TEST(hardreset_dev_rst_stuck)
{
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    enum ata_dev_class cls = ATA_DEV_UNKNOWN;
    const uint32_t ctrl = SIL24_PORT_BASE(0) + SIL24_PORT_CTRL_STAT;
    unsigned dev_rst = 0, port_rst = 0;

    regs(&p, PCIX_CTRL);
    h = sil24_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ap = &h->ports[0];
    p.n_wlog = 0;
    ck_assert_int_eq(ap->ops->hardreset(&ap->link, &cls, p.now + 10ull * 1000 * 1000 * 1000), -EIO);
    for (unsigned i = 0; i < p.n_wlog; i++) {
        if (p.wlog_off[i] != ctrl)
            continue;
        dev_rst += p.wlog_val[i] == SIL24_CS_DEV_RST;
        port_rst += p.wlog_val[i] == SIL24_CS_PORT_RST;
    }
    ck_assert_uint_eq(dev_rst, 1);   /* the PORT_RST never got RDY back: no second DEV_RST */
    ck_assert_uint_eq(port_rst, 1);
    ck_assert_uint_eq(fake_count(&p, "sil24.port_rst"), 1);
    ck_assert_str_eq(fake_find(&p, "eh.hardreset_failed")->msg, "hardreset failed (link not ready)");

    /* the next hardreset starts with the PORT_RST, which fails the same way */
    ck_assert_int_eq(ap->ops->hardreset(&ap->link, &cls, p.now + 10ull * 1000 * 1000 * 1000), -EIO);
    ck_assert_uint_eq(fake_count(&p, "sil24.port_rst"), 3);
    ck_assert_str_eq(fake_find_nth(&p, "eh.hardreset_failed", 1)->msg,
                     "hardreset failed (timeout waiting for port ready)");
    ata_host_destroy(h);
}
END_TEST

Suite *sil24_suite(void)
{
    Suite *s = suite_create("sil24");
    TCase *tc = tcase_create("driver");

    tcase_add_test(tc, create_pcix_applies_errata_fix);
    tcase_add_test(tc, create_without_fix_or_pcix);
    tcase_add_test(tc, create_takes_eh_policy);
    tcase_add_test(tc, prep_and_issue_ncq_write);
    tcase_add_test(tc, prb_flags_and_nodata);
    tcase_add_test(tc, cmd_err_decode);
    tcase_add_test(tc, result_tf_from_lram);
    tcase_add_test(tc, hardreset_dev_rst_stuck);
    suite_add_tcase(s, tc);
    return s;
}
