#include "run/data_check.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "model/device/media_store.h"
#include "util/prng.h"

namespace satasim::harness {

namespace {


// Little-endian 64-bit stores and loads; whole words on a little-endian host.
void put64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    std::memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; ++i)
        p[i] = uint8_t(v >> (8 * i));
#endif
}

uint64_t get64(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
#else
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= uint64_t(p[i]) << (8 * i);
    return v;
#endif
}

constexpr uint64_t kWeyl = 0x9e3779b97f4a7c15ull;
constexpr size_t kWords = kSector / 8;

// The body's base: a Weyl sequence starts here (see fill_sector).
uint64_t body_base(uint64_t lba, uint64_t gen, uint64_t seed) {
    return mix64(lba * kWeyl ^ mix64(gen) ^ seed);
}

// Body word k (k = 3 .. 63, byte offset 8k) is step k-2 of the sequence: base + (k-2) * C,
// whitened as w ^ (w >> 29). The loops below take two words per step (two lanes, each
// advancing by 2C), which compilers map to SSE2/NEON and which is exact on any target.
inline uint64_t whiten(uint64_t w) { return w ^ (w >> 29); }

typedef uint64_t u64x2 __attribute__((vector_size(16)));

inline u64x2 load2(const uint8_t *p) {
    uint64_t a = get64(p), b = get64(p + 8);
    return u64x2{a, b};
}

uint64_t seed_tag(uint64_t seed) { return mix64(seed ^ 0x5a7a5a7a5a7a5a7aull); }

std::string describe(const uint8_t *got, uint64_t seed, const std::optional<uint64_t> &blank_seed) {
    bool all_poison = true, all_zero = true;
    for (size_t i = 0; i < kSector; ++i) {
        all_poison &= got[i] == kPoison;
        all_zero &= got[i] == 0;
    }
    if (all_poison)
        return "found the 0xA5 poison (sector never transferred)";
    if (all_zero)
        return "found zeros";
    if (get64(got + 8) == device::MediaStore::kBlankMagic) {
        const uint64_t lba = get64(got);
        if (blank_seed && device::MediaStore::is_blank_sector(got, lba, *blank_seed))
            return "found the blank pattern of lba " + std::to_string(lba) + " (never written)";
        return "found a blank pattern of lba " + std::to_string(lba) + " with media seed " +
               std::to_string(get64(got + 16));
    }
    if (get64(got + 16) == seed_tag(seed)) {
        uint64_t lba = get64(got), gen = get64(got + 8);
        uint8_t want[kSector];
        fill_sector(want, lba, gen, seed);
        if (std::memcmp(want, got, kSector) == 0)
            return "found the data of lba " + std::to_string(lba) + " generation " + std::to_string(gen);
        return "found a damaged copy of lba " + std::to_string(lba) + " generation " + std::to_string(gen);
    }
    return "found unrecognised data";
}

} // namespace

void fill_sector(uint8_t *dst, uint64_t lba, uint64_t gen, uint64_t seed) {
    put64(dst, lba);
    put64(dst + 8, gen);
    put64(dst + 16, seed_tag(seed));
    // The body: a Weyl sequence from a per-sector base, whitened by a shift. Cheap, and
    // with the header no two (lba, generation, seed) sectors are alike.
    const uint64_t base = body_base(lba, gen, seed);
    put64(dst + 24, whiten(base + kWeyl)); // word 3; words 4 .. 63 in pairs
    u64x2 w = {base + 2 * kWeyl, base + 3 * kWeyl};
    const u64x2 step = {2 * kWeyl, 2 * kWeyl};
    for (size_t k = 4; k < kWords; k += 2) {
        const u64x2 x = w ^ (w >> 29);
        put64(dst + 8 * k, x[0]);
        put64(dst + 8 * k + 8, x[1]);
        w += step;
    }
}

bool sector_matches(const uint8_t *got, uint64_t lba, uint64_t gen, uint64_t seed) {
    // Every word is compared (no early exit), so the loop is branch-free.
    uint64_t diff = (get64(got) ^ lba) | (get64(got + 8) ^ gen) | (get64(got + 16) ^ seed_tag(seed));
    const uint64_t base = body_base(lba, gen, seed);
    diff |= get64(got + 24) ^ whiten(base + kWeyl);
    u64x2 w = {base + 2 * kWeyl, base + 3 * kWeyl};
    const u64x2 step = {2 * kWeyl, 2 * kWeyl};
    u64x2 acc = {0, 0};
    for (size_t k = 4; k < kWords; k += 2) {
        acc |= load2(got + 8 * k) ^ (w ^ (w >> 29));
        w += step;
    }
    return (diff | acc[0] | acc[1]) == 0;
}

void ShadowMap::set(uint64_t lba, uint64_t n, uint64_t gen) {
    if (n == 0)
        return;
    const uint64_t end = lba + n;
    // Cut [lba, end) out of the runs it overlaps, keeping their parts outside it.
    auto it = runs_.upper_bound(lba);
    if (it != runs_.begin()) {
        auto prev = std::prev(it);
        if (prev->second.end > lba) { // prev starts at or before lba and reaches into it
            const Run r = prev->second;
            const uint64_t start = prev->first;
            tracked_ -= r.end - start;
            if (start < lba) {
                prev->second.end = lba;
                tracked_ += lba - start;
            } else {
                runs_.erase(prev);
            }
            if (r.end > end) {
                runs_.emplace_hint(it, end, Run{r.end, r.gen});
                tracked_ += r.end - end;
            }
        }
    }
    it = runs_.lower_bound(lba);
    while (it != runs_.end() && it->first < end) {
        const Run r = it->second;
        tracked_ -= r.end - it->first;
        it = runs_.erase(it);
        if (r.end > end) {
            it = runs_.emplace_hint(it, end, Run{r.end, r.gen});
            tracked_ += r.end - end;
            break;
        }
    }
    if (gen == kBlank)
        return;
    runs_.emplace_hint(it, lba, Run{end, gen});
    tracked_ += n;
}

uint64_t ShadowMap::gen(uint64_t lba) const {
    Cursor c = cursor(lba);
    return next_gen(c, lba);
}

ShadowMap::Cursor ShadowMap::cursor(uint64_t lba) const {
    auto it = runs_.upper_bound(lba);
    if (it != runs_.begin() && std::prev(it)->second.end > lba)
        return std::prev(it);
    return it;
}

uint64_t ShadowMap::next_gen(Cursor &c, uint64_t lba) const {
    while (c != runs_.end() && c->second.end <= lba)
        ++c;
    return c != runs_.end() && c->first <= lba ? c->second.gen : kBlank;
}

std::vector<std::pair<uint64_t, uint64_t>> ShadowMap::extents() const {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const auto &[start, r] : runs_) {
        if (!out.empty() && out.back().first + out.back().second == start)
            out.back().second += r.end - start;
        else
            out.emplace_back(start, r.end - start);
    }
    return out;
}

bool ShadowMap::any_written(uint64_t lba, uint64_t n) const {
    if (n == 0)
        return false;
    Cursor c = cursor(lba);
    return c != runs_.end() && c->first < lba + n;
}

void DurabilityLog::reset(std::optional<uint64_t> blank_seed) {
    durable_ = ShadowMap{};
    durable_.set_blank(blank_seed);
    pending_.clear();
    lost_.clear();
}

void DurabilityLog::cut(std::vector<Write> &v, uint64_t lba, uint64_t n) {
    const uint64_t end = lba + n;
    std::vector<Write> out;
    out.reserve(v.size());
    for (const Write &w : v) {
        if (w.lba >= end || w.lba + w.n <= lba) {
            out.push_back(w);
            continue;
        }
        if (w.lba < lba)
            out.push_back({w.lba, lba - w.lba, w.gen, w.ack});
        if (w.lba + w.n > end)
            out.push_back({end, w.lba + w.n - end, w.gen, w.ack});
    }
    v.swap(out);
}

void DurabilityLog::acknowledged(uint64_t lba, uint64_t n, uint64_t gen, bool durable, bool raced_loss) {
    ++acks_;
    cut(lost_, lba, n); // what a loss took there no longer matters: this write is newer
    if (durable) {
        cut(pending_, lba, n);
        durable_.set(lba, n, gen);
    } else if (raced_loss) {
        lost_.push_back({lba, n, gen, acks_});
    } else {
        pending_.push_back({lba, n, gen, acks_});
    }
}

void DurabilityLog::failed(uint64_t lba, uint64_t n) {
    cut(pending_, lba, n);
    cut(lost_, lba, n);
    durable_.set(lba, n, ShadowMap::kUnknown);
}

void DurabilityLog::flushed(uint64_t acks_at_submit) {
    std::vector<Write> keep;
    for (const Write &w : pending_) {
        if (w.ack <= acks_at_submit)
            durable_.set(w.lba, w.n, w.gen); // in acknowledgement order: the newest last
        else
            keep.push_back(w);
    }
    pending_.swap(keep);
}

void DurabilityLog::power_lost() {
    lost_.insert(lost_.end(), pending_.begin(), pending_.end());
    pending_.clear();
}

std::optional<uint64_t> DurabilityLog::lost_match(const uint8_t *got, uint64_t lba, uint64_t seed) const {
    bool maybe = false;
    for (const Write &w : lost_)
        maybe |= lba >= w.lba && lba < w.lba + w.n;
    if (!maybe)
        return std::nullopt;
    auto holds = [&](uint64_t g) {
        if (g == ShadowMap::kUnknown)
            return true;
        if (g == ShadowMap::kTrimmed) {
            static const uint8_t zero[kSector] = {};
            return std::memcmp(got, zero, kSector) == 0;
        }
        if (g != ShadowMap::kBlank)
            return sector_matches(got, lba, g, seed);
        if (const auto &bs = durable_.blank_seed())
            return device::MediaStore::is_blank_sector(got, lba, *bs);
        static const uint8_t zeros[kSector] = {};
        return std::memcmp(got, zeros, kSector) == 0;
    };
    if (const uint64_t d = durable_.gen(lba); holds(d))
        return d;
    for (const Write &w : lost_)
        if (lba >= w.lba && lba < w.lba + w.n && holds(w.gen))
            return w.gen;
    return std::nullopt;
}

void DurabilityLog::settle(uint64_t lba, uint64_t gen) {
    cut(lost_, lba, 1);
    durable_.set(lba, 1, gen);
}

std::vector<std::string> describe_lost(const std::vector<ReadCheck::Lost> &lost) {
    auto gen_text = [](uint64_t g) {
        return g == ShadowMap::kBlank     ? std::string("the never-written contents")
               : g == ShadowMap::kUnknown ? std::string("what a failed write left")
               : g == ShadowMap::kTrimmed ? std::string("zeros (trimmed)")
                                          : "generation " + std::to_string(g);
    };
    std::vector<std::string> out;
    for (size_t i = 0; i < lost.size();) {
        size_t j = i + 1;
        uint64_t lo = lost[i].written, hi = lost[i].written;
        while (j < lost.size() && lost[j].lba == lost[j - 1].lba + 1 && lost[j].found == lost[i].found) {
            lo = std::min(lo, lost[j].written);
            hi = std::max(hi, lost[j].written);
            ++j;
        }
        const uint64_t first = lost[i].lba, last = lost[j - 1].lba;
        out.push_back("lba " + std::to_string(first) +
                      (last != first ? ".." + std::to_string(last) + " (" + std::to_string(j - i) + " sectors)" : "") +
                      ": write generation" + (lo != hi ? "s " + std::to_string(lo) + ".." : " ") + std::to_string(hi) +
                      " (acknowledged, never made durable by a flush or FUA) lost with the power, found " +
                      gen_text(lost[i].found));
        i = j;
    }
    return out;
}

ReadCheck check_read(const uint8_t *buf, uint64_t lba, uint32_t n, const ShadowMap &shadow,
                     uint64_t seed, size_t max_reports, const DurabilityLog *durability) {
    ReadCheck r;
    uint8_t want[kSector];
    static const uint8_t zeros[kSector] = {};
    ShadowMap::Cursor cur = shadow.cursor(lba);
    for (uint32_t i = 0; i < n; ++i) {
        const uint8_t *got = buf + size_t(i) * kSector;
        uint64_t g = shadow.next_gen(cur, lba + i);
        if (g == ShadowMap::kUnknown)
            continue;
        const uint8_t *exp = zeros; // never written without a blank pattern, or trimmed
        const bool blank = g == ShadowMap::kBlank;
        if (!blank && g != ShadowMap::kTrimmed) {
            if (sector_matches(got, lba + i, g, seed))
                continue; // the common case, checked without building the expected sector
            fill_sector(want, lba + i, g, seed);
            exp = want;
        } else if (const auto &bs = shadow.blank_seed(); blank && bs) {
            if (device::MediaStore::is_blank_sector(got, lba + i, *bs))
                continue;
            device::MediaStore::blank_sector(want, lba + i, *bs);
            exp = want;
        }
        if (std::memcmp(exp, got, kSector) == 0)
            continue;
        if (durability && durability->lost_writes())
            if (const std::optional<uint64_t> found = durability->lost_match(got, lba + i, seed)) {
                r.lost.push_back({lba + i, g, *found});
                continue;
            }
        ++r.bad_sectors;
        if (r.first.size() < max_reports) {
            size_t off = 0;
            while (off < kSector && exp[off] == got[off])
                ++off;
            r.first.push_back("lba " + std::to_string(lba + i) + ": expected " +
                              (g == ShadowMap::kTrimmed ? std::string("zeros (trimmed)")
                               : g != ShadowMap::kBlank ? "write generation " + std::to_string(g)
                               : shadow.blank_seed()  ? std::string("the blank pattern (never written)")
                                                      : std::string("zeros (never written)")) +
                              ", " + describe(got, seed, shadow.blank_seed()) + " (first difference at byte " +
                              std::to_string(off) + ")");
        }
    }
    return r;
}

} // namespace satasim::harness
