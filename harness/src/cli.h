// Command line: `satasim run|check|run-one|--help`.
#pragma once

namespace satasim::harness {

// Returns the process exit code.
int cli_main(int argc, char **argv);

} // namespace satasim::harness
