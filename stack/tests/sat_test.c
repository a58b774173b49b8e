/* The SCSI/ATA translation layer (stack/scsi/): each command's answer or ATA command, and
 * the sense data, byte by byte against the layouts of SPC-4 (sense data 4.5, INQUIRY 6.6,
 * mode pages), SBC-3 (READ CAPACITY, VPD pages) and SAT-4 (translations,
 * ATA Status Return descriptor). The LLD records the commands it is asked to issue. */
#include <string.h>

#include "sat.h"
#include "tests.h"

struct sat_rig {
    struct sata_platform p;
    struct ata_host *h;
    struct ata_port *ap;
    struct ata_device *dev;
    struct ata_taskfile issued[16];
    uint32_t nbytes[16];
    unsigned n_issued;
    int done;
    uint8_t data[4096];
    struct ata_sg sg;
};

static unsigned rig_issue(struct ata_queued_cmd *qc)
{
    struct sat_rig *r = qc->ap->private_data;

    ck_assert_uint_lt(r->n_issued, 16);
    r->nbytes[r->n_issued] = qc->nbytes;
    r->issued[r->n_issued++] = qc->tf;
    return 0;
}

static void rig_prep(struct ata_queued_cmd *qc) { (void)qc; }
static void rig_fill_rtf(struct ata_queued_cmd *qc) { (void)qc; }

static const struct ata_port_operations rig_ops = {
    .qc_defer = ata_std_qc_defer,
    .qc_prep = rig_prep,
    .qc_issue = rig_issue,
    .qc_fill_rtf = rig_fill_rtf,
};

enum { RIG_NCQ = ATA_DFLAG_LBA48 | ATA_DFLAG_DMA | ATA_DFLAG_NCQ | ATA_DFLAG_FLUSH_EXT };

static struct sat_rig *rig_new(unsigned dev_flags, bool trim)
{
    static struct sat_rig rig;
    struct sat_rig *r = &rig;
    const struct id_spec spec = {
        .model = "SATASIM DISK MODEL 1234", .serial = "SN-0001", .fw = "FW01REV2",
        .lba28_sectors = 0x0fffffff, .lba48_sectors = 1000000, .ncq = true, .depth = 32,
        .udma = 0x7f, .w80 = 0x01f0, /* ATA-4..ACS: major version 8 */
    };

    memset(r, 0, sizeof(*r));
    fake_init(&r->p);
    r->h = ata_host_alloc(&r->p, &fake_ops, &rig_ops, 1);
    ck_assert_ptr_nonnull(r->h);
    r->ap = &r->h->ports[0];
    r->ap->private_data = r;
    r->ap->pflags = 0;
    r->ap->max_segs = 168;
    r->ap->seg_max_bytes = 4u << 20;
    r->ap->ncq_depth = 31;
    r->dev = &r->ap->link.device[0];
    r->dev->class = ATA_DEV_ATA;
    r->dev->flags = ATA_DFLAG_ENABLED | ATA_DFLAG_LBA | dev_flags;
    r->dev->n_sectors = 1000000;
    r->dev->max_sectors = r->dev->cmd_max_sectors = 65535;
    r->dev->ncq_depth = 31;
    build_id(r->dev->id, &spec);
    if (trim)
        r->dev->id[169] = 1; /* DATA SET MANAGEMENT TRIM (IDENTIFY word 169 bit 0) */
    r->sg = (struct ata_sg){ (uint64_t)(uintptr_t)r->data, sizeof(r->data) };
    return r;
}

static void rig_free(struct sat_rig *r)
{
    ata_host_free(r->h);
    fake_check_all_freed(&r->p);
}

static void count_done(struct ata_scsi_cmd *cmd) { ++*(int *)cmd->priv; }

static struct ata_scsi_cmd mkcmd(struct sat_rig *r, const uint8_t *cdb, unsigned cdb_len, enum ata_scsi_dir dir,
                                 uint32_t len)
{
    struct ata_scsi_cmd c = { .cdb_len = cdb_len, .dir = dir, .sg = &r->sg, .n_sg = 1, .len = len,
                              .done = count_done, .priv = &r->done };

    memcpy(c.cdb, cdb, cdb_len);
    return c;
}

/* A command answered without the device: done before queuecmd returns, nothing issued. */
static void run_simulated(struct sat_rig *r, struct ata_scsi_cmd *c)
{
    memset(r->data, 0xee, sizeof(r->data));
    r->done = 0;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, c), 0);
    ck_assert_int_eq(r->done, 1);
    ck_assert_uint_eq(r->n_issued, 0);
}

/* The controller finishes every command in flight without error. */
static void run_simulated_keep(struct sat_rig *r, struct ata_scsi_cmd *c, unsigned issued_before)
{
    r->done = 0;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, c), 0);
    ck_assert_int_eq(r->done, 1);
    ck_assert_uint_eq(r->n_issued, issued_before);
}

static void hw_complete_all(struct sat_rig *r)
{
    ata_lock(r->h);
    ck_assert_int_eq(ata_qc_complete_multiple(r->ap, 0), 0);
    ata_unlock(r->h);
    ata_port_process(r->ap);
}

/* EH gives up on the command in flight with this err_mask and result registers, as its
 * finish does for a command that is not retried. */
static void eh_fail_inflight(struct sat_rig *r, unsigned err_mask, const struct ata_taskfile *rtf)
{
    ata_lock(r->h);
    for (unsigned tag = 0; tag < ATA_MAX_QUEUE; tag++) {
        struct ata_queued_cmd *qc = &r->ap->qcmd[tag];

        if (!(r->ap->qc_active & (1u << qc->hw_tag)) || !qc->bio)
            continue;
        qc->err_mask = err_mask;
        qc->result_tf = *rtf;
        qc->result_tf.flags = qc->tf.flags;
        ata_eh_qc_complete(qc);
    }
    ata_unlock(r->h);
    ata_port_process(r->ap);
}

static void assert_fixed_sense(const struct ata_scsi_cmd *c, uint8_t sk, uint8_t asc, uint8_t ascq)
{
    ck_assert_uint_eq(c->status, SAM_STAT_CHECK_CONDITION);
    ck_assert_uint_eq(c->sense_len, 18);
    ck_assert_uint_eq(c->sense[0] & 0x7f, 0x70); /* SPC-4 4.5.3: current, fixed */
    ck_assert_uint_eq(c->sense[2], sk);
    ck_assert_uint_eq(c->sense[7], 0x0a);        /* ADDITIONAL SENSE LENGTH */
    ck_assert_uint_eq(c->sense[12], asc);
    ck_assert_uint_eq(c->sense[13], ascq);
}

/* ---- sense data ---- */

/* libata's ata_to_sense_error row by row (docs/sat.md "Sense table"). */
START_TEST(sense_table)
{
    static const struct { uint8_t status, error, sk, asc, ascq; } rows[] = {
        { 0x51, 0x84, SCSI_SK_ABORTED_COMMAND, 0x47, 0x00 }, /* ICRC|ABRT: interface CRC */
        { 0x51, 0x40, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04 },    /* UNC */
        { 0x51, 0x80, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04 },    /* BBK */
        { 0x51, 0x10, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x00 }, /* IDNF */
        { 0x51, 0x01, SCSI_SK_MEDIUM_ERROR, 0x13, 0x00 },    /* AMNF */
        { 0x51, 0x02, SCSI_SK_HARDWARE_ERROR, 0x00, 0x00 },  /* TK0NF */
        { 0x51, 0x08, SCSI_SK_NOT_READY, 0x04, 0x00 },       /* MCR */
        { 0x51, 0x20, SCSI_SK_UNIT_ATTENTION, 0x28, 0x00 },  /* MC */
        { 0x51, 0x61, SCSI_SK_HARDWARE_ERROR, 0x00, 0x00 },  /* UNC|MC|AMNF */
        { 0x51, 0xd0, SCSI_SK_ABORTED_COMMAND, 0x00, 0x00 }, /* BBK|UNC|IDNF */
        { 0x51, 0xd1, SCSI_SK_ABORTED_COMMAND, 0x00, 0x00 },
        { 0x51, 0x37, SCSI_SK_NOT_READY, 0x04, 0x00 },
        { 0x51, 0x09, SCSI_SK_NOT_READY, 0x04, 0x00 },
        /* ABRT alone is not in the error table: the status decides (DRDY) */
        { 0x51, 0x04, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x04 },
        /* BSY: the error register means nothing */
        { 0xd0, 0x40, SCSI_SK_ABORTED_COMMAND, 0x47, 0x00 },
        { 0x21, 0x04, SCSI_SK_HARDWARE_ERROR, 0x44, 0x00 },  /* DF, no DRDY */
        { 0x09, 0x00, SCSI_SK_ABORTED_COMMAND, 0x47, 0x00 }, /* DRQ */
        { 0x05, 0x00, SCSI_SK_RECOVERED_ERROR, 0x11, 0x00 }, /* CORR */
        { 0x01, 0x00, SCSI_SK_ABORTED_COMMAND, 0x00, 0x00 }, /* nothing to go by */
    };

    for (unsigned i = 0; i < ATA_ARRAY_SIZE(rows); i++) {
        uint8_t sk = 0xff, asc = 0xff, ascq = 0xff;

        sat_ata_to_sense(rows[i].status, rows[i].error, &sk, &asc, &ascq);
        ck_assert_msg(sk == rows[i].sk && asc == rows[i].asc && ascq == rows[i].ascq,
                      "status %02x error %02x: got %x/%02x/%02x", rows[i].status, rows[i].error, sk, asc, ascq);
    }
}
END_TEST

/* SPC-4 4.5.3 fixed and 4.5.2 descriptor layouts, with INFORMATION and the field pointer. */
START_TEST(sense_formats)
{
    struct ata_scsi_cmd c = { 0 };
    uint8_t k, a, q;

    sat_set_sense(&c, false, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04);
    sat_set_sense_info(&c, 0x12345678abull);
    assert_fixed_sense(&c, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04);
    ck_assert_uint_eq(c.sense[0], 0xf0); /* VALID | 70h */
    ck_assert_uint_eq(c.sense[3], 0x34); /* INFORMATION: the low 32 bits */
    ck_assert_uint_eq(c.sense[4], 0x56);
    ck_assert_uint_eq(c.sense[5], 0x78);
    ck_assert_uint_eq(c.sense[6], 0xab);
    ck_assert(ata_scsi_sense_parse(c.sense, c.sense_len, &k, &a, &q));
    ck_assert(k == 3 && a == 0x11 && q == 0x04);

    sat_set_sense(&c, true, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04);
    sat_set_sense_info(&c, 0x12345678abull);
    ck_assert_uint_eq(c.sense_len, 20);
    {
        static const uint8_t want[20] = { 0x72, 0x03, 0x11, 0x04, 0, 0, 0, 12,
                                          0x00, 0x0a, 0x80, 0x00, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0xab };
        ck_assert_mem_eq(c.sense, want, 20);
    }

    /* INVALID FIELD IN CDB, byte 4 bit 1: SKSV | C/D | BPV | bit 1, field 0004h */
    sat_set_invalid_field(&c, false, true, 4, 1);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x24, 0x00);
    ck_assert_uint_eq(c.sense[15], 0xc9);
    ck_assert_uint_eq(c.sense[16], 0x00);
    ck_assert_uint_eq(c.sense[17], 0x04);
    /* ... the whole byte 2 of the parameter list, descriptor format: descriptor 02h */
    sat_set_invalid_field(&c, true, false, 0x102, 0xff);
    {
        static const uint8_t want[16] = { 0x72, 0x05, 0x26, 0x00, 0, 0, 0, 8, 0x02, 0x06, 0, 0, 0x80, 0x01, 0x02, 0 };
        ck_assert_uint_eq(c.sense_len, 16);
        ck_assert_mem_eq(c.sense, want, 16);
    }
}
END_TEST

/* ---- simulated commands ---- */

START_TEST(inquiry_standard)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    static const uint8_t cdb[6] = { SCSI_INQUIRY, 0, 0, 0, 96, 0 };
    struct ata_scsi_cmd c = mkcmd(r, cdb, 6, ATA_SCSI_DIR_FROM_DEV, 255);

    run_simulated(r, &c);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    ck_assert_uint_eq(c.resid, 255 - 96);
    /* SPC-4 standard INQUIRY data: type 0, RMB 0, VERSION 5 (SPC-3), format 2, additional length 91, CMDQUE */
    ck_assert_uint_eq(r->data[0], 0x00);
    ck_assert_uint_eq(r->data[1], 0x00);
    ck_assert_uint_eq(r->data[2], 0x05);
    ck_assert_uint_eq(r->data[3], 0x02);
    ck_assert_uint_eq(r->data[4], 91);
    ck_assert_uint_eq(r->data[7], 0x02);
    ck_assert_mem_eq(r->data + 8, "ATA     ", 8);         /* SAT-4: vendor */
    ck_assert_mem_eq(r->data + 16, "SATASIM DISK MOD", 16); /* model, words 27-34 */
    ck_assert_mem_eq(r->data + 32, "REV2", 4);              /* firmware words 25-26 */
    ck_assert_uint_eq(r->data[58], 0x00);                   /* SAM-3 */
    ck_assert_uint_eq(r->data[59], 0x60);
    ck_assert_uint_eq(r->data[96], 0xee); /* nothing beyond the 96 bytes */

    /* firmware with its last four characters blank: the first four */
    put_id_string(r->dev->id, 23, 8, "AB12");
    run_simulated(r, &c);
    ck_assert_mem_eq(r->data + 32, "AB12", 4);

    /* the allocation length cuts the answer */
    c.cdb[4] = 36;
    run_simulated(r, &c);
    ck_assert_uint_eq(c.resid, 255 - 36);
    ck_assert_uint_eq(r->data[36], 0xee);
    rig_free(r);
}
END_TEST

START_TEST(inquiry_vpd)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    uint8_t cdb[6] = { SCSI_INQUIRY, 1, 0x00, 0x02, 0x40, 0 };
    struct ata_scsi_cmd c = mkcmd(r, cdb, 6, ATA_SCSI_DIR_FROM_DEV, 1024);

    /* 00h: the supported pages, as libata lists them */
    run_simulated(r, &c);
    {
        static const uint8_t want[11] = { 0, 0x00, 0, 7, 0x00, 0x80, 0x83, 0x89, 0xb0, 0xb1, 0xb2 };
        ck_assert_mem_eq(r->data, want, 11);
    }
    /* 80h: the serial number, 20 characters */
    c.cdb[2] = 0x80;
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[1], 0x80);
    ck_assert_uint_eq(r->data[3], 20);
    ck_assert_mem_eq(r->data + 4, "SN-0001             ", 20);
    /* 83h: vendor-specific serial, then T10 vendor ID "ATA" + model + serial */
    c.cdb[2] = 0x83;
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[3], 24 + 72 - 0);
    ck_assert_uint_eq(r->data[4], 0x02);  /* code set ASCII */
    ck_assert_uint_eq(r->data[7], 20);
    ck_assert_uint_eq(r->data[28], 0x02);
    ck_assert_uint_eq(r->data[29], 0x01); /* designator type: T10 vendor ID */
    ck_assert_uint_eq(r->data[31], 68);
    ck_assert_mem_eq(r->data + 32, "ATA     SATASIM DISK MODEL 1234", 31);
    ck_assert_mem_eq(r->data + 80, "SN-0001", 7);
    /* 89h: ATA information: 238h bytes, the signature FIS, IDENTIFY data */
    c.cdb[2] = 0x89;
    c.cdb[3] = 0x02;
    c.cdb[4] = 0x3c;
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[2], 0x02);
    ck_assert_uint_eq(r->data[3], 0x38);
    ck_assert_uint_eq(r->data[36], 0x34);
    ck_assert_uint_eq(r->data[56], ATA_CMD_ID_ATA);
    ck_assert_uint_eq(le16(r->data + 60 + 2 * 83), r->dev->id[83]);
    ck_assert_uint_eq(c.resid, 1024 - 0x23c);
    /* B0h without TRIM: no unmap fields; B2h: LBPWS */
    c.cdb[2] = 0xb0;
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[3], 0x3c);
    ck_assert_uint_eq(r->data[7], 1); /* OPTIMAL TRANSFER LENGTH GRANULARITY: one physical block */
    ck_assert_uint_eq(r->data[31], 0);
    ck_assert_uint_eq(r->data[43], 0);
    c.cdb[2] = 0xb2;
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[3], 4);
    ck_assert_uint_eq(r->data[5], 0x40);
    /* B1h: rotation rate word 217 (7200) */
    r->dev->id[217] = 7200;
    c.cdb[2] = 0xb1;
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[4] << 8 | r->data[5], 7200);
    /* a page libata does not provide: INVALID FIELD IN CDB, byte 2 */
    c.cdb[2] = 0x86;
    run_simulated(r, &c);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x24, 0x00);
    ck_assert_uint_eq(c.sense[15], 0xc0);
    ck_assert_uint_eq(c.sense[17], 2);
    rig_free(r);
}
END_TEST

START_TEST(inquiry_vpd_trim)
{
    struct sat_rig *r = rig_new(RIG_NCQ, true);
    uint8_t cdb[6] = { SCSI_INQUIRY, 1, 0xb0, 0, 0x40, 0 };
    struct ata_scsi_cmd c = mkcmd(r, cdb, 6, ATA_SCSI_DIR_FROM_DEV, 64);

    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[31], 1); /* OPTIMAL UNMAP GRANULARITY (SBC-3 block limits) */
    /* MAXIMUM WRITE SAME LENGTH: 65535 blocks x 64 ranges = 0x3fffc0 */
    ck_assert_uint_eq(r->data[41], 0x3f);
    ck_assert_uint_eq(r->data[42], 0xff);
    ck_assert_uint_eq(r->data[43], 0xc0);
    rig_free(r);
}
END_TEST

START_TEST(read_capacity)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    static const uint8_t rc10[10] = { SCSI_READ_CAPACITY_10 };
    static const uint8_t rc16[16] = { SCSI_SERVICE_IN_16, SCSI_SAI_READ_CAPACITY_16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32 };
    struct ata_scsi_cmd c = mkcmd(r, rc10, 10, ATA_SCSI_DIR_FROM_DEV, 8);

    run_simulated(r, &c);
    {
        /* SBC-3 READ CAPACITY (10): last LBA 999999 = 0xf423f, block length 512 */
        static const uint8_t want[8] = { 0, 0x0f, 0x42, 0x3f, 0, 0, 0x02, 0 };
        ck_assert_mem_eq(r->data, want, 8);
    }
    /* 512e: word 106 says 8 logical per physical, the first aligned at 0; and TRIM */
    r->dev->id[106] = 0x6003;
    r->dev->id[209] = 0x4000;
    r->dev->id[169] = 1;
    c = mkcmd(r, rc16, 16, ATA_SCSI_DIR_FROM_DEV, 32);
    run_simulated(r, &c);
    {
        /* SBC-3 READ CAPACITY (16): 8-byte last LBA, block length, exponent 3, LBPME */
        static const uint8_t want[16] = { 0, 0, 0, 0, 0, 0x0f, 0x42, 0x3f, 0, 0, 0x02, 0, 0, 3, 0x80, 0 };
        ck_assert_mem_eq(r->data, want, 16);
    }
    /* without TRIM no LBPME */
    r->dev->id[169] = 0;
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[14], 0);
    /* 4Kn (docs/device.md 4.1): BLOCK LENGTH the device's logical sector (dev->sector_size,
     * IDENTIFY 106/117-118 at configuration), exponent 0; and a READ (10) of 2 blocks needs
     * 8192 bytes of buffer */
    r->dev->id[106] = 0x5000;
    r->dev->sector_size = 4096;
    run_simulated(r, &c);
    {
        static const uint8_t want[16] = { 0, 0, 0, 0, 0, 0x0f, 0x42, 0x3f, 0, 0, 0x10, 0, 0, 0, 0, 0 };
        ck_assert_mem_eq(r->data, want, 16);
    }
    {
        static const uint8_t r10[10] = { SCSI_READ_10, 0, 0, 0, 0, 8, 0, 0, 2, 0 };
        struct ata_scsi_cmd rd = mkcmd(r, r10, 10, ATA_SCSI_DIR_FROM_DEV, 4096);

        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &rd), -EINVAL);
    }
    r->dev->sector_size = 512;
    r->dev->id[106] = 0x6003;
    /* another service action of SERVICE ACTION IN (16): invalid field byte 1 */
    c.cdb[1] = 0x11;
    run_simulated(r, &c);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x24, 0x00);
    ck_assert_uint_eq(c.sense[17], 1);
    rig_free(r);
}
END_TEST

START_TEST(mode_sense)
{
    struct sat_rig *r = rig_new(RIG_NCQ | ATA_DFLAG_FUA, false);
    uint8_t cdb[6] = { SCSI_MODE_SENSE_6, 0, 0x08, 0, 255, 0 };
    struct ata_scsi_cmd c = mkcmd(r, cdb, 6, ATA_SCSI_DIR_FROM_DEV, 255);

    /* caching page: header (4), block descriptor (8), page (20) */
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[0], 4 + 8 + 20 - 1);
    ck_assert_uint_eq(r->data[2], 0x10); /* DPOFUA */
    ck_assert_uint_eq(r->data[3], 8);
    ck_assert_uint_eq(r->data[10], 0x02); /* block length 512 */
    ck_assert_uint_eq(r->data[12], 0x08);
    ck_assert_uint_eq(r->data[13], 18);
    ck_assert_uint_eq(r->data[14], 0x04); /* WCE: word 85 bit 5 */
    ck_assert_uint_eq(r->data[24], 0x20); /* DRA: look-ahead off (word 85 bit 6 clear) */
    r->dev->id[85] &= (uint16_t)~(1u << 5);
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[14], 0x00);

    /* control page, DBD, MODE SENSE (10): D_SENSE clear, GLTSD */
    {
        static const uint8_t c10[10] = { SCSI_MODE_SENSE_10, 0x08, 0x0a, 0, 0, 0, 0, 0, 255, 0 };
        static const uint8_t want[20] = { 0, 18, 0, 0x10, 0, 0, 0, 0, 0x0a, 10, 0x02, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 30 };

        c = mkcmd(r, c10, 10, ATA_SCSI_DIR_FROM_DEV, 255);
        run_simulated(r, &c);
        ck_assert_mem_eq(r->data, want, 20);
    }
    /* all pages: 4 + 8 + 12 + 20 + 12 */
    c = mkcmd(r, cdb, 6, ATA_SCSI_DIR_FROM_DEV, 255);
    c.cdb[2] = 0x3f;
    run_simulated(r, &c);
    ck_assert_uint_eq(r->data[0], 4 + 8 + 12 + 20 + 12 - 1);
    ck_assert_uint_eq(r->data[12], 0x01);
    ck_assert_uint_eq(r->data[14], 0x80); /* AWRE */
    /* saved values: SAVING PARAMETERS NOT SUPPORTED */
    c.cdb[2] = 0xc8;
    run_simulated(r, &c);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x39, 0x00);
    /* an unknown page: invalid field byte 2 */
    c.cdb[2] = 0x1c;
    run_simulated(r, &c);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x24, 0x00);
    ck_assert_uint_eq(c.sense[17], 2);
    rig_free(r);
}
END_TEST

START_TEST(tur_request_sense_unknown)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    static const uint8_t tur[6] = { SCSI_TEST_UNIT_READY };
    static const uint8_t rs[6] = { SCSI_REQUEST_SENSE, 0, 0, 0, 18, 0 };
    static const uint8_t unmap[10] = { SCSI_UNMAP, 0, 0, 0, 0, 0, 0, 0, 24, 0 };
    struct ata_scsi_cmd c = mkcmd(r, tur, 6, ATA_SCSI_DIR_NONE, 0);

    run_simulated(r, &c);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    ck_assert_uint_eq(c.sense_len, 0);

    c = mkcmd(r, rs, 6, ATA_SCSI_DIR_FROM_DEV, 252);
    run_simulated(r, &c);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    ck_assert_uint_eq(r->data[0], 0x70);
    ck_assert_uint_eq(r->data[2], SCSI_SK_NO_SENSE);
    ck_assert_uint_eq(c.resid, 252 - 18);

    /* UNMAP: not translated (B2h offers WRITE SAME only): INVALID COMMAND OPERATION CODE */
    c = mkcmd(r, unmap, 10, ATA_SCSI_DIR_TO_DEV, 24);
    run_simulated(r, &c);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x20, 0x00);
    rig_free(r);
}
END_TEST

/* ---- translated commands ---- */

START_TEST(rw_translation)
{
    struct sat_rig *r = rig_new(RIG_NCQ | ATA_DFLAG_FUA | ATA_DFLAG_WCACHE, false);
    static const uint8_t r10[10] = { SCSI_READ_10, 0, 0, 0, 0x12, 0x34, 0, 0, 8, 0 };
    static const uint8_t w16fua[16] = { SCSI_WRITE_16, 0x08, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 4, 0, 0 };
    static const uint8_t r6[6] = { SCSI_READ_6, 0x01, 0x00, 0x10, 0, 0 };
    struct ata_scsi_cmd c = mkcmd(r, r10, 10, ATA_SCSI_DIR_FROM_DEV, 4096);

    r->done = 0;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_int_eq(r->done, 0);
    ck_assert_uint_eq(r->n_issued, 1);
    ck_assert_uint_eq(r->issued[0].command, ATA_CMD_FPDMA_READ);
    ck_assert_uint_eq(r->issued[0].lbam, 0x12);
    ck_assert_uint_eq(r->issued[0].lbal, 0x34);
    ck_assert_uint_eq(r->issued[0].feature, 8); /* FPDMA: count in FEATURE */
    ck_assert_uint_eq(r->nbytes[0], 8 * 512);
    hw_complete_all(r);
    ck_assert_int_eq(r->done, 1);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    ck_assert_uint_eq(c.resid, 0);

    /* WRITE (16) with FUA: WRITE FPDMA QUEUED with the FUA bit (Device bit 7) */
    c = mkcmd(r, w16fua, 16, ATA_SCSI_DIR_TO_DEV, 4096);
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->issued[1].command, ATA_CMD_FPDMA_WRITE);
    ck_assert_uint_eq(r->issued[1].device & 0x80, 0x80);
    ck_assert_uint_eq(r->issued[1].lbah, 0x01);
    hw_complete_all(r);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    ck_assert_uint_eq(c.resid, 4096 - 2048);

    /* no NCQ: READ (6) of 0 blocks is 256 blocks, READ DMA (28-bit) */
    r->dev->flags &= ~(unsigned)(ATA_DFLAG_NCQ | ATA_DFLAG_FUA);
    c = mkcmd(r, r6, 6, ATA_SCSI_DIR_FROM_DEV, 256 * 512);
    {
        static uint8_t big[256 * 512];
        struct ata_sg sg = { (uint64_t)(uintptr_t)big, sizeof(big) };

        c.sg = &sg;
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        ck_assert_uint_eq(r->issued[2].command, ATA_CMD_READ_DMA);
        ck_assert_uint_eq(r->issued[2].nsect, 0);
        ck_assert_uint_eq(r->issued[2].lbah, 0x01);
        ck_assert_uint_eq(r->issued[2].lbal, 0x10);
        hw_complete_all(r);
    }
    /* FUA write without NCQ on a FUA device: WRITE DMA FUA EXT */
    r->dev->flags |= ATA_DFLAG_FUA;
    c = mkcmd(r, w16fua, 16, ATA_SCSI_DIR_TO_DEV, 4096);
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->issued[3].command, ATA_CMD_WRITE_FUA_EXT);
    hw_complete_all(r);

    /* SYNCHRONIZE CACHE (10): FLUSH CACHE EXT */
    {
        static const uint8_t sc[10] = { SCSI_SYNC_CACHE_10 };

        c = mkcmd(r, sc, 10, ATA_SCSI_DIR_NONE, 0);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        ck_assert_uint_eq(r->issued[4].command, ATA_CMD_FLUSH_EXT);
        hw_complete_all(r);
        ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    }
    /* beyond the capacity: LBA OUT OF RANGE, nothing issued; 0 blocks: GOOD, nothing issued */
    {
        uint8_t far[10] = { SCSI_READ_10, 0, 0, 0x0f, 0x42, 0x3f, 0, 0, 2, 0 };

        c = mkcmd(r, far, 10, ATA_SCSI_DIR_FROM_DEV, 4096);
        r->done = 0;
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        ck_assert_int_eq(r->done, 1);
        assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x00);
        far[8] = 0;
        c = mkcmd(r, far, 10, ATA_SCSI_DIR_FROM_DEV, 4096);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
        ck_assert_uint_eq(r->n_issued, 5);
    }
    /* a buffer shorter than the transfer: a malformed request */
    c = mkcmd(r, r10, 10, ATA_SCSI_DIR_FROM_DEV, 1024);
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), -EINVAL);
    rig_free(r);
}
END_TEST

/* A read the device fails with UNC: MEDIUM ERROR, UNRECOVERED READ ERROR, the failed LBA in
 * INFORMATION; after MODE SELECT sets D_SENSE, the same in descriptor format. */
START_TEST(rw_error_sense)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    static const uint8_t r16[16] = { SCSI_READ_16, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x00, 0, 0, 0, 8, 0, 0 };
    struct ata_taskfile rtf = { .command = ATA_DRDY | ATA_ERR, .feature = ATA_UNC, .lbal = 0x03, .lbam = 0x10 };
    struct ata_scsi_cmd c = mkcmd(r, r16, 16, ATA_SCSI_DIR_FROM_DEV, 4096);

    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    eh_fail_inflight(r, AC_ERR_MEDIA | AC_ERR_DEV, &rtf);
    assert_fixed_sense(&c, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04);
    ck_assert_uint_eq(c.sense[0], 0xf0);
    ck_assert_uint_eq(c.sense[5], 0x10);
    ck_assert_uint_eq(c.sense[6], 0x03);
    ck_assert_uint_eq(c.resid, 4096);

    /* MODE SELECT (6) of the control page with D_SENSE set */
    {
        static const uint8_t ms[6] = { SCSI_MODE_SELECT_6, 0x10, 0, 0, 16, 0 };
        static const uint8_t param[16] = { 0, 0, 0, 0, 0x0a, 10, 0x06, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 30 };

        c = mkcmd(r, ms, 6, ATA_SCSI_DIR_TO_DEV, 16);
        memcpy(r->data, param, 16);
        r->done = 0;
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        ck_assert_int_eq(r->done, 1);
        ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
        ck_assert(r->dev->flags & ATA_DFLAG_D_SENSE);
    }
    c = mkcmd(r, r16, 16, ATA_SCSI_DIR_FROM_DEV, 4096);
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    eh_fail_inflight(r, AC_ERR_MEDIA | AC_ERR_DEV, &rtf);
    {
        /* 72h, key 3, 11h/04h, additional length 12: the information descriptor */
        static const uint8_t want[20] = { 0x72, 0x03, 0x11, 0x04, 0, 0, 0, 12,
                                          0x00, 0x0a, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0x10, 0x03 };
        ck_assert_uint_eq(c.sense_len, 20);
        ck_assert_mem_eq(c.sense, want, 20);
    }
    rig_free(r);
}
END_TEST

START_TEST(mode_select_caching)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    static const uint8_t ms[10] = { SCSI_MODE_SELECT_10, 0x10, 0, 0, 0, 0, 0, 0, 28, 0 };
    uint8_t param[28] = { 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 18, 0x00 /* WCE off */ };
    struct ata_scsi_cmd c;

    param[8 + 12] = 0x20; /* DRA as MODE SENSE reports it */
    c = mkcmd(r, ms, 10, ATA_SCSI_DIR_TO_DEV, 28);
    memcpy(r->data, param, sizeof(param));
    r->done = 0;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->n_issued, 1);
    ck_assert_uint_eq(r->issued[0].command, ATA_CMD_SET_FEATURES);
    ck_assert_uint_eq(r->issued[0].feature, 0x82); /* disable write cache */
    ck_assert_uint_eq(r->issued[0].protocol, ATA_PROT_NODATA);
    hw_complete_all(r);
    ck_assert_int_eq(r->done, 1);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    ck_assert_uint_eq(c.resid, 0); /* the parameter list was taken */
    /* the device is revalidated (IDENTIFY now reports the change), as libata does */
    ck_assert(r->ap->link.eh_info.dev_action[0] & ATA_EH_REVALIDATE);
    ck_assert(r->ap->pflags & ATA_PFLAG_EH_PENDING);
    r->ap->pflags &= ~(unsigned)ATA_PFLAG_EH_PENDING;

    /* WCE on: 02h */
    param[10] = 0x04;
    memcpy(r->data, param, sizeof(param));
    c = mkcmd(r, ms, 10, ATA_SCSI_DIR_TO_DEV, 28);
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->issued[1].feature, 0x02);
    hw_complete_all(r);
    r->ap->pflags &= ~(unsigned)ATA_PFLAG_EH_PENDING;

    /* a byte that is not changeable differs: INVALID FIELD IN PARAMETER LIST at its offset
     * (libata counts from the page's first byte after its header) */
    param[8 + 5] = 0x01;
    memcpy(r->data, param, sizeof(param));
    c = mkcmd(r, ms, 10, ATA_SCSI_DIR_TO_DEV, 28);
    r->done = 0;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_int_eq(r->done, 1);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x26, 0x00);
    ck_assert_uint_eq(c.sense[15], 0x80); /* SKSV, C/D 0: the parameter list */
    ck_assert_uint_eq(c.sense[17], 8 + 3);
    /* SP set: invalid field byte 1 bit 0 */
    {
        uint8_t sp[10];

        memcpy(sp, ms, 10);
        sp[1] = 0x11;
        c = mkcmd(r, sp, 10, ATA_SCSI_DIR_TO_DEV, 28);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x24, 0x00);
        ck_assert_uint_eq(c.sense[15], 0xc8);
        ck_assert_uint_eq(c.sense[17], 1);
    }
    ck_assert_uint_eq(r->n_issued, 2);
    rig_free(r);
}
END_TEST

START_TEST(start_stop)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    uint8_t ss[6] = { SCSI_START_STOP, 0, 0, 0, 0x01, 0 };
    struct ata_scsi_cmd c = mkcmd(r, ss, 6, ATA_SCSI_DIR_NONE, 0);

    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->issued[0].command, 0x40); /* READ VERIFY SECTORS, LBA 0, 1 sector */
    ck_assert_uint_eq(r->issued[0].nsect, 1);
    ck_assert_uint_eq(r->issued[0].device & ATA_LBA, ATA_LBA);
    hw_complete_all(r);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    c.cdb[4] = 0x00;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->issued[1].command, 0xe0); /* STANDBY IMMEDIATE */
    hw_complete_all(r);
    c.cdb[4] = 0x02; /* LOEJ */
    r->done = 0;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_int_eq(r->done, 1);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x24, 0x00);
    ck_assert_uint_eq(c.sense[15], 0xc9); /* bit 1 of byte 4 */
    ck_assert_uint_eq(c.sense[17], 4);
    c.cdb[4] = 0x31; /* a power condition */
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(c.sense[15], 0xcb);
    ck_assert_uint_eq(r->n_issued, 2);
    rig_free(r);
}
END_TEST

START_TEST(verify_translation)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    uint8_t v10[10] = { SCSI_VERIFY_10, 0, 0x00, 0x01, 0x23, 0x45, 0, 0, 8, 0 };
    uint8_t v16[16] = { SCSI_VERIFY_16, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0x01, 0x01, 0, 0 };
    static const uint8_t chk_lba_out[18] = { 0x70, 0, SCSI_SK_ILLEGAL_REQUEST, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x21, 0x00 };
    struct ata_taskfile rtf = { .command = ATA_DRDY | ATA_ERR, .feature = ATA_UNC, .lbal = 0x48, .lbam = 0x23,
                                .lbah = 0x01 };
    struct ata_scsi_cmd c = mkcmd(r, v10, 10, ATA_SCSI_DIR_NONE, 0);

    /* 8 blocks from 12345h: READ VERIFY SECTORS, 28-bit, no data */
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->n_issued, 1);
    ck_assert_uint_eq(r->issued[0].command, 0x40);
    ck_assert_uint_eq(r->issued[0].nsect, 8);
    ck_assert_uint_eq(r->issued[0].lbal, 0x45);
    ck_assert_uint_eq(r->issued[0].lbam, 0x23);
    ck_assert_uint_eq(r->issued[0].lbah, 0x01);
    ck_assert_uint_eq(r->issued[0].device, ATA_LBA | 0xa0);
    ck_assert_uint_eq(r->nbytes[0], 0);
    hw_complete_all(r);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);

    /* the same, failing with UNC at 12348h: MEDIUM ERROR with that LBA in INFORMATION */
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    eh_fail_inflight(r, AC_ERR_MEDIA | AC_ERR_DEV, &rtf);
    assert_fixed_sense(&c, SCSI_SK_MEDIUM_ERROR, 0x11, 0x04);
    ck_assert_uint_eq(c.sense[0], 0xf0);
    ck_assert_uint_eq(c.sense[4], 0x01);
    ck_assert_uint_eq(c.sense[5], 0x23);
    ck_assert_uint_eq(c.sense[6], 0x48);

    /* 256 blocks still fit 28-bit (count 0); 257 (VERIFY (16), from block 1000) take the EXT
     * command with the count's high byte */
    c.cdb[7] = 0x01;
    c.cdb[8] = 0x00;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->issued[2].command, 0x40);
    ck_assert_uint_eq(r->issued[2].nsect, 0);
    hw_complete_all(r);
    c = mkcmd(r, v16, 16, ATA_SCSI_DIR_NONE, 0);
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->issued[3].command, 0x42);
    ck_assert_uint_eq(r->issued[3].nsect, 0x01);
    ck_assert_uint_eq(r->issued[3].hob_nsect, 0x01);
    ck_assert_uint_eq(r->issued[3].lbal, 0xe8);
    ck_assert_uint_eq(r->issued[3].lbam, 0x03);
    ck_assert(r->issued[3].flags & ATA_TFLAG_LBA48);
    hw_complete_all(r);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);

    /* no blocks: GOOD, no command; past the end (999999 + 2 blocks): LBA OUT OF RANGE */
    c.cdb[12] = c.cdb[13] = 0;
    run_simulated_keep(r, &c, 4);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    c.cdb[6] = 0x00;
    c.cdb[7] = 0x0f;
    c.cdb[8] = 0x42;
    c.cdb[9] = 0x3f; /* block 999999 */
    c.cdb[13] = 2;
    run_simulated_keep(r, &c, 4);
    ck_assert_uint_eq(c.status, SAM_STAT_CHECK_CONDITION);
    ck_assert_mem_eq(c.sense, chk_lba_out, 18);
    c.cdb[9] = 0x3e; /* 999998 + 2: the last two blocks */
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->n_issued, 5);
    hw_complete_all(r);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    /* more than an EXT command carries (65537 blocks) */
    memset(c.cdb + 2, 0, 8);
    c.cdb[11] = 0x01;
    c.cdb[12] = 0x00;
    c.cdb[13] = 0x01;
    run_simulated_keep(r, &c, 5);
    ck_assert_mem_eq(c.sense, chk_lba_out, 18);
    rig_free(r);

    /* a device without LBA48: 257 blocks have no command */
    r = rig_new(ATA_DFLAG_DMA, false);
    c = mkcmd(r, v16, 16, ATA_SCSI_DIR_NONE, 0);
    run_simulated_keep(r, &c, 0);
    ck_assert_mem_eq(c.sense, chk_lba_out, 18);
    rig_free(r);
}
END_TEST

START_TEST(report_luns)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    uint8_t rl[12] = { SCSI_REPORT_LUNS, 0, 0x02, 0, 0, 0, 0, 0, 0, 16, 0, 0 };
    static const uint8_t want[16] = { 0, 0, 0, 8 };
    struct ata_scsi_cmd c = mkcmd(r, rl, 12, ATA_SCSI_DIR_FROM_DEV, 64);

    /* LUN 0 alone, whatever SELECT REPORT (byte 2) asks */
    run_simulated(r, &c);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    ck_assert_mem_eq(r->data, want, 16);
    ck_assert_uint_eq(r->data[16], 0xee);
    ck_assert_uint_eq(c.resid, 48);
    /* an allocation length of 4: the list length only */
    c.cdb[9] = 4;
    run_simulated(r, &c);
    ck_assert_mem_eq(r->data, want, 4);
    ck_assert_uint_eq(r->data[4], 0xee);
    ck_assert_uint_eq(c.resid, 60);
    rig_free(r);
}
END_TEST

START_TEST(ata_pass_through)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    /* ATA PASS-THROUGH (16): PIO data-in, T_DIR, BYT_BLOK, T_LENGTH in COUNT, CK_COND;
     * IDENTIFY DEVICE */
    static const uint8_t id16[16] = { SCSI_ATA_16, 4 << 1, 0x2e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xa0, 0xec, 0 };
    struct ata_scsi_cmd c = mkcmd(r, id16, 16, ATA_SCSI_DIR_FROM_DEV, 512);

    c.passthrough = true;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->issued[0].command, ATA_CMD_ID_ATA);
    ck_assert_uint_eq(r->issued[0].protocol, ATA_PROT_PIO);
    ck_assert_uint_eq(r->issued[0].nsect, 1);
    ck_assert_uint_eq(r->issued[0].flags & ATA_TFLAG_WRITE, 0);
    ck_assert_uint_eq(r->nbytes[0], 512);
    ck_assert_uint_eq(c.ata_cmd, ATA_CMD_ID_ATA);
    /* the result registers the device returned */
    r->ap->qcmd[0].result_tf = (struct ata_taskfile){ .command = 0x50, .nsect = 0x00, .device = 0xa0 };
    hw_complete_all(r);
    {
        /* CK_COND: RECOVERED ERROR, ATA PASS-THROUGH INFORMATION AVAILABLE (00h/1Dh), always
         * descriptor format, with the ATA Status Return descriptor (09h, 0Ch) */
        static const uint8_t want[22] = { 0x72, 0x01, 0x00, 0x1d, 0, 0, 0, 14, 0x09, 0x0c, 0x00, 0x00,
                                          0, 0x00, 0, 0, 0, 0, 0, 0, 0xa0, 0x50 };
        ck_assert_uint_eq(c.status, SAM_STAT_CHECK_CONDITION);
        ck_assert_uint_eq(c.sense_len, 22);
        ck_assert_mem_eq(c.sense, want, 22);
    }

    /* ATA PASS-THROUGH (12): CHECK POWER MODE, non-data, no CK_COND: GOOD, no sense */
    {
        static const uint8_t cp12[12] = { SCSI_ATA_12, 3 << 1, 0, 0, 0, 0, 0, 0, 0, 0xe5, 0, 0 };

        c = mkcmd(r, cp12, 12, ATA_SCSI_DIR_NONE, 0);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        ck_assert_uint_eq(r->issued[1].command, 0xe5);
        ck_assert_uint_eq(r->issued[1].protocol, ATA_PROT_NODATA);
        hw_complete_all(r);
        ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
        ck_assert_uint_eq(c.sense_len, 0);
    }
    /* a failing pass-through, fixed format (D_SENSE clear): the registers in INFORMATION */
    {
        static const uint8_t sf16[16] = { SCSI_ATA_16, (3 << 1) | 1, 0x20, 0, 0x66, 0, 0, 0, 0, 0, 0, 0, 0, 0xa0, 0xef, 0 };
        struct ata_taskfile rtf = { .command = ATA_DRDY | ATA_ERR, .feature = ATA_ABORTED, .device = 0xa0 };

        c = mkcmd(r, sf16, 16, ATA_SCSI_DIR_NONE, 0);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        ck_assert_uint_eq(r->issued[2].flags & ATA_TFLAG_LBA48, ATA_TFLAG_LBA48);
        eh_fail_inflight(r, AC_ERR_DEV, &rtf);
        assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x21, 0x04); /* ABRT alone: by status */
        ck_assert_uint_eq(c.sense[0], 0xf0);
        ck_assert_uint_eq(c.sense[3], ATA_ABORTED); /* ERROR */
        ck_assert_uint_eq(c.sense[4], 0x41);        /* STATUS */
        ck_assert_uint_eq(c.sense[5], 0xa0);        /* DEVICE */
        ck_assert_uint_eq(c.sense[8], 0x80);        /* EXTEND */
        /* the same in descriptor format (D_SENSE): the ATA Status Return descriptor */
        r->dev->flags |= ATA_DFLAG_D_SENSE;
        c = mkcmd(r, sf16, 16, ATA_SCSI_DIR_NONE, 0);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        eh_fail_inflight(r, AC_ERR_DEV, &rtf);
        {
            static const uint8_t want[22] = { 0x72, 0x05, 0x21, 0x04, 0, 0, 0, 14, 0x09, 0x0c, 0x01, ATA_ABORTED,
                                              0, 0, 0, 0, 0, 0, 0, 0, 0xa0, 0x41 };
            ck_assert_uint_eq(c.sense_len, 22);
            ck_assert_mem_eq(c.sense, want, 22);
        }
        r->dev->flags &= ~(unsigned)ATA_DFLAG_D_SENSE;
    }
    /* refused before the device: SET FEATURES - set transfer mode (byte 4), a reset
     * protocol (byte 1), DMA data-in on a device without DMA (byte 1) */
    {
        static const uint8_t xfer[16] = { SCSI_ATA_16, 3 << 1, 0, 0, 0x03, 0, 0x46, 0, 0, 0, 0, 0, 0, 0xa0, 0xef, 0 };
        static const uint8_t srst[16] = { SCSI_ATA_16, 1 << 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xa0, 0x00, 0 };

        c = mkcmd(r, xfer, 16, ATA_SCSI_DIR_NONE, 0);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x24, 0x00);
        ck_assert_uint_eq(c.sense[17], 4);
        c = mkcmd(r, srst, 16, ATA_SCSI_DIR_NONE, 0);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
        ck_assert_uint_eq(c.sense[17], 1);
        ck_assert_uint_eq(r->n_issued, 4);
    }
    rig_free(r);
}
END_TEST

START_TEST(write_same_unmap)
{
    static const uint8_t ws[16] = { SCSI_WRITE_SAME_16, 0x08, 0, 0, 0, 0, 0, 0, 0x10, 0x00, 0, 0x01, 0x00, 0x02, 0, 0 };
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    struct ata_scsi_cmd c = mkcmd(r, ws, 16, ATA_SCSI_DIR_TO_DEV, 512);

    /* no TRIM in IDENTIFY word 169: INVALID FIELD IN CDB, byte 1 bit 3 (UNMAP) */
    r->done = 0;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_int_eq(r->done, 1);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x24, 0x00);
    ck_assert_uint_eq(c.sense[15], 0xcb);
    ck_assert_uint_eq(c.sense[17], 1);
    ck_assert_uint_eq(r->n_issued, 0);
    rig_free(r);

    /* with TRIM: DATA SET MANAGEMENT (TRIM), one block of LBA range entries */
    r = rig_new(RIG_NCQ, true);
    c = mkcmd(r, ws, 16, ATA_SCSI_DIR_TO_DEV, 512);
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    ck_assert_uint_eq(r->n_issued, 1);
    ck_assert_uint_eq(r->issued[0].command, 0x06);
    ck_assert_uint_eq(r->issued[0].feature, 0x01);
    ck_assert_uint_eq(r->issued[0].nsect, 1);
    ck_assert_uint_eq(r->issued[0].protocol, ATA_PROT_DMA);
    ck_assert_uint_eq(r->issued[0].flags & (ATA_TFLAG_WRITE | ATA_TFLAG_LBA48), ATA_TFLAG_WRITE | ATA_TFLAG_LBA48);
    {
        /* ACS-3 DATA SET MANAGEMENT: LBA 0x1000 for 0x10002 blocks = 0xffff + 3, little-endian entries */
        static const uint8_t want[24] = { 0x00, 0x10, 0, 0, 0, 0, 0xff, 0xff,
                                          0xff, 0x0f, 0x01, 0, 0, 0, 0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0 };
        ck_assert_mem_eq(r->data, want, 24);
    }
    hw_complete_all(r);
    ck_assert_uint_eq(c.status, SAM_STAT_GOOD);
    /* SG_IO's buffer is the user's: never overwritten (INVALID COMMAND OPERATION CODE) */
    c = mkcmd(r, ws, 16, ATA_SCSI_DIR_TO_DEV, 512);
    c.passthrough = true;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), 0);
    assert_fixed_sense(&c, SCSI_SK_ILLEGAL_REQUEST, 0x20, 0x00);
    ck_assert_uint_eq(r->n_issued, 1);
    rig_free(r);
}
END_TEST

START_TEST(atapi_dispatch)
{
    struct sat_rig *r = rig_new(RIG_NCQ, false);
    static const uint8_t tur[6] = { SCSI_TEST_UNIT_READY };
    struct ata_scsi_cmd c = mkcmd(r, tur, 6, ATA_SCSI_DIR_NONE, 0);

    r->dev->class = ATA_DEV_ATAPI;
    r->dev->cdb_len = 12;
    /* the CDB goes to the PACKET path unchanged (scenarios/atapi/atapi-scsi*.yaml run it end
     * to end); what the adapter refuses before it is an errno, as libata's DID_ERROR: a CDB
     * longer than the drive's packet, data to the device */
    {
        static const uint8_t r16[16] = { SCSI_READ_16 };
        static const uint8_t w10[10] = { SCSI_WRITE_10 };
        struct ata_scsi_cmd l = mkcmd(r, r16, 16, ATA_SCSI_DIR_FROM_DEV, 512);
        struct ata_scsi_cmd w = mkcmd(r, w10, 10, ATA_SCSI_DIR_TO_DEV, 512);

        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &l), -EINVAL);
        ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &w), -EINVAL);
    }
    /* malformed requests are errnos, not sense */
    c.cdb_len = 7;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), -EINVAL);
    c.cdb_len = 6;
    r->dev->flags &= ~(unsigned)ATA_DFLAG_ENABLED;
    ck_assert_int_eq(ata_scsi_queuecmd(r->dev, &c), -ENODEV);
    rig_free(r);
}
END_TEST

Suite *sat_suite(void)
{
    Suite *s = suite_create("sat");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, sense_table);
    tcase_add_test(tc, sense_formats);
    tcase_add_test(tc, inquiry_standard);
    tcase_add_test(tc, inquiry_vpd);
    tcase_add_test(tc, inquiry_vpd_trim);
    tcase_add_test(tc, read_capacity);
    tcase_add_test(tc, mode_sense);
    tcase_add_test(tc, tur_request_sense_unknown);
    tcase_add_test(tc, rw_translation);
    tcase_add_test(tc, rw_error_sense);
    tcase_add_test(tc, mode_select_caching);
    tcase_add_test(tc, start_stop);
    tcase_add_test(tc, ata_pass_through);
    tcase_add_test(tc, write_same_unmap);
    tcase_add_test(tc, atapi_dispatch);
    tcase_add_test(tc, verify_translation);
    tcase_add_test(tc, report_luns);
    suite_add_tcase(s, tc);
    return s;
}
