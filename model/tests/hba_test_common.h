// What the AHCI and SiI3124 test benches (ahci_test_bench.h, sil24_test_bench.h) have in
// common, written once: the one-port HBA -> link -> SSD wiring, polling in simulated time,
// host-memory data buffers with a fill pattern and a compare, the H2D Register FIS a command
// starts with, and a media error to inject into a drive.
#pragma once

#include <cstdint>
#include <cstring>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/pci_function.h"
#include "model/device/sata_disk.h"
#include "model/fault/fault_plan.h"
#include "model/link/sata_link.h"
#include "model/sata/fis.h"
#include "model/tests/identify_data.h"
#include "model/tests/model_test.h"

namespace satasim::test::hba_common {

using test::ata_string;
using test::identify_byte_sum;
using test::identify_sectors;

// 2^20 sectors, SSD timing: the drive of the one-disk benches and behind the PMP benches.
inline device::DiskConfig ssd_disk_cfg() {
    device::DiskConfig c;
    c.sectors = 1u << 20;
    c.timing.ssd = true;
    return c;
}

// An HBA config (AhciConfig or Sil24Config) with one port, the rest default.
template <class HbaConfig> HbaConfig one_port_cfg() {
    HbaConfig c;
    c.n_ports = 1;
    return c;
}

// HBA port 0 -> default link -> one disk; Hba is AhciHba or Sil24Hba (same constructor and
// port interface), hba_cfg its config.
template <class Hba, class HbaConfig> struct OneDiskBench {
    bus::HostMemory mem;
    bus::IrqLine irq;
    Hba hba;
    link::SataLink link;
    device::SataDisk disk;
    OneDiskBench(const char *hba_name, const HbaConfig &hba_cfg, const device::DiskConfig &dcfg,
                 ModelTrace *tr)
        : hba(hba_name, hba_cfg, mem, irq, tr), link("link0", {}, tr), disk("disk0", dcfg, tr) {
        bus::pci_enable_for_test(hba.pci()); // the driver's enable: decode and bus mastering
        link.attach(hba.port_endpoint(0), &disk);
        hba.connect_port(0, &link);
        disk.connect(&link);
    }
};

// Poll cond every step_us of simulated time for up to max_us; its last value.
template <class F> bool wait_until(F cond, double max_us, double step_us = 10) {
    for (double t = 0; t < max_us; t += step_us) {
        if (cond())
            return true;
        sc_core::wait(step_us, sc_core::SC_US);
    }
    return cond();
}

inline void put16(uint8_t *p, uint16_t v) { std::memcpy(p, &v, 2); }
inline void put32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }
inline uint32_t get32(const uint8_t *p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// A data buffer in host memory: its bus address for the HBA, its CPU pointer for the test.
struct Buf {
    uint64_t bus;
    uint8_t *cpu;
    uint32_t len;
};
inline Buf alloc_buf(bus::HostMemory &mem, uint32_t len) {
    Buf b{0, nullptr, len};
    b.bus = mem.alloc(len, 4096, &b.cpu);
    return b;
}
// For commands that move no data.
const Buf kNoData{0, nullptr, 0};

// H2D Register FIS with C set (pmp: the PM port field of FIS byte 1).
inline sata::Fis h2d(uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0,
                     uint8_t device = 0x40, uint8_t pmp = 0) {
    sata::Taskfile tf;
    tf.command = op;
    tf.lba = lba;
    tf.count = count;
    tf.feature = uint8_t(feature);
    tf.feature_hi = uint8_t(feature >> 8);
    tf.device = device;
    return sata::make_reg_h2d(tf, true, pmp);
}

// A pattern that differs per seed (and per mul) and per 512-byte sector.
inline void fill(Buf &b, uint8_t seed, unsigned mul = 13) {
    for (uint32_t i = 0; i < b.len; ++i)
        b.cpu[i] = uint8_t(i * mul + seed + (i >> 9));
}
// How many of the n bytes differ.
inline size_t diff(const uint8_t *a, const uint8_t *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; ++i)
        d += a[i] != b[i];
    return d;
}
inline size_t diff(const Buf &a, const Buf &b) { return diff(a.cpu, b.cpu, a.len); }

// A media error on commands of kind `op` touching LBAs [first, last]; count: commands failed
// per firing, 0 = every match.
inline fault::MediaParams media_error(fault::MediaParams::Error e, fault::CommandMatch::Op op,
                                      uint64_t first, uint64_t last, unsigned count = 0) {
    fault::MediaParams p;
    p.error = e;
    p.match.op = op;
    p.match.lba_first = first;
    p.match.lba_last = last;
    p.count = count;
    return p;
}

} // namespace satasim::test::hba_common
