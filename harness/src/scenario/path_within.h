// Whether a path lies in a folder: the confinement of the files a scenario includes and a
// DUT profile names (after symlinks and '..' are resolved by the caller).
#pragma once

#include <filesystem>

namespace satasim::harness {

// `p` is `root` or below it (both canonical).
inline bool path_within(const std::filesystem::path &p, const std::filesystem::path &root) {
    auto d = p.begin();
    for (auto r = root.begin(); r != root.end(); ++r, ++d)
        if (r->empty())
            continue; // a trailing separator
        else if (d == p.end() || *d != *r)
            return false;
    return true;
}

} // namespace satasim::harness
