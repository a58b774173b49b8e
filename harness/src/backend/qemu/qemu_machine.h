// The QEMU backend: the same stack, workloads, verification, trace and result code as the
// SystemC backend, with the hardware replaced by QEMU's q35 ICH9 AHCI driven over qtest.
//
// Design (see also docs/qemu-backend.md):
//   - Hardware. QemuMachine starts qemu-system-x86_64 (q35, -S, no guest code), finds the
//     AHCI function 8086:2922 by PCI config cycles (ports 0xcf8/0xcfc) and does the
//     firmware's part: BAR5 (ABAR), BAR4, Interrupt Line. The stack's PCI probe reaches the
//     same configuration space through pci_config_read/write (the platform's), reads QEMU's
//     IDs, sizes its BARs and enables memory decoding and bus mastering itself, as on the
//     models (docs/hardware.md 12.7). MMIO is qtest readl/writel at
//     ABAR + offset (writes are posted: pipelined, sent before the next read or idle).
//   - DMA memory. A bus::HostMemory allocator whose bus addresses are guest-physical RAM
//     addresses (0x10000000..0x80000000 of a 2 GiB guest): its regions are the host-side
//     shadows; dma_sync_for_device copies a range to guest RAM, dma_sync_for_cpu reads it
//     back. Guest RAM is a shared file (memory-backend-file, share=on) that this process
//     maps too, so the copies are memcpy; with SATASIM_QEMU_DMA=qtest they go through the
//     qtest memory commands instead (b64write pipelined, b64read), which is much slower
//     for large buffers (QEMU reads the qtest socket 1 KiB per main-loop pass).
//   - Interrupts. `irq_intercept_in ioapic`; QEMU's "IRQ raise/lower 16" lines drive a
//     bus::IrqLine, so PlatformBinding's interrupt method runs the stack's handler exactly
//     as on the simulator.
//   - Contexts and time. The SystemC kernel is kept purely as the cooperative scheduler of
//     the stack's process contexts (submitters, EH thread), its timers and completions: the
//     same PlatformBinding serves both backends. QemuPoller is one more SystemC thread: when
//     no process can run at the current instant it flushes posted requests and blocks on
//     the qtest socket for at most min(time to the next timed event, 1 ms) of wall time,
//     then advances simulated time by the wall time it waited. So simulated time tracks
//     wall time while the stack waits for QEMU, timers (command timeouts, EH sleeps) fire
//     at the right simulated time, and no simulated time passes while the stack computes.
//     When QEMU is quiescent (no command in flight on any port: all PxCI and PxSACT zero)
//     after a 100 us poll, nothing can come from it, so the poller jumps straight to the
//     next timed event: the stack's reset and EH sleeps cost no wall time.
//     QEMU's own virtual clock is not stepped: with -S and no vCPU, QEMU's AHCI and block
//     layer complete I/O from its main loop in real time, not on virtual-clock timers.
//   - ATAPI drives (devices[].atapi). An ide-cd per drive on a raw disc image written from
//     atapi::disc_block (the model's disc data); tray events through QMP (qmp_client.h), the
//     tray and medium read back from query-block after each (docs/qemu-backend.md).
//   - Losing QEMU mid-run (it died, or the qtest connection broke). The accessors the stack
//     and the poller call never throw: an exception cannot be unwound through the C stack's
//     frames and the SystemC kernel. The machine reports the loss once through the on-lost
//     callback (the run fails naming how QEMU ended, and the simulation stops) and from
//     then on behaves as a PCI function that fell off the bus: reads return all ones,
//     writes and DMA syncs are dropped.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/mmio.h"
#include "backend/platform_binding.h"
#include "backend/qemu/qmp_client.h"
#include "backend/qemu/qtest_client.h"
#include "scenario/scenario.h"

namespace satasim::harness {

// qemu-system-x86_64 to run: $SATASIM_QEMU or the one on PATH.
std::string qemu_binary();

class QemuMachine : public bus::MmioTarget, public DmaSyncHook, public bus::PciConfigPort {
  public:
    static constexpr uint64_t kAbar = 0xe0000000ull;
    static constexpr uint64_t kDmaBase = 0x10000000ull;
    static constexpr uint64_t kDmaLimit = 0x80000000ull;
    static constexpr int kIrqLine = 16; // IOAPIC input of the AHCI function's INTx
    static constexpr uint32_t kIdpPort = 0xc000; // BAR4 (I/O): where the firmware puts it

    // Creates the disk images in work_dir, starts QEMU and sets up the PCI function.
    // Throws QtestError (or std::runtime_error) naming what failed.
    QemuMachine(const Scenario &sc, const std::string &work_dir, uint32_t port_mask);
    ~QemuMachine() override;

    bus::HostMemory &mem() { return mem_; }
    bus::IrqLine &irq() { return irq_; }
    QtestClient &client() { return client_; }
    std::string pci_summary() const { return pci_summary_; }

    // Called once, with the reason, when QEMU is lost during the run (see above).
    using LostFn = std::function<void(const std::string &reason)>;
    void set_on_lost(LostFn fn) { on_lost_ = std::move(fn); }

    // bus::MmioTarget
    uint32_t mmio_read32(uint32_t off) override;
    void mmio_write32(uint32_t off, uint32_t val) override;
    uint8_t mmio_read8(uint32_t off) override;
    uint16_t mmio_read16(uint32_t off) override;
    void mmio_write8(uint32_t off, uint8_t val) override;
    void mmio_write16(uint32_t off, uint16_t val) override;
    // DmaSyncHook
    void to_device(uint64_t bus, const void *cpu, size_t len) override;
    void to_cpu(uint64_t bus, void *cpu, size_t len) override;
    // bus::PciConfigPort: the AHCI function's configuration space in QEMU, by configuration
    // mechanism #1 (CF8h address, CFCh data; narrow accesses as a dword read and merge)
    uint32_t pci_config_read(unsigned off, unsigned size) override;
    void pci_config_write(unsigned off, unsigned size, uint32_t val) override;

    // Poller support: block up to timeout_ns for an interrupt change; level changes seen
    // while deferring are applied by apply_irq().
    bool wait_async(uint64_t timeout_ns);
    void set_defer_irq(bool d) { defer_irq_ = d; }
    void apply_irq();
    // True if QEMU has no command in flight on the ports in use (every PxCI and PxSACT
    // zero) and the interrupt line is as last applied: nothing can arrive from QEMU.
    bool quiescent();

    // Stops QEMU and removes the disk images.
    void shutdown();

    // The ide-cd drive on a port (devices[].atapi): a tray event through QMP, as
    // HardwareView::atapi_event describes it (open, close, remove, change to a new disc image
    // written from the disc of seed/blocks). False: no drive there, or QEMU refused (a medium
    // locked by PREVENT ALLOW MEDIUM REMOVAL: the open only raised an eject request).
    bool tray_event(unsigned port, const std::string &action, uint64_t seed, uint32_t blocks);
    // The disc the drive on a port reads now (none: no drive there, tray open or empty).
    std::optional<uint64_t> disc_seed(unsigned port) const;
    // The last QMP failure of a tray event (empty if none), for the run's log.
    const std::string &tray_error() const { return tray_error_; }

  private:
    uint32_t pci_read(unsigned dev, unsigned fn, unsigned reg);
    void pci_write(unsigned dev, unsigned fn, unsigned reg, uint32_t val);
    void on_irq(int line, bool level);
    void lose(const std::string &reason);
    bool check_alive();  // false (and the loss reported) once the client has failed
    void require_ok();   // setup only: throws QtestError naming the client's failure

    // An ATAPI drive's medium as QEMU reports it (query-block) and the disc it holds.
    struct Cdrom {
        std::string qdev;       // the ide-cd's qdev id
        uint64_t seed = 0;      // disc of the last image inserted
        bool inserted = false;  // a medium in the drive (tray open or closed)
        bool tray_open = false;
    };
    std::string write_disc_image(const std::string &name, uint64_t seed, uint32_t blocks);
    bool refresh_cdrom(Cdrom &cd);

    QtestClient client_;
    QmpClient qmp_;
    std::map<unsigned, Cdrom> cdroms_;
    std::string work_dir_;
    unsigned images_written_ = 0;
    std::string tray_error_;
    bus::HostMemory mem_;
    bus::IrqLine irq_;
    std::vector<std::string> images_;
    std::string pci_summary_;
    bool defer_irq_ = false;
    bool irq_level_ = false;
    std::string ram_path_;        // guest RAM file, shared with QEMU (empty: qtest DMA)
    uint8_t *ram_ = nullptr;      // its mapping
    size_t ram_size_ = 0;
    std::vector<uint64_t> busy_regs_; // PxCI and PxSACT of the ports in use
    unsigned dev_ = 0, fn_ = 0;        // the AHCI function's device and function on bus 0
    bool lost_ = false;
    LostFn on_lost_;
};

// The SystemC thread that waits for QEMU when nothing else can run (see above).
class QemuPoller : public sc_core::sc_module {
  public:
    SC_HAS_PROCESS(QemuPoller);
    QemuPoller(sc_core::sc_module_name name, QemuMachine &m);
    uint64_t polls() const { return polls_; }
    double wall_waited_s() const { return waited_ns_ / 1e9; }

  private:
    void run();
    QemuMachine &m_;
    uint64_t polls_ = 0;
    uint64_t waited_ns_ = 0;
};

} // namespace satasim::harness
