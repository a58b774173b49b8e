/* EH policy registry and the pure helpers every profile shares: the error ring, error
 * categories, window counting, transfer-mask and SATA-speed step-down, reset choice. */
#include <string.h>

#include "eh_policy.h"
#include "internal.h"

/* ---- registry: one line per profile, the first is the default ---- */

static const struct ata_eh_policy *const registry[] = {
    &ata_eh_policy_modern,
    &ata_eh_policy_libata2006,
    &ata_eh_policy_libata4x,
    &ata_eh_policy_libata2620,
    &ata_eh_policy_libata49,
};

const struct ata_eh_policy *ata_eh_policy_default(void) { return registry[0]; }
size_t ata_eh_policy_count(void) { return ATA_ARRAY_SIZE(registry); }
const struct ata_eh_policy *ata_eh_policy_at(size_t i) { return i < ATA_ARRAY_SIZE(registry) ? registry[i] : NULL; }

const struct ata_eh_policy *ata_eh_policy_find(const char *name)
{
    if (!name)
        return ata_eh_policy_default();
    for (size_t i = 0; i < ATA_ARRAY_SIZE(registry); i++)
        if (!strcmp(registry[i]->name, name))
            return registry[i];
    return NULL;
}

/* ---- error ring ---- */

void ata_ering_record(struct ata_ering *e, unsigned eflags, unsigned err_mask, uint64_t now)
{
    if (!err_mask)
        return;
    e->cursor = (e->cursor + 1) % ATA_ERING_SIZE;
    e->ring[e->cursor].eflags = eflags;
    e->ring[e->cursor].err_mask = err_mask;
    e->ring[e->cursor].timestamp = now;
}

const struct ata_ering_entry *ata_ering_top(const struct ata_ering *e)
{
    const struct ata_ering_entry *ent = &e->ring[e->cursor];

    return ent->err_mask && !(ent->eflags & ATA_EFLAG_OLD_ER) ? ent : NULL;
}

int ata_ering_map(struct ata_ering *e, int (*fn)(struct ata_ering_entry *ent, void *arg), void *arg)
{
    unsigned idx = e->cursor;

    for (unsigned n = 0; n < ATA_ERING_SIZE; n++) {
        struct ata_ering_entry *ent = &e->ring[idx];
        int rc;

        if (!ent->err_mask || (ent->eflags & ATA_EFLAG_OLD_ER))
            break;
        rc = fn(ent, arg);
        if (rc)
            return rc;
        idx = (idx + ATA_ERING_SIZE - 1) % ATA_ERING_SIZE;
    }
    return 0;
}

static int mark_old(struct ata_ering_entry *ent, void *arg)
{
    (void)arg;
    ent->eflags |= ATA_EFLAG_OLD_ER;
    return 0;
}

void ata_ering_clear(struct ata_ering *e, bool old)
{
    if (old)
        ata_ering_map(e, mark_old, NULL);
    else
        memset(e, 0, sizeof(*e));
}

/* ---- categories ---- */

enum ata_ecat ata_eh_categorize(unsigned err_mask, unsigned eflags, bool dubious, bool *xfer_ok)
{
    int base = 0;
    bool ok = true;

    if (dubious) {
        if (xfer_ok) {
            /* a verified transfer makes this and every older entry non-dubious */
            if (!(eflags & ATA_EFLAG_DUBIOUS_XFER))
                *xfer_ok = true;
            ok = *xfer_ok;
        } else {
            ok = !(eflags & ATA_EFLAG_DUBIOUS_XFER);
        }
        if (!ok)
            base = ATA_ECAT_DUBIOUS_NONE;
    }
    if (err_mask & AC_ERR_ATA_BUS)
        return (enum ata_ecat)(base + ATA_ECAT_ATA_BUS);
    if (err_mask & AC_ERR_TIMEOUT)
        return (enum ata_ecat)(base + ATA_ECAT_TOUT_HSM);
    if (eflags & ATA_EFLAG_IS_IO) {
        if (err_mask & AC_ERR_HSM)
            return (enum ata_ecat)(base + ATA_ECAT_TOUT_HSM);
        if ((err_mask & (AC_ERR_DEV | AC_ERR_MEDIA | AC_ERR_INVALID)) == AC_ERR_DEV)
            return (enum ata_ecat)(base + ATA_ECAT_UNK_DEV);
    }
    return ATA_ECAT_NONE;
}

struct count_arg {
    struct ata_spdn_count *c;
};

static int count_one(struct ata_ering_entry *ent, void *arg)
{
    struct ata_spdn_count *c = ((struct count_arg *)arg)->c;
    enum ata_ecat cat;

    if (ent->timestamp < c->since)
        return -1;
    cat = ata_eh_categorize(ent->err_mask, ent->eflags, c->dubious, &c->xfer_ok);
    c->nr_errors[cat]++;
    return 0;
}

void ata_spdn_count_window(const struct ata_ering *e, uint64_t now, uint64_t window_ns, bool dubious,
                           struct ata_spdn_count *out)
{
    struct count_arg a = { out };

    memset(out, 0, sizeof(*out));
    out->since = now > window_ns ? now - window_ns : 0;
    out->dubious = dubious;
#ifdef SATASIM_PLANT_SPDN_WINDOW_ONE_LATE
    {   /* planted: the window is counted from the entry before the newest error */
        struct ata_ering older = *e;

        older.cursor = (older.cursor + ATA_ERING_SIZE - 1) % ATA_ERING_SIZE;
        ata_ering_map(&older, count_one, &a);
        return;
    }
#endif
    ata_ering_map((struct ata_ering *)e, count_one, &a);
}

/* ---- step-down helpers ---- */

static int highest_bit(unsigned m)
{
    int b = -1;

    while (m) {
        b++;
        m >>= 1;
    }
    return b;
}

int ata_down_xfermask(unsigned mask, enum ata_dnxfer sel, unsigned *out)
{
    unsigned pio = mask & ATA_MASK_PIO, mwdma = mask & ATA_MASK_MWDMA, udma = mask & ATA_MASK_UDMA;
    int b;

    switch (sel) {
    case ATA_DNXFER_PIO:
        b = highest_bit(pio);
        pio &= ~(1u << (b < 0 ? 0 : b));
        break;
    case ATA_DNXFER_DMA:
        if (udma) {
            udma &= ~(1u << highest_bit(udma));
            if (!udma)
                return -ENOENT;
        } else if (mwdma) {
            mwdma &= ~(1u << highest_bit(mwdma));
            if (!mwdma)
                return -ENOENT;
        }
        break;
    case ATA_DNXFER_40C:
        udma &= (0x7u << ATA_SHIFT_UDMA); /* UDMA/33 and below */
        break;
    case ATA_DNXFER_FORCE_PIO0:
        pio &= 1u;
        mwdma = udma = 0;
        break;
    case ATA_DNXFER_FORCE_PIO:
        mwdma = udma = 0;
        break;
    }
    if (!pio)
        return -ENOENT;
    if ((pio | mwdma | udma) == mask)
        return -ENOENT;
    *out = pio | mwdma | udma;
    return 0;
}

int sata_down_spd_mask(unsigned limit, unsigned cur_spd, unsigned spd_limit, unsigned *out)
{
    unsigned mask = limit & 0x7u;
    int bit;

    if (!(mask & (mask - 1))) /* one speed allowed (or none): nothing slower */
        return -EINVAL;
    mask &= ~(1u << highest_bit(mask));
    /* only speeds strictly below the one the link runs at now */
    if (cur_spd) {
        if (cur_spd <= 1)
            return -EINVAL;
#ifdef SATASIM_PLANT_SPD_DOWN_KEEPS_CURRENT
        mask &= (1u << cur_spd) - 1; /* planted: off by one, the current speed stays allowed */
#else
        mask &= (1u << (cur_spd - 1)) - 1;
#endif
        if (!mask)
            return -EINVAL;
    }
    if (spd_limit) {
        unsigned capped = mask & ((1u << spd_limit) - 1);

        if (capped)
            mask = capped;
        else {
            bit = 0;
            while (!(mask & (1u << bit)))
                bit++;
            mask = 1u << bit;
        }
    }
    *out = mask;
    return 0;
}

/* ---- reset choice ---- */

unsigned ata_reset_choose(const struct ata_eh_policy *pol, const struct ata_reset_choice_in *in)
{
    if (!in->have_softreset && !in->have_hardreset)
        return 0;
    if (!in->have_softreset)
        return ATA_EH_HARDRESET;
    if (!in->have_hardreset)
        return ATA_EH_SOFTRESET;
    if (pol->prefer_hardreset)
        return ATA_EH_HARDRESET;
    /* 2006: softreset unless a hardreset alone was asked for or the speed must change.
     * "Some reset" (both bits) is a softreset here. */
#ifdef SATASIM_PLANT_RESET_2006_HARD_FOR_SOME
    if (in->spd_change_pending || (in->action & ATA_EH_HARDRESET)) /* planted: "some reset" is hard */
#else
    if (in->spd_change_pending || (in->action & ATA_EH_RESET) == ATA_EH_HARDRESET)
#endif
        return ATA_EH_HARDRESET;
    return ATA_EH_SOFTRESET;
}

unsigned ata_reset_deadline_ms(const struct ata_eh_policy *pol, unsigned try)
{
    return try < pol->n_reset_tries ? pol->reset_timeouts_ms[try] : 0;
}
