// The backends the simulator has: the one place that maps a backend name (the scenario's
// `backend:` key, `--backend`) to its rules and its implementation. A new backend is a
// folder backend/<name>/ (its rules and its Backend) and one row in registry.cpp.
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/rules.h"

namespace satasim::harness {

struct BackendEntry {
    BackendRules rules;
    std::unique_ptr<Backend> (*make)();
};

// Every backend's rules, the default (systemc) first: what the scenario parser takes.
const BackendList &backend_rules();
// The backend named `name`, or nullptr.
const BackendEntry *find_backend(const std::string &name);
// The backend a parsed scenario names (the parser accepted only registered names).
const BackendEntry &backend_of(const Scenario &sc);
// "systemc or qemu" (messages).
std::string backend_names_or();

} // namespace satasim::harness
