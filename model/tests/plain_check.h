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
