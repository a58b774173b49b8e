#include "scenario/wave_groups.h"

namespace satasim::harness {

namespace {
const char *const kNames[kWaveGroupCount] = {"irq", "phy", "prims", "fis", "regs"};
} // namespace

const char *wave_group_name(unsigned g) { return g < kWaveGroupCount ? kNames[g] : "?"; }

bool wave_group_mask(const std::string &name, unsigned *mask, std::string *err) {
    if (name == "all") {
        *mask = kAllWaveGroups;
        return true;
    }
    for (unsigned g = 0; g < kWaveGroupCount; ++g)
        if (name == kNames[g]) {
            *mask = 1u << g;
            return true;
        }
    *err = "unknown signal group '" + name + "' (expected one of: " + wave_group_names() + ")";
    return false;
}

std::string wave_group_names() {
    std::string s;
    for (unsigned g = 0; g < kWaveGroupCount; ++g)
        s += std::string(kNames[g]) + ", ";
    return s + "all";
}

} // namespace satasim::harness
