/* Tag allocation and the internal command timeout tables. */
#include <string.h>

#include "tests.h"

START_TEST(tags_32)
{
    struct ata_tags t;

    ata_tags_init(&t, 32);
    ck_assert_uint_eq(ata_tag_internal(&t), ATA_TAG_INTERNAL);
    for (int i = 0; i < 31; i++)
        ck_assert_int_eq(ata_tag_get(&t), i);
    ck_assert_int_eq(ata_tag_get(&t), -1); /* normal tags exhausted, 31 stays reserved */
    ck_assert_int_eq(ata_tag_get_internal(&t), 31);
    ck_assert_int_eq(ata_tag_get_internal(&t), -1);

    ck_assert(ata_tag_put(&t, 17));
    ck_assert(!ata_tag_put(&t, 17)); /* double free refused */
    ck_assert(ata_tag_put(&t, 3));
    ck_assert_int_eq(ata_tag_get(&t), 3); /* lowest free first */
    ck_assert_int_eq(ata_tag_get(&t), 17);
    ck_assert_int_eq(ata_tag_get(&t), -1);

    ck_assert(ata_tag_put(&t, 31));
    ck_assert(!ata_tag_put(&t, 31));
    ck_assert(!ata_tag_put(&t, 32));
    ck_assert(!ata_tag_put(&t, 1000));
    ck_assert_int_eq(ata_tag_get_internal(&t), 31);
}
END_TEST

START_TEST(tags_fewer_slots)
{
    struct ata_tags t;

    ata_tags_init(&t, 16);
    ck_assert_uint_eq(ata_tag_internal(&t), 15);
    for (int i = 0; i < 15; i++)
        ck_assert_int_eq(ata_tag_get(&t), i);
    ck_assert_int_eq(ata_tag_get(&t), -1);
    ck_assert_int_eq(ata_tag_get_internal(&t), 15);
    ck_assert(!ata_tag_put(&t, 16));
}
END_TEST

static void expect_tmo_sequence(struct ata_device *dev, uint8_t cmd, const unsigned *seq, int n)
{
    for (int i = 0; i < n; i++) {
        ck_assert_uint_eq(ata_internal_cmd_timeout(dev, cmd), seq[i]);
        ata_internal_cmd_timed_out(dev, cmd);
    }
}

START_TEST(internal_timeouts)
{
    struct ata_device dev;

    memset(&dev, 0, sizeof(dev));
    expect_tmo_sequence(&dev, ATA_CMD_ID_ATA, (const unsigned[]){ 5000, 10000, 30000, 30000 }, 4);
    expect_tmo_sequence(&dev, ATA_CMD_SET_FEATURES, (const unsigned[]){ 5000, 10000, 10000 }, 3);
    expect_tmo_sequence(&dev, ATA_CMD_FLUSH_EXT, (const unsigned[]){ 15000, 15000, 30000, 30000 }, 4);
    expect_tmo_sequence(&dev, ATA_CMD_READ_LOG_EXT, (const unsigned[]){ 5000, 5000 }, 2);
    /* classes share their index: ATAPI IDENTIFY continues where IDENTIFY DEVICE was */
    ck_assert_uint_eq(ata_internal_cmd_timeout(&dev, ATA_CMD_ID_ATAPI), 30000);
    ck_assert_uint_eq(ata_internal_cmd_timeout(&dev, ATA_CMD_FLUSH), 30000);
}
END_TEST

Suite *qc_suite(void)
{
    Suite *s = suite_create("qc");
    TCase *tc = tcase_create("tags");

    tcase_add_test(tc, tags_32);
    tcase_add_test(tc, tags_fewer_slots);
    tcase_add_test(tc, internal_timeouts);
    suite_add_tcase(s, tc);
    return s;
}
