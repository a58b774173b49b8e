// Silicon Image SiI3124 register map, bit names, Port Request Block and scatter/gather
// layouts and command error codes (docs/hardware.md section 6), shared by the model and its
// tests. Offsets are inside the BAR named in each block.
#pragma once

#include <cstdint>

namespace satasim::sil24::reg {

// ---- The model's single register window (see Sil24Hba) ------------------------------
// BAR0 (global registers, 128 bytes) is mapped at window offset 0; BAR2 (four 8 KiB port
// blocks) at window offset kBar2Offset. Everything between 0x80 and kBar2Offset reads 0.
constexpr uint32_t kBar0Size = 0x80;
constexpr uint32_t kPortWindow = 0x2000;
constexpr uint32_t kBar2Offset = 0x2000;
constexpr uint32_t port_window(unsigned n) { return kBar2Offset + kPortWindow * n; }

// ---- BAR0: global registers ----------------------------------------------------------
constexpr uint32_t HOST_SLOT_STAT = 0x00; // 4 x 32: port n at 4n (mirror of PORT_SLOT_STAT)
constexpr uint32_t HOST_CTRL = 0x40, HOST_IRQ_STAT = 0x44, HOST_PHY_CFG = 0x48,
                   HOST_BIST_CTRL = 0x50, HOST_BIST_PTRN = 0x54, HOST_BIST_STAT = 0x58,
                   HOST_MEM_BIST_STAT = 0x5C, HOST_FLASH_CMD = 0x70;

// HOST_CTRL
constexpr uint32_t HCTRL_PORT_IRQ_MASK = 0xF, HCTRL_M66EN = 1u << 16, HCTRL_TRDY = 1u << 17,
                   HCTRL_STOP = 1u << 18, HCTRL_DEVSEL = 1u << 19, HCTRL_REQ64 = 1u << 20,
                   HCTRL_GEN2 = 1u << 24, HCTRL_I2C_INT = 1u << 29, HCTRL_MSI_ACK = 1u << 30,
                   HCTRL_GLOBAL_RST = 1u << 31;
// Bits software can write; the latched PCI signals and the 3 Gb/s bit are read-only.
constexpr uint32_t HCTRL_WRITABLE =
    HCTRL_PORT_IRQ_MASK | HCTRL_I2C_INT | HCTRL_MSI_ACK | HCTRL_GLOBAL_RST;
// HOST_IRQ_STAT
constexpr uint32_t HIRQ_PORT_MASK = 0xF, HIRQ_I2C = 1u << 29;

// ---- BAR2: port registers (offsets inside the port's 8 KiB window) -------------------
constexpr uint32_t PORT_LRAM = 0x0000, kLramSlotSize = 0x80, kLramSlots = 31;
constexpr uint32_t PORT_PMP = 0x0F80, kPmpEntrySize = 8, kPmpEntries = 16;
constexpr uint32_t PORT_CTRL_STAT = 0x1000, PORT_CTRL_CLR = 0x1004, PORT_IRQ_STAT = 0x1008,
                   PORT_IRQ_ENABLE_SET = 0x1010, PORT_IRQ_ENABLE_CLR = 0x1014,
                   PORT_ACTIVATE_UPPER = 0x101C, PORT_EXEC_FIFO = 0x1020,
                   PORT_CMD_ERR = 0x1024, PORT_FIS_CFG = 0x1028, PORT_FIFO_THRES = 0x102C,
                   PORT_DECODE_ERR_CNT = 0x1040, PORT_CRC_ERR_CNT = 0x1044,
                   PORT_HSHK_ERR_CNT = 0x1048, PORT_PHY_CFG = 0x1050,
                   PORT_SLOT_STAT = 0x1800, PORT_CMD_ACTIVATE = 0x1C00,
                   PORT_EXEC_DIAG = 0x1E00, PORT_CONTEXT = 0x1E04, PORT_PSD_DIAG = 0x1E40,
                   PORT_SCONTROL = 0x1F00, PORT_SSTATUS = 0x1F04, PORT_SERROR = 0x1F08,
                   PORT_SACTIVE = 0x1F0C;
constexpr uint32_t activate_reg(unsigned slot) { return PORT_CMD_ACTIVATE + 8 * slot; }
constexpr uint32_t lram_slot(unsigned slot) { return PORT_LRAM + kLramSlotSize * slot; }

// PORT_CTRL_STAT (write 0x1000 sets, write 0x1004 clears)
constexpr uint32_t CS_PORT_RST = 1u << 0, CS_DEV_RST = 1u << 1, CS_INIT = 1u << 2,
                   CS_IRQ_WOC = 1u << 3, CS_LED_DIS = 1u << 4, CS_CDB16 = 1u << 5,
                   CS_PMP_RESUME = 1u << 6, CS_TBIST = 1u << 7, CS_CONT_DIS = 1u << 8,
                   CS_SCR_DIS = 1u << 9, CS_32BIT_ACTV = 1u << 10, CS_IR = 1u << 11,
                   CS_IA = 1u << 12, CS_PMP_EN = 1u << 13, CS_AIA = 1u << 14,
                   CS_LED_ON = 1u << 15, CS_ACT_SHIFT = 16, CS_ACT_MASK = 0x1Fu << 16,
                   CS_OOBB = 1u << 25, CS_RDY = 1u << 31;
// Control bits software sets/clears; RST/DEV_RST/INIT have side effects, ACT and RDY are
// status (read-only).
constexpr uint32_t CS_CONTROL = 0x0200FFFF & ~CS_LED_ON;

// PORT_IRQ_STAT / ENABLE: bit n (11:0) = masked status, bit n+16 = raw status
constexpr uint32_t IRQ_COMPLETE = 1u << 0, IRQ_ERROR = 1u << 1, IRQ_PORTRDY_CHG = 1u << 2,
                   IRQ_PWR_CHG = 1u << 3, IRQ_PHYRDY_CHG = 1u << 4, IRQ_COMWAKE = 1u << 5,
                   IRQ_UNK_FIS = 1u << 6, IRQ_DEV_XCHG = 1u << 7, IRQ_8B10B = 1u << 8,
                   IRQ_CRC = 1u << 9, IRQ_HANDSHAKE = 1u << 10, IRQ_SDB_NOTIFY = 1u << 11;
constexpr uint32_t IRQ_ALL = 0xFFF, IRQ_RAW_SHIFT = 16, IRQ_STEER_MASK = 0xC0000000u;

// PORT_SLOT_STAT
constexpr uint32_t SLOT_STAT_ATTN = 1u << 31, SLOT_MASK = 0x7FFFFFFFu;

// PORT_CONTEXT
constexpr uint32_t CTX_SLOT_MASK = 0x1F, CTX_PMP_SHIFT = 5, CTX_PMP_MASK = 0xFu << 5;

// SStatus / SControl / SError (docs/hardware.md 3)
constexpr uint32_t SCTL_DET_MASK = 0xF, SCTL_SPD_SHIFT = 4, SCTL_SPD_MASK = 0xF0;
constexpr uint32_t SERR_ERR_T = 1u << 8, SERR_ERR_C = 1u << 9, SERR_ERR_P = 1u << 10,
                   SERR_ERR_E = 1u << 11, SERR_DIAG_N = 1u << 16, SERR_DIAG_C = 1u << 21,
                   SERR_DIAG_H = 1u << 22, SERR_DIAG_T = 1u << 24, SERR_DIAG_F = 1u << 25,
                   SERR_DIAG_X = 1u << 26;

// ---- Port Request Block (host memory or LRAM) ----------------------------------------
constexpr uint32_t PRB_CTRL = 0x00, PRB_PROT = 0x02, PRB_XFER_CNT = 0x04, PRB_FIS = 0x08,
                   PRB_SGE0 = 0x20, PRB_SGE1 = 0x30, kPrbChunk = 0x40, kSgeSize = 16,
                   kPrbCdb = 0x20; // PACKET: the CDB where SGE 0 of an ATA command sits
// PRB control (16 bits)
constexpr uint16_t PRB_CTRL_PROTOCOL = 1u << 0, PRB_CTRL_RETRANSMIT = 1u << 1,
                   PRB_CTRL_EXT_CMD = 1u << 2, PRB_CTRL_RECEIVE = 1u << 3,
                   PRB_CTRL_PACKET_READ = 1u << 4, PRB_CTRL_PACKET_WRITE = 1u << 5,
                   PRB_CTRL_NIEN = 1u << 6, PRB_CTRL_SRST = 1u << 7;
// PRB protocol override (valid with PRB_CTRL_PROTOCOL)
constexpr uint16_t PRB_PROT_PACKET = 1u << 0, PRB_PROT_TCQ = 1u << 1, PRB_PROT_NCQ = 1u << 2,
                   PRB_PROT_READ = 1u << 3, PRB_PROT_WRITE = 1u << 4,
                   PRB_PROT_TRANSPARENT = 1u << 5;
// SGE dword 3 flags
constexpr uint32_t SGE_TRM = 1u << 31, SGE_LNK = 1u << 30, SGE_DRD = 1u << 29,
                   SGE_XCF = 1u << 28;

// ---- PORT_CMD_ERR codes ----------------------------------------------------------------
enum CmdErr : uint32_t {
    CERR_NONE = 0,
    CERR_DEV = 1,            // ERR in a D2H Register FIS
    CERR_SDB = 2,            // ERR in a Set Device Bits FIS
    CERR_DATA = 3,           // Data FIS transmission failed (R_ERR)
    CERR_SEND = 4,           // command FIS transmission failed
    CERR_INCONSISTENT = 5,   // FIS that does not fit the command's protocol
    CERR_DIRECTION = 6,      // data moving the other way than the PRB says
    CERR_UNDERRUN = 7,       // device wanted more data than the SGEs hold (write)
    CERR_OVERRUN = 8,        // device sent more data than the SGEs hold (read)
    CERR_LL_OVERRUN = 9,
    CERR_PKT_PROT = 11,
    CERR_SGT_BOUNDARY = 16,  // SGT not 8-byte aligned
    CERR_SGT_TGTABRT = 17,
    CERR_SGT_MSTABRT = 18,   // master abort fetching an SGT
    CERR_SGT_PCIPERR = 19,
    CERR_CMD_BOUNDARY = 24,  // PRB not 8-byte aligned
    CERR_CMD_TGTABRT = 25,
    CERR_CMD_MSTABRT = 26,   // master abort fetching the PRB
    CERR_CMD_PCIPERR = 27,
    CERR_XFR_UNDEF = 32,
    CERR_XFR_TGTABRT = 33,
    CERR_XFR_MSTABRT = 34,   // master abort moving data
    CERR_XFR_PCIPERR = 35,
    CERR_SENDSERVICE = 36,
};

} // namespace satasim::sil24::reg
