// The SystemC model of each controller of the descriptor table (controller/controller_table.h),
// one builder per row, indexed by its ControllerId.
#pragma once

#include "backend/systemc/topology.h"

namespace satasim::harness {

// Builds controller `index` of the scenario into its hookup h (its MMIO target, port hookup,
// fault hooks and hba_module), on the machine's host memory and h's interrupt pin.
void build_controller_model(const Scenario &sc, size_t index, bus::HostMemory &mem, ControllerHookup &h,
                            ModelTrace *trace);

} // namespace satasim::harness
