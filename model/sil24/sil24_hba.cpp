// SiI3124 global registers (BAR0, docs/hardware.md 6.2): the slot-status mirror, HOST_CTRL
// (per-port interrupt enables, latched PCI-X signals, 3 Gb/s capability, GLOBAL_RST),
// HOST_IRQ_STAT and the interrupt line; plus the BAR0/BAR2 decode of the register window.
#include "model/sil24/sil24_hba.h"

#include <algorithm>

#include "model/sil24/sil24_port.h"

namespace satasim::sil24 {

using namespace reg;

// One BAR as its own MmioTarget, for backends that map BARs separately.
class Sil24Hba::Bar : public bus::MmioTarget {
  public:
    Bar(Sil24Hba &hba, uint32_t base) : hba_(hba), base_(base) {}
    uint32_t mmio_read32(uint32_t off) override {
        if (base_ == 0 && off >= kBar0Size)
            return 0;
        return hba_.mmio_read32(base_ + off);
    }
    void mmio_write32(uint32_t off, uint32_t val) override {
        if (base_ == 0 && off >= kBar0Size)
            return;
        hba_.mmio_write32(base_ + off, val);
    }

  private:
    Sil24Hba &hba_;
    uint32_t base_;
};

namespace {
Sil24Config sanitize(Sil24Config c) {
    c.n_ports = std::clamp(c.n_ports, 1u, 4u);
    if (c.max_gen == link::Gen::None || c.max_gen == link::Gen::Gen3)
        c.max_gen = link::Gen::Gen2; // the SiI3124 PHY stops at 3 Gb/s
    if (!(c.core_clock_mhz > 0))
        c.core_clock_mhz = 133.0;
    if (!(c.pcix_ack_window_ns >= 0))
        c.pcix_ack_window_ns = 0;
    return c;
}
} // namespace

Sil24Hba::Sil24Hba(sc_core::sc_module_name name, const Sil24Config &cfg, bus::HostMemory &mem,
                   bus::IrqLine &irq, ModelTrace *trace)
    : sc_module(name), cfg_(sanitize(cfg)), pci_(pci_spec()), mem_(mem), irq_(irq), trace_(trace),
      period_(1000.0 / cfg_.core_clock_mhz, sc_core::SC_NS) {
    for (unsigned i = 0; i < cfg_.n_ports; ++i)
        ports_.push_back(std::make_unique<Port>(("port" + std::to_string(i)).c_str(), *this, i));
    bar0_ = std::make_unique<Bar>(*this, 0);
    bar2_ = std::make_unique<Bar>(*this, kBar2Offset);
    host_ctrl_ = 0;
}

Sil24Hba::~Sil24Hba() = default;

uint32_t Sil24Hba::window_size() const { return port_window(cfg_.n_ports); }

link::LinkEndpoint *Sil24Hba::port_endpoint(unsigned port) {
    return port < ports_.size() ? ports_[port].get() : nullptr;
}

void Sil24Hba::connect_port(unsigned port, link::SataLink *link) {
    if (port < ports_.size())
        ports_[port]->connect(link);
}

bus::MmioTarget *Sil24Hba::bar(unsigned n) {
    return n == 0 ? bar0_.get() : n == 2 ? bar2_.get() : nullptr;
}

uint32_t Sil24Hba::mmio_read32(uint32_t off) {
    off &= ~3u;
    if (off < kBar2Offset)
        return off < kBar0Size ? read_global(off) : 0;
    unsigned n = (off - kBar2Offset) / kPortWindow;
    return n < ports_.size() ? ports_[n]->read((off - kBar2Offset) % kPortWindow) : 0;
}

void Sil24Hba::mmio_write32(uint32_t off, uint32_t val) {
    off &= ~3u;
    if (off < kBar2Offset) {
        if (off < kBar0Size)
            write_global(off, val);
        return;
    }
    unsigned n = (off - kBar2Offset) / kPortWindow;
    if (n < ports_.size())
        ports_[n]->write((off - kBar2Offset) % kPortWindow, val);
    if (wave_)
        wave_sample_all();
}

// Read-only HOST_CTRL bits: PCI-X signals latched at reset (a PCI-X bus drives TRDY, STOP
// and DEVSEL during the reset pattern, plus REQ64 for a 64-bit slot and M66EN), and the
// 3 Gb/s capability.
uint32_t Sil24Hba::host_ctrl_ro() const {
    uint32_t v = 0;
    if (cfg_.pcix)
        v |= HCTRL_M66EN | HCTRL_TRDY | HCTRL_STOP | HCTRL_DEVSEL | HCTRL_REQ64;
    if (cfg_.max_gen >= link::Gen::Gen2)
        v |= HCTRL_GEN2;
    return v;
}

uint32_t Sil24Hba::read_global(uint32_t off) {
    if (off < 0x10) {
        unsigned n = off / 4;
        return n < ports_.size() ? ports_[n]->read_slot_stat() : 0;
    }
    switch (off) {
    case HOST_CTRL:
        return host_ctrl_ | host_ctrl_ro();
    case HOST_IRQ_STAT: {
        uint32_t v = 0;
        for (unsigned i = 0; i < ports_.size(); ++i)
            if (ports_[i]->irq_pending())
                v |= 1u << i;
        return v;
    }
    case HOST_PHY_CFG:
        return phy_cfg_;
    case HOST_FLASH_CMD:
        return flash_cmd_;
    default:
        return 0; // BIST, I2C and flash/GPIO blocks are not modelled
    }
}

void Sil24Hba::write_global(uint32_t off, uint32_t val) {
    switch (off) {
    case HOST_CTRL: {
        const bool was_rst = host_ctrl_ & HCTRL_GLOBAL_RST;
        host_ctrl_ = val & HCTRL_WRITABLE & ~HCTRL_MSI_ACK; // MSI ack is a strobe
        if (!was_rst && (host_ctrl_ & HCTRL_GLOBAL_RST)) {
            emit("sil24.global_reset", -1, {}, "HOST_CTRL.GLOBAL_RST");
            for (auto &p : ports_)
                p->reset(true);
        } else if (was_rst && !(host_ctrl_ & HCTRL_GLOBAL_RST)) {
            emit("sil24.global_reset_done", -1, {}, {});
        }
        update_irq();
        break;
    }
    case HOST_PHY_CFG:
        phy_cfg_ = val;
        break;
    case HOST_FLASH_CMD:
        flash_cmd_ = val;
        break;
    default:
        break; // slot-status mirror and HOST_IRQ_STAT are read-only
    }
}

void Sil24Hba::update_irq() {
    bool level = false;
    if (!(host_ctrl_ & HCTRL_GLOBAL_RST))
        for (unsigned i = 0; i < ports_.size(); ++i)
            if ((host_ctrl_ & (1u << i)) && ports_[i]->irq_pending())
                level = true;
    irq_.set(level);
    if (wave_)
        wave_sample_all();
}

void Sil24Hba::power_on_reset() {
    host_ctrl_ = 0;
    phy_cfg_ = flash_cmd_ = 0;
    for (auto &p : ports_)
        p->reset(false);
    clear_faults();
    update_irq();
}

void Sil24Hba::emit(const char *event, int port,
                    std::vector<std::pair<std::string, TraceValue>> fields, std::string msg) {
    emit_port_event(trace_, basename(), event, port, std::move(fields), std::move(msg));
}

} // namespace satasim::sil24
