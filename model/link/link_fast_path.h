// The dword-exact fast path of a link at dword level (issue 36): a frame nobody observes at
// dword level (no dword or primitive fault armed, no waveform: SataLink decides) is not
// ticked through the verilated pair when the same frame has been ticked before from the
// same control state.
//
// Why that is exact: the pair's state machines, encoders and ALIGN counters (the "control"
// registers, LinkRtlPair::StateField::data false) never look at data values: a receiver
// tells data from primitives by the K flag, and CONT junk follows a CONT. Without a fault
// the frame's CRC always matches. So the control registers' values at the end of a frame
// phase, and the number of dword clocks it takes, are a function of the control registers
// at its start, the direction, the frame's length and the receiver's verdict: a memo of
// what ticking gave. The data registers (CRC, scrambler, received dword, CONT junk, the
// cable's junk dwords) are computed instead, each by the one formula (unchanged, the
// frame's CRC, the scrambler after the frame, its last dword, the n-th junk word of a side)
// that every ticked instance of the phase agreed with; while two formulas still disagree on
// a frame, that frame is ticked and teaches which is right.
//
// Modes (SATASIM_LINK_FASTPATH): on (default), off (always tick), lockstep (every frame the
// memo could replay is replayed, then rewound and ticked, and the two end states, clock
// counts and received frames must be equal field by field: an error otherwise).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "model/link/link_rtl.h"
#include "model/sata/fis.h"

namespace satasim::link {

// A frame's FIS as run() sees it: the FIS, and the transmitter's dword buffer (the right
// size from the start), which get() fills only when something needs the dwords: the pair
// about to tick, lockstep, a received frame compared. A replayed frame needs only its CRC
// and last dword, which come from the FIS's bytes (three 8 KiB copies per Data FIS were a
// tenth of a 64 KiB read's cost).
struct FrameFis {
    const sata::Fis *fis = nullptr;
    std::vector<uint32_t> *dwords = nullptr; // size fis->dwords()
    bool filled = false;
    size_t size() const { return dwords->size(); }
    const std::vector<uint32_t> &get(); // sata::fis_to_dwords, once
    uint32_t last() const { return fis->dword(size() - 1); }
};

class LinkFastPath {
  public:
    enum class Mode : uint8_t { Off, On, Lockstep };
    // SATASIM_LINK_FASTPATH=on|off|lockstep; unset: on. Anything else is an error.
    static Mode mode_from_env();

    explicit LinkFastPath(Mode mode);
    Mode mode() const { return mode_; }

    // The two phases of a frame, as SataLink::send_dword ticks them.
    enum class Phase : uint8_t {
        ToVerdict, // X_RDY ... EOF, until the receiver has the frame and its CRC
        ToIdle,    // R_OK / R_ERR back, both sides to SYNC
    };
    // Runs one phase of a clean frame (fis: the frame; accept: the receiver's verdict, for
    // ToIdle) on pair: from the memo, or by tick() (which ticks the pair and returns the
    // clocks it ticked; it fills fis first) while learning. Returns the clocks the phase took.
    uint64_t run(LinkRtlPair &pair, Phase phase, bool from_host, FrameFis &fis, bool accept,
                 const std::function<uint64_t()> &tick);

    // The last run() replayed its phase: the receiver got the frame as sent. Outside
    // lockstep its Side::rx is then left empty (nobody reads it before the next frame).
    bool replayed_last() const { return replayed_last_; }

    struct Stats {
        uint64_t replayed = 0;  // phases advanced without ticking
        uint64_t ticked = 0;    // phases ticked (learning, ambiguity, unclean)
        uint64_t checked = 0;   // lockstep: replays compared with ticking
        uint64_t clocks_replayed = 0, clocks_ticked = 0;
    };
    const Stats &stats() const { return stats_; }

  private:
    using State = LinkRtlPair::State;
    static constexpr size_t kFields = State::kFields;
    struct Key {
        std::array<uint32_t, kFields + 4> v;
        bool operator==(const Key &o) const { return v == o.v; }
    };
    struct KeyHash {
        size_t operator()(const Key &k) const;
    };
    struct Entry {
        uint64_t clocks = 0;
        State end;                           // control values; data: as first seen
        std::array<uint16_t, kFields> cand{}; // data fields: formulas still consistent
        std::array<uint32_t, 2> junk_steps{}; // CONT junk words each side sent (host, device)
        bool broken = false;                 // an instance disagreed: always tick
    };
    struct Frame; // the formulas' inputs for one phase instance (link_fast_path.cpp)

    // align_free: the key of an entry learned where no ALIGN slot fell into the phase, with
    // the ALIGN counters taken relative to the phase's start (align_relative).
    Key key_of(const State &s, Phase phase, bool from_host, size_t n, bool accept, bool align_free) const;
    State align_relative(const State &s, uint32_t a0) const;
    bool replayable(const Entry *e, Frame &f, LinkRtlPair &pair, State &out) const;
    // The ALIGN counter's first ALIGN slot (sata_link.v: slots 254 and 255 of 256).
    static constexpr uint64_t kAlignSlot = 254;
    bool learn(Entry &e, bool fresh, const State &start, const State &end, uint64_t clocks,
               const Frame &f, LinkRtlPair &pair);
    bool predict(const Entry &e, Frame &f, LinkRtlPair &pair, State &out) const;
    static bool clean_end(Phase phase, const LinkRtlPair::Side &tx, const LinkRtlPair::Side &rx,
                          FrameFis &fis, bool accept, uint64_t rx_frames0, uint64_t bad0_tx,
                          uint64_t bad0_rx);
    void apply_sides(Phase phase, LinkRtlPair::Side &tx, LinkRtlPair::Side &rx, FrameFis &fis,
                     bool accept) const;

    // The LFSR is linear over GF(2): k steps are one 16x16 matrix, so a phase's hundreds of
    // junk words cost one product. The matrix is held as the products of each value of the
    // state's low and high byte (byte-sliced), so applying it is two loads.
    struct Jump {
        std::array<uint16_t, 256> lo{}, hi{};
        uint16_t apply(uint16_t s) const { return uint16_t(lo[s & 0xFFu] ^ hi[s >> 8]); }
    };
    const Jump &jump(LinkRtlPair &pair, uint32_t k) const;
    uint16_t scrambler_after(LinkRtlPair &pair, size_t n) const; // FFFF stepped n + 1 times
    uint32_t frame_crc(LinkRtlPair &pair, const FrameFis &fis) const;
    bool replayed_last_ = false;
    mutable bool crc_valid_ = false; // crc_ is the current frame's CRC
    mutable uint32_t crc_ = 0;

    Mode mode_;
    std::array<bool, kFields> data_{};  // LinkRtlPair::state_field(i).data
    std::array<int, kFields> isk_{};    // LinkRtlPair::state_field(i).isk
    std::array<size_t, 2> junk_field_{}; // each side's junk LFSR in a State
    std::array<size_t, 2> align_field_{}; // each side's ALIGN counter
    std::vector<size_t> data_fields_;    // the indices i with data_[i]
    // What ticking taught, shared by every link of the process: every link runs the same
    // verilated RTL, so a phase's outcome is a function of its state, whichever link it is
    // (a 480-disk topology learns once, not 480 times). SystemC runs one process at a time.
    struct Shared {
        std::unordered_map<Key, Entry, KeyHash> memo;
        std::unordered_map<uint32_t, Jump> jumps;
        std::unordered_map<size_t, uint16_t> scr_after;
    };
    static Shared &shared();
    // A bound on the memo (an entry is about 1 KiB, so at most ~64 MiB per process): beyond
    // it, unknown phases just tick.
    static constexpr size_t kMaxEntries = 1u << 16;
    std::unordered_map<Key, Entry, KeyHash> &memo_ = shared().memo;
    Stats stats_;
};

} // namespace satasim::link
