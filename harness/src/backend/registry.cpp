#include "backend/registry.h"

#include <stdexcept>

#include "backend/qemu/qemu_backend.h"
#include "backend/qemu/qemu_rules.h"
#include "backend/rtl/rtl_backend.h"
#include "backend/rtl/rtl_rules.h"
#include "backend/systemc/systemc_backend.h"
#include "backend/systemc/systemc_rules.h"
#include "scenario/scenario.h"

namespace satasim::harness {

namespace {

// A backend's refusals of a parsed scenario: its own, after the keys it refuses that the
// scenario uses. The parser checks those keys only against the scenario's own `backend:`;
// with `--backend` or `--controller-rtl` the backend is chosen after parsing, and without
// this a port-multiplier or directed-steps scenario ran (and failed) on a backend that
// cannot take it. (link: {mode} is not listed: the parsed scenario does not say whether
// the key was given or defaulted.)
template <const char *(*RefusesKey)(ScenarioKey), std::vector<Refusal> (*Own)(const Scenario &)>
std::vector<Refusal> refusals_with_keys(const Scenario &sc) {
    std::vector<Refusal> r;
    auto key = [&](bool used, ScenarioKey k, const std::string &what) {
        if (const char *why = used ? RefusesKey(k) : nullptr)
            r.push_back(what + ": " + why);
    };
    key(!sc.pmps.empty(), ScenarioKey::Pmps, "pmps");
    key(!sc.steps.empty(), ScenarioKey::Steps, "steps");
    key(sc.waveform.on, ScenarioKey::Waveform, "waveform");
    key(sc.multi(), ScenarioKey::Controllers, "controllers");
    for (const DeviceSpec &d : sc.devices)
        key(d.link_mode.has_value(), ScenarioKey::DeviceLink, "devices[port " + std::to_string(d.port) + "].link");
    for (Refusal &x : Own(sc))
        r.push_back(std::move(x));
    return r;
}

// One row per backend: name, title (messages), rules, implementation. The first is the
// default of a scenario without a `backend:` key.
const BackendEntry kBackends[] = {
    {{"systemc", "SystemC", systemc::refuses_key, refusals_with_keys<systemc::refuses_key, systemc::refusals>,
      systemc::hardware_ports, systemc::skips_step},
     systemc::make_backend},
    {{"qemu", "QEMU", qemu::refuses_key, refusals_with_keys<qemu::refuses_key, qemu::refusals>,
      qemu::hardware_ports, qemu::skips_step},
     qemu::make_backend},
    {{"rtl", "RTL", rtl::refuses_key, refusals_with_keys<rtl::refuses_key, rtl::refusals>, rtl::hardware_ports,
      rtl::skips_step},
     rtl::make_backend},
};

} // namespace

const BackendList &backend_rules() {
    static const BackendList list = [] {
        BackendList l;
        for (const BackendEntry &e : kBackends)
            l.push_back(&e.rules);
        return l;
    }();
    return list;
}

const BackendEntry *find_backend(const std::string &name) {
    for (const BackendEntry &e : kBackends)
        if (name == e.rules.name)
            return &e;
    return nullptr;
}

const BackendEntry &backend_of(const Scenario &sc) {
    if (const BackendEntry *e = find_backend(sc.backend))
        return *e;
    throw std::logic_error("unregistered backend '" + sc.backend + "'");
}

std::string backend_names_or() {
    std::string s;
    const size_t n = sizeof kBackends / sizeof kBackends[0];
    for (size_t i = 0; i < n; ++i)
        s += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + kBackends[i].rules.name;
    return s;
}

} // namespace satasim::harness
