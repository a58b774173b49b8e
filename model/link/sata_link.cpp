// FIS-level SATA wire: PHY state (OOB, speed negotiation) and frame delivery with the
// transmission handshake's timing (hardware.md 2.1, 2.3, 2.5, 3.1).
#include "model/link/sata_link.h"

#include <algorithm>

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

SataLink::SataLink(sc_core::sc_module_name name, const Config &cfg, ModelTrace *trace)
    : sc_core::sc_module(name), cfg_(cfg), trace_(trace), present_(cfg.device_present) {
    SC_HAS_PROCESS(SataLink);
    SC_THREAD(negotiation_thread);
}

void SataLink::attach(LinkEndpoint *host, LinkEndpoint *device) {
    host_ = host;
    device_ = device;
}

void SataLink::emit(const char *name, Gen gen, const std::string &msg) {
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
    phy_event_.notify(SC_ZERO_TIME);
}

void SataLink::link_down(const char *why, bool tell_device) {
    if (gen_ == Gen::None)
        return;
    gen_ = Gen::None;
    emit("link.down", Gen::None, why);
    if (host_)
        host_->phy_changed(false, Gen::None);
    if (tell_device && device_)
        device_->phy_changed(false, Gen::None);
}

// ---------------------------------------------------------------- frames

FrameStatus SataLink::send_from_host(const sata::Fis &fis) { return send(true, fis); }
FrameStatus SataLink::send_from_device(const sata::Fis &fis) { return send(false, fis); }

void SataLink::receiver_ready_changed() { rx_ready_.notify(SC_ZERO_TIME); }

FrameStatus SataLink::send(bool from_host, const sata::Fis &fis) {
    if (!phy_ready())
        return FrameStatus::NoLink;
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
    if (counted) {
        counted = false;
        --device_waiting_;
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
    if (!rx)
        return FrameStatus::Error;
    return rx->receive_fis(fis) ? FrameStatus::Ok : FrameStatus::Error;
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

void SataLink::set_device_present(bool present) {
    if (present == present_)
        return;
    present_ = present;
    bump_epoch();
    if (!present) {
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
        const uint64_t epoch = phy_epoch_;
        auto step = [&](sc_time t) {
            sc_core::wait(t, phy_event_);
            return epoch == phy_epoch_;
        };
        if (!negotiation_requested_) {
            cominit_requested_ = false;
            if (!step(comreset_time()))
                continue;
            if (present_ && !offline_ && !comreset_held_) {
                emit("link.cominit", Gen::None);
                if (host_)
                    host_->oob_reset();
            }
            continue;
        }
        negotiation_requested_ = false;
        cominit_requested_ = false;
        negotiating_ = true;
        // 1. the last COMRESET burst sequence after DET 1 -> 0
        if (!step(comreset_time()))
            continue;
        // 2. device COMINIT within its response time
        if (!step(sc_time(cfg_.cominit_response_us, sc_core::SC_US) + comreset_time()))
            continue;
        // 3./4. host COMWAKE, device COMWAKE
        if (!step(comwake_time() + comwake_time()))
            continue;
        // 5. device ALIGNs from its fastest speed down; each speed the host cannot lock to
        // costs one 54.6 us attempt.
        Gen common = std::min(cfg_.host_max, cfg_.device_max);
        if (spd_limit_ != Gen::None)
            common = std::min(common, spd_limit_);
        unsigned failed = unsigned(cfg_.device_max) - unsigned(common);
        if (common == Gen::None)
            failed = unsigned(cfg_.device_max);
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

uint8_t SataLink::det() const {
    if (offline_)
        return 4;
    if (!present_)
        return 0;
    return gen_ != Gen::None ? 3 : 1;
}

uint32_t SataLink::sstatus() const {
    uint32_t d = det();
    if (d != 3)
        return d;
    return d | uint32_t(gen_) << 4 | 1u << 8;
}

void SataLink::reset() {
    present_ = cfg_.device_present;
    comreset_held_ = false;
    offline_ = false;
    negotiating_ = false;
    negotiation_requested_ = false;
    cominit_requested_ = false;
    gen_ = Gen::None;
    spd_limit_ = Gen::None;
    busy_ = false;
    busy_owner_ = 0;
    bump_epoch();
    wire_free_.notify(SC_ZERO_TIME);
}

} // namespace satasim::link
