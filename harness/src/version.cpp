// satasim's version (version.h).
#include "version.h"

#ifndef SATASIM_VERSION
#error "SATASIM_VERSION: the project version (harness/CMakeLists.txt sets it)"
#endif

namespace satasim::harness {

const char *satasim_version() { return SATASIM_VERSION; }

std::string version_text() {
    return std::string("satasim ") + SATASIM_VERSION + " (result format " + std::to_string(kResultFormat) +
           ", trace format " + std::to_string(kTraceFormat) + ", golden format " + std::to_string(kGoldenFormat) + ")";
}

} // namespace satasim::harness
