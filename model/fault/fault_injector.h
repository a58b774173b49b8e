// The fault engine of one scenario: watches each fault's trigger (simulated time, the
// drive's Nth command, a command matching a filter) and, when it fires, emits a
// `fault.inject` record and calls the hook of the block the fault lives in
// (model/fault/README.md). It owns no fault state of its own beyond the schedule: the
// blocks keep what was armed, and reset() disarms both.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "model/common/trace.h"
#include "model/device/sata_disk.h"
#include "model/fault/fault_plan.h"
#include "model/link/sata_link.h"

namespace satasim::fault {

// The hooks of one disk: on a host port, or behind the port multiplier there. The
// controller and the port multiplier are reached through callbacks so that this block does
// not depend on which HBA model the scenario uses.
struct PortHooks {
    device::SataDisk *disk = nullptr;
    link::SataLink *link = nullptr; // the disk's own link (a fan-out link behind a PMP)
    std::function<void(unsigned count, uint64_t window_ns, const std::string &id)> lost_irq;
    std::function<void()> clear_hba; // the controller's clear_faults() (shared by all ports)
    std::function<void(const std::string &id)> pmp_hang; // the port's PMP control port hangs
    std::function<void()> clear_pmp;                      // and its faults are cleared
};

// Where a fault lives: a host port, and the fan-out port behind its PMP (-1: none).
using Target = std::pair<unsigned, int>;
inline Target target_of(const Fault &f) { return {f.port, f.pmp_port ? int(*f.pmp_port) : -1}; }

class FaultInjector : public sc_core::sc_module {
  public:
    SC_HAS_PROCESS(FaultInjector);
    FaultInjector(sc_core::sc_module_name name, FaultPlan plan, ModelTrace *trace = nullptr);

    // Before sc_start: the blocks of the disk at `where`. Installs the disk's command observer.
    void bind_port(Target where, const PortHooks &hooks);
    // The workload starts now: triggers that count from the workload start begin counting.
    void workload_started();
    // Starts one fault's trigger now (a directed `inject` step; times count from here).
    void start_fault(size_t fault);
    // Back to the state after construction and bind_port(): nothing fired, the workload
    // not started, every block's armed faults cleared.
    void reset();

    const FaultPlan &plan() const { return plan_; }
    unsigned fired(size_t fault) const { return state_.at(fault).fired; }
    // Time-triggered firings still to come (faults firing for ever are not counted).
    bool time_firings_pending() const;
    // Notified whenever a fault fires (and when the time schedule runs out).
    const sc_core::sc_event &fired_event() const { return fired_ev_; }

  private:
    struct State {
        unsigned fired = 0;
        bool active = false;      // counting has begun (power-on, or workload start)
        uint64_t next_ns = 0;     // time trigger: when it fires next
        bool scheduled = false;
        uint64_t matches = 0;     // command triggers: matching commands since the last firing
    };

    void time_thread();
    void on_command(Target where, const device::CommandInfo &c);
    void activate(size_t i, uint64_t now_ns);
    void fire(size_t i, const device::CommandInfo *cmd);
    bool done(size_t i) const;
    uint64_t now_ns() const;

    FaultPlan plan_;
    ModelTrace *trace_;
    std::map<Target, PortHooks> ports_;
    std::vector<State> state_;
    bool workload_started_ = false;
    sc_core::sc_event wake_;
    sc_core::sc_event fired_ev_;
};

// Whether a command matches a filter (op class, opcode, LBA range).
bool matches(const CommandMatch &m, const device::CommandInfo &c);
const char *to_string(CommandMatch::Op op);

} // namespace satasim::fault
