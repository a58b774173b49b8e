/* Fake platform for pure-logic tests; see tests.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

struct plat_completion {
    bool done;
};

static uint32_t f_read(struct sata_platform *p, uint32_t off)
{
    ck_assert_uint_lt(off / 4, FAKE_MMIO_WORDS);
    return p->mmio[off / 4];
}


/* Narrow accesses: lanes of the little-endian word array (a write is logged at its own
 * offset with the narrow value). */
static uint8_t f_read8(struct sata_platform *p, uint32_t off)
{
    return (uint8_t)(f_read(p, off & ~3u) >> 8 * (off & 3));
}

static uint16_t f_read16(struct sata_platform *p, uint32_t off)
{
    ck_assert_uint_eq(off & 1, 0);
    return (uint16_t)(f_read(p, off & ~3u) >> 8 * (off & 2));
}

static void f_write_lanes(struct sata_platform *p, uint32_t off, uint32_t mask, uint32_t val)
{
    unsigned sh = 8 * (off & 3);

    ck_assert_uint_lt(off / 4, FAKE_MMIO_WORDS);
    p->mmio[off / 4] = (p->mmio[off / 4] & ~(mask << sh)) | (val & mask) << sh;
    if (p->n_wlog < FAKE_MAX_EVENTS) {
        p->wlog_off[p->n_wlog] = off;
        p->wlog_val[p->n_wlog++] = val;
    }
}

static void f_write(struct sata_platform *p, uint32_t off, uint32_t val) { f_write_lanes(p, off, 0xffffffffu, val); }
static void f_write8(struct sata_platform *p, uint32_t off, uint8_t val) { f_write_lanes(p, off, 0xffu, val); }

static void f_write16(struct sata_platform *p, uint32_t off, uint16_t val)
{
    ck_assert_uint_eq(off & 1, 0);
    f_write_lanes(p, off, 0xffffu, val);
}

/* fake DMA memory is the CPU's: bus addresses are pointers */
static void *f_dma_cpu_addr(struct sata_platform *p, uint64_t bus, size_t len)
{
    (void)len;
    for (unsigned i = 0; p->bus_base && i < p->n_allocs; i++)
        if (bus >= p->allocs[i].bus && bus - p->allocs[i].bus < p->allocs[i].size)
            return (uint8_t *)p->allocs[i].cpu + (bus - p->allocs[i].bus);
    return p->bus_base ? NULL : (void *)(uintptr_t)bus;
}

static int f_dma_alloc(struct sata_platform *p, size_t size, size_t align, struct plat_dma_buf *out)
{
    void *mem;

    ck_assert_uint_lt(p->n_allocs, FAKE_MAX_ALLOCS);
    if (align < sizeof(void *))
        align = sizeof(void *);
    mem = aligned_alloc(align, (size + align - 1) / align * align);
    if (!mem)
        return -ENOMEM;
    memset(mem, 0xa5, size); /* the stack must not rely on zeroed DMA memory */
    out->cpu = mem;
    /* bus_base: 1 MiB apart, aligned as asked (align <= 1 MiB here) */
    out->bus = p->bus_base ? p->bus_base + (uint64_t)p->n_allocs * 0x100000u : (uint64_t)(uintptr_t)mem;
    out->size = size;
    p->allocs[p->n_allocs] = *out;
    p->alloc_align[p->n_allocs] = align;
    p->n_allocs++;
    p->live_allocs++;
    return 0;
}

static void f_dma_free(struct sata_platform *p, struct plat_dma_buf *buf)
{
    free(buf->cpu);
    buf->cpu = NULL;
    p->live_allocs--;
}

static void f_sync(struct sata_platform *p, const struct plat_dma_buf *buf, size_t off, size_t len)
{
    (void)p;
    ck_assert_uint_le(off + len, buf->size);
}

static int f_request_irq(struct sata_platform *p, plat_irq_handler_fn fn, void *arg)
{
    (void)p, (void)fn, (void)arg;
    return 0;
}

static void f_free_irq(struct sata_platform *p) { (void)p; }
static uint64_t f_now(struct sata_platform *p) { return p->now; }
static void f_sleep(struct sata_platform *p, uint64_t ns) { p->now += ns; }

static struct plat_completion *f_comp_create(struct sata_platform *p)
{
    p->live_completions++;
    return calloc(1, sizeof(struct plat_completion));
}

static void f_comp_destroy(struct sata_platform *p, struct plat_completion *c)
{
    p->live_completions--;
    free(c);
}

static void f_comp_reinit(struct sata_platform *p, struct plat_completion *c) { (void)p, c->done = false; }
static void f_complete(struct sata_platform *p, struct plat_completion *c) { (void)p, c->done = true; }

static bool f_wait(struct sata_platform *p, struct plat_completion *c, uint64_t timeout_ns)
{
    if (!c->done && timeout_ns == UINT64_MAX && p->on_wait_forever)
        p->on_wait_forever(p, p->on_wait_arg);
    if (!c->done && timeout_ns != UINT64_MAX && p->on_timed_wait) {
        void (*fn)(struct sata_platform *, void *) = p->on_timed_wait;

        p->on_timed_wait = NULL;
        fn(p, p->on_timed_wait_arg);
    }
    if (!c->done && timeout_ns != UINT64_MAX)
        p->now += timeout_ns;
    return c->done;
}

static uint64_t f_timer_arm(struct sata_platform *p, uint64_t delay, void (*fn)(void *), void *arg)
{
    (void)delay;
    p->timers_armed++;
    ++p->next_timer;
    p->timer_fn[p->next_timer % FAKE_MAX_TIMERS] = fn;
    p->timer_arg[p->next_timer % FAKE_MAX_TIMERS] = arg;
    return p->next_timer;
}

void fake_fire_timer(struct sata_platform *p, uint64_t handle)
{
    ck_assert_uint_gt(handle, 0);
    ck_assert_uint_gt(handle + FAKE_MAX_TIMERS, p->next_timer); /* not recycled */
    p->timer_fn[handle % FAKE_MAX_TIMERS](p->timer_arg[handle % FAKE_MAX_TIMERS]);
}

static void f_timer_cancel(struct sata_platform *p, uint64_t handle)
{
    ck_assert_uint_gt(handle, 0);
    p->timers_cancelled++;
}

static void f_schedule_eh(struct sata_platform *p) { p->schedule_eh_calls++; }
static void f_lock(struct sata_platform *p) { ck_assert_int_eq(p->lock_depth++, 0); }
static void f_unlock(struct sata_platform *p) { ck_assert_int_eq(--p->lock_depth, 0); }

static void f_trace(struct sata_platform *p, const struct sata_trace_event *ev)
{
    struct fake_event *e;

    ck_assert_ptr_nonnull(ev->name);
    if (getenv("FAKE_TRACE")) /* debugging aid: the events as the log would show them */
        fprintf(stderr, "%8.3f ata%d%s%.0d %-22s %s\n", (double)p->now / 1e9, ev->port + 1,
                ev->dev >= 0 ? ".0" : "", ev->dev >= 0 ? ev->dev : 0, ev->name, ev->msg ? ev->msg : "");
    if (p->n_ev == FAKE_MAX_EVENTS)
        return;
    e = &p->ev[p->n_ev++];
    snprintf(e->name, sizeof(e->name), "%s", ev->name);
    snprintf(e->msg, sizeof(e->msg), "%s", ev->msg ? ev->msg : "");
    e->port = ev->port;
    e->link = ev->link;
    e->dev = ev->dev;
    e->cls = ev->cls;
}

const struct sata_platform_ops fake_ops = {
    .mmio_read32 = f_read,
    .mmio_write32 = f_write,
    .dma_alloc = f_dma_alloc,
    .dma_free = f_dma_free,
    .dma_sync_for_device = f_sync,
    .dma_sync_for_cpu = f_sync,
    .request_irq = f_request_irq,
    .free_irq = f_free_irq,
    .now_ns = f_now,
    .sleep_ns = f_sleep,
    .completion_create = f_comp_create,
    .completion_destroy = f_comp_destroy,
    .completion_reinit = f_comp_reinit,
    .complete = f_complete,
    .wait_for_completion_timeout = f_wait,
    .timer_arm = f_timer_arm,
    .timer_cancel = f_timer_cancel,
    .schedule_eh = f_schedule_eh,
    .lock = f_lock,
    .unlock = f_unlock,
    .trace = f_trace,
    .mmio_read8 = f_read8,
    .mmio_read16 = f_read16,
    .mmio_write8 = f_write8,
    .mmio_write16 = f_write16,
    .dma_cpu_addr = f_dma_cpu_addr,
};

void fake_init(struct sata_platform *p) { memset(p, 0, sizeof(*p)); }

const struct fake_event *fake_find_nth(const struct sata_platform *p, const char *name, unsigned nth)
{
    for (unsigned i = 0; i < p->n_ev; i++)
        if (!strcmp(p->ev[i].name, name) && !nth--)
            return &p->ev[i];
    return NULL;
}

const struct fake_event *fake_find(const struct sata_platform *p, const char *name)
{
    return fake_find_nth(p, name, 0);
}

int fake_index(const struct sata_platform *p, const char *name)
{
    const struct fake_event *e = fake_find(p, name);

    return e ? (int)(e - p->ev) : -1;
}

unsigned fake_count(const struct sata_platform *p, const char *name)
{
    unsigned n = 0;

    for (unsigned i = 0; i < p->n_ev; i++)
        n += !strcmp(p->ev[i].name, name);
    return n;
}

const struct plat_dma_buf *fake_nth_alloc(const struct sata_platform *p, size_t size, unsigned nth)
{
    for (unsigned i = 0; i < p->n_allocs; i++)
        if (p->allocs[i].size == size && !nth--)
            return &p->allocs[i];
    return NULL;
}

void fake_check_all_freed(const struct sata_platform *p)
{
    ck_assert_uint_eq(p->live_allocs, 0);
    ck_assert_uint_eq(p->live_completions, 0);
}

void put_id_string(uint16_t *id, unsigned word, unsigned len, const char *s)
{
    char buf[64];

    memset(buf, ' ', sizeof(buf));
    memcpy(buf, s, strlen(s));
    for (unsigned i = 0; i < len; i += 2)
        id[word + i / 2] = (uint16_t)((uint8_t)buf[i] << 8 | (uint8_t)buf[i + 1]);
}

void build_id(uint16_t id[ATA_ID_WORDS], const struct id_spec *s)
{
    memset(id, 0, ATA_ID_WORDS * sizeof(id[0]));
    id[0] = 0x0040;                      /* ATA, fixed */
    put_id_string(id, 10, 20, s->serial);
    put_id_string(id, 23, 8, s->fw);
    put_id_string(id, 27, 40, s->model);
    id[47] = s->w47;
    id[49] = (uint16_t)((1u << 9) | (s->no_dma ? 0 : 1u << 8));
    id[53] = (uint16_t)(0x3 | (s->udma ? 0x4 : 0));
    id[59] = s->w59;
    id[60] = (uint16_t)s->lba28_sectors;
    id[61] = (uint16_t)(s->lba28_sectors >> 16);
    id[63] = 0x0007;                     /* MWDMA0-2 */
    id[64] = 0x0003;                     /* PIO3-4 */
    id[75] = (uint16_t)(s->depth ? s->depth - 1 : 0);
    id[76] = (uint16_t)(0x0006 | (s->ncq ? 1u << 8 : 0));
    id[80] = s->w80;
    id[82] = 1u << 5;                    /* write cache supported */
    id[83] = (uint16_t)(0x4000 | (1u << 12) | (s->lba48_sectors ? (1u << 10) | (1u << 13) : 0));
    id[84] = 0x4000;
    id[85] = 1u << 5;                    /* write cache enabled */
    id[86] = id[83];
    id[87] = 0x4000;
    id[88] = s->udma;
    for (unsigned i = 0; i < 4; i++)
        id[100 + i] = (uint16_t)(s->lba48_sectors >> (16 * i));
}

void build_id_bytes(uint8_t raw[ATA_SECT_SIZE], const struct id_spec *s)
{
    uint16_t id[ATA_ID_WORDS];

    build_id(id, s);
    for (unsigned i = 0; i < ATA_ID_WORDS; i++)
        put_le16(raw + 2 * i, id[i]);
}
