// Directed low-level steps (scenario key `steps:`): register-level tests run against the
// models without the driver stack. The parser (parse_steps) turns the YAML list into Steps
// with their file:line; run_steps executes them in the harness's process context
// (an SC_THREAD), MMIO through the controller's bus target as the stack's goes. Every
// failed expectation is a reason naming the step's file:line and the actual value.
// Documented in scenarios/README.md, section `steps[]`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace YAML {
class Node;
}

namespace satasim::harness {

struct Topology;
class TraceSink;
struct RunFailures;
class PlatformBinding;

// An address or 32-bit value: a constant, or a named allocation plus an offset
// (`${name}`, `${name}+0x80`, `{alloc: name, offset: 0x80}`).
struct StepValue {
    std::string alloc; // empty: constant
    uint64_t value = 0; // the constant, or the offset into the allocation
};

enum class StepKind { MmioWrite, MmioRead, WaitIrq, Poll, Delay, Alloc, MemWrite, MemExpect, DeviceFis, Inject, ExpectTrace };

struct Step {
    StepKind kind = StepKind::Delay;
    std::string where; // "file:line"
    unsigned index = 0;
    // mmio_write / mmio_read / poll
    uint32_t offset = 0;
    StepValue value;                 // mmio_write value; poll value
    std::optional<StepValue> expect; // mmio_read
    uint32_t mask = 0xffffffffu;
    uint64_t timeout_ns = 0, interval_ns = 1000, delay_ns = 0;
    bool irq_level = true; // wait_irq: wait for asserted (true) or deasserted
    // alloc
    std::string name;
    uint64_t size = 0, align = 0;
    // mem_write / mem_expect: bytes (dwords are stored as 4 little-endian bytes each,
    // with their StepValues kept for late resolution of allocation addresses)
    StepValue addr;
    std::vector<uint8_t> bytes;
    std::vector<StepValue> dwords;
    std::vector<uint8_t> byte_mask; // mem_expect: per byte (all 0xff unless dword masks)
    // device_fis
    unsigned port = 0;
    std::vector<uint8_t> fis;
    // inject: index into Scenario::faults
    size_t fault = 0;
    bool wait_fired = false;
    // expect_trace
    std::string ev, src, msg_contains;
    std::optional<int> trace_port;
    std::vector<std::pair<std::string, std::string>> fields; // key, JSON text of the value
    bool absent = false; // expect_trace: no such record
};

// Parsing context supplied by scenario_parser.cpp.
struct StepParseContext {
    // "file:line: path: msg" as a thrown ScenarioError.
    std::function<void(int line, const std::string &path, const std::string &msg)> fail;
    // "file:line" for a line at path (the file may be an included one).
    std::function<std::string(int line, const std::string &path)> where;
    // Ports that have a disk (device_fis needs its link).
    std::function<bool(unsigned port)> has_disk;
    unsigned ports = 0;
    // Parses one fault entry (as in faults[]) and appends it to the scenario; returns its index.
    std::function<size_t(const YAML::Node &node, const std::string &path, int line)> add_fault;
};

std::vector<Step> parse_steps(const YAML::Node &list, const std::string &path, int line,
                              const StepParseContext &ctx);

// Runs the steps (call from an SC_THREAD); failures go to `failures`.
void run_steps(const std::vector<Step> &steps, Topology &topo, PlatformBinding &binding, TraceSink &sink,
               RunFailures &failures);

} // namespace satasim::harness
