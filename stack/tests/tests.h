/* Shared declarations of the stack unit tests: the suites and a fake platform.
 * The fake platform is plain memory and bookkeeping (MMIO is an array, DMA is host memory,
 * time only moves when someone sleeps): it lets pure logic run, it does not emulate AHCI. */
#ifndef STACK_TESTS_H
#define STACK_TESTS_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

Suite *fis_suite(void);
Suite *identify_suite(void);
Suite *qc_suite(void);
Suite *prdt_suite(void);
Suite *bio_suite(void);
Suite *ahci_suite(void);
Suite *eh_suite(void);
Suite *sil24_suite(void);
Suite *hotplug_suite(void);
Suite *pmp_suite(void);
Suite *ahci_fbs_suite(void);

enum { FAKE_MMIO_WORDS = 0xA000 / 4, /* sil24: BAR0 + BAR2 window */ FAKE_MAX_EVENTS = 2048, FAKE_MAX_ALLOCS = 64,
       FAKE_MAX_TIMERS = 64 };

struct fake_event {
    char name[48];
    char msg[160];
    int port, link, dev;
    enum sata_trace_class cls;
};

struct sata_platform {
    uint32_t mmio[FAKE_MMIO_WORDS];
    uint64_t now;
    int lock_depth;
    unsigned schedule_eh_calls;
    uint64_t next_timer;
    unsigned timers_armed, timers_cancelled;
    struct plat_dma_buf allocs[FAKE_MAX_ALLOCS];
    size_t alloc_align[FAKE_MAX_ALLOCS];
    unsigned n_allocs, live_allocs, live_completions;
    struct fake_event ev[FAKE_MAX_EVENTS];
    unsigned n_ev;
    uint32_t wlog_off[FAKE_MAX_EVENTS], wlog_val[FAKE_MAX_EVENTS]; /* MMIO writes, in order */
    unsigned n_wlog;
    /* runs when someone waits for ever on an incomplete completion: stands in for the
     * other context (e.g. the EH thread) that would complete it */
    void (*on_wait_forever)(struct sata_platform *p, void *arg);
    void *on_wait_arg;
    /* armed timers by handle (mod FAKE_MAX_TIMERS), so a test can fire one */
    void (*timer_fn[FAKE_MAX_TIMERS])(void *arg);
    void *timer_arg[FAKE_MAX_TIMERS];
};
/* Run the callback of a timer armed with this handle (as if it expired). */
void fake_fire_timer(struct sata_platform *p, uint64_t handle);

extern const struct sata_platform_ops fake_ops;
void fake_init(struct sata_platform *p);
/* first event with this name, or NULL */
const struct fake_event *fake_find(const struct sata_platform *p, const char *name);

/* IDENTIFY block built from explicit fields (hardware.md 8.3). */
struct id_spec {
    const char *model, *serial, *fw;
    uint32_t lba28_sectors;
    uint64_t lba48_sectors; /* 0: no 48-bit feature */
    bool ncq;
    unsigned depth;          /* queue depth, 1..32 */
    uint16_t udma;           /* word 88 supported bits, 0: word not valid */
    bool no_dma;
    uint16_t w47, w59;       /* multiple count words */
    uint16_t w80;            /* major versions */
};
void build_id(uint16_t id[ATA_ID_WORDS], const struct id_spec *s);
void put_id_string(uint16_t *id, unsigned word, unsigned len, const char *s);

#endif
