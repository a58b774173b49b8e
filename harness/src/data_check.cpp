#include "data_check.h"

#include <cstring>

#include "prng.h"

namespace satasim::harness {

namespace {

constexpr size_t kSector = 512;

void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; ++i)
        p[i] = uint8_t(v >> (8 * i));
}

uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= uint64_t(p[i]) << (8 * i);
    return v;
}

uint64_t seed_tag(uint64_t seed) { return mix64(seed ^ 0x5a7a5a7a5a7a5a7aull); }

std::string describe(const uint8_t *got, uint64_t seed) {
    bool all_poison = true, all_zero = true;
    for (size_t i = 0; i < kSector; ++i) {
        all_poison &= got[i] == kPoison;
        all_zero &= got[i] == 0;
    }
    if (all_poison)
        return "found the 0xA5 poison (sector never transferred)";
    if (all_zero)
        return "found zeros";
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
    uint64_t w = mix64(lba * 0x9e3779b97f4a7c15ull ^ mix64(gen) ^ seed);
    for (size_t off = 24; off < kSector; off += 8) {
        w += 0x9e3779b97f4a7c15ull;
        put64(dst + off, w ^ (w >> 29));
    }
}

void ShadowMap::set(uint64_t lba, uint64_t n, uint64_t gen) {
    auto hint = gens_.lower_bound(lba);
    for (uint64_t i = 0; i < n; ++i) {
        if (gen == kZero) {
            gens_.erase(lba + i);
            continue;
        }
        hint = gens_.insert_or_assign(hint, lba + i, gen);
        ++hint;
    }
}

uint64_t ShadowMap::gen(uint64_t lba) const {
    auto it = gens_.find(lba);
    return it == gens_.end() ? kZero : it->second;
}

ShadowMap::Cursor ShadowMap::cursor(uint64_t lba) const { return gens_.lower_bound(lba); }

uint64_t ShadowMap::next_gen(Cursor &c, uint64_t lba) const {
    while (c != gens_.end() && c->first < lba)
        ++c;
    return c != gens_.end() && c->first == lba ? c->second : kZero;
}

std::vector<std::pair<uint64_t, uint64_t>> ShadowMap::extents() const {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const auto &[lba, gen] : gens_) {
        (void)gen;
        if (!out.empty() && out.back().first + out.back().second == lba)
            ++out.back().second;
        else
            out.emplace_back(lba, 1);
    }
    return out;
}

bool ShadowMap::any_written(uint64_t lba, uint64_t n) const {
    auto it = gens_.lower_bound(lba);
    return it != gens_.end() && it->first < lba + n;
}

ReadCheck check_read(const uint8_t *buf, uint64_t lba, uint32_t n, const ShadowMap &shadow,
                     uint64_t seed, size_t max_reports) {
    ReadCheck r;
    uint8_t want[kSector];
    static const uint8_t zeros[kSector] = {};
    ShadowMap::Cursor cur = shadow.cursor(lba);
    for (uint32_t i = 0; i < n; ++i) {
        const uint8_t *got = buf + size_t(i) * kSector;
        uint64_t g = shadow.next_gen(cur, lba + i);
        if (g == ShadowMap::kUnknown)
            continue;
        const uint8_t *exp = zeros;
        if (g != ShadowMap::kZero) {
            fill_sector(want, lba + i, g, seed);
            exp = want;
        }
        if (std::memcmp(exp, got, kSector) == 0)
            continue;
        ++r.bad_sectors;
        if (r.first.size() < max_reports) {
            size_t off = 0;
            while (off < kSector && exp[off] == got[off])
                ++off;
            r.first.push_back("lba " + std::to_string(lba + i) + ": expected " +
                              (g == ShadowMap::kZero ? std::string("zeros (never written)")
                                                     : "write generation " + std::to_string(g)) +
                              ", " + describe(got, seed) + " (first difference at byte " +
                              std::to_string(off) + ")");
        }
    }
    return r;
}

} // namespace satasim::harness
