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
    if (!master_slave)
        return;
    for (unsigned c = 0; c < kChannels; ++c) {
        const unsigned port = kChannels + c;
        sl_[c] = std::make_unique<SffChannel>(("ch" + std::to_string(port)).c_str(), SffChannelConfig{}, mem, trace,
                                              std::string(this->name()), int(port));
        sl_[c]->pair_as_slave_of(*ch_[c]);
        sl_[c]->set_irq_changed([this] { update_irq(); });
    }
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
