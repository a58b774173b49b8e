// Section oracles (scenarios/README.md, docs/fuzzing.md "Findings").
#include "scenario/sections.h"

namespace satasim::harness {

// oracles: {fuzz: bool, max_steps: N}
void parse_oracles(const Parser &p, const Field &f, Scenario &sc) {
    OraclesSpec &o = sc.oracles;
    o.line = f.line;
    MapView m(p, f.node, f.path, f.line, {"fuzz", "max_steps"});
    if (auto *v = m.find("fuzz"))
        o.fuzz = as_bool(p, *v);
    if (auto *v = m.find("max_steps"))
        o.max_steps = as_uint(p, *v, 1, UINT64_MAX);
    if (!sc.steps.empty() && o.fuzz)
        p.fail(f, "fuzz: the fuzz oracles judge the stack's runs, directed `steps:` have none");
}

} // namespace satasim::harness
