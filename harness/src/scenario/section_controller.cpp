// Sections controller, host and link (scenarios/README.md).
#include "scenario/sections.h"

#include <cstdio>

#include "controller/controller_table.h"

namespace satasim::harness {

namespace {

// "only for type: ahci": the types whose row takes a controller key.
std::string only_for_types(const std::string &key) {
    return "only for type: " + controller_names_or([&](const ControllerDesc &d) { return d.takes_key(key); });
}

} // namespace

// Every limit and per-type key comes from the controller's row (controller/controller_table.h).
// An entry of controllers[] (in_list) also takes its PCI address and interrupt line.
void parse_controller(const Parser &p, const Field &f, ControllerSpec &c, bool in_list) {
    std::vector<std::string> keys = {"type", "ports", "slots", "ncq", "gen", "fbs", "staggered_spinup", "lpm", "devsleep",
                                     "pcix_irq_loss", "pcix_ack_window", "map", "part", "cable"};
    if (in_list) {
        keys.push_back("pci");
        keys.push_back("irq");
    }
    MapView m(p, f.node, f.path, f.line, keys);
    c.line = m.line();
    if (in_list) { // checked and defaulted by parse_controllers (its place in the list)
        c.pci.clear();
        c.irq = 0;
        if (auto *t = m.find("pci"))
            c.pci = as_string(p, *t);
        if (auto *t = m.find("irq"))
            c.irq = unsigned(as_uint(p, *t, 1, 255));
    }
    if (auto *t = m.find("type")) {
        std::vector<std::pair<const char *, std::string>> names;
        for (const ControllerDesc &d : controller_descs())
            names.push_back({d.name, d.name});
        c.type = as_enum<std::string>(p, *t, names);
    }
    const ControllerDesc &d = controller_desc(c.type);
    // A controller of fixed shape (fixed command slots) starts from its own ports, slots and
    // link generation; an AHCI HBA from ControllerSpec's defaults.
    if (d.slots) {
        c.ports = d.default_ports;
        c.slots = d.slots;
        if (d.ncq == NcqSupport::Never)
            c.ncq = false;
        c.gen = d.max_gen;
    }
    if (auto *t = m.find("ports")) {
        c.ports = unsigned(as_uint(p, *t, 1, d.max_ports));
        c.ports_line = t->line;
    }
    if (auto *t = m.find("slots")) {
        c.slots = unsigned(as_uint(p, *t, 1, 32));
        c.slots_line = t->line;
        if (d.slots && c.slots != d.slots)
            p.fail(*t, d.taskfile ? "a " + c.type + " channel runs one command at a time (slots: 1)"
                                  : "a " + c.type + " controller has " + std::to_string(d.slots) +
                                        " command slots per port (got " + std::to_string(c.slots) + ")");
    }
    if (auto *t = m.find("ncq")) {
        c.ncq = as_bool(p, *t);
        c.ncq_line = t->line;
        if (d.ncq == NcqSupport::Always && !c.ncq)
            p.fail(*t, "a " + c.type + " controller always supports NCQ (use host.no_ncq to turn it off)");
        if (d.ncq == NcqSupport::Never && c.ncq)
            p.fail(*t, "a " + c.type + " controller has no NCQ (a taskfile interface)");
    }
    if (auto *t = m.find("gen")) {
        c.gen = unsigned(as_uint(p, *t, 1, d.max_gen));
        c.gen_set = true;
        c.gen_line = t->line;
    }
    if (auto *t = m.find("fbs")) {
        c.fbs = as_bool(p, *t);
        if (!d.takes_key("fbs") && c.fbs)
            p.fail(*t, only_for_types("fbs") + d.fbs_refusal_note);
    }
    if (auto *t = m.find("staggered_spinup")) {
        c.staggered_spinup = as_bool(p, *t);
        if (!d.takes_key("staggered_spinup") && c.staggered_spinup)
            p.fail(*t, only_for_types("staggered_spinup") + " (CAP.SSS)");
    }
    if (auto *t = m.find("lpm")) {
        c.lpm = as_bool(p, *t);
        if (!d.takes_key("lpm") && c.lpm)
            p.fail(*t, only_for_types("lpm") + " (CAP.SALP, CAP.PSC, CAP.SSC)");
    }
    if (auto *t = m.find("devsleep")) {
        c.devsleep = as_bool(p, *t);
        if (!d.takes_key("devsleep") && c.devsleep)
            p.fail(*t, only_for_types("devsleep") + " (CAP2.SDS, CAP2.SADM)");
        if (c.devsleep && !c.lpm)
            p.fail(*t, "needs lpm: true (aggressive DevSleep starts from Slumber, CAP2.DESO)");
    }
    for (const char *k : {"pcix_irq_loss", "pcix_ack_window"})
        if (!d.takes_key(k) && m.has(k))
            p.fail(m.get(k), only_for_types(k));
    if (auto *t = m.find("pcix_irq_loss"))
        c.pcix_irq_loss = as_bool(p, *t);
    // The ICH's port mapping (MAP, PCI configuration 90h): only an ICH/PIIX in IDE mode has one.
    if (auto *t = m.find("map")) {
        if (!d.takes_key("map"))
            p.fail(*t, only_for_types("map") + " (the ICH's port mapping register, which a " + c.type +
                           " controller does not have)");
        c.map = as_enum<std::string>(p, *t, {{"ich5", "ich5"}, {"ich6", "ich6"}});
    }
    // The part ata_piix drives (docs/hardware.md 10): the PIIX3/PIIX4 IDE function has parallel
    // ATA cables (and no MAP register), the cable's conductors are what its drives report.
    if (auto *t = m.find("part")) {
        if (!d.takes_key("part"))
            p.fail(*t, only_for_types("part") + " (which Intel part ata_piix drives)");
        c.part = as_enum<std::string>(p, *t, {{"ich", ""}, {"ich8", "ich8"}, {"piix3", "piix3"}, {"piix4", "piix4"}});
        if (c.parallel_ata() && !c.map.empty())
            p.fail(*t, "a " + c.part + " has parallel ATA channels and no port map (map: is the ICH's SATA "
                           "function's)");
    }
    if (auto *t = m.find("cable")) {
        if (!d.takes_key("cable"))
            p.fail(*t, only_for_types("cable") + " (a parallel ATA cable)");
        if (!c.parallel_ata())
            p.fail(*t, "cable: is a parallel ATA cable's: only with part: piix3 or piix4");
        c.cable = unsigned(as_uint(p, *t, 40, 80));
        if (c.cable != 40 && c.cable != 80)
            p.fail(*t, "a parallel ATA cable has 40 or 80 conductors (got " + std::to_string(c.cable) + ")");
    }
    if (auto *t = m.find("pcix_ack_window")) {
        c.pcix_ack_window_ns = as_time_ns(p, *t);
        if (c.pcix_ack_window_ns == 0 || c.pcix_ack_window_ns > 1000000)
            p.fail(*t, "the PCI-X acknowledge window must be more than 0 and at most 1ms");
    }
}

namespace {

// "bb:dd.f" (hex, as lspci prints a function): its sort key, or -1 if malformed.
long pci_key(const std::string &s) {
    unsigned bus = 0, dev = 0, fn = 0;
    char tail = 0;
    if (s.size() != 7 || s[2] != ':' || s[5] != '.' || std::sscanf(s.c_str(), "%2x:%2x.%1x%c", &bus, &dev, &fn, &tail) != 3)
        return -1;
    if (dev > 0x1f || fn > 7)
        return -1;
    return long(bus) << 8 | long(dev) << 3 | long(fn);
}

// The function's default address: the type's own for the first controller (the table's log
// prefix, "ahci 0000:00:1f.2"; an ICH's IDE-mode function, the chipset's own, 00:1f.2 too),
// then bus index + 1 (a card behind root port index + 1).
std::string default_pci(const ControllerDesc &d, size_t index) {
    const std::string prefix = d.log_prefix;
    const size_t at = prefix.find(" 0000:");
    if (index == 0 && at != std::string::npos)
        return prefix.substr(at + 6);
    if (index == 0 && d.taskfile && !d.scr)
        return "00:1f.2";
    char buf[16];
    std::snprintf(buf, sizeof buf, "%02zx:00.0", (index + 1) & 0xff);
    return buf;
}

} // namespace

void parse_controllers(const Parser &p, const Field &f, Scenario &sc) {
    const YAML::Node &l = as_list(p, f);
    if (l.size() == 0)
        p.fail(f, "empty list (at least one controller)");
    if (l.size() > 16)
        p.fail(f, "at most 16 controllers (" + std::to_string(l.size()) + " given)");
    if (l.size() > 1)
        if (const char *why = p.backend->refuses_key(ScenarioKey::Controllers))
            p.fail(f, why);
    sc.controllers.clear();
    unsigned first_port = 0;
    long last_key = -1;
    int piix_line = 0;
    for (size_t i = 0; i < l.size(); ++i) {
        Field e = element(f, i);
        ControllerSpec c;
        parse_controller(p, e, c, true);
        const ControllerDesc &d = controller_desc(c.type);
        const YAML::Node &n = e.node;
        auto field = [&](const char *key) {
            const int at = line_of(n[key], c.line);
            return Field{n[key], e.path + "." + key, at, at};
        };
        if (c.pci.empty())
            c.pci = default_pci(d, i);
        else if (pci_key(c.pci) < 0)
            p.fail(field("pci"), "'" + c.pci + "' is not a PCI address bus:device.function (hex, e.g. 03:00.0; "
                                               "device at most 1f, function at most 7)");
        const long key = pci_key(c.pci);
        // The kernel probes the functions in PCI order and numbers ata ports in that order:
        // the list is that order, so a controller's index is its place in the numbering.
        if (key <= last_key)
            p.fail(n["pci"].IsDefined() ? field("pci") : e,
                   "PCI address " + c.pci + (key == last_key ? " is already taken by controller " +
                                                                  std::to_string(i - 1)
                                                            : " comes before controller " + std::to_string(i - 1) +
                                                                  "'s (" + sc.controllers.back().pci +
                                                                  "): list the controllers in PCI order, the "
                                                                  "order the kernel probes them"));
        last_key = key;
        if (c.irq == 0)
            c.irq = unsigned(19 + i);
        // An ICH in IDE mode decodes the legacy channels (command blocks 0x1f0 and 0x170):
        // a second one in the same host would answer at the same addresses.
        if (d.taskfile && !d.scr) {
            if (piix_line)
                p.fail(field("type"), "a second " + c.type + " (line " + std::to_string(piix_line) +
                                          " has one): an ICH in IDE mode decodes the legacy channels at 0x1f0 "
                                          "and 0x170, one per host");
            piix_line = c.line;
        }
        // libata numbers every port of a host, a masked one too: a controller of fixed shape
        // keeps all its ports here, so the next controller's ata numbers follow the hardware's.
        if (d.hardware_ports && c.ports != d.hardware_ports)
            p.fail(n["ports"].IsDefined() ? field("ports") : e,
                   "a " + c.type + " has " + std::to_string(d.hardware_ports) +
                       " ports, all numbered by libata in a host of several controllers: leave ports out");
        c.first_port = first_port;
        first_port += c.ports;
        sc.controllers.push_back(c);
    }
    sc.controller = sc.controllers.front();
}

void parse_host(const Parser &p, const Field &f, HostSpec &h) {
    MapView m(p, f.node, f.path, f.line, {"eh_policy", "no_ncq", "port_mask", "irq_loss_fix", "spd_limit", "stack",
                                                 "force", "pio_polling", "fua", "atapi_dmadir", "dma", "ignore_hpa",
                                                 "no_msi", "lpm_policy", "spd_down_unknown"});
    if (auto *t = m.find("eh_policy"))
        h.eh_policy = as_string(p, *t);
    if (auto *t = m.find("no_ncq"))
        h.no_ncq = as_bool(p, *t);
    if (auto *t = m.find("port_mask"))
        h.port_mask = uint32_t(as_uint(p, *t, 0, 0xffffffffu));
    if (auto *t = m.find("irq_loss_fix"))
        h.irq_loss_fix = as_bool(p, *t);
    if (auto *t = m.find("pio_polling"))
        h.pio_polling = as_bool(p, *t);
    if (auto *t = m.find("fua"))
        h.fua = as_bool(p, *t);
    if (auto *t = m.find("atapi_dmadir"))
        h.atapi_dmadir = as_bool(p, *t);
    // libata.dma: the classes that may use DMA (0x1 ATA disks, 0x2 ATAPI, 0x4 CF)
    if (auto *t = m.find("dma"))
        h.dma = unsigned(as_uint(p, *t, 0, 7));
    if (auto *t = m.find("ignore_hpa"))
        h.ignore_hpa = as_bool(p, *t);
    // Linux's pci=nomsi: every function interrupts through its INTx pin
    if (auto *t = m.find("no_msi"))
        h.no_msi = as_bool(p, *t);
    if (auto *t = m.find("lpm_policy"))
        h.lpm_policy = as_enum<std::string>(p, *t,
                                            {{"max_performance", "max_performance"},
                                             {"medium_power", "medium_power"},
                                             {"med_power_with_dipm", "med_power_with_dipm"},
                                             {"min_power_with_partial", "min_power_with_partial"},
                                             {"min_power", "min_power"}});
    if (auto *t = m.find("spd_down_unknown"))
        h.spd_down_unknown = as_enum<std::string>(p, *t, {{"lowest", "lowest"}, {"keep", "keep"}, {"step", "step"}});
    if (auto *t = m.find("spd_limit")) {
        h.spd_limit = unsigned(as_uint(p, *t, 1, 3));
        h.spd_limit_line = t->line;
    }
    if (auto *t = m.find("stack"))
        h.stack = as_bool(p, *t);
    if (auto *t = m.find("force")) {
        if (auto why = parse_force_options(as_string(p, *t), h.force))
            p.fail(*t, *why);
        if (h.force.size() > 32) // ATA_FORCE_MAX
            p.fail(*t, "at most 32 entries");
        h.force_line = t->line;
    }
}

// link: {mode: dword|fis} (top level, or per device as an override)
LinkModeSpec parse_link(const Parser &p, const Field &f) {
    MapView m(p, f.node, f.path, f.line, {"mode"});
    if (!m.has("mode"))
        p.fail(m.line(), m.join("mode"), "required (dword or fis)");
    return as_enum<LinkModeSpec>(p, m.get("mode"), {{"dword", LinkModeSpec::Dword}, {"fis", LinkModeSpec::Fis}});
}

} // namespace satasim::harness
