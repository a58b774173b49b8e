// Frame Information Structures as they cross the wire (SATA transport layer).
// Byte layouts per docs/hardware.md section 1; byte 0 of a FIS is the first byte sent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace satasim::sata {

enum class FisType : uint8_t {
    RegH2D = 0x27,
    RegD2H = 0x34,
    DmaActivate = 0x39,
    DmaSetup = 0x41,
    Data = 0x46,
    Bist = 0x58,
    PioSetup = 0x5F,
    SetDeviceBits = 0xA1,
};

// Byte-1 flag bits.
constexpr uint8_t kFisPmPortMask = 0x0F;
constexpr uint8_t kFisDirD2H = 0x20;   // D bit in DMA/PIO Setup: device-to-host
constexpr uint8_t kFisInterrupt = 0x40; // I bit
constexpr uint8_t kFisCommand = 0x80;   // C bit in H2D; A in DMA Setup; N in SDB

// ATA status / error bits.
constexpr uint8_t kAtaBsy = 0x80, kAtaDrdy = 0x40, kAtaDf = 0x20, kAtaDsc = 0x10,
                  kAtaDrq = 0x08, kAtaErr = 0x01;
// A device's status after a command: good (DRDY | DSC) or failed (DRDY | DSC | ERR).
constexpr uint8_t kAtaStatusGood = kAtaDrdy | kAtaDsc, kAtaStatusError = kAtaDrdy | kAtaDsc | kAtaErr;
constexpr uint8_t kAtaIcrc = 0x80, kAtaUnc = 0x40, kAtaIdnf = 0x10, kAtaAbrt = 0x04;
// Device-control bits (H2D byte 15).
constexpr uint8_t kAtaSrst = 0x04, kAtaNien = 0x02;

constexpr size_t kMaxDataFisPayload = 8192; // 2048 dwords

// A FIS is a whole number of dwords; bytes holds them little-endian.
struct Fis {
    std::vector<uint8_t> bytes;

    FisType type() const { return static_cast<FisType>(bytes.at(0)); }
    uint8_t pm_port() const { return bytes.at(1) & kFisPmPortMask; }
    size_t dwords() const { return bytes.size() / 4; }
    uint8_t at(size_t i) const { return bytes.at(i); }
    uint32_t dword(size_t i) const {
        return uint32_t(bytes.at(4 * i)) | uint32_t(bytes.at(4 * i + 1)) << 8 |
               uint32_t(bytes.at(4 * i + 2)) << 16 | uint32_t(bytes.at(4 * i + 3)) << 24;
    }
    // Data FIS payload (after the 1-dword header).
    const uint8_t *payload() const { return bytes.data() + 4; }
    uint8_t *payload() { return bytes.data() + 4; }
    size_t payload_size() const { return bytes.size() - 4; }
};

// The register view shared by H2D, D2H and PIO Setup FISes (same byte positions).
struct Taskfile {
    uint8_t command = 0;  // H2D byte 2; status in D2H / PIO Setup
    uint8_t feature = 0;  // H2D byte 3; error in D2H / PIO Setup
    uint8_t feature_hi = 0;
    uint64_t lba = 0;     // 48 bits
    uint8_t device = 0;
    uint16_t count = 0;
    uint8_t control = 0;  // H2D byte 15
    uint32_t aux = 0;     // H2D bytes 16-19: the Auxiliary field (SEND FPDMA QUEUED's TRIM bit)
};

// Builders. pm_port goes into byte 1 bits 3:0 of every FIS.
Fis make_reg_h2d(const Taskfile &tf, bool command_bit, uint8_t pm_port = 0);
Fis make_reg_d2h(uint8_t status, uint8_t error, uint64_t lba, uint8_t device, uint16_t count,
                 bool irq, uint8_t pm_port = 0);
Fis make_pio_setup(bool d2h, bool irq, uint8_t status, uint8_t error, uint8_t e_status,
                   uint16_t xfer_count, const Taskfile &regs, uint8_t pm_port = 0);
Fis make_dma_activate(uint8_t pm_port = 0);
Fis make_dma_setup(bool d2h, bool irq, bool auto_activate, uint8_t tag, uint32_t offset,
                   uint32_t count, uint8_t pm_port = 0);
Fis make_sdb(uint8_t status, uint8_t error, uint32_t sactive, bool irq, bool notify,
             uint8_t pm_port = 0);
// payload is padded with zeros to a dword multiple.
Fis make_data(const uint8_t *payload, size_t len, uint8_t pm_port = 0);
// A Data FIS of len payload bytes, all zero (padded to a dword multiple), for the caller to
// fill in place through payload(): saves a copy when the data comes from elsewhere.
Fis make_data_zeroed(size_t len, uint8_t pm_port = 0);
// The FIS's dwords (little-endian, as dword(i) reads them) into out[0 .. dwords()).
void fis_to_dwords(const Fis &fis, uint32_t *out);
// n dwords, little-endian, as a FIS's bytes (the inverse of fis_to_dwords).
void fis_from_dwords(Fis &fis, const uint32_t *dw, size_t n);

// Parsers for the register view (H2D: command/features; D2H and PIO Setup: status/error).
Taskfile parse_taskfile(const Fis &fis);
// Fixed length in bytes of a FIS type, or 0 for Data (variable) and unknown types.
size_t fis_fixed_length(FisType type);
// A received frame's length fits its type: whole dwords, a Data FIS with 1..2048 payload
// dwords, a fixed-length type exactly its length (what a host's transport layer checks
// before it takes a FIS; unknown types pass).
bool fis_well_formed(const Fis &fis);
// Short human description for traces: "H2D cmd=0x25 lba=0 count=8".
std::string describe(const Fis &fis);

} // namespace satasim::sata
