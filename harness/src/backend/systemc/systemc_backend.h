// The SystemC backend: the satasim models (backend/systemc/topology.h) as the hardware.
#pragma once

#include <memory>

#include "backend/backend.h"

namespace satasim::harness::systemc {

std::unique_ptr<Backend> make_backend();

} // namespace satasim::harness::systemc
