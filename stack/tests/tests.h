/* Shared declarations of the stack unit tests: the suites, a fake platform and a booted
 * one-port host for the EH-level tests (eh_rig.c).
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
Suite *disk_suite(void);
Suite *sff_suite(void);
Suite *sff_slave_suite(void);
Suite *force_suite(void);
Suite *atapi_suite(void);
Suite *sff_atapi_suite(void);
Suite *sat_suite(void);

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
    uint64_t bus_base; /* nonzero: DMA bus addresses from here, 1 MiB apart, not the pointers */
    uint32_t wlog_off[FAKE_MAX_EVENTS], wlog_val[FAKE_MAX_EVENTS]; /* MMIO writes, in order */
    unsigned n_wlog;
    /* runs when someone waits for ever on an incomplete completion: stands in for the
     * other context (e.g. the EH thread) that would complete it */
    void (*on_wait_forever)(struct sata_platform *p, void *arg);
    void *on_wait_arg;
    /* runs (once, then cleared) when someone waits with a timeout on an incomplete
     * completion, before the time passes: stands in for the hardware finishing work
     * meanwhile (e.g. commands in flight while EH drains them) */
    void (*on_timed_wait)(struct sata_platform *p, void *arg);
    void *on_timed_wait_arg;
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
/* the nth (counted from 0) event with this name, or NULL */
const struct fake_event *fake_find_nth(const struct sata_platform *p, const char *name, unsigned nth);
/* index in p->ev of the first event with this name, or -1 */
int fake_index(const struct sata_platform *p, const char *name);
/* how many events have this name */
unsigned fake_count(const struct sata_platform *p, const char *name);
/* the nth (counted from 0) DMA allocation of this size, or NULL: an LLD's port memory */
const struct plat_dma_buf *fake_nth_alloc(const struct sata_platform *p, size_t size, unsigned nth);
/* every DMA buffer and completion the stack took from the platform was given back */
void fake_check_all_freed(const struct sata_platform *p);

/* little-endian fields of controller memory */
static inline uint16_t le16(const uint8_t *b) { return (uint16_t)(b[0] | b[1] << 8); }
static inline uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* IDENTIFY block built from explicit fields (docs/hardware.md 8.3). */
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
/* The same block as the device sends it (little-endian words), e.g. into a port's id_buf. */
void build_id_bytes(uint8_t raw[ATA_SECT_SIZE], const struct id_spec *s);
void put_id_string(uint16_t *id, unsigned word, unsigned len, const char *s);

/* A one-port host on a test's fake LLD, booted through EH as ata_host_start would; EH runs
 * whenever the stack waits for it. The rig's requests complete into done. */
struct eh_rig {
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_device *dev; /* the host link's */
    int done;
};
/* policy NULL = default; port_flags (ATA_FLAG_*) are set before the boot probe */
struct eh_rig *eh_rig_boot(const struct ata_port_operations *ops, const char *policy, unsigned port_flags);
/* the same, calling before_probe(port) before the boot probe (e.g. ata_slave_link_init) */
struct eh_rig *eh_rig_boot_with(const struct ata_port_operations *ops, const char *policy, unsigned port_flags,
                                void (*before_probe)(struct ata_port *ap));
void eh_rig_free(struct eh_rig *r);
/* an 8-sector read at lba counted in r->done */
struct ata_bio eh_rig_bio(struct eh_rig *r, enum ata_io_mode mode, uint64_t lba);
/* n such reads at lba 0, 8, 16, ... into b, each submitted to dev */
void eh_rig_submit_reads(struct eh_rig *r, struct ata_device *dev, struct ata_bio *b, unsigned n);
/* the HBA finished every command in flight without error; their callbacks run */
void eh_rig_complete_all(struct eh_rig *r);

#endif
