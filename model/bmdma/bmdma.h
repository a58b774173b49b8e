// Bus-master IDE DMA of one taskfile channel, as SFF-8038i rev 1.0 "Programming Interface
// for Bus Master IDE Controller" defines it (section numbers as recalled, unconfirmed:
// 2 Physical Region Descriptor, 3.1 Bus Master IDE Command register, 3.2 Bus Master IDE
// Status register, 3.3 Descriptor Table Pointer register; the Intel PIIX4 datasheet
// 82371AB 5.2.1-5.2.3 describes the same registers and was checked).
//
// Registers (8 bytes per channel, offsets from the channel's bus-master base):
//   +0 Command (8 bit): bit 0 Start/Stop, bit 3 Read/Write Control (1 = the controller
//      writes memory: a device-to-host transfer). Start 0->1 begins at the first PRD; 1->0
//      stops and loses all state (no resume); stopped while Active, before the device has
//      finished, the command is aborted and the data the drive still sends may be discarded
//      before it reaches memory (3.1, as recalled, unconfirmed).
//   +2 Status (8 bit): bit 0 Active (RO; set by Start, cleared when the last PRD (EOT) is
//      exhausted or by Stop), bit 1 Error (RWC: a bus master/target abort in a transfer;
//      the transfer stops and no interrupt is raised), bit 2 Interrupt (RWC: set on each
//      rising edge of the device's INTRQ, whether a DMA ran or not; a write of 1 while the
//      line is still high leaves it 0 until the next edge), bits 5/6 drive 0/1 DMA capable
//      (RW, software flags), bit 7 Simplex (RO).
//   +4 PRD Table Pointer (32 bit, bits 1:0 read 0): dword-aligned table of 8-byte PRDs,
//      each {dword 0: physical address (bit 0 must be 0), dword 1: bits 15:1 byte count
//      (0 = 64 KiB), bit 31 EOT}.
// Interrupt/Active after a transfer: 1/0 normal end (PRDs exactly the size of the
// transfer), 1/1 PRDs larger than the transfer, 0/0 with Error an aborted transfer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/bus/host_memory.h"
#include "model/bus/pci_function.h"

namespace satasim::bmdma {

namespace reg {
constexpr uint32_t kCommand = 0x0, kStatus = 0x2, kPrdTable = 0x4, kSize = 0x8;
constexpr uint8_t CMD_START = 1u << 0, CMD_WRITE_MEM = 1u << 3;
constexpr uint8_t ST_ACTIVE = 1u << 0, ST_ERROR = 1u << 1, ST_INTR = 1u << 2, ST_DMA0_CAP = 1u << 5,
                  ST_DMA1_CAP = 1u << 6, ST_SIMPLEX = 1u << 7;
constexpr uint32_t PRD_EOT = 1u << 31;
constexpr uint32_t kPrdMaxBytes = 0x10000; // a count of 0 means 64 KiB
} // namespace reg

class BmDma {
  public:
    // trace(event, detail): where the channel's model trace goes (may be empty).
    BmDma(bus::HostMemory &mem, std::function<void(const char *, const std::string &)> trace = {});

    // Register access at offsets 0..7 of the block (byte, word or dword).
    uint8_t read8(uint32_t off) const;
    void write8(uint32_t off, uint8_t val);
    uint32_t read32(uint32_t off) const;
    void write32(uint32_t off, uint32_t val);

    uint8_t command() const { return cmd_; }
    uint8_t status() const { return status_; }
    bool started() const { return cmd_ & reg::CMD_START; }
    // Start 0->1 edges so far (not a register: what the channel compares to tell an engine
    // that has not started yet for a command from one that ran and stopped).
    uint64_t starts() const { return starts_; }
    // Called on every Start 0->1 (the channel's bridge waits for it with data in hand).
    void add_start_listener(std::function<void()> fn) { on_start_.push_back(std::move(fn)); }
    bool active() const { return status_ & reg::ST_ACTIVE; }
    // Direction the software programmed: true = into memory (a read from the disk).
    bool to_memory() const { return cmd_ & reg::CMD_WRITE_MEM; }

    // The channel's data path. Each moves up to len bytes between buf and the regions the
    // PRDs describe, in order; returns the bytes moved. Fewer than len: the PRDs ended
    // (Active cleared), a PRD could not be fetched or a region is unmapped (Error set,
    // Active cleared), or the engine is not running.
    size_t write_memory(const uint8_t *buf, size_t len);
    size_t read_memory(uint8_t *buf, size_t len);
    // Bytes the PRDs still describe from the current position, up to limit (reads PRDs
    // ahead; an unreadable table counts as zero).
    size_t room(size_t limit) const;

    // The device's interrupt line as the channel sees it (level): a rising edge sets
    // Interrupt.
    void device_irq(bool level);
    // Fault hook: the next transfer in `dir` fails as a PCI master abort would (Error, Active
    // off); transfers the other way pass meanwhile. Dir is the order of bmdma_error's `dir`.
    enum class Dir : uint8_t { Any, ToDevice, ToMemory };
    void inject_error(Dir dir = Dir::Any) {
        fail_next_ = true;
        fail_dir_ = dir;
    }
    void reset();
    // The PCI function whose Bus Master Enable gates the engine's memory accesses (null: none,
    // the engine masters freely). Without it set, a fetch or a transfer is a master abort.
    void set_pci(bus::PciFunction *f) { pci_ = f; }

  private:
    bool mem_read(uint64_t addr, void *dst, size_t len) const;
    bool mem_write(uint64_t addr, const void *src, size_t len);
    struct Prd {
        uint32_t addr = 0, len = 0;
        bool eot = false;
    };
    bool load(uint32_t index, Prd &out) const;
    size_t move(uint8_t *buf, const uint8_t *src, size_t len, bool to_mem);
    void error(const std::string &why);

    bus::HostMemory &mem_;
    bus::PciFunction *pci_ = nullptr;
    std::function<void(const char *, const std::string &)> trace_;
    uint8_t cmd_ = 0, status_ = 0;
    uint32_t table_ = 0;
    // Position in the table: the PRD index and the bytes of it already moved.
    uint32_t prd_index_ = 0, prd_done_ = 0;
    bool irq_level_ = false;
    bool fail_next_ = false;
    Dir fail_dir_ = Dir::Any;
    uint64_t starts_ = 0;
    std::vector<std::function<void()>> on_start_;
};

} // namespace satasim::bmdma
