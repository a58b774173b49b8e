/* Private objects of the driver stack, in the image of libata's 2006 EH design:
 * host -> ports -> links (one host link per port now, PMP fan-out links later) -> devices,
 * queued commands (qc) addressed by tag, and a per-port LLD operations table with shared
 * defaults so other controller drivers and PMP support slot in without touching the core.
 *
 * Contexts: "process" = submitter or EH context (may sleep), "irq" = interrupt handler and
 * timers. Functions marked "lock held" expect the platform lock taken by the caller.
 */
#ifndef SATASIM_INTERNAL_H
#define SATASIM_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "satasim/ata.h"
#include "eh_policy.h"

#define ATA_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#define ATA_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ATA_MS(ms) ((uint64_t)(ms) * 1000000u)

/* ---- limits ---- */
enum {
    ATA_MAX_QUEUE = 32,
    ATA_TAG_INTERNAL = ATA_MAX_QUEUE - 1, /* reserved for EH commands on a 32-slot HBA */
    ATA_MAX_DEVICES = 1,                  /* per link: SATA has one; PMP adds links */
    ATA_SECT_SIZE = 512,
    ATA_ID_WORDS = 256,
    ATA_MAX_SECTORS = 256,
    ATA_MAX_SECTORS_LBA48 = 65535,
    ATA_EH_DESC_LEN = 80,
    ATA_EH_MAX_REPEAT = 5,
    ATA_EH_DEV_TRIES = 3,
    ATA_LINK_RESUME_TRIES = 5,
    SATA_PMP_MAX_PORTS = 15,  /* fan-out links per port */
    SATA_PMP_CTRL_PORT = 15,  /* the PMP's own control port */
    SATA_PMP_LINK_TRIES = 3,  /* EH runs a fan-out link may fail before it is disabled */
};
#define ATA_TAG_NONE 0xffffffffu

/* ---- time (ms) ---- */
enum {
    ATA_TMOUT_FF_WAIT = 800,
    ATA_WAIT_AFTER_RESET = 150,
    ATA_WAIT_READY_POLL = 50,
    ATA_TMOUT_PRERESET = 10000,
    ATA_TMOUT_XFERMODE = 15000,
    ATA_TMOUT_BIO = 30000, /* normal I/O: the SCSI disk layer's default */
    ATA_EH_RETRY_DELAY = 5000,
};

/* ---- ATA registers and commands ---- */
enum {
    ATA_BUSY = 1u << 7, ATA_DRDY = 1u << 6, ATA_DF = 1u << 5, ATA_DRQ = 1u << 3, ATA_ERR = 1u << 0,
    ATA_ICRC = 1u << 7, ATA_UNC = 1u << 6, ATA_IDNF = 1u << 4, ATA_ABORTED = 1u << 2, ATA_AMNF = 1u << 0,
    ATA_LBA = 1u << 6,          /* device register: LBA addressing */
    ATA_DEVICE_OBS = 0xa0,      /* obsolete device-register bits set for device 0 */
    ATA_DEVCTL_OBS = 0x08,      /* obsolete device-control bit always set */
    ATA_SRST = 1u << 2,
};

enum {
    ATA_CMD_READ_SECTORS = 0x20, ATA_CMD_READ_SECTORS_EXT = 0x24,
    ATA_CMD_WRITE_SECTORS = 0x30, ATA_CMD_WRITE_SECTORS_EXT = 0x34,
    ATA_CMD_READ_MULTI = 0xc4, ATA_CMD_READ_MULTI_EXT = 0x29,
    ATA_CMD_WRITE_MULTI = 0xc5, ATA_CMD_WRITE_MULTI_EXT = 0x39,
    ATA_CMD_READ_DMA = 0xc8, ATA_CMD_READ_DMA_EXT = 0x25,
    ATA_CMD_WRITE_DMA = 0xca, ATA_CMD_WRITE_DMA_EXT = 0x35,
    ATA_CMD_FPDMA_READ = 0x60, ATA_CMD_FPDMA_WRITE = 0x61,
    ATA_CMD_FLUSH = 0xe7, ATA_CMD_FLUSH_EXT = 0xea,
    ATA_CMD_ID_ATA = 0xec, ATA_CMD_ID_ATAPI = 0xa1,
    ATA_CMD_SET_FEATURES = 0xef, ATA_CMD_SET_MULTI = 0xc6,
    ATA_CMD_READ_LOG_EXT = 0x2f,
    ATA_CMD_PMP_READ = 0xe4, ATA_CMD_PMP_WRITE = 0xe8,
    ATA_LOG_SATA_NCQ = 0x10,
    SETFEATURES_XFER = 0x03,
};

/* transfer modes: SET FEATURES values and the packed mask (libata's layout) */
enum {
    XFER_PIO_0 = 0x08, XFER_MW_DMA_0 = 0x20, XFER_UDMA_0 = 0x40,
    ATA_SHIFT_PIO = 0, ATA_NR_PIO = 7,
    ATA_SHIFT_MWDMA = 7, ATA_NR_MWDMA = 5,
    ATA_SHIFT_UDMA = 12, ATA_NR_UDMA = 8,
};
#define ATA_MASK_PIO (((1u << ATA_NR_PIO) - 1) << ATA_SHIFT_PIO)
#define ATA_MASK_MWDMA (((1u << ATA_NR_MWDMA) - 1) << ATA_SHIFT_MWDMA)
#define ATA_MASK_UDMA (((1u << ATA_NR_UDMA) - 1) << ATA_SHIFT_UDMA)

/* Port multiplier global registers (GSCR) and feature bits (hardware.md 7.3). */
enum {
    SATA_PMP_GSCR_PROD_ID = 0, SATA_PMP_GSCR_REV = 1, SATA_PMP_GSCR_PORT_INFO = 2,
    SATA_PMP_GSCR_ERROR = 32, SATA_PMP_GSCR_ERROR_EN = 33,
    SATA_PMP_GSCR_FEAT = 64, SATA_PMP_GSCR_FEAT_EN = 96,
    SATA_PMP_GSCR_SII_POL = 129,
    SATA_PMP_FEAT_BIST = 1u << 0, SATA_PMP_FEAT_PMREQ = 1u << 1, SATA_PMP_FEAT_DYNSSC = 1u << 2,
    SATA_PMP_FEAT_NOTIFY = 1u << 3,
};

/* SCR numbering */
enum { SCR_STATUS = 0, SCR_ERROR = 1, SCR_CONTROL = 2, SCR_ACTIVE = 3, SCR_NOTIFICATION = 4 };

/* ---- taskfile ---- */
enum ata_prot { ATA_PROT_NODATA = 0, ATA_PROT_PIO, ATA_PROT_DMA, ATA_PROT_NCQ };

enum {
    ATA_TFLAG_LBA48 = 1u << 0,
    ATA_TFLAG_WRITE = 1u << 1, /* data goes host -> device */
};

/* As libata: a result taskfile carries status in `command` and error in `feature`. */
struct ata_taskfile {
    enum ata_prot protocol;
    unsigned flags;
    uint8_t command, feature, nsect, lbal, lbam, lbah, device, ctl;
    uint8_t hob_feature, hob_nsect, hob_lbal, hob_lbam, hob_lbah;
};

/* ---- EH state ---- */
enum {
    ATA_EH_REVALIDATE = 1u << 0,
    ATA_EH_SOFTRESET = 1u << 1,
    ATA_EH_HARDRESET = 1u << 2,
    ATA_EH_RESET = ATA_EH_SOFTRESET | ATA_EH_HARDRESET,
    ATA_EH_ENABLE_LINK = 1u << 3, /* hotplug: re-enable the link; no-op without PMP links,
                                     kept so the report's action reads as libata's (0xe) */
};

enum {
    ATA_EHI_HOTPLUGGED = 1u << 0,
    ATA_EHI_NO_AUTOPSY = 1u << 2,
    ATA_EHI_QUIET = 1u << 3,
    ATA_EHI_DID_SOFTRESET = 1u << 16,
    ATA_EHI_DID_HARDRESET = 1u << 17,
    ATA_EHI_PRINTINFO = 1u << 18,
    ATA_EHI_SETMODE = 1u << 19,
    ATA_EHI_POST_SETMODE = 1u << 20,
};

/* Port flags (pflags). */
enum {
    ATA_PFLAG_EH_PENDING = 1u << 0,
    ATA_PFLAG_EH_IN_PROGRESS = 1u << 1,
    ATA_PFLAG_FROZEN = 1u << 2,
    ATA_PFLAG_RECOVERED = 1u << 3,
    ATA_PFLAG_UNLOADING = 1u << 9,
};

/* Port flags (static). */
enum {
    ATA_FLAG_DUMMY = 1u << 0,
    ATA_FLAG_PMP = 1u << 1, /* the controller can talk to a port multiplier */
    ATA_FLAG_AN = 1u << 2,  /* the controller reports asynchronous notification (SNotification) */
};

/* Link flags. */
enum {
    ATA_LFLAG_DISABLED = 1u << 0, /* fan-out link given up on (EH does not touch it) */
};

/* Port multiplier quirks (libata-eh.md 6.4). */
enum {
    ATA_PMP_QUIRK_SII_PORTS = 1u << 0, /* SiI3726: the last fan-out port is its config port */
    ATA_PMP_QUIRK_SII_POL = 1u << 1,   /* SiI 37xx/4726: clear early R_OK (GSCR 129 bit 0) */
};

/* Device flags. */
enum {
    ATA_DFLAG_ENABLED = 1u << 0,
    ATA_DFLAG_LBA = 1u << 1,
    ATA_DFLAG_LBA48 = 1u << 2,
    ATA_DFLAG_NCQ = 1u << 3, /* NCQ in use */
    ATA_DFLAG_FLUSH_EXT = 1u << 4,
    ATA_DFLAG_DMA = 1u << 5, /* transfer mode is a DMA mode */
    ATA_DFLAG_WCACHE = 1u << 6, /* write cache enabled (reported only) */
    ATA_DFLAG_NCQ_OFF = 1u << 7, /* EH turned NCQ off (speed-down verdict); kept over revalidation */
    ATA_DFLAG_DUBIOUS_XFER = 1u << 8, /* mode changed by EH, no data transfer verified since */
    ATA_DFLAG_ATTACHED = 1u << 9, /* handed to the block layer (libata: has a SCSI device) */
    ATA_DFLAG_DETACH = 1u << 10,  /* user asked to delete it: detach at the next EH */
    ATA_DFLAG_DETACHED = 1u << 11, /* detached by EH; "detaching" is reported after EH, kept
                                      over the slot's re-init as libata keeps it */
};

/* qc flags. */
enum {
    ATA_QCFLAG_ACTIVE = 1u << 0,
    ATA_QCFLAG_RETRY = 1u << 7,   /* EH: worth retrying (policy) */
    ATA_QCFLAG_FAILED = 1u << 16, /* owned by EH until finish */
};

/* Internal command timeout classes (libata-eh.md 3.8). */
enum ata_itmo_class { ATA_ITMO_DEFAULT = 0, ATA_ITMO_IDENTIFY, ATA_ITMO_SETFEAT, ATA_ITMO_FLUSH, ATA_ITMO_NR };

struct ata_eh_info {
    unsigned probe_mask;
    unsigned action;
    unsigned flags;
    unsigned err_mask;
    uint32_t serror;
    char desc[ATA_EH_DESC_LEN];
};

struct ata_eh_context {
    struct ata_eh_info i;
    int tries[ATA_MAX_DEVICES];
    enum ata_dev_class classes[ATA_MAX_DEVICES];
    unsigned did_probe_mask;
    uint64_t last_reset;
    int eh_tries_left;        /* EH repeats left (report " tN" when repeating) */
    uint8_t saved_xfer_mode[ATA_MAX_DEVICES]; /* at EH start, for DUBIOUS_XFER */
    bool saved_ncq[ATA_MAX_DEVICES];
};

struct ata_port;
struct ata_link;

struct ata_device {
    struct ata_link *link;
    unsigned devno;
    enum ata_dev_class class;
    unsigned flags;
    uint16_t id[ATA_ID_WORDS];
    char model[41], serial[21], fw[9];
    uint64_t n_sectors;
    unsigned max_sectors;
    unsigned multi_count;
    unsigned ncq_depth;
    unsigned xfer_mask;      /* device & host modes, from IDENTIFY */
    uint8_t xfer_mode;       /* chosen (set by SET FEATURES) */
    uint8_t itmo_idx[ATA_ITMO_NR];
    /* EH history: kept over revalidation, reset when a new device is attached */
    struct ata_ering ering;
    unsigned spdn_cnt;       /* transfer-mode step-downs so far */
    unsigned xfer_limit;     /* EH's cap on xfer_mask, 0 = none */
};

struct ata_link {
    struct ata_port *ap;
    int pmp;                 /* -1 on the host link, 0..14 on a PMP fan-out link */
    unsigned flags;          /* ATA_LFLAG_* */
    unsigned fail_runs;      /* fan-out link: EH runs in a row that failed to recover it */
    unsigned sata_spd;       /* negotiated generation from SStatus after reset */
    unsigned sata_spd_limit; /* allowed generations (bit0 1.5G..bit2 6G), 0 = no limit */
    unsigned active_tag;     /* non-NCQ command in flight, or ATA_TAG_NONE */
    uint32_t sactive;        /* NCQ commands in flight */
    unsigned nr_ncq;
    struct ata_eh_info eh_info;    /* written by irq paths, consumed by EH */
    struct ata_eh_context eh_context;
    struct ata_device device[ATA_MAX_DEVICES];
};

struct ata_queued_cmd {
    struct ata_port *ap;
    struct ata_device *dev;
    unsigned tag;
    unsigned flags;
    struct ata_taskfile tf;
    struct ata_taskfile result_tf;
    const struct ata_sg *sg;
    unsigned n_sg;
    uint32_t nbytes;
    unsigned err_mask;
    uint64_t timer;          /* platform timer handle, 0 = none */
    uint64_t seq;            /* issue order, to retry in order after EH */
    struct ata_bio *bio;     /* NULL for internal commands */
    struct ata_sg int_sg;    /* internal command data buffer */
};

/* Tag allocator: n tags, the last one reserved for internal commands. */
struct ata_tags {
    uint32_t used;
    unsigned n_tags;
};

struct ata_bio_queue {
    struct ata_bio *head, *tail;
};

typedef int (*ata_reset_fn)(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline);
typedef int (*ata_prereset_fn)(struct ata_link *link, uint64_t deadline);
typedef void (*ata_postreset_fn)(struct ata_link *link, enum ata_dev_class *cls);

/* Low-level driver operations. Host-level entries are taken from the host's table. */
struct ata_port_operations {
    /* command path (lock held) */
    bool (*qc_defer)(const struct ata_queued_cmd *qc); /* true = wait */
    void (*qc_prep)(struct ata_queued_cmd *qc);
    unsigned (*qc_issue)(struct ata_queued_cmd *qc); /* 0 or AC_ERR_* */
    void (*qc_fill_rtf)(struct ata_queued_cmd *qc);

    /* EH (process context unless noted) */
    void (*freeze)(struct ata_port *ap); /* lock held, any context */
    void (*thaw)(struct ata_port *ap);   /* lock held, any context */
    ata_prereset_fn prereset;
    ata_reset_fn softreset;
    ata_reset_fn hardreset;
    ata_postreset_fn postreset;
    void (*error_handler)(struct ata_port *ap);
    void (*post_internal_cmd)(struct ata_queued_cmd *qc);
    /* timer context, lock held: a command timed out; complete what the controller has
     * finished without raising its interrupt. Returns the number completed (NULL = none). */
    unsigned (*lost_interrupt)(struct ata_port *ap);
    /* a port multiplier was attached / is gone (process context, port frozen or idle):
     * the controller must route by PM port from now on (AHCI PxCMD.PMA, sil24 PMP_EN) */
    void (*pmp_attach)(struct ata_port *ap);
    void (*pmp_detach)(struct ata_port *ap);

    /* SCR access: 0 or -EOPNOTSUPP/-EINVAL */
    int (*scr_read)(struct ata_link *link, unsigned reg, uint32_t *val);
    int (*scr_write)(struct ata_link *link, unsigned reg, uint32_t val);

    /* resources: port_start allocates (at host create), port_stop frees (at destroy) */
    int (*port_start)(struct ata_port *ap);
    void (*port_stop)(struct ata_port *ap);

    /* host hardware: start = controller init up to global IRQ enable (before the core
     * requests the IRQ, ports frozen); stop = quiesce every port and the controller */
    int (*host_start)(struct ata_host *h);
    void (*host_stop)(struct ata_host *h);
    void (*irq_handler)(struct ata_host *h); /* irq context, takes the lock itself */
};

struct ata_port {
    struct ata_host *host;
    unsigned port_no;
    unsigned flags;
    unsigned pflags;
    const struct ata_port_operations *ops;
    struct ata_link link;
    /* port multiplier fan-out links, preallocated; nr_pmp_links > 0 while one is attached */
    struct ata_link pmp_link[SATA_PMP_MAX_PORTS];
    unsigned nr_pmp_links;
    uint32_t pmp_gscr[3];     /* product, revision, port info as read at attach */
    uint32_t pmp_feat, pmp_feat_en;
    unsigned pmp_quirks;
    struct ata_queued_cmd qcmd[ATA_MAX_QUEUE];
    struct ata_tags tags;
    uint32_t qc_active;
    uint64_t qc_seq;
    unsigned ncq_depth;       /* host side: 0 = no NCQ */
    unsigned xfer_mask;       /* modes the controller supports */
    unsigned max_segs;        /* scatter/gather entries per command */
    uint32_t seg_max_bytes;   /* bytes per scatter/gather entry */
    struct ata_bio_queue pending; /* waiting for issue, FIFO */
    struct ata_bio_queue done;    /* completed, callbacks run outside the lock */
    struct plat_completion *int_done; /* internal command completion */
    struct plat_dma_buf id_buf;   /* IDENTIFY data, 512 B */
    struct plat_dma_buf log_buf;  /* log page data, 512 B */
    struct plat_completion *eh_wait; /* ata_port_scan / ata_dev_delete wait for EH here */
    bool eh_waiter;               /* someone waits on eh_wait */
    void *private_data;
};

struct ata_host {
    struct sata_platform *plat;
    const struct sata_platform_ops *pops;
    const struct ata_port_operations *ops;
    unsigned n_ports;
    struct ata_port *ports;
    bool started;
    bool irq_requested;
    bool eh_waiter;           /* ata_host_start waits for the probe EH run */
    const struct ata_eh_policy *eh_policy; /* never NULL after create */
    struct plat_completion *eh_done;
    void *private_data;
};

/* A controller driver's create failed before any host existed to log through. */
void ata_report_create_failed(struct sata_platform *p, const struct sata_platform_ops *pops,
                              const char *event, const char *msg);

/* ---- platform shorthands (platform.c-free: tiny inlines) ---- */
static inline uint64_t ata_now(const struct ata_host *h) { return h->pops->now_ns(h->plat); }
static inline void ata_msleep(const struct ata_host *h, unsigned ms) { h->pops->sleep_ns(h->plat, ATA_MS(ms)); }
static inline void ata_lock(const struct ata_host *h) { h->pops->lock(h->plat); }
static inline void ata_unlock(const struct ata_host *h) { h->pops->unlock(h->plat); }
static inline uint64_t ata_deadline(const struct ata_host *h, unsigned ms) { return ata_now(h) + ATA_MS(ms); }
static inline uint32_t ata_mmio_read(const struct ata_host *h, uint32_t off) { return h->pops->mmio_read32(h->plat, off); }
static inline void ata_mmio_write(const struct ata_host *h, uint32_t off, uint32_t v) { h->pops->mmio_write32(h->plat, off, v); }
/* Poll the controller register at off every interval_ms until (value & mask) == want;
 * false once timeout_ms has passed. Process context only (it sleeps). */
static inline bool ata_wait_register(const struct ata_host *h, uint32_t off, uint32_t mask, uint32_t want,
                                     unsigned interval_ms, unsigned timeout_ms)
{
    uint64_t deadline = ata_deadline(h, timeout_ms);

    for (;;) {
        if ((ata_mmio_read(h, off) & mask) == want)
            return true;
        if (ata_now(h) >= deadline)
            return false;
        ata_msleep(h, interval_ms);
    }
}

/* Little-endian stores into controller data structures (command tables, PRBs). */
static inline void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
    put_le16(p, (uint16_t)v);
    put_le16(p + 2, (uint16_t)(v >> 16));
}
static inline bool ata_dev_enabled(const struct ata_device *dev) { return dev->flags & ATA_DFLAG_ENABLED; }
static inline bool ata_is_ncq(const struct ata_taskfile *tf) { return tf->protocol == ATA_PROT_NCQ; }
static inline bool ata_class_probeable(enum ata_dev_class c)
{
    return c == ATA_DEV_ATA || c == ATA_DEV_ATAPI || c == ATA_DEV_SEMB || c == ATA_DEV_ZAC ||
           c == ATA_DEV_PMP;
}

static inline bool ata_is_host_link(const struct ata_link *link) { return link == &link->ap->link; }
static inline bool sata_pmp_attached(const struct ata_port *ap) { return ap->nr_pmp_links != 0; }
/* PM port of the FIS a command or an SRST goes out with: the fan-out link's port, 15 for the
 * PMP itself, and on the host link of a PMP-capable port 15 (a PMP answers SRST there with
 * its own signature, a plain device ignores the field); 0 otherwise. */
static inline unsigned ata_link_pmp_port(const struct ata_link *link)
{
    if (link->pmp >= 0)
        return (unsigned)link->pmp;
    return (link->ap->flags & ATA_FLAG_PMP) ? SATA_PMP_CTRL_PORT : 0u;
}
/* NCQ commands in flight on any link of the port (lock held). */
static inline uint32_t ata_port_sactive(const struct ata_port *ap)
{
    uint32_t sact = ap->link.sactive;

    for (unsigned i = 0; i < ap->nr_pmp_links; i++)
        sact |= ap->pmp_link[i].sactive;
    return sact;
}
static inline unsigned ata_qc_pmp_port(const struct ata_queued_cmd *qc)
{
    /* a disk directly on a PMP-capable port is PM port 0; the PMP itself is its control port */
    if (ata_is_host_link(qc->dev->link) && qc->dev->class != ATA_DEV_PMP)
        return 0;
    return ata_link_pmp_port(qc->dev->link);
}

/* ---- log.c: trace helpers ---- */
#define TF_INT(k, v) { .key = (k), .type = SATA_TF_INT, .i = (int64_t)(v) }
#define TF_HEX(k, v) { .key = (k), .type = SATA_TF_HEX, .i = (int64_t)(v) }
#define TF_STR(k, v) { .key = (k), .type = SATA_TF_STR, .s = (v) }
#define TF_BOOL(k, v) { .key = (k), .type = SATA_TF_BOOL, .i = (v) ? 1 : 0 }

struct ata_ev {
    const char *name;
    enum sata_trace_class cls;
    enum sata_log_level level;
    const struct sata_trace_field *fields;
    unsigned n_fields;
};
#define ATA_EV(nm, c, lvl, f) ((struct ata_ev){ (nm), (c), (lvl), (f), ATA_ARRAY_SIZE(f) })
#define ATA_EV0(nm, c, lvl) ((struct ata_ev){ (nm), (c), (lvl), NULL, 0 })

void ata_host_ev(struct ata_host *h, struct ata_ev ev, const char *fmt, ...) ATA_PRINTF(3, 4);
void ata_port_ev(struct ata_port *ap, struct ata_ev ev, const char *fmt, ...) ATA_PRINTF(3, 4);
void ata_link_ev(struct ata_link *link, struct ata_ev ev, const char *fmt, ...) ATA_PRINTF(3, 4);
void ata_dev_ev(struct ata_device *dev, struct ata_ev ev, const char *fmt, ...) ATA_PRINTF(3, 4);
/* The port multiplier itself ("ata1.15"). */
void ata_pmp_ev(struct ata_port *ap, struct ata_ev ev, const char *fmt, ...) ATA_PRINTF(3, 4);
const char *ata_err_string(unsigned err_mask);
const char *ata_class_name(enum ata_dev_class cls);

/* ---- fis.c: taskfile <-> FIS ---- */
void ata_tf_init(const struct ata_device *dev, struct ata_taskfile *tf);
void ata_tf_to_fis(const struct ata_taskfile *tf, unsigned pmp, bool is_cmd, uint8_t fis[20]);
void ata_tf_from_fis(const uint8_t fis[20], struct ata_taskfile *tf);
enum ata_dev_class ata_dev_classify(const struct ata_taskfile *tf);

/* ---- identify.c: IDENTIFY data and the configuration decisions (pure) ---- */
void ata_id_c_string(const uint16_t *id, char *s, unsigned ofs, unsigned len);
bool ata_id_is_ata(const uint16_t *id);
bool ata_id_is_cfa(const uint16_t *id);
bool ata_id_has_lba(const uint16_t *id);
bool ata_id_has_lba48(const uint16_t *id);
bool ata_id_has_ncq(const uint16_t *id);
unsigned ata_id_queue_depth(const uint16_t *id);
unsigned ata_id_major_version(const uint16_t *id);
uint64_t ata_id_n_sectors(const uint16_t *id);
unsigned ata_id_xfermask(const uint16_t *id);
int ata_xfer_mask_highest(unsigned mask); /* bit index in the packed mask, -1 if none */
uint8_t ata_xfer_bit_to_mode(int bit);
const char *ata_mode_string(unsigned mask);
const char *ata_xfer_mode_name(uint8_t mode);

/* What the controller offers the device. */
struct ata_host_caps {
    unsigned ncq_depth; /* 0 = host without NCQ */
    unsigned xfer_mask;
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
    uint16_t cyls, heads, sectors;   /* CHS devices only */
    unsigned multi_max, multi_cur;   /* from words 47 / 59 (0 = none / not set) */
    unsigned multi_count;            /* the count the stack wants */
    unsigned max_sectors;
    bool dev_ncq;                    /* device supports NCQ */
    unsigned dev_depth, host_depth;
    bool ncq;                        /* NCQ in use */
    unsigned ncq_depth;
    unsigned dev_xfer_mask;          /* device modes */
    unsigned xfer_mask;              /* device & host modes */
    uint8_t xfer_mode;               /* chosen mode (SET FEATURES value) */
};
void ata_id_configure(const uint16_t *id, enum ata_dev_class cls, const struct ata_host_caps *hc,
                      struct ata_dev_config *out);
/* "ATA-8: <model>, <fw>, max UDMA/133" */
void ata_config_id_line(const struct ata_dev_config *c, char *buf, size_t len);
/* "<n> sectors, multi 16: LBA48 NCQ (depth 31/32)"; empty for ATAPI */
void ata_config_size_line(const struct ata_dev_config *c, char *buf, size_t len);

/* ---- qc.c: tags, issue, completion, internal commands ---- */
void ata_tags_init(struct ata_tags *t, unsigned n_tags);
int ata_tag_get(struct ata_tags *t);          /* lowest free normal tag or -1 */
int ata_tag_get_internal(struct ata_tags *t); /* the reserved tag or -1 if busy */
bool ata_tag_put(struct ata_tags *t, unsigned tag); /* false: not allocated */
unsigned ata_tag_internal(const struct ata_tags *t);

void ata_qc_issue(struct ata_queued_cmd *qc);            /* lock held */
void ata_qc_complete(struct ata_queued_cmd *qc);         /* lock held */
int ata_qc_complete_multiple(struct ata_port *ap, uint32_t hw_active); /* lock held; -EINVAL: HSM */
struct ata_queued_cmd *ata_qc_from_tag(struct ata_port *ap, unsigned tag); /* active, not failed */
void ata_qc_free(struct ata_queued_cmd *qc);             /* lock held: release tag and state */
void ata_eh_qc_complete(struct ata_queued_cmd *qc);      /* lock held: finish with its err_mask */
unsigned ata_internal_cmd_timeout(const struct ata_device *dev, uint8_t cmd);
void ata_internal_cmd_timed_out(struct ata_device *dev, uint8_t cmd);
/* Process context. buf may be NULL for non-data commands; returns err_mask. */
unsigned ata_exec_internal(struct ata_device *dev, struct ata_taskfile *tf,
                           const struct plat_dma_buf *buf, uint32_t len, unsigned timeout_ms);

/* ---- bio.c: block I/O ---- */
/* Walks the first nbytes of a scatter/gather list in pieces of at most seg_max bytes,
 * calling emit (may be NULL) for each. Returns the piece count, or -EINVAL if the list
 * is too short, needs more than max_segs pieces, or has an odd address or length. */
typedef void (*ata_sg_emit_fn)(void *ctx, unsigned idx, uint64_t addr, uint32_t len);
int ata_sg_split(const struct ata_sg *sg, unsigned n_sg, uint32_t nbytes, uint32_t seg_max,
                 unsigned max_segs, ata_sg_emit_fn emit, void *ctx);
int ata_bio_build_tf(const struct ata_device *dev, const struct ata_bio *bio, unsigned tag,
                     struct ata_taskfile *tf);
int ata_bio_check(const struct ata_port *ap, const struct ata_device *dev, const struct ata_bio *bio);
bool ata_std_qc_defer(const struct ata_queued_cmd *qc);
void ata_port_kick(struct ata_port *ap);                        /* lock held */
void ata_bio_finish(struct ata_queued_cmd *qc);                 /* lock held: to done list */
void ata_bio_fail(struct ata_port *ap, struct ata_bio *bio, unsigned err_mask); /* lock held */
void ata_bio_requeue_front(struct ata_port *ap, struct ata_bio *bio);           /* lock held */
/* Fail every waiting request of dev with err_mask; returns how many (lock held). */
unsigned ata_bio_fail_dev(struct ata_port *ap, const struct ata_device *dev, unsigned err_mask);
void ata_port_process(struct ata_port *ap); /* kick + run done() callbacks, lock not held */

/* ---- sata.c: SCR access and the standard link/reset helpers ---- */
struct sata_deb_timing {
    unsigned interval, duration, timeout; /* ms */
};
extern const struct sata_deb_timing sata_deb_timing_normal;
extern const struct sata_deb_timing sata_deb_timing_hotplug;

int sata_scr_read(struct ata_link *link, unsigned reg, uint32_t *val);
int sata_scr_write(struct ata_link *link, unsigned reg, uint32_t val);
bool ata_link_online(struct ata_link *link);
bool ata_link_offline(struct ata_link *link);
int sata_link_debounce(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline);
int sata_link_resume(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline);
int ata_check_ready(uint8_t status);
typedef int (*ata_check_ready_fn)(struct ata_link *link);
int ata_wait_ready(struct ata_link *link, uint64_t deadline, ata_check_ready_fn check);
int ata_wait_after_reset(struct ata_link *link, uint64_t deadline, ata_check_ready_fn check);
int sata_link_hardreset(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline,
                        bool *online, ata_check_ready_fn check);
int ata_std_prereset(struct ata_link *link, uint64_t deadline);
/* Debounce timing for this EH context: the hotplug table after a hotplug event. */
const struct sata_deb_timing *sata_ehc_deb_timing(const struct ata_eh_context *ehc);
void ata_std_postreset(struct ata_link *link, enum ata_dev_class *cls);
/* Reports an LLD softreset failure ("softreset failed (reason)") and returns rc. */
int ata_softreset_fail(struct ata_link *link, int rc, const char *reason);
const char *sata_spd_string(unsigned spd);

/* ---- probe.c: reset, classify, IDENTIFY, configure, transfer mode ---- */
int ata_eh_reset(struct ata_link *link, bool classify, ata_prereset_fn prereset,
                 ata_reset_fn softreset, ata_reset_fn hardreset, ata_postreset_fn postreset);
int ata_dev_read_id(struct ata_device *dev, enum ata_dev_class *cls, uint16_t *id);
int ata_dev_configure(struct ata_device *dev);
int ata_dev_revalidate(struct ata_device *dev, enum ata_dev_class new_class);
int ata_set_mode(struct ata_link *link, struct ata_device **failed);
int ata_eh_recover(struct ata_port *ap, ata_prereset_fn prereset, ata_reset_fn softreset,
                   ata_reset_fn hardreset, ata_postreset_fn postreset);
void ata_dev_disable(struct ata_device *dev);
/* Disable dev and take it from its users: its requests fail with AC_ERR_NODEV_HINT. */
void ata_eh_detach_dev(struct ata_device *dev);

/* ---- eh.c: EH entry, freeze/thaw, abort, autopsy, finish ---- */
void ata_port_schedule_eh(struct ata_port *ap);      /* lock held */
void ata_port_freeze(struct ata_port *ap);           /* lock held: freeze + abort */
unsigned ata_port_abort(struct ata_port *ap);        /* lock held */
unsigned ata_link_abort(struct ata_link *link);      /* lock held: that link's commands only */
void ata_eh_freeze_port(struct ata_port *ap);        /* process: freeze, no abort */
void ata_eh_thaw_port(struct ata_port *ap);
void ata_ehi_push_desc(struct ata_eh_info *ehi, const char *fmt, ...) ATA_PRINTF(2, 3);
void ata_ehi_hotplugged(struct ata_eh_info *ehi);
void ata_std_error_handler(struct ata_port *ap);

/* ---- eh_analyze.c: pure autopsy pieces and report wording ---- */
/* status/error of a failed command -> err_mask bits; true if a reset is needed */
bool ata_eh_analyze_tf_regs(enum ata_dev_class cls, uint8_t stat, uint8_t err, unsigned *err_mask);
/* SError -> err_mask and actions per the profile; true if it signals hotplug */
bool ata_eh_analyze_serror_bits(const struct ata_eh_policy *pol, uint32_t serror, unsigned *err_mask,
                                unsigned *action);
unsigned ata_eh_cleanup_mask(unsigned err_mask);
/* NCQ command error log: 0 (tag, result TF), -ENOENT (NQ set); *csum = byte sum (0 = valid) */
int ata_ncq_log_parse(const uint8_t *buf, unsigned *tag, struct ata_taskfile *rtf, uint8_t *csum);
const char *ata_eh_cmd_name(uint8_t cmd);
void ata_eh_format_cmd_line(char *buf, size_t len, const struct ata_taskfile *tf, unsigned tag, uint32_t nbytes);
void ata_eh_format_res_line(char *buf, size_t len, const struct ata_taskfile *rtf, unsigned err_mask);
void ata_eh_format_status(char *buf, size_t len, uint8_t stat);
void ata_eh_format_error(char *buf, size_t len, uint8_t err);
void ata_eh_format_serror(char *buf, size_t len, uint32_t serror);
void ata_eh_format_exception(char *buf, size_t len, unsigned emask, uint32_t sact, uint32_t serr,
                             unsigned action, bool frozen, int tries_left);

/* ---- eh.c / sata.c: speed-down, retries ---- */
/* Record a device's error in its ring and apply the profile's verdict; returns the
 * actions to request (ATA_EH_*). */
unsigned ata_eh_speed_down(struct ata_device *dev, unsigned eflags, unsigned err_mask);
/* After EH: may this request be issued again? err_mask 0 = aborted innocent, always and for
 * free; otherwise only if EH marked it retryable and the budget allows (counts the retry). */
bool ata_eh_bio_retry(const struct ata_eh_policy *pol, struct ata_bio *bio, unsigned err_mask, bool retry_flag);
/* Autopsy and report of a link's failed commands (EH context; eh_context filled). */
void ata_eh_link_autopsy(struct ata_link *link);
void ata_eh_link_report(struct ata_link *link);
/* EH's last step: complete, retry or requeue every failed command (takes the lock). */
void ata_eh_finish(struct ata_port *ap);
/* Lower the link's allowed SATA speed one step (effective at the next hardreset). */
int sata_down_spd_limit(struct ata_link *link, unsigned spd_limit);
void ata_host_force_spd_limit(struct ata_host *h, unsigned spd); /* ata_host_config.spd_limit */
/* SControl.SPD value the limit asks for (0 = no limit) and whether SControl differs. */
unsigned sata_spd_target(const struct ata_link *link);
bool sata_set_spd_needed(struct ata_link *link);
/* Program the limit into SControl.SPD for a reset that does not go through SControl.DET
 * (sil24 DEV_RST); 1 if written, 0 if nothing to do, or a negative errno. */
int sata_set_spd(struct ata_link *link);
/* Transfer mask step-down for a device (takes effect at the next set-mode). */
int ata_dev_down_xfermask(struct ata_device *dev, enum ata_dnxfer sel);

/* ---- pmp.c: port multiplier ---- */
/* GSCR/PSCR access through READ/WRITE PORT MULTIPLIER on the control port: 0 or err_mask. */
unsigned sata_pmp_read(struct ata_port *ap, unsigned port, unsigned reg, uint32_t *val);
unsigned sata_pmp_write(struct ata_port *ap, unsigned port, unsigned reg, uint32_t val);
/* SCR access of a fan-out link (PSCR); -EIO if the PMP did not answer. */
int sata_pmp_scr_read(struct ata_link *link, unsigned reg, uint32_t *val);
int sata_pmp_scr_write(struct ata_link *link, unsigned reg, uint32_t val);
/* qc_defer for PMP-capable LLDs: command-based switching (one fan-out link at a time), then
 * the standard rules. Without a PMP attached it is ata_std_qc_defer. */
bool sata_pmp_qc_defer_cmd_switch(const struct ata_queued_cmd *qc);
/* dev (host link, class PMP) answered SRST with the PMP signature: read GSCR, enable features,
 * set up the fan-out links. 0, or -ENODEV/-EIO with the PMP left detached. */
int sata_pmp_attach(struct ata_device *dev);
/* Forget the PMP and every fan-out device (detached, their requests fail). */
void sata_pmp_detach(struct ata_port *ap);
/* Before the per-link autopsy: a device error the LLD recorded on the host link whose
 * failed commands are all one fan-out link's moves to that link (several: PMP reset). */
void sata_pmp_route_errors(struct ata_port *ap);
/* EH recovery with a PMP attached (or just attached): the PMP itself, then every fan-out link. */
void sata_pmp_eh_recover(struct ata_port *ap);
/* Lock held, irq context: the LLD saw SNotification with these PM port bits set; a PMP's
 * notification (bit 15) sends the port to EH, which reads GSCR[32]. true if EH was asked. */
bool sata_async_notification(struct ata_port *ap, uint32_t sntf);
int ata_eh_recover_link(struct ata_link *link, ata_prereset_fn prereset, ata_reset_fn softreset,
                        ata_reset_fn hardreset, ata_postreset_fn postreset);
void ata_eh_link_init_context(struct ata_link *link, int tries_left);

/* ---- host.c ---- */
struct ata_host *ata_host_alloc(struct sata_platform *p, const struct sata_platform_ops *pops,
                                const struct ata_port_operations *ops, unsigned n_ports);
void ata_host_free(struct ata_host *h);
/* An LLD's create: the host with priv_size bytes of zeroed private data and what every
 * LLD takes from cfg alike (the EH profile); on failure nothing is left and the reason
 * ("out of memory", "EH policy not available") is reported as fail_event. */
struct ata_host *ata_host_alloc_priv(struct sata_platform *p, const struct sata_platform_ops *pops,
                                     const struct ata_port_operations *ops, unsigned n_ports,
                                     size_t priv_size, const struct ata_host_config *cfg,
                                     const char *fail_event);
/* An LLD's create gives up on h: frees it, reports msg as event and returns NULL. */
struct ata_host *ata_host_create_failed(struct ata_host *h, const char *event, const char *msg);
/* Select the EH profile by name (NULL = default); -EINVAL + trace message if unknown. */
int ata_host_set_eh_policy(struct ata_host *h, const char *name);

#endif
