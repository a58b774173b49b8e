/* libata.force entries (core/force.c): which link and device each entry names (libata's
 * print id, linkno 15 for the host link, devno / alt_devno), last entry wins for the speed
 * and the transfer mode, noncq/ncq in order. */
#include <string.h>

#include "tests.h"
#include "ahci.h"

static struct ata_host *host_with(struct sata_platform *p, const struct ata_force_param *f, unsigned n)
{
    struct ata_host_config cfg = { .force = f, .n_force = n };

    fake_init(p);
    p->mmio[HOST_CAP / 4] = 0xc1321f05u; /* 64-bit, NCQ, SPM, CLO, 6 Gbps, 32 slots, 6 ports */
    p->mmio[HOST_CTL / 4] = HOST_AHCI_EN;
    p->mmio[HOST_PORTS_IMPL / 4] = 0x3f;
    p->mmio[HOST_VERSION / 4] = 0x00010301;
    return ahci_host_create(p, &fake_ops, &cfg);
}

START_TEST(link_speed_matches_port_and_host_link)
{
    const struct ata_force_param f[] = {
        { .port = 2, .device = -1, .spd_limit = 2, .name = "3.0Gbps" },
        { .port = 2, .device = -1, .spd_limit = 1, .name = "1.5Gbps" }, /* the last one wins */
        { .port = 3, .device = 1, .spd_limit = 1, .name = "1.5Gbps" },  /* a fan-out link only */
        { .port = 4, .device = 15, .spd_limit = 2, .name = "3.0Gbps" }, /* the host link */
    };
    struct sata_platform p;
    struct ata_host *h = host_with(&p, f, 4);

    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(h->n_force, 4);
    for (unsigned i = 0; i < 6; i++)
        ata_force_link_limits(&h->ports[i].link);
    ck_assert_uint_eq(h->ports[0].link.sata_spd_limit, 0);
    ck_assert_uint_eq(h->ports[1].link.sata_spd_limit, 0x1);
    ck_assert_uint_eq(h->ports[2].link.sata_spd_limit, 0);
    ck_assert_uint_eq(h->ports[3].link.sata_spd_limit, 0x3);
    ata_force_link_limits(&h->ports[2].pmp_link[1]);
    ck_assert_uint_eq(h->ports[2].pmp_link[1].sata_spd_limit, 0x1);
    ck_assert_str_eq(fake_find(&p, "force.spd_limit")->msg, "FORCE: PHY spd limit set to 1.5Gbps"); /* ata2 first */
    ata_host_destroy(h);
}
END_TEST

START_TEST(xfer_mask_and_noncq_per_device)
{
    const struct ata_force_param f[] = {
        { .port = -1, .device = -1, .ncq = -1, .name = "noncq" },
        { .port = 1, .device = 0, .ncq = 1, .name = "ncq" },
        { .port = 2, .device = -1, .xfer_mask = 1u << (ATA_SHIFT_UDMA + 5), .name = "udma100" },
        { .port = 3, .device = -1, .xfer_mask = 1u << (ATA_SHIFT_MWDMA + 2), .name = "mwdma2" },
        { .port = 4, .device = -1, .xfer_mask = 1u << (ATA_SHIFT_PIO + 3), .name = "pio3" },
        { .port = 5, .device = 2, .xfer_mask = 1u << (ATA_SHIFT_PIO + 0), .name = "pio0" },
    };
    const unsigned all = ATA_MASK_PIO | ATA_MASK_MWDMA | ATA_MASK_UDMA;
    struct sata_platform p;
    struct ata_host *h = host_with(&p, f, 6);

    ck_assert_ptr_nonnull(h);
    ck_assert(!ata_force_noncq(&h->ports[0].link.device[0], false)); /* noncq, then ncq again */
    ck_assert(ata_force_noncq(&h->ports[1].link.device[0], false));
    ck_assert_uint_eq(ata_force_xfermask(&h->ports[0].link.device[0], all, false), all);
    ck_assert_uint_eq(ata_force_xfermask(&h->ports[1].link.device[0], all, false),
                      ATA_MASK_PIO | ATA_MASK_MWDMA | (1u << (ATA_SHIFT_UDMA + 5)));
    ck_assert_uint_eq(ata_force_xfermask(&h->ports[2].link.device[0], all, false),
                      ATA_MASK_PIO | (1u << (ATA_SHIFT_MWDMA + 2)));
    ck_assert_uint_eq(ata_force_xfermask(&h->ports[3].link.device[0], all, true), 1u << (ATA_SHIFT_PIO + 3));
    ck_assert_str_eq(fake_find(&p, "force.xfer_mask")->msg, "FORCE: xfer_mask set to pio3");
    /* device 2 names the disk behind PMP port 2, not the host link's */
    ck_assert_uint_eq(ata_force_xfermask(&h->ports[4].link.device[0], all, false), all);
    ck_assert_uint_eq(ata_force_xfermask(&h->ports[4].pmp_link[2].device[0], all, false), 1u);
    ata_host_destroy(h);
}
END_TEST

Suite *force_suite(void)
{
    Suite *s = suite_create("force");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, link_speed_matches_port_and_host_link);
    tcase_add_test(tc, xfer_mask_and_noncq_per_device);
    suite_add_tcase(s, tc);
    return s;
}
