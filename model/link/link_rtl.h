// Two verilated link-layer instances (model/link/rtl/sata_link.v), host role and device
// role, wired back to back through a C++ "cable" and ticked from C++ in a tight loop
// (docs/toolchain.md: no sc_clock, no signals). Both instances live in one verilated model
// (rtl/sata_link_pair.v), so a dword clock is one evaluation of that model (see tick()).
// Each side has a small transport model: a frame to send (dword vector) and the dwords
// received, plus the frame status pulses.
//
// The cable carries each side's registered PHY output to the peer's input with
// kWireDelay dwords of latency each way, and lets a hook rewrite dwords in flight (dword
// and primitive fault injection). Used by SataLink's dword mode, the RTL tests and the
// benchmark. The verilated model is only forward-declared here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

class VerilatedContext;
class Vsata_link_pair;

namespace satasim::link {

// Primitive dword values as seen on a 32-bit PHY interface (K flag on byte 0).
namespace prim {
constexpr uint32_t kAlign = 0x7B4A4ABC, kCont = 0x9999AA7C, kDmat = 0x3636B57C,
                   kEof = 0xD5D5B57C, kHold = 0xD5D5AA7C, kHolda = 0x9595AA7C, kRErr = 0x5656B57C,
                   kRIp = 0x5555B57C, kROk = 0x3535B57C, kRRdy = 0x4A4A957C, kSof = 0x3737B57C,
                   kSync = 0xB5B5957C, kWtrm = 0x5858B57C, kXRdy = 0x5757B57C;
}

// Reference CRC-32/SATA and scrambler in C++ (for tests and the wire's fault bookkeeping).
uint32_t crc32_sata_step(uint32_t crc, uint32_t dword);
uint32_t crc32_sata(const uint32_t *dwords, size_t n);
constexpr uint32_t kCrcInit = 0x52325032;

// RTL FSM state numbers (o_state).
enum class RtlState : uint8_t {
    Idle = 0, TxXrdy, TxSof, TxData, TxCrc, TxEof, TxWtrm, RxRdy, RxData, RxVerdict, RxStatus
};

class LinkRtlPair {
  public:
    static constexpr unsigned kWireDelay = 2; // dwords of cable/PHY latency each way

    struct Side {
        // transmit
        std::vector<uint32_t> tx;    // FIS dwords of the pending frame
        size_t tx_pos = 0;
        size_t tx_avail = SIZE_MAX;  // dwords the transport has ready (HOLD when reached)
        bool tx_req = false;
        bool tx_done = false;        // o_tx_done seen
        unsigned tx_status = 0;      // 0 R_OK, 1 R_ERR, 2 aborted
        bool tx_dmat = false;
        // receive
        std::vector<uint32_t> rx;    // FIS dwords of the frame being received
        unsigned rx_frames = 0;      // SOFs seen
        bool rx_end = false, rx_crc_ok = false, rx_abort = false;
        bool rx_full = false;        // drives i_rx_full (HOLD)
        bool rx_dmat = false;        // drives i_rx_dmat
        bool verdict = false, accept = true; // drive i_rx_verdict / i_rx_accept
        bool auto_verdict = false;   // answer every good frame with `accept` at once
        uint64_t bad_prims = 0;      // o_bad_prim pulses
        // transmitted dwords, for tests (only when record is set)
        bool record = false;
        std::vector<std::pair<uint32_t, bool>> sent;

        void start_frame(const uint32_t *dwords, size_t n);
        // A frame of n dwords whose tx is filled later, before the pair ticks (SataLink's
        // fast path: a replayed frame never needs its dwords).
        void start_frame_unfilled(size_t n);
        void clear_frame();         // forget tx/rx frame state (not the RTL)
    };

    // Rewrites a dword in flight. from_host: direction. Return true if changed.
    struct WireHook {
        virtual ~WireHook() = default;
        virtual void on_dword(bool from_host, uint32_t &data, bool &isk) = 0;
    };

    LinkRtlPair();
    ~LinkRtlPair();
    LinkRtlPair(const LinkRtlPair &) = delete;
    LinkRtlPair &operator=(const LinkRtlPair &) = delete;

    // Synchronous reset of both instances (PHY reset / link down); clears the sides.
    void reset();
    void set_phy_ready(bool ready);
    // One dword clock on both instances.
    void tick();
    // Tick until pred() or max cycles; returns the number of cycles ticked.
    template <class Pred> uint64_t run_until(Pred pred, uint64_t max) {
        uint64_t n = 0;
        while (!pred() && n < max) {
            tick();
            ++n;
        }
        return n;
    }

    // Every register of both instances, every port, and the cable's dwords (time order),
    // as plain numbers: the frame fast path (link_fast_path.h) keys on, restores and, in
    // lockstep, compares these. Field i is described by state_field(i).
    struct State {
        static constexpr size_t kFields = 93;
        std::array<uint32_t, kFields> v{};
        bool operator==(const State &o) const { return v == o.v; }
    };
    struct StateField {
        const char *name;
        // A data register: its value comes from the frame's dwords, the scramblers or the
        // CONT junk, never steers the state machines (receivers tell data from primitives by
        // the K flag, and junk follows a CONT). Primitive-or-data fields name the K flag
        // that says which they hold (isk; -1: always data).
        bool data;
        int isk;
    };
    static const StateField &state_field(size_t i);
    State capture() const;
    void restore(const State &s);
    // The link's LFSR step (scrambler and CONT junk), as the RTL computes it: the next
    // 16-bit state, and the 32-bit word it produces.
    uint16_t lfsr_step(uint16_t s, uint32_t *word) const;
    // CRC-32/SATA over n dwords from the initial value, with the RTL's own tables.
    uint32_t crc(const uint32_t *dwords, size_t n) const;
    // The same over n dwords held as little-endian bytes (a FIS's: fis.h).
    uint32_t crc_of_bytes(const uint8_t *bytes, size_t n) const;

    Side &side(bool host) { return host ? host_ : dev_; }
    RtlState state(bool host) const;
    bool both_idle() const { return state(true) == RtlState::Idle && state(false) == RtlState::Idle; }
    uint64_t cycles() const { return cycles_; }
    // n dword clocks passed without ticking (the fast path): the clock count and the
    // cable's slot advance as ticking would have moved them; restore() then places the
    // state those clocks would have left.
    void advance_untick(uint64_t n);
    void rewind_untick(uint64_t n); // undoes advance_untick(n) (the lockstep check)
    void set_hook(WireHook *h) { hook_ = h; }
    Vsata_link_pair &model() { return *m_; }

  private:
    template <class Load> uint32_t crc_of(Load load, size_t n) const;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vsata_link_pair> m_;
    Side host_, dev_;
    WireHook *hook_ = nullptr;
    // cable: ring of in-flight dwords per direction (index 0 = host->device)
    std::array<std::array<uint32_t, kWireDelay>, 2> wire_data_{};
    std::array<std::array<bool, kWireDelay>, 2> wire_isk_{};
    unsigned wire_pos_ = 0;
    uint64_t cycles_ = 0;
};

} // namespace satasim::link
