// What the libFuzzer and AFL++ entry points share: the runner, configured from the
// environment (the fuzzers own the command line), and what a finding does: it is
// written as a scenario when SATASIM_FUZZ_FINDINGS names a folder, reported on stderr,
// and the process aborts, so the fuzzer records the input as a crash.
//   SATASIM_FUZZ_LINK       fis (default) or input: every link at FIS level, or the input's bits
//   SATASIM_FUZZ_MAX_STEPS  the step watchdog (default fuzz::kFisMaxSteps at FIS level,
//                           else fuzz::kDefaultMaxSteps)
//   SATASIM_FUZZ_FINDINGS   folder for finding scenarios (default: none)
//   SATASIM_FUZZ_WALL_MS    the wall-clock watchdog (default 0: none): an input still running
//                           after that long is written as a `timeout` finding into
//                           SATASIM_FUZZ_FINDINGS while it goes on (tools/fuzz sets 40 % of
//                           the fuzzer's timeout: the live count and triage see every slow
//                           input, the fuzzer still decides whether it is a hang)
//   SATASIM_FUZZ_TRACE_FILES 1: each input run as `satasim run` of its YAML runs it (the YAML
//                           read back, trace.jsonl and satasim.log written to
//                           /dev/shm/satasim-fuzz-target-PID/, the last input's kept): the
//                           runner's path before the speed work, for a look at one input's
//                           trace and for tools/fuzz_bench execs --baseline (default: off)
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz/findings.h"
#include "fuzz/in_process_runner.h"
#include "fuzz/scenario_yaml.h"

namespace satasim::harness::fuzz {

inline InProcessRunner &target_runner() {
    static InProcessRunner *runner = [] {
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
        RunnerOptions o;
        o.work_dir = "/dev/shm/satasim-fuzz-target-" + std::to_string(long(getpid()));
        const char *link = std::getenv("SATASIM_FUZZ_LINK");
        o.decode.force_fis = !link || std::strcmp(link, "input") != 0;
        o.limits.max_steps = o.decode.force_fis ? kFisMaxSteps : kDefaultMaxSteps;
        o.write_files = false; // a finding is written from the input, replays keep the trace
        if (const char *t = std::getenv("SATASIM_FUZZ_TRACE_FILES"); t && std::strcmp(t, "1") == 0)
            o.write_files = o.via_yaml = true;
        if (const char *s = std::getenv("SATASIM_FUZZ_MAX_STEPS"))
            o.limits.max_steps = std::strtoull(s, nullptr, 10);
        return new InProcessRunner(o);
    }();
    return *runner;
}

// The wall-clock watchdog: the finding's files are made before the run, the signal handler
// only writes them (open/write/close/mkdir are async-signal-safe; nothing allocates there).
struct WallWatchdog {
    std::string dir, yaml_path, bin_path, yaml, note;
    std::vector<uint8_t> bytes;
    volatile sig_atomic_t armed = 0;

    static WallWatchdog &get() {
        static WallWatchdog w;
        return w;
    }
    static void write_all(const char *path, const void *p, size_t n) {
        const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return;
        for (const char *c = static_cast<const char *>(p); n > 0;) {
            const ssize_t w = write(fd, c, n);
            if (w <= 0)
                break;
            c += w, n -= size_t(w);
        }
        close(fd);
    }
    static void on_alarm(int) {
        WallWatchdog &w = get();
        if (!w.armed)
            return;
        w.armed = 0;
        mkdir(w.dir.c_str(), 0755);
        write_all(w.bin_path.c_str(), w.bytes.data(), w.bytes.size());
        write_all(w.yaml_path.c_str(), w.yaml.data(), w.yaml.size());
        const ssize_t unused = write(2, w.note.data(), w.note.size());
        (void)unused;
    }
    static unsigned ms() {
        static const unsigned v = [] {
            const char *s = std::getenv("SATASIM_FUZZ_WALL_MS");
            return s && std::getenv("SATASIM_FUZZ_FINDINGS") ? unsigned(std::strtoul(s, nullptr, 10)) : 0u;
        }();
        return v;
    }
    // Prepares the input's `timeout` finding and starts the clock (no-op when off).
    void arm(const uint8_t *data, size_t size) {
        if (!ms())
            return;
        static bool installed = [] {
            static char alt[64 * 1024]; // SystemC threads run on small stacks of their own
            stack_t st{};
            st.ss_sp = alt;
            st.ss_size = sizeof alt;
            sigaltstack(&st, nullptr);
            struct sigaction sa {};
            sa.sa_handler = on_alarm;
            sa.sa_flags = SA_RESTART | SA_ONSTACK;
            sigaction(SIGALRM, &sa, nullptr);
            return true;
        }();
        (void)installed;
        InputResult r;
        const Scenario sc = decode_scenario(data, size, target_runner().options().decode);
        r.name = sc.name;
        r.yaml = scenario_yaml(sc);
        r.findings.push_back({"timeout", "wall clock",
                              "still running after " + std::to_string(ms()) + " ms of wall time (SATASIM_FUZZ_WALL_MS)"});
        dir = std::string(std::getenv("SATASIM_FUZZ_FINDINGS")) + "/" + bucket_dir_name(r.findings.front());
        yaml_path = dir + "/" + r.name + ".yaml";
        bin_path = dir + "/" + r.name + ".bin";
        yaml = finding_yaml(r, target_runner().options().limits.max_steps);
        bytes.assign(data, data + size);
        note = "satasim fuzz finding: timeout: wall clock | " + r.findings.front().detail + "\n";
        armed = 1;
        itimerval t{};
        t.it_value.tv_sec = ms() / 1000;
        t.it_value.tv_usec = long(ms() % 1000) * 1000;
        setitimer(ITIMER_REAL, &t, nullptr);
    }
    void disarm() {
        if (!ms())
            return;
        armed = 0;
        itimerval t{};
        setitimer(ITIMER_REAL, &t, nullptr);
    }
};

// Runs one input; a finding aborts (the fuzzer saves the input); else the run's result.
inline InputResult target_one_input(const uint8_t *data, size_t size) {
    WallWatchdog::get().arm(data, size);
    InputResult r = target_runner().run_bytes(data, size);
    WallWatchdog::get().disarm();
    if (r.findings.empty())
        return r;
    if (const char *dir = std::getenv("SATASIM_FUZZ_FINDINGS"))
        write_finding(dir, std::vector<uint8_t>(data, data + size), r, target_runner().options().limits.max_steps);
    for (const Finding &f : r.findings)
        std::fprintf(stderr, "satasim fuzz finding: %s | %s\n", f.bucket().c_str(), f.detail.c_str());
    std::abort();
}

} // namespace satasim::harness::fuzz
