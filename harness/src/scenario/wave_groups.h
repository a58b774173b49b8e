// The waveform's signal groups by name (scenario key waveform.signals, --vcd-signals),
// without SystemC: bit g of a mask is group g of model/wave/wave_probe.h's wave::Group
// (trace/vcd_writer.cpp checks that the two lists agree).
#pragma once

#include <string>

namespace satasim::harness {

constexpr unsigned kWaveGroupCount = 5; // irq, phy, prims, fis, regs
constexpr unsigned kAllWaveGroups = (1u << kWaveGroupCount) - 1;

// The name of group g (0 .. kWaveGroupCount-1).
const char *wave_group_name(unsigned g);
// "irq", "phy", "prims", "fis", "regs" or "all" into a group mask; false and err on an
// unknown name.
bool wave_group_mask(const std::string &name, unsigned *mask, std::string *err);
// The accepted names, for messages: "irq, phy, prims, fis, regs, all".
std::string wave_group_names();

} // namespace satasim::harness
