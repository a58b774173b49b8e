// Command line: `satasim run|check|check-profile|eh-check|run-one|import-dmesg|fuzz-*`, --help, --version.
#pragma once

namespace satasim::harness {

// Returns the process exit code.
int cli_main(int argc, char **argv);

} // namespace satasim::harness
