// Sections controller, host and link (scenarios/README.md).
#include "scenario/sections.h"

namespace satasim::harness {

void parse_controller(const Parser &p, const Field &f, ControllerSpec &c) {
    MapView m(p, f.node, f.path, f.line,
              {"type", "ports", "slots", "ncq", "gen", "fbs", "staggered_spinup", "pcix_irq_loss",
               "pcix_ack_window", "map"});
    if (auto *t = m.find("type"))
        c.type = as_enum<std::string>(p, *t, {{"ahci", "ahci"}, {"sil24", "sil24"}, {"sil3112", "sil3112"}, {"piix", "piix"}});
    const bool sil24 = c.type == "sil24";
    // A taskfile controller: one command at a time per channel, no NCQ, no PMP.
    const bool sff = c.type == "sil3112" || c.type == "piix";
    // Per type: ports, command slots and fastest link generation the model can have.
    const unsigned max_ports = sil24 ? 4 : sff ? 2 : 32,
                   max_gen = sil24 || c.type == "piix" ? 2 : sff ? 1 : 3; // ICH7-like: 3.0 Gb/s
    if (sil24) {
        c.ports = 4;
        c.slots = 31;
        c.gen = 2;
    }
    if (sff) {
        c.ports = 2;
        c.slots = 1;
        c.ncq = false;
        c.gen = max_gen;
    }
    if (auto *t = m.find("ports")) {
        c.ports = unsigned(as_uint(p, *t, 1, max_ports));
        c.ports_line = t->line;
    }
    if (auto *t = m.find("slots")) {
        c.slots = unsigned(as_uint(p, *t, 1, 32));
        c.slots_line = t->line;
        if (sff && c.slots != 1)
            p.fail(*t, "a " + c.type + " channel runs one command at a time (slots: 1)");
        if (sil24 && c.slots != 31)
            p.fail(*t, "a sil24 controller has 31 command slots per port (got " + std::to_string(c.slots) + ")");
    }
    if (auto *t = m.find("ncq")) {
        c.ncq = as_bool(p, *t);
        c.ncq_line = t->line;
        if (sil24 && !c.ncq)
            p.fail(*t, "a sil24 controller always supports NCQ (use host.no_ncq to turn it off)");
        if (sff && c.ncq)
            p.fail(*t, "a " + c.type + " controller has no NCQ (a taskfile interface)");
    }
    if (auto *t = m.find("gen")) {
        c.gen = unsigned(as_uint(p, *t, 1, max_gen));
        c.gen_set = true;
        c.gen_line = t->line;
    }
    if (auto *t = m.find("fbs")) {
        c.fbs = as_bool(p, *t);
        if (sil24 && c.fbs)
            p.fail(*t, "only for type: ahci (the sil24 switches per FIS natively)");
        if (sff && c.fbs)
            p.fail(*t, "only for type: ahci");
    }
    if (auto *t = m.find("staggered_spinup")) {
        c.staggered_spinup = as_bool(p, *t);
        if (c.type != "ahci" && c.staggered_spinup)
            p.fail(*t, "only for type: ahci (CAP.SSS)");
    }
    for (const char *k : {"pcix_irq_loss", "pcix_ack_window"})
        if (!sil24 && m.has(k))
            p.fail(m.get(k), "only for type: sil24");
    if (auto *t = m.find("pcix_irq_loss"))
        c.pcix_irq_loss = as_bool(p, *t);
    // The ICH's port mapping (MAP, PCI configuration 90h): only an ICH/PIIX in IDE mode has one.
    if (auto *t = m.find("map")) {
        if (c.type != "piix")
            p.fail(*t, "only for type: piix (the ICH's port mapping register, which a " + c.type +
                           " controller does not have)");
        c.map = as_enum<std::string>(p, *t, {{"ich5", "ich5"}, {"ich6", "ich6"}});
    }
    if (auto *t = m.find("pcix_ack_window")) {
        c.pcix_ack_window_ns = as_time_ns(p, *t);
        if (c.pcix_ack_window_ns == 0 || c.pcix_ack_window_ns > 1000000)
            p.fail(*t, "the PCI-X acknowledge window must be more than 0 and at most 1ms");
    }
}

void parse_host(const Parser &p, const Field &f, HostSpec &h) {
    MapView m(p, f.node, f.path, f.line, {"eh_policy", "no_ncq", "port_mask", "irq_loss_fix", "spd_limit", "stack",
                                                 "force", "pio_polling"});
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
