// What the DUT says it can do (its CAP register, read from the verilated model right after
// power-on reset) joined with what its profile's quirks take away: the features the stack's
// driver and the suite's rules act on (docs/rtl-controller.md, quirks).
#pragma once

#include <cstdint>

#include "backend/rtl/dut_library.h"
#include "backend/rtl/dut_profile.h"

namespace satasim::harness::rtl {

// CAP (AHCI 1.3.1 3.1.1) of a fresh DUT instance: reset held 8 cycles, then one AXI4-Lite
// read of offset 0. Throws std::runtime_error if the DUT does not answer.
uint32_t read_dut_cap(const DutLibrary &lib);

// The profile's features from CAP and the quirks. Throws ScenarioError naming the
// profile's file, line and key where the two disagree in a way no driver could honour:
// interface.ports against CAP.NP, interface.addr_width 32 with CAP.S64A set,
// quirks.only_gen above CAP.ISS.
DutFeatures dut_features(const DutProfile &p, uint32_t cap);

// The features from the profile alone (no DUT at hand: its CAP is taken as the
// reference controller's, 32 slots, NCQ, Gen3, 64-bit).
DutFeatures profile_features(const DutProfile &p);

} // namespace satasim::harness::rtl
