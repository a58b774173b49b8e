// The RTL backend: a controller's RTL (the DUT profile `satasim run --controller-rtl`
// gave) in the DUT shell as the hardware, with the SystemC backend's device side (links,
// disks, port multipliers, faults) below its ports.
#pragma once

#include <memory>

#include "backend/backend.h"
#include "backend/rtl/dut_profile.h"

namespace satasim::harness::rtl {

std::unique_ptr<Backend> make_backend();

// `--controller-rtl PROFILE`: reads the profile (ScenarioError on a malformed one) and
// makes it this process's active profile; makes sure its DUT is in the build cache
// (std::runtime_error naming the build log; with build, says on stderr whether it was
// built now, and how long that took, or found there), reads the DUT's CAP and sets the
// profile's features from CAP and quirks (ScenarioError at the profile's key where they
// contradict; dut_caps.h). With build and SATASIM_RTL_COVERAGE, the coverage build too.
const DutProfile &use_controller_rtl(const std::string &path, bool build);

} // namespace satasim::harness::rtl
