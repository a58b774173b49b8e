/* AHCI 1.3.1 register map and in-memory structures (docs/hardware.md 5). */
#ifndef SATASIM_AHCI_H
#define SATASIM_AHCI_H

#include "satasim/libata.h"

enum {
    AHCI_MAX_PORTS = 32,
    AHCI_MAX_CMDS = 32,
    AHCI_MAX_SG = 168,            /* PRDs per command table, as libata */
    AHCI_PRD_MAX_BYTES = 4u << 20, /* DBC is 22 bits, byte count - 1 */
    AHCI_CMD_SLOT_SZ = 32,
    AHCI_CMD_LIST_SZ = AHCI_MAX_CMDS * AHCI_CMD_SLOT_SZ, /* 1 KiB, 1 KiB aligned */
    AHCI_RX_FIS_SZ = 256,                                /* 256 B aligned */
    AHCI_CMD_TBL_HDR_SZ = 0x80,
    AHCI_CMD_TBL_CDB = 0x40, /* ACMD: the ATAPI command, 12 or 16 bytes */
    AHCI_PRD_SZ = 16,
    AHCI_CMD_TBL_SZ = AHCI_CMD_TBL_HDR_SZ + AHCI_MAX_SG * AHCI_PRD_SZ, /* 128 B multiple */
    /* one DMA block per port: command list, RX FIS, then the command tables */
    AHCI_RX_FIS_OFF = AHCI_CMD_LIST_SZ,
    AHCI_CMD_TBL_OFF = AHCI_RX_FIS_OFF + AHCI_RX_FIS_SZ,
    AHCI_PORT_PRIV_DMA_SZ = AHCI_CMD_TBL_OFF + AHCI_MAX_CMDS * AHCI_CMD_TBL_SZ,
    /* FIS-based switching: one RX FIS area per PM port, 16 of them, 4 KiB aligned; an HBA
     * with CAP.FBS gets it at create for every port (also used without FBS: area 0) */
    AHCI_RX_FIS_FBS_SZ = 16 * AHCI_RX_FIS_SZ,
};

/* global registers */
enum {
    HOST_CAP = 0x00,
    HOST_CTL = 0x04,
    HOST_IRQ_STAT = 0x08,
    HOST_PORTS_IMPL = 0x0c,
    HOST_VERSION = 0x10,
    HOST_CAP2 = 0x24,
};

enum {
    HOST_RESET = 1u << 0,
    HOST_IRQ_EN = 1u << 1,
    HOST_AHCI_EN = 1u << 31,
};

/* CAP */
#define HOST_CAP_SXS (1u << 5)
#define HOST_CAP_EMS (1u << 6)
#define HOST_CAP_CCC (1u << 7)
#define HOST_CAP_PART (1u << 13)
#define HOST_CAP_SSC (1u << 14)
#define HOST_CAP_PIO_MULTI (1u << 15)
#define HOST_CAP_FBS (1u << 16)
#define HOST_CAP_PMP (1u << 17)
#define HOST_CAP_ONLY (1u << 18)
#define HOST_CAP_CLO (1u << 24)
#define HOST_CAP_LED (1u << 25)
#define HOST_CAP_ALPM (1u << 26)
#define HOST_CAP_SSS (1u << 27)
#define HOST_CAP_MPS (1u << 28)
#define HOST_CAP_SNTF (1u << 29)
#define HOST_CAP_NCQ (1u << 30)
#define HOST_CAP_64 (1u << 31)
#define HOST_CAP_NP(cap) (((cap) & 0x1fu) + 1)
#define HOST_CAP_NCS(cap) ((((cap) >> 8) & 0x1fu) + 1)
#define HOST_CAP_ISS(cap) (((cap) >> 20) & 0xfu)

/* port registers, at 0x100 + 0x80 * port */
#define AHCI_PORT_BASE(n) (0x100u + 0x80u * (n))
enum {
    PORT_LST_ADDR = 0x00,
    PORT_LST_ADDR_HI = 0x04,
    PORT_FIS_ADDR = 0x08,
    PORT_FIS_ADDR_HI = 0x0c,
    PORT_IRQ_STAT = 0x10,
    PORT_IRQ_MASK = 0x14,
    PORT_CMD = 0x18,
    PORT_TFDATA = 0x20,
    PORT_SIG = 0x24,
    PORT_SCR_STAT = 0x28,
    PORT_SCR_CTL = 0x2c,
    PORT_SCR_ERR = 0x30,
    PORT_SCR_ACT = 0x34,
    PORT_CMD_ISSUE = 0x38,
    PORT_SCR_NTF = 0x3c,
    PORT_FBS = 0x40,
    PORT_DEVSLP = 0x44,
};

/* CAP2 (AHCI 1.3.1 3.1.10): DevSleep, aggressive DevSleep management */
#define HOST_CAP2_SDS (1u << 3)
#define HOST_CAP2_SADM (1u << 4)

/* PxDEVSLP (AHCI 1.3.1 3.3.17) */
#define PORT_DEVSLP_ADSE (1u << 0)
#define PORT_DEVSLP_DSP (1u << 1)
#define PORT_DEVSLP_DETO_SHIFT 2
#define PORT_DEVSLP_MDAT_SHIFT 10
#define PORT_DEVSLP_DITO_SHIFT 15
#define PORT_DEVSLP_DM_SHIFT 25
#define PORT_DEVSLP_TIMING_MASK (0x7fffffu << 2) /* DETO, MDAT, DITO: bits 24:2 */

/* PxFBS */
#define PORT_FBS_EN (1u << 0)
#define PORT_FBS_DEC (1u << 1)
#define PORT_FBS_SDE (1u << 2)
#define PORT_FBS_DEV_SHIFT 8
#define PORT_FBS_DEV_MASK (0xfu << 8)
#define PORT_FBS_ADO_SHIFT 12
#define PORT_FBS_DWE_SHIFT 16
#define PORT_FBS_DWE_MASK (0xfu << 16)

/* PxIS / PxIE */
#define PORT_IRQ_D2H_REG_FIS (1u << 0)
#define PORT_IRQ_PIOS_FIS (1u << 1)
#define PORT_IRQ_DMAS_FIS (1u << 2)
#define PORT_IRQ_SDB_FIS (1u << 3)
#define PORT_IRQ_UNK_FIS (1u << 4)
#define PORT_IRQ_SG_DONE (1u << 5)
#define PORT_IRQ_CONNECT (1u << 6)
#define PORT_IRQ_PHYRDY (1u << 22)
#define PORT_IRQ_BAD_PMP (1u << 23)
#define PORT_IRQ_IF_ERR (1u << 27)
#define PORT_IRQ_HBUS_DATA_ERR (1u << 28)
#define PORT_IRQ_HBUS_ERR (1u << 29)
#define PORT_IRQ_TF_ERR (1u << 30)
#define PORT_IRQ_FREEZE                                                                        \
    (PORT_IRQ_HBUS_ERR | PORT_IRQ_IF_ERR | PORT_IRQ_CONNECT | PORT_IRQ_PHYRDY | PORT_IRQ_UNK_FIS | \
     PORT_IRQ_BAD_PMP)
#define PORT_IRQ_ERROR (PORT_IRQ_FREEZE | PORT_IRQ_TF_ERR | PORT_IRQ_HBUS_DATA_ERR)
#define DEF_PORT_IRQ                                                                           \
    (PORT_IRQ_ERROR | PORT_IRQ_SG_DONE | PORT_IRQ_SDB_FIS | PORT_IRQ_DMAS_FIS |              \
     PORT_IRQ_PIOS_FIS | PORT_IRQ_D2H_REG_FIS)

/* PxCMD */
#define PORT_CMD_START (1u << 0)
#define PORT_CMD_SPIN_UP (1u << 1)
#define PORT_CMD_POWER_ON (1u << 2)
#define PORT_CMD_CLO (1u << 3)
#define PORT_CMD_FIS_RX (1u << 4)
#define PORT_CMD_FIS_ON (1u << 14)
#define PORT_CMD_LIST_ON (1u << 15)
#define PORT_CMD_PMP (1u << 17) /* PMA: port multiplier attached */
#define PORT_CMD_CPD (1u << 20)
#define PORT_CMD_FBSCP (1u << 22) /* FIS-based switching capable port */
#define PORT_CMD_ATAPI (1u << 24)
#define PORT_CMD_ALPE (1u << 26) /* aggressive link power management enable */
#define PORT_CMD_ASP (1u << 27)  /* aggressive slumber / partial */
#define PORT_CMD_ICC_MASK (0xfu << 28)
#define PORT_CMD_ICC_ACTIVE (1u << 28)

/* command header dword 0 */
#define AHCI_CMD_FIS_LEN 5u /* Register H2D FIS, in dwords */
#define AHCI_CMD_ATAPI (1u << 5) /* A: the ACMD area holds a CDB */
#define AHCI_CMD_WRITE (1u << 6)
#define AHCI_CMD_PREFETCH (1u << 7)
#define AHCI_CMD_RESET (1u << 8)
#define AHCI_CMD_CLR_BUSY (1u << 10)

/* received FIS area */
enum {
    RX_FIS_PIO_SETUP = 0x20,
    RX_FIS_D2H_REG = 0x40,
    RX_FIS_SDB = 0x58,
    RX_FIS_UNK = 0x60,
};

/* Fill a PRD table (16 B entries) for the first nbytes of sg: returns the entry count or
 * -EINVAL (see ata_sg_split). Entries are split at AHCI_PRD_MAX_BYTES. */
int ahci_fill_prdt(uint8_t *prdt, unsigned max_prd, const struct ata_sg *sg, unsigned n_sg,
                   uint32_t nbytes);
/* Command header for a slot: dword 0 options, PRDBC cleared, table address. */
void ahci_fill_cmd_slot(uint8_t *slot, uint32_t opts, uint64_t tbl_bus);

#endif
