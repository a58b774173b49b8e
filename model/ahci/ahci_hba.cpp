// AHCI 1.3.1 chapter 3.1: generic host control. CAP/CAP2/PI/VS are HwInit values built
// from AhciConfig; GHC (HR, IE, AE), the IS latch and the interrupt line live here. Port
// register sets and engines are in ahci_port_*.cpp.
#include "model/ahci/ahci_hba.h"

#include <algorithm>

#include "model/ahci/ahci_port.h"

namespace satasim::ahci {

using namespace reg;

namespace {
AhciConfig sanitize(AhciConfig c) {
    c.n_ports = std::clamp(c.n_ports, 1u, 32u);
    c.n_slots = std::clamp(c.n_slots, 1u, 32u);
    if (c.iss == link::Gen::None)
        c.iss = link::Gen::Gen1;
    if (!(c.core_clock_mhz > 0))
        c.core_clock_mhz = 150.0;
    if (!c.spm)
        c.fbss = false; // FIS-based switching only makes sense with port multipliers
    c.fbs_ado = std::clamp(c.fbs_ado, 2u, 15u);
    return c;
}

uint32_t build_cap(const AhciConfig &c) {
    uint32_t cap = (c.n_ports - 1) | (c.n_slots - 1) << CAP_NCS_SHIFT | CAP_SAM | CAP_PMD |
                   uint32_t(c.iss) << CAP_ISS_SHIFT;
    if (c.ncq)
        cap |= CAP_SNCQ;
    if (c.s64a)
        cap |= CAP_S64A;
    if (c.sclo)
        cap |= CAP_SCLO;
    if (c.ssntf)
        cap |= CAP_SSNTF;
    if (c.spm)
        cap |= CAP_SPM;
    if (c.fbss)
        cap |= CAP_FBSS;
    if (c.sss)
        cap |= CAP_SSS;
    if (c.salp)
        cap |= CAP_SALP;
    if (c.psc)
        cap |= CAP_PSC;
    if (c.ssc)
        cap |= CAP_SSC;
    return cap;
}

uint32_t build_cap2(const AhciConfig &c) { return c.sds ? CAP2_SDS | CAP2_SADM | CAP2_DESO : 0; }
} // namespace

AhciHba::AhciHba(sc_core::sc_module_name name, const AhciConfig &cfg, bus::HostMemory &mem,
                 bus::IrqLine &irq, ModelTrace *trace)
    : sc_module(name), cfg_(sanitize(cfg)), pci_(pci_spec(cfg_)), mem_(mem), irq_(irq), trace_(trace),
      period_(1000.0 / cfg_.core_clock_mhz, sc_core::SC_NS) {
    for (unsigned i = 0; i < cfg_.n_ports; ++i)
        ports_.push_back(std::make_unique<Port>(("port" + std::to_string(i)).c_str(), *this, i));
    SC_METHOD(hr_done_method);
    sensitive << hr_done_ev_;
    dont_initialize();
    cap_ = build_cap(cfg_);
    pi_ = cfg_.n_ports == 32 ? 0xFFFFFFFFu : (1u << cfg_.n_ports) - 1;
    ghc_ = GHC_AE;
}

AhciHba::~AhciHba() = default;

link::LinkEndpoint *AhciHba::port_endpoint(unsigned port) {
    return port < ports_.size() ? ports_[port].get() : nullptr;
}

void AhciHba::connect_port(unsigned port, link::SataLink *link) {
    if (port < ports_.size())
        ports_[port]->connect(link);
}

uint32_t AhciHba::mmio_read32(uint32_t off) {
    off &= ~3u;
    if (off < kPortBase)
        return read_generic(off);
    if (off >= kBarSize)
        return 0;
    unsigned n = (off - kPortBase) / kPortStride;
    return n < ports_.size() ? ports_[n]->read((off - kPortBase) % kPortStride) : 0;
}

void AhciHba::mmio_write32(uint32_t off, uint32_t val) {
    off &= ~3u;
    if (off < kPortBase) {
        write_generic(off, val);
    } else if (off < kBarSize) {
        unsigned n = (off - kPortBase) / kPortStride;
        if (n < ports_.size())
            ports_[n]->write((off - kPortBase) % kPortStride, val);
    }
    if (wave_)
        wave_sample_all();
}

uint32_t AhciHba::read_generic(uint32_t off) const {
    switch (off) {
    case CAP:
        return cap_;
    case GHC:
        return ghc_;
    case IS:
        return is_;
    case PI:
        return pi_;
    case VS:
        return cfg_.version;
    // CAP.CCCS, CAP.EMS and CAP2's BOH/APST are 0: command completion coalescing,
    // enclosure management and BIOS handoff are not implemented, so their registers are
    // reserved and read 0. CAP2 has DevSleep's SDS/SADM/DESO when the part has it.
    case CCC_CTL:
        return ccc_ctl_;
    case CCC_PORTS:
        return ccc_ports_;
    case CAP2:
        return build_cap2(cfg_);
    case EM_LOC:
    case EM_CTL:
        return 0;
    case BOHC:
        return bohc_;
    default:
        return 0;
    }
}

void AhciHba::write_generic(uint32_t off, uint32_t val) {
    switch (off) {
    case GHC:
        if (val & GHC_HR) {
            hba_reset();
            return;
        }
        // AE is read-only 1 (CAP.SAM: AHCI-only HBA); MRSM is read-only 0 (no MSI here).
        ghc_ = (ghc_ & GHC_HR) | GHC_AE | (val & GHC_IE);
        update_irq();
        break;
    case IS:
        is_ &= ~val;
        update_irq(); // bits of ports whose PxIS & PxIE is still non-zero latch again
        break;
    default:
        // CAP and PI are HwInit (a BIOS write-once is modelled as already done); VS, CAP2
        // are read-only; CCC/EM/BOHC are reserved (see read_generic).
        break;
    }
}

void AhciHba::update_irq() {
    for (unsigned i = 0; i < ports_.size(); ++i)
        if (ports_[i]->irq_pending())
            is_ |= 1u << i;
    irq_.set((ghc_ & GHC_IE) && is_ != 0);
    if (wave_)
        wave_sample_all();
}

// GHC.HR (AHCI 1.3.1 10.4.3): engines go idle, GHC.IE and IS clear, every port register
// that is not HwInit returns to its reset value except PxCLB/PxCLBU/PxFB/PxFBU, which keep
// what software wrote, and every port is re-initialized with a COMRESET. CAP, PI and the
// other global registers are "not affected". HR reads 1 until done; writing 0 to it has no
// effect (write_generic keeps the bit).
void AhciHba::hba_reset() {
    emit("ahci.hba_reset", -1, {}, "GHC.HR");
    ghc_ = GHC_AE | GHC_HR;
    is_ = 0;
    for (auto &p : ports_)
        p->reset(true);
    update_irq();
    hr_done_ev_.notify(period_ * double(cycles::kHbaReset));
}

void AhciHba::hr_done_method() {
    ghc_ &= ~GHC_HR;
    emit("ahci.hba_reset_done", -1, {}, {});
}

void AhciHba::power_on_reset() {
    hr_done_ev_.cancel();
    cap_ = build_cap(cfg_);
    pi_ = cfg_.n_ports == 32 ? 0xFFFFFFFFu : (1u << cfg_.n_ports) - 1;
    ghc_ = GHC_AE;
    is_ = 0;
    ccc_ctl_ = ccc_ports_ = bohc_ = 0;
    clear_faults();
    for (auto &p : ports_)
        p->reset(false);
    update_irq();
}

void AhciHba::emit(const char *event, int port,
                   std::vector<std::pair<std::string, TraceValue>> fields, std::string msg) {
    emit_port_event(trace_, basename(), event, port, std::move(fields), std::move(msg));
}

} // namespace satasim::ahci
