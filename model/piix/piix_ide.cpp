// ICH/PIIX-like IDE-mode controller (piix_ide.h): the legacy layout of two SFF channels, their
// power-on link bring-up and the OR of their interrupt lines.
#include "model/piix/piix_ide.h"

namespace satasim::piix {

PiixIde::PiixIde(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace)
    : sff::SffController(name, mem, irq, trace,
                         {{{reg::kCmd[0], reg::kCtl[0], reg::kBmdma[0]}, {reg::kCmd[1], reg::kCtl[1], reg::kBmdma[1]}}}) {
    SC_THREAD(power_on_thread);
}

// No SControl in IDE mode: the controller brings its links up itself after reset
// (COMRESET held for 10 us, MEM: model choice), then the devices send their signatures.
void PiixIde::power_on_thread() {
    for (auto &c : ch_)
        if (c->link())
            c->link()->host_comreset(true);
    sc_core::wait(10, sc_core::SC_US);
    for (auto &c : ch_)
        if (c->link())
            c->link()->host_comreset(false);
}

void PiixIde::power_on_reset() {
    for (auto &c : ch_)
        c->reset();
    update_irq();
}

void PiixIde::update_irq() {
    bool level = false;
    for (auto &c : ch_)
        level = level || c->intrq() || c->line_stuck();
    irq_.set(level);
}

} // namespace satasim::piix
