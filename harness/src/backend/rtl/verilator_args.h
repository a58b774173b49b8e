// What a DUT profile may hand to Verilator (docs/rtl-controller.md, "What a profile may
// say"): options from an allow-list (optimisation, warnings, X handling, language and
// timescale, unrolling), and define / parameter values that are Verilog constants. An
// option that reads or writes files (-f, -F, -v, -y, -o, --Mdir, --xml-output, --dump-*),
// hands text to another tool (-CFLAGS, -LDFLAGS, --compiler, --make) or sets what the shell
// sets (--cc, --prefix, --top-module, --trace, --coverage*, -G, +define+, -I) is refused.
#pragma once

#include <optional>
#include <string>

namespace satasim::harness::rtl {

// Why Verilator option `opt` is refused in verilator_flags, or nullopt if it is allowed.
// `takes_value` is set for an allowed option that takes the next entry as its value.
std::optional<std::string> refused_verilator_option(const std::string &opt, bool *takes_value);

// Why `value` is refused as the value of option `opt` (the entry after it), or nullopt.
std::optional<std::string> refused_option_value(const std::string &opt, const std::string &value);

// Why `value` is refused as a define's (+define+NAME=value) or a parameter's (-GNAME=value)
// value, or nullopt: a Verilog number (42, -3, 8'hFF, 4'b10x1, 1.5e3), an identifier, or a
// string "..." of letters, digits and _ . , : - (no '/': no file names). A define may also
// be empty (+define+NAME=).
std::optional<std::string> refused_constant(const std::string &value, bool is_define);

} // namespace satasim::harness::rtl
