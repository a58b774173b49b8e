#include "model/fault/fault_injector.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace satasim::fault {

using sc_core::sc_time;

namespace {

// MMC operation codes that read the disc (READ(10), READ(12), READ CD).
bool is_packet_read(uint8_t op) { return op == 0x28 || op == 0xA8 || op == 0xBE; }

// ATA opcodes that read the media into the host (PIO, DMA, FPDMA).
bool is_read_opcode(uint8_t op) {
    switch (op) {
    case 0x20: case 0x21: case 0x24: case 0x25: case 0x29: case 0xC4: case 0xC8: case 0x60:
        return true;
    default:
        return false;
    }
}

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

} // namespace

bool matches(const CommandMatch &m, const device::CommandInfo &c) {
    switch (m.op) {
    case CommandMatch::Op::Any: break;
    case CommandMatch::Op::Read:
        if (c.packet ? !is_packet_read(c.opcode) : !is_read_opcode(c.opcode))
            return false;
        break;
    case CommandMatch::Op::Write:
        if (!c.write)
            return false;
        break;
    case CommandMatch::Op::Flush:
        if (c.opcode != 0xE7 && c.opcode != 0xEA)
            return false;
        break;
    case CommandMatch::Op::Identify: // IDENTIFY DEVICE, or an ATAPI drive's IDENTIFY PACKET DEVICE
        if (c.packet || (c.opcode != 0xEC && c.opcode != 0xA1))
            return false;
        break;
    case CommandMatch::Op::Ncq:
        if (!c.ncq)
            return false;
        break;
    case CommandMatch::Op::NonNcq:
        if (c.ncq)
            return false;
        break;
    }
    if (m.opcode && *m.opcode != c.opcode)
        return false;
    if (m.lba_first || m.lba_last) {
        if (c.sectors == 0)
            return false; // no data: touches no sector
        uint64_t first = m.lba_first.value_or(0);
        uint64_t last = m.lba_last.value_or(std::numeric_limits<uint64_t>::max());
        uint64_t c_last = c.lba + c.sectors - 1;
        if (c_last < first || c.lba > last)
            return false;
    }
    return true;
}

FaultInjector::FaultInjector(sc_core::sc_module_name name, FaultPlan plan, ModelTrace *trace)
    : sc_core::sc_module(name), plan_(std::move(plan)), trace_(trace), state_(plan_.size()) {
    SC_THREAD(time_thread);
}

// An ATAPI drive's command as the triggers see it: a PACKET command by its CDB's operation
// code, a READ(10)/(12) with its range of 2048-byte blocks (docs/device.md 7).
void FaultInjector::observe_atapi(Target where, atapi::AtapiDevice &cd) {
    cd.set_command_observer([this, where](const atapi::CommandSeen &c) {
        device::CommandInfo ci{c.opcode, false, false, c.lba, c.blocks, -1, c.seq};
        ci.packet = c.packet;
        on_command(where, ci);
    });
}

void FaultInjector::bind_port(Target where, const PortHooks &hooks) {
    ports_[where] = hooks;
    if (hooks.disk)
        hooks.disk->set_command_observer([this, where](const device::CommandInfo &c) { on_command(where, c); });
    if (hooks.atapi)
        observe_atapi(where, *hooks.atapi);
    // Faults counting from power-on are live from the start.
    for (size_t i = 0; i < plan_.size(); ++i)
        if (target_of(plan_[i]) == where && plan_[i].trigger.from_power_on && !state_[i].active)
            activate(i, 0);
}

uint64_t FaultInjector::now_ns() const {
    return uint64_t(sc_core::sc_time_stamp().value() / sc_time(1, sc_core::SC_NS).value());
}

void FaultInjector::activate(size_t i, uint64_t base_ns) {
    State &s = state_[i];
    const Trigger &t = plan_[i].trigger;
    s.active = true;
    s.matches = 0;
    if (t.at_ns) {
        s.next_ns = base_ns + *t.at_ns;
        s.scheduled = true;
        if (sc_core::sc_is_running()) // before sc_start the thread's first pass sees it
            wake_.notify(sc_core::SC_ZERO_TIME);
    }
}

void FaultInjector::workload_started() {
    if (workload_started_)
        return;
    workload_started_ = true;
    uint64_t now = now_ns();
    for (size_t i = 0; i < plan_.size(); ++i)
        if (!plan_[i].trigger.from_power_on && !state_[i].active)
            activate(i, now);
}

void FaultInjector::start_fault(size_t i) {
    if (i < plan_.size() && !state_[i].active)
        activate(i, now_ns());
}

bool FaultInjector::done(size_t i) const {
    unsigned rep = plan_[i].trigger.repeat;
    return rep != 0 && state_[i].fired >= rep;
}

bool FaultInjector::time_firings_pending() const {
    for (size_t i = 0; i < plan_.size(); ++i) {
        const Trigger &t = plan_[i].trigger;
        if (!t.at_ns || t.repeat == 0)
            continue;
        // Not started yet (the workload never began) counts as pending only once it can.
        if (state_[i].scheduled || (!state_[i].active && !workload_started_ && !t.from_power_on))
            return true;
    }
    return false;
}

void FaultInjector::reset() {
    for (auto &[where, h] : ports_) {
        (void)where;
        for (const BlockRow &b : block_table())
            b.disarm(h);
    }
    std::fill(state_.begin(), state_.end(), State{});
    workload_started_ = false;
    // clear_faults() may drop the observer together with the disk's other fault state.
    for (auto &[where, h] : ports_) {
        if (h.disk) {
            Target w = where;
            h.disk->set_command_observer([this, w](const device::CommandInfo &c) { on_command(w, c); });
        }
        if (h.atapi)
            observe_atapi(where, *h.atapi);
    }
    for (size_t i = 0; i < plan_.size(); ++i)
        if (plan_[i].trigger.from_power_on && ports_.count(target_of(plan_[i])))
            activate(i, now_ns());
    if (sc_core::sc_is_running())
        wake_.notify(sc_core::SC_ZERO_TIME);
}

// One thread serves every time trigger: it sleeps until the earliest scheduled firing.
void FaultInjector::time_thread() {
    for (;;) {
        uint64_t now = now_ns();
        uint64_t next = std::numeric_limits<uint64_t>::max();
        for (size_t i = 0; i < plan_.size(); ++i) {
            State &s = state_[i];
            if (!s.scheduled)
                continue;
            if (s.next_ns <= now) {
                fire(i, nullptr);
                const Trigger &t = plan_[i].trigger;
                if (done(i) || t.every_ns == 0) {
                    s.scheduled = false;
                    if (!time_firings_pending())
                        fired_ev_.notify(sc_core::SC_ZERO_TIME);
                } else {
                    s.next_ns += t.every_ns;
                }
            }
            if (s.scheduled)
                next = std::min(next, s.next_ns);
        }
        if (next == std::numeric_limits<uint64_t>::max())
            sc_core::wait(wake_);
        else
            sc_core::wait(sc_time::from_value(sc_dt::uint64(next - now) *
                                              sc_dt::uint64(sc_time(1, sc_core::SC_NS).value())),
                          wake_);
    }
}

void FaultInjector::on_command(Target where, const device::CommandInfo &c) {
    for (size_t i = 0; i < plan_.size(); ++i) {
        const Fault &f = plan_[i];
        State &s = state_[i];
        const Trigger &t = f.trigger;
        if (target_of(f) != where || !s.active || done(i) || t.at_ns)
            continue;
        if (t.on_cmd && !matches(*t.on_cmd, c))
            continue;
        ++s.matches;
        // The first firing on the Nth match (after_cmds; on_cmd: the first), later ones
        // every every_cmds matches (on_cmd default: every match).
        uint64_t need = s.fired == 0 ? t.after_cmds.value_or(1) : std::max<uint64_t>(t.every_cmds, 1);
        if (s.matches < need)
            continue;
        s.matches = 0;
        fire(i, &c);
    }
}

void FaultInjector::fire(size_t i, const device::CommandInfo *cmd) {
    const Fault f = at_firing(plan_[i], cmd);
    State &s = state_[i];
    ++s.fired;
    auto it = ports_.find(target_of(f));
    const PortHooks *h = it == ports_.end() ? nullptr : &it->second;

    TraceRecord r;
    r.src = "fault";
    r.name = "fault.inject";
    r.port = int(f.port);
    r.link = target_of(f).link;
    r.fields = {{"id", TraceValue::str(f.id)},
                {"kind", TraceValue::str(to_string(f.kind))},
                {"port", TraceValue::integer(f.port)}};
    if (f.pmp_port)
        r.fields.emplace_back("pmp_port", TraceValue::integer(*f.pmp_port));
    if (f.devno)
        r.fields.emplace_back("devno", TraceValue::integer(f.devno));
    r.fields.emplace_back("firing", TraceValue::integer(s.fired));
    if (cmd) {
        r.fields.emplace_back("cmd_opcode", TraceValue::hex(cmd->opcode));
        r.fields.emplace_back("cmd_lba", TraceValue::hex(cmd->lba));
        r.fields.emplace_back("cmd_sectors", TraceValue::integer(cmd->sectors));
        r.fields.emplace_back("cmd_tag", TraceValue::integer(cmd->tag));
        r.fields.emplace_back("cmd_seq", TraceValue::integer(int64_t(cmd->seq)));
    }

    const KindRow *row = kind_row(f.kind);
    const Firing firing{f, cmd};
    // The kind's typed parameters (fault_kind_spec.h), as each row's entry says (always, or
    // where it differs from its default), then what the kind's own params function adds.
    trace_params(f, r.fields);
    if (row && row->params)
        row->params(firing, r.fields);
    char where[16];
    std::snprintf(where, sizeof where, f.pmp_port || f.devno ? "ata%u.%02u" : "ata%u", f.port + 1,
                  f.pmp_port.value_or(f.devno));
    r.msg = std::string("inject ") + to_string(f.kind) + " on " + where + " (" + f.id +
            ", firing " + std::to_string(s.fired) + (cmd ? ", command " + hex(cmd->opcode) : std::string()) + ")";
    if (trace_)
        trace_->emit(r);
    if (sc_core::sc_is_running())
        fired_ev_.notify(sc_core::SC_ZERO_TIME);
    if (!h)
        return;

    if (row)
        row->arm(firing, *h);
}

} // namespace satasim::fault
