// The shared part of the two-channel taskfile controllers (sff_controller.h).
#include "model/sff/sff_controller.h"

namespace satasim::sff {

SffController::SffController(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq,
                             ModelTrace *trace, const std::array<ChannelWindow, kChannels> &windows)
    : sc_core::sc_module(name), irq_(irq), trace_(trace), win_(windows) {
    for (unsigned c = 0; c < kChannels; ++c) {
        ch_[c] = std::make_unique<SffChannel>(("ch" + std::to_string(c)).c_str(), SffChannelConfig{}, mem, trace,
                                              std::string(this->name()), int(c));
        ch_[c]->set_irq_changed([this] { update_irq(); });
    }
}

uint8_t SffController::mmio_read8(uint32_t off) {
    uint8_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff_read8(*ch_[c], win_[c], off, v))
            return v;
    return other_read8(off);
}

uint16_t SffController::mmio_read16(uint32_t off) {
    uint16_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff_read16(*ch_[c], win_[c], off, v))
            return v;
    return other_read16(off);
}

uint32_t SffController::mmio_read32(uint32_t off) {
    uint32_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff_read32(*ch_[c], win_[c], off, v))
            return v;
    return other_read32(off);
}

void SffController::mmio_write8(uint32_t off, uint8_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff_write8(*ch_[c], win_[c], off, val))
            return;
    other_write8(off, val);
}

void SffController::mmio_write16(uint32_t off, uint16_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff_write16(*ch_[c], win_[c], off, val))
            return;
    other_write16(off, val);
}

void SffController::mmio_write32(uint32_t off, uint32_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff_write32(*ch_[c], win_[c], off, val))
            return;
    other_write32(off, val);
}

void SffController::inject_lost_irq(unsigned port, unsigned count, uint64_t, const std::string &id) {
    emit_port_event(trace_, name(), "sff.lost_irq_armed", int(port),
                    {{"count", TraceValue::integer(count)}, {"id", TraceValue::str(id)}}, {});
    ch_.at(port)->lose_irqs(count);
}

void SffController::clear_faults() {
    for (auto &c : ch_)
        c->clear_faults();
}

} // namespace satasim::sff
