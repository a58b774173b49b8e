/* Block-layer disk names (core/disk.c): sd's naming (sda..sdz, sdaa.., the lowest free index
 * at attach, freed at detach) and the I/O error line's fields. */
#include <string.h>

#include "tests.h"

static struct ata_host host;
static struct ata_port port;
static struct ata_link link;

static void rig(void)
{
    memset(&host, 0, sizeof(host));
    memset(&port, 0, sizeof(port));
    memset(&link, 0, sizeof(link));
    port.host = &host;
    link.ap = &port;
    link.pmp = -1;
}

static void attach(struct ata_device *d, enum ata_dev_class cls)
{
    memset(d, 0, sizeof(*d));
    d->link = &link;
    d->class = cls;
    ata_disk_attach(d);
}

static const char *name_of(const struct ata_device *d)
{
    static char buf[16];

    ata_disk_name(d, buf, sizeof(buf));
    return buf;
}

/* sd_format_disk_name: bijective base 26 after "sd" */
START_TEST(names_in_attach_order)
{
    static struct ata_device d[703];

    rig();
    for (unsigned i = 0; i < 703; i++)
        attach(&d[i], ATA_DEV_ATA);
    ck_assert_str_eq(name_of(&d[0]), "sda");
    ck_assert_str_eq(name_of(&d[1]), "sdb");
    ck_assert_str_eq(name_of(&d[25]), "sdz");
    ck_assert_str_eq(name_of(&d[26]), "sdaa");
    ck_assert_str_eq(name_of(&d[51]), "sdaz");
    ck_assert_str_eq(name_of(&d[52]), "sdba");
    ck_assert_str_eq(name_of(&d[701]), "sdzz");
    ck_assert_str_eq(name_of(&d[702]), "sdaaa");
}
END_TEST

/* sd takes the lowest free index (ida), so a replacement disk gets the name of the one that left */
START_TEST(detach_frees_the_name)
{
    struct ata_device a, b, c, pmp, atapi;

    rig();
    attach(&a, ATA_DEV_ATA);
    attach(&b, ATA_DEV_ATA);
    attach(&pmp, ATA_DEV_PMP);
    attach(&atapi, ATA_DEV_ATAPI);
    ck_assert_uint_eq(pmp.disk, 0); /* no block device for a PMP, sr0 (not sd) for ATAPI */
    ck_assert_uint_eq(atapi.disk, 0);
    ck_assert_str_eq(name_of(&pmp), "?");
    ata_disk_detach(&a);
    ck_assert_uint_eq(a.disk, 0);
    attach(&c, ATA_DEV_ATA);
    ck_assert_str_eq(name_of(&c), "sda");
    ck_assert_str_eq(name_of(&b), "sdb");
    ata_disk_attach(&b); /* attaching twice keeps the name */
    ck_assert_str_eq(name_of(&b), "sdb");
}
END_TEST

Suite *disk_suite(void)
{
    Suite *s = suite_create("disk");
    TCase *tc = tcase_create("names");

    tcase_add_test(tc, names_in_attach_order);
    tcase_add_test(tc, detach_frees_the_name);
    suite_add_tcase(s, tc);
    return s;
}
