/* One Check runner for all stack suites. */
#include <stdlib.h>

#include "tests.h"

int main(void)
{
    SRunner *sr = srunner_create(fis_suite());
    int failed;

    srunner_add_suite(sr, identify_suite());
    srunner_add_suite(sr, qc_suite());
    srunner_add_suite(sr, prdt_suite());
    srunner_add_suite(sr, bio_suite());
    srunner_add_suite(sr, ahci_suite());
    srunner_add_suite(sr, eh_suite());
    srunner_add_suite(sr, sil24_suite());
    srunner_add_suite(sr, hotplug_suite());
    srunner_add_suite(sr, pmp_suite());
    srunner_add_suite(sr, ahci_fbs_suite());
    srunner_add_suite(sr, disk_suite());
    srunner_add_suite(sr, sff_suite());
    srunner_add_suite(sr, sff_slave_suite());
    srunner_add_suite(sr, force_suite());
    srunner_add_suite(sr, atapi_suite());
    srunner_add_suite(sr, sff_atapi_suite());
    srunner_add_suite(sr, sat_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
