// The failure report of the clock-domain crossing testbenches (cdc_test.cpp,
// axi_cdc_test.cpp): fail() prints a check that did not hold, with the clock-schedule step
// it was found at, and counts it; the first 20 are printed. Each test exits non-zero if
// g_failures is not 0.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>

namespace satasim_tb {

inline int g_failures = 0;
inline uint64_t g_step = 0; // the testbench's current step (set by its loop)

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline void fail(const char *fmt, ...) {
    if (++g_failures > 20)
        return;
    std::va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "FAIL step %llu: ", static_cast<unsigned long long>(g_step));
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
    va_end(ap);
}

} // namespace satasim_tb
