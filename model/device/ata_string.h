// ATA strings in IDENTIFY data (ATA8-ACS 3.2.7, IDENTIFY DEVICE and IDENTIFY PACKET DEVICE
// alike): space padded, two characters per word, the first one in the high byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace satasim::device {

inline void put_ata_string(std::vector<uint16_t> &w, unsigned first, unsigned words, const std::string &s) {
    for (unsigned i = 0; i < words; ++i) {
        auto ch = [&](size_t k) -> uint16_t { return k < s.size() ? uint8_t(s[k]) : ' '; };
        w[first + i] = uint16_t(ch(2 * i) << 8 | ch(2 * i + 1));
    }
}

} // namespace satasim::device
