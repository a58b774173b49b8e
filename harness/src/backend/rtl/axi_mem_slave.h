// The shell's AXI4 slave in front of the host memory model: what the DUT's DMA master
// (AXI4, AXI3-compatible INCR bursts) reads the command list, tables and data from and
// writes received FISes and data to. Configurable read/write latency, outstanding-burst
// limits and seeded random backpressure (AxiSlaveConfig); an access outside every host
// memory allocation answers DECERR (the HBA must stop with HBFS) and is reported as the
// models report it (rtl.violation dma_unmapped / dma_past_allocation); an error hook (the
// shell's host_bus_error fault) may answer a mapped burst SLVERR or DECERR. Its protocol checker
// reports every AXI rule the DUT breaks as an `axi.violation` record (rule names in
// docs/rtl-controller.md): VALID dropped before READY, payload changed while waiting,
// WLAST off the last beat, bursts that are not INCR, longer than 16 beats, wider than the
// bus, unaligned or across a 4 KiB boundary, more W beats than announced.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "backend/rtl/dut_abi.h"
#include "backend/rtl/dut_profile.h"
#include "model/bus/host_memory.h"
#include "model/common/trace.h"
#include "util/prng.h"

namespace satasim::harness::rtl {

// AXI xRESP values (IHI0022 A3.4.4): the error responses the shell gives and records.
constexpr unsigned kAxiSlvErr = 2, kAxiDecErr = 3;

class AxiMemSlave {
  public:
    AxiMemSlave(bus::HostMemory &mem, const AxiSlaveConfig &cfg, unsigned data_width, uint64_t seed,
                ModelTrace *trace);

    // Before the edge: the slave's outputs (READYs, R and B channels) into pins.
    void drive(satasim_dut_pins &p);
    // After tick(): the handshakes of this edge (pins hold the sampled DUT outputs).
    void edge(const satasim_dut_pins &p);
    // Nothing outstanding and no VALID from the DUT (the shell may stop the clock).
    bool idle(const satasim_dut_pins &p) const;

    // Asked for each burst the slave accepts in host memory: its response for the whole
    // burst (0 OKAY, 2 SLVERR, 3 DECERR). An errored burst moves no data.
    using ErrorHook = std::function<unsigned(uint64_t addr, size_t len, bool write)>;
    void set_error_hook(ErrorHook h) { error_hook_ = std::move(h); }

    uint64_t violations() const { return violations_; }
    uint64_t bursts() const { return bursts_; }

  private:
    struct Burst {
        uint64_t addr;
        unsigned beats, size;
        unsigned done = 0;
        uint64_t ready_at = 0; // cycle from which the response may go out
        uint8_t resp = 0;       // the response of every beat (0 OKAY: data moves)
    };
    void check_request(const char *ch, uint64_t addr, unsigned len, unsigned size, unsigned burst);
    void violation(const char *rule, const std::string &msg);
    bool mapped(uint64_t addr, size_t len, const char *what);
    uint8_t response(uint64_t addr, size_t len, bool write, const char *what);
    bool hold_off() { return cfg_.backpressure_pct && rng_.below(100) < cfg_.backpressure_pct; }

    bus::HostMemory &mem_;
    AxiSlaveConfig cfg_;
    unsigned bytes_; // bus width in bytes
    Rng rng_;
    ModelTrace *trace_;
    uint64_t cycle_ = 0;
    // this cycle's READYs / response VALIDs as driven (the handshake is decided on them)
    bool arready_ = false, awready_ = false, wready_ = false;
    bool rvalid_ = false, bvalid_ = false;
    std::deque<Burst> reads_, writes_; // accepted, in order (no IDs: responses in order)
    std::deque<Burst> w_pending_;      // writes whose W beats are still coming
    std::deque<Burst> b_pending_;      // writes waiting for their B
    // the last cycle's DUT VALIDs with their payload (VALID held until READY, stable)
    struct Held {
        bool valid = false;
        uint64_t addr = 0;
        unsigned a = 0, b = 0, c = 0;
        uint32_t data[SATASIM_DUT_MAX_DW_WORDS] = {};
    } ar_, aw_, w_;
    uint64_t violations_ = 0;
    uint64_t bursts_ = 0;
    ErrorHook error_hook_;
};

} // namespace satasim::harness::rtl
