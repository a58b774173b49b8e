/* Tag allocation and the internal command timeout tables. */
#include <string.h>

#include "tests.h"

/* libata-2006: tag 31 is EH's (ATA_TAG_INTERNAL was ATA_MAX_QUEUE - 1), 31 tags for I/O */
START_TEST(tags_32_reserved)
{
    struct ata_tags t;

    ata_tags_init(&t, 32, true);
    ck_assert_uint_eq(t.n_tags, 31);
    ck_assert_uint_eq(t.int_hw, 31);
    for (int i = 0; i < 31; i++)
        ck_assert_int_eq(ata_tag_get(&t), i);
    ck_assert_int_eq(ata_tag_get(&t), -1); /* normal tags exhausted, 31 stays reserved */
    ck_assert_int_eq(ata_tag_get_internal(&t), ATA_TAG_INTERNAL);
    ck_assert_int_eq(ata_tag_get_internal(&t), -1);

    ck_assert(ata_tag_put(&t, 17));
    ck_assert(!ata_tag_put(&t, 17)); /* double free refused */
    ck_assert(ata_tag_put(&t, 3));
    ck_assert_int_eq(ata_tag_get(&t), 3); /* lowest free first */
    ck_assert_int_eq(ata_tag_get(&t), 17);
    ck_assert_int_eq(ata_tag_get(&t), -1);

    ck_assert(!ata_tag_put(&t, 31));
    ck_assert(ata_tag_put(&t, ATA_TAG_INTERNAL));
    ck_assert(!ata_tag_put(&t, ATA_TAG_INTERNAL));
    ck_assert(!ata_tag_put(&t, 1000));
    ck_assert_int_eq(ata_tag_get_internal(&t), ATA_TAG_INTERNAL);
}
END_TEST

/* The block layer's tag is taken while free; a busy one, or one beyond the port's tags
 * (8 slots here), falls back to the lowest free tag. */
START_TEST(tags_wanted)
{
    struct ata_tags t;

    ata_tags_init(&t, 8, false);
    ck_assert_int_eq(ata_tag_get_wanted(&t, 6), 6);
    ck_assert_int_eq(ata_tag_get_wanted(&t, 4), 4);
    ck_assert_int_eq(ata_tag_get_wanted(&t, 6), 0); /* busy: lowest free */
    ck_assert_int_eq(ata_tag_get_wanted(&t, 9), 1); /* not one of the port's */
    ck_assert_int_eq(ata_tag_get(&t), 2);
    ck_assert_uint_eq(t.used, 0x57u);
    ck_assert(ata_tag_put(&t, 6));
    ck_assert_int_eq(ata_tag_get_wanted(&t, 6), 6);
}
END_TEST

/* libata-modern (4.18+): all 32 tags serve I/O, the internal command borrows slot 0 */
START_TEST(tags_32_all_for_io)
{
    struct ata_tags t;

    ata_tags_init(&t, 32, false);
    ck_assert_uint_eq(t.n_tags, 32);
    ck_assert_uint_eq(t.int_hw, 0);
    for (int i = 0; i < 32; i++)
        ck_assert_int_eq(ata_tag_get(&t), i);
    ck_assert_int_eq(ata_tag_get(&t), -1);
    ck_assert_int_eq(ata_tag_get_internal(&t), ATA_TAG_INTERNAL);
}
END_TEST

START_TEST(tags_fewer_slots)
{
    struct ata_tags t;

    /* a 31-slot chip (sil24) keeps all its slots under either profile: 2.6.18's sil24_tag()
     * ran the internal tag 31 in slot 0 */
    for (int reserve = 0; reserve < 2; reserve++) {
        ata_tags_init(&t, 31, reserve);
        ck_assert_uint_eq(t.n_tags, 31);
        ck_assert_uint_eq(t.int_hw, 0);
    }
    ata_tags_init(&t, 16, false);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(ata_tag_get(&t), i);
    ck_assert_int_eq(ata_tag_get(&t), -1);
    ck_assert_int_eq(ata_tag_get_internal(&t), ATA_TAG_INTERNAL);
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

    tcase_add_test(tc, tags_32_reserved);
    tcase_add_test(tc, tags_32_all_for_io);
    tcase_add_test(tc, tags_fewer_slots);
    tcase_add_test(tc, tags_wanted);
    tcase_add_test(tc, internal_timeouts);
    suite_add_tcase(s, tc);
    return s;
}
