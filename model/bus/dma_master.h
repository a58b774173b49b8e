// A controller's DMA engine as a bus master in host memory: what the AHCI port engine
// (AHCI 1.3.1 chapter 5) and the SiI3124 PRB engine (docs/hardware.md 6.4, 6.5) do alike.
//   - Time: the engine runs on its core clock; work that arrives between edges starts on
//     the next rising edge, and a burst costs the bus latency (a read's round trip, a
//     posted write) plus one core cycle per datapath width, charged as one wait.
//   - Aborts: a reset (or a command-list stop) during that wait drops the burst; the
//     controller's own sleep says whether that happened.
//   - Faults: an address the host did not map is the host's error; the controller reports
//     it its own way (a violation record, then its error status).
//   - Scatter/gather: the PRDT (AHCI) and the SGE chain (SiI3124) are both kept as entries
//     sorted by their byte position in the command's buffer; one walk serves both.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <systemc>

#include "model/bus/host_memory.h"

namespace satasim::bus {

enum class DmaResult { Ok, Fault, Aborted };

// Latencies in core clock cycles and the datapath width.
struct DmaTiming {
    uint64_t read_latency;    // bus read round trip (request to completion)
    uint64_t write_latency;   // posted write
    uint64_t bytes_per_cycle; // datapath width

    uint64_t burst_cycles(bool to_mem, size_t len) const {
        return (to_mem ? write_latency : read_latency) + (len + bytes_per_cycle - 1) / bytes_per_cycle;
    }
};

// Waits, in a thread process, for the next rising edge of a clock with this period
// (edges at multiples of the period from time zero).
inline void wait_for_clock_edge(const sc_core::sc_time &period) {
    const uint64_t p = period.value();
    const uint64_t rem = sc_core::sc_time_stamp().value() % p;
    if (rem)
        sc_core::wait(sc_core::sc_time::from_value(p - rem));
}

// Mixed into an HBA port (CRTP): its bursts between host memory and the engine, in the
// port's own terms. The port provides sleep(cycles, cmd) (false: a reset, or a stop when
// cmd, aborted the burst meanwhile), bus_master_ok(addr, len) (false, after recording it,
// when its PCI function's Bus Master Enable is off: the burst never reaches the bus),
// dma_violation(addr, len) (an unmapped access),
// dma_memory() and a static dma_timing(), and befriends this class.
template <class Port> class DmaMasterPort {
  protected:
    DmaResult mem_read(uint64_t addr, void *dst, size_t len, bool cmd) {
        return burst(false, addr, len, cmd, [&](HostMemory &m) { return m.read(addr, dst, len); });
    }
    DmaResult mem_write(uint64_t addr, const void *src, size_t len, bool cmd) {
        return burst(true, addr, len, cmd, [&](HostMemory &m) { return m.write(addr, src, len); });
    }

  private:
    template <class Move> DmaResult burst(bool to_mem, uint64_t addr, size_t len, bool cmd, Move &&move) {
        Port &p = static_cast<Port &>(*this);
        if (!p.sleep(Port::dma_timing().burst_cycles(to_mem, len), cmd))
            return DmaResult::Aborted;
        if (!p.bus_master_ok(addr, len))
            return DmaResult::Fault;
        if (move(p.dma_memory()))
            return DmaResult::Ok;
        p.dma_violation(addr, len);
        return DmaResult::Fault;
    }
};

// Walks the scatter/gather entries (each with .start, .len) that cover bytes
// [pos, pos + n) of the command's buffer, calling piece(entry, offset in the entry,
// offset in the transfer, length) in order. Stops at the first piece that returns false;
// returns the bytes of the pieces accepted. pos + n must lie within the list.
template <class Entry, class Piece>
size_t for_each_sg_piece(const std::vector<Entry> &list, uint64_t pos, size_t n, Piece &&piece) {
    if (n == 0)
        return 0;
    auto it = std::upper_bound(list.begin(), list.end(), pos,
                               [](uint64_t p, const Entry &e) { return p < e.start; });
    size_t i = size_t(it - list.begin()) - 1;
    size_t off = 0;
    while (off < n) {
        const Entry &e = list[i++];
        const uint64_t in = pos + off - e.start;
        const size_t c = size_t(std::min<uint64_t>(e.len - in, n - off));
        if (!piece(e, in, off, c))
            return off;
        off += c;
    }
    return off;
}

} // namespace satasim::bus
