// The controller descriptor table (controller/controller_table.h) as JSON, for the Python
// tools: `satasim controllers --json` (hidden), checked in as harness/satasim/controller_table.json.
#pragma once

#include <string>

namespace satasim::harness {

std::string controller_table_json();

} // namespace satasim::harness
