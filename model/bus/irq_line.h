// A level-sensitive interrupt line from a controller to the host.
#pragma once

#include <functional>

#include <systemc>

#include "model/wave/wave_probe.h"

namespace satasim::bus {

class IrqLine {
  public:
    void set(bool level) {
        if (level != level_) {
            level_ = level;
            changed_.notify(sc_core::SC_ZERO_TIME);
            wave_.set(level);
            if (observer_)
                observer_(level);
        }
    }
    // Called at once (same delta) on every change of level: what a PCI function's interrupt
    // logic does with its controller's interrupt condition (model/bus/pci_function.h).
    void set_observer(std::function<void(bool)> fn) { observer_ = std::move(fn); }
    bool level() const { return level_; }
    // Notified (delta-delayed) on every change of level.
    const sc_core::sc_event &changed_event() const { return changed_; }
    void reset() {
        level_ = false;
        wave_.set(0);
    }
    // Waveform probe of the line (model/wave), detached unless the harness attaches it.
    wave::Signal &wave() { return wave_; }

  private:
    bool level_ = false;
    sc_core::sc_event changed_;
    std::function<void(bool)> observer_;
    wave::Signal wave_;
};

} // namespace satasim::bus
