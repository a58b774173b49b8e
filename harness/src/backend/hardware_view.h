// What a backend's hardware shows the runner beyond the stack's platform (backend.h): the
// interrupt line and host memory for directed steps, the disks' media for the data check,
// the fault engine's firings, whether the hardware has come to rest, the device side of a
// link. run/ reads the hardware through this and the platform only, so it names no backend
// (docs/architecture.md, "Who may include whom").
//
// Each backend implements what its hardware allows: the SystemC models all of it, the RTL
// shell the same over its DUT (the device side, memory and faults are the SystemC models'),
// QEMU the interrupt line, guest memory and its ide-cd trays (QMP). The defaults say "not there" (no readable
// media, no fault engine, always at rest, no device link); a step or scenario that needs
// what a backend lacks is refused or skipped by its rules (rules.h), never run against a
// default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <systemc>

namespace satasim::device {
class MediaStore;
}
namespace satasim::sata {
struct Fis;
}

namespace satasim::harness {

struct DevAddr;

// The scenario's faults (Scenario::faults, by index) as the hardware's fault engine runs
// them.
class FaultEngine {
  public:
    virtual ~FaultEngine() = default;
    // The workload starts now: triggers that count from the workload start begin counting.
    virtual void workload_started() = 0;
    // Starts one fault's trigger now (a directed `inject` step).
    virtual void start(size_t fault) = 0;
    // How often the fault fired so far.
    virtual unsigned fired(size_t fault) const = 0;
    // Time-triggered firings still to come (faults firing for ever not counted).
    virtual bool time_firings_pending() const = 0;
    // Notified whenever a fault fires (and when the time schedule runs out).
    virtual const sc_core::sc_event &fired_event() const = 0;
};

class HardwareView {
  public:
    virtual ~HardwareView() = default;

    // The controller's interrupt line as the platform's interrupt method sees it, and the
    // event notified on every change of its level.
    virtual bool irq_level() const = 0;
    virtual const sc_core::sc_event &irq_changed_event() const = 0;

    // Host memory as the controller's DMA master sees it, from the stack's DMA allocator:
    // a zeroed region of `size` bytes (its bus address); bytes written where the
    // controller reads them, bytes read as it wrote them. False: a byte lies outside every
    // region (nothing is touched).
    virtual uint64_t mem_alloc(size_t size, size_t align) = 0;
    virtual bool mem_write(uint64_t bus, const void *src, size_t len) = 0;
    virtual bool mem_read(uint64_t bus, void *dst, size_t len) = 0;

    // The media of the disk at an address, read behind the controller's back (the data
    // check; a never-written sector's pattern). Null: no disk model there.
    virtual const device::MediaStore *media(const DevAddr &) const { return nullptr; }

    // The ATAPI drive at an address (devices[].atapi): a tray event (open, close, remove, or
    // change to the disc of seed/blocks); false: no ATAPI model there, or the drive refused
    // (an eject while medium removal is prevented).
    virtual bool atapi_event(const DevAddr &, const std::string & /*action*/, uint64_t /*seed*/,
                             uint32_t /*blocks*/) {
        return false;
    }
    // The seed of the disc the drive reads now (its data is atapi::disc_block(seed, lba));
    // none: no ATAPI model there, or no medium.
    virtual std::optional<uint64_t> atapi_disc_seed(const DevAddr &) const { return std::nullopt; }

    // The fault engine (null: the scenario has no faults, or the backend has no engine).
    virtual FaultEngine *faults() { return nullptr; }

    // False while the hardware still moves and may yet raise an interrupt on its own (the
    // RTL shell's clock runs). Hardware whose interrupts follow their cause in the same
    // delta cycles (the SystemC models), or which the backend waits for itself (QEMU's
    // poller), is always at rest when the runner looks.
    virtual bool quiet() const { return true; }

    // True: no register can change before the next MMIO access (nothing in flight, the
    // interrupt line as last seen), so a directed poll that does not match may skip to its
    // deadline and read once more there: the same outcome without a read per interval.
    // False (the default): the hardware may move on its own (timed events in the models,
    // the DUT's clock).
    virtual bool settled() { return false; }

    // Directed `device_fis`: the device on host port `port` sends `fis` over its link.
    // True: the host's link layer took it. False also where the backend has no device
    // side (its rules refuse the step).
    virtual bool send_device_fis(unsigned /*port*/, const sata::Fis & /*fis*/) { return false; }
};

} // namespace satasim::harness
