/* The driver contract: what a low-level driver (LLD, stack/drivers/) may see and call, in
 * the image of Linux's include/linux/libata.h. The objects (host -> ports -> links ->
 * devices, queued commands by tag), the operations table an LLD fills (listing only what
 * differs from the base table it inherits), and the helpers of the core, EH and PMP layers
 * an LLD builds on, in sections per owning file. Everything else of the stack is private to
 * it (stack/core/internal.h); the drivers are compiled without that header on their path.
 *
 * Contexts: "process" = submitter or EH context (may sleep), "irq" = interrupt handler and
 * timers. Functions marked "lock held" expect the platform lock taken by the caller.
 */
#ifndef SATASIM_LIBATA_H
#define SATASIM_LIBATA_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "satasim/ata.h"
#include "satasim/ata_proto.h"

#define ATA_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#define ATA_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ATA_MS(ms) ((uint64_t)(ms) * 1000000u)

/* ---- limits ---- */
enum {
    ATA_MAX_QUEUE = 32,
    /* EH's internal command: a tag of its own beyond the 32 (its qcmd[] entry); the
     * controller slot it runs in is ata_tags.int_hw (qc->hw_tag), as libata's since 4.18 */
    ATA_TAG_INTERNAL = ATA_MAX_QUEUE,
    /* per link: device 0 and device 1 of a taskfile channel whose port may have a slave
     * (ATA_FLAG_SLAVE_POSS, ata_link_max_devices); a SATA link has one, a PMP adds links */
    ATA_MAX_DEVICES = 2,
    ATA_ALL_DEVICES = (1u << ATA_MAX_DEVICES) - 1, /* probe_mask: every device a link may have */
    ATA_EH_DESC_LEN = 80,
    ATA_ERING_SIZE = 32,
};
#define ATA_TAG_NONE 0xffffffffu
/* scatter/gather entries one piece of a split request may use (bio.c) */
#define ATA_SPLIT_SG_MAX 32u

/* As libata: a result taskfile carries status in `command` and error in `feature`. */
struct ata_taskfile {
    enum ata_prot protocol;
    unsigned flags;
    uint8_t command, feature, nsect, lbal, lbam, lbah, device, ctl;
    uint8_t hob_feature, hob_nsect, hob_lbal, hob_lbam, hob_lbah;
    uint32_t auxiliary; /* the H2D FIS's Auxiliary field (bytes 16-19): SEND FPDMA QUEUED's TRIM bit */
};

/* ---- EH state ---- */
enum {
    ATA_EH_REVALIDATE = 1u << 0,
    ATA_EH_SOFTRESET = 1u << 1,
    ATA_EH_HARDRESET = 1u << 2,
    ATA_EH_RESET = ATA_EH_SOFTRESET | ATA_EH_HARDRESET,
    ATA_EH_ENABLE_LINK = 1u << 3, /* hotplug: re-enable the link; no-op without PMP links,
                                     kept so the report's action reads as libata's (0xe) */
    ATA_EH_PERDEV_MASK = ATA_EH_REVALIDATE, /* actions that may be one device's (libata's) */
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
    ATA_FLAG_SLAVE_POSS = 1u << 3, /* the host link may have a device 1 (a taskfile channel's slave) */
    ATA_FLAG_FPDMA_AUX = 1u << 4,  /* the controller sends the H2D FIS's Auxiliary field (libata's:
                                      every AHCI with CAP.NCQ): queued TRIM may be used */
};

/* The port's cable (libata's ap->cbl, from the LLD's cable_detect at probe): a SATA port's is
 * ATA_CBL_SATA (the zero value); a parallel ATA port's says whether UDMA above UDMA/33 may be
 * used (ata_cable_is_40wire) and lets EH fall back to PIO (ata_eh_speed_down). */
enum ata_cbl { ATA_CBL_SATA = 0, ATA_CBL_PATA40, ATA_CBL_PATA80, ATA_CBL_PATA_UNK };

/* Link flags. */
enum {
    ATA_LFLAG_DISABLED = 1u << 0, /* fan-out link given up on (EH does not touch it) */
    ATA_LFLAG_NO_LPM = 1u << 1,   /* link power management off for good ("disabling LPM on the
                                     link", or the host has no set_lpm) */
    ATA_LFLAG_CHANGED = 1u << 2,  /* the LPM policy changed: the next PHY event may be spurious */
    ATA_LFLAG_ASSUME_SEMB = 1u << 3, /* a PMP's enclosure bridge (SEMB) port: hardreset only, no
                                        SRST, and nothing to attach (libata's ATA_LFLAG_NO_SRST |
                                        ATA_LFLAG_ASSUME_SEMB, class ATA_DEV_SEMB_UNSUP) */
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
    ATA_DFLAG_FUA = 1u << 12, /* FUA writes used (libata's ata_dev_config_fua) */
    ATA_DFLAG_NODMA = 1u << 13, /* horkage NODMA (libata.force=nodma): no DMA mode at mode setting;
                                   kept over revalidation, as libata's dev->horkage */
    ATA_DFLAG_BROKEN_HPA = 1u << 14, /* HPA commands failed: no more HPA handling (libata's
                                        ATA_HORKAGE_BROKEN_HPA); kept over revalidation */
    ATA_DFLAG_D_SENSE = 1u << 15, /* SCSI sense data in descriptor format (the control mode
                                     page's D_SENSE, set by MODE SELECT); kept over revalidation */
    ATA_DFLAG_CDB_INTR = 1u << 16, /* ATAPI: the device interrupts for the CDB (IDENTIFY PACKET w0 6:5 = 01b) */
    ATA_DFLAG_DMADIR = 1u << 17,   /* ATAPI: DMA PACKET commands carry DMADIR (libata.atapi_dmadir, w62 b15) */
    ATA_DFLAG_NCQ_SEND_RECV = 1u << 18, /* the NCQ Send and Receive log (13h) was read: ncq_send_recv_cmds */
    ATA_DFLAG_DEVSLP = 1u << 19, /* DevSleep (IDENTIFY 78 bit 8) with its timing read: devslp_timing */
};

/* qc flags. */
enum {
    ATA_QCFLAG_ACTIVE = 1u << 0,
    ATA_QCFLAG_RETRY = 1u << 7,   /* EH: worth retrying (policy) */
    ATA_QCFLAG_SENSE_VALID = 1u << 8, /* ATAPI: EH read the sense of its CHECK CONDITION */
    ATA_QCFLAG_RESULT_TF = 1u << 9, /* the issuer reads the result registers back, so a
                                       success fills result_tf too (ATA PASS-THROUGH) */
    ATA_QCFLAG_FAILED = 1u << 16, /* owned by EH until finish */
};

/* Internal command timeout classes (docs/libata-eh.md 3.8). */
enum ata_itmo_class { ATA_ITMO_DEFAULT = 0, ATA_ITMO_IDENTIFY, ATA_ITMO_SETFEAT, ATA_ITMO_FLUSH, ATA_ITMO_NR };

struct ata_ering_entry {
    unsigned eflags;
    unsigned err_mask; /* 0 = empty slot */
    uint64_t timestamp; /* ns, simulated */
};

/* Preallocated per device; recording never allocates. */
struct ata_ering {
    unsigned cursor;
    struct ata_ering_entry ring[ATA_ERING_SIZE];
};

struct ata_eh_policy; /* the EH profile (stack/eh/policy/eh_policy.h) */

struct ata_eh_info {
    unsigned probe_mask;
    unsigned action;
    /* per-device actions (ATA_EH_PERDEV_MASK): on a two-device link the autopsy moves the
     * link's revalidation to the failed commands' device, as libata's dev_action */
    unsigned dev_action[ATA_MAX_DEVICES];
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
    unsigned probe_trial_mask; /* devices whose probe this EH run counted as a probe trial */
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
    uint32_t sector_size;     /* logical sector in bytes (IDENTIFY 106/117-118): 512, 4096 on a
                                 4Kn disk; every LBA, count and transfer of a request is in it */
    uint64_t n_native_sectors; /* READ NATIVE MAX ADDRESS's answer + 1 (HPA devices; else 0) */
    unsigned max_sectors;     /* per command, after the LLD's dev_config (libata's max_sectors) */
    unsigned cmd_max_sectors; /* the command set's limit (65535 LBA48, else 256): a request up to
                                 this is accepted and split at max_sectors */
    unsigned multi_count;
    unsigned ncq_depth;
    unsigned xfer_mask;      /* device & host modes, from IDENTIFY */
    uint8_t xfer_mode;       /* chosen (set by SET FEATURES) */
    uint8_t itmo_idx[ATA_ITMO_NR];
    /* EH history: kept over revalidation, reset when a new device is attached */
    struct ata_ering ering;
    unsigned spdn_cnt;       /* transfer-mode step-downs so far */
    unsigned xfer_limit;     /* EH's cap on xfer_mask, 0 = none */
    unsigned timeout_ms;     /* request timeout (ata_dev_set_timeout), 0 = ATA_TMOUT_BIO; a new
                                device starts at the default, as a new SCSI disk does */
    unsigned disk;           /* 1 + its block-layer name index while attached (1 = sda), 0 = none */
    unsigned cdb_len;        /* ATAPI: 12 or 16 (IDENTIFY PACKET word 0 bits 1:0) */
    uint8_t ncq_send_recv_cmds[ATA_LOG_NCQ_SEND_RECV_SIZE]; /* log 13h's first bytes (with
                                ATA_DFLAG_NCQ_SEND_RECV); the NO_NCQ_TRIM horkage clears its TRIM bit */
    uint8_t pio_mode;        /* at mode setting: the PIO mode the LLD times the device for (the
                                highest PIO mode of xfer_mask; libata's dev->pio_mode) */
    uint8_t devslp_timing[ATA_LOG_DEVSLP_SIZE]; /* with ATA_DFLAG_DEVSLP: the DEVSLP timing qword
                                of log 30h page 08h (ATA_LOG_DEVSLP_MDAT, _DETO, _VALID) */
};

struct ata_link {
    struct ata_port *ap;
    int pmp;                 /* -1 on the host link, 0..14 on a PMP fan-out link */
    unsigned flags;          /* ATA_LFLAG_* */
    unsigned fail_runs;      /* fan-out link: EH runs in a row that failed to recover it */
    unsigned sata_spd;       /* negotiated generation from SStatus after reset */
    unsigned sata_spd_limit; /* allowed generations (bit0 1.5G..bit2 6G), 0 = no limit */
    unsigned hw_sata_spd_limit; /* what a new device starts with: libata.force, a one-speed PHY */
    enum ata_lpm_policy lpm_policy; /* what EH last configured (ATA_LPM_UNKNOWN: nothing) */
    uint64_t last_lpm_change;       /* when (ns), for sata_lpm_ignore_phy_events */
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
    unsigned tag;            /* software tag; ATA_TAG_INTERNAL for EH's internal command */
    unsigned hw_tag;         /* the controller's command slot (= tag but for the internal one) */
    unsigned flags;
    struct ata_taskfile tf;
    struct ata_taskfile result_tf;
    const struct ata_sg *sg;
    unsigned n_sg;
    uint32_t nbytes;
    uint32_t sect_size;      /* a PIO DRQ block's sector: the device's logical sector for reads
                                and writes, 512 bytes for every other command (libata's
                                qc->sect_size, ata_scsi_pass_thru in Linux 6.1) */
    uint8_t cdb[16];         /* ATAPI protocols: the packet (dev->cdb_len bytes go out) */
    unsigned err_mask;
    uint64_t timer;          /* platform timer handle, 0 = none */
    uint64_t deadline;       /* a request's: when its timeout expires (ns) */
    uint64_t seq;            /* issue order, to retry in order after EH */
    struct ata_bio *bio;     /* NULL for internal commands */
    struct ata_sg int_sg;    /* internal command data buffer */
    struct ata_sg split_sg[ATA_SPLIT_SG_MAX]; /* a split request's piece of its sg */
    /* Lock held: the command is finished (ata_eh_qc_complete), before its tag is freed. Set
     * by whoever issues it: the block layer's for a request (bio.c); NULL for EH's internal
     * commands, whose waiter ata_qc_complete wakes. */
    void (*complete_fn)(struct ata_queued_cmd *qc);
};

/* Tag allocator: n_tags normal tags (0..n_tags-1, the NCQ depth the host offers) and the
 * internal command's, which runs in controller slot int_hw (ata_port_init_tags). */
struct ata_tags {
    uint32_t used;
    unsigned n_tags;
    unsigned int_hw;
    bool int_used;
};

struct ata_bio_queue {
    struct ata_bio *head, *tail;
};

typedef int (*ata_reset_fn)(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline);
typedef int (*ata_prereset_fn)(struct ata_link *link, uint64_t deadline);
typedef void (*ata_postreset_fn)(struct ata_link *link, enum ata_dev_class *cls);

/* Low-level driver operations, in the image of libata's: a driver's table names the base
 * table it extends in `inherits` (sata_port_ops, or sata_pmp_port_ops for a PMP-capable
 * controller) and lists only the entries it overrides. At host allocation the core copies
 * the table into the host and fills every NULL entry from the inheritance chain, once
 * (ata_host_alloc); ports use that finalized copy. Host-level entries are taken from the
 * host's table. */
struct ata_port_operations {
    const struct ata_port_operations *inherits; /* NULL in a finalized table */

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
    /* EH context: configure the link's power management for a policy; hints: ATA_LPM_HIPM
     * (every device takes host-initiated requests), ATA_LPM_EMPTY (no device). 0, or
     * -EOPNOTSUPP (the link then never does LPM), or an error EH recovers from. */
    int (*set_lpm)(struct ata_link *link, enum ata_lpm_policy policy, unsigned hints);
    /* after IDENTIFY, at every configure (probe and revalidation; EH context): the LLD's
     * device/host errata fixups (libata's ->dev_config), e.g. a lower dev->max_sectors. Print
     * only when the host link's eh_context has ATA_EHI_PRINTINFO. */
    void (*dev_config)(struct ata_device *dev);
    /* at mode setting, before SET FEATURES (EH context): program the controller's timing for
     * the device's PIO mode (dev->pio_mode) and, for a DMA mode, for dev->xfer_mode (libata's
     * ->set_piomode, called for every device of the link first, then ->set_dmamode) */
    void (*set_piomode)(struct ata_port *ap, struct ata_device *dev);
    void (*set_dmamode)(struct ata_port *ap, struct ata_device *dev);
    /* timer context, lock held: a command timed out; complete what the controller has
     * finished without raising its interrupt. Returns the number completed (NULL = none). */
    unsigned (*lost_interrupt)(struct ata_port *ap);
    /* a port multiplier was attached / is gone (process context, port frozen or idle):
     * the controller must route by PM port from now on (AHCI PxCMD.PMA, sil24 PMP_EN) */
    void (*pmp_attach)(struct ata_port *ap);
    void (*pmp_detach)(struct ata_port *ap);

    /* The PMP layer's entries, set by sata_pmp_port_ops (an LLD does not touch them):
     * attach a device that answered with the PMP signature (NULL: no PMP support), SCR
     * access of a fan-out link (the PMP's PSCRs) and the reset methods of a fan-out link
     * (their softreset is the LLD's softreset, to that PM port). */
    int (*pmp_probe)(struct ata_device *dev);
    int (*pmp_scr_read)(struct ata_link *link, unsigned reg, uint32_t *val);
    int (*pmp_scr_write)(struct ata_link *link, unsigned reg, uint32_t val);
    ata_prereset_fn pmp_prereset;
    ata_reset_fn pmp_hardreset;
    ata_postreset_fn pmp_postreset;

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
    /* irq context, takes the lock itself; true if the interrupt was the controller's
     * (IRQ_HANDLED), false if nothing in it was pending (IRQ_NONE) */
    bool (*irq_handler)(struct ata_host *h);
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
    /* libata's slave link (ata_slave_link_init, libata-core.c): a taskfile channel whose two
     * devices are two SATA ports with SCRs of their own (ata_piix with SIDPR). Device 1 stays
     * on ap->link; its PHY, SCRs and reset are this link's (ata_dev_phys_link); both links
     * print as ataN.00 / ataN.01. Null when the port has none; storage in slave_link_store. */
    struct ata_link *slave_link;
    struct ata_link slave_link_store;
    uint32_t pmp_gscr[3];     /* product, revision, port info as read at attach */
    uint32_t pmp_feat, pmp_feat_en;
    unsigned pmp_quirks;
    struct ata_queued_cmd qcmd[ATA_MAX_QUEUE + 1]; /* + the internal command's */
    struct ata_tags tags;
    uint32_t qc_active;
    uint64_t qc_seq;
    unsigned ncq_depth;       /* host side: 0 = no NCQ */
    enum ata_lpm_policy target_lpm_policy; /* the policy EH configures (ata_host_config) */
    unsigned xfer_mask;       /* modes the controller supports */
    enum ata_cbl cbl;         /* the cable (ATA_CBL_SATA unless the LLD sets a PATA one) */
    unsigned max_segs;        /* scatter/gather entries per command */
    uint32_t seg_max_bytes;   /* bytes per scatter/gather entry */
    uint64_t dma_mask;        /* highest bus address the controller reaches (the device's DMA
                                 mask): 0xffffffff without 64-bit addressing; 0 = 64 bits */
    struct ata_bio_queue pending; /* waiting for issue, FIFO */
    struct ata_bio_queue done;    /* completed, callbacks run outside the lock */
    struct plat_completion *int_done; /* internal command completion */
    struct plat_dma_buf id_buf;   /* IDENTIFY data, 512 B */
    struct plat_dma_buf log_buf;  /* log page data, 512 B */
    struct plat_completion *eh_wait; /* ata_port_scan / ata_dev_delete wait for EH here */
    bool eh_waiter;               /* someone waits on eh_wait */
    bool boot_probing;            /* its boot probe EH pass has not ended yet */
    bool boot_probe_started;      /* ... and has been started (a serial probe starts one at a time) */
    struct plat_completion *drain_done; /* EH's fast drain: the last command in flight ended */
    bool drain_waiting;           /* EH waits on drain_done */
    struct plat_completion *eh_kick; /* ata_port_schedule_eh wakes the port's EH thread here
                                        (the reset cool-down's sleep, eh/reset.c) */
    void *private_data;
};

/* ata_host.flags */
enum {
    /* its ports are probed at once (libata's flag: ahci without CAP.SSS, ata_piix); without
     * it port n's boot probe starts when port n-1's has ended (libata's async probe waits
     * for the earlier ports' cookies), as on sata_sil24 and sata_sil */
    ATA_HOST_PARALLEL_SCAN = 1u << 2,
};

struct ata_host {
    struct sata_platform *plat;
    const struct sata_platform_ops *pops;
    const struct ata_port_operations *ops; /* = &ops_final */
    struct ata_port_operations ops_final;  /* the LLD's table with the inherited entries filled */
    unsigned n_ports;
    struct ata_port *ports;
    unsigned flags;           /* ATA_HOST_* */
    bool started;
    bool irq_requested;
    bool eh_waiter;           /* ata_host_start waits for the ports' boot probe */
    unsigned n_boot_probing;  /* ports whose boot probe pass has not ended */
    /* the controllers probed before and after this one when their probes overlap
     * (ata_hosts_start): a serial port's probe waits for every probe scheduled before it */
    struct ata_host *probe_prev, *probe_next;
    const struct ata_eh_policy *eh_policy; /* never NULL after create */
    struct plat_completion *eh_done;
    struct ata_force_param force[ATA_FORCE_MAX]; /* ata_host_config.force, copied at create */
    unsigned n_force;
    struct ata_disk_names own_names; /* block-layer names in use (core/disk.c) ... */
    struct ata_disk_names *disk_names; /* ... or the machine's (ata_host_config.disk_names; NULL: own) */
    bool fua;                 /* libata.fua (ata_host_config.fua) */
    bool atapi_dmadir;        /* libata.atapi_dmadir (ata_host_config.atapi_dmadir) */
    unsigned dma_off;         /* libata.dma's classes turned off (ata_host_config.dma_off) */
    bool ignore_hpa;          /* libata.ignore_hpa (ata_host_config.ignore_hpa) */
    enum ata_spd_down_unknown spd_down_unknown; /* ata_host_config's; PROFILE: the EH profile's */
    bool has_pci;             /* created by ata_pci_probe: pci holds the function */
    struct ata_pci_dev pci;
    void *private_data;
};

/* ---- pci.c: the PCI layer's ID tables (one per PCI driver, ending with a zero entry) ---- */
enum { ATA_PCI_ANY_ID = 0xffff };
struct ata_pci_device_id {
    uint16_t vendor, device;   /* ATA_PCI_ANY_ID: any */
    uint32_t class_code, class_mask; /* matched when class_mask is nonzero */
    unsigned long driver_data;
};
struct ata_pci_driver {
    const char *name;          /* the kernel module's ("ahci", "sata_sil24") */
    const char *create_name;   /* the create function's name (the run's phase) */
    struct ata_host *(*create)(struct sata_platform *, const struct sata_platform_ops *,
                               const struct ata_host_config *);
    const struct ata_pci_device_id *id_table;
    bool msi;                  /* the driver asks for MSI (ahci does; sata_sil24's msi=0 default) */
};
extern const struct ata_pci_driver ahci_pci_driver, sil24_pci_driver, sil_pci_driver, piix_pci_driver;
/* libata's port description line for a PCI host ("ata1: SATA max UDMA/133 abar m2048@0xfebf1000
 * port 0xfebf1100 irq 27"): "<kind> max <mode> <desc> irq <n>", desc the driver's words. */
void ata_port_pci_desc(struct ata_port *ap, const char *kind, const char *desc);

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
/* ... and the little-endian load (a received FIS's dwords) */
static inline uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline bool ata_dev_enabled(const struct ata_device *dev) { return dev->flags & ATA_DFLAG_ENABLED; }
static inline bool ata_is_ncq(const struct ata_taskfile *tf) { return tf->protocol == ATA_PROT_NCQ; }
/* bus-master DMA without NCQ: an ATA DMA command or an ATAPI packet with DMA data */
static inline bool ata_is_dma(const struct ata_taskfile *tf)
{
    return tf->protocol == ATA_PROT_DMA || tf->protocol == ATAPI_PROT_DMA;
}
static inline bool ata_is_atapi(const struct ata_taskfile *tf)
{
    return tf->protocol == ATAPI_PROT_NODATA || tf->protocol == ATAPI_PROT_PIO || tf->protocol == ATAPI_PROT_DMA;
}
/* the port's own link, or its slave link (libata's ata_is_host_link counts both: neither is a
 * PMP's fan-out link) */
static inline bool ata_is_host_link(const struct ata_link *link)
{
    return link == &link->ap->link || link == link->ap->slave_link;
}
static inline bool sata_pmp_attached(const struct ata_port *ap) { return ap->nr_pmp_links != 0; }
/* The link whose PHY a device sits behind: its own link, but device 1 of a port with a slave
 * link sits behind that (libata's ata_dev_phys_link). */
static inline struct ata_link *ata_dev_phys_link(struct ata_device *dev)
{
    struct ata_port *ap = dev->link->ap;

    return ap->slave_link && dev->link == &ap->link && dev->devno ? ap->slave_link : dev->link;
}
/* Gives the port a slave link (an LLD's host_create, before the probe; libata's
 * ata_slave_link_init). */
void ata_slave_link_init(struct ata_port *ap);
/* Devices the link can have: two on the host link of a port that may have a slave
 * (ATA_FLAG_SLAVE_POSS), one otherwise (libata's ata_link_max_devices). Every loop over a
 * link's devices stops here. */
static inline unsigned ata_link_max_devices(const struct ata_link *link)
{
    return link->pmp < 0 && (link->ap->flags & ATA_FLAG_SLAVE_POSS) ? 2u : 1u;
}
/* Link power management for the LLDs' set_lpm (core/lpm.c): its hints, SControl.IPM for a
 * policy (DIAG.N cleared after), and whether a PhyRdy change is LPM's own. */
enum { ATA_LPM_EMPTY = 1u << 0, ATA_LPM_HIPM = 1u << 1 };
int sata_link_scr_lpm(struct ata_link *link, enum ata_lpm_policy policy, bool spm_wakeup);
bool sata_lpm_ignore_phy_events(struct ata_link *link);
/* SET FEATURES (EFh) subcommand `subcmd` (e.g. SETFEATURES_SATA_ENABLE) for `action` (the
 * Count: SATA_DEVSLP ...), as an internal command; returns err_mask (libata's
 * ata_dev_set_feature: ahci's aggressive DevSleep enables the drive's side with it). */
unsigned ata_dev_set_feature(struct ata_device *dev, uint8_t subcmd, uint8_t action);

/* Enabled devices of the link (libata's ata_link_nr_enabled). */
static inline unsigned ata_link_nr_enabled(const struct ata_link *link)
{
    unsigned n = 0;

    for (unsigned d = 0; d < ata_link_max_devices(link); d++)
        n += ata_dev_enabled(&link->device[d]);
    return n;
}
/* EH actions for dev in this EH run: the link's and the device's own (libata's
 * ata_eh_dev_action). */
static inline unsigned ata_eh_dev_action(const struct ata_device *dev)
{
    const struct ata_eh_info *ehi = &dev->link->eh_context.i;

    return ehi->action | ehi->dev_action[dev->devno];
}
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
/* A link's EH report line, addressed as libata's ata_link_printk: the host link of a port
 * with a PMP attached speaks as the PMP ("ata1.15"), any other link as itself. */
void ata_link_eh_ev(struct ata_link *link, struct ata_ev ev, const char *fmt, ...) ATA_PRINTF(3, 4);
/* The port multiplier itself ("ata1.15"). */
void ata_pmp_ev(struct ata_port *ap, struct ata_ev ev, const char *fmt, ...) ATA_PRINTF(3, 4);
/* ---- fis.c: taskfile <-> FIS ---- */
void ata_tf_init(const struct ata_device *dev, struct ata_taskfile *tf);
void ata_tf_to_fis(const struct ata_taskfile *tf, unsigned pmp, bool is_cmd, uint8_t fis[20]);
void ata_tf_from_fis(const uint8_t fis[20], struct ata_taskfile *tf);
enum ata_dev_class ata_dev_classify(const struct ata_taskfile *tf);

/* ---- host.c: an LLD's create ---- */
/* An LLD's create: the host with priv_size bytes of zeroed private data and what every
 * LLD takes from cfg alike (the EH profile); on failure nothing is left and the reason
 * ("out of memory", "EH policy not available") is reported as fail_event. */
struct ata_host *ata_host_alloc_priv(struct sata_platform *p, const struct sata_platform_ops *pops,
                                     const struct ata_port_operations *ops, unsigned n_ports,
                                     size_t priv_size, const struct ata_host_config *cfg,
                                     const char *fail_event);
/* An LLD's create gives up on h: frees it, reports msg as event and returns NULL. */
struct ata_host *ata_host_create_failed(struct ata_host *h, const char *event, const char *msg);

/* ---- qc.c: tags and completion (lock held) ---- */
/* The LLD's command slots (at create): under libata-modern every slot serves NCQ and an
 * internal command borrows slot 0 (it runs alone); libata-2006 keeps tag 31 for it, so a
 * 32-slot HBA offers 31 tags ("NCQ (depth 31/32)"), and a 31-slot one (sil24) runs it in
 * slot 0 as 2.6.18's sil24_tag() did. */
void ata_port_init_tags(struct ata_port *ap, unsigned n_slots);
void ata_tags_init(struct ata_tags *t, unsigned n_slots, bool reserve_tag31);
int ata_qc_complete_multiple(struct ata_port *ap, uint32_t hw_active); /* -EINVAL: HSM violation */
struct ata_queued_cmd *ata_qc_from_tag(struct ata_port *ap, unsigned tag); /* active, not failed */
bool ata_qc_is_internal(const struct ata_queued_cmd *qc); /* EH's own command (ATA_TAG_INTERNAL) */

/* ---- bio.c: scatter/gather, deferral, the port's queue ---- */
/* Walks the first nbytes of a scatter/gather list in pieces of at most seg_max bytes,
 * calling emit (may be NULL) for each. Returns the piece count, or -EINVAL if the list
 * is too short, needs more than max_segs pieces, or has an odd address or length. */
typedef void (*ata_sg_emit_fn)(void *ctx, unsigned idx, uint64_t addr, uint32_t len);
int ata_sg_split(const struct ata_sg *sg, unsigned n_sg, uint32_t nbytes, uint32_t seg_max,
                 unsigned max_segs, ata_sg_emit_fn emit, void *ctx);
bool ata_std_qc_defer(const struct ata_queued_cmd *qc);
void ata_port_process(struct ata_port *ap); /* kick + run done() callbacks, lock not held */

/* ---- sata.c: SCR access and the standard link/reset helpers ---- */
/* The base table of every SATA LLD: ata_std_qc_defer, the standard pre/postreset and
 * ata_std_error_handler (libata's sata_port_ops). */
extern const struct ata_port_operations sata_port_ops;
struct sata_deb_timing {
    unsigned interval, duration, timeout; /* ms */
};
int sata_std_hardreset(struct ata_link *link, enum ata_dev_class *cls, uint64_t deadline);
int sata_scr_read(struct ata_link *link, unsigned reg, uint32_t *val);
int sata_scr_write(struct ata_link *link, unsigned reg, uint32_t val);
bool ata_link_online(struct ata_link *link);
bool ata_link_offline(struct ata_link *link);
int sata_link_debounce(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline);
int ata_check_ready(uint8_t status);
typedef int (*ata_check_ready_fn)(struct ata_link *link);
/* Poll check until ready (> 0), an error, or the deadline (-EBUSY); a 0xff status means
 * "no device" only once the link says so (libata's ata_wait_ready). */
int ata_wait_ready(struct ata_link *link, uint64_t deadline, ata_check_ready_fn check);
int ata_wait_after_reset(struct ata_link *link, uint64_t deadline, ata_check_ready_fn check);
int sata_link_hardreset(struct ata_link *link, const struct sata_deb_timing *t, uint64_t deadline,
                        bool *online, ata_check_ready_fn check);
int ata_std_prereset(struct ata_link *link, uint64_t deadline);
/* The name of a transfer mask's top mode as libata prints it ("UDMA/33", "MWDMA2", "PIO4"):
 * DMA above PIO; "<n/a>" for none (libata's ata_mode_string). */
const char *ata_mode_string(unsigned mask);
/* Debounce timing for this EH context: the hotplug table after a hotplug event. */
const struct sata_deb_timing *sata_ehc_deb_timing(const struct ata_eh_context *ehc);
void ata_std_postreset(struct ata_link *link, enum ata_dev_class *cls);
/* Reports an LLD softreset failure ("softreset failed (reason)") and returns rc. */
int ata_softreset_fail(struct ata_link *link, int rc, const char *reason);
/* Program the link's speed limit into SControl.SPD for a reset that does not go through
 * SControl.DET (sil24 DEV_RST); 1 if written, 0 if nothing to do, or a negative errno. */
int sata_set_spd(struct ata_link *link);
void ata_host_force_spd_limit(struct ata_host *h, unsigned spd); /* ata_host_config.spd_limit */
void ata_host_fixed_spd(struct ata_host *h, unsigned gen);      /* ata_host_config.only_gen */

/* ---- eh.c: what the irq paths record and ask of EH ---- */
unsigned ata_port_abort(struct ata_port *ap);        /* lock held */
unsigned ata_link_abort(struct ata_link *link);      /* lock held: that link's commands only */
void ata_port_freeze(struct ata_port *ap);           /* lock held: freeze + abort */
void ata_eh_freeze_port(struct ata_port *ap);        /* process: freeze, no abort */
void ata_ehi_push_desc(struct ata_eh_info *ehi, const char *fmt, ...) ATA_PRINTF(2, 3);
void ata_ehi_hotplugged(struct ata_eh_info *ehi);
/* The standard error handler: autopsy, report, recovery of the host link with the port's
 * reset methods, finish (libata's ata_std_error_handler / ata_do_eh). */
void ata_std_error_handler(struct ata_port *ap);

/* ---- pmp.c: port multiplier helpers for PMP-capable LLDs ---- */
/* The base table of a PMP-capable LLD (inherits sata_port_ops): command-based switching
 * (sata_pmp_qc_defer_cmd_switch), the PMP error handler and the PMP layer's entries. */
extern const struct ata_port_operations sata_pmp_port_ops;
/* The error handler of a PMP-capable port (an LLD's own handler ends in it): autopsy and
 * report of every link, recovery of the PMP and then of each fan-out link, or of the host
 * link alone while no PMP is attached, then finish. */
void sata_pmp_error_handler(struct ata_port *ap);
/* qc_defer for PMP-capable LLDs: command-based switching (one fan-out link at a time), then
 * the standard rules. Without a PMP attached it is ata_std_qc_defer. */
bool sata_pmp_qc_defer_cmd_switch(const struct ata_queued_cmd *qc);
/* Lock held, irq context: the LLD saw SNotification with these PM port bits set; a PMP's
 * notification (bit 15) sends the port to EH, which reads GSCR[32]. true if EH was asked. */
bool sata_async_notification(struct ata_port *ap, uint32_t sntf);

#endif
