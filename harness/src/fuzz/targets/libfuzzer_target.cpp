// libFuzzer entry point (clang -fsanitize=fuzzer[,address,undefined]; tools/fuzz build):
// every input through the persistent in-process runner (fuzz/in_process_runner.h).
#include <systemc>

#include "fuzz/targets/target_env.h"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    satasim::harness::fuzz::target_runner();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    satasim::harness::fuzz::target_one_input(data, size);
    return 0;
}

// libsystemc's main() is not this program's (libFuzzer's is); the library still needs one.
int sc_main(int, char **) { return 2; }
