// The dword-exact fast path (see link_fast_path.h for why it is exact).
#include "model/link/link_fast_path.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace satasim::link {

namespace {

// The formulas a data register's end value may follow (bit numbers of Entry::cand).
enum Formula : unsigned {
    kConst = 0,  // a primitive on a primitive-or-data field (its K flag is set): as learned
    kSame = 1,   // unchanged by the phase
    kCrc = 2,    // the frame's CRC
    kScr = 3,    // the scrambler after the frame's dwords and its CRC dword
    kLast = 4,   // the frame's last dword
    kJState = 5, // bits 5, 6: a side's CONT junk LFSR after the phase (host, device)
    kJunk = 7,   // bits 7-9 host, 10-12 device: the side's junk word j from the last (j 0-2)
    kFormulas = 13,
};
constexpr unsigned kJunkBack = 3;

size_t field_index(const char *name) {
    for (size_t i = 0; i < LinkRtlPair::State::kFields; ++i)
        if (std::strcmp(LinkRtlPair::state_field(i).name, name) == 0)
            return i;
    throw std::logic_error(std::string("link fast path: no state field ") + name);
}

bool same_side(const LinkRtlPair::Side &a, const LinkRtlPair::Side &b) {
    return a.tx == b.tx && a.tx_pos == b.tx_pos && a.tx_avail == b.tx_avail && a.tx_req == b.tx_req &&
           a.tx_done == b.tx_done && a.tx_status == b.tx_status && a.tx_dmat == b.tx_dmat &&
           a.rx == b.rx && a.rx_frames == b.rx_frames && a.rx_end == b.rx_end &&
           a.rx_crc_ok == b.rx_crc_ok && a.rx_abort == b.rx_abort && a.rx_full == b.rx_full &&
           a.rx_dmat == b.rx_dmat && a.verdict == b.verdict && a.accept == b.accept &&
           a.auto_verdict == b.auto_verdict && a.bad_prims == b.bad_prims;
}

} // namespace

LinkFastPath::LinkFastPath(Mode mode) : mode_(mode) {
    for (size_t i = 0; i < kFields; ++i) {
        data_[i] = LinkRtlPair::state_field(i).data;
        isk_[i] = LinkRtlPair::state_field(i).isk;
        if (data_[i])
            data_fields_.push_back(i);
    }
    junk_field_ = {field_index("sata_link_pair__DOT__host__DOT__junk_lfsr"),
                   field_index("sata_link_pair__DOT__device__DOT__junk_lfsr")};
    align_field_ = {field_index("sata_link_pair__DOT__host__DOT__align_cnt"),
                    field_index("sata_link_pair__DOT__device__DOT__align_cnt")};
}

const LinkFastPath::Jump &LinkFastPath::jump(LinkRtlPair &pair, uint32_t k) const {
    auto &jumps = shared().jumps;
    auto it = jumps.find(k);
    if (it != jumps.end())
        return it->second;
    std::array<uint16_t, 16> col{}; // column b: what the state bit b alone becomes after k steps
    for (unsigned b = 0; b < 16; ++b) {
        uint16_t s = uint16_t(1u << b);
        for (uint32_t i = 0; i < k; ++i)
            s = pair.lfsr_step(s, nullptr);
        col[b] = s;
    }
    Jump j;
    for (unsigned v = 0; v < 256; ++v)
        for (unsigned b = 0; b < 8; ++b)
            if (v & (1u << b)) {
                j.lo[v] = uint16_t(j.lo[v] ^ col[b]);
                j.hi[v] = uint16_t(j.hi[v] ^ col[b + 8]);
            }
    return jumps.emplace(k, j).first->second;
}

uint16_t LinkFastPath::scrambler_after(LinkRtlPair &pair, size_t n) const {
    auto &scr_after = shared().scr_after;
    auto it = scr_after.find(n);
    if (it != scr_after.end())
        return it->second;
    uint16_t s = 0xFFFF;
    for (size_t k = 0; k <= n; ++k)
        s = pair.lfsr_step(s, nullptr);
    return scr_after.emplace(n, s).first->second;
}

const std::vector<uint32_t> &FrameFis::get() {
    if (!filled) {
        sata::fis_to_dwords(*fis, dwords->data());
        filled = true;
    }
    return *dwords;
}

uint32_t LinkFastPath::frame_crc(LinkRtlPair &pair, const FrameFis &fis) const {
    // both phases of a frame ask: computed once per frame (run() forgets it at each new one)
    if (!crc_valid_) {
        crc_ = pair.crc_of_bytes(fis.fis->bytes.data(), fis.size());
        crc_valid_ = true;
    }
    return crc_;
}

LinkFastPath::Shared &LinkFastPath::shared() {
    static Shared s;
    return s;
}

LinkFastPath::Mode LinkFastPath::mode_from_env() {
    const char *v = std::getenv("SATASIM_LINK_FASTPATH");
    if (!v || !*v || std::strcmp(v, "on") == 0)
        return Mode::On;
    if (std::strcmp(v, "off") == 0)
        return Mode::Off;
    if (std::strcmp(v, "lockstep") == 0)
        return Mode::Lockstep;
    throw std::invalid_argument(std::string("SATASIM_LINK_FASTPATH=") + v +
                                ": expected on, off or lockstep");
}

// The inputs of the formulas for one phase instance, computed when first asked for.
struct LinkFastPath::Frame {
    const LinkFastPath *fp = nullptr;
    const FrameFis *fis = nullptr;
    const State *start = nullptr;
    std::array<uint32_t, 2> steps{}; // junk words each side sent in the phase
    bool have_crc = false, have_scr = false;
    uint32_t crc = 0;
    uint16_t scr = 0;
    std::array<bool, 2> have_junk{};
    std::array<uint16_t, 2> jstate{};
    std::array<std::array<uint32_t, kJunkBack>, 2> jwords{}; // [side][j]: j-th word from the last

    void junk(LinkRtlPair &pair, unsigned side) {
        if (have_junk[side])
            return;
        // jump to kJunkBack words before the end, then step through the last ones
        const uint32_t k = steps[side], base = k > kJunkBack ? k - kJunkBack : 0;
        uint16_t s = fp->jump(pair, base).apply(uint16_t(start->v[fp->junk_field_[side]]));
        for (uint32_t i = base; i < k; ++i) {
            uint32_t w = 0;
            s = pair.lfsr_step(s, &w);
            jwords[side][k - 1 - i] = w;
        }
        jstate[side] = s;
        have_junk[side] = true;
    }

    // Formula f's value for field i (false: it has none here).
    bool eval(unsigned f, size_t i, const Entry &e, LinkRtlPair &pair, uint32_t &out) {
        const FrameFis &d = *fis;
        switch (f) {
        case kConst: {
            const int isk = fp->isk_[i];
            if (isk < 0 || e.end.v[size_t(isk)] == 0)
                return false;
            out = e.end.v[i];
            return true;
        }
        case kSame:
            out = start->v[i];
            return true;
        case kCrc:
            if (!have_crc) {
                crc = fp->frame_crc(pair, d);
                have_crc = true;
            }
            out = crc;
            return true;
        case kScr:
            if (!have_scr) {
                scr = fp->scrambler_after(pair, d.size());
                have_scr = true;
            }
            out = scr;
            return true;
        case kLast:
            if (d.size() == 0)
                return false;
            out = d.last();
            return true;
        default:
            break;
        }
        if (f == kJState || f == kJState + 1) {
            junk(pair, f - kJState);
            out = jstate[f - kJState];
            return true;
        }
        const unsigned side = (f - kJunk) / kJunkBack, j = (f - kJunk) % kJunkBack;
        if (steps[side] <= j)
            return false;
        junk(pair, side);
        out = jwords[side][j];
        return true;
    }
};

size_t LinkFastPath::KeyHash::operator()(const Key &k) const {
    // Four independent multiply-xorshift lanes over word pairs, then one finalizer: a hash
    // per frame phase (two on an ALIGN-free lookup), so a serial FNV chain over the 97
    // words was a visible share of the phase's cost. Only bucket placement depends on it.
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
    uint64_t h[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
                     0x082EFA98EC4E6C89ull};
    const uint32_t *w = k.v.data();
    const size_t n = k.v.size();
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (unsigned lane = 0; lane < 4; ++lane) {
            const uint64_t x = w[i + 2 * lane] | uint64_t(w[i + 2 * lane + 1]) << 32;
            h[lane] = (h[lane] ^ x) * kMul;
            h[lane] ^= h[lane] >> 29;
        }
    for (; i < n; ++i)
        h[i % 4] = ((h[i % 4] ^ w[i]) * kMul) ^ (h[i % 4] >> 29);
    uint64_t r = h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7);
    r ^= r >> 32;
    r *= kMul;
    r ^= r >> 29;
    return size_t(r);
}

LinkFastPath::Key LinkFastPath::key_of(const State &s, Phase phase, bool from_host, size_t n,
                                       bool accept, bool align_free) const {
    Key k;
    std::memcpy(k.v.data(), s.v.data(), sizeof s.v);
    for (size_t i : data_fields_) // a data field enters the key only while it holds a primitive
        if (isk_[i] < 0 || s.v[size_t(isk_[i])] == 0)
            k.v[i] = 0;
    k.v[kFields] = uint32_t(phase);
    k.v[kFields + 1] = from_host;
    k.v[kFields + 2] = uint32_t(n);
    k.v[kFields + 3] = (phase == Phase::ToIdle ? accept : 0) | (align_free ? 2u : 0u);
    return k;
}

bool LinkFastPath::learn(Entry &e, bool fresh, const State &start, const State &end,
                         uint64_t clocks, const Frame &frame, LinkRtlPair &pair) {
    Frame f = frame;
    f.have_junk = {false, false};
    for (unsigned side = 0; side < 2; ++side) {
        // The junk LFSR steps once per junk word: find how many the phase sent.
        uint16_t s = uint16_t(start.v[junk_field_[side]]);
        const uint16_t want = uint16_t(end.v[junk_field_[side]]);
        uint64_t k = 0;
        while (s != want && k <= clocks) {
            s = pair.lfsr_step(s, nullptr);
            ++k;
        }
        if (s != want)
            return false;
        f.steps[side] = uint32_t(k);
    }
    if (fresh) {
        e.clocks = clocks;
        e.end = end;
        e.junk_steps = f.steps;
    } else if (clocks != e.clocks || f.steps != e.junk_steps) {
        return false;
    }
    for (size_t i = 0; i < kFields; ++i) {
        if (!data_[i]) {
            if (end.v[i] != e.end.v[i])
                return false;
            continue;
        }
        uint16_t seen = 0;
        for (unsigned b = 0; b < kFormulas; ++b) {
            uint32_t v = 0;
            if (f.eval(b, i, e, pair, v) && v == end.v[i])
                seen = uint16_t(seen | (1u << b));
        }
        e.cand[i] = fresh ? seen : uint16_t(e.cand[i] & seen);
        if (!e.cand[i])
            return false;
    }
    return true;
}

bool LinkFastPath::predict(const Entry &e, Frame &f, LinkRtlPair &pair, State &out) const {
    f.steps = e.junk_steps;
    out = e.end; // the control fields; the data fields are replaced below
    for (size_t i : data_fields_) {
        bool have = false;
        uint32_t value = 0;
        for (unsigned m = e.cand[i]; m; m &= m - 1) {
            uint32_t v = 0;
            if (!f.eval(unsigned(__builtin_ctz(m)), i, e, pair, v))
                return false;
            if (have && v != value)
                return false; // two formulas still disagree: tick this one and learn
            have = true;
            value = v;
        }
        if (!have)
            return false;
        out.v[i] = value;
    }
    return true;
}

bool LinkFastPath::clean_end(Phase phase, const LinkRtlPair::Side &tx, const LinkRtlPair::Side &rx,
                             FrameFis &fis, bool accept, uint64_t rx_frames0, uint64_t bad0_tx,
                             uint64_t bad0_rx) {
    if (tx.bad_prims != bad0_tx || rx.bad_prims != bad0_rx || rx.rx_abort || tx.tx_dmat)
        return false;
    if (phase == Phase::ToVerdict)
        return !tx.tx_done && tx.tx_pos == fis.size() && rx.rx_end && rx.rx_crc_ok &&
               rx.rx_frames == rx_frames0 + 1 && rx.rx == fis.get();
    return tx.tx_done && !tx.tx_req && tx.tx_status == (accept ? 0u : 1u) &&
           rx.rx_frames == rx_frames0;
}

void LinkFastPath::apply_sides(Phase phase, LinkRtlPair::Side &tx, LinkRtlPair::Side &rx, FrameFis &fis,
                               bool accept) const {
    if (phase == Phase::ToVerdict) {
        tx.tx_pos = fis.size();
        if (mode_ == Mode::Lockstep) // compared with ticking's; otherwise nobody reads it
            rx.rx = fis.get();
        else
            rx.rx.clear();
        ++rx.rx_frames;
        rx.rx_end = true;
        rx.rx_crc_ok = true;
        rx.rx_abort = false;
        return;
    }
    tx.tx_done = true;
    tx.tx_req = false;
    tx.tx_status = accept ? 0 : 1;
    tx.tx_dmat = false;
}

LinkRtlPair::State LinkFastPath::align_relative(const State &s, uint32_t a0) const {
    State r = s;
    for (size_t i : align_field_)
        r.v[i] = (s.v[i] - a0) & 0xFFu;
    return r;
}

bool LinkFastPath::replayable(const Entry *e, Frame &f, LinkRtlPair &pair, State &out) const {
    return e && !e->broken && predict(*e, f, pair, out);
}

uint64_t LinkFastPath::run(LinkRtlPair &pair, Phase phase, bool from_host, FrameFis &fis, bool accept,
                           const std::function<uint64_t()> &tick) {
    replayed_last_ = false;
    if (mode_ == Mode::Off) {
        const uint64_t n = tick();
        ++stats_.ticked;
        stats_.clocks_ticked += n;
        return n;
    }
    if (phase == Phase::ToVerdict)
        crc_valid_ = false; // a new frame
    LinkRtlPair::Side &tx = pair.side(from_host);
    LinkRtlPair::Side &rx = pair.side(!from_host);
    const State start = pair.capture();
    // Both ALIGN counters run together (reset together, ticked together).
    const uint32_t a0 = start.v[align_field_[0]];
    const Key key = key_of(start, phase, from_host, fis.size(), accept, false);
    // the align-free view, made when the exact key does not replay
    State start_rel;
    Key free_key;
    bool have_free = false;
    auto make_free = [&] {
        if (!have_free) {
            start_rel = align_relative(start, a0);
            free_key = key_of(start_rel, phase, from_host, fis.size(), accept, true);
            have_free = true;
        }
    };
    auto find = [&](const Key &k) -> Entry * {
        auto it = memo_.find(k);
        return it == memo_.end() ? nullptr : &it->second;
    };
    Frame frame;
    frame.fp = this;
    frame.fis = &fis;
    frame.start = &start;
    State predicted;
    Entry *used = nullptr;
    if (!tx.record && !rx.record) {
        if (Entry *e = find(key); replayable(e, frame, pair, predicted)) {
            used = e;
        } else {
            make_free();
            Entry *fe = find(free_key);
            if (!fe || a0 + fe->clocks > kAlignSlot)
                fe = nullptr;
            // Learned where no ALIGN slot fell into the phase: the same from any counter
            // value that keeps it so (the counter only decides the ALIGN slots).
            Frame ff = frame;
            if (fe && replayable(fe, ff, pair, predicted)) {
                for (size_t i : align_field_)
                    predicted.v[i] = (predicted.v[i] + a0) & 0xFFu;
                used = fe;
                frame = ff;
            }
        }
    }
    if (used && mode_ == Mode::On) {
        pair.advance_untick(used->clocks);
        pair.restore(predicted);
        apply_sides(phase, tx, rx, fis, accept);
        ++stats_.replayed;
        stats_.clocks_replayed += used->clocks;
        replayed_last_ = true;
        return used->clocks;
    }
    fis.get(); // the pair ticks below (lockstep too), and the sides are compared
    const LinkRtlPair::Side tx0 = tx, rx0 = rx;
    if (used) { // lockstep: replay, keep the result, rewind, tick, compare
        const uint64_t clocks = used->clocks;
        pair.advance_untick(clocks);
        pair.restore(predicted);
        apply_sides(phase, tx, rx, fis, accept);
        const State fast = pair.capture();
        const LinkRtlPair::Side txf = tx, rxf = rx;
        pair.rewind_untick(clocks);
        pair.restore(start);
        tx = tx0;
        rx = rx0;
        const uint64_t n = tick();
        const State slow = pair.capture();
        ++stats_.checked;
        std::string diff;
        if (n != clocks)
            diff = "clocks " + std::to_string(clocks) + " replayed, " + std::to_string(n) + " ticked";
        for (size_t i = 0; i < kFields && diff.empty(); ++i)
            if (fast.v[i] != slow.v[i])
                diff = std::string(LinkRtlPair::state_field(i).name) + " " + std::to_string(fast.v[i]) +
                       " replayed, " + std::to_string(slow.v[i]) + " ticked";
        if (diff.empty() && !(same_side(txf, tx) && same_side(rxf, rx)))
            diff = "the transport's view of the frame";
        if (!diff.empty())
            throw std::runtime_error("link fast path lockstep: " + std::string(from_host ? "H2D" : "D2H") +
                                     " frame of " + std::to_string(fis.size()) + " dwords, phase " +
                                     std::to_string(unsigned(phase)) + ": " + diff);
    }
    const uint64_t n = used ? used->clocks : tick();
    ++stats_.ticked;
    stats_.clocks_ticked += n;
    if (tx.record || rx.record ||
        !clean_end(phase, tx, rx, fis, accept, rx0.rx_frames, tx0.bad_prims, rx0.bad_prims))
        return n; // a frame that went wrong (or is being recorded) teaches nothing
    const State end = pair.capture();
    auto teach = [&](const Key &k, const State &from, const State &to) {
        auto it = memo_.find(k);
        const bool fresh = it == memo_.end();
        if (fresh && memo_.size() >= kMaxEntries)
            return;
        if (fresh)
            it = memo_.emplace(k, Entry{}).first;
        if (!it->second.broken && !learn(it->second, fresh, from, to, n, frame, pair)) {
            if (mode_ == Mode::Lockstep && !fresh)
                throw std::runtime_error("link fast path lockstep: two ticked instances of one "
                                         "control state disagree (a register missing from "
                                         "LinkRtlPair::State?)");
            it->second.broken = true;
        }
    };
    teach(key, start, end);
    if (a0 + n <= kAlignSlot) {
        make_free();
        teach(free_key, start_rel, align_relative(end, a0));
    }
    return n;
}

} // namespace satasim::link
