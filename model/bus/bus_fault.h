// The parameters of a host bus error (fault host_bus_error): plain data the bus masters'
// fault hooks take (the AHCI model's AhciHba::inject_host_bus_error, the RTL shell's AXI
// slave), so they do not depend on the fault engine. model/fault/ names them
// fault::BusAccess and fault::BusErrorParams.
#pragma once

#include <cstdint>

namespace satasim::bus {

// Which of an AHCI port's DMA accesses the error hits (AHCI 1.3.1 4.2: the command list,
// the command tables, the received-FIS area, the PRD data buffers).
enum class BusAccess : uint8_t {
    Data,    // a transfer to or from a PRD data buffer
    Command, // the command list and tables: header, command FIS, ATAPI command, PRDT, PRDBC write-back
    Fis,     // a received FIS posted to the FIS area
    Any,     // whichever comes first
};

// The scenario's name of an access class (data, command, fis, any).
inline const char *to_string(BusAccess a) {
    switch (a) {
    case BusAccess::Data: return "data";
    case BusAccess::Command: return "command";
    case BusAccess::Fis: return "fis";
    case BusAccess::Any: return "any";
    }
    return "?";
}

struct BusErrorParams {
    BusAccess access = BusAccess::Data;
    bool decerr = false; // AXI DECERR (decode error) instead of SLVERR (slave error); the
                         // SystemC model has no bus responses: both are the same abort there
};

} // namespace satasim::bus
