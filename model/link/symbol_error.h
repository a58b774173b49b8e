// What a receiver's 8b/10b decoder makes of a dword corrupted on the wire (a crc fault's
// `symbol`, SataLink::DwordFault::symbol). Plain header: the fault plan and the scenario
// parser use it without SystemC.
#pragma once

#include <cstdint>

namespace satasim::link {

// None: the bits flip into other valid symbols (only the frame's CRC sees it); Code: no such
// 10-bit symbol (SError DIAG.B); Disparity: a valid symbol of the wrong running disparity
// (SError DIAG.D; AHCI, which does not use DIAG.D, counts it as DIAG.B).
enum class SymbolError : uint8_t { None, Code, Disparity };

// The scenario language's name (a crc fault's `symbol`).
inline const char *to_string(SymbolError s) {
    return s == SymbolError::Code ? "code" : s == SymbolError::Disparity ? "disparity" : "none";
}

} // namespace satasim::link
