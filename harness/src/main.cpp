// satasim: the simulator program. libsystemc provides main() and calls sc_main().
#include <systemc>

#include "cli.h"

int sc_main(int argc, char *argv[]) { return satasim::harness::cli_main(argc, argv); }
