/* AHCI PRD table and command header building (pure memory layout). */
#include <string.h>

#include "tests.h"
#include "ahci.h"

static void expect_prd(const uint8_t *prdt, unsigned i, uint64_t addr, uint32_t len)
{
    const uint8_t *e = prdt + i * AHCI_PRD_SZ;

    ck_assert_uint_eq(le32(e), (uint32_t)addr);
    ck_assert_uint_eq(le32(e + 4), (uint32_t)(addr >> 32));
    ck_assert_uint_eq(le32(e + 8), 0);
    ck_assert_uint_eq(le32(e + 12), len - 1); /* byte count - 1, I bit clear */
}

#define PRDT_DECL uint8_t prdt[AHCI_MAX_SG * AHCI_PRD_SZ]

START_TEST(layout_alignment)
{
    ck_assert_uint_eq(AHCI_CMD_LIST_SZ, 1024);
    ck_assert_uint_eq(AHCI_RX_FIS_OFF % 256, 0);
    ck_assert_uint_eq(AHCI_CMD_TBL_OFF % 128, 0);
    ck_assert_uint_eq(AHCI_CMD_TBL_SZ % 128, 0);
    ck_assert_uint_eq(AHCI_CMD_TBL_SZ, 0x80 + 168 * 16);
}
END_TEST

START_TEST(single_and_64bit)
{
    PRDT_DECL;
    struct ata_sg sg[] = { { 0x10000, 4096 }, { 0x123456000ull, 512 } };

    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, sg, 2, 4608), 2);
    expect_prd(prdt, 0, 0x10000, 4096);
    expect_prd(prdt, 1, 0x123456000ull, 512);
}
END_TEST

START_TEST(split_at_4mib)
{
    PRDT_DECL;
    struct ata_sg sg = { 0x200000, 10u << 20 };

    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, &sg, 1, 10u << 20), 3);
    expect_prd(prdt, 0, 0x200000, 4u << 20);
    expect_prd(prdt, 1, 0x600000, 4u << 20);
    expect_prd(prdt, 2, 0xa00000, 2u << 20);
    ck_assert_uint_eq(le32(prdt + 12), 0x3fffff);
    /* the split counts against the entry limit */
    ck_assert_int_eq(ahci_fill_prdt(prdt, 2, &sg, 1, 10u << 20), -EINVAL);
}
END_TEST

START_TEST(uses_only_transfer_length)
{
    PRDT_DECL;
    struct ata_sg sg[] = { { 0x1000, 4096 }, { 0x8000, 8192 }, { 0x20000, 512 } };

    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, sg, 3, 6144), 2);
    expect_prd(prdt, 0, 0x1000, 4096);
    expect_prd(prdt, 1, 0x8000, 2048);
}
END_TEST

START_TEST(rejects_bad_lists)
{
    PRDT_DECL;
    struct ata_sg shrt = { 0x1000, 1024 };
    struct ata_sg odd_len = { 0x1000, 1023 };
    struct ata_sg odd_addr = { 0x1001, 1024 };

    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, &shrt, 1, 2048), -EINVAL);
    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, &odd_len, 1, 1023), -EINVAL);
    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, &odd_addr, 1, 1024), -EINVAL);
    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, NULL, 0, 512), -EINVAL);
}
END_TEST

START_TEST(entry_limit)
{
    PRDT_DECL;
    struct ata_sg sg[AHCI_MAX_SG + 1];

    for (unsigned i = 0; i <= AHCI_MAX_SG; i++)
        sg[i] = (struct ata_sg){ 0x100000 + i * 0x1000, 512 };
    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, sg, AHCI_MAX_SG, AHCI_MAX_SG * 512), AHCI_MAX_SG);
    expect_prd(prdt, AHCI_MAX_SG - 1, 0x100000 + (AHCI_MAX_SG - 1) * 0x1000, 512);
    ck_assert_int_eq(ahci_fill_prdt(prdt, AHCI_MAX_SG, sg, AHCI_MAX_SG + 1, (AHCI_MAX_SG + 1) * 512),
                     -EINVAL);
}
END_TEST

START_TEST(cmd_slot)
{
    uint8_t slot[AHCI_CMD_SLOT_SZ];

    memset(slot, 0xff, sizeof(slot));
    ahci_fill_cmd_slot(slot, AHCI_CMD_FIS_LEN | AHCI_CMD_WRITE | 3u << 16, 0x123456780ull);
    ck_assert_uint_eq(le32(slot), 0x00030045);
    ck_assert_uint_eq(le32(slot + 4), 0); /* PRDBC cleared */
    ck_assert_uint_eq(le32(slot + 8), 0x23456780);
    ck_assert_uint_eq(le32(slot + 12), 0x1);
    for (int i = 16; i < AHCI_CMD_SLOT_SZ; i++)
        ck_assert_uint_eq(slot[i], 0);
}
END_TEST

Suite *prdt_suite(void)
{
    Suite *s = suite_create("prdt");
    TCase *tc = tcase_create("ahci");

    tcase_add_test(tc, layout_alignment);
    tcase_add_test(tc, single_and_64bit);
    tcase_add_test(tc, split_at_4mib);
    tcase_add_test(tc, uses_only_transfer_length);
    tcase_add_test(tc, rejects_bad_lists);
    tcase_add_test(tc, entry_limit);
    tcase_add_test(tc, cmd_slot);
    suite_add_tcase(s, tc);
    return s;
}
