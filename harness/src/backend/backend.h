// One backend: the hardware a scenario's stack runs against (the SystemC models, QEMU's
// AHCI over qtest, later a controller's RTL), behind one interface. A backend has
//   - its rules (backend/rules.h): what it cannot model, asked by the parser and the runner;
//   - an implementation of this class: it builds the hardware for the scenario, gives the
//     stack its platform (PlatformBinding: the struct sata_platform_ops table over the
//     hardware's MMIO, DMA memory and interrupt line), shows the runner what its hardware
//     saw (HardwareView: the interrupt line and memory for directed steps, disk media,
//     fault firings, whether it is at rest) and, after the run, fills its statistics
//     (backend_stats.h) and stops the hardware.
// Each backend lives in its own folder (backend/<name>/) and library; backend/registry.cpp
// is the one place that maps a backend name to its rules and its implementation.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/hardware_view.h"
#include "backend/platform_binding.h"

namespace satasim::harness {

struct Scenario;
struct BackendStats;
class TraceSink;
class VcdWriter;

class Backend {
  public:
    virtual ~Backend() = default;

    struct Context {
        const Scenario &sc;
        std::string work_dir;   // the run's output folder (backends may keep files there)
        TraceSink &sink;
        VcdWriter *vcd;         // the waveform, or null (only on backends that take it)
        PlatformBinding::FailFn fail; // ends the run with a reason (hardware lost mid-run)
    };
    // Builds the hardware and the stack's platform on it (before sc_start). Throws naming
    // what failed.
    virtual void build(const Context &ctx) = 0;
    // The stack's platform on this hardware; null until build() made it.
    virtual PlatformBinding *platform() = 0;
    // One platform per controller of the host, in PCI order (Scenario::controllers): the
    // first is platform(). Backends with one controller have just that.
    virtual std::vector<PlatformBinding *> platforms() { return {platform()}; }
    // What the hardware shows the runner (hardware_view.h); null until build() made it.
    virtual HardwareView *view() = 0;
    // After the run: the backend's statistics (plain data the verdict and result.json read);
    // stops the hardware.
    virtual void finish(const Scenario &sc, BackendStats &stats) = 0;
};

} // namespace satasim::harness
