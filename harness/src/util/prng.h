// Seeded generators. Every random choice in a run comes from a generator derived from the
// scenario seed and the name of the component that makes the choice, so adding a
// component never shifts another component's sequence.
#pragma once

#include <cstdint>
#include <string>

namespace satasim::harness {

inline uint64_t splitmix64_next(uint64_t &state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

inline uint64_t mix64(uint64_t v) {
    uint64_t s = v;
    return splitmix64_next(s);
}

inline uint64_t fnv1a64(const std::string &s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

// The seed of component `name` in a run with scenario seed `seed`.
inline uint64_t derive_seed(uint64_t seed, const std::string &name) {
    return mix64(seed ^ mix64(fnv1a64(name)));
}

class Rng {
  public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next() { return splitmix64_next(state_); }
    // Uniform in [0, n), n > 0 (rejection sampling: no modulo bias).
    uint64_t below(uint64_t n) {
        if (n <= 1)
            return 0;
        uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        uint64_t v;
        do
            v = next();
        while (v >= limit);
        return v % n;
    }

  private:
    uint64_t state_;
};

} // namespace satasim::harness
