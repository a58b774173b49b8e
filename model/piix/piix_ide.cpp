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
    timing_reset();
}

bool PiixIde::decodes(unsigned channel) const {
    return !parallel() || (idetim_[channel & 1] & reg::kIdetimIde);
}

uint8_t PiixIde::cfg8(uint32_t r) const {
    const bool piix4 = part_ == PiixPart::Piix4;
    if (r >= reg::kIdetim && r < reg::kIdetim + 4)
        return uint8_t(idetim_[(r - reg::kIdetim) / 2] >> (8 * ((r - reg::kIdetim) & 1)));
    if (r == reg::kSidetim)
        return sidetim_;
    if (r == reg::kUdmactl)
        return piix4 ? udmactl_ : 0;
    if (r == reg::kUdmatim || r == reg::kUdmatim + 1)
        return piix4 ? uint8_t(udmatim_ >> (8 * (r - reg::kUdmatim))) : 0;
    return 0xff;
}

void PiixIde::set_cfg8(uint32_t r, uint8_t v) {
    const bool piix4 = part_ == PiixPart::Piix4;
    if (r >= reg::kIdetim && r < reg::kIdetim + 4) {
        const unsigned c = (r - reg::kIdetim) / 2, sh = 8 * ((r - reg::kIdetim) & 1);
        idetim_[c] = uint16_t((idetim_[c] & ~(0xffu << sh)) | unsigned(v) << sh);
    } else if (r == reg::kSidetim) {
        sidetim_ = v;
    } else if (r == reg::kUdmactl && piix4) {
        udmactl_ = v & 0x0f;
    } else if ((r == reg::kUdmatim || r == reg::kUdmatim + 1) && piix4) {
        const unsigned sh = 8 * (r - reg::kUdmatim);
        udmatim_ = uint16_t(((udmatim_ & ~(0xffu << sh)) | unsigned(v) << sh) & 0x3333);
    }
}

uint8_t PiixIde::other_read8(uint32_t off) {
    if (!parallel() || off < reg::kConfig || off >= reg::kConfig + 0x100)
        return 0xff;
    return cfg8(off - reg::kConfig);
}

uint16_t PiixIde::other_read16(uint32_t off) {
    if (!parallel() || off < reg::kConfig || off >= reg::kConfig + 0x100)
        return 0xffff;
    return uint16_t(cfg8(off - reg::kConfig) | cfg8(off - reg::kConfig + 1) << 8);
}

void PiixIde::other_write8(uint32_t off, uint8_t v) {
    if (!parallel() || off < reg::kConfig || off >= reg::kConfig + 0x100)
        return;
    set_cfg8(off - reg::kConfig, v);
    retime();
}

void PiixIde::other_write16(uint32_t off, uint16_t v) {
    if (!parallel() || off < reg::kConfig || off >= reg::kConfig + 0x100)
        return;
    set_cfg8(off - reg::kConfig, uint8_t(v));
    set_cfg8(off - reg::kConfig + 1, uint8_t(v >> 8));
    retime();
}

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
    if (dma && part_ == PiixPart::Piix4 && (udmactl_ >> devid & 1)) {
        const unsigned ct = (udmatim_ >> (4 * devid)) & 3;
        return kClockNs * double(4 - std::min(ct, 2u)); // CT 00 4 clocks, 01 3, 10 2
    }
    const unsigned ctl = (idetim_[c & 1] >> (4 * (devno & 1))) & 0xf;
    const bool fast = (ctl & 0x1) && (dma || !(ctl & 0x8)); // TIME; DTE: fast timing for DMA only
    if (!fast)
        return 600.0; // compatible timing (PIO0's cycle)
    unsigned isp, rtc;
    if (devno && (idetim_[c & 1] & reg::kIdetimSitre)) {
        const unsigned st = (sidetim_ >> (c ? 4 : 0)) & 0xf;
        isp = st >> 2, rtc = st & 3;
    } else {
        isp = (idetim_[c & 1] >> 12) & 3, rtc = (idetim_[c & 1] >> 8) & 3;
    }
    // ISP 00 5 clocks .. 11 2 clocks; RTC 00 4 clocks .. 11 1 clock
    return kClockNs * double((5 - isp) + (4 - rtc));
}

void PiixIde::retime() {
    for (unsigned c = 0; c < kChannels; ++c)
        for (unsigned d = 0; d < 2; ++d)
            channel(c + d * kChannels).set_bus_word_ns(word_ns(c, d, true));
}

void PiixIde::power_on_reset() {
    sidpr_idx_ = 0;
    for (unsigned p = 0; p < n_ports(); ++p)
        channel(p).reset();
    timing_reset();
    update_irq();
}

// The datasheet's reset values are 0 (decode off); the BIOS, which satasim does not run,
// turns the decode of both channels on (model choice, docs/hardware.md 10.2).
void PiixIde::timing_reset() {
    if (!parallel())
        return;
    idetim_[0] = idetim_[1] = reg::kIdetimIde;
    sidetim_ = udmactl_ = 0;
    udmatim_ = 0;
    retime();
}

void PiixIde::update_irq() {
    bool level = false;
    for (unsigned p = 0; p < n_ports(); ++p)
        level = level || channel(p).intrq() || channel(p).line_stuck();
    irq_.set(level);
}

} // namespace satasim::piix
