/* The ATAPI steps of the SFF HSM, on a SiI3112 channel over the fake platform's register
 * array: the CDB goes out through the Data register on the first DRQ (and a DMA packet's bus
 * master starts after it); a data block moves exactly the byte count LBA Mid/High give; an
 * interrupt reason that is not data in the command's direction, a byte count of 0, data
 * beyond the buffer and DRQ with a device error are HSM violations that fail the command
 * with AC_ERR_HSM and libata's description, moving no data. */
#include <stdio.h>
#include <string.h>

#include "tests.h"
#include "sata_sil.h"

struct rig {
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_queued_cmd *qc;
    struct ata_sg sg;
    uint8_t buf[4096];
};

static void rig_init(struct rig *r, enum ata_prot prot, uint32_t nbytes)
{
    fake_init(&r->p);
    r->h = sil_host_create(&r->p, &fake_ops, NULL);
    ck_assert_ptr_nonnull(r->h);
    r->ap = &r->h->ports[0];
    r->qc = &r->ap->qcmd[0];
    memset(r->qc, 0, sizeof(*r->qc));
    memset(r->buf, 0, sizeof(r->buf));
    r->qc->ap = r->ap;
    r->qc->dev = &r->ap->link.device[0];
    r->qc->dev->cdb_len = 12;
    r->qc->tf.protocol = prot;
    r->qc->tf.command = ATA_CMD_PACKET;
    for (unsigned i = 0; i < 12; i++)
        r->qc->cdb[i] = (uint8_t)(0x28 + i);
    r->sg.bus = (uint64_t)(uintptr_t)r->buf;
    r->sg.len = nbytes;
    r->qc->sg = &r->sg;
    r->qc->n_sg = 1;
    r->qc->nbytes = nbytes;
    ata_sff(r->ap)->cur_sg = 0;
    ata_sff(r->ap)->sg_off = 0;
    ata_sff(r->ap)->done = 0;
}

static void rig_done(struct rig *r)
{
    r->ap->link.eh_info.desc[0] = 0;
    ata_host_destroy(r->h);
    fake_check_all_freed(&r->p);
}

static uint32_t tf_reg(unsigned reg) { return sil_port[0].tf + reg; }

/* What the device shows for a data block: interrupt reason, byte count, a data word. */
static void device_offers(struct rig *r, uint8_t ireason, uint16_t bytes, uint16_t word)
{
    fake_ops.mmio_write8(&r->p, tf_reg(ATA_REG_NSECT), ireason);
    fake_ops.mmio_write8(&r->p, tf_reg(ATA_REG_LBAM), (uint8_t)bytes);
    fake_ops.mmio_write8(&r->p, tf_reg(ATA_REG_LBAH), (uint8_t)(bytes >> 8));
    fake_ops.mmio_write16(&r->p, tf_reg(ATA_REG_DATA), word);
    r->p.n_wlog = 0;
}

static void step(struct rig *r, enum ata_hsm_state st, uint8_t status)
{
    ata_sff(r->ap)->hsm = st;
    ata_lock(r->h);
    ata_sff_hsm_move(r->ap, r->qc, status, false);
    ata_unlock(r->h);
}

START_TEST(cdb_goes_out_on_the_first_drq)
{
    struct rig r;
    unsigned words = 0;

    rig_init(&r, ATAPI_PROT_PIO, 2048);
    r.p.n_wlog = 0;
    step(&r, HSM_ST_FIRST, ATA_DRDY | ATA_DRQ);
    for (unsigned i = 0; i < r.p.n_wlog; i++) {
        if (r.p.wlog_off[i] != tf_reg(ATA_REG_DATA))
            continue;
        ck_assert_uint_eq(r.p.wlog_val[i], (uint32_t)(r.qc->cdb[2 * words] | r.qc->cdb[2 * words + 1] << 8));
        words++;
    }
    ck_assert_uint_eq(words, 6); /* 12 bytes */
    ck_assert_int_eq(ata_sff(r.ap)->hsm, HSM_ST_DATA);
    ck_assert_uint_eq(r.qc->err_mask, 0);
    rig_done(&r);
}
END_TEST

START_TEST(dma_packet_starts_the_bus_master_after_the_cdb)
{
    struct rig r;
    int cdb_last = -1, start = -1;

    rig_init(&r, ATAPI_PROT_DMA, 2048);
    r.p.n_wlog = 0;
    step(&r, HSM_ST_FIRST, ATA_DRDY | ATA_DRQ);
    for (unsigned i = 0; i < r.p.n_wlog; i++) {
        if (r.p.wlog_off[i] == tf_reg(ATA_REG_DATA))
            cdb_last = (int)i;
        if (r.p.wlog_off[i] == ata_sff(r.ap)->io.bmdma + ATA_DMA_CMD && (r.p.wlog_val[i] & ATA_DMA_START))
            start = (int)i;
    }
    ck_assert_int_ge(cdb_last, 0);
    ck_assert_int_gt(start, cdb_last);
    ck_assert_int_eq(ata_sff(r.ap)->hsm, HSM_ST_LAST);
    rig_done(&r);
}
END_TEST

START_TEST(data_block_moves_the_byte_count)
{
    struct rig r;

    rig_init(&r, ATAPI_PROT_PIO, 4096);
    device_offers(&r, ATAPI_INT_REASON_IO, 2048, 0xbeef);
    step(&r, HSM_ST_DATA, ATA_DRDY | ATA_DRQ);
    ck_assert_uint_eq(r.qc->err_mask, 0);
    ck_assert_uint_eq(ata_sff(r.ap)->done, 2048);
    ck_assert_int_eq(ata_sff(r.ap)->hsm, HSM_ST_DATA); /* the device interrupts for the next */
    ck_assert_uint_eq(r.buf[0], 0xef);
    ck_assert_uint_eq(r.buf[2047], 0xbe);
    ck_assert_uint_eq(r.buf[2048], 0); /* one block only */
    rig_done(&r);
}
END_TEST

/* The bad interrupt reasons and byte counts of a data-in block: {ireason, bytes}. */
static const struct {
    uint8_t ireason;
    uint16_t bytes;
} bad_block[] = {
    { ATAPI_INT_REASON_IO | ATAPI_INT_REASON_CD, 2048 }, /* a command phase, not data */
    { 0, 2048 },                                         /* data to the device on a read */
    { ATAPI_INT_REASON_IO, 0 },                          /* no byte count */
};

START_TEST(bad_interrupt_reason_is_an_hsm_violation)
{
    struct rig r;
    char want[96];

    rig_init(&r, ATAPI_PROT_PIO, 4096);
    device_offers(&r, bad_block[_i].ireason, bad_block[_i].bytes, 0xbeef);
    step(&r, HSM_ST_DATA, ATA_DRDY | ATA_DRQ);
    ck_assert(r.qc->err_mask & AC_ERR_HSM);
    snprintf(want, sizeof(want), "ATAPI check failed (ireason=0x%x bytes=%u)", bad_block[_i].ireason,
             bad_block[_i].bytes);
    ck_assert_str_eq(r.ap->link.eh_info.desc, want);
    ck_assert_uint_eq(ata_sff(r.ap)->done, 0);
    ck_assert_uint_eq(r.buf[0], 0);
    ck_assert_ptr_nonnull(fake_find(&r.p, "sff.hsm_violation"));
    ck_assert_int_eq(ata_sff(r.ap)->hsm, HSM_ST_IDLE); /* frozen: EH resets */
    rig_done(&r);
}
END_TEST

START_TEST(data_beyond_the_buffer_is_an_hsm_violation)
{
    struct rig r;

    rig_init(&r, ATAPI_PROT_PIO, 2048);
    device_offers(&r, ATAPI_INT_REASON_IO, 4096, 0xbeef);
    step(&r, HSM_ST_DATA, ATA_DRDY | ATA_DRQ);
    ck_assert(r.qc->err_mask & AC_ERR_HSM);
    ck_assert_str_eq(r.ap->link.eh_info.desc, "unexpected or too much trailing data buf=2048 cur=0 bytes=4096");
    ck_assert_uint_eq(ata_sff(r.ap)->done, 2048); /* the buffer was filled, the rest refused */
    rig_done(&r);
}
END_TEST

START_TEST(drq_with_device_error_is_an_hsm_violation)
{
    struct rig r;

    rig_init(&r, ATAPI_PROT_PIO, 4096);
    device_offers(&r, ATAPI_INT_REASON_IO, 2048, 0xbeef);
    step(&r, HSM_ST_DATA, ATA_DRDY | ATA_DRQ | ATA_ERR);
    ck_assert(r.qc->err_mask & AC_ERR_HSM);
    ck_assert_ptr_nonnull(strstr(r.ap->link.eh_info.desc, "ST_DATA: DRQ=1 with device error"));
    ck_assert_uint_eq(ata_sff(r.ap)->done, 0);
    rig_done(&r);
}
END_TEST

Suite *sff_atapi_suite(void)
{
    Suite *s = suite_create("sff_atapi");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, cdb_goes_out_on_the_first_drq);
    tcase_add_test(tc, dma_packet_starts_the_bus_master_after_the_cdb);
    tcase_add_test(tc, data_block_moves_the_byte_count);
    tcase_add_loop_test(tc, bad_interrupt_reason_is_an_hsm_violation, 0, (int)(sizeof(bad_block) / sizeof(bad_block[0])));
    tcase_add_test(tc, data_beyond_the_buffer_is_an_hsm_violation);
    tcase_add_test(tc, drq_with_device_error_is_an_hsm_violation);
    suite_add_tcase(s, tc);
    return s;
}
