// AFL++ entry point (afl-clang-fast; tools/fuzz build). The fork server is deferred to
// after the process's one-time setup (libraries, sanitizer runtime, the runner); with
// SATASIM_AFL_PERSISTENT (the default build) each forked child then runs up to 10000
// inputs in a __AFL_LOOP, each in a fresh SystemC context (fuzz/sim_context.h). The
// satasim_fuzz_afl_fork build leaves the loop out: one input per fork (the benchmark's
// fork-server mode). Outside afl-fuzz the program reads one input from stdin.
#include <systemc>

#include "fuzz/targets/target_env.h"

#ifndef __AFL_FUZZ_TESTCASE_LEN
// A plain compiler (not afl-clang-fast): the same program on stdin, one input.
#include <unistd.h>
static unsigned char g_stdin[1 << 20]; // a fixed buffer: the loop below keeps its address
static size_t g_stdin_len = 0;
#define __AFL_FUZZ_INIT() void afl_stdin_unused()
#define __AFL_INIT() do {} while (0)
#define __AFL_FUZZ_TESTCASE_BUF (g_stdin)
#define __AFL_FUZZ_TESTCASE_LEN (g_stdin_len)
static bool afl_loop_once() {
    static bool done = false;
    if (done)
        return false;
    for (ssize_t n; g_stdin_len < sizeof g_stdin && (n = read(0, g_stdin + g_stdin_len, sizeof g_stdin - g_stdin_len)) > 0;)
        g_stdin_len += size_t(n);
    return done = true;
}
#define __AFL_LOOP(n) afl_loop_once()
#endif

#ifndef SATASIM_AFL_PERSISTENT
#define SATASIM_AFL_PERSISTENT 1
#endif

__AFL_FUZZ_INIT();

int sc_main(int, char **) {
    satasim::harness::fuzz::target_runner();
    __AFL_INIT();
    unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
#if SATASIM_AFL_PERSISTENT
    while (__AFL_LOOP(10000)) {
        satasim::harness::fuzz::target_one_input(buf, size_t(__AFL_FUZZ_TESTCASE_LEN));
    }
#else
    satasim::harness::fuzz::target_one_input(buf, size_t(__AFL_FUZZ_TESTCASE_LEN));
#endif
    return 0;
}
