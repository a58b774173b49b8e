// The AXI4 memory slave and protocol checker of the DUT shell (axi_mem_slave.h).
#include "backend/rtl/axi_mem_slave.h"

#include <cstring>

namespace satasim::harness::rtl {

namespace {
constexpr unsigned kOkay = 0, kDecerr = 3;
constexpr unsigned kIncr = 1;
} // namespace

AxiMemSlave::AxiMemSlave(bus::HostMemory &mem, const AxiSlaveConfig &cfg, unsigned data_width, uint64_t seed,
                         ModelTrace *trace)
    : mem_(mem), cfg_(cfg), bytes_(data_width / 8), rng_(seed), trace_(trace) {}

void AxiMemSlave::violation(const char *rule, const std::string &msg) {
    ++violations_;
    if (!trace_)
        return;
    TraceRecord r;
    r.src = "axi";
    r.name = "axi.violation";
    r.fields.emplace_back("rule", TraceValue::str(rule));
    r.fields.emplace_back("cycle", TraceValue::integer(int64_t(cycle_)));
    r.msg = msg;
    trace_->emit(r);
}

// AXI4 A3.4: bursts the shell's contract allows (INCR, 1..16 beats, at most the bus
// width per beat, aligned to the beat size, inside one 4 KiB page).
void AxiMemSlave::check_request(const char *ch, uint64_t addr, unsigned len, unsigned size, unsigned burst) {
    const std::string at = std::string(ch) + " 0x" + [&] {
        char b[24];
        std::snprintf(b, sizeof b, "%llx", (unsigned long long)addr);
        return std::string(b);
    }();
    if (burst != kIncr)
        violation("burst_type", at + ": burst type " + std::to_string(burst) + ", the shell takes INCR (1) only");
    if (len > 15)
        violation("burst_length", at + ": " + std::to_string(len + 1) + " beats (AXI3-compatible: at most 16)");
    if ((1u << size) > bytes_)
        violation("burst_size", at + ": " + std::to_string(1u << size) + "-byte beats on a " +
                                    std::to_string(bytes_) + "-byte bus");
    if (addr & ((1u << size) - 1))
        violation("unaligned", at + ": not aligned to the " + std::to_string(1u << size) + "-byte beat size");
    if ((addr & 0xFFF) + uint64_t(len + 1) * (1u << size) > 0x1000)
        violation("crosses_4k", at + ": a " + std::to_string((len + 1) * (1u << size)) +
                                    "-byte burst crosses a 4 KiB boundary");
}

bool AxiMemSlave::mapped(uint64_t addr, size_t len, const char *what) {
    if (mem_.map(addr, len))
        return true;
    const bool gap = mem_.runs_past_allocation(addr, len);
    if (trace_) {
        TraceRecord r;
        r.src = "axi";
        r.name = "rtl.violation";
        r.fields.emplace_back("rule", TraceValue::str(gap ? "dma_past_allocation" : "dma_unmapped"));
        r.fields.emplace_back("addr", TraceValue::hex(addr));
        r.fields.emplace_back("len", TraceValue::integer(int64_t(len)));
        r.msg = std::string(what) + (gap ? " into the guard gap after an allocation" : " of unmapped host memory") +
                ": DECERR";
        trace_->emit(r);
    }
    return false;
}

// DECERR outside host memory, else what the error hook says.
uint8_t AxiMemSlave::response(uint64_t addr, size_t len, bool write, const char *what) {
    if (!mapped(addr, len, what))
        return kDecerr;
    return uint8_t(error_hook_ ? error_hook_(addr, len, write) : kOkay);
}

void AxiMemSlave::drive(satasim_dut_pins &p) {
    arready_ = reads_.size() < cfg_.max_reads && !hold_off();
    awready_ = w_pending_.size() + b_pending_.size() < cfg_.max_writes && !hold_off();
    wready_ = !w_pending_.empty() && !hold_off();
    // A response VALID, once up, stays up with its payload until READY (AXI4 A3.2.1).
    if (!rvalid_ && !reads_.empty() && reads_.front().ready_at <= cycle_)
        rvalid_ = !hold_off();
    if (rvalid_) {
        const Burst &b = reads_.front();
        const unsigned sz = 1u << b.size;
        const uint64_t beat = b.addr + uint64_t(b.done) * sz;
        uint8_t lanes[SATASIM_DUT_MAX_DW_WORDS * 4] = {};
        if (b.resp == kOkay)
            mem_.read(beat, lanes + (beat % bytes_), sz);
        std::memcpy(p.m_rdata, lanes, sizeof lanes);
        p.m_rresp = b.resp;
        p.m_rlast = b.done + 1 == b.beats;
    } else {
        std::memset(p.m_rdata, 0, sizeof p.m_rdata);
        p.m_rresp = 0;
        p.m_rlast = 0;
    }
    if (!bvalid_ && !b_pending_.empty() && b_pending_.front().ready_at <= cycle_)
        bvalid_ = !hold_off();
    p.m_bresp = bvalid_ ? b_pending_.front().resp : uint8_t(kOkay);
    p.m_arready = arready_;
    p.m_awready = awready_;
    p.m_wready = wready_;
    p.m_rvalid = rvalid_;
    p.m_bvalid = bvalid_;
}

void AxiMemSlave::edge(const satasim_dut_pins &p) {
    // ---- handshake rules: a VALID not yet taken stays up, its payload unchanged
    auto hold = [&](Held &h, const char *ch, bool valid, uint64_t addr, unsigned a, unsigned b, unsigned c,
                    const uint32_t *data, bool ready) {
        if (h.valid) {
            if (!valid)
                violation("valid_dropped", std::string(ch) + "VALID dropped before " + ch + "READY");
            else if (addr != h.addr || a != h.a || b != h.b || c != h.c ||
                     (data && std::memcmp(data, h.data, sizeof h.data) != 0))
                violation("payload_changed", std::string(ch) + " payload changed while " + ch + "VALID waited");
        }
        h.valid = valid && !ready;
        h.addr = addr;
        h.a = a;
        h.b = b;
        h.c = c;
        if (data)
            std::memcpy(h.data, data, sizeof h.data);
    };
    hold(ar_, "AR", p.m_arvalid, p.m_araddr, p.m_arlen, p.m_arsize, p.m_arburst, nullptr, arready_);
    hold(aw_, "AW", p.m_awvalid, p.m_awaddr, p.m_awlen, p.m_awsize, p.m_awburst, nullptr, awready_);
    hold(w_, "W", p.m_wvalid, 0, p.m_wstrb, p.m_wlast, 0, p.m_wdata, wready_);

    if (p.m_arvalid && arready_) {
        check_request("AR", p.m_araddr, p.m_arlen, p.m_arsize, p.m_arburst);
        Burst b{p.m_araddr, unsigned(p.m_arlen) + 1, std::min<unsigned>(p.m_arsize, 4)};
        b.ready_at = cycle_ + cfg_.read_latency;
        b.resp = response(b.addr, size_t(b.beats) << b.size, false, "DMA read");
        reads_.push_back(b);
        ++bursts_;
    }
    if (p.m_awvalid && awready_) {
        check_request("AW", p.m_awaddr, p.m_awlen, p.m_awsize, p.m_awburst);
        Burst b{p.m_awaddr, unsigned(p.m_awlen) + 1, std::min<unsigned>(p.m_awsize, 4)};
        b.resp = response(b.addr, size_t(b.beats) << b.size, true, "DMA write");
        w_pending_.push_back(b);
        ++bursts_;
    }
    if (p.m_wvalid && wready_) {
        Burst &b = w_pending_.front();
        const bool last = b.done + 1 == b.beats;
        if (bool(p.m_wlast) != last)
            violation("wlast", "WLAST " + std::string(p.m_wlast ? "on beat " : "missing on the last beat ") +
                                   std::to_string(b.done + 1) + " of " + std::to_string(b.beats));
        if (b.resp == kOkay) {
            const unsigned sz = 1u << b.size;
            const uint64_t beat = b.addr + uint64_t(b.done) * sz;
            const uint8_t *lanes = reinterpret_cast<const uint8_t *>(p.m_wdata);
            if (uint8_t *dst = mem_.map(beat, sz))
                for (unsigned i = 0; i < sz; ++i) {
                    const unsigned lane = unsigned(beat % bytes_) + i;
                    if (p.m_wstrb >> lane & 1u)
                        dst[i] = lanes[lane];
                }
        }
        if (++b.done == b.beats) {
            b.ready_at = cycle_ + cfg_.write_latency;
            b_pending_.push_back(b);
            w_pending_.pop_front();
        }
    }
    if (rvalid_ && p.m_rready) {
        rvalid_ = false;
        if (++reads_.front().done == reads_.front().beats)
            reads_.pop_front();
    }
    if (bvalid_ && p.m_bready) {
        bvalid_ = false;
        b_pending_.pop_front();
    }
    ++cycle_;
}

bool AxiMemSlave::idle(const satasim_dut_pins &p) const {
    return reads_.empty() && w_pending_.empty() && b_pending_.empty() && !p.m_arvalid && !p.m_awvalid &&
           !p.m_wvalid;
}

} // namespace satasim::harness::rtl
