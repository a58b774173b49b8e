// The host bus error fault on the RTL backend (fault kind host_bus_error): which burst of
// the DUT's DMA master the shell's AXI slave answers with SLVERR or DECERR instead of OKAY.
// An AXI burst names neither a port nor what it is for, so the shell finds both the way
// the AHCI software laid them out (AHCI 1.3.1 4.2): it snoops the stack's writes of
// PxCLB/PxCLBU/PxFB/PxFBU and, while a fault is armed, reads the port's command headers and
// PRDTs from host memory to see whether the burst falls in the port's command list or FIS
// area, a command table, or a PRD data buffer (bus::BusAccess). The errored burst moves
// nothing (a read returns no data, a write writes none); the controller must stop the port
// with PxIS.HBFS (AHCI 1.3.1 3.3.5, 6.1).
// A DUT with quirks.onchip_cmd_area keeps the command list and FIS area in its register
// window: neither is ever on the bus, and the command headers are taken from the stack's
// register writes to the on-chip list instead of host memory.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/bus/bus_fault.h"
#include "model/bus/host_memory.h"
#include "backend/rtl/dut_profile.h"
#include "model/common/trace.h"

namespace satasim::harness::rtl {

class BusErrorInjector {
  public:
    // onchip: the DUT's on-chip command list / FIS area (nullptr: in host memory).
    BusErrorInjector(bus::HostMemory &mem, unsigned ports, ModelTrace *trace, const OnchipArea *onchip = nullptr);

    // The port's next burst of the class fails (replaces what was armed on the port).
    void arm(unsigned port, const bus::BusErrorParams &p, const std::string &id);
    void clear();
    // A register write the stack made (off in the DUT's register window).
    void on_mmio_write(uint32_t off, uint32_t val);
    // The response of a burst the slave accepts: 0 (OKAY), or 2 (SLVERR) / 3 (DECERR) when
    // an armed fault hits it (reported as the fault's effect and disarmed).
    unsigned response(uint64_t addr, size_t len, bool write);

  private:
    struct PortState {
        uint32_t clb = 0, clbu = 0, fb = 0, fbu = 0;
        std::array<uint32_t, 32 * 8> onchip_cl{}; // on chip: the command list as the stack wrote it
        bool armed = false;
        bus::BusErrorParams params;
        std::string id;
    };
    // What [addr, addr+len) is to port n, or nothing if it is none of its structures.
    std::optional<bus::BusAccess> classify(const PortState &p, uint64_t addr, size_t len) const;
    // Dwords 0-3 of a command header; false if there is no command list yet.
    bool header(const PortState &p, unsigned slot, uint32_t h[4]) const;

    bus::HostMemory &mem_;
    ModelTrace *trace_;
    std::optional<OnchipArea> onchip_;
    std::vector<PortState> ports_;
    unsigned armed_ = 0; // ports with a fault armed (classify only then)
};

} // namespace satasim::harness::rtl
