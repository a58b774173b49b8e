// Sections controller, host and link (scenarios/README.md).
#include "scenario/sections.h"

#include "controller/controller_table.h"

namespace satasim::harness {

namespace {

// "only for type: ahci": the types whose row takes a controller key.
std::string only_for_types(const std::string &key) {
    return "only for type: " + controller_names_or([&](const ControllerDesc &d) { return d.takes_key(key); });
}

} // namespace

// Every limit and per-type key comes from the controller's row (controller/controller_table.h).
void parse_controller(const Parser &p, const Field &f, ControllerSpec &c) {
    MapView m(p, f.node, f.path, f.line,
              {"type", "ports", "slots", "ncq", "gen", "fbs", "staggered_spinup", "pcix_irq_loss",
               "pcix_ack_window", "map"});
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
    if (auto *t = m.find("pcix_ack_window")) {
        c.pcix_ack_window_ns = as_time_ns(p, *t);
        if (c.pcix_ack_window_ns == 0 || c.pcix_ack_window_ns > 1000000)
            p.fail(*t, "the PCI-X acknowledge window must be more than 0 and at most 1ms");
    }
}

void parse_host(const Parser &p, const Field &f, HostSpec &h) {
    MapView m(p, f.node, f.path, f.line, {"eh_policy", "no_ncq", "port_mask", "irq_loss_fix", "spd_limit", "stack",
                                                 "force", "pio_polling", "fua"});
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
