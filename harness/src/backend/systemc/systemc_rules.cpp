// What the satasim models cannot model (backend/rules.h): every scenario key but QEMU's
// own blkdebug error injection.
#include "backend/systemc/systemc_rules.h"

#include "controller/controller_table.h"
#include "scenario/scenario.h"

namespace satasim::harness::systemc {

const char *refuses_key(ScenarioKey) { return nullptr; }

std::vector<Refusal> refusals(const Scenario &sc) {
    std::vector<Refusal> r;
    for (const DeviceSpec &d : sc.devices)
        if (!d.blkdebug.empty())
            r.push_back("devices[port " + std::to_string(d.port) +
                        "].blkdebug: injected I/O errors through QEMU's blkdebug driver need backend qemu");
    return r;
}

// A SiI3124 always has 4 ports, a SiI3112 and the ICH/PIIX 2 channels (their rows'
// hardware_ports); the AHCI model has as many as the scenario gives it.
unsigned hardware_ports(const Scenario &sc) { return controller_desc(sc.controller.type).hardware_ports; }

std::string skips_step(const Step &) { return ""; }

} // namespace satasim::harness::systemc
