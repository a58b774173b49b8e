// Section waveform (scenarios/README.md, trace/vcd_writer.h).
#include "scenario/sections.h"

#include <algorithm>

#include "scenario/wave_groups.h"

namespace satasim::harness {

// waveform: {signals: [group...], ports: [port...]} (VCD of model signals, vcd_writer.h)
void parse_waveform(const Parser &p, const Field &f, Scenario &sc) {
    WaveformSpec &w = sc.waveform;
    // `waveform: true` (or an empty `waveform:`): every signal; `false`: none.
    w.on = f.node.IsScalar() ? as_bool(p, f) : true;
    if (const char *why = p.backend->refuses_key(ScenarioKey::Waveform); w.on && why)
        p.fail(f, why);
    if (f.node.IsNull() || f.node.IsScalar())
        return;
    MapView m(p, f.node, f.path, f.line, {"signals", "ports"});
    if (auto *v = m.find("signals")) {
        const YAML::Node &l = as_list(p, *v);
        if (l.size() == 0)
            p.fail(*v, "empty list (leave the key out for every signal)");
        w.groups = 0;
        for (size_t i = 0; i < l.size(); ++i) {
            Field e = element(*v, i);
            unsigned mask = 0;
            std::string err;
            if (!wave_group_mask(as_string(p, e), &mask, &err))
                p.fail(e, err);
            w.groups |= mask;
        }
    }
    if (auto *v = m.find("ports")) {
        const YAML::Node &l = as_list(p, *v);
        if (l.size() == 0)
            p.fail(*v, "empty list (leave the key out for every port)");
        for (size_t i = 0; i < l.size(); ++i) {
            Field e = element(*v, i);
            unsigned port = unsigned(as_uint(p, e, 0, 31));
            if (port >= sc.controller.ports)
                p.fail(e, no_such_port(sc, port));
            if (std::find(w.ports.begin(), w.ports.end(), port) != w.ports.end())
                p.fail(e, "port " + std::to_string(port) + " is listed twice");
            w.ports.push_back(port);
        }
    }
}

} // namespace satasim::harness
