/* Protocol constants of ATA, SATA and the SATA port multiplier, in the image of Linux's
 * include/linux/ata.h: taskfile register bits, commands, transfer-mode values, the SCR and
 * GSCR numbering and the Register FIS fields (docs/hardware.md 1, 7;
 * ATA8-ACS, SATA 3.x 10.3, SATA PM 1.2). Facts of the standards only: no stack object.
 */
#ifndef SATASIM_ATA_PROTO_H
#define SATASIM_ATA_PROTO_H

/* ---- sizes ---- */
enum {
    ATA_SECT_SIZE = 512,
    ATA_ID_WORDS = 256,
    ATA_MAX_SECTORS = 256,        /* 28-bit commands: sector count 0 = 256 */
    ATA_MAX_SECTORS_LBA48 = 65535,
    SATA_PMP_MAX_PORTS = 15,  /* fan-out ports of a port multiplier */
    SATA_PMP_CTRL_PORT = 15,  /* the PMP's own control port */
};

/* ---- ATA registers and commands ---- */
enum {
    ATA_BUSY = 1u << 7, ATA_DRDY = 1u << 6, ATA_DF = 1u << 5, ATA_DRQ = 1u << 3, ATA_ERR = 1u << 0,
    ATA_ICRC = 1u << 7, ATA_UNC = 1u << 6, ATA_IDNF = 1u << 4, ATA_ABORTED = 1u << 2, ATA_AMNF = 1u << 0,
    ATA_LBA = 1u << 6,          /* device register: LBA addressing */
    ATA_DEVICE_OBS = 0xa0,      /* obsolete device-register bits set for device 0 */
    ATA_DEV1 = 1u << 4,         /* Device register DEV: device 1 (the slave) is addressed */
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
    ATA_CMD_WRITE_FUA_EXT = 0x3d, ATA_CMD_WRITE_MULTI_FUA_EXT = 0xce,
    ATA_CMD_FPDMA_READ = 0x60, ATA_CMD_FPDMA_WRITE = 0x61,
    ATA_CMD_FLUSH = 0xe7, ATA_CMD_FLUSH_EXT = 0xea,
    ATA_CMD_ID_ATA = 0xec, ATA_CMD_ID_ATAPI = 0xa1,
    ATA_CMD_PACKET = 0xa0,
    ATA_CMD_SET_FEATURES = 0xef, ATA_CMD_SET_MULTI = 0xc6,
    ATA_CMD_READ_LOG_EXT = 0x2f,
    ATA_CMD_READ_NATIVE_MAX = 0xf8, ATA_CMD_READ_NATIVE_MAX_EXT = 0x27,
    ATA_CMD_SET_MAX = 0xf9, ATA_CMD_SET_MAX_EXT = 0x37,
    ATA_CMD_DSM = 0x06, /* DATA SET MANAGEMENT; Feature bit 0 (ATA_DSM_TRIM) TRIM */
    ATA_CMD_PMP_READ = 0xe4, ATA_CMD_PMP_WRITE = 0xe8,
    ATA_CMD_FPDMA_SEND = 0x64, /* SEND FPDMA QUEUED; subcommand in Count 12:8 of the high byte */
    ATA_SUBCMD_FPDMA_SEND_DSM = 0x00,
    ATA_LOG_DIRECTORY = 0x00,
    ATA_LOG_SATA_NCQ = 0x10,
    ATA_LOG_NCQ_SEND_RECV = 0x13, /* which SEND/RECEIVE FPDMA QUEUED subcommands the device takes */
    ATA_LOG_NCQ_SEND_RECV_SUBCMDS_OFFSET = 0x00, ATA_LOG_NCQ_SEND_RECV_SUBCMDS_DSM = 1u << 0,
    ATA_LOG_NCQ_SEND_RECV_DSM_OFFSET = 0x04, ATA_LOG_NCQ_SEND_RECV_DSM_TRIM = 1u << 0,
    ATA_LOG_NCQ_SEND_RECV_SIZE = 0x14,
    /* the IDENTIFY DEVICE data log (ACS-3 9.10): page 00h lists its pages (byte 8 the count,
     * the numbers from byte 9), page 08h SATA settings, whose qword at 30h holds the DEVSLP
     * timing variables: byte 0 MDAT (bits 4:0, ms), byte 1 DETO (ms), byte 7 bit 7 valid */
    ATA_LOG_IDENTIFY_DEVICE = 0x30, ATA_LOG_SATA_SETTINGS = 0x08,
    ATA_LOG_DEVSLP_OFFSET = 0x30, ATA_LOG_DEVSLP_SIZE = 0x08,
    ATA_LOG_DEVSLP_MDAT = 0x00, ATA_LOG_DEVSLP_MDAT_MASK = 0x1f, ATA_LOG_DEVSLP_DETO = 0x01,
    ATA_LOG_DEVSLP_VALID = 0x07, ATA_LOG_DEVSLP_VALID_MASK = 0x80,
    SETFEATURES_XFER = 0x03,
    /* SET FEATURES 10h / 90h: enable / disable a SATA feature, the feature in Count;
     * 03h device-initiated interface power management (IDENTIFY word 78/79 bit 3), 09h
     * DevSleep (word 78/79 bit 8) */
    SETFEATURES_SATA_ENABLE = 0x10, SETFEATURES_SATA_DISABLE = 0x90, SATA_DIPM = 0x03, SATA_DEVSLP = 0x09,
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

/* Port multiplier global registers (GSCR) and feature bits (docs/hardware.md 7.3, SATA PM 1.2). */
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

/* Register FIS (SATA 3.x 10.3.4, docs/hardware.md 1.3): 20 bytes, type in byte 0, PM port
 * in byte 1 bits 3:0, bit 7 of byte 1 = C (the FIS carries a command). */
enum {
    SATA_FIS_REG_H2D = 0x27,
    SATA_FIS_REG_LEN = 20,
    SATA_FIS_C = 1u << 7,
};

/* ---- taskfile protocol and flags ---- */
enum ata_prot {
    ATA_PROT_NODATA = 0, ATA_PROT_PIO, ATA_PROT_DMA, ATA_PROT_NCQ,
    /* PACKET (A0h): the CDB goes out first (ATA8-ACS 7.18), then no data, PIO DRQ blocks of
     * at most the byte count in LBA mid/high, or DMA */
    ATAPI_PROT_NODATA, ATAPI_PROT_PIO, ATAPI_PROT_DMA,
};

/* PACKET Features bits (ATA8-ACS 7.18) and the interrupt reason a packet device reports
 * in its Count register (ATA8-APT) */
enum {
    ATAPI_PKT_DMA = 1u << 0,
    ATAPI_DMADIR = 1u << 2, /* the DMA data goes to the host (a bridged PATA drive needs it) */
    ATAPI_INT_REASON_CD = 1u << 0,
    ATAPI_INT_REASON_IO = 1u << 1,
    ATAPI_CDB_LEN = 12,
    ATAPI_MAX_BYTE_COUNT = 63 * 1024, /* libata's byte count limit for a PACKET command */
};

enum {
    ATA_TFLAG_LBA48 = 1u << 0,
    ATA_TFLAG_WRITE = 1u << 1, /* data goes host -> device */
    ATA_TFLAG_POLLING = 1u << 2, /* taskfile controllers: issue with nIEN set and poll */
};

#endif
