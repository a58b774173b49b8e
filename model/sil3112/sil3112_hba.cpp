// SiI3112-like controller (sil3112_hba.h): the BAR5 address decoder over two SFF channels,
// the interrupt line and the FIFO thresholds.
#include "model/sil3112/sil3112_hba.h"

#include <algorithm>

namespace satasim::sil3112 {

using namespace reg;

Sil3112Hba::Sil3112Hba(sc_core::sc_module_name name, const Sil3112Config &cfg, bus::HostMemory &mem,
                       bus::IrqLine &irq, ModelTrace *trace)
    : sff::SffController(name, mem, irq, trace, {{{kTf[0], kCtl[0], kBmdma[0]}, {kTf[1], kCtl[1], kBmdma[1]}}},
                        pci_spec()),
      cfg_(cfg) {
    for (unsigned c = 0; c < kChannels; ++c)
        set_burst(c);
}

void Sil3112Hba::power_on_reset() {
    syscfg_ = 0;
    sien_ = {};
    xfer_mode_ = {};
    sfis_cfg_ = {};
    fifo_cfg_ = {};
    for (unsigned c = 0; c < kChannels; ++c) {
        ch_[c]->reset();
        set_burst(c);
    }
    update_irq();
}

// The bus master requests the bus when its FIFO holds the threshold: each burst moves that
// many bytes (a threshold of 0 behaves as the smallest, 8 bytes).
void Sil3112Hba::set_burst(unsigned c) {
    const unsigned rd = fifo_cfg_[c] & 0xff, wr = fifo_cfg_[c] >> 8;
    const unsigned th = std::max(1u, std::min(rd ? rd : 1u, wr ? wr : 1u));
    ch_[c]->set_burst_bytes(8u * th);
}

bool Sil3112Hba::sata_irq(unsigned c) const {
    return (ch_[c]->serror() & SERR_DIAG_N) && (sien_[c] & SIEN_N);
}

void Sil3112Hba::update_irq() {
    bool level = false;
    for (unsigned c = 0; c < kChannels; ++c) {
        if (!(syscfg_ & (SYSCFG_MASK_IDE0_INT << c)) && ch_[c]->intrq())
            level = true;
        if (sata_irq(c))
            level = true; // SYSCFG's mask does not block the SATA interrupt
        if (ch_[c]->line_stuck())
            level = true; // a screaming line: no mask, nothing in BMDMA2
    }
    irq_.set(level);
}

uint32_t Sil3112Hba::bmdma2(unsigned c) const {
    const auto &d = ch_[c]->bmdma();
    uint32_t v = d.command() & (bmdma::reg::CMD_START | bmdma::reg::CMD_WRITE_MEM);
    if (sata_irq(c))
        v |= BMDMA2_SATA_IRQ;
    if (d.status() & bmdma::reg::ST_ACTIVE)
        v |= BMDMA2_ACTIVE;
    if (d.status() & bmdma::reg::ST_ERROR)
        v |= BMDMA2_ERROR;
    if (ch_[c]->intrq())
        v |= BMDMA2_COMPLETE;
    return v;
}

uint16_t Sil3112Hba::other_read16(uint32_t off) {
    for (unsigned c = 0; c < kChannels; ++c)
        if (off == kFifoCfg[c])
            return fifo_cfg_[c];
    return MmioTarget::mmio_read16(off);
}

void Sil3112Hba::other_write16(uint32_t off, uint16_t val) {
    for (unsigned c = 0; c < kChannels; ++c) {
        if (off == kFifoCfg[c]) {
            fifo_cfg_[c] = val;
            return set_burst(c);
        }
    }
    MmioTarget::mmio_write16(off, val);
}

uint32_t Sil3112Hba::other_read32(uint32_t off) {
    if (off == kSysCfg)
        return syscfg_;
    for (unsigned c = 0; c < kChannels; ++c) {
        sff::SffChannel &ch = *ch_[c];
        if (off == kBmdma2[c])
            return bmdma2(c);
        if (off == kFifoCfg[c])
            return fifo_cfg_[c];
        if (off == kScr[c])
            return ch.scontrol();
        if (off == kScr[c] + 4)
            return ch.sstatus();
        if (off == kScr[c] + 8)
            return ch.serror();
        if (off == kSien[c])
            return sien_[c];
        if (off == kXferMode[c])
            return xfer_mode_[c];
        if (off == kSfisCfg[c])
            return sfis_cfg_[c];
    }
    return 0; // unimplemented (taskfile registers are byte/word registers)
}

void Sil3112Hba::other_write32(uint32_t off, uint32_t val) {
    if (off == kSysCfg) {
        syscfg_ = val;
        return update_irq();
    }
    for (unsigned c = 0; c < kChannels; ++c) {
        sff::SffChannel &ch = *ch_[c];
        if (off == kFifoCfg[c]) {
            fifo_cfg_[c] = uint16_t(val);
            return set_burst(c);
        }
        if (off == kScr[c])
            return ch.write_scontrol(val);
        if (off == kScr[c] + 8) {
            ch.clear_serror(val);
            return update_irq();
        }
        if (off == kSien[c]) {
            sien_[c] = val;
            return update_irq();
        }
        if (off == kXferMode[c]) {
            xfer_mode_[c] = val;
            return;
        }
        if (off == kSfisCfg[c]) {
            sfis_cfg_[c] = val;
            return;
        }
    }
}

} // namespace satasim::sil3112
