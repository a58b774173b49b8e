/* IDENTIFY parsing and the configure decisions, from blocks built field by field. */
#include <string.h>

#include "tests.h"

static const struct ata_host_caps ahci_caps = {
    .ncq_depth = 31,
    .xfer_mask = (0x1fu << ATA_SHIFT_PIO) | (0x7fu << ATA_SHIFT_UDMA),
};

static struct id_spec disk(void)
{
    return (struct id_spec){
        .model = "WDC WD5000AAKX-00ERMA0", .serial = "WD-WCC2EAH12345", .fw = "15.01H15",
        .lba28_sectors = 0x0fffffff, .lba48_sectors = 976773168, .ncq = true, .depth = 32,
        .udma = 0x7f, .w47 = 0x8010, .w80 = 0x01f0,
    };
}

static void configure(const struct id_spec *s, const struct ata_host_caps *hc, struct ata_dev_config *c)
{
    uint16_t id[ATA_ID_WORDS];

    build_id(id, s);
    ata_id_configure(id, ATA_DEV_ATA, hc, c);
}

START_TEST(strings_are_byte_swapped_and_trimmed)
{
    struct id_spec s = disk();
    uint16_t id[ATA_ID_WORDS];
    char buf[41];

    build_id(id, &s);
    ck_assert_uint_eq(id[27], ('W' << 8) | 'D');
    ata_id_c_string(id, buf, 27, sizeof(buf));
    ck_assert_str_eq(buf, "WDC WD5000AAKX-00ERMA0");
    ata_id_c_string(id, buf, 23, 9);
    ck_assert_str_eq(buf, "15.01H15");
    ata_id_c_string(id, buf, 10, 21);
    ck_assert_str_eq(buf, "WD-WCC2EAH12345");
}
END_TEST

/* libata's ata_dev_config_fua: FUA used only with libata.fua, WRITE DMA FUA EXT (word 84
 * bit 6 in a valid word 84), LBA48 and NCQ. */
START_TEST(fua_needs_the_parameter_lba48_and_ncq)
{
    struct id_spec s = disk();
    struct ata_host_caps fua = ahci_caps, no_ncq = ahci_caps;
    struct ata_dev_config c;
    uint16_t id[ATA_ID_WORDS];

    fua.fua = true;
    no_ncq.fua = true;
    no_ncq.ncq_depth = 0;
    build_id(id, &s);
    id[84] |= 1u << 6;
    ata_id_configure(id, ATA_DEV_ATA, &fua, &c);
    ck_assert(c.fua);
    ata_id_configure(id, ATA_DEV_ATA, &ahci_caps, &c); /* libata.fua off (the default) */
    ck_assert(!c.fua);
    ata_id_configure(id, ATA_DEV_ATA, &no_ncq, &c);    /* a host without NCQ */
    ck_assert(!c.fua);
    id[84] = 1u << 6;                                  /* word 84 not valid */
    ata_id_configure(id, ATA_DEV_ATA, &fua, &c);
    ck_assert(!c.fua);
    build_id(id, &s);                                  /* no FUA bit */
    ata_id_configure(id, ATA_DEV_ATA, &fua, &c);
    ck_assert(!c.fua);
}
END_TEST

START_TEST(lba48_ncq_disk)
{
    struct id_spec s = disk();
    struct ata_dev_config c;
    char line[160];

    configure(&s, &ahci_caps, &c);
    ck_assert_str_eq(c.model, "WDC WD5000AAKX-00ERMA0");
    ck_assert_str_eq(c.fw, "15.01H15");
    ck_assert_str_eq(c.serial, "WD-WCC2EAH12345");
    ck_assert_uint_eq(c.ata_major, 8);
    ck_assert(c.lba && c.lba48 && c.flush_ext);
    ck_assert(c.wcache && c.wcache_on);
    ck_assert_uint_eq(c.n_sectors, 976773168);
    ck_assert_uint_eq(c.max_sectors, 65535);
    ck_assert_uint_eq(c.multi_max, 16);
    ck_assert_uint_eq(c.multi_cur, 0);
    ck_assert_uint_eq(c.multi_count, 16);
    ck_assert(c.dev_ncq && c.ncq);
    ck_assert_uint_eq(c.dev_depth, 32);
    ck_assert_uint_eq(c.host_depth, 31);
    ck_assert_uint_eq(c.ncq_depth, 31);
    ck_assert_uint_eq(c.xfer_mode, 0x46);
    ck_assert_str_eq(ata_xfer_mode_name(c.xfer_mode), "UDMA/133");

    ata_config_id_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "ATA-8: WDC WD5000AAKX-00ERMA0, 15.01H15, max UDMA/133");
    ata_config_size_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "976773168 sectors, multi 16: LBA48 NCQ (depth 31/32)");
}
END_TEST

/* libata-core.c ata_dev_config_lba: ATA_DFLAG_FLUSH_EXT only when n_sectors >= 1 << 28 (and
 * the device has FLUSH CACHE EXT); a smaller LBA48 disk gets FLUSH CACHE (0xE7). */
START_TEST(flush_ext_only_at_or_above_2_28)
{
    struct id_spec s = disk();
    struct ata_dev_config c;

    s.lba48_sectors = (1u << 28) - 1;
    configure(&s, &ahci_caps, &c);
    ck_assert(c.lba48 && !c.flush_ext);
    s.lba48_sectors = 1u << 28;
    configure(&s, &ahci_caps, &c);
    ck_assert(c.lba48 && c.flush_ext);
}
END_TEST

/* libata-core.c ata_dev_config_ncq: if (dev->horkage & ATA_HORKAGE_NONCQ) "NCQ (not used)" */
START_TEST(ncq_not_used_with_noncq_horkage)
{
    struct id_spec s = disk();
    struct ata_host_caps hc = ahci_caps;
    struct ata_dev_config c;
    uint16_t id[ATA_ID_WORDS];
    char line[160];

    hc.dev_noncq = true;
    build_id(id, &s);
    ata_id_configure(id, ATA_DEV_ATA, &hc, &c);
    ck_assert(c.dev_ncq && !c.ncq);
    ata_config_size_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "976773168 sectors, multi 16: LBA48 NCQ (not used)");
}
END_TEST

START_TEST(lba28_disk)
{
    struct id_spec s = disk();
    struct ata_dev_config c;
    char line[160];

    s.lba48_sectors = 0;
    s.lba28_sectors = 78165360;
    s.ncq = false;
    s.udma = 0x3f; /* up to UDMA/100 */
    s.w47 = 0x8008;
    s.w59 = 0x0108; /* current setting 8, valid */
    configure(&s, &ahci_caps, &c);
    ck_assert(c.lba && !c.lba48 && !c.flush_ext);
    ck_assert_uint_eq(c.n_sectors, 78165360);
    ck_assert_uint_eq(c.max_sectors, 256);
    ck_assert(!c.dev_ncq && !c.ncq);
    ck_assert_uint_eq(c.ncq_depth, 0);
    ck_assert_uint_eq(c.multi_cur, 8);
    ck_assert_uint_eq(c.multi_count, 8);
    ck_assert_uint_eq(c.xfer_mode, 0x45);
    ata_config_id_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "ATA-8: WDC WD5000AAKX-00ERMA0, 15.01H15, max UDMA/100");
    ata_config_size_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "78165360 sectors, multi 8: LBA");
}
END_TEST

START_TEST(lba48_bit_without_capacity_is_lba28)
{
    struct id_spec s = disk();
    uint16_t id[ATA_ID_WORDS];

    build_id(id, &s);
    memset(&id[100], 0, 4 * sizeof(id[0]));
    ck_assert(!ata_id_has_lba48(id));
    ck_assert_uint_eq(ata_id_n_sectors(id), 0x0fffffff);
    /* words 83 bits 15:14 must read 01 */
    build_id(id, &s);
    id[83] &= 0x3fff;
    ck_assert(!ata_id_has_lba48(id));
}
END_TEST

/* The logical sector (ACS-3 7.12.7.44, 7.12.7.50): word 106 valid (15:14 01b) with bit 12,
 * words 117-118 its length in words; bit 13 (512e) alone leaves 512; a length the block
 * layer does not take (520 bytes) or an invalid word 106 leaves 512 */
START_TEST(logical_sector_size_words)
{
    struct id_spec s = disk();
    struct ata_host_caps hc = ahci_caps;
    struct ata_dev_config c;
    uint16_t id[ATA_ID_WORDS];

    build_id(id, &s);
    ata_id_configure(id, ATA_DEV_ATA, &hc, &c);
    ck_assert_uint_eq(c.sector_size, 512);
    id[106] = 0x5000, id[117] = 0x0800, id[118] = 0; /* 4Kn */
    ck_assert_uint_eq(ata_id_logical_sector_size(id), 4096);
    ata_id_configure(id, ATA_DEV_ATA, &hc, &c);
    ck_assert_uint_eq(c.sector_size, 4096);
    id[106] = 0x7003; /* 4096 logical in 32 KiB physical: bit 13 does not matter */
    ck_assert_uint_eq(ata_id_logical_sector_size(id), 4096);
    id[106] = 0x6003; /* 512e: bit 12 clear */
    ck_assert_uint_eq(ata_id_logical_sector_size(id), 512);
    id[106] = 0x9000; /* not valid */
    ck_assert_uint_eq(ata_id_logical_sector_size(id), 512);
    id[106] = 0x5000, id[117] = 260; /* 520 bytes */
    ata_id_configure(id, ATA_DEV_ATA, &hc, &c);
    ck_assert_uint_eq(c.sector_size, 512);
}
END_TEST

START_TEST(ncq_depth_rules)
{
    struct id_spec s = disk();
    struct ata_host_caps hc = ahci_caps;
    struct ata_dev_config c;
    char line[160];

    /* device queue shallower than the host's */
    s.depth = 8;
    configure(&s, &hc, &c);
    ck_assert_uint_eq(c.ncq_depth, 8);
    ata_config_size_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "976773168 sectors, multi 16: LBA48 NCQ (depth 8)");

    /* host without NCQ: device capability still shown, not used */
    s.depth = 32;
    hc.ncq_depth = 0;
    configure(&s, &hc, &c);
    ck_assert(c.dev_ncq && !c.ncq);
    ck_assert_uint_eq(c.ncq_depth, 0);
    ata_config_size_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "976773168 sectors, multi 16: LBA48 NCQ (depth 0/32)");

    /* a 16-slot HBA: 15 tags for NCQ */
    hc.ncq_depth = 15;
    configure(&s, &hc, &c);
    ck_assert_uint_eq(c.ncq_depth, 15);
}
END_TEST

START_TEST(mode_selection)
{
    struct id_spec s = disk();
    struct ata_host_caps hc = ahci_caps;
    struct ata_dev_config c;

    /* UDMA word not valid: AHCI offers no MWDMA, so PIO4 */
    s.udma = 0;
    configure(&s, &hc, &c);
    ck_assert_uint_eq(c.xfer_mode, 0x0c);
    /* a host with MWDMA gets the best MWDMA mode */
    hc.xfer_mask |= 0x7u << ATA_SHIFT_MWDMA;
    configure(&s, &hc, &c);
    ck_assert_uint_eq(c.xfer_mode, 0x22);
    ck_assert_str_eq(ata_xfer_mode_name(c.xfer_mode), "MWDMA2");
    ck_assert(c.ncq);

    /* no DMA at all: PIO4, and no NCQ without DMA */
    s.no_dma = true;
    configure(&s, &hc, &c);
    ck_assert_uint_eq(c.xfer_mode, 0x0c);
    ck_assert_str_eq(ata_xfer_mode_name(c.xfer_mode), "PIO4");
    ck_assert(c.dev_ncq && !c.ncq);
    ck_assert_uint_eq(c.ncq_depth, 0);

    /* host limits the device: UDMA7 device on an UDMA/133 host */
    s = disk();
    s.udma = 0xff;
    configure(&s, &hc, &c);
    ck_assert_uint_eq(c.xfer_mode, 0x46);
    ck_assert_str_eq(ata_mode_string(c.dev_xfer_mask), "UDMA7");
}
END_TEST

START_TEST(multi_count_words)
{
    struct id_spec s = disk();
    struct ata_dev_config c;

    s.w47 = 0x8003; /* not a power of two */
    configure(&s, &ahci_caps, &c);
    ck_assert_uint_eq(c.multi_count, 0);
    s.w47 = 0x0010; /* high byte must be 0x80 */
    configure(&s, &ahci_caps, &c);
    ck_assert_uint_eq(c.multi_count, 0);
    s.w47 = 0x8010;
    s.w59 = 0x0120; /* current 32 > max 16: not a valid current setting */
    configure(&s, &ahci_caps, &c);
    ck_assert_uint_eq(c.multi_cur, 0);
    ck_assert_uint_eq(c.multi_count, 16);
    s.w59 = 0x0010; /* count without the valid bit */
    configure(&s, &ahci_caps, &c);
    ck_assert_uint_eq(c.multi_cur, 0);
}
END_TEST

START_TEST(major_version_and_type)
{
    struct id_spec s = disk();
    uint16_t id[ATA_ID_WORDS];

    build_id(id, &s);
    ck_assert_uint_eq(ata_id_major_version(id), 8);
    id[80] = 0x007e;
    ck_assert_uint_eq(ata_id_major_version(id), 6);
    id[80] = 0xffff;
    ck_assert_uint_eq(ata_id_major_version(id), 0);
    ck_assert(ata_id_is_ata(id));
    id[0] = 0x85c0; /* ATAPI */
    ck_assert(!ata_id_is_ata(id));
    ck_assert_uint_eq(ata_id_queue_depth(id), 32);
    ck_assert(ata_id_has_ncq(id));
}
END_TEST

Suite *identify_suite(void)
{
    Suite *s = suite_create("identify");
    TCase *tc = tcase_create("configure");

    tcase_add_test(tc, strings_are_byte_swapped_and_trimmed);
    tcase_add_test(tc, lba48_ncq_disk);
    tcase_add_test(tc, fua_needs_the_parameter_lba48_and_ncq);
    tcase_add_test(tc, lba28_disk);
    tcase_add_test(tc, flush_ext_only_at_or_above_2_28);
    tcase_add_test(tc, ncq_not_used_with_noncq_horkage);
    tcase_add_test(tc, lba48_bit_without_capacity_is_lba28);
    tcase_add_test(tc, ncq_depth_rules);
    tcase_add_test(tc, logical_sector_size_words);
    tcase_add_test(tc, mode_selection);
    tcase_add_test(tc, multi_count_words);
    tcase_add_test(tc, major_version_and_type);
    suite_add_tcase(s, tc);
    return s;
}
