// Running the DUT build's tools (Verilator, the C++ compiler) as programs with an argument
// vector, never through a shell: a DUT profile is data a vendor hands over, and nothing in
// it (a define's value, a flag, a file name) may become a command of its own.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace satasim::harness::rtl {

using Argv = std::vector<std::string>;

// Runs argv[0] (looked up in PATH when it has no '/') with standard input from /dev/null and
// standard output and error appended to `log`. The exit status; 127 if it could not start,
// 128 + N if signal N ended it.
int run_tool(const Argv &argv, const std::filesystem::path &log);

// The first line a tool prints on its standard output (its standard error discarded), ""
// if it cannot run or prints nothing.
std::string tool_first_line(const Argv &argv);

// The path of an executable named `name` in PATH, or "".
std::string find_in_path(const std::string &name);

// argv as a line of a log ("$ verilator --cc ..."), each argument quoted where a reader
// would otherwise misread it: for people, never run.
std::string argv_text(const Argv &argv);

} // namespace satasim::harness::rtl
