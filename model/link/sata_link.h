// One SATA cable between a host-side endpoint (HBA port, later a PMP host side) and a
// device-side endpoint (disk, later a PMP device port): PHY state, OOB, speed
// negotiation, and frame delivery with the X_RDY/R_RDY ... R_OK/R_ERR handshake timing.
//
// Two modes (Config::mode), same interface for the endpoints:
//  * FIS level: a frame costs the time its dwords take at the negotiated dword clock,
//    computed without ticking them (frame_time()).
//  * dword level: the frame really crosses two verilated link layers (model/link/rtl,
//    host and device role, see link_rtl.h) ticked from C++ in a tight loop for the
//    frame's duration; SystemC time then advances by the ticked cycles at the dword
//    period. Idle links are never ticked. CRC errors, R_ERR and aborted frames come out
//    of the RTL and are reported to the endpoints (LinkEndpoint::receive_error).
// OOB and speed negotiation are computed (spec timing) in both modes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "model/common/trace.h"
#include "model/link/link_fast_path.h"
#include "model/link/link_rtl.h"
#include "model/link/symbol_error.h"
#include "model/sata/fis.h"

namespace satasim::wave {
class Sink;
}

namespace satasim::link {

enum class Gen : uint8_t { None = 0, Gen1 = 1, Gen2 = 2, Gen3 = 3 };

// Dword period at a generation: 26.667 / 13.333 / 6.667 ns (docs/hardware.md 2.1).
sc_core::sc_time dword_period(Gen gen);

// Result of one frame transmission, as the transmitter sees it.
enum class FrameStatus {
    Ok,     // R_OK
    Error,  // R_ERR (receiver rejected: bad CRC, refused FIS)
    NoLink, // PHY not ready: nothing was sent
};

// A link-layer error detected on one side, reported to that side's endpoint.
enum class LinkError {
    RxCrc,      // a received frame had a bad CRC; the link answered R_ERR (frame dropped)
    RxSequence, // a received frame was broken off (SYNC escape, EOF lost, SOF missed)
    RxDecode,   // a code error: a 10-bit symbol not in the code, or an unknown K-character dword
    RxDisparity, // a symbol received with the wrong running disparity
    TxRErr,     // our frame was answered with R_ERR (send_* also returns Error)
    TxAborted,  // our frame got no R_OK/R_ERR (peer SYNC escape, no answer)
};
const char *to_string(LinkError e);

// Interface power states (SATA 3.x 8.4 / 10.4, link power management), numbered as
// SStatus.IPM reports them: Active 1, Partial 2, Slumber 6 (docs/hardware.md 2.8).
// SStatus.IPM values: Active 1h, Partial 2h, Slumber 6h, DevSleep 8h (SATA 3.2: the host's
// DEVSLP signal asserted, the PHY off; AHCI 1.3.1 3.3.10 PxSSTS.IPM).
enum class PowerState : uint8_t { Active = 1, Partial = 2, Slumber = 6, DevSleep = 8 };
const char *to_string(PowerState s);
// What a power-management request came to (SataLink::request_power).
enum class PmResult : uint8_t {
    Entered, // PMACK: both PHYs are in the requested state
    Denied,  // PMNAK
    Busy,    // the requester's link was not idle (a frame on the wire, the peer's X_RDY)
    NoLink,  // PHY not ready, already in a power state, or a link without the exchange
};
const char *to_string(PmResult r);
// The SError bits (SATA SCR, docs/hardware.md 3.2) a receive error sets on the host side:
// DIAG.C (CRC), DIAG.S (link sequence), DIAG.B (10b/8b decode) or DIAG.D (disparity), each
// with ERR.T; 0 for the transmit errors, which the sender sees as FrameStatus instead.
uint32_t serror_bits(LinkError e);
// An error of the receiver's 8b/10b decoder: it flags symbols, and loses no frame by itself
// (a corrupted data symbol also breaks the frame's CRC, reported as RxCrc).
inline bool symbol_error(LinkError e) { return e == LinkError::RxDecode || e == LinkError::RxDisparity; }

class LinkRtlPair;
class LinkWave;
class ExternalHostWire;

// Implemented by each side of a link. Callbacks run inside the link's or the peer's
// process and must not block: queue the work and notify your own process.
class LinkEndpoint {
  public:
    virtual ~LinkEndpoint() = default;
    // A whole frame arrived with good CRC. Return false to answer R_ERR.
    virtual bool receive_fis(const sata::Fis &fis) = 0;
    // Flow control: while false, the transmitter keeps X_RDY up and waits; call
    // SataLink::receiver_ready_changed() when it becomes true.
    virtual bool ready_to_receive() const { return true; }
    // PhyRdy changed: up at gen, or down (gen == Gen::None).
    virtual void phy_changed(bool ready, Gen gen) = 0;
    // OOB reset signal from the peer: on the device side a COMRESET (hard reset starts),
    // on the host side a COMINIT (device-initiated, e.g. after power-on or hotplug).
    virtual void oob_reset() {}
    // The device's COMWAKE recognised by the host (OOB, after the host's own COMWAKE); host
    // side only, for a host PHY with a COMWAKE-detect pin (the RTL shell's).
    virtual void oob_comwake() {}
    // Host side: whether this host PHY, listening (no COMRESET held, not offline, spun up),
    // answers a device's COMINIT by itself with COMWAKE and the speed negotiation, so the
    // link comes up with no COMRESET (a hot plug). Default: no (it only reports the COMINIT).
    virtual bool answers_cominit() const { return false; }
    // Host side, signal-level OOB only (ExternalHostWire::signal_oob): after the device's
    // COMWAKE it sends ALIGNs, `failed` attempts at rates the host cannot lock to, then at
    // `common` (Gen::None: no common rate) until the host answers with its own ALIGN
    // (SataLink::host_aligned) or the attempt times out (host_align_timeout).
    virtual void oob_align(Gen /*common*/, unsigned /*failed*/) {}
    // The link layer on this side detected an error (see LinkError). Called from the
    // link's process like receive_fis; must not block. Default: ignore.
    virtual void receive_error(LinkError) {}
    // Noise on the wire outside any frame, seen by the host PHY (SataLink::line_noise):
    // COMINIT bursts, 10b/8b decode errors, and the HBA's own internal error when its
    // receiver loses the signal mid-primitive. Host side only. Default: a COMINIT burst
    // is an OOB reset signal, the rest is ignored.
    struct Noise {
        bool cominit = false;
        bool decode = false;
        bool internal = false;
        // the host PHY's own internal error (SError DIAG.I) and the frame data it spoiled
        // (ERR.T, libata's UnrecovData): a receiver that lost lock on a garbled signal
        bool phy = false;
        // a COMWAKE-like burst the host PHY detects (SError DIAG.W): a connector's contacts
        // bouncing, a half-inserted drive's OOB that starts and stops
        bool comwake = false;
    };
    virtual void line_noise(const Noise &n) {
        if (n.cominit)
            oob_reset();
    }
    // Link power management (SATA 3.x 8.4, docs/hardware.md 2.8). The peer sent PMREQ_P /
    // PMREQ_S: true answers PMACK, false PMNAK. Default: PMNAK (a link layer that does
    // not take part never leaves Active).
    virtual bool pm_accept(PowerState) { return false; }
    // The interface entered a power state (PhyRdy deasserted, the PHY in Partial or
    // Slumber, SStatus.IPM 2 / 6) or came back to Active after a wake-up (PhyRdy asserted
    // again at the speed negotiated before). Default: ignored.
    virtual void power_changed(PowerState) {}
    // Device side: whether this PHY answers this wake-up COMWAKE of the host's (the lpm_fail fault
    // says no). Default: yes.
    virtual bool answers_comwake() { return true; }
    // Device side: the line noise a wake-up it did not answer leaves on the host's PHY (a
    // PHY that half-wakes garbles the line; the lpm_fail fault's `noise`). Default: none.
    virtual Noise failed_wake_noise() { return {}; }
    // Device side, DevSleep (SATA 3.2; docs/device.md 6.2): whether the drive enters DevSleep
    // when the host asserts DEVSLP (it supports it and SET FEATURES enabled it; otherwise it
    // ignores the signal and stays in Slumber), and how long it takes to be ready for the
    // wake-up's COMWAKE once DEVSLP is negated (within the DETO it reports).
    virtual bool takes_devsleep() { return false; }
    virtual sc_core::sc_time devsleep_exit_time() { return sc_core::SC_ZERO_TIME; }
};

class SataLink : public sc_core::sc_module {
  public:
    enum class Mode : uint8_t {
        Default, // from the environment: SATASIM_LINK_MODE=dword|fis (unset: dword)
        Fis,     // computed frame timing, no dword ticking
        Dword,   // frames through the verilated link layers
    };
    struct Config {
        Gen host_max = Gen::Gen3;   // fastest the host PHY supports
        Gen device_max = Gen::Gen3; // fastest the device PHY supports
        bool device_present = true;
        // Device's COMINIT answer delay after the COMRESET burst sequence ends (spec: within
        // 10 ms). Model choice (MEM): 20 us.
        double cominit_response_us = 20;
        Mode mode = Mode::Default;
        // PHY restart inside a wake-up (see wake_time()), model choices (MEM) within the
        // spec's exit latencies: a PHY in Partial keeps its PLL running, one in Slumber
        // restarts it.
        double partial_exit_ns = 1000;
        double slumber_exit_ns = 200000;
        // Dword level: the frame fast path's mode (link_fast_path.h); Default: from
        // SATASIM_LINK_FASTPATH (unset: on).
        enum class FastPath : uint8_t { Default, Off, On, Lockstep } fast_path = FastPath::Default;
    };

    // ---- fault hooks (one-shot; armed faults persist across COMRESETs until cleared by
    // clear_faults() or the power-on reset()) ----
    // Flip bits of one dword of the nth FIS of a type sent in a direction, on the wire
    // (after scrambling): the receiver sees a bad CRC and answers R_ERR. dword counts
    // FIS dwords from the header (0); dword == FIS length hits the CRC dword. In FIS mode
    // the same outcome is produced without dwords (frame dropped, RxCrc/TxRErr reported).
    struct DwordFault {
        bool from_host = true;
        sata::FisType type = sata::FisType::Data;
        unsigned nth = 1; // 1 = the next matching FIS
        unsigned dword = 0;
        uint32_t xor_mask = 1;
        // The receiver's decoder also flags the bytes the mask touches (model choice: on
        // those bytes, not on the later symbol where a real decoder may notice a disparity
        // error): reported to the receiving endpoint as RxDecode / RxDisparity before the
        // frame's RxCrc, and on a controller's PHY pins (backend rtl).
        SymbolError symbol = SymbolError::None;
        // The next Data FIS in a direction, dword `dword` XOR `xor_mask`.
        static DwordFault data_fis(bool from_host, unsigned dword, uint32_t xor_mask) {
            DwordFault f;
            f.from_host = from_host;
            f.type = sata::FisType::Data;
            f.dword = dword;
            f.xor_mask = xor_mask;
            return f;
        }
    };
    // Replace the nth occurrence (1 = next) of a primitive dword on the wire in a
    // direction (e.g. prim::kROk -> prim::kRErr, or a SOF by an invalid K word). Dword
    // mode only: FIS mode ignores primitive faults.
    struct PrimitiveFault {
        bool from_host = true;
        uint32_t primitive = 0;
        unsigned nth = 1;
        uint32_t replacement = 0;
        bool replacement_isk = true;
    };
    // Drop or stretch an OOB signal: stretch lengthens each of its 6 gaps; a gap outside
    // the receiver's window (COMRESET/COMINIT 175-525 ns, COMWAKE 35-175 ns) is not
    // recognised, which is what drop forces. count: how many occurrences are affected.
    enum class OobSignal : uint8_t { ComReset, ComInit, ComWake };
    struct OobFault {
        OobSignal signal = OobSignal::ComInit;
        bool drop = false;
        sc_core::sc_time gap_stretch = sc_core::SC_ZERO_TIME;
        unsigned count = 1;
    };
    void inject_dword_fault(const DwordFault &f);
    void inject_primitive_fault(const PrimitiveFault &f);
    void inject_oob_fault(const OobFault &f);
    // PhyRdy drops on both sides (frames in flight aborted) for `down`; then the device
    // sends COMINIT and the link renegotiates.
    void phy_glitch(sc_core::sc_time down);
    // A disturbance on the wire the host PHY's detectors pick up without any negotiation
    // following (docs/hardware.md 2.7): a connector pulled with contact bounce, or a device
    // that restarts its OOB and never finishes it. PhyRdy does not change.
    void line_noise(const LinkEndpoint::Noise &n);
    // Later negotiations stop at g or slower (a link that only comes up slower).
    // clear_faults() and reset() undo it.
    void limit_device_gen(Gen g);
    void clear_faults();

    // Link overhead around the FIS dwords of one frame, in dwords at the negotiated rate:
    // X_RDY -> R_RDY round trip (4), SOF (1), CRC (1), EOF (1), WTRM -> R_OK round trip (4),
    // SYNC back to idle (2); plus one ALIGN pair per started 256 dwords of the frame.
    static constexpr unsigned kFrameOverheadDwords = 13;
    static unsigned frame_dwords(size_t fis_dwords);
    // Wire time of one frame carrying fis_dwords FIS dwords (header included) at gen.
    static sc_core::sc_time frame_time(Gen gen, size_t fis_dwords);
    // ---- link power management (SATA 3.x 8.4; docs/hardware.md 2.8) ----
    // PMREQ_x ... PMACK / PMNAK: the request reaches the peer after the wire's latency
    // (kWireDelay dwords each way), the peer answers with kPmAcks PMACKs (the spec asks for
    // 4 to 16; the model sends 4) or PMNAKs, the first of which reaches the requester after
    // the same latency: 2 x 2 + 4 = 8 dwords at the negotiated rate.
    static constexpr unsigned kPmAcks = 4;
    static constexpr unsigned kPmExchangeDwords = 2 * LinkRtlPair::kWireDelay + kPmAcks;
    // Wake-up: the waking side's COMWAKE, the other side's COMWAKE (1.28 us each), the
    // PHYs' restart (partial_exit_ns / slumber_exit_ns) and ALIGN lock at the speed kept
    // (kWakeAlignDwords: shorter than after OOB, the receivers' clock recovery having kept
    // its lock; model choice, MEM).
    // The spec's limits (SATA 3.x 8.4): Partial to Active within 10 us, Slumber to Active
    // within 10 ms; wake_time() stays within them for every generation (link_pm_test).
    static constexpr double kPartialExitMaxUs = 10, kSlumberExitMaxUs = 10000;
    static constexpr unsigned kWakeAlignDwords = 64;
    // Whether the interface is in Partial/Slumber (PhyRdy down, SStatus DET 3, IPM 2/6).
    PowerState power_state() const { return pm_; }
    // Communication established (DET 3), Active or in a power state.
    bool established() const { return det() == 3; }
    // Transmit PMREQ_P / PMREQ_S from one side and wait for the answer (blocks the calling
    // SC_THREAD for the exchange). Only from an idle, Active link.
    PmResult request_power(bool from_host, PowerState s);
    // Bring a link in Partial/Slumber back to Active (blocks for the wake-up). false: the
    // link was not in a power state and did not come up, or the other side never answered
    // the COMWAKE: then communication is lost (DET 1, link.wake_failed) until a COMRESET.
    // A second caller during a wake-up waits for the first. send_from_*() wake a link in
    // a power state by themselves before the frame.
    bool wake(bool from_host);
    // The host asserts DEVSLP (a sideband signal, no exchange) on a link in Partial/Slumber:
    // a drive that takes it enters DevSleep (SStatus.IPM 8h); the host keeps the signal
    // asserted at least `mdat` (the minimum assertion time) before a wake-up negates it. A
    // drive that does not take it stays where it was. true: the link is in DevSleep.
    bool assert_devslp(sc_core::sc_time mdat);
    // The wake-up's duration from a state at a generation (for tests and docs).
    sc_core::sc_time wake_time(PowerState from, Gen g) const;

    // OOB durations (docs/hardware.md 2.5), for tests and the harness.
    static sc_core::sc_time comreset_time();  // 6 x (160 + 480) UIoob
    static sc_core::sc_time comwake_time();   // 6 x (160 + 160) UIoob
    static sc_core::sc_time align_attempt();  // 54.6 us = 2048 Gen1 dwords

    SataLink(sc_core::sc_module_name name, const Config &cfg, ModelTrace *trace = nullptr);
    ~SataLink() override;

    Mode mode() const { return mode_; }
    // Dword clock cycles ticked in dword mode so far (idle cycles are never ticked).
    uint64_t dword_cycles() const { return dword_cycles_; }
    // The RTL pair (dword mode only; nullptr in FIS mode). For tests and benchmarks.
    LinkRtlPair *rtl() { return rtl_.get(); }
    // The dword-level fast path's counts (dword mode only; nullptr in FIS mode). With
    // SATASIM_LINK_FASTPATH_STATS=FILE, append_fast_path_stats() appends them to FILE as one
    // JSON line (the backend calls it at the end of a run; tools/bench_link.py reads them).
    const LinkFastPath::Stats *fast_path_stats() const { return fast_ ? &fast_->stats() : nullptr; }
    void append_fast_path_stats() const;

    void attach(LinkEndpoint *host, LinkEndpoint *device);
    // The cable is pulled (present false) or a drive plugged (true); a pull may carry the
    // line noise of a bouncing connector, which the host sees with the PhyRdy loss.
    void set_device_present(bool present, const LinkEndpoint::Noise &noise);
    // The host's link layer is outside the model (a controller's RTL: backend rtl): its
    // frames cross `wire`, which owns the device side's link layer too. This model keeps
    // the PHY (OOB, negotiation, presence, glitches, speed faults) and the fault plan;
    // send_from_device() hands the frame to the wire. Call after attach().
    void attach_external_host(ExternalHostWire *wire) { ext_ = wire; }
    LinkEndpoint *device_endpoint() const { return device_; }
    // For the external wire: the dword fault armed for the next host frame of `type`, if
    // any (consumed; traced as link.inject), and the primitive-fault / waveform hook its
    // cable calls for every dword (nullptr when nothing is armed).
    bool take_host_dword_fault(sata::FisType type, DwordFault &out);
    LinkRtlPair::WireHook *external_wire_hook();
    // Arms a dword flip on the external cable (from_host: already inside the frame, its
    // header dword is the next one to pass).
    void arm_external_flip(bool from_host, const DwordFault &f);
    // The decoder flags the last dword the cable's hook flipped in a direction carries
    // (DwordFault::symbol): bit n = byte n. Consumed; all zero when nothing fired.
    struct SymbolFlags {
        uint8_t code = 0, disparity = 0;
        bool any() const { return (code | disparity) != 0; }
    };
    SymbolFlags take_symbol_flags(bool from_host);
    // A receiver's endpoint told of the decoder's flags (RxDecode, then RxDisparity).
    static void report_symbols(LinkEndpoint *rx, const SymbolFlags &f);

    // Transmit one FIS. Blocks the calling SC_THREAD for arbitration (the device wins a
    // collision), the receiver's R_RDY, the frame's dwords (SOF, FIS, CRC, EOF) and the
    // R_OK/R_ERR return, then reports the receiver's verdict.
    FrameStatus send_from_host(const sata::Fis &fis);
    FrameStatus send_from_device(const sata::Fis &fis);
    // A receiver whose ready_to_receive() turned true calls this to release waiters.
    void receiver_ready_changed();

    // Host PHY control (SControl.DET): assert = DET 1 (COMRESET held, link down, the
    // device sees oob_reset()); release = DET 0: OOB and speed negotiation from the
    // fastest common rate not above spd_limit (Gen::None = no limit), then PhyRdy on both
    // sides. offline = DET 4 (PHY off until the next release).
    void host_comreset(bool assert, Gen spd_limit = Gen::None);
    void host_offline();
    // The host's PHY stopped carrying a signal without an OOB request (a PHY reset of an
    // external host, its transmitter silent past the device's squelch time: the RTL
    // shell, docs/rtl-controller.md "The PHY pins"): the link goes down (`link.down` with
    // `why`), the device sees it lost, a negotiation under way is abandoned, and nothing
    // comes back by itself: DET 1 until the host's next COMRESET.
    void host_signal_lost(const char *why);
    // Signal-level OOB of an external host (ExternalHostWire::signal_oob): the negotiation
    // waits for these instead of timing the host's part itself. host_comwake: the host sent
    // COMWAKE after it detected the device's COMINIT; host_aligned: it answered the device's
    // ALIGNs with its own (the device then sends SYNC: PhyRdy); host_align_timeout: it did
    // not within the device's attempt (the negotiation fails). Ignored at any other time.
    void host_comwake();
    void host_aligned();
    void host_align_timeout();

    // Device presence (cable plugged). Used by hotplug later; reset() restores config.
    void set_device_present(bool present);
    bool device_present() const { return present_; }
    // An OOB sequence is asked for or under way (a plugged drive's COMINIT, a COMRESET's
    // negotiation): the PHY may yet change the host's registers and raise an interrupt.
    bool oob_in_progress() const { return cominit_requested_ || negotiation_requested_ || oob_running_; }

    // SStatus view for the host: DET (0, 1, 3, 4), SPD (negotiated gen), IPM (1 active).
    // DET 1 is the host PHY's presence detection (presence_), not the cable's state.
    uint8_t det() const;
    Gen gen() const { return gen_; }
    // PhyRdy: communication established and the interface Active.
    bool phy_ready() const { return det() == 3 && pm_ == PowerState::Active; }
    uint32_t sstatus() const;

    // Power-on state: PHY down, no frame in flight, config restored, faults disarmed.
    void reset();

    const Config &config() const { return cfg_; }

    // Waveform probes (model/wave): PhyRdy, generation, per direction the primitive on the
    // wire (dword mode), frame and FIS type, declared in sink under scope. Off by default.
    void set_wave(wave::Sink *sink, const std::string &scope, int port);

  private:
    class Wire;
    FrameStatus send(bool from_host, const sata::Fis &fis);
    FrameStatus send_dword(bool from_host, const sata::Fis &fis, uint64_t epoch, bool fault,
                           const DwordFault &df);
    bool take_dword_fault(bool from_host, const sata::Fis &fis, DwordFault &out);
    bool take_dword_fault_of(bool from_host, sata::FisType type, DwordFault &out);
    bool oob_recognised(OobSignal sig, sc_core::sc_time &extra);
    sc_core::sc_time cycles_time(uint64_t n) const;
    LinkEndpoint *self(bool from_host) const { return from_host ? host_ : device_; }
    void negotiation_thread();
    void signal_negotiation(uint64_t epoch); // after the COMRESET, ExternalHostWire::signal_oob
    void link_down(const char *why, bool tell_device);
    void bump_epoch();
    void emit(const char *name, Gen gen, const std::string &msg = {});
    LinkEndpoint *peer(bool from_host) const { return from_host ? device_ : host_; }
    void enter_power(PowerState s, bool from_host);
    void leave_power(); // PM state forgotten (COMRESET, glitch, offline, unplug)

    Config cfg_;
    PowerState pm_ = PowerState::Active;
    sc_core::sc_time devslp_until_; // DevSleep: DEVSLP stays asserted until then (MDAT)
    bool waking_ = false;          // a wake-up is under way (wake())
    sc_core::sc_event woken_;      // ... and ended
    ModelTrace *trace_;
    LinkEndpoint *host_ = nullptr;
    LinkEndpoint *device_ = nullptr;
    bool present_;
    // The host PHY has detected the device's presence (SStatus.DET 1 while communication is
    // not established): a COMINIT it recognised since it last released a COMRESET (SATA 3.x
    // 8.4 host PHY: HR_AwaitCOMINIT after COMRESET; AHCI 1.3.1 3.3.10 PxSSTS.DET 1h "device
    // presence detected but Phy communication not established", 0h "no device detected").
    // A drive present but silent (its PHY down: phy_glitch) reads 0 after a COMRESET; an
    // empty connector whose contacts send COMINIT bursts (line_noise) reads 1 until the next.
    bool presence_;
    bool comreset_held_ = false;
    bool offline_ = false;
    bool negotiating_ = false;
    bool oob_running_ = false; // the negotiation thread is between its request and its end
    // signal-level OOB (ExternalHostWire::signal_oob): the host's steps, set by host_*()
    bool host_comwake_ = false, host_aligned_ = false, host_align_failed_ = false;
    bool await_comwake_ = false, await_align_ = false;
    sc_core::sc_event host_oob_ev_;
    bool negotiation_requested_ = false;
    bool cominit_requested_ = false;
    Gen gen_ = Gen::None;
    Gen spd_limit_ = Gen::None;
    bool busy_ = false;          // a frame owns the wire
    uint64_t busy_owner_ = 0;    // frame id owning the wire
    uint64_t next_frame_id_ = 1;
    int device_waiting_ = 0;     // device transmitters waiting (they win arbitration)
    uint64_t phy_epoch_ = 0;     // bumps on every PHY change; aborts stale frames
    sc_core::sc_event wire_free_;
    sc_core::sc_event rx_ready_;
    sc_core::sc_event phy_event_;
    sc_core::sc_event start_negotiation_;
    Mode mode_;
    std::unique_ptr<LinkRtlPair> rtl_;
    std::unique_ptr<LinkFastPath> fast_;
    std::unique_ptr<Wire> wire_;
    uint64_t dword_cycles_ = 0;
    std::vector<DwordFault> dword_faults_;
    std::vector<OobFault> oob_faults_;
    Gen device_gen_limit_ = Gen::None;     // limit_device_gen(); None = the device's own max
    sc_core::sc_time glitch_until_;        // phy_glitch(): no signal on the wire before this
    sc_core::sc_event glitch_end_;
    void glitch_end_method();
    Gen device_max() const; // the device PHY's fastest rate, after limit_device_gen()
    std::unique_ptr<LinkWave> wave_; // null unless set_wave()
    ExternalHostWire *ext_ = nullptr; // attach_external_host()
};

// The cable of a link whose host side is a controller's own link layer (SataLink::
// attach_external_host): the RTL backend's DUT shell implements it.
class ExternalHostWire {
  public:
    virtual ~ExternalHostWire() = default;
    // One frame from the device; blocks the calling SC_THREAD until the host's R_OK /
    // R_ERR or the PHY's loss. fault: flip df's dword of this frame on the wire.
    virtual FrameStatus send_from_device(const sata::Fis &fis, bool fault, const SataLink::DwordFault &df) = 0;
    // The PHY changed (COMRESET, glitch, unplug): frames in flight are gone.
    virtual void phy_reset() = 0;
    // The device's ready_to_receive() turned true.
    virtual void receiver_ready_changed() = 0;
    // True: this host runs OOB at the signal level (the RTL shell's `phy.oob: signal`): the
    // COMINIT that answers its COMRESET reaches it (oob_reset), the negotiation waits for
    // its COMWAKE and its ALIGN (SataLink::host_comwake, host_aligned), and the speed
    // negotiation's dwords are its to model (oob_align). False: all timed here.
    virtual bool signal_oob() const { return false; }
};

} // namespace satasim::link
