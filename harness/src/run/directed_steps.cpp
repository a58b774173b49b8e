#include "run/directed_steps.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include <systemc>

#include "model/sata/fis.h"
#include "backend/hardware_view.h"
#include "backend/platform_binding.h"
#include "backend/rules.h"
#include "scenario/scenario.h"
#include "trace/trace_sink.h"
#include "scenario/units.h"
#include "run/workload.h"

namespace satasim::harness {

namespace {

std::string hex32(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%08llx", (unsigned long long)v);
    return b;
}

// A device_fis step's FIS (scenario/steps.h) as the disk sends it.
sata::Fis make_fis(const StepFis &f) {
    switch (f.type) {
    case StepFis::Type::RegD2H: return sata::make_reg_d2h(f.status, f.error, f.lba, f.device, f.count, f.irq, f.pm_port);
    case StepFis::Type::Sdb: return sata::make_sdb(f.status, f.error, f.sactive, f.irq, f.notify, f.pm_port);
    case StepFis::Type::Raw: break;
    }
    sata::Fis fis;
    fis.bytes = f.raw;
    return fis;
}

sc_core::sc_time ns(uint64_t n) {
    return sc_core::sc_time::from_value(sc_dt::uint64(n) * sc_dt::uint64(sc_core::sc_time(1, sc_core::SC_NS).value()));
}

uint64_t now_ns() {
    return uint64_t(sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_NS).value());
}

class StepRunner {
  public:
    StepRunner(const Scenario &c, const BackendRules &r, HardwareView &h, PlatformBinding &b, TraceSink &s,
               RunFailures &f, std::vector<std::string> &sk)
        : sc(c), rules(r), hw(h), binding(b), sink(s), failures(f), skipped(sk) {
        sink.set_record_hook([this](const std::string &line) { lines.push_back(line); });
    }
    ~StepRunner() { sink.set_record_hook(nullptr); }

    uint64_t resolve(const StepValue &v) const {
        if (v.alloc.empty())
            return v.value;
        return allocs.at(v.alloc) + v.value;
    }

    void note(const Step &s, const std::string &msg) {
        sink.emit_harness("step", SATA_TC_INFO, -1,
                          {{"index", TraceValue::integer(int64_t(s.index))},
                           {"kind", TraceValue::str(kind_name(s.kind))}},
                          "step " + std::to_string(s.index) + " (" + s.where + "): " + msg);
    }
    // A step the backend cannot observe: not run, the reason recorded.
    void skip(const Step &s, const std::string &why) {
        std::string r = s.where + ": steps[" + std::to_string(s.index) + "] " + kind_name(s.kind) + ": " + why;
        sink.emit_harness("step.skip", SATA_TC_INFO, -1,
                          {{"index", TraceValue::integer(int64_t(s.index))},
                           {"kind", TraceValue::str(kind_name(s.kind))}},
                          "skipped on backend " + sc.backend + ": " + r);
        skipped.push_back(std::move(r));
    }
    void fail(const Step &s, const std::string &msg) {
        std::string r = s.where + ": steps[" + std::to_string(s.index) + "] " + kind_name(s.kind) + ": " + msg;
        failures.add(r);
        sink.emit_harness("step.fail", SATA_TC_INFO, -1,
                          {{"index", TraceValue::integer(int64_t(s.index))},
                           {"kind", TraceValue::str(kind_name(s.kind))}},
                          "FAILED " + r);
    }

    bool trace_matches(const Step &s, const std::string &line) const {
        auto has = [&](const std::string &needle) { return line.find(needle) != std::string::npos; };
        if (!has("\"ev\":\"" + s.ev + "\""))
            return false;
        if (!s.src.empty() && !has("\"src\":\"" + s.src + "\""))
            return false;
        if (s.trace_port && !has("\"port\":" + std::to_string(*s.trace_port) + ","))
            return false;
        for (const auto &kv : s.fields)
            if (!has("\"" + kv.first + "\":" + kv.second))
                return false;
        if (!s.msg_contains.empty()) {
            size_t m = line.find(",\"msg\":");
            if (m == std::string::npos || line.find(s.msg_contains, m) == std::string::npos)
                return false;
        }
        return true;
    }

    void run(const Step &s);

    const Scenario &sc;
    const BackendRules &rules;
    HardwareView &hw;
    PlatformBinding &binding;
    TraceSink &sink;
    RunFailures &failures;
    std::vector<std::string> &skipped;
    std::map<std::string, uint64_t> allocs;
    std::vector<std::string> lines;
};

void StepRunner::run(const Step &s) {
    if (std::string why = rules.skips_step(s); !why.empty()) {
        skip(s, why);
        return;
    }
    switch (s.kind) {
    case StepKind::MmioWrite: {
        uint32_t v = uint32_t(resolve(s.value));
        binding.mmio_write32(s.offset, v);
        note(s, "mmio_write " + hex32(s.offset) + " = " + hex32(v));
        break;
    }
    case StepKind::MmioRead: {
        uint32_t v = binding.mmio_read32(s.offset);
        if (!s.expect) {
            note(s, "mmio_read " + hex32(s.offset) + " = " + hex32(v));
            break;
        }
        uint32_t want = uint32_t(resolve(*s.expect));
        if ((v & s.mask) != (want & s.mask))
            fail(s, "register " + hex32(s.offset) + " reads " + hex32(v) + ", expected " + hex32(want) +
                        (s.mask != 0xffffffffu ? " under mask " + hex32(s.mask) : ""));
        else
            note(s, "mmio_read " + hex32(s.offset) + " = " + hex32(v) + " (as expected)");
        break;
    }
    case StepKind::WaitIrq: {
        const uint64_t deadline = now_ns() + s.timeout_ns;
        while (hw.irq_level() != s.irq_level && now_ns() < deadline)
            sc_core::wait(ns(deadline - now_ns()), hw.irq_changed_event());
        if (hw.irq_level() != s.irq_level)
            fail(s, std::string("interrupt line not ") + (s.irq_level ? "asserted" : "deasserted") + " within " +
                        std::to_string(s.timeout_ns) + " ns");
        else
            note(s, std::string("interrupt line ") + (s.irq_level ? "asserted" : "deasserted"));
        break;
    }
    case StepKind::Poll: {
        const uint32_t want = uint32_t(resolve(s.value));
        const uint64_t deadline = now_ns() + s.timeout_ns;
        uint32_t v = binding.mmio_read32(s.offset);
        while ((v & s.mask) != (want & s.mask) && now_ns() < deadline) {
            // hardware that cannot change on its own: the read at the deadline reads the same
            const uint64_t step = hw.settled() ? deadline - now_ns() : std::min(s.interval_ns, deadline - now_ns());
            sc_core::wait(ns(step));
            v = binding.mmio_read32(s.offset);
        }
        if ((v & s.mask) != (want & s.mask))
            fail(s, "register " + hex32(s.offset) + " still reads " + hex32(v) + " after " +
                        std::to_string(s.timeout_ns) + " ns, waiting for " + hex32(want) + " under mask " +
                        hex32(s.mask));
        else
            note(s, "poll " + hex32(s.offset) + " = " + hex32(v));
        break;
    }
    case StepKind::Delay:
        sc_core::wait(ns(s.delay_ns));
        break;
    case StepKind::Alloc: {
        uint64_t a = hw.mem_alloc(size_t(s.size), size_t(s.align));
        allocs[s.name] = a;
        note(s, "alloc " + s.name + " = " + hex32(a) + " (" + std::to_string(s.size) + " bytes)");
        break;
    }
    case StepKind::MemWrite:
    case StepKind::MemExpect: {
        std::vector<uint8_t> data = s.bytes;
        for (const StepValue &d : s.dwords) {
            uint32_t w = uint32_t(resolve(d));
            for (int b = 0; b < 4; ++b)
                data.push_back(uint8_t(w >> (8 * b)));
        }
        uint64_t a = resolve(s.addr);
        if (s.kind == StepKind::MemWrite) {
            if (!hw.mem_write(a, data.data(), data.size()))
                fail(s, "host memory " + hex32(a) + " (+" + std::to_string(data.size()) + ") is not allocated");
            else
                note(s, "mem_write " + hex32(a) + " (" + std::to_string(data.size()) + " bytes)");
            break;
        }
        std::vector<uint8_t> got(data.size());
        if (!hw.mem_read(a, got.data(), got.size())) {
            fail(s, "host memory " + hex32(a) + " (+" + std::to_string(data.size()) + ") is not allocated");
            break;
        }
        size_t bad = data.size();
        for (size_t i = 0; i < data.size(); ++i)
            if ((got[i] & s.byte_mask[i]) != (data[i] & s.byte_mask[i])) {
                bad = i;
                break;
            }
        if (bad == data.size()) {
            note(s, "mem_expect " + hex32(a) + " (" + std::to_string(data.size()) + " bytes) as expected");
            break;
        }
        auto show = [](const std::vector<uint8_t> &v) {
            std::string o;
            char b[4];
            for (uint8_t c : v) {
                std::snprintf(b, sizeof b, "%02x", c);
                o += o.empty() ? "" : " ";
                o += b;
            }
            return o;
        };
        fail(s, "host memory at " + hex32(a + bad) + " (byte " + std::to_string(bad) + "): got [" + show(got) +
                    "], expected [" + show(data) + "]");
        break;
    }
    case StepKind::DeviceFis: {
        sata::Fis fis = make_fis(s.fis);
        if (!hw.send_device_fis(s.port, fis))
            fail(s, "the FIS was not delivered on link" + std::to_string(s.port) + " (the host did not take it)");
        else
            note(s, "device_fis port " + std::to_string(s.port) + " type " + hex32(fis.bytes.at(0)));
        break;
    }
    case StepKind::Inject: {
        FaultEngine *faults = hw.faults();
        if (!faults) { // the rules of a backend without a fault engine refuse the scenario
            fail(s, "backend " + sc.backend + " has no fault engine");
            break;
        }
        faults->start(s.fault);
        if (s.wait_fired)
            while (!faults->fired(s.fault))
                sc_core::wait(faults->fired_event());
        note(s, "inject " + sc.faults.at(s.fault).id);
        break;
    }
    case StepKind::ExpectTrace: {
        bool found = false;
        for (const std::string &l : lines)
            if (trace_matches(s, l)) {
                found = true;
                break;
            }
        if (found == s.absent)
            fail(s, std::string(s.absent ? "found" : "no") + " trace record with ev " + s.ev +
                        (s.src.empty() ? "" : " src " + s.src) +
                        (s.trace_port ? " port " + std::to_string(*s.trace_port) : "") +
                        (s.fields.empty() ? "" : " and the given fields") +
                        (s.msg_contains.empty() ? "" : " and a message containing \"" + s.msg_contains + "\"") +
                        (s.absent ? "" : " so far"));
        else
            note(s, "expect_trace " + s.ev + (s.absent ? " absent" : " seen"));
        break;
    }
    }
}

} // namespace

void run_steps(const Scenario &sc, const BackendRules &rules, HardwareView &hw, PlatformBinding &binding,
               TraceSink &sink, RunFailures &failures, std::vector<std::string> &skipped) {
    StepRunner r(sc, rules, hw, binding, sink, failures, skipped);
    for (const Step &s : sc.steps)
        r.run(s);
}

} // namespace satasim::harness
