// A PCI function's configuration space (PCI Local Bus 3.0 chapter 6, a type 0 header), as
// every controller model has one (docs/hardware.md 12):
//   - the identity (6.2.1): vendor, device, revision, class code, subsystem IDs, all read-only;
//   - Command / Status (6.2.2, 6.2.3): I/O space, memory space and bus-master enable, interrupt
//     disable; Status' capabilities-list and interrupt bits read-only, its error bits RW1C;
//   - the Base Address Registers (6.2.5.1): memory (32 or 64 bit) or I/O, sized by the
//     hardwired low bits (software writes all ones and reads back the size mask);
//   - Interrupt Line (RW, the firmware's routing) and Interrupt Pin (RO, 6.2.4);
//   - a capability list (6.7) walkable from Capabilities Pointer 34h: PCI Power Management
//     (PCI PM 1.2 chapter 3: PMC, PMCSR with the power state; a function out of D0 decodes
//     only configuration cycles), MSI (6.8.1: Message Control with Multiple Message
//     Capable/Enable and the 64-bit bit, Message Address, Message Data) and any capability the
//     part has that the model does not implement (its ID and next pointer, the body reading 0).
// The function decodes its BARs only with the matching enable set and in D0; it masters the bus
// only with bus-master enable; its interrupt goes out as INTx (level, unless Interrupt Disable)
// or, once MSI is enabled, as message writes (interrupt() below). Everything not implemented
// reads 0 and ignores writes, as PCI requires of reserved registers.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace satasim::bus {

namespace pci {
// Configuration register offsets (6.1) and bits (6.2).
constexpr unsigned kVendorId = 0x00, kDeviceId = 0x02, kCommand = 0x04, kStatus = 0x06, kRevision = 0x08,
                   kProgIf = 0x09, kSubclass = 0x0a, kClass = 0x0b, kCacheLine = 0x0c, kLatency = 0x0d,
                   kHeaderType = 0x0e, kBar0 = 0x10, kSubsysVendor = 0x2c, kSubsysId = 0x2e, kRomBase = 0x30,
                   kCapPtr = 0x34, kIntLine = 0x3c, kIntPin = 0x3d, kMinGnt = 0x3e, kMaxLat = 0x3f;
constexpr uint16_t CMD_IO = 1u << 0, CMD_MEMORY = 1u << 1, CMD_MASTER = 1u << 2, CMD_PARITY = 1u << 6,
                   CMD_SERR = 1u << 8, CMD_INTX_DISABLE = 1u << 10;
constexpr uint16_t STATUS_INTERRUPT = 1u << 3, STATUS_CAP_LIST = 1u << 4, STATUS_66MHZ = 1u << 5,
                   STATUS_DEVSEL_MEDIUM = 1u << 9, STATUS_SIG_TARGET_ABORT = 1u << 11,
                   STATUS_REC_TARGET_ABORT = 1u << 12, STATUS_REC_MASTER_ABORT = 1u << 13,
                   STATUS_SIG_SYSTEM_ERROR = 1u << 14, STATUS_DETECTED_PARITY = 1u << 15,
                   STATUS_MASTER_PARITY = 1u << 8;
constexpr uint16_t STATUS_RW1C = STATUS_MASTER_PARITY | STATUS_SIG_TARGET_ABORT | STATUS_REC_TARGET_ABORT |
                                 STATUS_REC_MASTER_ABORT | STATUS_SIG_SYSTEM_ERROR | STATUS_DETECTED_PARITY;
// BAR low bits (6.2.5.1).
constexpr uint32_t BAR_IO = 1u << 0, BAR_MEM_64 = 2u << 1, BAR_PREFETCH = 1u << 3;
// Capability IDs (PCI 3.0 appendix H).
constexpr uint8_t CAP_PM = 0x01, CAP_PCIX = 0x07, CAP_MSI = 0x05, CAP_SATA = 0x12, CAP_AF = 0x13;
// PM (PCI PM 1.2 3.2.3, 3.2.4): PMC version 011b = 1.2, D1/D2 support; PMCSR power state, PME.
constexpr uint16_t PMC_VERSION_1_2 = 3, PMC_VERSION_1_1 = 2, PMC_D1 = 1u << 9, PMC_D2 = 1u << 10;
constexpr uint16_t PMCSR_STATE = 3u, PMCSR_NO_SOFT_RESET = 1u << 3, PMCSR_PME_EN = 1u << 8,
                   PMCSR_PME_STATUS = 1u << 15;
// MSI Message Control (6.8.1.3).
constexpr uint16_t MSI_ENABLE = 1u << 0, MSI_MMC_SHIFT = 1, MSI_MME_SHIFT = 4, MSI_64BIT = 1u << 7;
} // namespace pci

// One BAR of the part.
struct PciBar {
    enum class Kind : uint8_t { None, Mem32, Mem64, Io };
    Kind kind = Kind::None;
    uint32_t size = 0; // bytes, a power of two (memory at least 16, I/O at least 4)
    bool prefetchable = false;
};

// A capability the model lists but does not implement (PCI-X, SATA, Advanced Features): its ID,
// where it sits and how many bytes it spans; the body reads 0 except `body` (the dwords after
// the header, read-only, e.g. the SATA capability's revision).
struct PciOpaqueCap {
    uint8_t id = 0;
    uint8_t offset = 0;
    uint8_t length = 4;
    std::vector<uint8_t> body; // bytes from offset + 2
};

// A device-specific register (offset 40h and up, outside the capabilities): its reset value
// and the bits software may write (e.g. the PIIX's IDE timing registers).
struct PciDevReg {
    uint8_t offset = 0;
    uint8_t size = 1; // bytes, at most 4
    uint32_t value = 0, wmask = 0;
};

// Everything the part's configuration space holds at power-on (each model's <model>_pci.cpp).
struct PciSpec {
    uint16_t vendor = 0, device = 0;
    uint8_t revision = 0;
    uint32_t class_code = 0; // base class << 16 | subclass << 8 | programming interface
    uint16_t subsys_vendor = 0, subsys_id = 0;
    uint8_t interrupt_pin = 1; // 1 = INTA#, 0: the function uses no INTx pin (legacy IRQ 14/15)
    // A compatibility-mode IDE function: its channels drive ISA IRQ 14/15 directly, not a PCI
    // pin, so the interrupt leaves whatever Interrupt Disable and MSI say (the intx sink then
    // carries those legacy lines).
    bool legacy_irq = false;
    uint8_t min_gnt = 0, max_lat = 0;
    bool status_66mhz = false;
    std::array<PciBar, 6> bars{};
    uint32_t rom_size = 0; // expansion ROM (0: none)
    // Capabilities, walked in list order from Capabilities Pointer: the offsets below place
    // each (0: absent); `order` lists the IDs in list order (PM, MSI, opaque ones by ID).
    uint8_t pm_offset = 0;
    uint16_t pmc = 0;      // the PM Capabilities register (version, D1/D2, PME support)
    bool pm_no_soft_reset = false;
    uint8_t msi_offset = 0;
    unsigned msi_log2_vectors = 0; // Multiple Message Capable (0: one message)
    bool msi_64bit = false;
    std::vector<PciOpaqueCap> opaque;
    std::vector<uint8_t> order; // capability offsets in list order (the first is Capabilities Pointer)
    std::vector<PciDevReg> dev_regs;
};

// Configuration cycles to one function, whoever implements it (a model's PciFunction, QEMU's
// configuration space through ports CF8h/CFCh): what the stack's platform hands on.
class PciConfigPort {
  public:
    virtual ~PciConfigPort() = default;
    virtual uint32_t pci_config_read(unsigned off, unsigned size) = 0;
    virtual void pci_config_write(unsigned off, unsigned size, uint32_t val) = 0;
};

class PciFunction : public PciConfigPort {
  public:
    explicit PciFunction(const PciSpec &spec);
    uint32_t pci_config_read(unsigned off, unsigned size) override { return config_read(off, size); }
    void pci_config_write(unsigned off, unsigned size, uint32_t val) override { config_write(off, size, val); }

    const PciSpec &spec() const { return spec_; }

    // Configuration cycles: size 1, 2 or 4 at an offset aligned to it, within the 256 bytes.
    uint32_t config_read(unsigned off, unsigned size) const;
    void config_write(unsigned off, unsigned size, uint32_t val);

    // Power-on (RST#): every register back to its default, MSI off, D0.
    void reset();
    // The device-specific registers (PciSpec::dev_regs) back to their reset values.
    void reset_dev_regs();
    // Called after each configuration write, with its offset and size (the model of a part
    // whose device-specific registers change what it does: the PIIX's timing).
    using WriteHook = std::function<void(unsigned off, unsigned size)>;
    void set_write_hook(WriteHook h) { write_hook_ = std::move(h); }

    // What the function does on the bus now.
    uint16_t command() const { return uint16_t(rd(pci::kCommand, 2)); }
    bool memory_decode() const { return (command() & pci::CMD_MEMORY) && power_state() == 0; }
    bool io_decode() const { return (command() & pci::CMD_IO) && power_state() == 0; }
    bool bus_master() const { return (command() & pci::CMD_MASTER) && power_state() == 0; }
    unsigned power_state() const; // PMCSR 1:0 (D0..D3hot); 0 without the PM capability
    // A BAR's address as software programmed it (low flag bits cleared; 64-bit BARs combine
    // both dwords); 0 for an absent BAR.
    uint64_t bar_address(unsigned n) const;

    // MSI state (6.8.1).
    bool msi_enabled() const;
    uint64_t msi_address() const;
    uint16_t msi_data() const;
    unsigned msi_vectors_enabled() const; // 1 << MME

    // The function's interrupt condition (the OR of its sources), level. With MSI enabled a
    // rising condition sends one message (the message sink below); otherwise INTx follows the
    // condition unless Interrupt Disable is set. Status.Interrupt reflects the condition
    // either way (6.2.3).
    void interrupt(bool asserted);
    bool intx_asserted() const { return intx_; }
    // Where MSI messages go: a dword memory write of data to address (the host's interrupt
    // controller decodes it). INTx changes go to the intx sink.
    using MsiSink = std::function<void(uint64_t address, uint32_t data)>;
    using IntxSink = std::function<void(bool level)>;
    void set_msi_sink(MsiSink s) { msi_sink_ = std::move(s); }
    void set_intx_sink(IntxSink s) { intx_sink_ = std::move(s); }
    uint64_t msi_messages_sent() const { return msi_sent_; }

    // A master abort the function received (its DMA hit nothing): Status bit 13.
    void note_master_abort();

  private:
    uint32_t rd(unsigned off, unsigned size) const;
    void wr_raw(unsigned off, unsigned size, uint32_t val);
    void update_intx();

    PciSpec spec_;
    std::array<uint8_t, 256> cfg_{};   // current values
    std::array<uint8_t, 256> wmask_{}; // bits software may write
    std::array<uint8_t, 256> w1c_{};   // bits a written 1 clears
    bool cond_ = false; // the interrupt condition
    bool intx_ = false; // the INTx pin's level
    uint64_t msi_sent_ = 0;
    MsiSink msi_sink_;
    IntxSink intx_sink_;
    WriteHook write_hook_;
};

// Enables a function as a driver does before using it (pci_enable_device + pci_set_master:
// memory and I/O decode for the BARs it has, bus mastering): for model tests that drive a
// controller without the stack's probe.
void pci_enable_for_test(PciFunction &f);

} // namespace satasim::bus
