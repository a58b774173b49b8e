// ICH/PIIX-like IDE-mode controller (piix_ide.h): the legacy address decoder over two SFF
// channels and the OR of their interrupt lines. Accesses outside the channels' blocks read
// as a floating ISA bus (all ones) and are otherwise ignored.
#include "model/piix/piix_ide.h"

namespace satasim::piix {

PiixIde::PiixIde(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace)
    : sc_core::sc_module(name), irq_(irq), trace_(trace) {
    for (unsigned c = 0; c < kChannels; ++c) {
        ch_[c] = std::make_unique<sff::SffChannel>(("ch" + std::to_string(c)).c_str(), sff::SffChannelConfig{}, mem,
                                                   trace, std::string(this->name()), int(c));
        ch_[c]->set_irq_changed([this] { update_irq(); });
    }
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

link::LinkEndpoint *PiixIde::port_endpoint(unsigned port) { return ch_.at(port).get(); }
void PiixIde::connect_port(unsigned port, link::SataLink *link) { ch_.at(port)->connect(link); }

void PiixIde::power_on_reset() {
    for (auto &c : ch_)
        c->reset();
    update_irq();
}

void PiixIde::update_irq() {
    bool level = false;
    for (auto &c : ch_)
        level = level || c->intrq();
    irq_.set(level);
}

uint8_t PiixIde::mmio_read8(uint32_t off) {
    uint8_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff::sff_read8(*ch_[c], window(c), off, v))
            return v;
    return 0xff;
}

void PiixIde::mmio_write8(uint32_t off, uint8_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff::sff_write8(*ch_[c], window(c), off, val))
            return;
}

uint16_t PiixIde::mmio_read16(uint32_t off) {
    uint16_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff::sff_read16(*ch_[c], window(c), off, v))
            return v;
    return 0xffff;
}

void PiixIde::mmio_write16(uint32_t off, uint16_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff::sff_write16(*ch_[c], window(c), off, val))
            return;
}

uint32_t PiixIde::mmio_read32(uint32_t off) {
    uint32_t v;
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff::sff_read32(*ch_[c], window(c), off, v))
            return v;
    return 0xffffffffu;
}

void PiixIde::mmio_write32(uint32_t off, uint32_t val) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (sff::sff_write32(*ch_[c], window(c), off, val))
            return;
}

void PiixIde::inject_lost_irq(unsigned port, unsigned count, uint64_t, const std::string &id) {
    emit_port_event(trace_, name(), "piix.lost_irq_armed", int(port),
                    {{"count", TraceValue::integer(count)}, {"id", TraceValue::str(id)}}, {});
    ch_.at(port)->lose_irqs(count);
}

void PiixIde::clear_faults() {
    for (auto &c : ch_)
        c->clear_faults();
}

} // namespace satasim::piix
