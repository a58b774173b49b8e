/* Core-private declarations of the driver stack, in the image of Linux's drivers/ata/libata.h:
 * shared by stack/core/, stack/eh/ and stack/pmp/ (and the stack's unit tests), never by a
 * driver. Grouped by owning file. The objects and what drivers may call are the driver
 * contract (satasim/libata.h); protocol constants are satasim/ata_proto.h.
 */
#ifndef SATASIM_INTERNAL_H
#define SATASIM_INTERNAL_H

#ifdef SATASIM_LLD
#error "stack/drivers/ build against the driver contract (satasim/libata.h) only"
#endif

#include "satasim/libata.h"
#include "eh_policy.h"

/* ---- limits ---- */
enum {
    ATA_EH_MAX_REPEAT = 5,
    ATA_EH_DEV_TRIES = 3,
    ATA_LINK_RESUME_TRIES = 5,
    SATA_PMP_LINK_TRIES = 3,  /* EH runs a fan-out link may fail before it is disabled */
};

/* ---- time (ms) ---- */
enum {
    ATA_TMOUT_FF_WAIT = 800,
    ATA_TMOUT_FF_WAIT_LONG = 2000,
    ATA_WAIT_AFTER_RESET = 150,
    ATA_WAIT_READY_POLL = 50,
    ATA_TMOUT_PRERESET = 10000,
    ATA_TMOUT_XFERMODE = 15000,
    ATA_TMOUT_BIO = 30000, /* normal I/O: the SCSI disk layer's default */
    ATA_EH_RETRY_DELAY = 5000,
    ATA_EH_FASTDRAIN_INTERVAL = 3000, /* EH pending: how long commands in flight get per completion */
};

/* Port multiplier quirks (docs/libata-eh.md 6.4). */
enum {
    ATA_PMP_QUIRK_SII_PORTS = 1u << 0, /* SiI3726: the last fan-out port is its config port */
    ATA_PMP_QUIRK_SII_POL = 1u << 1,   /* SiI 37xx/4726: clear early R_OK (GSCR 129 bit 0) */
};

static inline bool ata_class_probeable(enum ata_dev_class c)
{
    return c == ATA_DEV_ATA || c == ATA_DEV_ATAPI || c == ATA_DEV_SEMB || c == ATA_DEV_ZAC ||
           c == ATA_DEV_PMP;
}

/* ======== core/ ======== */

/* ---- core/force.c: libata.force entries (ata_host_config.force) ---- */
void ata_force_copy(struct ata_host *h, const struct ata_host_config *cfg);
void ata_force_link_limits(struct ata_link *link);  /* link speed limit, at link init */
void ata_force_host_links(struct ata_host *h);      /* every host link, at host start */
/* The host's transfer modes narrowed by a forced limit, and whether NCQ is forced off;
 * print: log the FORCE: line (at attach). */
unsigned ata_force_xfermask(struct ata_device *dev, unsigned mask, bool print);
bool ata_force_noncq(struct ata_device *dev, bool print);
/* libata.force nodma / dma (horkage NODMA): sets or clears ATA_DFLAG_NODMA in the parameter's
 * order, printing each entry that changes it (libata's ata_force_horkage) when print */
void ata_force_nodma(struct ata_device *dev, bool print);
/* libata.force=nolpm / lpm: the device's horkage NOLPM, entries in the parameter's order
 * (the last one stands), each matching one printed when print */
bool ata_force_nolpm(struct ata_device *dev, bool print);
/* libata.force noncqtrim / ncqtrim (horkage NO_NCQ_TRIM): on (true) or off in the parameter's
 * order, starting from `listed` (the device list's verdict), printing each entry when print */
bool ata_force_no_ncq_trim(struct ata_device *dev, bool listed, bool print);
/* libata's cable_is_40wire: the port's cable, or for an unknown or 80-wire one the drives'
 * IDENTIFY word 93 (every enabled device of the link must report 80 wires) */
bool ata_cable_is_40wire(struct ata_port *ap);

/* ---- core/log.c ---- */
const char *ata_err_string(unsigned err_mask);
const char *ata_class_name(enum ata_dev_class cls);

/* ---- core/identify.c: IDENTIFY data and the configuration decisions (pure) ---- */
void ata_id_c_string(const uint16_t *id, char *s, unsigned ofs, unsigned len);
bool ata_id_is_ata(const uint16_t *id);
bool ata_id_is_cfa(const uint16_t *id);
bool ata_id_has_lba(const uint16_t *id);
bool ata_id_has_lba48(const uint16_t *id);
bool ata_id_hpa_enabled(const uint16_t *id);
bool ata_id_has_ncq(const uint16_t *id);
unsigned ata_id_queue_depth(const uint16_t *id);
unsigned ata_id_major_version(const uint16_t *id);
uint64_t ata_id_n_sectors(const uint16_t *id);
/* The logical sector in bytes: words 117-118 (in words) when word 106 says so (bits 15:14 01b,
 * bit 12), else 512 (ACS-3 7.12.7.44, 7.12.7.50; libata's ata_id_logical_sector_size). */
uint32_t ata_id_logical_sector_size(const uint16_t *id);
unsigned ata_id_xfermask(const uint16_t *id);
int ata_xfer_mask_highest(unsigned mask); /* bit index in the packed mask, -1 if none */
uint8_t ata_xfer_bit_to_mode(int bit);
const char *ata_mode_string(unsigned mask);
const char *ata_xfer_mode_name(uint8_t mode);

/* What the controller offers the device. */
struct ata_host_caps {
    unsigned ncq_depth; /* 0 = host without NCQ */
    unsigned xfer_mask;
    bool dev_noncq;     /* the device's NCQ horkage (libata.force=noncq): "NCQ (not used)" */
    bool fua;           /* libata.fua */
    bool atapi_dmadir;  /* libata.atapi_dmadir */
};

/* Everything ata_dev_configure decides from IDENTIFY, before talking to the device. */
struct ata_dev_config {
    enum ata_dev_class cls;
    char model[41], serial[21], fw[9];
    unsigned ata_major;
    bool cfa;
    bool lba, lba48, flush_ext;
    bool wcache, wcache_on;
    uint64_t n_sectors;
    uint32_t sector_size;            /* logical sector, bytes (512, or 4096 on a 4Kn disk) */
    uint16_t cyls, heads, sectors;   /* CHS devices only */
    unsigned multi_max, multi_cur;   /* from words 47 / 59 (0 = none / not set) */
    unsigned multi_count;            /* the count the stack wants */
    unsigned max_sectors;
    bool dev_ncq;                    /* device supports NCQ */
    bool ncq_not_used;               /* ... but horkage NONCQ keeps it off */
    unsigned dev_depth, host_depth;
    bool ncq;                        /* NCQ in use */
    bool fua;                        /* FUA writes used */
    unsigned ncq_depth;
    unsigned dev_xfer_mask;          /* device modes */
    unsigned xfer_mask;              /* device & host modes */
    uint8_t xfer_mode;               /* chosen mode (SET FEATURES value) */
    /* ATAPI (IDENTIFY PACKET DEVICE): the CDB interrupt (word 0 bits 6:5 = 01b), DMADIR
     * (word 62 bit 15, or libata.atapi_dmadir), the packet length (word 0 bits 1:0) */
    bool cdb_intr, dmadir;
    unsigned cdb_len;
};
void ata_id_configure(const uint16_t *id, enum ata_dev_class cls, const struct ata_host_caps *hc,
                      struct ata_dev_config *out);
/* "ATA-8: <model>, <fw>, max UDMA/133" */
void ata_config_id_line(const struct ata_dev_config *c, char *buf, size_t len);
/* "<n> sectors, multi 16: LBA48 NCQ (depth 31/32)"; empty for ATAPI */
void ata_config_size_line(const struct ata_dev_config *c, char *buf, size_t len);

/* ---- core/qc.c: tags, issue, completion, internal commands ---- */
int ata_tag_get(struct ata_tags *t);          /* lowest free normal tag or -1 */
int ata_tag_get_wanted(struct ata_tags *t, unsigned want); /* want if free, else as ata_tag_get */
int ata_tag_get_internal(struct ata_tags *t); /* the reserved tag or -1 if busy */
bool ata_tag_put(struct ata_tags *t, unsigned tag); /* false: not allocated */
void ata_qc_issue(struct ata_queued_cmd *qc);            /* lock held */
void ata_qc_complete(struct ata_queued_cmd *qc);         /* lock held */
void ata_qc_free(struct ata_queued_cmd *qc);             /* lock held: release tag and state */
void ata_eh_qc_complete(struct ata_queued_cmd *qc);      /* lock held: finish with its err_mask */
unsigned ata_internal_cmd_timeout(const struct ata_device *dev, uint8_t cmd);
void ata_internal_cmd_timed_out(struct ata_device *dev, uint8_t cmd);
/* A non-data internal command (core/probe.c); returns err_mask. */
unsigned ata_exec_nodata(struct ata_device *dev, uint8_t cmd, uint8_t feature, uint8_t nsect,
                         unsigned timeout_ms);
/* ---- core/lpm.c: link power management ---- */
enum { ATA_TMOUT_SPURIOUS_PHY = 10000 };                    /* ms */
const char *ata_lpm_policy_name(enum ata_lpm_policy policy);
bool ata_id_has_hipm(const uint16_t *id);
bool ata_id_has_dipm(const uint16_t *id);
/* libata.force=nolpm and its warning: the port's target policy becomes max_performance */
void ata_dev_config_lpm(struct ata_device *dev, bool print);
bool ata_id_has_devslp(const uint16_t *id);
void ata_dev_config_devslp(struct ata_device *dev, bool print);
/* EH (eh/lpm.c): configure the link for a policy, libata's ata_eh_link_set_lpm */
int ata_eh_link_set_lpm(struct ata_link *link, enum ata_lpm_policy policy, struct ata_device **r_failed);
/* Process context. buf may be NULL for non-data commands; returns err_mask. */
unsigned ata_exec_internal(struct ata_device *dev, struct ata_taskfile *tf,
                           const struct plat_dma_buf *buf, uint32_t len, unsigned timeout_ms);
/* The same with a packet (tf an ATAPI protocol): cdb is 16 bytes. */
unsigned ata_exec_internal_cdb(struct ata_device *dev, struct ata_taskfile *tf, const uint8_t *cdb,
                               const struct plat_dma_buf *buf, uint32_t len, unsigned timeout_ms);
/* ATAPI (core/atapi.c): a PACKET command's taskfile (libata's atapi_xlat) */
void atapi_build_tf(const struct ata_device *dev, uint32_t nbytes, bool dma, uint16_t byte_count,
                    struct ata_taskfile *tf);
bool atapi_use_dma(const struct ata_device *dev, const struct ata_packet *pc);

/* ---- core/bio.c: block I/O ---- */
int ata_bio_build_tf(const struct ata_device *dev, const struct ata_bio *bio, unsigned tag,
                     struct ata_taskfile *tf);
int ata_bio_check(const struct ata_port *ap, const struct ata_device *dev, const struct ata_bio *bio);
/* the device's logical sector in bytes (dev->sector_size; 512 on a device never configured) */
static inline uint32_t ata_dev_sector_size(const struct ata_device *dev)
{
    return dev->sector_size ? dev->sector_size : ATA_SECT_SIZE;
}
/* the bytes of one of a request's n_sectors: the device's logical sector for a read or write
 * (4096 on a 4Kn disk, docs/device.md 4.1), 512 for a taskfile command's data */
uint32_t ata_bio_sect_size(const struct ata_device *dev, const struct ata_bio *bio);
/* trim.c: the DATA SET MANAGEMENT of an ATA_BIO_TRIM request, its range list */
bool ata_id_has_trim(const uint16_t *id);
void ata_trim_format(uint8_t *buf, uint64_t lba, uint32_t n);
int ata_trim_build_tf(const struct ata_device *dev, const struct ata_bio *bio, unsigned tag, struct ata_taskfile *tf);
/* queued TRIM: the NO_NCQ_TRIM horkage list by model; log 13h read at configure (with the
 * horkage: its TRIM bit cleared); whether the copy says queued TRIM */
bool ata_model_no_ncq_trim(const char *model);
/* gplog.c: general purpose logs (READ LOG EXT) */
unsigned ata_read_log_page(struct ata_device *dev, uint8_t log, uint8_t page, bool print);
unsigned ata_log_supported(struct ata_device *dev, uint8_t log, bool print);
bool ata_identify_page_supported(struct ata_device *dev, uint8_t page, bool print);
void ata_dev_config_ncq_send_recv(struct ata_device *dev, bool no_ncq_trim, bool print);
bool ata_fpdma_trim_supported(const struct ata_device *dev);
int ata_trim_fill_payload(const struct ata_port *ap, const struct ata_bio *bio);
void ata_port_kick(struct ata_port *ap);                        /* lock held */
void ata_bio_fail(struct ata_port *ap, struct ata_bio *bio, unsigned err_mask); /* lock held */
void ata_bio_requeue_front(struct ata_port *ap, struct ata_bio *bio);           /* lock held */
/* Fail every waiting request of dev with err_mask; returns how many (lock held). */
unsigned ata_bio_fail_dev(struct ata_port *ap, const struct ata_device *dev, unsigned err_mask);

/* ---- core/sata.c: link helpers and the link speed limit ---- */
extern const struct sata_deb_timing sata_deb_timing_normal;
extern const struct sata_deb_timing sata_deb_timing_hotplug;
int sata_link_resume(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline);
const char *sata_spd_string(unsigned spd);
/* Lower the link's allowed SATA speed one step (effective at the next hardreset). */
int sata_down_spd_limit(struct ata_link *link, unsigned spd_limit);
/* SControl.SPD value the limit asks for (0 = no limit) and whether SControl differs. */
unsigned sata_spd_target(const struct ata_link *link);
bool sata_set_spd_needed(struct ata_link *link);

/* ---- core/probe.c: IDENTIFY, configure, revalidate, transfer mode ---- */
int ata_dev_read_id(struct ata_device *dev, enum ata_dev_class *cls, uint16_t *id);
int ata_dev_configure(struct ata_device *dev);
/* ---- core/hpa.c: the Host Protected Area at configure time (libata's ata_hpa_resize) ---- */
int ata_hpa_resize(struct ata_device *dev, bool print);
int ata_dev_revalidate(struct ata_device *dev, enum ata_dev_class new_class);
int ata_set_mode(struct ata_link *link, struct ata_device **failed);

/* ---- core/disk.c: block-layer names and the block layer's I/O error line ---- */
void ata_disk_attach(struct ata_device *dev);
void ata_disk_attach_all(struct ata_host *h);
void ata_disk_detach(struct ata_device *dev);
void ata_disk_name(const struct ata_device *dev, char *buf, size_t len);
void ata_blk_print_req_error(const struct ata_queued_cmd *qc);

/* ---- core/host.c ---- */
struct ata_host *ata_host_alloc(struct sata_platform *p, const struct sata_platform_ops *pops,
                                const struct ata_port_operations *ops, unsigned n_ports);
void ata_host_free(struct ata_host *h);
/* Select the EH profile by name (NULL = default); -EINVAL + trace message if unknown. */
int ata_host_set_eh_policy(struct ata_host *h, const char *name);

/* ======== eh/ ======== */

/* ---- eh/eh.c: scheduling, freeze/thaw, the error handler, finish, EH entry ---- */
void ata_port_schedule_eh(struct ata_port *ap);      /* lock held */
void ata_port_wake_eh(struct ata_port *ap);          /* lock held: run its EH context */
void ata_host_probe_next(struct ata_host *h);         /* lock held: serial boot probe's next port */
void ata_host_probe_ended(struct ata_host *h);        /* lock not held: a boot probe ended; wake the later hosts' */
/* Commands EH does not own yet (active, not failed), the internal one excepted (lock held). */
unsigned ata_eh_nr_in_flight(struct ata_port *ap);
/* A command ended: wake EH's fast drain if it was the last one in flight (lock held). */
void ata_eh_drain_check(struct ata_port *ap);
void ata_eh_thaw_port(struct ata_port *ap);
/* Start of an EH run for one link: its context from the events recorded so far. */
void ata_eh_link_init_context(struct ata_link *link, int tries_left);
/* After EH: may this request be issued again? err_mask 0 = aborted innocent, always and for
 * free; otherwise only if EH marked it retryable and the budget allows (counts the retry). */
bool ata_eh_bio_retry(const struct ata_eh_policy *pol, struct ata_bio *bio, unsigned err_mask, bool retry_flag);
/* EH's last step: complete, retry or requeue every failed command (takes the lock). */
void ata_eh_finish(struct ata_port *ap);
/* The steps of an error handler (libata's ata_do_eh is the first three with
 * ata_eh_recover between): autopsy of every link, report, and the end of a recovery
 * (the port thawed, ata_eh_finish, the run marked as one to report "EH complete" for). */
void ata_eh_autopsy(struct ata_port *ap);
void ata_eh_report(struct ata_port *ap);
void ata_eh_conclude(struct ata_port *ap);
/* autopsy, report, ata_eh_recover with these reset methods, conclude */
void ata_do_eh(struct ata_port *ap, ata_prereset_fn prereset, ata_reset_fn softreset,
               ata_reset_fn hardreset, ata_postreset_fn postreset);

/* ---- eh/autopsy.c: autopsy and speed-down ---- */
/* Record a device's error in its ring and apply the profile's verdict; returns the
 * actions to request (ATA_EH_*). */
unsigned ata_eh_speed_down(struct ata_device *dev, unsigned eflags, unsigned err_mask);
/* Transfer mask step-down for a device (takes effect at the next set-mode). */
int ata_dev_down_xfermask(struct ata_device *dev, enum ata_dnxfer sel);
/* A command EH owns that belongs to this link: its device is on it (a fan-out link's are
 * the disk's behind that PM port; without a PMP every command is the host link's). */
static inline bool ata_eh_link_failed_qc(const struct ata_link *link, const struct ata_queued_cmd *qc)
{
    /* a slave link's failed commands are device 1's (libata: ata_dev_phys_link(qc->dev)) */
    return (qc->flags & ATA_QCFLAG_FAILED) && qc->dev && ata_dev_phys_link(qc->dev) == link;
}

/* Autopsy of a link's failed commands (EH context; eh_context filled). */
void ata_eh_link_autopsy(struct ata_link *link);

/* ---- eh/report.c ---- */
void ata_eh_link_report(struct ata_link *link);

/* ---- eh/reset.c: reset with retries ---- */
int ata_eh_reset(struct ata_link *link, bool classify, ata_prereset_fn prereset,
                 ata_reset_fn softreset, ata_reset_fn hardreset, ata_postreset_fn postreset);
/* A link that is not the host link, while the host link asks for a reset (behind a PMP:
 * its control port failed): nothing this link tries can succeed; its recovery stops. */
bool ata_eh_host_reset_pending(const struct ata_link *link);

/* ---- eh/recover.c: the recovery loop ---- */
int ata_eh_recover(struct ata_port *ap, ata_prereset_fn prereset, ata_reset_fn softreset,
                   ata_reset_fn hardreset, ata_postreset_fn postreset);
int ata_eh_recover_link(struct ata_link *link, ata_prereset_fn prereset, ata_reset_fn softreset,
                        ata_reset_fn hardreset, ata_postreset_fn postreset);
int ata_eh_recover_links(struct ata_port *ap, ata_prereset_fn prereset, ata_reset_fn softreset,
                         ata_reset_fn hardreset, ata_postreset_fn postreset, struct ata_link **r_failed);
void ata_dev_disable(struct ata_device *dev);
/* Disable dev and take it from its users: its requests fail with AC_ERR_NODEV_HINT. */
void ata_eh_detach_dev(struct ata_device *dev);

/* ---- eh/analyze.c: pure autopsy pieces and report wording ---- */
/* status/error of a failed command -> err_mask bits; true if a reset is needed */
bool ata_eh_analyze_tf_regs(enum ata_dev_class cls, uint8_t stat, uint8_t err, unsigned *err_mask);
/* SError -> err_mask and actions per the profile; true if it signals hotplug */
bool ata_eh_analyze_serror_bits(const struct ata_eh_policy *pol, uint32_t serror, unsigned *err_mask,
                                unsigned *action);
unsigned ata_eh_cleanup_mask(unsigned err_mask);
/* NCQ command error log: 0 (tag, result TF), -ENOENT (NQ set); *csum = byte sum (0 = valid) */
int ata_ncq_log_parse(const uint8_t *buf, unsigned *tag, struct ata_taskfile *rtf, uint8_t *csum);
const char *ata_eh_cmd_name(uint8_t cmd);
/* ncq: the protocol's name for a queued data command ("ncq dma", or the older "ncq") */
void ata_eh_format_cmd_line(char *buf, size_t len, const struct ata_taskfile *tf, unsigned tag, uint32_t nbytes,
                            const char *ncq);
/* 2.6.20-2.6.23's cmd line: "cmd TF tag N cdb 0xC data NBYTES DIR" (DIR "" without data) */
void ata_eh_format_cmd_line_2620(char *buf, size_t len, const struct ata_taskfile *tf, unsigned tag, uint8_t cdb0,
                                 uint32_t nbytes);
void ata_eh_format_res_line(char *buf, size_t len, const struct ata_taskfile *rtf, unsigned err_mask);
/* An ATAPI command's CDB as the report prints it before "res" (the SCSI layer's command
 * formatting: the command's name, then cdb_len bytes in hex; 0 = the opcode group's length) */
void ata_eh_format_cdb(char *buf, size_t len, const uint8_t *cdb, unsigned cdb_len);
/* eh/sense.c: REQUEST SENSE for a failed ATAPI command, in EH (libata's
 * atapi_eh_request_sense): sense (18 bytes) is prefilled with dfl_key in fixed format, then
 * read from the device; returns the internal command's err_mask (0 = sense valid) */
unsigned atapi_eh_request_sense(struct ata_device *dev, uint8_t *sense, unsigned sense_len, uint8_t dfl_key);
void ata_eh_format_status(char *buf, size_t len, uint8_t stat);
void ata_eh_format_error(char *buf, size_t len, uint8_t err);
void ata_eh_format_serror(char *buf, size_t len, uint32_t serror);
void ata_eh_format_exception(char *buf, size_t len, unsigned emask, uint32_t sact, uint32_t serr,
                             unsigned action, bool frozen, int tries_left);

/* ======== pmp/ ======== */

/* pmp/pmp.c has nothing private to share: the core and EH reach it only through the entries
 * of sata_pmp_port_ops; its LLD helpers are in the driver contract. */

#endif
