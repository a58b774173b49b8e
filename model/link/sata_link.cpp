// FIS-level SATA wire: PHY state (OOB, speed negotiation) and frame delivery with the
// transmission handshake's timing (docs/hardware.md 2.1, 2.3, 2.5, 3.1).
#include "model/link/sata_link.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "model/link/link_rtl.h"
#include "model/link/link_wave.h"

namespace satasim::link {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;

namespace {

double line_gbps(Gen gen) {
    switch (gen) {
    case Gen::Gen1:
        return 1.5;
    case Gen::Gen2:
        return 3.0;
    case Gen::Gen3:
        return 6.0;
    case Gen::None:
        break;
    }
    return 0;
}

constexpr double kUiOobNs = 1.0 / 1.5; // Gen1 unit interval, 666.67 ps

} // namespace

const char *to_string(LinkError e) {
    switch (e) {
    case LinkError::RxCrc:
        return "rx_crc";
    case LinkError::RxSequence:
        return "rx_sequence";
    case LinkError::RxDecode:
        return "rx_decode";
    case LinkError::RxDisparity:
        return "rx_disparity";
    case LinkError::TxRErr:
        return "tx_r_err";
    case LinkError::TxAborted:
        return "tx_aborted";
    }
    return "?";
}

const char *to_string(PowerState s) {
    switch (s) {
    case PowerState::Active:
        return "active";
    case PowerState::Partial:
        return "partial";
    case PowerState::Slumber:
        return "slumber";
    case PowerState::DevSleep:
        return "devsleep";
    }
    return "?";
}

const char *to_string(PmResult r) {
    switch (r) {
    case PmResult::Entered:
        return "pmack";
    case PmResult::Denied:
        return "pmnak";
    case PmResult::Busy:
        return "busy";
    case PmResult::NoLink:
        return "nolink";
    }
    return "?";
}

uint32_t serror_bits(LinkError e) {
    constexpr uint32_t kErrT = 1u << 8, kDiagB = 1u << 19, kDiagD = 1u << 20, kDiagC = 1u << 21,
                       kDiagS = 1u << 23;
    switch (e) {
    case LinkError::RxCrc:
        return kDiagC | kErrT;
    case LinkError::RxSequence:
        return kDiagS | kErrT;
    case LinkError::RxDecode:
        return kDiagB | kErrT;
    case LinkError::RxDisparity:
        return kDiagD | kErrT;
    case LinkError::TxRErr:
    case LinkError::TxAborted:
        break;
    }
    return 0;
}

namespace {
// The decoder flags of a dword whose bits `mask` flipped: the bytes the mask touches, as
// code or disparity errors (none for SymbolError::None).
SataLink::SymbolFlags symbol_flags(SymbolError kind, uint32_t mask) {
    uint8_t bytes = 0;
    for (unsigned b = 0; b < 4; ++b)
        if ((mask >> (8 * b)) & 0xFFu)
            bytes |= uint8_t(1u << b);
    SataLink::SymbolFlags f;
    if (kind == SymbolError::Code)
        f.code = bytes;
    else if (kind == SymbolError::Disparity)
        f.disparity = bytes;
    return f;
}
} // namespace

// The cable between the two RTL instances as the fault hooks see it: flips bits of a
// chosen data dword of the current frame, replaces chosen primitives.
class SataLink::Wire : public LinkRtlPair::WireHook {
  public:
    struct Flip {
        bool armed = false;
        unsigned index = 0;
        uint32_t mask = 0;
        bool in_frame = false;
        unsigned seen = 0;
        SymbolError symbol = SymbolError::None;
    };
    Flip flip[2]; // [0] host->device, [1] device->host
    SymbolFlags flags[2]; // the decoder flags of the dword a flip hit, until taken
    std::vector<PrimitiveFault> prims;
    unsigned fired = 0;

    // False while on_dword would neither change nor observe anything: the pair then skips
    // the hook (two virtual calls per dword clock). Checked before every burst of ticks.
    bool active() const { return flip[0].armed || flip[1].armed || !prims.empty() || wave; }

    void on_dword(bool from_host, uint32_t &d, bool &isk) override {
        Flip &f = flip[from_host ? 0 : 1];
        if (f.armed) {
            if (isk) {
                if (d == prim::kSof) {
                    f.in_frame = true;
                    f.seen = 0;
                } else if (d == prim::kEof) {
                    f.in_frame = false;
                }
            } else if (f.in_frame && f.seen++ == f.index) {
                d ^= f.mask;
                f.armed = false;
                ++fired;
                SymbolFlags &got = flags[from_host ? 0 : 1];
                const SymbolFlags hit = symbol_flags(f.symbol, f.mask);
                got.code |= hit.code;
                got.disparity |= hit.disparity;
            }
        }
        if (isk && !prims.empty()) {
            for (size_t i = 0; i < prims.size(); ++i) {
                PrimitiveFault &p = prims[i];
                if (p.from_host != from_host || p.primitive != d)
                    continue;
                if (--p.nth == 0) {
                    d = p.replacement;
                    isk = p.replacement_isk;
                    prims.erase(prims.begin() + long(i));
                    ++fired;
                }
                break;
            }
        }
        if (wave)
            wave->dword(from_host, d, isk);
    }
    LinkWave *wave = nullptr; // waveform probes (set_wave)

    // Flip dword f.dword of the next frame in a direction (in_frame: its SOF has passed).
    void arm(bool from_host, const DwordFault &df, bool in_frame) {
        Flip &f = flip[from_host ? 0 : 1];
        f = Flip{};
        f.armed = true;
        f.index = df.dword;
        f.mask = df.xor_mask;
        f.in_frame = in_frame;
        f.symbol = df.symbol;
    }

    // No flip armed, no decoder flags pending (a PHY change, clear_faults()).
    void disarm() {
        flip[0] = flip[1] = Flip{};
        flags[0] = flags[1] = SymbolFlags{};
    }
};

sc_time dword_period(Gen gen) {
    double g = line_gbps(gen);
    return g > 0 ? sc_time(40.0 / g, SC_NS) : SC_ZERO_TIME; // 10 line bits per byte
}

unsigned SataLink::frame_dwords(size_t fis_dwords) {
    unsigned base = unsigned(fis_dwords) + kFrameOverheadDwords;
    return base + 2 * ((base + 255) / 256);
}

sc_time SataLink::frame_time(Gen gen, size_t fis_dwords) {
    double g = line_gbps(gen);
    // One rounding for the whole frame, not per dword.
    return g > 0 ? sc_time(frame_dwords(fis_dwords) * 40.0 / g, SC_NS) : SC_ZERO_TIME;
}

sc_time SataLink::comreset_time() { return sc_time(6 * (160 + 480) * kUiOobNs, SC_NS); }
sc_time SataLink::comwake_time() { return sc_time(6 * (160 + 160) * kUiOobNs, SC_NS); }
sc_time SataLink::align_attempt() { return sc_time(2048 * 40.0 / 1.5, SC_NS); }

namespace {
SataLink::Mode resolve_mode(SataLink::Mode m) {
    if (m != SataLink::Mode::Default)
        return m;
    // The cycle-level link is the default; SATASIM_LINK_MODE=fis selects the fast mode.
    const char *env = std::getenv("SATASIM_LINK_MODE");
    if (env && std::strcmp(env, "fis") == 0)
        return SataLink::Mode::Fis;
    return SataLink::Mode::Dword;
}
} // namespace

SataLink::SataLink(sc_core::sc_module_name name, const Config &cfg, ModelTrace *trace)
    : sc_core::sc_module(name), cfg_(cfg), trace_(trace), present_(cfg.device_present), presence_(cfg.device_present),
      mode_(resolve_mode(cfg.mode)) {
    SC_HAS_PROCESS(SataLink);
    SC_THREAD(negotiation_thread);
    SC_METHOD(glitch_end_method);
    sensitive << glitch_end_;
    dont_initialize();
    if (mode_ == Mode::Dword) {
        rtl_ = std::make_unique<LinkRtlPair>();
        wire_ = std::make_unique<Wire>();
        rtl_->set_hook(wire_.get());
        using FP = Config::FastPath;
        const LinkFastPath::Mode fm = cfg.fast_path == FP::Off        ? LinkFastPath::Mode::Off
                                      : cfg.fast_path == FP::On       ? LinkFastPath::Mode::On
                                      : cfg.fast_path == FP::Lockstep ? LinkFastPath::Mode::Lockstep
                                                                      : LinkFastPath::mode_from_env();
        fast_ = std::make_unique<LinkFastPath>(fm);
    }
}

SataLink::~SataLink() = default;

void SataLink::append_fast_path_stats() const {
    const char *path = std::getenv("SATASIM_LINK_FASTPATH_STATS");
    if (!fast_ || !path || !*path)
        return;
    const LinkFastPath::Stats &st = fast_->stats();
    // One short line with O_APPEND semantics: lines of concurrent runs do not interleave.
    const std::string line = "{\"link\": \"" + std::string(name()) + "\", \"replayed\": " +
                             std::to_string(st.replayed) + ", \"ticked\": " + std::to_string(st.ticked) +
                             ", \"checked\": " + std::to_string(st.checked) +
                             ", \"clocks_replayed\": " + std::to_string(st.clocks_replayed) +
                             ", \"clocks_ticked\": " + std::to_string(st.clocks_ticked) + "}\n";
    if (FILE *f = std::fopen(path, "a")) {
        std::fwrite(line.data(), 1, line.size(), f);
        std::fclose(f);
    }
}

void SataLink::set_wave(wave::Sink *sink, const std::string &scope, int port) {
    wave_ = sink ? std::make_unique<LinkWave>(*this, sink, scope, port) : nullptr;
    if (wire_)
        wire_->wave = wave_.get();
}

sc_time SataLink::cycles_time(uint64_t n) const {
    double g = line_gbps(gen_);
    return g > 0 ? sc_time(double(n) * 40.0 / g, SC_NS) : SC_ZERO_TIME;
}

// ---------------------------------------------------------------- faults

void SataLink::inject_dword_fault(const DwordFault &f) {
    if (f.nth)
        dword_faults_.push_back(f);
}

void SataLink::inject_primitive_fault(const PrimitiveFault &f) {
    if (wire_ && f.nth)
        wire_->prims.push_back(f);
}

void SataLink::inject_oob_fault(const OobFault &f) {
    if (f.count)
        oob_faults_.push_back(f);
}

// The signal vanishes from the wire for `down` (a loose connector, a marginal cable):
// both PHYs lose PhyRdy at once and the frame in flight is lost. When the signal returns
// the device starts over as after its own reset, with COMINIT.
void SataLink::phy_glitch(sc_time down) {
    glitch_until_ = std::max(glitch_until_, sc_core::sc_time_stamp() + down);
    negotiation_requested_ = false;
    cominit_requested_ = false;
    negotiating_ = false;
    bump_epoch();
    emit("link.glitch", Gen::None, "PhyRdy lost for " + down.to_string());
    link_down("phy glitch", true);
    glitch_end_.cancel();
    glitch_end_.notify(glitch_until_ - sc_core::sc_time_stamp());
}

void SataLink::line_noise(const LinkEndpoint::Noise &n) {
    if (!host_ || offline_ || comreset_held_ || (!n.cominit && !n.decode && !n.internal && !n.phy && !n.comwake))
        return; // (an offline PHY or one driving COMRESET detects nothing)
    std::string what;
    for (auto [on, name] : {std::pair{n.cominit, "COMINIT"}, {n.decode, "decode errors"}, {n.internal, "internal"},
                               {n.phy, "PHY internal error"}, {n.comwake, "COMWAKE"}})
        if (on)
            what += (what.empty() ? "" : ", ") + std::string(name);
    if (n.cominit)
        presence_ = true; // a COMINIT burst: the host PHY detected a device (DET 1 until a COMRESET)
    emit("link.noise", Gen::None, "line noise: " + what);
    host_->line_noise(n);
}

void SataLink::glitch_end_method() {
    if (!present_ || offline_ || comreset_held_)
        return; // the host's own PHY control decides what comes next
    cominit_requested_ = true;
    start_negotiation_.notify(SC_ZERO_TIME);
}

// The device PHY now starts its ALIGN sequence at g at most (a degraded link).
void SataLink::limit_device_gen(Gen g) {
    device_gen_limit_ = g;
    emit("link.degrade", g, "device PHY limited");
}

Gen SataLink::device_max() const {
    if (device_gen_limit_ == Gen::None)
        return cfg_.device_max;
    return std::min(cfg_.device_max, device_gen_limit_);
}

void SataLink::clear_faults() {
    dword_faults_.clear();
    oob_faults_.clear();
    device_gen_limit_ = Gen::None;
    if (wire_) {
        wire_->prims.clear();
        wire_->disarm();
    }
}

bool SataLink::take_dword_fault(bool from_host, const sata::Fis &fis, DwordFault &out) {
    if (fis.bytes.empty())
        return false;
    return take_dword_fault_of(from_host, fis.type(), out);
}

bool SataLink::take_dword_fault_of(bool from_host, sata::FisType type, DwordFault &out) {
    for (size_t i = 0; i < dword_faults_.size(); ++i) {
        DwordFault &f = dword_faults_[i];
        if (f.from_host != from_host || f.type != type)
            continue;
        if (--f.nth == 0) {
            out = f;
            dword_faults_.erase(dword_faults_.begin() + long(i));
            return true;
        }
    }
    return false;
}

bool SataLink::oob_recognised(OobSignal sig, sc_time &extra) {
    for (size_t i = 0; i < oob_faults_.size(); ++i) {
        OobFault &f = oob_faults_[i];
        if (f.signal != sig)
            continue;
        const bool wake = sig == OobSignal::ComWake;
        const sc_time gap = sc_time((wake ? 160 : 480) * kUiOobNs, SC_NS) + f.gap_stretch;
        const sc_time lo(wake ? 35 : 175, SC_NS), hi(wake ? 175 : 525, SC_NS);
        const bool ok = !f.drop && gap >= lo && gap <= hi;
        if (ok)
            extra += f.gap_stretch * 6.0;
        const char *names[] = {"COMRESET", "COMINIT", "COMWAKE"};
        emit("link.inject", Gen::None,
             std::string(names[int(sig)]) + (ok ? " stretched" : " not recognised"));
        if (--f.count == 0)
            oob_faults_.erase(oob_faults_.begin() + long(i));
        return ok;
    }
    return true;
}

void SataLink::attach(LinkEndpoint *host, LinkEndpoint *device) {
    host_ = host;
    device_ = device;
}

namespace {
// The link.inject message's tail for a dword flip.
std::string flip_text(const SataLink::DwordFault &f) {
    std::string t = ": dword " + std::to_string(f.dword) + " xor " + std::to_string(f.xor_mask);
    if (f.symbol != SymbolError::None)
        t += std::string(", ") + to_string(f.symbol) + " error";
    return t;
}
} // namespace

bool SataLink::take_host_dword_fault(sata::FisType type, DwordFault &out) {
    if (!take_dword_fault_of(true, type, out))
        return false;
    emit("link.inject", gen_, "H2D FIS type " + std::to_string(unsigned(type)) + flip_text(out));
    return true;
}

LinkRtlPair::WireHook *SataLink::external_wire_hook() { return wire_ && wire_->active() ? wire_.get() : nullptr; }

void SataLink::arm_external_flip(bool from_host, const DwordFault &f) {
    if (wire_)
        wire_->arm(from_host, f, from_host); // the host frame's SOF has passed; the device's is to come
}

void SataLink::report_symbols(LinkEndpoint *rx, const SymbolFlags &f) {
    if (!rx)
        return;
    if (f.code)
        rx->receive_error(LinkError::RxDecode);
    if (f.disparity)
        rx->receive_error(LinkError::RxDisparity);
}

SataLink::SymbolFlags SataLink::take_symbol_flags(bool from_host) {
    if (!wire_)
        return {};
    SymbolFlags &f = wire_->flags[from_host ? 0 : 1];
    const SymbolFlags out = f;
    f = SymbolFlags{};
    return out;
}

void SataLink::emit(const char *name, Gen gen, const std::string &msg) {
    if (wave_)
        wave_->phy(); // every PHY change is traced
    if (!trace_)
        return;
    TraceRecord r;
    r.src = this->name();
    r.name = name;
    if (gen != Gen::None) {
        r.fields.emplace_back("gen", TraceValue::integer(int(gen)));
        r.fields.emplace_back("gbps", TraceValue::str(gen == Gen::Gen1   ? "1.5"
                                                      : gen == Gen::Gen2 ? "3.0"
                                                                         : "6.0"));
    }
    r.fields.emplace_back("sstatus", TraceValue::hex(sstatus()));
    r.msg = msg;
    trace_->emit(r);
}

void SataLink::bump_epoch() {
    ++phy_epoch_;
    if (ext_)
        ext_->phy_reset();
    if (rtl_) {
        rtl_->reset(); // PHY change: frames in flight are gone
        if (wire_)
            wire_->disarm();
    }
    phy_event_.notify(SC_ZERO_TIME);
}

void SataLink::link_down(const char *why, bool tell_device) {
    if (gen_ == Gen::None)
        return;
    gen_ = Gen::None;
    leave_power();
    emit("link.down", Gen::None, why);
    if (host_)
        host_->phy_changed(false, Gen::None);
    if (tell_device && device_)
        device_->phy_changed(false, Gen::None);
}

// ---------------------------------------------------------------- frames

FrameStatus SataLink::send_from_host(const sata::Fis &fis) { return send(true, fis); }
FrameStatus SataLink::send_from_device(const sata::Fis &fis) { return send(false, fis); }

void SataLink::receiver_ready_changed() {
    rx_ready_.notify(SC_ZERO_TIME);
    if (ext_)
        ext_->receiver_ready_changed();
}

FrameStatus SataLink::send(bool from_host, const sata::Fis &fis) {
    // A transmit request in Partial/Slumber wakes the link first (SATA 3.x 8.4: the link
    // layer leaves L_NoCommPower for L_WakeUp1 on a transport request).
    if (pm_ != PowerState::Active && established() && !wake(from_host))
        return FrameStatus::NoLink;
    if (!phy_ready())
        return FrameStatus::NoLink;
    if (ext_) {
        // The host's link layer and the cable are the external wire's (arbitration too).
        DwordFault df;
        const bool fault = !from_host && take_dword_fault(false, fis, df);
        if (fault)
            emit("link.inject", gen_,
                 "D2H " + sata::describe(fis) + ": dword " + std::to_string(df.dword) + " xor " +
                     std::to_string(df.xor_mask));
        if (wave_)
            wave_->frame(from_host, fis);
        return from_host ? FrameStatus::Error : ext_->send_from_device(fis, fault, df);
    }
    const uint64_t epoch = phy_epoch_;
    // A waiting device transmitter keeps the host off the wire: the host backs off on an
    // X_RDY collision and answers R_RDY instead.
    bool counted = !from_host;
    if (counted)
        ++device_waiting_;
    auto uncount = [&] {
        if (counted) {
            counted = false;
            --device_waiting_;
            wire_free_.notify(SC_ZERO_TIME); // a held-off host may go now
        }
    };
    for (;;) {
        if (epoch != phy_epoch_ || !phy_ready()) {
            uncount();
            return FrameStatus::NoLink;
        }
        if (busy_ || (from_host && device_waiting_ > 0)) {
            sc_core::wait(wire_free_ | phy_event_);
            continue;
        }
        LinkEndpoint *rx = peer(from_host);
        if (rx && !rx->ready_to_receive()) {
            // X_RDY up, no R_RDY yet. The wire is not owned: the peer may still win it.
            bool was_counted = counted;
            uncount();
            sc_core::wait(rx_ready_ | phy_event_);
            if (was_counted) {
                counted = true;
                ++device_waiting_;
            }
            continue;
        }
        break;
    }
    const uint64_t id = next_frame_id_++;
    busy_ = true;
    busy_owner_ = id;
    if (wave_)
        wave_->frame(from_host, fis);
    if (counted) {
        counted = false;
        --device_waiting_;
    }
    DwordFault df;
    const bool fault = take_dword_fault(from_host, fis, df);
    if (fault)
        emit("link.inject", gen_, std::string(from_host ? "H2D " : "D2H ") + sata::describe(fis) + flip_text(df));
    if (mode_ == Mode::Dword) {
        FrameStatus st = send_dword(from_host, fis, epoch, fault, df);
        if (busy_owner_ == id) {
            busy_ = false;
            busy_owner_ = 0;
            wire_free_.notify(SC_ZERO_TIME);
        }
        return st;
    }
    sc_core::wait(frame_time(gen_, fis.dwords()), phy_event_);
    const bool aborted = epoch != phy_epoch_;
    if (busy_owner_ == id) {
        busy_ = false;
        busy_owner_ = 0;
        wire_free_.notify(SC_ZERO_TIME);
    }
    if (aborted)
        return FrameStatus::Error; // PHY lost mid-frame: the transmitter never sees R_OK
    LinkEndpoint *rx = peer(from_host);
    LinkEndpoint *tx = self(from_host);
    if (!rx)
        return FrameStatus::Error;
    // A flipped dword inside the FIS or its CRC always breaks the CRC (CRC-32 detects
    // every error burst up to 32 bits): same outcome as at dword level.
    const bool hit = fault && df.dword <= fis.dwords() && df.xor_mask != 0;
    if (hit) {
        report_symbols(rx, symbol_flags(df.symbol, df.xor_mask));
        rx->receive_error(LinkError::RxCrc);
    } else if (rx->receive_fis(fis)) {
        return FrameStatus::Ok;
    }
    if (tx)
        tx->receive_error(LinkError::TxRErr);
    return FrameStatus::Error;
}

FrameStatus SataLink::send_dword(bool from_host, const sata::Fis &fis, uint64_t epoch,
                                 bool fault, const DwordFault &df) {
    LinkRtlPair &p = *rtl_;
    LinkRtlPair::Side &tx = p.side(from_host);
    LinkRtlPair::Side &rx = p.side(!from_host);
    tx.clear_frame();
    rx.clear_frame();
    rx.auto_verdict = false;
    if (fault)
        wire_->arm(from_host, df, false);
    // The transmitter's dwords are filled only if the pair ticks (FrameFis).
    const uint64_t bad0_tx = tx.bad_prims, bad0_rx = rx.bad_prims;
    tx.start_frame_unfilled(fis.dwords());
    FrameFis dw{&fis, &tx.tx};
    // Watchdog: a frame that neither ends nor aborts (e.g. a lost R_OK answered by junk)
    // is broken off after this many dwords, as a transmitter's frame timer would.
    const uint64_t limit = 4 * uint64_t(fis.dwords()) + 4096;
    LinkEndpoint *rxe = peer(from_host);
    LinkEndpoint *txe = self(from_host);
    bool rx_reported = false;
    auto report_rx = [&] {
        if (rx_reported || !rxe)
            return;
        if (rx.rx_end && !rx.rx_crc_ok) {
            rxe->receive_error(LinkError::RxCrc);
            rx_reported = true;
        } else if (rx.rx_abort) {
            rxe->receive_error(LinkError::RxSequence);
            rx_reported = true;
        }
    };

    // Phase 1: X_RDY ... EOF, up to the receiver's CRC check. A frame nothing observes at
    // dword level may take the fast path (link_fast_path.h): same clocks, same end state.
    const bool observed = wire_->active();
    p.set_hook(observed ? wire_.get() : nullptr);
    auto tick_to_verdict = [&] {
        dw.get();
        return p.run_until([&] { return rx.rx_end || rx.rx_abort || tx.tx_done; }, limit);
    };
    uint64_t n = observed || fault ? tick_to_verdict()
                                   : fast_->run(p, LinkFastPath::Phase::ToVerdict, from_host, dw,
                                                true, tick_to_verdict);
    dword_cycles_ += n;
    sc_core::wait(cycles_time(n), phy_event_);
    if (epoch != phy_epoch_)
        return FrameStatus::Error; // PHY lost mid-frame (the RTL was reset with it)
    // The decoder flagged the corrupted dword as it arrived: before the frame's CRC verdict.
    report_symbols(rxe, take_symbol_flags(from_host));
    if (rx.rx_end && rx.rx_crc_ok && !rx.rx_abort) {
        // A replayed frame arrived as sent (its dwords are fis's bytes): hand fis over as is
        // (a FIS of whole dwords; trailing bytes of a malformed one are dropped, as ticked).
        const bool replayed = !observed && !fault && fast_->replayed_last();
        const bool as_sent = replayed && fis.bytes.size() == 4 * dw.size();
        sata::Fis got;
        if (!as_sent) {
            const std::vector<uint32_t> &d = replayed ? dw.get() : rx.rx;
            sata::fis_from_dwords(got, d.data(), d.size());
        }
        const sata::Fis &arrived = as_sent ? fis : got;
        bool ok = rxe && !arrived.bytes.empty() && rxe->receive_fis(arrived);
        rx.accept = ok;
        rx.verdict = true;
    }
    report_rx();
    // Phase 2: R_OK / R_ERR back to the transmitter, SYNC on both sides.
    const bool observed2 = wire_->active();
    p.set_hook(observed2 ? wire_.get() : nullptr);
    auto tick_to_idle = [&] {
        dw.get();
        return p.run_until([&] { return tx.tx_done && p.both_idle(); }, limit);
    };
    n = observed || observed2 || fault ? tick_to_idle()
                                       : fast_->run(p, LinkFastPath::Phase::ToIdle, from_host, dw,
                                                    rx.verdict && rx.accept, tick_to_idle);
    dword_cycles_ += n;
    const bool timed_out = n >= limit;
    sc_core::wait(cycles_time(n), phy_event_);
    if (epoch != phy_epoch_)
        return FrameStatus::Error;
    report_rx();
    if (rxe && rx.bad_prims != bad0_rx)
        rxe->receive_error(LinkError::RxDecode);
    if (txe && tx.bad_prims != bad0_tx)
        txe->receive_error(LinkError::RxDecode);
    if (timed_out) {
        p.reset(); // both FSMs back to idle, as after a SYNC escape
        if (txe)
            txe->receive_error(LinkError::TxAborted);
        return FrameStatus::Error;
    }
    const unsigned status = tx.tx_status;
    tx.clear_frame();
    rx.clear_frame();
    if (status == 0)
        return FrameStatus::Ok;
    if (txe)
        txe->receive_error(status == 1 ? LinkError::TxRErr : LinkError::TxAborted);
    return FrameStatus::Error;
}

// ---------------------------------------------------------------- PHY

void SataLink::host_comreset(bool assert, Gen spd_limit) {
    if (assert) {
        comreset_held_ = true;
        offline_ = false;
        negotiation_requested_ = false;
        cominit_requested_ = false;
        negotiating_ = false;
        bump_epoch();
        link_down("comreset", true);
        emit("link.comreset", Gen::None);
        if (present_ && device_)
            device_->oob_reset();
        return;
    }
    if (!comreset_held_)
        host_comreset(true); // a release without an assert is a COMRESET pulse
    comreset_held_ = false;
    spd_limit_ = spd_limit;
    presence_ = false; // the host PHY awaits the device's COMINIT (HR_AwaitCOMINIT)
    if (present_) {
        negotiating_ = true;
        negotiation_requested_ = true;
        start_negotiation_.notify(SC_ZERO_TIME);
    }
}

void SataLink::host_offline() {
    offline_ = true;
    comreset_held_ = false;
    negotiation_requested_ = false;
    cominit_requested_ = false;
    negotiating_ = false;
    bump_epoch();
    link_down("offline", true);
    emit("link.offline", Gen::None);
}

void SataLink::host_signal_lost(const char *why) {
    negotiation_requested_ = false;
    cominit_requested_ = false;
    negotiating_ = false;
    bump_epoch();
    link_down(why, true);
}

void SataLink::set_device_present(bool present, const LinkEndpoint::Noise &noise) {
    if (!present && present_)
        line_noise(noise);
    set_device_present(present);
}

void SataLink::set_device_present(bool present) {
    if (present == present_)
        return;
    present_ = present;
    bump_epoch();
    if (!present) {
        presence_ = false; // the contacts apart: nothing left for the host PHY to detect
        negotiation_requested_ = false;
        cominit_requested_ = false;
        negotiating_ = false;
        link_down("device removed", true);
        emit("link.device_removed", Gen::None);
        return;
    }
    emit("link.device_attached", Gen::None);
    // A newly powered device sends COMINIT; the host decides whether to COMRESET.
    cominit_requested_ = true;
    start_negotiation_.notify(SC_ZERO_TIME);
}

void SataLink::negotiation_thread() {
    for (;;) {
        while (!negotiation_requested_ && !cominit_requested_)
            sc_core::wait(start_negotiation_);
        // oob_in_progress() from here to the end of this pass (every `continue` too)
        struct Running {
            bool &on;
            explicit Running(bool &b) : on(b) { on = true; }
            ~Running() { on = false; }
        } running(oob_running_);
        // No signal while a glitch lasts: OOB waits for the wire to come back.
        while (sc_core::sc_time_stamp() < glitch_until_)
            sc_core::wait(glitch_until_ - sc_core::sc_time_stamp(), phy_event_);
        const uint64_t epoch = phy_epoch_;
        auto step = [&](sc_time t) {
            sc_core::wait(t, phy_event_);
            return epoch == phy_epoch_;
        };
        auto give_up = [&](const char *why) {
            negotiating_ = false;
            emit("link.negotiation_failed", Gen::None, why);
        };
        sc_time extra = SC_ZERO_TIME;
        bool seen = false;
        if (!negotiation_requested_) {
            cominit_requested_ = false;
            seen = oob_recognised(OobSignal::ComInit, extra);
            if (!step(comreset_time() + extra))
                continue;
            if (!seen || !present_ || offline_ || comreset_held_)
                continue;
            presence_ = true;
            emit("link.cominit", Gen::None);
            if (host_)
                host_->oob_reset();
            // A listening host PHY answers the COMINIT with its COMWAKE and negotiates,
            // with no COMRESET: the link comes up by itself (a hot plug; SATA 3.x 8.4,
            // AHCI 1.3.1 10.10: PxSSTS.DET 3, PxSERR.DIAG.N/W). Others wait for the host's
            // COMRESET.
            if (!host_ || !host_->answers_cominit() || (ext_ && ext_->signal_oob()))
                continue;
            negotiating_ = true;
        } else {
            negotiation_requested_ = false;
            cominit_requested_ = false;
            negotiating_ = true;
            // 1. the last COMRESET burst sequence after DET 1 -> 0
            seen = oob_recognised(OobSignal::ComReset, extra);
            if (!step(comreset_time() + extra))
                continue;
            if (!seen) {
                give_up("COMRESET not recognised by the device");
                continue;
            }
            if (ext_ && ext_->signal_oob()) {
                signal_negotiation(epoch);
                continue;
            }
            // 2. device COMINIT within its response time
            extra = SC_ZERO_TIME;
            seen = oob_recognised(OobSignal::ComInit, extra);
            if (!step(sc_time(cfg_.cominit_response_us, sc_core::SC_US) + comreset_time() + extra))
                continue;
            if (!seen) {
                give_up("COMINIT not recognised by the host");
                continue;
            }
            presence_ = true;
        }
        // 3./4. host COMWAKE, device COMWAKE
        extra = SC_ZERO_TIME;
        seen = oob_recognised(OobSignal::ComWake, extra) &&
               oob_recognised(OobSignal::ComWake, extra);
        if (!step(comwake_time() + comwake_time() + extra))
            continue;
        if (!seen) {
            give_up("COMWAKE not recognised");
            continue;
        }
        if (host_)
            host_->oob_comwake();
        // 5. device ALIGNs from its fastest speed down; each speed the host cannot lock to
        // costs one 54.6 us attempt.
        const Gen dev_max = device_max();
        Gen common = std::min(cfg_.host_max, dev_max);
        if (spd_limit_ != Gen::None)
            common = std::min(common, spd_limit_);
        unsigned failed = unsigned(dev_max) - unsigned(common);
        if (common == Gen::None)
            failed = unsigned(dev_max);
        if (failed && !step(align_attempt() * double(failed)))
            continue;
        if (common == Gen::None) {
            negotiating_ = false;
            emit("link.negotiation_failed", Gen::None);
            continue;
        }
        // 6. lock: host echoes ALIGN, device answers SYNC (model: 256 dwords at that speed)
        if (!step(dword_period(common) * 256.0))
            continue;
        negotiating_ = false;
        gen_ = common;
        emit("link.up", gen_);
        if (host_)
            host_->phy_changed(true, gen_);
        if (device_)
            device_->phy_changed(true, gen_);
    }
}

// The negotiation after the COMRESET with a host that runs OOB at the signal level
// (ExternalHostWire::signal_oob): the device's COMINIT reaches the host (its PHY times the
// bursts and pulses the detection), the device waits for the host's COMWAKE, answers with
// its own, then sends ALIGNs until the host answers with ALIGN (the host's side of each
// step is the host's: SATA 3.x 8.4, OOB and speed negotiation; docs/rtl-controller.md).
void SataLink::signal_negotiation(uint64_t epoch) {
    auto step = [&](sc_time t) {
        sc_core::wait(t, phy_event_);
        return epoch == phy_epoch_;
    };
    auto wait_host = [&](auto done) {
        while (!done()) {
            sc_core::wait(host_oob_ev_ | phy_event_);
            if (epoch != phy_epoch_)
                return false;
        }
        return true;
    };
    auto give_up = [&](const char *why) {
        negotiating_ = false;
        emit("link.negotiation_failed", Gen::None, why);
    };
    // 2. the device's COMINIT after its response time
    sc_time extra = SC_ZERO_TIME;
    bool seen = oob_recognised(OobSignal::ComInit, extra);
    if (!step(sc_time(cfg_.cominit_response_us, sc_core::SC_US) + extra))
        return;
    if (!seen) {
        give_up("COMINIT not recognised by the host");
        return;
    }
    presence_ = true;
    host_comwake_ = false;
    await_comwake_ = true;
    if (host_)
        host_->oob_reset();
    // 3. the host's COMWAKE, recognised by the device
    const bool got = wait_host([this] { return host_comwake_; });
    await_comwake_ = false;
    if (!got)
        return;
    extra = SC_ZERO_TIME;
    seen = oob_recognised(OobSignal::ComWake, extra);
    if (!step(comwake_time() + extra))
        return;
    if (!seen) {
        give_up("COMWAKE not recognised by the device");
        return;
    }
    // 4. the device's COMWAKE and 5. its ALIGNs from its fastest speed down
    extra = SC_ZERO_TIME;
    if (!oob_recognised(OobSignal::ComWake, extra)) {
        give_up("COMWAKE not recognised by the host");
        return;
    }
    const Gen dev_max = device_max();
    Gen common = std::min(cfg_.host_max, dev_max);
    if (spd_limit_ != Gen::None)
        common = std::min(common, spd_limit_);
    const unsigned failed = common == Gen::None ? unsigned(dev_max) : unsigned(dev_max) - unsigned(common);
    host_aligned_ = host_align_failed_ = false;
    await_align_ = true;
    if (host_) {
        host_->oob_comwake();
        host_->oob_align(common, failed);
    }
    if (common == Gen::None) {
        await_align_ = false;
        negotiating_ = false;
        emit("link.negotiation_failed", Gen::None);
        return;
    }
    // 6. the host's ALIGN: the device sends SYNC, PhyRdy
    const bool answered = wait_host([this] { return host_aligned_ || host_align_failed_; });
    await_align_ = false;
    if (!answered)
        return;
    if (host_align_failed_) {
        give_up("the host did not answer the device's ALIGN");
        return;
    }
    negotiating_ = false;
    gen_ = common;
    emit("link.up", gen_);
    if (host_)
        host_->phy_changed(true, gen_);
    if (device_)
        device_->phy_changed(true, gen_);
}

void SataLink::host_comwake() {
    if (!await_comwake_)
        return;
    host_comwake_ = true;
    host_oob_ev_.notify(SC_ZERO_TIME);
}

void SataLink::host_aligned() {
    if (!await_align_)
        return;
    host_aligned_ = true;
    host_oob_ev_.notify(SC_ZERO_TIME);
}

void SataLink::host_align_timeout() {
    if (!await_align_)
        return;
    host_align_failed_ = true;
    host_oob_ev_.notify(SC_ZERO_TIME);
}

uint8_t SataLink::det() const {
    if (offline_)
        return 4;
    if (gen_ != Gen::None)
        return 3;
    return presence_ ? 1 : 0;
}

uint32_t SataLink::sstatus() const {
    uint32_t d = det();
    if (d != 3)
        return d;
    return d | uint32_t(gen_) << 4 | uint32_t(pm_) << 8;
}

// ---------------------------------------------------------------- power management

sc_time SataLink::wake_time(PowerState from, Gen g) const {
    if (from == PowerState::Active || g == Gen::None)
        return SC_ZERO_TIME;
    // (from DevSleep: the PHY restarts as from Slumber, after the drive's own exit)
    const double restart = from == PowerState::Partial ? cfg_.partial_exit_ns : cfg_.slumber_exit_ns;
    return comwake_time() * 2.0 + sc_time(restart, SC_NS) + dword_period(g) * double(kWakeAlignDwords);
}

// SATA 3.x 8.4, the link layer's power-management states: the requester goes from L_IDLE
// to L_TPMPartial / L_TPMSlumber and sends PMREQ_x; the responder answers PMACK from
// L_PMOff (accepted) or PMNAK from L_PMDeny (refused). On PMACK both go to L_ChkPhyRdy,
// tell their PHYs to enter the state, and sit in L_NoCommPower with PhyRdy deasserted.
// An X_RDY of the peer's wins over the request (L_TPM* -> L_RcvWaitFifo): Busy.
PmResult SataLink::request_power(bool from_host, PowerState s) {
    if (s == PowerState::Active || !phy_ready() || ext_ || waking_)
        return PmResult::NoLink;
    const uint64_t epoch = phy_epoch_;
    const char *side = from_host ? "host" : "device";
    if (busy_ || device_waiting_ > 0) {
        emit("link.pm_request", Gen::None,
             std::string(side) + " " + to_string(s) + " request: link busy");
        return PmResult::Busy;
    }
    sc_core::wait(dword_period(gen_) * double(kPmExchangeDwords), phy_event_);
    if (epoch != phy_epoch_ || !phy_ready())
        return PmResult::NoLink;
    if (busy_ || (from_host && device_waiting_ > 0)) {
        emit("link.pm_request", Gen::None,
             std::string(side) + " " + to_string(s) + " request: peer's X_RDY first");
        return PmResult::Busy;
    }
    LinkEndpoint *rx = peer(from_host);
    const bool ack = rx && rx->pm_accept(s);
    emit("link.pm_request", Gen::None,
         std::string(side) + " PMREQ_" + (s == PowerState::Partial ? "P" : "S") + ": " +
             (ack ? "PMACK" : "PMNAK"));
    if (!ack)
        return PmResult::Denied;
    enter_power(s, from_host);
    return PmResult::Entered;
}

void SataLink::enter_power(PowerState s, bool from_host) {
    pm_ = s;
    if (rtl_)
        rtl_->reset(); // both link layers idle in L_NoCommPower; they restart from SYNC
    emit("link.power", Gen::None,
         std::string(from_host ? "host" : "device") + " initiated, PhyRdy off: " + to_string(s));
    if (host_)
        host_->power_changed(s);
    if (device_)
        device_->power_changed(s);
}

// DEVSLP (SATA 3.2; AHCI 1.3.1 8.5): entered from Partial/Slumber only, by the host alone.
bool SataLink::assert_devslp(sc_time mdat) {
    if ((pm_ != PowerState::Partial && pm_ != PowerState::Slumber) || waking_ || !established())
        return pm_ == PowerState::DevSleep;
    if (!device_ || !device_->takes_devsleep()) {
        emit("link.devslp", Gen::None, std::string("DEVSLP asserted, the drive ignores it: stays in ") + to_string(pm_));
        return false;
    }
    pm_ = PowerState::DevSleep;
    devslp_until_ = sc_core::sc_time_stamp() + mdat;
    emit("link.power", Gen::None, "host asserted DEVSLP: devsleep");
    if (host_)
        host_->power_changed(pm_);
    if (device_)
        device_->power_changed(pm_);
    return true;
}

void SataLink::leave_power() {
    pm_ = PowerState::Active;
    if (waking_) {
        waking_ = false;
        woken_.notify(SC_ZERO_TIME);
    }
}

// L_NoCommPower -> L_WakeUp1 (COMWAKE, then ALIGN until PhyRdy) -> L_WakeUp2 (SYNC) ->
// L_IDLE, at the speed negotiated before (no speed negotiation after a wake-up).
bool SataLink::wake(bool from_host) {
    if (pm_ == PowerState::Active)
        return phy_ready();
    if (waking_) {
        while (waking_)
            sc_core::wait(woken_ | phy_event_);
        return phy_ready();
    }
    const uint64_t epoch = phy_epoch_;
    const PowerState from = pm_;
    waking_ = true;
    if (from == PowerState::DevSleep) {
        // Only the host leaves DevSleep: it negates DEVSLP once the minimum assertion time
        // has passed, then waits for the drive's exit (within its DETO) before the COMWAKE.
        // (A drive in DevSleep has no PHY to ask with: a device-side caller waits for it.)
        const sc_time now = sc_core::sc_time_stamp();
        const sc_time hold = devslp_until_ > now ? devslp_until_ - now : SC_ZERO_TIME;
        const sc_time exit = device_ ? device_->devsleep_exit_time() : SC_ZERO_TIME;
        emit("link.devslp", Gen::None,
             std::string(from_host ? "host" : "device") + " wake-up: DEVSLP negated after " +
                 std::to_string(uint64_t(hold.to_seconds() * 1e6)) + " us more, the drive's exit " +
                 std::to_string(uint64_t(exit.to_seconds() * 1e6)) + " us");
        sc_core::wait(hold + exit, phy_event_);
        if (epoch != phy_epoch_)
            return false;
    }
    const bool answers = !from_host || !device_ || device_->answers_comwake();
    if (!answers) {
        // The COMWAKE goes unanswered: the waker's PHY waits for the spec's longest exit
        // latency, then gives up (L_WakeUp1 without PhyRdy): communication is lost.
        const double max_us = from == PowerState::Partial ? kPartialExitMaxUs : kSlumberExitMaxUs; // (DevSleep: as Slumber)
        sc_core::wait(comwake_time() + sc_time(max_us, sc_core::SC_US), phy_event_);
        if (epoch != phy_epoch_)
            return false;
        waking_ = false;
        woken_.notify(SC_ZERO_TIME);
        emit("link.wake_failed", Gen::None,
             std::string(from_host ? "host" : "device") + " COMWAKE not answered in " + to_string(from));
        if (device_) // what the half-woken PHY put on the line, latched before PhyRdy goes
            line_noise(device_->failed_wake_noise());
        bump_epoch();
        link_down("wake-up failed", true);
        return false;
    }
    sc_core::wait(wake_time(from, gen_), phy_event_);
    if (epoch != phy_epoch_)
        return false;
    waking_ = false;
    pm_ = PowerState::Active;
    woken_.notify(SC_ZERO_TIME);
    emit("link.power", gen_, std::string(from_host ? "host" : "device") + " wake-up from " + to_string(from));
    // The host PHY sees the device's COMWAKE, its answer or its wake-up (SError DIAG.W).
    if (host_)
        host_->oob_comwake();
    if (host_)
        host_->power_changed(PowerState::Active);
    if (device_)
        device_->power_changed(PowerState::Active);
    return true;
}

void SataLink::reset() {
    leave_power();
    present_ = cfg_.device_present;
    presence_ = present_; // the powered drive's COMINIT
    comreset_held_ = false;
    offline_ = false;
    negotiating_ = false;
    negotiation_requested_ = false;
    cominit_requested_ = false;
    gen_ = Gen::None;
    spd_limit_ = Gen::None;
    clear_faults(); // also the device generation limit
    glitch_until_ = SC_ZERO_TIME;
    glitch_end_.cancel();
    busy_ = false;
    busy_owner_ = 0;
    bump_epoch();
    wire_free_.notify(SC_ZERO_TIME);
}

} // namespace satasim::link
