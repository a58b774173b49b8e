/* Public API of the satasim driver stack: what a backend (simulator, QEMU binding)
 * and its workload call. Everything else in stack/ is internal.
 *
 * Life cycle, in process context:
 *   h = ahci_host_create(plat, ops, &cfg);   (allocates every buffer it will ever need)
 *   ata_host_start(h);                        (controller init, IRQ, boot probe via EH)
 *   ... ata_bio_submit(dev, bio) ...          (completion callbacks in IRQ/EH context)
 *   ata_host_stop(h); ata_host_destroy(h);   (destroy + create is a complete reset)
 * The backend runs ata_port_eh_run(h, port) in that port's EH context whenever the stack
 * called ops->schedule_port_eh(port) (or, a backend with one host EH context,
 * ata_host_eh_run(h) whenever the stack called ops->schedule_eh()).
 */
#ifndef SATASIM_ATA_H
#define SATASIM_ATA_H

#include <stdbool.h>
#include <stdint.h>

#include "platform.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ata_host;
struct ata_device;

enum ata_dev_class {
    ATA_DEV_UNKNOWN = 0,
    ATA_DEV_NONE,
    ATA_DEV_ATA,
    ATA_DEV_ATAPI,
    ATA_DEV_PMP,
    ATA_DEV_SEMB,
    ATA_DEV_ZAC,
    ATA_DEV_SEMB_UNSUP, /* an enclosure bridge the stack does not drive (a PMP's config port) */
};

/* One libata.force entry ("[PORT[.DEV]:]VALUE", stack/README.md "libata.force"): the
 * parsed value only; the caller (the harness) reads the kernel parameter's syntax. */
enum { ATA_FORCE_MAX = 32 };
/* Link power management policies, libata's order (core/lpm.c, docs/libata-eh.md): a policy
 * above ATA_LPM_MAX_POWER lets the link enter Partial/Slumber. */
enum ata_lpm_policy {
    ATA_LPM_UNKNOWN = 0,   /* nothing configured: the firmware's settings stand */
    ATA_LPM_MAX_POWER,     /* max_performance: SControl.IPM 3h/7h, ALPE off, PhyRdy IRQ on */
    ATA_LPM_MED_POWER,     /* medium_power: Partial only (IPM 6h), HIPM through ALPE */
    ATA_LPM_MED_POWER_WITH_DIPM, /* med_power_with_dipm: any state, ALPE Partial, DIPM on */
    ATA_LPM_MIN_POWER_WITH_PARTIAL, /* min_power_with_partial: ALPE Partial, DIPM on */
    ATA_LPM_MIN_POWER,     /* min_power: ALPE with ASP (Slumber), DIPM on */
};
/* "max_performance" .. "min_power" -> the policy; NULL, "" or an unknown name: UNKNOWN */
enum ata_lpm_policy ata_lpm_policy_from_name(const char *name);

/* What sata_down_spd_limit() does on a link whose current speed it cannot tell (SStatus not
 * online, and the speed recorded at the last reset 0: the link is down -- a pulled drive's
 * last-chance speed-down, a probe trial on an empty port). libata changed it twice:
 *  - LOWEST, Linux to 4.14: "Force 1.5Gbps if current SPD is not available" (mask &= 1);
 *  - KEEP, 4.15 to 6.1 (commit 2dc0b46b5ea3, "libata: sata_down_spd_limit should return if
 *    driver has not recorded sstatus speed", found on an Intel Lewisburg/C620 hotplug): return
 *    -EINVAL, no limit and no "limiting SATA link speed" line;
 *  - STEP, 6.2 on (and the 6.1.y/5.15.y stables; "ata: libata: Fix sata_down_spd_limit() when
 *    no link speed is reported", Jan 2023): return only if a speed was ever recorded, else
 *    one step below the limit's fastest speed.
 * PROFILE (0) takes the EH profile's (eh_policy.h). A link that runs at 1.5 Gbps is left alone
 * in every era (to 4.14 libata also "limited" it to the 1.5 Gbps it runs at, and said so; the
 * stack does not, as the speed-down rule of docs/eh-rules.md has it). */
enum ata_spd_down_unknown {
    ATA_SPD_DOWN_UNKNOWN_PROFILE = 0,
    ATA_SPD_DOWN_UNKNOWN_LOWEST,
    ATA_SPD_DOWN_UNKNOWN_KEEP,
    ATA_SPD_DOWN_UNKNOWN_STEP,
};
/* "lowest", "keep", "step" -> the rule; NULL, "" or an unknown name: PROFILE */
enum ata_spd_down_unknown ata_spd_down_unknown_from_name(const char *name);

struct ata_force_param {
    int port;            /* libata print id (port + 1), -1 = every port */
    int device;          /* -1 any; 0..14 a PMP fan-out link; 15 the host link's device */
    unsigned spd_limit;  /* 1..3: link speed limit (1.5/3.0/6.0Gbps), 0 none */
    unsigned xfer_mask;  /* ATA_MASK_* packed transfer modes the device may use, 0 none */
    int ncq;             /* -1 noncq (horkage NONCQ on: NCQ not used), 1 ncq (off again), 0 */
    int dma;             /* -1 nodma (horkage NODMA on: no DMA mode), 1 dma (off again), 0 */
    int lpm;             /* -1 nolpm (horkage NOLPM on: max_performance forced), 1 lpm, 0 */
    int ncq_trim;        /* -1 noncqtrim (horkage NO_NCQ_TRIM on: no queued TRIM), 1 ncqtrim, 0 */
    char name[16];       /* the value as written ("1.5Gbps", "udma/100", "noncq"): the log */
};

/* An ICH in IDE mode maps its SATA ports to the two channels' master and slave positions by
 * its MAP register (PCI configuration 90h, read by ata_piix at init). The platform has no
 * configuration space, so the harness says which part and MAP value it models:
 *   NONE  the map is not read and not printed (satasim's original ICH5-like layout)
 *   ICH5  MAP.MV 000b: P0 primary master, P1 secondary master, no slaves
 *   ICH6  MAP.MV 00b: P0/P2 primary master/slave, P1/P3 secondary master/slave */
enum ata_piix_map { ATA_PIIX_MAP_NONE = 0, ATA_PIIX_MAP_ICH5, ATA_PIIX_MAP_ICH6 };

/* Which Intel part ata_piix drives (its port_info; docs/hardware.md 10):
 *   ICH_SATA  an ICH's SATA function in IDE mode (satasim's original piix)
 *   PIIX3     82371SB IDE function: parallel ATA, PIO0-4 and MWDMA1-2, no UDMA
 *   PIIX4     82371AB IDE function: parallel ATA, PIO0-4, MWDMA1-2, UDMA0-2 (UDMA/33)
 *   ICH8_SATA the ICH8's SATA function in IDE mode: ICH_SATA plus the SATA index/data pair
 *             (SIDPR, BAR5): SCRs per SATA port, and with them a slave link on a channel
 *             with a slave position (ata_piix's PIIX_FLAG_SIDPR, piix_init_sidpr)
 * On the PIIX parts both channels are parallel ATA cables with a master and a slave, the
 * timing registers (IDETIM, SIDETIM; UDMACTL, UDMATIM on the PIIX4) are programmed at mode
 * setting through the function's PCI configuration space (the platform's config accessors). */
enum ata_piix_part { ATA_PIIX_ICH_SATA = 0, ATA_PIIX_PIIX3, ATA_PIIX_PIIX4, ATA_PIIX_ICH8_SATA };

/* Where a controller with ATA_HQ_ONCHIP_CMD_AREA keeps each port's command list (32 headers
 * of 32 bytes) and received-FIS area (256 bytes): byte offsets in its register window, port
 * n's at clb + n * stride and fb + n * stride. Dword aligned, beyond the port registers. */
struct ata_onchip_area {
    uint32_t clb;
    uint32_t fb;
    uint32_t stride;
};

/* The block layer's disk names in use (sda, sdb, ...: the SCSI disk driver's index is one for
 * the whole system). A host keeps its own unless the config gives one that several hosts of
 * one machine share (ata_host_config.disk_names). */
enum { ATA_MAX_DISKS = 1024 }; /* sda .. (bijective base 26), one per attached device */
struct ata_disk_names {
    uint64_t used[ATA_MAX_DISKS / 64];
};

/* A PCI function as the stack's PCI layer found and enabled it (core/pci.c, ata_pci_probe):
 * its identity, the BARs it sized (start as programmed, length from the sizing), and how its
 * interrupt arrives. */
struct ata_pci_bar {
    uint64_t start;
    uint32_t len; /* 0: no BAR */
    bool io;
};
struct ata_pci_dev {
    uint16_t vendor, device, subsys_vendor, subsys_device;
    uint8_t revision;
    uint32_t class_code;           /* base << 16 | sub << 8 | programming interface */
    struct ata_pci_bar bar[6];
    uint8_t pin;                   /* Interrupt Pin: 1 = INTA# .. 4 = INTD#, 0 none */
    unsigned irq;                  /* the INTx line (Interrupt Line) or the MSI's number */
    bool msi;                      /* interrupts arrive as MSI messages */
    unsigned long driver_data;     /* the matching ID entry's */
};

struct ata_host_config {
    const char *eh_policy; /* EH profile name; NULL = default */
    bool no_ncq;           /* host-side NCQ off (like a NONCQ host flag) */
    uint32_t port_mask;    /* ports to use (0 = all implemented) */
    bool no_irq_loss_fix;  /* don't apply a controller's lost-completion-IRQ workaround
                              (sil24 on PCI-X: IRQ_WOC); for erratum scenarios */
    unsigned spd_limit;    /* 1..3: fastest SATA generation the links may negotiate, programmed
                              into SControl.SPD by the first hardreset (libata.force=1.5Gbps,
                              3.0Gbps); 0 = no limit */
    const struct ata_force_param *force; /* libata.force entries, in the parameter's order */
    unsigned n_force;                    /* at most ATA_FORCE_MAX */
    bool pio_polling;      /* taskfile controllers: PIO and non-data commands are polled, as
                              for a controller flagged ATA_FLAG_PIO_POLLING; others ignore it */
    enum ata_piix_map piix_map; /* ata_piix: the part's port mapping (below); others ignore it */
    enum ata_piix_part piix_part; /* ata_piix: which part (below); others ignore it */
    /* libata.dma's classes turned off (the kernel parameter's bits, inverted so that the zero
     * config keeps DMA on): 0x1 ATA disks, 0x2 ATAPI, 0x4 CF. A device of such a class is set
     * to a PIO mode at mode setting (libata's ata_do_set_mode), without a message. */
    unsigned dma_off;
    /* What this controller lacks or cannot do whatever its capability registers say, as a
     * board's driver data carries it (libata ahci's hflags, AHCI_HFLAG_*): ATA_HQ_* bits.
     * The AHCI LLD applies them to the CAP it saved at create and logs each one. */
    uint32_t quirks;
    unsigned only_gen;     /* 1..3: the PHY runs this one SATA generation: SControl.SPD is
                              programmed to it and EH never lowers the speed; 0 = any */
    struct ata_onchip_area onchip; /* with ATA_HQ_ONCHIP_CMD_AREA (below) */
    /* several hosts in one machine: the names they share (must outlive the host); NULL: the
     * host's own */
    struct ata_disk_names *disk_names;
    bool fua;              /* Linux's libata.fua (off by default, as the kernel's): FUA writes
                              on devices that have WRITE DMA FUA EXT, LBA48 and NCQ */
    bool atapi_dmadir;     /* Linux's libata.atapi_dmadir: every ATAPI DMA command carries
                              DMADIR (a device whose IDENTIFY PACKET word 62 bit 15 asks for it
                              gets it anyway) */
    bool ignore_hpa;       /* Linux's libata.ignore_hpa (off by default): a device whose Host
                              Protected Area hides sectors is unlocked to its native size at
                              probe (SET MAX ADDRESS (EXT)); off, it is only reported */
    bool no_msi;           /* Linux's pci=nomsi: INTx even where the function and driver have MSI */
    const struct ata_pci_dev *pci; /* the function ata_pci_probe enabled (it fills this); NULL:
                                      created without the PCI layer (no port description lines) */
    enum ata_lpm_policy lpm_policy; /* every port's target link power management policy
                              (ahci's mobile_lpm_policy, the link_power_management_policy
                              sysfs file); ATA_LPM_UNKNOWN (0): keep the firmware's settings */
    enum ata_spd_down_unknown spd_down_unknown; /* the speed-down rule of a link whose speed is
                              unknown (above); PROFILE (0): the EH profile's */
};

/* ata_host_config.quirks */
enum {
    ATA_HQ_NO_NCQ = 1u << 0,      /* never queue (AHCI_HFLAG_NO_NCQ): CAP.SNCQ ignored */
    ATA_HQ_32BIT_ONLY = 1u << 1,  /* DMA addresses below 4 GiB (AHCI_HFLAG_32BIT_ONLY) */
    ATA_HQ_SINGLE_SLOT = 1u << 2, /* one command slot whatever CAP.NCS says */
    ATA_HQ_NO_PMP = 1u << 3,      /* no port multipliers (AHCI_HFLAG_NO_PMP): CAP.SPM ignored */
    /* the command list and received-FIS area are on-chip RAM in the register window at
     * ata_host_config.onchip (libata has no such flag): headers are written and FISes read
     * through MMIO, PxCLB/PxFB are never programmed, command tables stay in system memory;
     * one FIS area per port, so no FIS-based switching (CAP.FBSS ignored) */
    ATA_HQ_ONCHIP_CMD_AREA = 1u << 4,
};

/* Controller drivers. Return NULL on failure (message through trace). */
struct ata_host *ahci_host_create(struct sata_platform *p, const struct sata_platform_ops *ops,
                                  const struct ata_host_config *cfg);
/* SiI3124: one register window with BAR0 at offset 0 and BAR2 at 0x2000. */
struct ata_host *sil24_host_create(struct sata_platform *p, const struct sata_platform_ops *ops,
                                   const struct ata_host_config *cfg);
/* SiI3112 (taskfile + BMDMA, two channels): its MMIO BAR5 as the register window. */
struct ata_host *sil_host_create(struct sata_platform *p, const struct sata_platform_ops *ops,
                                 const struct ata_host_config *cfg);
/* ICH/PIIX SATA in IDE mode (taskfile + BMDMA, no SCRs): the legacy I/O ports at their port
 * numbers and the bus-master block at 0xC000 of the register window. */
struct ata_host *piix_host_create(struct sata_platform *p, const struct sata_platform_ops *ops,
                                  const struct ata_host_config *cfg);

/* The PCI layer (core/pci.c), as the kernel's PCI core and a driver's probe: reads the
 * function's IDs through the platform's configuration cycles, picks the driver whose ID table
 * matches (ata_piix, sata_sil, sata_sil24 and ahci by vendor/device, then ahci by class
 * 01/06/01), enables it (pci_enable_device: memory and I/O decode for the BARs it sizes),
 * makes it a bus master, sets up MSI where the function and driver have it (unless
 * cfg->no_msi), and calls the driver's create with cfg->pci filled. *driver (may be NULL)
 * names the create function chosen. NULL on failure (message through trace). */
struct ata_host *ata_pci_probe(struct sata_platform *p, const struct sata_platform_ops *ops,
                               const struct ata_host_config *cfg, const char **driver);

int ata_host_start(struct ata_host *h);   /* 0 or negative errno */
/* The machine's controllers in PCI order, as the kernel's driver probes meet them: with an
 * asynchronous port probe (the EH profile's async_port_probe) each host's ports are probed
 * while the next host is brought up; else one host after the other, each as ata_host_start.
 * The first failure's code; hosts after a failed one are not started, hosts before it finish
 * their probe. */
int ata_hosts_start(struct ata_host *const *hosts, unsigned n);
void ata_host_stop(struct ata_host *h);   /* quiesce: stop ports, free IRQ */
void ata_host_destroy(struct ata_host *h);
void ata_host_eh_run(struct ata_host *h); /* one EH pass of every port, in the host's EH context */
void ata_port_eh_run(struct ata_host *h, unsigned port); /* one pass, in the port's EH context */

unsigned ata_host_n_ports(const struct ata_host *h);
/* link = -1 for the host link, else the PMP fan-out port; devno 1 only on a host link that may
 * have a slave (ATA_FLAG_SLAVE_POSS); NULL if no usable device. */
struct ata_device *ata_host_device(struct ata_host *h, unsigned port, int link, unsigned devno);
/* Read-only: the port is frozen (its interrupts masked, waiting for EH to thaw it) or has
 * EH pending or in progress. false for a port that does not exist or is a dummy. */
bool ata_port_is_frozen(const struct ata_host *h, unsigned port);

struct ata_dev_info {
    enum ata_dev_class cls;
    char model[41];
    char serial[21];
    char firmware[9];
    uint64_t n_sectors;
    uint32_t sector_size; /* logical sector, bytes: 512, or 4096 (4Kn); n_sectors and every
                             request's lba and n_sectors count these */
    bool lba48;
    bool ncq;             /* NCQ in use */
    unsigned ncq_depth;   /* depth the stack uses (0 when NCQ off) */
    unsigned max_sectors; /* per command: 65535 (LBA48) or 256, or a driver quirk's limit
                             (sata_sil mod15write: 15); longer requests are split */
    unsigned multi_count; /* sectors per DRQ block for READ/WRITE MULTIPLE, 0 = off */
    uint8_t xfer_mode;    /* SET FEATURES mode value, e.g. 0x46 = UDMA/133 */
    char xfer_name[16];   /* "UDMA/133", "PIO4" */
    unsigned sata_spd;    /* negotiated link generation 1..3, 0 unknown */
    bool fua;             /* FUA writes used (libata.fua, and the device has them) */
};
int ata_dev_get_info(const struct ata_device *dev, struct ata_dev_info *out);

/* The request timeout of a device's block I/O (the SCSI disk layer's
 * /sys/block/sdX/device/timeout, default 30 s): a request still running after it is
 * aborted into EH as timed out. 0 restores the default. Process context; applies to
 * commands issued from then on. -EINVAL for a NULL device. */
int ata_dev_set_timeout(struct ata_device *dev, unsigned timeout_ms);

/* Read-only: EH is scheduled or running on the port (ata_port_is_frozen() above also
 * counts that). false for a port that does not exist or is a dummy. */
bool ata_port_eh_pending(const struct ata_host *h, unsigned port);

/* Warm-plug (libata's SCSI "scan" and "delete"), process context, never from the EH
 * context or a done() callback; one caller per port at a time (-EBUSY otherwise).
 * Commands in flight on the port are aborted into EH and requeued without blame.
 *   ata_port_scan: probe the port again (reset + probe, as a hotplug event would) and wait
 *     for EH to finish. A device already there is revalidated and kept if it is the same
 *     drive; an empty slot that now has a drive gets it attached. 0 when EH has run
 *     (ata_host_device() then says what is there), -EINVAL bad port, -ENODEV dummy port or
 *     host not started.
 *   ata_dev_delete: detach the port's device at the start of the next EH and wait for it:
 *     its queued and in-flight requests fail with AC_ERR_NODEV_HINT, later submits get
 *     -ENODEV; the drive stays on the cable (a scan or a hotplug event probes it again).
 *     0, -EINVAL, -ENODEV (no device).
 * Neither may run concurrently with ata_host_stop(). A device pointer names the slot: after
 * a detach and a new attach (replacement, delete + scan, unplug + plug) it addresses the new
 * drive, so a caller that cares checks ata_dev_get_info() (model, serial) again. */
int ata_port_scan(struct ata_host *h, unsigned port);
int ata_dev_delete(struct ata_host *h, unsigned port);
/* SCSI "rescan" of the port's disk (echo 1 > /sys/block/sdX/device/rescan): Linux's sd
 * re-reads the capacity with READ CAPACITY and friends, which libata answers from the
 * device's IDENTIFY data without an ATA command (ata_scsi_simulate), so nothing reaches
 * the device and EH does not run. 0, -EINVAL bad port, -ENODEV no device. */
int ata_dev_rescan(struct ata_host *h, unsigned port);

/* Block I/O. */
/* ATA_BIO_TRIM: the stack's one TRIM entry point (the block layer's REQ_OP_DISCARD, as sd
 * sends it to libata): [lba, lba + n_sectors) is discarded with DATA SET MANAGEMENT (06h,
 * TRIM), on a device whose IDENTIFY word 169 bit 0 says it takes TRIM (else -EOPNOTSUPP).
 * sg is the payload buffer, at least ATA_TRIM_PAYLOAD bytes that the CPU can reach
 * (platform dma_cpu_addr): at submit the stack writes the LBA range list into it as libata
 * formats it (8-byte entries, 48-bit LBA and 16-bit count, the rest of the 512-byte block
 * zero) and sends that one block; n_sectors at most ATA_TRIM_MAX_SECTORS (one block's 64
 * entries of 65535), as libata's limit. After a good completion the sectors read as IDENTIFY
 * word 69 says (ata_trim_reads_zeroes). */
enum ata_bio_op { ATA_BIO_READ = 0, ATA_BIO_WRITE, ATA_BIO_FLUSH, ATA_BIO_TASKFILE, ATA_BIO_PACKET, ATA_BIO_TRIM };
enum { ATA_TRIM_PAYLOAD = 512, ATA_TRIM_RANGES = ATA_TRIM_PAYLOAD / 8,
       ATA_TRIM_MAX_SECTORS = ATA_TRIM_RANGES * 0xffff };

/* An ATAPI packet command (ATA_BIO_PACKET, on an ATAPI device only): the CDB goes out
 * unchanged as a PACKET command, as libata's atapi_xlat passes the SCSI layer's CDB. The
 * data buffer is the request's sg; a failed command's sense data is read in EH (libata's
 * atapi_eh_request_sense). The SAT layer's SCSI command maps onto it field by field. */
enum ata_packet_dir { ATA_PACKET_NONE = 0, ATA_PACKET_FROM_DEV };
struct ata_packet {
    /* in */
    uint8_t cdb[16];
    unsigned cdb_len;         /* the caller's CDB length (6, 10, 12, 16); 12 go out */
    enum ata_packet_dir dir;
    uint32_t len;             /* bytes the command moves to the host (its allocation length) */
    bool pio;                 /* never DMA (else DMA where the device has a DMA mode and len is
                                 a multiple of 16, as libata's atapi_check_dma) */
    uint16_t byte_count;      /* PIO byte count limit; 0 = libata's: len, at most 63 KiB */
    /* out, valid in done() */
    uint8_t status;           /* SAM status: 0x00 GOOD, 0x02 CHECK CONDITION */
    uint8_t sense[18];        /* fixed-format sense from EH's REQUEST SENSE */
    unsigned sense_len;       /* 0 = none read */
    bool dma;                 /* the command went out with DMA */
};

/* An ATA_BIO_TASKFILE request: one ATA command with its registers as given, the SAT layer's
 * (stack/scsi/: ATA PASS-THROUGH, SET FEATURES, STANDBY IMMEDIATE, DATA SET MANAGEMENT).
 * Its data moves in 512-byte blocks (n_sectors of them, 0 for a non-data command); no
 * splitting, no FUA. In done(), result holds the registers the device returned (status and
 * error in command and feature, as libata's result taskfile), for every request. */
enum ata_bio_proto { ATA_BIO_PROTO_NODATA = 0, ATA_BIO_PROTO_PIO, ATA_BIO_PROTO_DMA };
struct ata_bio_regs {
    uint8_t command, feature, nsect, lbal, lbam, lbah, device;
    uint8_t hob_feature, hob_nsect, hob_lbal, hob_lbam, hob_lbah;
    bool lba48; /* a 48-bit command: the hob registers go out (and come back) */
};

enum ata_io_mode {
    ATA_IO_AUTO = 0, /* NCQ when in use, else DMA, else PIO */
    ATA_IO_DMA,      /* READ/WRITE DMA (EXT) */
    ATA_IO_PIO,      /* READ/WRITE MULTIPLE (EXT) when a multi count is set, else SECTORS */
    ATA_IO_NCQ,      /* READ/WRITE FPDMA QUEUED; -EOPNOTSUPP if the device never had NCQ
                        in use, DMA once EH turned it off */
};

/* A piece of the data buffer, by bus address (memory from ops->dma_alloc). */
struct ata_sg {
    uint64_t bus;
    uint32_t len;
};

struct ata_bio {
    /* in */
    enum ata_bio_op op;
    enum ata_io_mode mode;
    uint64_t lba;
    uint32_t n_sectors; /* 1..the command set's limit (65535 LBA48, else 256); 0 for FLUSH.
                           Beyond the device's max_sectors (a driver's quirk lowered it) the
                           stack splits it into commands of max_sectors, as the block layer
                           splits at max_hw_sectors, and calls done() once at the end */
    const struct ata_sg *sg;
    unsigned n_sg;
    bool fail_fast; /* no retries above EH (REQ_FAILFAST_DEV, as readahead): EH still
                       recovers the link, but a failed request completes with its error */
    void (*done)(struct ata_bio *bio); /* called once, in interrupt or EH context */
    void *priv;
    /* set by ata_bio_submit: the Linux block layer's request flags (cmd_flags beyond the op)
     * the request stands for, for the "I/O error, dev sda, ... flags" line only: a
     * fail-fast request is readahead's (REQ_RAHEAD 0x80000 | REQ_FAILFAST_* 0x700), a write
     * a direct one's (REQ_SYNC 0x800), a read a buffered one's (0) */
    uint32_t blk_flags;
    /* the block layer's tag (blk-mq hands libata the request's tag since Linux 4.18, so a
     * field report's "tag 6" is the block layer's choice): with want_tag set the command takes
     * blk_tag while that tag is free, else (and without it) the lowest free tag */
    bool want_tag;
    unsigned blk_tag;
    /* a write the upper layer wants on the media when done() reports it (REQ_FUA): a FUA
     * command (WRITE DMA FUA EXT, WRITE MULTIPLE FUA EXT, WRITE FPDMA QUEUED with FUA) where
     * the device takes one (libata.fua, ata_dev_info.fua), else the write and then a FLUSH
     * CACHE (EXT) as the block layer's flush machinery does, or the write alone on a device
     * whose write cache is off. Ignored for reads and flushes */
    bool fua;
    /* ATA_BIO_PACKET: the command (n_sectors and lba unused; sg holds packet->len bytes) */
    struct ata_packet *packet;
    /* ATA_BIO_TASKFILE: the command, its protocol and direction (data to the device) */
    struct ata_bio_regs regs;
    enum ata_bio_proto proto;
    bool tf_write;
    /* a SCSI pass-through request (SG_IO, as sg_raw sends one): the block layer neither
     * retries a failed command above EH (the SCSI command allows no retries) nor prints its
     * I/O error line (blk_rq_is_passthrough); an innocent aborted by EH is still requeued */
    bool passthrough;
    /* ATA_BIO_TASKFILE: the issuer reads the result registers back (an ATA PASS-THROUGH
     * CDB: libata's ata_scsi_pass_thru sets ATA_QCFLAG_RESULT_TF), so a success fills the
     * command slot's result taskfile too: the registers a later failure on that slot may show */
    bool result_tf;
    /* out, valid in done() */
    unsigned err_mask; /* 0 = success; AC_ERR_* bits otherwise */
    uint8_t status;    /* final ATA status */
    uint8_t error;     /* final ATA error */
    unsigned tag;      /* tag the command ran with */
    struct ata_bio_regs result; /* the result registers (the failed LBA of a read/write) */
    /* private to the stack while the request is queued; leave zeroed */
    struct ata_bio *q_next;
    struct ata_device *q_dev;
    unsigned q_retries; /* retries above EH used so far (as the SCSI layer's count) */
    uint32_t q_done;    /* split request: sectors finished by earlier pieces */
    uint32_t q_piece;   /* sectors of the piece in flight (= n_sectors when not split) */
    unsigned q_piece_sg; /* its scatter/gather entries */
    bool q_postflush;    /* a FUA write done, its FLUSH CACHE in flight (the write had no FUA) */
};

/* Queue a request. Returns 0 (done() will be called) or a negative errno:
 * -EINVAL (beyond capacity or the command set's sector limit, sg shorter than the transfer,
 * a split piece's sg over ATA_SPLIT_SG_MAX entries for one sector),
 * -EOPNOTSUPP (mode not available), -ENODEV (device disabled or detached).
 * A request that cannot be issued yet (no free tag, NCQ/non-NCQ exclusion, EH running)
 * waits in the stack's queue and is issued in order as commands complete.
 * ATA_IO_NCQ after EH turned NCQ off ("NCQ disabled due to excessive errors") is issued
 * as READ/WRITE DMA (EXT), as libata does: NCQ is a transport choice, not a request's.
 * A request whose device is disabled, unplugged, replaced or deleted before it finished
 * completes with AC_ERR_NODEV_HINT in err_mask (other bits may tell what happened first);
 * it is never issued to the drive that took the old one's place. */
int ata_bio_submit(struct ata_device *dev, struct ata_bio *bio);

/* IDENTIFY: the device takes TRIM (word 169 bit 0); a trimmed sector reads the same every
 * time (word 69 bit 14, "deterministic read after TRIM") and reads zeroes (bit 5 too). */
bool ata_trim_supported(const struct ata_device *dev);
bool ata_trim_reads_zeroes(const struct ata_device *dev);

/* err_mask bits (libata's AC_ERR_*). */
enum {
    AC_ERR_DEV = 1u << 0,
    AC_ERR_HSM = 1u << 1,
    AC_ERR_TIMEOUT = 1u << 2,
    AC_ERR_MEDIA = 1u << 3,
    AC_ERR_ATA_BUS = 1u << 4,
    AC_ERR_HOST_BUS = 1u << 5,
    AC_ERR_SYSTEM = 1u << 6,
    AC_ERR_INVALID = 1u << 7,
    AC_ERR_OTHER = 1u << 8,
    AC_ERR_NODEV_HINT = 1u << 9, /* the device is gone: disabled, unplugged, replaced, deleted */
    AC_ERR_NCQ = 1u << 10,
};

#ifdef __cplusplus
}
#endif

#endif
