// What the model tests read from IDENTIFY DEVICE data: ATA strings (serial number, model),
// the word 255 checksum and the LBA48 capacity.
#pragma once

#include <cstdint>
#include <string>

namespace satasim::test {

// The string in `words` IDENTIFY words from `word` (two characters a word, the high byte
// first), trailing spaces dropped.
inline std::string ata_string(const uint8_t *id, unsigned word, unsigned words) {
    std::string s;
    for (unsigned w = word; w < word + words; ++w) {
        s += char(id[2 * w + 1]);
        s += char(id[2 * w]);
    }
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    return s;
}

// The sum of all 512 bytes: 0 when word 255 holds a valid checksum.
inline uint8_t identify_byte_sum(const uint8_t *id) {
    uint8_t sum = 0;
    for (int i = 0; i < 512; ++i)
        sum = uint8_t(sum + id[i]);
    return sum;
}

// Words 100-103: the number of user-addressable sectors (LBA48).
inline uint64_t identify_sectors(const uint8_t *id) {
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i)
        n |= uint64_t(id[200 + i]) << (8 * i);
    return n;
}

} // namespace satasim::test
