// CHECK / CHECK_EQ for the model tests that drive verilated RTL from plain C++ (no SystemC):
// a failed check prints file:line and what was expected, and counts into `failures`, which
// the test reads and resets per case.
#pragma once

#include <cstdio>

inline int failures = 0;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond);               \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)
#define CHECK_EQ(a, e)                                                                     \
    do {                                                                                   \
        unsigned long long a_ = (unsigned long long)(a), e_ = (unsigned long long)(e);     \
        if (a_ != e_) {                                                                    \
            std::printf("%s:%d: %s == 0x%llx, expected 0x%llx\n", __FILE__, __LINE__, #a,  \
                        a_, e_);                                                           \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)

// A test program's cases, run in order: each prints "ok" or "FAIL" with its name, then the
// totals; the exit status is 1 if any case failed.
struct PlainCase {
    const char *name;
    void (*fn)();
};
template <unsigned long N> int run_plain_cases(const PlainCase (&cases)[N]) {
    int failed = 0;
    for (const PlainCase &c : cases) {
        const int before = failures;
        c.fn();
        const bool ok = failures == before;
        failed += !ok;
        std::printf("%s %s\n", ok ? "ok  " : "FAIL", c.name);
    }
    std::printf("%d passed, %d failed\n", int(N) - failed, failed);
    return failed ? 1 : 0;
}
