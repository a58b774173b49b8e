// ICH/PIIX-like IDE-mode controller (piix_ide.h): the legacy layout of two SFF channels, their
// power-on link bring-up and the OR of their interrupt lines.
#include "model/piix/piix_ide.h"

#include <algorithm>

namespace satasim::piix {

PiixIde::PiixIde(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace,
                 PiixMap map, PiixPart part)
    : sff::SffController(name, mem, irq, trace,
                         {{{reg::kCmd[0], reg::kCtl[0], reg::kBmdma[0]}, {reg::kCmd[1], reg::kCtl[1], reg::kBmdma[1]}}},
                         pci_spec(part), map == PiixMap::Ich6 || part != PiixPart::IchSata),
      part_(part) {
    SC_THREAD(power_on_thread);
    // the timing registers change the cable's word times as they are written
    pci().set_write_hook([this](unsigned off, unsigned size) {
        if (off + size > reg::kIdetim && off < reg::kUdmatim + 2)
            retime();
    });
    retime();
}

bool PiixIde::decodes(unsigned channel) const { return !parallel() || (idetim(channel) & reg::kIdetimIde); }

uint32_t PiixIde::cfg(uint32_t r, unsigned size) const { return pci().config_read(r, size); }

uint16_t PiixIde::idetim(unsigned channel) const { return uint16_t(cfg(reg::kIdetim + 2 * (channel & 1), 2)); }

double PiixIde::word_ns(unsigned c, unsigned devno, bool dma) const {
    constexpr double kClockNs = 30.0; // 33 MHz PCI
    const unsigned devid = 2 * (c & 1) + (devno & 1);
    const uint16_t it = idetim(c);
    if (dma && part_ == PiixPart::Piix4 && (cfg(reg::kUdmactl, 1) >> devid & 1)) {
        const unsigned ct = (cfg(reg::kUdmatim, 2) >> (4 * devid)) & 3;
        return kClockNs * double(4 - std::min(ct, 2u)); // CT 00 4 clocks, 01 3, 10 2
    }
    const unsigned ctl = (it >> (4 * (devno & 1))) & 0xf;
    const bool fast = (ctl & 0x1) && (dma || !(ctl & 0x8)); // TIME; DTE: fast timing for DMA only
    if (!fast)
        return 600.0; // compatible timing (PIO0's cycle)
    unsigned isp, rtc;
    if (devno && (it & reg::kIdetimSitre)) {
        const unsigned st = (cfg(reg::kSidetim, 1) >> (c ? 4 : 0)) & 0xf;
        isp = st >> 2, rtc = st & 3;
    } else {
        isp = (it >> 12) & 3, rtc = (it >> 8) & 3;
    }
    // ISP 00 5 clocks .. 11 2 clocks; RTC 00 4 clocks .. 11 1 clock
    return kClockNs * double((5 - isp) + (4 - rtc));
}

// (the ICH's SATA links are not parallel cables: its timing registers are storage only)
void PiixIde::retime() {
    if (!parallel())
        return;
    for (unsigned c = 0; c < kChannels; ++c)
        for (unsigned d = 0; d < 2; ++d)
            channel(c + d * kChannels).set_bus_word_ns(word_ns(c, d, true));
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

// The timing registers' reset values are the part's (piix_pci.cpp: the decode enable the BIOS
// sets, which satasim does not run).
void PiixIde::power_on_reset() {
    for (unsigned p = 0; p < n_ports(); ++p)
        channel(p).reset();
    pci().reset_dev_regs();
    retime();
    update_irq();
}

void PiixIde::update_irq() {
    bool level = false;
    for (unsigned p = 0; p < n_ports(); ++p)
        level = level || channel(p).intrq() || channel(p).line_stuck();
    irq_.set(level);
}

} // namespace satasim::piix
