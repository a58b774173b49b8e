// Fault hooks of the AHCI model (model/fault/README.md).
// Lost completion interrupts: the command still completes (PxCI / PxSACT clear, the FIS
// lands in the received-FIS area); only the PxIS completion bit (DHRS, PSS, SDBS, DPS)
// stays clear, so no interrupt is raised. Error and PHY interrupts (TFES, IFS, HBFS, PRCS,
// PCS, ...) are never affected.
// Host bus errors: the port's next DMA access of a class (data buffer, command list and
// tables, FIS area) is answered with a bus error, as a PCI master or target abort would be;
// the engine stops with PxIS.HBFS (AHCI 1.3.1 3.3.5, 6.1; docs/hardware.md 5.9).
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

void AhciHba::Port::clear_faults() {
    lost_irq_ = LostIrq{};
    bus_error_ = BusError{};
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
