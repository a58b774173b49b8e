// A level-sensitive interrupt line from a controller to the host.
#pragma once

#include <systemc>

namespace satasim::bus {

class IrqLine {
  public:
    void set(bool level) {
        if (level != level_) {
            level_ = level;
            changed_.notify(sc_core::SC_ZERO_TIME);
        }
    }
    bool level() const { return level_; }
    // Notified (delta-delayed) on every change of level.
    const sc_core::sc_event &changed_event() const { return changed_; }
    void reset() { level_ = false; }

  private:
    bool level_ = false;
    sc_core::sc_event changed_;
};

} // namespace satasim::bus
