// AHCI 1.3.1 register map, bit names and memory-structure layouts (docs/hardware.md section 5),
// shared by the HBA model and its tests. Names follow the spec's register mnemonics.
#pragma once

#include <cstdint>

namespace satasim::ahci::reg {

// ---- Generic host control (offsets in the ABAR) -------------------------------------
constexpr uint32_t CAP = 0x00, GHC = 0x04, IS = 0x08, PI = 0x0C, VS = 0x10, CCC_CTL = 0x14,
                   CCC_PORTS = 0x18, EM_LOC = 0x1C, EM_CTL = 0x20, CAP2 = 0x24, BOHC = 0x28;

constexpr uint32_t kPortBase = 0x100, kPortStride = 0x80;
constexpr uint32_t port_base(unsigned n) { return kPortBase + kPortStride * n; }

// CAP
constexpr uint32_t CAP_NP_MASK = 0x1F, CAP_SXS = 1u << 5, CAP_EMS = 1u << 6, CAP_CCCS = 1u << 7,
                   CAP_NCS_SHIFT = 8, CAP_NCS_MASK = 0x1Fu << 8, CAP_PSC = 1u << 13,
                   CAP_SSC = 1u << 14, CAP_PMD = 1u << 15, CAP_FBSS = 1u << 16,
                   CAP_SPM = 1u << 17, CAP_SAM = 1u << 18, CAP_ISS_SHIFT = 20,
                   CAP_ISS_MASK = 0xFu << 20, CAP_SCLO = 1u << 24, CAP_SAL = 1u << 25,
                   CAP_SALP = 1u << 26, CAP_SSS = 1u << 27, CAP_SMPS = 1u << 28,
                   CAP_SSNTF = 1u << 29, CAP_SNCQ = 1u << 30, CAP_S64A = 1u << 31;
// CAP2 (AHCI 1.3.1 3.1.10)
constexpr uint32_t CAP2_BOH = 1u << 0, CAP2_NVMP = 1u << 1, CAP2_APST = 1u << 2, CAP2_SDS = 1u << 3,
                   CAP2_SADM = 1u << 4, CAP2_DESO = 1u << 5;
// GHC
constexpr uint32_t GHC_HR = 1u << 0, GHC_IE = 1u << 1, GHC_MRSM = 1u << 2, GHC_AE = 1u << 31;

// ---- Port registers (offsets from port_base(n)) --------------------------------------
constexpr uint32_t PxCLB = 0x00, PxCLBU = 0x04, PxFB = 0x08, PxFBU = 0x0C, PxIS = 0x10,
                   PxIE = 0x14, PxCMD = 0x18, PxTFD = 0x20, PxSIG = 0x24, PxSSTS = 0x28,
                   PxSCTL = 0x2C, PxSERR = 0x30, PxSACT = 0x34, PxCI = 0x38, PxSNTF = 0x3C,
                   PxFBS = 0x40, PxDEVSLP = 0x44;

// PxIS / PxIE
constexpr uint32_t IS_DHRS = 1u << 0, IS_PSS = 1u << 1, IS_DSS = 1u << 2, IS_SDBS = 1u << 3,
                   IS_UFS = 1u << 4, IS_DPS = 1u << 5, IS_PCS = 1u << 6, IS_DMPS = 1u << 7,
                   IS_PRCS = 1u << 22, IS_IPMS = 1u << 23, IS_OFS = 1u << 24,
                   IS_INFS = 1u << 26, IS_IFS = 1u << 27, IS_HBDS = 1u << 28,
                   IS_HBFS = 1u << 29, IS_TFES = 1u << 30, IS_CPDS = 1u << 31;
constexpr uint32_t IE_WRITABLE = 0xFDC000FF;
// PxIS bits that mirror PxSERR bits (cleared by clearing the SError bit, not by RW1C).
constexpr uint32_t IS_MIRRORED = IS_UFS | IS_PCS | IS_PRCS;

// PxCMD
constexpr uint32_t CMD_ST = 1u << 0, CMD_SUD = 1u << 1, CMD_POD = 1u << 2, CMD_CLO = 1u << 3,
                   CMD_FRE = 1u << 4, CMD_CCS_SHIFT = 8, CMD_CCS_MASK = 0x1Fu << 8,
                   CMD_MPSS = 1u << 13, CMD_FR = 1u << 14, CMD_CR = 1u << 15,
                   CMD_CPS = 1u << 16, CMD_PMA = 1u << 17, CMD_HPCP = 1u << 18,
                   CMD_MPSP = 1u << 19, CMD_CPD = 1u << 20, CMD_ESP = 1u << 21,
                   CMD_FBSCP = 1u << 22, CMD_APSTE = 1u << 23, CMD_ATAPI = 1u << 24,
                   CMD_DLAE = 1u << 25, CMD_ALPE = 1u << 26, CMD_ASP = 1u << 27,
                   CMD_ICC_SHIFT = 28, CMD_ICC_MASK = 0xFu << 28;

// PxTFD
constexpr uint32_t TFD_STS_MASK = 0xFF, TFD_ERR_SHIFT = 8, TFD_ERR_MASK = 0xFF00;
constexpr uint32_t TFD_RESET = 0x7F;

// PxSERR
constexpr uint32_t SERR_ERR_I = 1u << 0, SERR_ERR_M = 1u << 1, SERR_ERR_T = 1u << 8,
                   SERR_ERR_C = 1u << 9, SERR_ERR_P = 1u << 10, SERR_ERR_E = 1u << 11,
                   SERR_DIAG_N = 1u << 16, SERR_DIAG_I = 1u << 17, SERR_DIAG_W = 1u << 18,
                   SERR_DIAG_B = 1u << 19, SERR_DIAG_D = 1u << 20, SERR_DIAG_C = 1u << 21,
                   SERR_DIAG_H = 1u << 22, SERR_DIAG_S = 1u << 23, SERR_DIAG_T = 1u << 24,
                   SERR_DIAG_F = 1u << 25, SERR_DIAG_X = 1u << 26;

// PxSCTL
constexpr uint32_t SCTL_DET_MASK = 0xF, SCTL_SPD_SHIFT = 4, SCTL_SPD_MASK = 0xF0,
                   SCTL_WRITABLE = 0x000FFFFF;
// PxSCTL.IPM (AHCI 1.3.1 3.3.11): transitions the HBA may not take or accept.
constexpr uint32_t SCTL_IPM_NO_PARTIAL = 1u << 8, SCTL_IPM_NO_SLUMBER = 2u << 8,
                   SCTL_IPM_NO_DEVSLP = 4u << 8;
// PxCMD.ICC values (AHCI 1.3.1 3.3.7): what software asks the interface to do.
constexpr uint32_t ICC_IDLE = 0, ICC_ACTIVE = 1, ICC_PARTIAL = 2, ICC_SLUMBER = 6, ICC_DEVSLEEP = 8;

// PxDEVSLP (AHCI 1.3.1 3.3.17): ADSE aggressive DevSleep enable, DSP DevSleep present,
// DETO exit timeout (ms), MDAT minimum assertion time (ms), DITO idle timeout (units of DM+1
// ms), DM the DITO multiplier (read-only).
constexpr uint32_t DEVSLP_ADSE = 1u << 0, DEVSLP_DSP = 1u << 1, DEVSLP_DETO_SHIFT = 2,
                   DEVSLP_DETO_MASK = 0xFFu << 2, DEVSLP_MDAT_SHIFT = 10, DEVSLP_MDAT_MASK = 0x1Fu << 10,
                   DEVSLP_DITO_SHIFT = 15, DEVSLP_DITO_MASK = 0x3FFu << 15, DEVSLP_DM_SHIFT = 25,
                   DEVSLP_DM_MASK = 0xFu << 25;

// PxFBS
constexpr uint32_t FBS_EN = 1u << 0, FBS_DEC = 1u << 1, FBS_SDE = 1u << 2,
                   FBS_DEV_SHIFT = 8, FBS_DEV_MASK = 0xFu << 8, FBS_ADO_SHIFT = 12,
                   FBS_ADO_MASK = 0xFu << 12, FBS_DWE_SHIFT = 16, FBS_DWE_MASK = 0xFu << 16;

// ---- Memory structures ---------------------------------------------------------------
constexpr uint32_t kClbAlignMask = 0xFFFFFC00; // PxCLB bits 9:0 reserved (1 KiB)
constexpr uint32_t kFbAlignMask = 0xFFFFFF00;  // PxFB bits 7:0 reserved (256 B)
constexpr uint32_t kFbAlignMaskFbs = 0xFFFFF000; // 4 KiB when FBS is enabled

constexpr uint32_t kCmdHeaderSize = 32;
// Command header dword 0
constexpr uint32_t HDR_CFL_MASK = 0x1F, HDR_A = 1u << 5, HDR_W = 1u << 6, HDR_P = 1u << 7,
                   HDR_R = 1u << 8, HDR_B = 1u << 9, HDR_C = 1u << 10, HDR_PMP_SHIFT = 12,
                   HDR_PMP_MASK = 0xFu << 12, HDR_PRDTL_SHIFT = 16;
constexpr uint32_t kCtbaAlignMask = 0xFFFFFF80; // 128-byte aligned command tables

// Command table
constexpr uint32_t CT_CFIS = 0x00, CT_ACMD = 0x40, CT_PRDT = 0x80, kPrdSize = 16;
constexpr uint32_t PRD_DBC_MASK = 0x3FFFFF, PRD_I = 1u << 31;

// Received FIS area
constexpr uint32_t RX_DSFIS = 0x00, RX_PSFIS = 0x20, RX_RFIS = 0x40, RX_SDBFIS = 0x58,
                   RX_UFIS = 0x60, kRxFisSize = 0x100, kUfisMax = 64;
// With PxFBS.EN: one 256-byte area per PM port, 16 of them (4 KiB, 4 KiB aligned).
constexpr uint32_t kRxFisSizeFbs = 16 * kRxFisSize;

} // namespace satasim::ahci::reg
