// What a DUT behind the shell cannot model (rtl_rules.h). The profile's quirks decide
// what the DUT lacks; without a profile (`satasim check` of a scenario naming backend
// rtl) only the shell's own limits apply.
#include "backend/rtl/rtl_rules.h"

#include "backend/rtl/dut_profile.h"
#include "controller/controller_table.h"
#include "model/fault/fault_kind_spec.h"
#include "scenario/scenario.h"
#include "scenario/steps.h"

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
        if (g_profile && g_profile->features.pmp)
            return nullptr;
        return "the DUT has no port-multiplier support (its profile's quirks.no_pmp, CAP.SPM = 0)";
    case ScenarioKey::Waveform:
        return "the waveform records the SystemC models' signals (backend systemc); the DUT's own signals: "
               "docs/rtl-controller.md, reading a failure";
    case ScenarioKey::Steps: return nullptr; // the DUT's registers, its interrupt line, host memory, the device side
    case ScenarioKey::Controllers:
        return "the shell wraps one DUT, one controller: several controllers need backend systemc";
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
    if (!controller_desc(sc.controller.type).runs_on("rtl"))
        no("controller.type " + sc.controller.type, "the DUT shell runs the stack's AHCI driver (an AHCI DUT)");
    if (sc.controller.staggered_spinup)
        no("controller.staggered_spinup true", "the DUT's CAP.SSS comes from its RTL, not from the scenario");
    if (sc.controller.lpm)
        no("controller.lpm true", "the DUT's CAP.SALP/PSC/SSC come from its RTL, not from the scenario");
    if (sc.controller.devsleep)
        no("controller.devsleep true", "the DUT's CAP2 comes from its RTL, not from the scenario");
    if (sc.controller.fbs)
        no("controller.fbs true", "the DUT shell has no FIS-based switching (no port multipliers)");
    // What the DUT has: its CAP less its profile's quirks (dut_caps.h); the shell's own
    // limits without a profile. A scenario is refused for what it asks for in so many
    // words: a key, an NCQ workload, an expected link speed.
    const DutFeatures f = p ? p->features : DutFeatures{};
    const std::string gen_why = f.fixed_gen ? "the DUT's PHY runs Gen" + std::to_string(f.gen) + " only (quirks.only_gen)"
                                            : "the DUT's fastest link is Gen" + std::to_string(f.gen) + " (CAP.ISS)";
    if (sc.controller.slots_line && sc.controller.slots != f.slots)
        no("controller.slots " + std::to_string(sc.controller.slots),
           "the DUT has " + std::to_string(f.slots) + " command slot" + (f.slots == 1 ? "" : "s") +
               " (CAP.NCS; quirks.single_slot)",
           sc.controller.slots_line);
    if (sc.controller.ncq_line && sc.controller.ncq != f.ncq)
        no(std::string("controller.ncq ") + (sc.controller.ncq ? "true" : "false"),
           f.ncq ? "the DUT always advertises NCQ (CAP.SNCQ)" : "the DUT has no NCQ (CAP.SNCQ; quirks.no_ncq)",
           sc.controller.ncq_line);
    if (sc.controller.gen_set && sc.controller.gen != f.gen)
        no("controller.gen " + std::to_string(sc.controller.gen), gen_why, sc.controller.gen_line);
    if (!f.ncq)
        for (size_t i = 0; i < sc.workload.size(); ++i)
            if (sc.workload[i].mode == ModeSpec::Ncq)
                no("workload[" + std::to_string(i) + "] mode ncq", "the DUT has no NCQ (CAP.SNCQ; quirks.no_ncq)",
                   sc.workload[i].line);
    if (f.fixed_gen && sc.host.spd_limit && sc.host.spd_limit < f.gen)
        no("host.spd_limit " + std::to_string(sc.host.spd_limit), gen_why, sc.host.spd_limit_line);
    // Expectations the DUT cannot meet: a queued device, a link speed it cannot run.
    for (const auto *list : {&sc.expect.devices, &sc.expect.devices_after}) {
        const std::string k = list == &sc.expect.devices ? "expect.devices" : "expect.devices_after";
        for (const ExpectDevice &e : *list) {
            const std::string at = k + "[port " + std::to_string(e.port) + "].";
            if (!f.ncq && ((e.ncq && *e.ncq) || (e.ncq_depth && *e.ncq_depth > 0)))
                no(at + (e.ncq ? "ncq true" : "ncq_depth"), "the DUT has no NCQ (CAP.SNCQ; quirks.no_ncq)", e.line);
            if (e.gen && (*e.gen > f.gen || (f.fixed_gen && *e.gen < f.gen)))
                no(at + "gen " + std::to_string(*e.gen), gen_why, e.line);
        }
    }
    for (const DeviceSpec &d : sc.devices) {
        const std::string k = "devices[port " + std::to_string(d.port) + "].";
        if (!d.blkdebug.empty())
            no(k + "blkdebug", "injected I/O errors through QEMU's blkdebug driver need backend qemu");
        if (f.fixed_gen && d.gen < f.gen)
            no(k + "gen " + std::to_string(d.gen), gen_why + ": a slower drive finds no common speed", d.line);
        if (p && d.port >= p->ports)
            no(k + "port", "the DUT has " + std::to_string(p->ports) + " port" + (p->ports == 1 ? "" : "s") +
                               " (its profile's interface.ports)",
               d.line);
    }
    // A fault that fires on (or only hits) queued commands never fires without NCQ.
    for (const fault::Fault &ft : sc.faults) {
        const bool ncq_trigger = ft.trigger.on_cmd && ft.trigger.on_cmd->op == device::CommandMatch::Op::Ncq;
        const bool ncq_media = ft.kind == fault::Kind::MediaError && ft.media.match.op == device::CommandMatch::Op::Ncq;
        if (!f.ncq && (ncq_trigger || ncq_media))
            no("faults[" + ft.id + "] on NCQ commands", "the DUT has no NCQ (CAP.SNCQ; quirks.no_ncq)", ft.line);
        if (!f.rx_symbol_errors && ft.kind == fault::Kind::Crc && ft.crc.symbol != link::SymbolError::None)
            no("faults[" + ft.id + "] crc symbol " + link::to_string(ft.crc.symbol),
               "the DUT's top takes no symbol error flags from its PHY (no phy_rx_codeerr / phy_rx_disperr, "
               "no phy_rx_err): docs/rtl-controller.md, PHY",
               ft.line);
        if (f.fixed_gen && ft.kind == fault::Kind::LinkDegrade && ft.gen < f.gen)
            no("faults[" + ft.id + "] link_degrade gen " + std::to_string(ft.gen), gen_why, ft.line);
        // An on-chip FIS area is never written over the bus (the command list is never read
        // over it either, but access command also hits the command tables, which are).
        if (p && p->quirks.onchip_cmd_area && ft.kind == fault::Kind::HostBusError &&
            ft.bus.access == bus::BusAccess::Fis)
            no("faults[" + ft.id + "] host_bus_error access fis",
               "the DUT's received-FIS area is on chip (quirks.onchip_cmd_area): no FIS is posted over the bus", ft.line);
    }
    // The stack's link-speed lines the scenario expects: "SATA link up 6.0 Gbps" needs a DUT
    // that runs Gen3; "limiting SATA link speed" a DUT that can run slower than it starts.
    static const char *const kSpeeds[] = {"1.5 Gbps", "3.0 Gbps", "6.0 Gbps"};
    for (size_t i = 0; i < sc.expect.log_contains.size(); ++i) {
        const std::string &l = sc.expect.log_contains[i];
        const int line = i < sc.expect.log_contains_lines.size() ? sc.expect.log_contains_lines[i] : 0;
        for (unsigned g = 1; g <= 3; ++g)
            if (l.find(std::string("SATA link up ") + kSpeeds[g - 1]) != std::string::npos &&
                (g > f.gen || (f.fixed_gen && g != f.gen)))
                no("expect.log_contains \"" + l + "\"", gen_why, line);
        if (f.fixed_gen && l.find("limiting SATA link speed") != std::string::npos)
            no("expect.log_contains \"" + l + "\"", gen_why + ": no speed-down", line);
    }
    // fault kinds that are hooks inside the SystemC controller models: a DUT's own logic
    static const std::pair<fault::Kind, const char *> kModelHooks[] = {
        {fault::Kind::LostIrq, "a lost completion interrupt is a fault hook of the SystemC controller models; a "
                               "DUT's interrupt logic is its own"},
        {fault::Kind::HbaError, "an internal error of the port's engine is a fault hook of the SystemC AHCI "
                                "model; a DUT's internals are its own (host_bus_error fails its bus accesses)"},
    };
    for (const auto &[kind, why] : kModelHooks)
        for (const fault::Fault &f : sc.faults)
            if (f.kind == kind)
                no("faults[" + f.id + "] " + fault::kind_spec(kind)->name, why, f.line);
    return r;
}

unsigned hardware_ports(const Scenario &) { return g_profile ? g_profile->ports : 0; }

// The DUT replaces the SystemC AHCI model, whose records (ahci.*) it does not write; the
// device side (link.*, disk.*), the fault engine and the shell's own records are there.
std::string skips_step(const Step &s) {
    if (s.kind == StepKind::ExpectTrace && s.ev.rfind("ahci.", 0) == 0)
        return "the DUT's registers are its RTL's, which writes no trace records (" + s.ev +
               " is the SystemC AHCI model's); the registers are checked by the other steps";
    return "";
}

} // namespace satasim::harness::rtl
