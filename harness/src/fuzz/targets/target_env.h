// What the libFuzzer and AFL++ entry points share: the runner, configured from the
// environment (the fuzzers own the command line), and what a finding does: it is
// written as a scenario when SATASIM_FUZZ_FINDINGS names a folder, reported on stderr,
// and the process aborts, so the fuzzer records the input as a crash.
//   SATASIM_FUZZ_LINK       fis (default) or input: every link at FIS level, or the input's bits
//   SATASIM_FUZZ_MAX_STEPS  the step watchdog (default fuzz::kDefaultMaxSteps)
//   SATASIM_FUZZ_FINDINGS   folder for finding scenarios (default: none)
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz/findings.h"
#include "fuzz/in_process_runner.h"

namespace satasim::harness::fuzz {

inline InProcessRunner &target_runner() {
    static InProcessRunner *runner = [] {
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
        RunnerOptions o;
        o.work_dir = "/dev/shm/satasim-fuzz-target-" + std::to_string(long(getpid()));
        const char *link = std::getenv("SATASIM_FUZZ_LINK");
        o.decode.force_fis = !link || std::strcmp(link, "input") != 0;
        if (const char *s = std::getenv("SATASIM_FUZZ_MAX_STEPS"))
            o.limits.max_steps = std::strtoull(s, nullptr, 10);
        return new InProcessRunner(o);
    }();
    return *runner;
}

inline void target_one_input(const uint8_t *data, size_t size) {
    InputResult r = target_runner().run_bytes(data, size);
    if (r.findings.empty())
        return;
    if (const char *dir = std::getenv("SATASIM_FUZZ_FINDINGS"))
        write_finding(dir, std::vector<uint8_t>(data, data + size), r);
    for (const Finding &f : r.findings)
        std::fprintf(stderr, "satasim fuzz finding: %s | %s\n", f.bucket().c_str(), f.detail.c_str());
    std::abort();
}

} // namespace satasim::harness::fuzz
