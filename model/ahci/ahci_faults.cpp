// Fault hooks of the AHCI model (model/fault/README.md).
// Lost completion interrupts: the command still completes (PxCI / PxSACT clear, the FIS
// lands in the received-FIS area); only the PxIS completion bit (DHRS, PSS, SDBS, DPS)
// stays clear, so no interrupt is raised. Error and PHY interrupts (TFES, IFS, HBFS, PRCS,
// PCS, ...) are never affected.
// Host bus errors: the port's next DMA access of a class (data buffer, command list and
// tables, FIS area) is answered with a bus error, as a PCI master or target abort would be;
// the engine stops with PxIS.HBFS (AHCI 1.3.1 3.3.5, 6.1; docs/hardware.md 5.9).
// Internal errors (hba_error): the port's next DMA access fails inside the engine instead: an
// internal error (SError.ERR.E with PxIS.IFS: AHCI 1.3.1 3.3.12 says E is an error that "may
// have put the host bus adapter into an error state"; 6.1 stops the port on it), a host bus
// data error (PxIS.HBDS) or fatal error (PxIS.HBFS). How the port shows it is the failing
// HBA's: as the spec says, not at all (the engine stops and no status bit is latched: the
// commands in flight never complete and software's timeout finds them), or with its next
// PxIS read answered all ones (a register read the PCIe link dropped, which the root port
// completes with all ones; docs/hardware.md 5.9).
// Also the port's protocol-violation records (the rules themselves are checked where the
// registers and the engine implement them).
#include "model/ahci/ahci_port.h"

namespace satasim::ahci {

using namespace reg;

void AhciHba::inject_lost_irq(unsigned port, unsigned count, uint64_t window_ns,
                              const std::string &id) {
    if (port < ports_.size())
        ports_[port]->inject_lost_irq(count, window_ns, id);
}

void AhciHba::inject_host_bus_error(unsigned port, const bus::BusErrorParams &bus, const std::string &id) {
    if (port < ports_.size())
        ports_[port]->inject_host_bus_error(bus, id);
}

void AhciHba::inject_hba_error(unsigned port, HbaErrorKind error, HbaErrorIrq irq, const std::string &id) {
    if (port < ports_.size())
        ports_[port]->inject_hba_error(error, irq, id);
}

void AhciHba::clear_faults() {
    for (auto &p : ports_)
        p->clear_faults();
}

void AhciHba::Port::inject_lost_irq(unsigned count, uint64_t window_ns, const std::string &id) {
    lost_irq_.id = id;
    if (window_ns)
        lost_irq_.until = sc_core::sc_time_stamp() + sc_core::sc_time(double(window_ns), sc_core::SC_NS);
    else
        lost_irq_.count += count;
}

void AhciHba::Port::inject_host_bus_error(const bus::BusErrorParams &bus, const std::string &id) {
    bus_error_ = BusError{true, bus, id};
}

void AhciHba::Port::inject_hba_error(HbaErrorKind error, HbaErrorIrq irq, const std::string &id) {
    hba_error_ = HbaError{true, false, error, irq, id};
}

void AhciHba::Port::clear_faults() {
    lost_irq_ = LostIrq{};
    bus_error_ = BusError{};
    hba_error_ = HbaError{};
    all_ones_reads_ = 0;
}

namespace {
const char *hba_error_name(HbaErrorKind e) {
    switch (e) {
    case HbaErrorKind::Internal: return "internal";
    case HbaErrorKind::HostBusData: return "host_bus_data";
    case HbaErrorKind::HostBusFatal: return "host_bus_fatal";
    }
    return "?";
}
const char *hba_irq_name(HbaErrorIrq i) {
    switch (i) {
    case HbaErrorIrq::Raised: return "raised";
    case HbaErrorIrq::None: return "none";
    case HbaErrorIrq::AllOnes: return "all_ones";
    }
    return "?";
}
} // namespace

// The armed hba_error at the DMA access that hit it (host_bus_error() is every failed
// access's way out): the engine stops with the fault's error instead of HBFS.
void AhciHba::Port::hba_error(const char *what, int slot) {
    const HbaError e = hba_error_;
    hba_error_.hit = false;
    if (e.error == HbaErrorKind::Internal)
        set_serr(SERR_ERR_E);
    const uint32_t bit = e.error == HbaErrorKind::Internal      ? IS_IFS
                         : e.error == HbaErrorKind::HostBusData ? IS_HBDS
                                                                : IS_HBFS;
    if (e.irq == HbaErrorIrq::AllOnes)
        all_ones_reads_ = 1;
    halt(e.irq == HbaErrorIrq::None ? 0u : bit, what, slot);
}

AhciHba::Port::Dma AhciHba::Port::dma_read(bus::BusAccess a, const char *what, uint64_t addr, void *dst, size_t len,
                                           bool cmd) {
    Dma r = mem_read(addr, dst, len, cmd);
    if (r == Dma::Ok && bus_error_injected(a, what, addr, len))
        r = Dma::Fault; // the data that came back is not used
    return r;
}

AhciHba::Port::Dma AhciHba::Port::dma_write(bus::BusAccess a, const char *what, uint64_t addr, const void *src,
                                            size_t len, bool cmd) {
    if (!bus_error_injected(a, what, addr, len))
        return mem_write(addr, src, len, cmd);
    return sleep(cycles::kDma.burst_cycles(true, len), cmd) ? Dma::Fault : Dma::Aborted;
}

bool AhciHba::Port::bus_error_injected(bus::BusAccess a, const char *what, uint64_t addr, size_t len) {
    if (hba_error_.armed) {
        hba_error_.armed = false;
        hba_error_.hit = true;
        trace("fault.effect", {{"id", TraceValue::str(hba_error_.id)},
                               {"error", TraceValue::str(hba_error_name(hba_error_.error))},
                               {"irq", TraceValue::str(hba_irq_name(hba_error_.irq))},
                               {"addr", TraceValue::hex(addr)},
                               {"len", TraceValue::integer(int64_t(len))}},
              std::string("the port's engine fails inside on ") + what);
        return true;
    }
    if (!bus_error_.armed || (bus_error_.bus.access != bus::BusAccess::Any && bus_error_.bus.access != a))
        return false;
    bus_error_.armed = false;
    trace("fault.effect", {{"id", TraceValue::str(bus_error_.id)},
                           {"access", TraceValue::str(bus::to_string(a))},
                           {"addr", TraceValue::hex(addr)},
                           {"len", TraceValue::integer(int64_t(len))}},
          std::string("host bus error on ") + what);
    return true;
}

namespace {
const char *is_name(uint32_t bit) {
    switch (bit) {
    case IS_DHRS: return "DHRS";
    case IS_PSS: return "PSS";
    case IS_SDBS: return "SDBS";
    case IS_DPS: return "DPS";
    default: return "?";
    }
}
} // namespace

// A PRD interrupt (DPS) belongs to the command whose completion follows: it is swallowed
// with it but does not use up the count.
bool AhciHba::Port::swallow_completion(uint32_t bit) {
    const bool in_window = sc_core::sc_time_stamp() < lost_irq_.until;
    if (!in_window && lost_irq_.count == 0)
        return false;
    if (!in_window && bit != IS_DPS)
        --lost_irq_.count;
    trace("fault.effect", {{"id", TraceValue::str(lost_irq_.id)},
                           {"irq", TraceValue::str(is_name(bit))},
                           {"ci", TraceValue::hex(ci_)},
                           {"sact", TraceValue::hex(sact_)}},
          std::string("completion interrupt ") + is_name(bit) + " not raised");
    return true;
}

void AhciHba::Port::set_completion_is(uint32_t bit, bool exempt) {
    if (exempt || !swallow_completion(bit))
        set_is(bit);
}

// The host broke a rule of AHCI 1.3.1 (model/fault/README.md, "Protocol violations").
void AhciHba::Port::violation(const char *rule, std::string msg) {
    trace("ahci.violation", {{"rule", TraceValue::str(rule)}}, std::move(msg));
}

// A bus-master access while the function's Bus Master Enable is off (PCI 3.0 6.2.2): the
// request never reaches the bus; the engine sees it as a master abort (Status bit 13).
bool AhciHba::Port::bus_master_ok(uint64_t addr, size_t len) {
    if (hba_.pci_.bus_master())
        return true;
    hba_.pci_.note_master_abort();
    trace("ahci.violation", {{"rule", TraceValue::str("dma_bus_master_off")},
                            {"addr", TraceValue::hex(addr)},
                            {"len", TraceValue::integer(int64_t(len))}},
          "DMA with the PCI function's bus master enable off");
    return false;
}

// A bus-master access the host memory refused: the host programmed an address outside
// every allocation (past the end of a buffer: its guard gap).
void AhciHba::Port::dma_violation(uint64_t addr, size_t len) {
    const bool gap = hba_.mem_.runs_past_allocation(addr, len);
    trace("ahci.violation", {{"rule", TraceValue::str(gap ? "dma_past_allocation" : "dma_unmapped")},
                            {"addr", TraceValue::hex(addr)},
                            {"len", TraceValue::integer(int64_t(len))}},
          gap ? "DMA into the guard gap after an allocation" : "DMA to unmapped host memory");
}

} // namespace satasim::ahci
