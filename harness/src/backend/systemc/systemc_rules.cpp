// What the satasim models cannot model (backend/rules.h): every scenario key but QEMU's
// own blkdebug error injection.
#include "backend/systemc/systemc_rules.h"

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

// The sil24 driver drives a SiI3124, which always has 4 ports, a SiI3112 and the ICH/PIIX have 2 channels;
// the AHCI model has as many as the scenario gives it.
unsigned hardware_ports(const Scenario &sc) {
    if (sc.controller.type == "sil24")
        return 4;
    return sc.controller.type == "sil3112" || sc.controller.type == "piix" ? 2 : 0;
}

std::string skips_step(const Step &) { return ""; }

} // namespace satasim::harness::systemc
