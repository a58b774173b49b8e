// What a backend can model, as plain functions over the parsed scenario. The scenario
// parser asks refuses_key() where it reads a key (its message then names file, line and
// key); the runner and run-one ask refusals() of the whole scenario, the directed steps'
// runner skips_step() of each step; nothing else decides what a backend refuses. Each backend defines its rules in its own folder
// (backend/<name>/<name>_rules.cpp); backend/registry.cpp gives them their names. No
// SystemC here: the scenario library (built without it) takes a BackendList.
#pragma once

#include <string>
#include <vector>

namespace satasim::harness {

struct Scenario;
struct Step;

// Scenario keys a backend may refuse where the parser reads them.
enum class ScenarioKey {
    Link,       // link: {mode} (the SATA link model)
    DeviceLink, // devices[].link
    Pmps,       // pmps[] (port multipliers)
    Waveform,   // waveform (VCD of model signals)
    Steps,      // steps (directed register-level steps)
    Controllers, // controllers: with more than one entry (several controllers in one host)
};

// One thing a backend cannot model: "feature: why", and the scenario line of the key that
// asks for it (0: not known; the message then points at the `backend` key's line).
struct Refusal {
    Refusal(std::string w, int l = 0) : what(std::move(w)), line(l) {}
    std::string what;
    int line;
};

struct BackendRules {
    const char *name;  // the scenario's `backend:` value and `--backend`'s
    const char *title; // in messages: "the QEMU backend cannot model ..."
    // Why the backend cannot take the key (the parser's message at the key), or nullptr.
    const char *(*refuses_key)(ScenarioKey key);
    // What a parsed scenario asks for that the backend cannot model (empty: it can run
    // the scenario).
    std::vector<Refusal> (*refusals)(const Scenario &sc);
    // Host ports the hardware always implements whatever controller.ports says (0: as many
    // as the scenario's): the stack is then limited to the scenario's first ports.
    unsigned (*hardware_ports)(const Scenario &sc);
    // Why the backend skips a directed step that only looks for what its hardware never
    // shows (an expect_trace of a record only another backend's models write), or "": the
    // step runs. The runner skips it with the reason (a `step.skip` record, result.json's
    // steps_skipped). A step that acts on what the backend lacks (device_fis without a
    // device-side link, inject without a fault engine) is one of its refusals instead.
    std::string (*skips_step)(const Step &s);

    bool takes(ScenarioKey key) const { return refuses_key(key) == nullptr; }
};

// The backends a scenario may name, the default first.
using BackendList = std::vector<const BackendRules *>;

// The row named `name`, or nullptr.
inline const BackendRules *find_rules(const BackendList &l, const std::string &name) {
    for (const BackendRules *r : l)
        if (name == r->name)
            return r;
    return nullptr;
}

} // namespace satasim::harness
