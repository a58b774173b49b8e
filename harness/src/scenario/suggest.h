// "Did you mean": the nearest of the names a key or value may take, for a message about a
// misspelt one (devics -> devices, ssdd -> ssd).
#pragma once

#include <string>
#include <vector>

namespace satasim::harness {

// The one candidate within a small edit distance of `got` (insertions, deletions,
// substitutions and swaps of neighbours: at most 1 for short names, a third of the length for
// longer), or "" if none or if two are equally near.
std::string nearest_name(const std::string &got, const std::vector<std::string> &candidates);

// " (did you mean 'x'?)" with nearest_name's answer, or "".
std::string did_you_mean(const std::string &got, const std::vector<std::string> &candidates);

} // namespace satasim::harness
