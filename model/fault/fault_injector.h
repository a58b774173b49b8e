// The fault engine of one scenario: watches each fault's trigger (simulated time, the
// drive's Nth command, a command matching a filter) and, when it fires, emits a
// `fault.inject` record and arms the hook of the block the fault lives in, both as the
// kind's row in fault_kinds.h says (model/fault/README.md). It owns no fault state of its
// own beyond the schedule: the blocks keep what was armed, and reset() disarms both.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "model/common/trace.h"
#include "model/device/sata_disk.h"
#include "model/fault/fault_kinds.h"
#include "model/fault/fault_plan.h"
#include "model/link/sata_link.h"

namespace satasim::fault {

// Where a fault lives: a host port, the fan-out port behind its PMP (-1: none), and the
// device number on a taskfile channel with a slave (1: the slave).
struct Target {
    unsigned port = 0;
    int link = -1;
    unsigned devno = 0;
    bool operator==(const Target &o) const { return port == o.port && link == o.link && devno == o.devno; }
    bool operator!=(const Target &o) const { return !(*this == o); }
    bool operator<(const Target &o) const {
        return port != o.port ? port < o.port : link != o.link ? link < o.link : devno < o.devno;
    }
};
inline Target target_of(const Fault &f) { return {f.port, f.pmp_port ? int(*f.pmp_port) : -1, f.devno}; }

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
    void observe_atapi(Target where, atapi::AtapiDevice &cd);
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

} // namespace satasim::fault
