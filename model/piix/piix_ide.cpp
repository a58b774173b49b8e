// ICH/PIIX-like IDE-mode controller (piix_ide.h): the legacy layout of two SFF channels, their
// power-on link bring-up and the OR of their interrupt lines.
#include "model/piix/piix_ide.h"

namespace satasim::piix {

PiixIde::PiixIde(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace,
                 PiixMap map)
    : sff::SffController(name, mem, irq, trace,
                         {{{reg::kCmd[0], reg::kCtl[0], reg::kBmdma[0]}, {reg::kCmd[1], reg::kCtl[1], reg::kBmdma[1]}}},
                         map == PiixMap::Ich6) {
    SC_THREAD(power_on_thread);
}

// No SControl in IDE mode: the controller brings its links up itself after reset
// (COMRESET held for 10 us, MEM: model choice), then the devices send their signatures.
void PiixIde::power_on_thread() {
    for (unsigned p = 0; p < n_ports(); ++p)
        if (channel(p).link())
            channel(p).link()->host_comreset(true);
    sc_core::wait(10, sc_core::SC_US);
    for (unsigned p = 0; p < n_ports(); ++p)
        if (channel(p).link())
            channel(p).link()->host_comreset(false);
}

void PiixIde::power_on_reset() {
    for (unsigned p = 0; p < n_ports(); ++p)
        channel(p).reset();
    update_irq();
}

void PiixIde::update_irq() {
    bool level = false;
    for (unsigned p = 0; p < n_ports(); ++p)
        level = level || channel(p).intrq() || channel(p).line_stuck();
    irq_.set(level);
}

} // namespace satasim::piix
