// The shared part of the two-channel taskfile controllers (sff_controller.h).
#include "model/sff/sff_controller.h"

namespace satasim::sff {

SffController::SffController(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq,
                             ModelTrace *trace, const std::array<ChannelWindow, kChannels> &windows,
                             const bus::PciSpec &pci, bool master_slave)
    : sc_core::sc_module(name), irq_(irq), trace_(trace), win_(windows), pci_(pci) {
    for (unsigned c = 0; c < kChannels; ++c) {
        ch_[c] = std::make_unique<SffChannel>(("ch" + std::to_string(c)).c_str(), SffChannelConfig{}, mem, trace,
                                              std::string(this->name()), int(c));
        ch_[c]->set_irq_changed([this] { update_irq(); });
        ch_[c]->bmdma().set_pci(&pci_);
    }
    for (unsigned c = 0; master_slave && c < kChannels; ++c) {
        const unsigned port = kChannels + c;
        sl_[c] = std::make_unique<SffChannel>(("ch" + std::to_string(port)).c_str(), SffChannelConfig{}, mem, trace,
                                              std::string(this->name()), int(port));
        sl_[c]->pair_as_slave_of(*ch_[c]);
        sl_[c]->set_irq_changed([this] { update_irq(); });
    }
    SC_THREAD(power_on_thread); // after the channels' own processes, as the ICH's was
}

// A SATA host brings its links up when it comes out of power-on reset: it sends COMRESET on
// every port (SATA 1.0a's power-on sequence starts with the host's COMRESET; the BIOS, which
// satasim does not run, leaves the drives' links up for the OS in the same way). COMRESET
// held for 10 us (MEM: model choice), then the devices send their signatures. An ICH in IDE
// mode has no SControl at all; a SiI3112 comes up with SControl 0 (no action asked), its
// link up: a driver that soft-resets first at boot (libata 2.6.2x) finds the drive there.
void SffController::power_on_thread() {
    for (unsigned p = 0; p < n_ports(); ++p)
        if (channel(p).link())
            channel(p).link()->host_comreset(true);
    sc_core::wait(10, sc_core::SC_US);
    for (unsigned p = 0; p < n_ports(); ++p)
        if (channel(p).link())
            channel(p).link()->host_comreset(false);
}

SffChannel &SffController::channel(unsigned port) {
    if (port >= kChannels && port < 2 * kChannels && sl_[port - kChannels])
        return *sl_[port - kChannels];
    return *ch_.at(port);
}

uint8_t SffController::mmio_read8(uint32_t off) {
    uint8_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (decodes(c) && (sl_[c] ? sff_pair_read8(*ch_[c], *sl_[c], win_[c], off, v) : sff_read8(*ch_[c], win_[c], off, v)))
            return v;
    return other_read8(off);
}

uint16_t SffController::mmio_read16(uint32_t off) {
    uint16_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (decodes(c) && (sl_[c] ? sff_pair_read16(*ch_[c], *sl_[c], win_[c], off, v) : sff_read16(*ch_[c], win_[c], off, v)))
            return v;
    return other_read16(off);
}

// Dword accesses reach the bus-master block only: the channel's one engine (the master's).
uint32_t SffController::mmio_read32(uint32_t off) {
    uint32_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (decodes(c) && sff_read32(*ch_[c], win_[c], off, v))
            return v;
    return other_read32(off);
}

void SffController::mmio_write8(uint32_t off, uint8_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (decodes(c) && (sl_[c] ? sff_pair_write8(*ch_[c], *sl_[c], win_[c], off, val) : sff_write8(*ch_[c], win_[c], off, val)))
            return;
    other_write8(off, val);
}

void SffController::mmio_write16(uint32_t off, uint16_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (decodes(c) && (sl_[c] ? sff_pair_write16(*ch_[c], *sl_[c], win_[c], off, val) : sff_write16(*ch_[c], win_[c], off, val)))
            return;
    other_write16(off, val);
}

void SffController::mmio_write32(uint32_t off, uint32_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (decodes(c) && sff_write32(*ch_[c], win_[c], off, val))
            return;
    other_write32(off, val);
}

void SffController::inject_lost_irq(unsigned port, unsigned count, uint64_t, const std::string &id) {
    emit_port_event(trace_, name(), "sff.lost_irq_armed", int(port),
                    {{"count", TraceValue::integer(count)}, {"id", TraceValue::str(id)}}, {});
    channel(port).lose_irqs(count);
}

void SffController::clear_faults() {
    for (unsigned p = 0; p < n_ports(); ++p)
        channel(p).clear_faults();
}

} // namespace satasim::sff
