// The SystemC model of each controller of the descriptor table (controller/controller_table.h),
// one builder per row, indexed by its ControllerId.
#pragma once

#include "backend/systemc/topology.h"

namespace satasim::harness {

// Builds the scenario's controller model into the topology: its MMIO target, port hookup,
// fault hooks and hba_module.
void build_controller_model(const Scenario &sc, Topology &t, ModelTrace *trace);

} // namespace satasim::harness
