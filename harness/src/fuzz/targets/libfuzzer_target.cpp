// libFuzzer entry point (clang -fsanitize=fuzzer[,address,undefined]; tools/fuzz build):
// every input through the persistent in-process runner (fuzz/in_process_runner.h).
// SATASIM_LIBFUZZER_LOG_FEATURES (satasim_fuzz_libfuzzer_smoke, the gcc tree's build of
// this file with LLVM's libFuzzer engine, harness/CMakeLists.txt): no compiler coverage, so
// each run's kernel-log lines give the engine its features instead: every line's kind (the
// text without its time stamp and numbers) counts in libFuzzer's extra counters.
#include <systemc>

#include "fuzz/targets/target_env.h"

#if SATASIM_LIBFUZZER_LOG_FEATURES
namespace {

// libFuzzer reads every byte of this section as a coverage counter (its "extra counters").
__attribute__((section("__libfuzzer_extra_counters"), used)) uint8_t log_kinds[4096];

void count_log_kinds(const std::string &log) {
    size_t i = 0;
    while (i < log.size()) {
        size_t end = log.find('\n', i);
        if (end == std::string::npos)
            end = log.size();
        size_t b = i;
        if (b < end && log[b] == '[') { // "[   12.345678] "
            const size_t close = log.find(']', b);
            b = close != std::string::npos && close < end ? close + 1 : b;
        }
        uint32_t h = 2166136261u; // FNV-1a over the line without digits
        for (size_t k = b; k < end; ++k) {
            const unsigned char c = static_cast<unsigned char>(log[k]);
            if (c >= '0' && c <= '9')
                continue;
            h = (h ^ c) * 16777619u;
        }
        uint8_t &n = log_kinds[h % sizeof log_kinds];
        if (n != 255)
            ++n;
        i = end + 1;
    }
}

} // namespace
#endif

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    satasim::harness::fuzz::target_runner();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#if SATASIM_LIBFUZZER_LOG_FEATURES
    count_log_kinds(satasim::harness::fuzz::target_one_input(data, size).log_text);
#else
    satasim::harness::fuzz::target_one_input(data, size);
#endif
    return 0;
}

// libsystemc's main() is not this program's (libFuzzer's is); the library still needs one.
int sc_main(int, char **) { return 2; }
