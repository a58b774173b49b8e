/* SFF/BMDMA layer pieces that need no controller: the SiI3112 LLD's create (ports, tags,
 * register layout, PRD table memory, the inherited base tables) and the PRD table of a DMA
 * command (SFF-8038i: at most 64 KiB per region, no region across a 64 KiB boundary, a
 * count of 0 meaning 64 KiB, EOT on the last). */
#include <string.h>

#include "tests.h"
#include "sata_sil.h"



START_TEST(sil_create_lays_out_two_sff_channels)
{
    struct sata_platform p;
    struct ata_host *h;

    fake_init(&p);
    h = sil_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(ata_host_n_ports(h), 2);
    for (unsigned i = 0; i < 2; i++) {
        struct ata_port *ap = &h->ports[i];

        ck_assert_uint_eq(ap->tags.n_tags, 1); /* one command at a time */
        ck_assert_uint_eq(ap->tags.int_hw, 0); /* EH's internal command runs in the same slot */
        ck_assert_uint_eq(ap->ncq_depth, 0);
        ck_assert_uint_eq(ata_sff(ap)->io.cmd, sil_port[i].tf);
        ck_assert_uint_eq(ata_sff(ap)->io.ctl, sil_port[i].ctl);
        ck_assert(ata_sff(ap)->ctl & ATA_NIEN); /* frozen until EH thaws it */
        ck_assert_ptr_nonnull(fake_nth_alloc(&p, 8u * ATA_SFF_PRD_ENTRIES, i));
    }
    /* the overrides are the LLD's, the rest comes from the SFF/BMDMA base tables */
    ck_assert_ptr_nonnull(h->ops->hardreset);
    ck_assert_ptr_eq(h->ops->softreset, ata_sff_port_ops.softreset);
    ck_assert_ptr_eq(h->ops->error_handler, ata_bmdma_port_ops.error_handler);
    ck_assert_ptr_eq(h->ops->prereset, sata_port_ops.prereset);
    ck_assert_str_eq(fake_find(&p, "sil.init")->msg, "SiI3112 2 ports (SFF + BMDMA)");
    ata_host_destroy(h);
    fake_check_all_freed(&p);
}
END_TEST

/* A link has two devices only on the host link of a port that may have a slave
 * (ATA_FLAG_SLAVE_POSS: a taskfile channel with master/slave emulation); the SiI3112's
 * channels and every fan-out link have one, so device 1 is never probed or looked up there. */
START_TEST(slave_only_where_the_port_may_have_one)
{
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;

    fake_init(&p);
    h = sil_host_create(&p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    ap = &h->ports[0];
    ck_assert_uint_eq(ata_link_max_devices(&ap->link), 1);
    ck_assert_uint_eq(ap->link.device[1].devno, 1); /* the slot exists, unused */
    ap->link.device[0].flags |= ATA_DFLAG_ENABLED;
    ap->link.device[1].flags |= ATA_DFLAG_ENABLED;
    ck_assert_ptr_eq(ata_host_device(h, 0, -1, 0), &ap->link.device[0]);
    ck_assert_ptr_null(ata_host_device(h, 0, -1, 1));
    ap->flags |= ATA_FLAG_SLAVE_POSS;
    ck_assert_uint_eq(ata_link_max_devices(&ap->link), 2);
    ck_assert_uint_eq(ata_link_max_devices(&ap->pmp_link[0]), 1);
    ck_assert_ptr_eq(ata_host_device(h, 0, -1, 1), &ap->link.device[1]);
    ck_assert_ptr_null(ata_host_device(h, 0, -1, 2));
    ap->link.device[0].flags = ap->link.device[1].flags = 0;
    ata_host_destroy(h);
    fake_check_all_freed(&p);
}
END_TEST

START_TEST(prd_table_splits_at_64k_boundaries)
{
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_queued_cmd *qc;
    const struct ata_sg sg[] = { { 0x1f000, 0x22000 }, { 0x80000, 0x400 } };
    const uint8_t *t;

    fake_init(&p);
    h = sil_host_create(&p, &fake_ops, NULL);
    ap = &h->ports[0];
    qc = &ap->qcmd[0];
    memset(qc, 0, sizeof(*qc));
    qc->ap = ap;
    qc->dev = &ap->link.device[0];
    qc->tf.protocol = ATA_PROT_DMA;
    qc->sg = sg;
    qc->n_sg = 2;
    qc->nbytes = 0x22000 + 0x400;
    h->ops->qc_prep(qc);
    ck_assert_uint_eq(ata_sff(ap)->n_prd, 5);
    t = ata_sff(ap)->prd.cpu;
    /* 0x1f000..0x20000, two whole 64 KiB regions (count 0), 0x40000..0x41000, then the
     * second segment with EOT */
    ck_assert_uint_eq(le32(t + 0), 0x1f000);
    ck_assert_uint_eq(le32(t + 4), 0x1000);
    ck_assert_uint_eq(le32(t + 8), 0x20000);
    ck_assert_uint_eq(le32(t + 12), 0);
    ck_assert_uint_eq(le32(t + 16), 0x30000);
    ck_assert_uint_eq(le32(t + 20), 0);
    ck_assert_uint_eq(le32(t + 24), 0x40000);
    ck_assert_uint_eq(le32(t + 28), 0x1000);
    ck_assert_uint_eq(le32(t + 32), 0x80000);
    ck_assert_uint_eq(le32(t + 36), 0x400u | ATA_PRD_EOT);
    ata_host_destroy(h);
    fake_check_all_freed(&p);
}
END_TEST

Suite *sff_suite(void)
{
    Suite *s = suite_create("sff");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, sil_create_lays_out_two_sff_channels);
    tcase_add_test(tc, prd_table_splits_at_64k_boundaries);
    tcase_add_test(tc, slave_only_where_the_port_may_have_one);
    suite_add_tcase(s, tc);
    return s;
}
