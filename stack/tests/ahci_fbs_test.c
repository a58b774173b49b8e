/* AHCI FIS-based switching in the LLD (libahci's FBS), against the fake platform's plain
 * register array: the 4 KiB RX FIS area allocated at create, FBS turned on and off at PMP
 * attach/detach, per-link deferral while it is on, PxFBS.DEV written on issue, results read
 * from the device's own area, and a single device error that aborts one link only. */
#include <string.h>

#include "tests.h"
#include "ahci.h"

/* 64-bit, NCQ, SNTF, PMP, FBS, CLO, 6 Gbps, 32 slots, 1 port */
#define CAP_FBS (0xc1301f00u | HOST_CAP_SNTF | HOST_CAP_PMP | HOST_CAP_FBS)
#define P0(reg) (AHCI_PORT_BASE(0) + (reg))

static struct ata_host *fbs_host(struct sata_platform *p, uint32_t cap, bool fbscp)
{
    struct ata_host *h;

    fake_init(p);
    p->mmio[HOST_CAP / 4] = cap;
    p->mmio[HOST_CTL / 4] = HOST_AHCI_EN;
    p->mmio[HOST_PORTS_IMPL / 4] = 1;
    p->mmio[HOST_VERSION / 4] = 0x00010301;
    p->mmio[P0(PORT_CMD) / 4] = fbscp ? PORT_CMD_FBSCP : 0;
    h = ahci_host_create(p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(h);
    return h;
}

static const struct plat_dma_buf *fbs_area(const struct sata_platform *p)
{
    return fake_nth_alloc(p, AHCI_RX_FIS_FBS_SZ, 0);
}

/* Two fan-out links with an enabled disk each, as PMP attach leaves them. */
static void two_links(struct ata_port *ap)
{
    ap->nr_pmp_links = 2;
    for (unsigned i = 0; i < 2; i++) {
        struct ata_device *dev = &ap->pmp_link[i].device[0];

        dev->class = ATA_DEV_ATA;
        dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | ATA_DFLAG_LBA48 | ATA_DFLAG_DMA | ATA_DFLAG_NCQ;
        dev->n_sectors = 1u << 20;
        dev->max_sectors = 65535;
        dev->ncq_depth = 31;
    }
}

static struct ata_queued_cmd *mk_qc(struct ata_port *ap, unsigned tag, unsigned link, enum ata_io_mode mode)
{
    struct ata_queued_cmd *qc = &ap->qcmd[tag];
    struct ata_bio bio = { .op = ATA_BIO_READ, .mode = mode, .lba = 8 * tag, .n_sectors = 8 };

    memset(qc, 0, sizeof(*qc));
    qc->ap = ap;
    qc->tag = tag;
    qc->hw_tag = tag;
    qc->dev = &ap->pmp_link[link].device[0];
    ck_assert_int_eq(ata_bio_build_tf(qc->dev, &bio, tag, &qc->tf), 0);
    return qc;
}

/* In flight as ata_qc_issue leaves a command (without the LLD). */
static void mark_active(struct ata_queued_cmd *qc)
{
    struct ata_link *link = qc->dev->link;

    qc->flags = ATA_QCFLAG_ACTIVE;
    qc->ap->qc_active |= 1u << qc->tag;
    if (ata_is_ncq(&qc->tf)) {
        link->sactive |= 1u << qc->tag;
        link->nr_ncq++;
    } else {
        link->active_tag = qc->tag;
    }
}

/* A port of an FBS-capable HBA (or one without PxCMD.FBSCP) after PMP attach. */
static struct ata_host *fbs_host_attached(struct sata_platform *p, bool fbscp)
{
    struct ata_host *h = fbs_host(p, CAP_FBS, fbscp);

    two_links(&h->ports[0]);
    h->ports[0].ops->pmp_attach(&h->ports[0]);
    return h;
}

/* The fan-out links were the test's, not set up by EH: forget them before teardown. */
static void fbs_host_destroy(struct ata_host *h)
{
    h->ports[0].nr_pmp_links = 0;
    ata_host_destroy(h);
}

/* Tag 2 on link 0 and tag 3 on link 1 in flight when the HBA raises a task file error with
 * this PxFBS; the interrupt is handled. Returns where the handler's register writes start. */
static unsigned tf_error_on_two_links(struct sata_platform *p, struct ata_host *h, uint32_t fbs,
                                      struct ata_queued_cmd **q0, struct ata_queued_cmd **q1)
{
    unsigned n_w;

    *q0 = mk_qc(&h->ports[0], 2, 0, ATA_IO_DMA);
    *q1 = mk_qc(&h->ports[0], 3, 1, ATA_IO_DMA);
    mark_active(*q0);
    mark_active(*q1);
    p->mmio[HOST_IRQ_STAT / 4] = 1;
    p->mmio[P0(PORT_IRQ_STAT) / 4] = PORT_IRQ_TF_ERR;
    p->mmio[P0(PORT_FBS) / 4] = fbs;
    n_w = p->n_wlog;
    h->ops->irq_handler(h);
    return n_w;
}

/* What EH would leave: the commands gone, nothing pending. */
static void forget_cmds(struct ata_port *ap, struct ata_queued_cmd *q0, struct ata_queued_cmd *q1)
{
    q0->flags = q1->flags = 0;
    ap->qc_active = 0;
    ap->pflags &= ~(unsigned)ATA_PFLAG_EH_PENDING;
}

static unsigned fbs_writes(const struct sata_platform *p, unsigned from)
{
    unsigned n = 0;

    for (unsigned i = from; i < p->n_wlog; i++)
        n += p->wlog_off[i] == P0(PORT_FBS);
    return n;
}

START_TEST(create_allocates_fbs_area)
{
    struct sata_platform p;
    struct ata_host *h = fbs_host(&p, CAP_FBS, true);
    const struct plat_dma_buf *a = fbs_area(&p);

    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->bus % AHCI_RX_FIS_FBS_SZ, 0);
    /* port init programs PxFB with it (ata_host_start's job; done here by hand) */
    ata_host_destroy(h);
    ck_assert_uint_eq(p.live_allocs, 0);

    /* without CAP.FBS: no extra area */
    h = fbs_host(&p, CAP_FBS & ~HOST_CAP_FBS, true);
    ck_assert_ptr_null(fbs_area(&p));
    ata_host_destroy(h);
}
END_TEST

START_TEST(attach_enables_detach_disables)
{
    struct sata_platform p;
    struct ata_host *h = fbs_host_attached(&p, true);
    struct ata_port *ap = &h->ports[0];
    const struct fake_event *e;

    ck_assert(p.mmio[P0(PORT_CMD) / 4] & PORT_CMD_PMP);
    ck_assert(p.mmio[P0(PORT_FBS) / 4] & PORT_FBS_EN);
    e = fake_find(&p, "ahci.fbs_enabled");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->msg, "FBS is enabled");
    ap->ops->pmp_detach(ap);
    ck_assert(!(p.mmio[P0(PORT_CMD) / 4] & PORT_CMD_PMP));
    ck_assert(!(p.mmio[P0(PORT_FBS) / 4] & PORT_FBS_EN));
    e = fake_find(&p, "ahci.fbs_disabled");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->msg, "FBS is disabled");
    fbs_host_destroy(h);

    /* a port without PxCMD.FBSCP keeps command-based switching */
    h = fbs_host_attached(&p, false);
    ck_assert(p.mmio[P0(PORT_CMD) / 4] & PORT_CMD_PMP);
    ck_assert(!(p.mmio[P0(PORT_FBS) / 4] & PORT_FBS_EN));
    ck_assert_ptr_null(fake_find(&p, "ahci.fbs_enabled"));
    fbs_host_destroy(h);
}
END_TEST

START_TEST(defer_per_link_with_fbs)
{
    struct sata_platform p;
    struct ata_host *h = fbs_host_attached(&p, true);
    struct ata_port *ap = &h->ports[0];
    struct ata_queued_cmd *busy, *other, *same;

    busy = mk_qc(ap, 3, 0, ATA_IO_DMA);
    mark_active(busy);
    other = mk_qc(ap, 4, 1, ATA_IO_DMA);
    /* FBS: link 1 is free although link 0 is busy; link 0 follows the standard rules */
    ck_assert(!ap->ops->qc_defer(other));
    same = mk_qc(ap, 5, 0, ATA_IO_NCQ);
    ck_assert(ap->ops->qc_defer(same));
    /* without FBS: command-based switching defers link 1 */
    ap->ops->pmp_detach(ap);
    ap->nr_pmp_links = 2;
    ck_assert(ap->ops->qc_defer(other));
    ap->qc_active = 0;
    ap->pmp_link[0].active_tag = ATA_TAG_NONE;
    fbs_host_destroy(h);
}
END_TEST

START_TEST(issue_sets_dev_and_rtf_from_own_area)
{
    struct sata_platform p;
    struct ata_host *h = fbs_host_attached(&p, true);
    struct ata_port *ap = &h->ports[0];
    const struct plat_dma_buf *a = fbs_area(&p);
    struct ata_queued_cmd *qc;
    unsigned n_w;
    uint8_t *d2h;

    qc = mk_qc(ap, 6, 1, ATA_IO_DMA);
    ap->ops->qc_prep(qc);
    n_w = p.n_wlog;
    ap->ops->qc_issue(qc);
    ck_assert_uint_eq(p.wlog_off[n_w], P0(PORT_FBS));
    ck_assert_uint_eq(p.wlog_val[n_w], PORT_FBS_EN | 1u << PORT_FBS_DEV_SHIFT);
    ck_assert_uint_eq(p.wlog_off[n_w + 1], P0(PORT_CMD_ISSUE));
    ck_assert_uint_eq(p.wlog_val[n_w + 1], 1u << 6);
    /* same device again: DEV is not rewritten */
    n_w = p.n_wlog;
    ap->ops->qc_issue(qc);
    ck_assert_uint_eq(fbs_writes(&p, n_w), 0);
    /* the result comes from PM port 1's area (PxFB + 256), not area 0 */
    d2h = (uint8_t *)a->cpu + 1 * AHCI_RX_FIS_SZ + RX_FIS_D2H_REG;
    d2h[0] = 0x34;
    d2h[2] = 0x51;
    d2h[3] = 0x04;
    ((uint8_t *)a->cpu)[RX_FIS_D2H_REG + 2] = 0x50;
    ap->ops->qc_fill_rtf(qc);
    ck_assert_uint_eq(qc->result_tf.command, 0x51);
    ck_assert_uint_eq(qc->result_tf.feature, 0x04);
    fbs_host_destroy(h);
}
END_TEST

/* TFES with PxFBS.SDE and DWE = 1: only link 1's command goes to EH, link 0's stays in
 * flight, DEC is written; without SDE the whole port is aborted. */
START_TEST(single_device_error_aborts_one_link)
{
    struct sata_platform p;
    struct ata_host *h = fbs_host_attached(&p, true);
    struct ata_port *ap = &h->ports[0];
    struct ata_queued_cmd *q0, *q1;
    const struct fake_event *e;
    unsigned n_w, n_dec = 0;

    ap->pflags &= ~(unsigned)ATA_PFLAG_FROZEN; /* as after the first reset */
    p.mmio[P0(PORT_CMD_ISSUE) / 4] = (1u << 2) | (1u << 3);
    n_w = tf_error_on_two_links(&p, h, PORT_FBS_EN | PORT_FBS_SDE | 1u << PORT_FBS_DWE_SHIFT, &q0, &q1);
    ck_assert(q1->flags & ATA_QCFLAG_FAILED);
    ck_assert(q1->err_mask & AC_ERR_DEV);
    ck_assert(!(q0->flags & ATA_QCFLAG_FAILED));
    ck_assert(q0->flags & ATA_QCFLAG_ACTIVE);
    ck_assert(ap->pflags & ATA_PFLAG_EH_PENDING);
    ck_assert(!(ap->pflags & ATA_PFLAG_FROZEN));
    for (unsigned i = n_w; i < p.n_wlog; i++)
        n_dec += p.wlog_off[i] == P0(PORT_FBS) && (p.wlog_val[i] & PORT_FBS_DEC);
    ck_assert_uint_eq(n_dec, 1);
    e = fake_find(&p, "ahci.fbs_dev_error");
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->link, 1);

    /* the same error without SDE: port-wide */
    forget_cmds(ap, q0, q1);
    ap->pmp_link[0].active_tag = ap->pmp_link[1].active_tag = ATA_TAG_NONE;
    n_w = tf_error_on_two_links(&p, h, PORT_FBS_EN, &q0, &q1);
    ck_assert(q0->flags & ATA_QCFLAG_FAILED);
    ck_assert(q1->flags & ATA_QCFLAG_FAILED);
    for (unsigned i = n_w; i < p.n_wlog; i++)
        ck_assert(!(p.wlog_off[i] == P0(PORT_FBS) && (p.wlog_val[i] & PORT_FBS_DEC)));

    forget_cmds(ap, q0, q1);
    fbs_host_destroy(h);
}
END_TEST

Suite *ahci_fbs_suite(void)
{
    Suite *s = suite_create("ahci_fbs");
    TCase *tc = tcase_create("fbs");

    tcase_add_test(tc, create_allocates_fbs_area);
    tcase_add_test(tc, attach_enables_detach_disables);
    tcase_add_test(tc, defer_per_link_with_fbs);
    tcase_add_test(tc, issue_sets_dev_and_rtf_from_own_area);
    tcase_add_test(tc, single_device_error_aborts_one_link);
    suite_add_tcase(s, tc);
    return s;
}
