// The DUT's shared object: verilated from its profile at run time (a vendor never
// rebuilds satasim) into a cache folder named by a content hash of everything the build
// depends on (the profile's build keys: top, defines, parameters, Verilator flags,
// interface; every RTL file and include folder file, the shell's sources,
// the Verilator and compiler versions). A cached build is reused as is; a new one is made
// in a scratch folder and renamed into place only when complete; processes building the
// same key take turns (a lock file beside the folder), so the second finds the first's.
//
// Cache root: $SATASIM_RTL_CACHE, else $XDG_CACHE_HOME/satasim/rtl, else
// ~/.cache/satasim/rtl. Shell sources: $SATASIM_RTL_SHELL_DIR, else this source tree's.
#pragma once

#include <string>

#include "backend/rtl/dut_profile.h"

namespace satasim::harness::rtl {

struct DutBuild {
    std::string so_path;   // the shared object
    std::string dir;       // its cache folder (build.log, the verilated sources)
    bool cached = false;   // found in the cache (no build now)
    double build_seconds = 0;
};

// wave: with tracing (SATASIM_RTL_VCD); coverage: with Verilator's line and toggle
// coverage (--coverage-line --coverage-toggle; every DUT instance writes its counters into
// $SATASIM_RTL_COVERAGE when destroyed). Each variant is a build of its own.
// Throws std::runtime_error naming what failed and the build log to read.
DutBuild build_dut(const DutProfile &p, bool wave, bool coverage = false);

// $SATASIM_RTL_COVERAGE is set: scenario runs use the coverage build.
bool rtl_coverage_on();

} // namespace satasim::harness::rtl
