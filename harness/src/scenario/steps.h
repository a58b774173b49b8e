// Directed low-level steps (scenario key `steps:`): register-level tests run against the
// models without the driver stack. The scenario reader (scenario/section_steps.cpp) turns
// the YAML list into Steps with their file:line; run/directed_steps.cpp runs them. Plain
// data. Documented in scenarios/README.md, section `steps[]`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace satasim::harness {

// device_fis: the FIS a disk sends (the runner builds its bytes).
struct StepFis {
    enum class Type { RegD2H, Sdb, Raw } type = Type::Raw;
    uint8_t status = 0, error = 0, device = 0, pm_port = 0;
    uint64_t lba = 0;      // reg_d2h
    uint16_t count = 0;    // reg_d2h
    uint32_t sactive = 0;  // sdb
    bool irq = true;
    bool notify = false;   // sdb
    std::vector<uint8_t> raw; // raw: the FIS, dword 0 first, little-endian
};

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
    int line = 0;      // the step's line
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
    StepFis fis;
    // inject: index into Scenario::faults
    size_t fault = 0;
    bool wait_fired = false;
    // expect_trace
    std::string ev, src, msg_contains;
    std::optional<int> trace_port;
    std::vector<std::pair<std::string, std::string>> fields; // key, JSON text of the value
    bool absent = false; // expect_trace: no such record
};

// The step names of the file, in the order the messages list them.
inline const std::vector<std::pair<const char *, StepKind>> &step_kinds() {
    static const std::vector<std::pair<const char *, StepKind>> k = {
        {"mmio_write", StepKind::MmioWrite}, {"mmio_read", StepKind::MmioRead}, {"wait_irq", StepKind::WaitIrq},
        {"poll", StepKind::Poll},            {"delay", StepKind::Delay},        {"alloc", StepKind::Alloc},
        {"mem_write", StepKind::MemWrite},   {"mem_expect", StepKind::MemExpect}, {"device_fis", StepKind::DeviceFis},
        {"inject", StepKind::Inject},        {"expect_trace", StepKind::ExpectTrace}};
    return k;
}

inline const char *kind_name(StepKind k) {
    for (const auto &n : step_kinds())
        if (n.second == k)
            return n.first;
    return "?";
}

} // namespace satasim::harness
