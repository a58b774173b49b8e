// ICH/PIIX-like IDE-mode controller (piix_ide.h): the legacy layout of two SFF channels, their
// power-on link bring-up and the OR of their interrupt lines.
#include "model/piix/piix_ide.h"

#include <algorithm>

namespace satasim::piix {

PiixIde::PiixIde(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace,
                 PiixMap map, PiixPart part)
    : sff::SffController(name, mem, irq, trace,
                         {{{reg::kCmd[0], reg::kCtl[0], reg::kBmdma[0]}, {reg::kCmd[1], reg::kCtl[1], reg::kBmdma[1]}}},
                         pci_spec(part),
                         map == PiixMap::Ich6 || part == PiixPart::Piix3 || part == PiixPart::Piix4),
      part_(part) {
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

sff::SffChannel *PiixIde::sidpr_port() {
    const unsigned p = (sidpr_idx_ >> 8) & 0xff, ch = p >> 1, dev = p & 1;
    if (ch >= kChannels || (dev && n_ports() <= kChannels))
        return nullptr;
    return &channel(dev ? kChannels + ch : ch); // device 1 of channel c is SATA port 2 + c (P2, P3)
}

uint32_t PiixIde::other_read32(uint32_t off) {
    if (part_ != PiixPart::Ich8Sata || off < reg::kSidpr || off >= reg::kSidpr + reg::kSidprLen)
        return 0xffffffffu;
    if (off == reg::kSidpr + reg::kSidprIdx)
        return sidpr_idx_;
    if (off != reg::kSidpr + reg::kSidprData)
        return 0; // the window's other bytes: reserved (model choice)
    sff::SffChannel *ch = sidpr_port();
    if (!ch)
        return 0;
    switch (sidpr_idx_ & 0xff) {
    case 0: return ch->sstatus();
    case 1: return ch->scontrol();
    case 2: return ch->serror();
    default: return 0; // no such SCR (model choice)
    }
}

void PiixIde::other_write32(uint32_t off, uint32_t v) {
    if (part_ != PiixPart::Ich8Sata)
        return;
    if (off == reg::kSidpr + reg::kSidprIdx) {
        sidpr_idx_ = v & 0xffff;
        return;
    }
    sff::SffChannel *ch = off == reg::kSidpr + reg::kSidprData ? sidpr_port() : nullptr;
    if (!ch)
        return;
    if ((sidpr_idx_ & 0xff) == 1)
        ch->write_scontrol(v); // DET=1 holds COMRESET on that port's link, as SControl does
    else if ((sidpr_idx_ & 0xff) == 2)
        ch->clear_serror(v); // RW1C
}

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

// The timing registers' reset values are the part's (piix_pci.cpp: the decode enable the BIOS
// sets, which satasim does not run).
void PiixIde::power_on_reset() {
    sidpr_idx_ = 0;
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
