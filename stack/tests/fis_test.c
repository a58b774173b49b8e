/* H2D FIS build for every command kind (byte-exact), D2H parse, signature classes. */
#include <string.h>

#include "tests.h"

enum { DMA_DEV = ATA_DFLAG_LBA | ATA_DFLAG_LBA48 | ATA_DFLAG_DMA | ATA_DFLAG_FLUSH_EXT };

static void mkdev(struct ata_device *dev, unsigned flags, uint64_t n_sectors, unsigned multi)
{
    memset(dev, 0, sizeof(*dev));
    dev->class = ATA_DEV_ATA;
    dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | flags;
    dev->n_sectors = n_sectors;
    dev->max_sectors = (flags & ATA_DFLAG_LBA48) ? 65535 : 256;
    dev->multi_count = multi;
    dev->ncq_depth = (flags & ATA_DFLAG_NCQ) ? 31 : 0;
}

static struct ata_taskfile build(const struct ata_device *dev, enum ata_bio_op op,
                                 enum ata_io_mode mode, uint64_t lba, uint32_t n, unsigned tag,
                                 uint8_t fis[20])
{
    struct ata_bio bio = { .op = op, .mode = mode, .lba = lba, .n_sectors = n };
    struct ata_taskfile tf;

    ck_assert_int_eq(ata_bio_build_tf(dev, &bio, tag, &tf), 0);
    ata_tf_to_fis(&tf, 0, true, fis);
    return tf;
}

static void expect(const uint8_t *fis, const uint8_t exp[20])
{
    for (int i = 0; i < 20; i++)
        ck_assert_msg(fis[i] == exp[i], "byte %d: 0x%02x, want 0x%02x", i, fis[i], exp[i]);
}

START_TEST(read_dma_ext)
{
    struct ata_device dev;
    uint8_t fis[20];
    struct ata_taskfile tf;

    mkdev(&dev, DMA_DEV, 1ull << 40, 16);
    tf = build(&dev, ATA_BIO_READ, ATA_IO_AUTO, 0x123456789aull, 0x1234, 0, fis);
    ck_assert_int_eq(tf.protocol, ATA_PROT_DMA);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0x25, 0x00, 0x9a, 0x78, 0x56, 0xe0, 0x34, 0x12,
                                     0x00, 0x00, 0x34, 0x12, 0x00, 0x08 });
}
END_TEST

START_TEST(write_dma_ext_at_lba28_boundary)
{
    struct ata_device dev;
    uint8_t fis[20];
    struct ata_taskfile tf;

    /* ending block 0x0fffffff is not below it: 48-bit command */
    mkdev(&dev, DMA_DEV, 1ull << 32, 0);
    tf = build(&dev, ATA_BIO_WRITE, ATA_IO_DMA, 0x0ffffffeull, 1, 0, fis);
    ck_assert(tf.flags & ATA_TFLAG_WRITE);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0x35, 0x00, 0xfe, 0xff, 0xff, 0xe0, 0x0f, 0x00,
                                     0x00, 0x00, 0x01, 0x00, 0x00, 0x08 });
}
END_TEST

START_TEST(read_dma_lba28_count_256)
{
    struct ata_device dev;
    uint8_t fis[20];

    /* a 48-bit device still gets the 28-bit command when the range fits (libata) */
    mkdev(&dev, DMA_DEV, 1ull << 32, 0);
    build(&dev, ATA_BIO_READ, ATA_IO_DMA, 0x5123456, 256, 0, fis);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0xc8, 0x00, 0x56, 0x34, 0x12, 0xe5, 0x00, 0x00,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x08 });
    /* 257 sectors no longer fit a 28-bit count */
    build(&dev, ATA_BIO_READ, ATA_IO_DMA, 0x5123456, 257, 0, fis);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0x25, 0x00, 0x56, 0x34, 0x12, 0xe0, 0x05, 0x00,
                                     0x00, 0x00, 0x01, 0x01, 0x00, 0x08 });
}
END_TEST

START_TEST(write_dma_lba28_device)
{
    struct ata_device dev;
    uint8_t fis[20];

    mkdev(&dev, ATA_DFLAG_DMA, 0x0fffffff, 0);
    build(&dev, ATA_BIO_WRITE, ATA_IO_AUTO, 0x0abcdef, 8, 0, fis);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0xca, 0x00, 0xef, 0xcd, 0xab, 0xe0, 0x00, 0x00,
                                     0x00, 0x00, 0x08, 0x00, 0x00, 0x08 });
}
END_TEST

START_TEST(pio_commands)
{
    struct ata_device dev;
    uint8_t fis[20];
    struct ata_taskfile tf;

    mkdev(&dev, DMA_DEV, 1ull << 32, 16);
    tf = build(&dev, ATA_BIO_READ, ATA_IO_PIO, 0x100, 16, 0, fis);
    ck_assert_int_eq(tf.protocol, ATA_PROT_PIO);
    ck_assert_uint_eq(fis[2], ATA_CMD_READ_MULTI);
    build(&dev, ATA_BIO_WRITE, ATA_IO_PIO, 0x100, 16, 0, fis);
    ck_assert_uint_eq(fis[2], ATA_CMD_WRITE_MULTI);
    build(&dev, ATA_BIO_READ, ATA_IO_PIO, 0x10000000, 16, 0, fis);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0x29, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x10, 0x00,
                                     0x00, 0x00, 0x10, 0x00, 0x00, 0x08 });
    build(&dev, ATA_BIO_WRITE, ATA_IO_PIO, 0x10000000, 16, 0, fis);
    ck_assert_uint_eq(fis[2], ATA_CMD_WRITE_MULTI_EXT);

    /* no multiple count: single-sector PIO commands */
    dev.multi_count = 0;
    build(&dev, ATA_BIO_READ, ATA_IO_PIO, 0x100, 1, 0, fis);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0x20, 0x00, 0x00, 0x01, 0x00, 0xe0, 0x00, 0x00,
                                     0x00, 0x00, 0x01, 0x00, 0x00, 0x08 });
    build(&dev, ATA_BIO_WRITE, ATA_IO_PIO, 0x100, 1, 0, fis);
    ck_assert_uint_eq(fis[2], ATA_CMD_WRITE_SECTORS);
    build(&dev, ATA_BIO_READ, ATA_IO_PIO, 0x10000000, 1, 0, fis);
    ck_assert_uint_eq(fis[2], ATA_CMD_READ_SECTORS_EXT);
    build(&dev, ATA_BIO_WRITE, ATA_IO_PIO, 0x10000000, 1, 0, fis);
    ck_assert_uint_eq(fis[2], ATA_CMD_WRITE_SECTORS_EXT);

    /* a device without DMA mode gets PIO in AUTO */
    dev.flags &= ~ATA_DFLAG_DMA;
    tf = build(&dev, ATA_BIO_READ, ATA_IO_AUTO, 0, 1, 0, fis);
    ck_assert_int_eq(tf.protocol, ATA_PROT_PIO);
}
END_TEST

START_TEST(ncq_read_write)
{
    struct ata_device dev;
    uint8_t fis[20];
    struct ata_taskfile tf;

    mkdev(&dev, DMA_DEV | ATA_DFLAG_NCQ, 1ull << 40, 16);
    tf = build(&dev, ATA_BIO_READ, ATA_IO_AUTO, 0x1000, 8, 5, fis);
    ck_assert_int_eq(tf.protocol, ATA_PROT_NCQ);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0x60, 0x08, 0x00, 0x10, 0x00, 0x40, 0x00, 0x00,
                                     0x00, 0x00, 0x28, 0x00, 0x00, 0x08 });
    build(&dev, ATA_BIO_WRITE, ATA_IO_NCQ, 0xa1b2c3d4e5ull, 0x1234, 30, fis);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0x61, 0x34, 0xe5, 0xd4, 0xc3, 0x40, 0xb2, 0xa1,
                                     0x00, 0x12, 0xf0, 0x00, 0x00, 0x08 });
    /* explicit DMA on an NCQ device bypasses the queue */
    tf = build(&dev, ATA_BIO_READ, ATA_IO_DMA, 0x1000, 8, 5, fis);
    ck_assert_int_eq(tf.protocol, ATA_PROT_DMA);
    ck_assert_uint_eq(fis[2], ATA_CMD_READ_DMA);
}
END_TEST

START_TEST(flush)
{
    struct ata_device dev;
    uint8_t fis[20];
    struct ata_taskfile tf;

    mkdev(&dev, DMA_DEV, 1ull << 32, 0);
    tf = build(&dev, ATA_BIO_FLUSH, ATA_IO_AUTO, 0, 0, 0, fis);
    ck_assert_int_eq(tf.protocol, ATA_PROT_NODATA);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0xea, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x08 });
    mkdev(&dev, ATA_DFLAG_DMA, 1000, 0);
    build(&dev, ATA_BIO_FLUSH, ATA_IO_AUTO, 0, 0, 0, fis);
    ck_assert_uint_eq(fis[2], ATA_CMD_FLUSH);
}
END_TEST

START_TEST(internal_and_control_fis)
{
    struct ata_device dev;
    struct ata_taskfile tf;
    uint8_t fis[20];

    mkdev(&dev, 0, 0, 0);
    ata_tf_init(&dev, &tf);
    tf.command = ATA_CMD_SET_FEATURES;
    tf.feature = SETFEATURES_XFER;
    tf.nsect = 0x46;
    ata_tf_to_fis(&tf, 0, true, fis);
    expect(fis, (const uint8_t[20]){ 0x27, 0x80, 0xef, 0x03, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00,
                                     0x00, 0x00, 0x46, 0x00, 0x00, 0x08 });
    /* SRST to the PMP control port: no C bit, SRST in device control */
    ata_tf_init(&dev, &tf);
    tf.ctl |= ATA_SRST;
    ata_tf_to_fis(&tf, 15, false, fis);
    expect(fis, (const uint8_t[20]){ 0x27, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x0c });
}
END_TEST

START_TEST(d2h_parse)
{
    const uint8_t fis[20] = { 0x34, 0x40, 0x51, 0x40, 0x11, 0x22, 0x33, 0xe0, 0x44, 0x55,
                              0x66, 0x00, 0x01, 0x02, 0, 0, 0, 0, 0, 0 };
    struct ata_taskfile tf;

    memset(&tf, 0, sizeof(tf));
    ata_tf_from_fis(fis, &tf);
    ck_assert_uint_eq(tf.command, 0x51); /* status */
    ck_assert_uint_eq(tf.feature, 0x40); /* error */
    ck_assert_uint_eq(tf.lbal, 0x11);
    ck_assert_uint_eq(tf.lbam, 0x22);
    ck_assert_uint_eq(tf.lbah, 0x33);
    ck_assert_uint_eq(tf.device, 0xe0);
    ck_assert_uint_eq(tf.hob_lbal, 0x44);
    ck_assert_uint_eq(tf.hob_lbam, 0x55);
    ck_assert_uint_eq(tf.hob_lbah, 0x66);
    ck_assert_uint_eq(tf.nsect, 0x01);
    ck_assert_uint_eq(tf.hob_nsect, 0x02);
}
END_TEST

START_TEST(classify)
{
    static const struct {
        uint8_t lbam, lbah;
        enum ata_dev_class cls;
    } t[] = {
        { 0x00, 0x00, ATA_DEV_ATA },  { 0x14, 0xeb, ATA_DEV_ATAPI }, { 0x69, 0x96, ATA_DEV_PMP },
        { 0x3c, 0xc3, ATA_DEV_SEMB }, { 0xcd, 0xab, ATA_DEV_ZAC },   { 0xff, 0xff, ATA_DEV_UNKNOWN },
        { 0x14, 0x00, ATA_DEV_UNKNOWN },
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct ata_taskfile tf = { .nsect = 1, .lbal = 1, .lbam = t[i].lbam, .lbah = t[i].lbah };

        ck_assert_int_eq(ata_dev_classify(&tf), t[i].cls);
    }
}
END_TEST

Suite *fis_suite(void)
{
    Suite *s = suite_create("fis");
    TCase *tc = tcase_create("build");

    tcase_add_test(tc, read_dma_ext);
    tcase_add_test(tc, write_dma_ext_at_lba28_boundary);
    tcase_add_test(tc, read_dma_lba28_count_256);
    tcase_add_test(tc, write_dma_lba28_device);
    tcase_add_test(tc, pio_commands);
    tcase_add_test(tc, ncq_read_write);
    tcase_add_test(tc, flush);
    tcase_add_test(tc, internal_and_control_fis);
    tcase_add_test(tc, d2h_parse);
    tcase_add_test(tc, classify);
    suite_add_tcase(s, tc);
    return s;
}
