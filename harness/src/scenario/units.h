// Parsing of the quantities scenario files are written in: sizes ("4k", "64KiB", "1m",
// "65535s", "500GB"), times ("50ms", "30s", "2us", "1.5ms") and data rates ("550MB/s").
// Integer arithmetic only where the result reaches the trace, so parsing is exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace satasim::harness {

constexpr uint64_t kSectorBytes = 512;

// A size in bytes. Suffixes (case-insensitive): b (bytes), s (512-byte sectors),
// k/kib m/mib g/gib t/tib (powers of 1024), kb mb gb tb (powers of 1000).
// A bare integer means `bare_unit` bytes (1 = bytes, 512 = sectors).
// Returns nullopt and sets *why on malformed input or overflow.
std::optional<uint64_t> parse_size_bytes(const std::string &text, uint64_t bare_unit,
                                         std::string *why);

// A size in whole sectors: as parse_size_bytes with bare integers counted in sectors;
// byte sizes must be a multiple of 512.
std::optional<uint64_t> parse_size_sectors(const std::string &text, std::string *why);

// A duration in nanoseconds: <number><unit>, unit ns us ms s min; the number may have a
// decimal fraction as long as the result is a whole number of nanoseconds. A unit is
// required.
std::optional<uint64_t> parse_time_ns(const std::string &text, std::string *why);

// A data rate in MB/s (1 MB = 1e6 bytes): <number><unit>, unit B/s kB/s MB/s GB/s
// KiB/s MiB/s GiB/s.
std::optional<double> parse_rate_mb_s(const std::string &text, std::string *why);

// Strict non-negative decimal integer (no sign, no suffix, optional 0x hex prefix).
std::optional<uint64_t> parse_uint(const std::string &text);

// Without leading and trailing white space.
std::string trim(const std::string &s);

// "1.5 Gbps" style helpers for output.
std::string format_seconds(uint64_t ns, int decimals); // "0.412"

} // namespace satasim::harness
