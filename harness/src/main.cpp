// satasim: the simulator program. libsystemc provides main() and calls sc_main().
#include <cstdlib>

#include <systemc>

#include "cli.h"

// libsystemc's main() prints the SystemC banner before it calls sc_main(), unless
// SYSTEMC_DISABLE_COPYRIGHT_MESSAGE is set by then: set it while the program is loaded,
// before main(), so that no invocation (--help, --version, a run) ever prints it.
__attribute__((constructor)) static void satasim_quiet_systemc() {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
}

int sc_main(int argc, char *argv[]) { return satasim::harness::cli_main(argc, argv); }
