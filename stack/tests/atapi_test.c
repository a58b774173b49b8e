/* ATAPI pieces that need no device: the PACKET taskfile (byte count, DMA, DMADIR), the DMA
 * choice, the IDENTIFY PACKET configure line, the report's CDB wording (checked against the
 * dmesg corpus) and the SiI3124 packet command block. */
#include <string.h>

#include "tests.h"
#include "sil24.h"

static struct ata_device atapi_dev(unsigned flags)
{
    struct ata_device d;

    memset(&d, 0, sizeof(d));
    d.class = ATA_DEV_ATAPI;
    d.flags = ATA_DFLAG_ENABLED | flags;
    d.cdb_len = 12;
    return d;
}

START_TEST(packet_tf_byte_count_and_protocol)
{
    struct ata_device d = atapi_dev(ATA_DFLAG_DMA);
    struct ata_taskfile tf;

    /* GET EVENT STATUS NOTIFICATION of 8 bytes: PIO, byte count 8 */
    atapi_build_tf(&d, 8, false, 0, &tf);
    ck_assert_int_eq(tf.protocol, ATAPI_PROT_PIO);
    ck_assert_uint_eq(tf.command, 0xa0);
    ck_assert_uint_eq(tf.feature, 0);
    ck_assert_uint_eq(tf.lbam | tf.lbah << 8, 8);
    ck_assert_uint_eq(tf.device, 0xa0);
    /* 128 KiB: the byte count stops at 63 KiB (dmesg-corpus 40: "a0/00:00:00:00:fc") */
    atapi_build_tf(&d, 131072, false, 0, &tf);
    ck_assert_uint_eq(tf.lbam, 0x00);
    ck_assert_uint_eq(tf.lbah, 0xfc);
    /* an explicit limit wins */
    atapi_build_tf(&d, 131072, false, 2048, &tf);
    ck_assert_uint_eq(tf.lbam | tf.lbah << 8, 2048);
    /* DMA: Features bit 0, no DMADIR unless the device flag says so */
    atapi_build_tf(&d, 4096, true, 0, &tf);
    ck_assert_int_eq(tf.protocol, ATAPI_PROT_DMA);
    ck_assert_uint_eq(tf.feature, ATAPI_PKT_DMA);
    d.flags |= ATA_DFLAG_DMADIR;
    atapi_build_tf(&d, 4096, true, 0, &tf);
    ck_assert_uint_eq(tf.feature, ATAPI_PKT_DMA | ATAPI_DMADIR);
    atapi_build_tf(&d, 0, false, 0, &tf);
    ck_assert_int_eq(tf.protocol, ATAPI_PROT_NODATA);
}
END_TEST

START_TEST(packet_dma_choice)
{
    struct ata_device d = atapi_dev(ATA_DFLAG_DMA);
    struct ata_packet pc = { .dir = ATA_PACKET_FROM_DEV, .len = 2048 };

    ck_assert(atapi_use_dma(&d, &pc));
    pc.len = 16392; /* not whole 16-byte units: PIO (dmesg-corpus 55's GESN runs "pio 16392") */
    ck_assert(!atapi_use_dma(&d, &pc));
    pc.len = 2048;
    pc.pio = true;
    ck_assert(!atapi_use_dma(&d, &pc));
    pc.pio = false;
    d.flags &= ~(unsigned)ATA_DFLAG_DMA;
    ck_assert(!atapi_use_dma(&d, &pc));
}
END_TEST

START_TEST(identify_packet_configure_line)
{
    uint16_t id[ATA_ID_WORDS];
    struct ata_host_caps hc = { .xfer_mask = (0x1fu << ATA_SHIFT_PIO) | (0x7fu << ATA_SHIFT_UDMA) };
    struct ata_dev_config c;
    char line[160];

    memset(id, 0, sizeof(id));
    id[0] = 0x85a0; /* ATAPI, CD/DVD, removable, CMD DRQ by interrupt, 12-byte packets */
    put_id_string(id, 27, 40, "SATASIM DVD-ROM");
    put_id_string(id, 23, 8, "1.00");
    id[49] = 0x0300;
    id[53] = 0x0006;
    id[63] = 0x0007;
    id[64] = 0x0003;
    id[88] = 0x003f; /* UDMA 0-5 */
    ata_id_configure(id, ATA_DEV_ATAPI, &hc, &c);
    ata_config_id_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "ATAPI: SATASIM DVD-ROM, 1.00, max UDMA/100, CDB intr");
    ck_assert_uint_eq(c.cdb_len, 12);
    id[0] = 0x85c0; /* 50 us DRQ */
    id[62] = 0x8000;
    ata_id_configure(id, ATA_DEV_ATAPI, &hc, &c);
    ata_config_id_line(&c, line, sizeof(line));
    ck_assert_str_eq(line, "ATAPI: SATASIM DVD-ROM, 1.00, max UDMA/100, DMADIR");
    id[62] = 0;
    hc.atapi_dmadir = true; /* libata.atapi_dmadir=1 */
    ata_id_configure(id, ATA_DEV_ATAPI, &hc, &c);
    ck_assert(c.dmadir);
}
END_TEST

START_TEST(report_cdb_wording)
{
    /* dmesg-corpus 40: "cmd a0/00:00:00:00:fc/00:00:00:00:00/a0 tag 0 pio 131072 in" then
     * "Read(10) 28 00 00 00 05 61 00 00 40 00res 50/00:03:..." */
    const uint8_t rd[16] = { 0x28, 0, 0, 0, 0x05, 0x61, 0, 0, 0x40, 0 };
    const uint8_t gc[16] = { 0x46, 0, 0, 0, 0, 0, 0, 0, 0x20, 0 };
    const uint8_t tur[16] = { 0 };
    struct ata_device d = atapi_dev(0);
    struct ata_taskfile tf;
    char b[200];

    atapi_build_tf(&d, 131072, false, 0, &tf);
    ata_eh_format_cmd_line(b, sizeof(b), &tf, 0, 131072, "ncq dma");
    ck_assert_str_eq(b, "cmd a0/00:00:00:00:fc/00:00:00:00:00/a0 tag 0 pio 131072 in");
    ata_eh_format_cdb(b, sizeof(b), rd, 0);
    ck_assert_str_eq(b, "Read(10) 28 00 00 00 05 61 00 00 40 00");
    /* dmesg-corpus 55: "Get configuration 46 00 00 00 00 00 00 00 20 00" */
    ata_eh_format_cdb(b, sizeof(b), gc, 10);
    ck_assert_str_eq(b, "Get configuration 46 00 00 00 00 00 00 00 20 00");
    ata_eh_format_cdb(b, sizeof(b), tur, 12);
    ck_assert_str_eq(b, "Test Unit Ready 00 00 00 00 00 00 00 00 00 00 00 00");
    atapi_build_tf(&d, 0, false, 0, &tf);
    ata_eh_format_cmd_line(b, sizeof(b), &tf, 0, 0, "ncq dma");
    ck_assert_str_eq(b, "cmd a0/00:00:00:00:00/00:00:00:00:00/a0 tag 0");
}
END_TEST

START_TEST(sil24_packet_block_layout)
{
    uint8_t blk[SIL24_CMD_BLOCK_SZ];
    const uint8_t fis[20] = { 0x27, 0x80, 0xa0 };
    const uint8_t cdb[16] = { 0x28, 0, 0, 0, 0, 5, 0, 0, 1 };
    const struct ata_sg sg = { .bus = 0x12340000, .len = 2048 };
    struct ata_taskfile tf = { .protocol = ATAPI_PROT_PIO, .command = 0xa0 };

    memset(blk, 0xee, sizeof(blk));
    ck_assert_int_eq(sil24_fill_packet_prb(blk, &tf, fis, cdb, &sg, 1, 2048), 2);
    ck_assert_uint_eq(blk[SIL24_PRB_CTRL] | blk[SIL24_PRB_CTRL + 1] << 8, SIL24_PRB_CTRL_PACKET_READ);
    ck_assert_uint_eq(blk[SIL24_PRB_PROT] | blk[SIL24_PRB_PROT + 1] << 8, 0);
    ck_assert_mem_eq(blk + SIL24_PRB_FIS, fis, 20);
    ck_assert_mem_eq(blk + SIL24_PRB_SZ, cdb, 16);
    /* SGE 0 after the CDB: address, length, TRM */
    ck_assert_uint_eq(blk[0x30] | blk[0x31] << 8 | blk[0x32] << 16 | (uint32_t)blk[0x33] << 24, 0x12340000);
    ck_assert_uint_eq(blk[0x38] | blk[0x39] << 8, 2048);
    ck_assert_uint_eq(blk[0x3f] & 0x80, 0x80);
    /* a non-data packet: control 0, one empty terminating SGE */
    tf.protocol = ATAPI_PROT_NODATA;
    ck_assert_int_eq(sil24_fill_packet_prb(blk, &tf, fis, cdb, NULL, 0, 0), 2);
    ck_assert_uint_eq(blk[SIL24_PRB_CTRL] | blk[SIL24_PRB_CTRL + 1] << 8, 0);
    ck_assert_uint_eq(blk[0x3f] & 0x80, 0x80);
}
END_TEST

Suite *atapi_suite(void)
{
    Suite *s = suite_create("atapi");
    TCase *tc = tcase_create("atapi");

    tcase_add_test(tc, packet_tf_byte_count_and_protocol);
    tcase_add_test(tc, packet_dma_choice);
    tcase_add_test(tc, identify_packet_configure_line);
    tcase_add_test(tc, report_cdb_wording);
    tcase_add_test(tc, sil24_packet_block_layout);
    suite_add_tcase(s, tc);
    return s;
}
