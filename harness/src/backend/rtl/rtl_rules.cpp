// What a DUT behind the shell cannot model (rtl_rules.h). The profile's quirks decide
// what the DUT lacks; without a profile (`satasim check` of a scenario naming backend
// rtl) only the shell's own limits apply.
#include "backend/rtl/rtl_rules.h"

#include "backend/rtl/dut_profile.h"
#include "scenario/scenario.h"

namespace satasim::harness::rtl {

namespace {
const DutProfile *g_profile = nullptr;
} // namespace

const DutProfile *active_profile() { return g_profile; }
void set_active_profile(const DutProfile *p) { g_profile = p; }

const char *refuses_key(ScenarioKey key) {
    switch (key) {
    case ScenarioKey::Link:
    case ScenarioKey::DeviceLink: return nullptr; // the cable is always dword-level RTL; the key changes nothing
    case ScenarioKey::Pmps:
        if (g_profile && !g_profile->quirks.no_pmp)
            return nullptr;
        return "the DUT has no port-multiplier support (its profile's quirks.no_pmp, CAP.SPM = 0)";
    case ScenarioKey::Waveform:
        return "the waveform records the SystemC models' signals (backend systemc); the DUT's own signals: "
               "docs/rtl-controller.md, reading a failure";
    case ScenarioKey::Steps: return "directed steps drive the SystemC models' registers (backend: systemc)";
    }
    return nullptr;
}

std::vector<Refusal> refusals(const Scenario &sc) {
    std::vector<Refusal> r;
    // feature: why, at the key's line where it is known
    auto no = [&](const std::string &feature, const std::string &why, int line = 0) {
        r.push_back({feature + ": " + why, line});
    };
    const DutProfile *p = g_profile;
    // A scenario that says how many ports its controller has must not get fewer: its
    // expectations (empty ports, probes of every port) assume them. Without the key the
    // type's default is no statement, and the stack drives the DUT's ports (hardware_ports).
    if (p && sc.controller.ports_line && sc.controller.ports > p->ports)
        no("controller.ports " + std::to_string(sc.controller.ports),
           "the DUT has " + std::to_string(p->ports) + " port" + (p->ports == 1 ? "" : "s") +
               " (its profile's interface.ports, CAP.NP + 1)",
           sc.controller.ports_line);
    if (sc.controller.type != "ahci")
        no("controller.type " + sc.controller.type, "the DUT shell runs the stack's AHCI driver (an AHCI DUT)");
    if (sc.controller.staggered_spinup)
        no("controller.staggered_spinup true", "the DUT's CAP.SSS comes from its RTL, not from the scenario");
    if (sc.controller.fbs)
        no("controller.fbs true", "the DUT shell has no FIS-based switching (no port multipliers)");
    const unsigned slots = p && p->quirks.single_slot ? 1 : 32;
    if (sc.controller.slots != slots)
        no("controller.slots " + std::to_string(sc.controller.slots),
           "the DUT has " + std::to_string(slots) + " command slot" + (slots == 1 ? "" : "s") + " (CAP.NCS)");
    if (p && !sc.controller.ncq && !p->quirks.no_ncq)
        no("controller.ncq false", "the DUT always advertises NCQ (CAP.SNCQ)");
    const unsigned gen = p && p->quirks.only_gen ? p->quirks.only_gen : 3;
    if (sc.controller.gen_set && sc.controller.gen != gen)
        no("controller.gen " + std::to_string(sc.controller.gen),
           "the DUT's PHY is Gen" + std::to_string(gen) + " (CAP.ISS; profile quirks.only_gen)");
    for (const DeviceSpec &d : sc.devices) {
        const std::string k = "devices[port " + std::to_string(d.port) + "].";
        if (!d.blkdebug.empty())
            no(k + "blkdebug", "injected I/O errors through QEMU's blkdebug driver need backend qemu");
        if (p && d.port >= p->ports)
            no(k + "port", "the DUT has " + std::to_string(p->ports) + " port" + (p->ports == 1 ? "" : "s") +
                               " (its profile's interface.ports)",
               d.line);
    }
    for (const fault::Fault &f : sc.faults)
        if (f.kind == fault::Kind::LostIrq)
            no("faults[" + f.id + "] lost_irq",
               "a lost completion interrupt is a fault hook of the SystemC controller models; a DUT's interrupt "
               "logic is its own",
               f.line);
    return r;
}

unsigned hardware_ports(const Scenario &) { return g_profile ? g_profile->ports : 0; }

} // namespace satasim::harness::rtl
