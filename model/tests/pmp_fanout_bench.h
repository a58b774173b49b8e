// Port multiplier benches and driver steps the PMP model tests share: the HBA-port-0 ->
// PMP -> fan-out link -> drive wiring, libata's fan-out link reset through PSCR, and three
// slow SSDs behind a port multiplier for the FIS-based switching tests (PmpFanout: host
// link -> PMP -> one fan-out link and drive per PMP port). Those drives have a long flat
// command latency, so two commands that overlap finish in about one latency and two that
// do not in two.
#pragma once

#include <string>

#include "model/bus/pci_function.h"
#include "model/device/sata_disk.h"
#include "model/link/sata_link.h"
#include "model/pmp/port_multiplier.h"
#include "model/tests/hba_test_common.h"

namespace satasim::test {

constexpr double kFanoutLatencyUs = 2000;

// device_present = false: a fan-out port with an empty cable.
inline link::SataLink::Config fanout_link_cfg(link::Gen host, link::Gen dev,
                                              bool device_present = true) {
    link::SataLink::Config c;
    c.host_max = host;
    c.device_max = dev;
    c.device_present = device_present;
    return c;
}

// A 2^20-sector SSD behind a PMP, named by its serial.
inline device::DiskConfig fanout_ssd_cfg(const std::string &serial, link::Gen max_gen) {
    device::DiskConfig c = hba_common::ssd_disk_cfg();
    c.serial = serial;
    c.max_gen = max_gen;
    return c;
}

inline device::DiskConfig fanout_disk_cfg(const std::string &serial) {
    device::DiskConfig c = fanout_ssd_cfg(serial, link::Gen::Gen2);
    c.timing.flat_latency_us = kFanoutLatencyUs;
    return c;
}

// `hba` (AhciHba or Sil24Hba) port 0 -> `link` -> the PMP's host port.
template <class Hba> void connect_pmp(Hba &hba, link::SataLink &link, pmp::PortMultiplier &pm) {
    bus::pci_enable_for_test(hba.pci()); // the driver's enable: decode and bus mastering
    link.attach(hba.port_endpoint(0), &pm);
    hba.connect_port(0, &link);
    pm.connect_host(&link);
}

// PMP fan-out port p -> `l` -> `d`.
inline void connect_fanout_port(pmp::PortMultiplier &pm, unsigned p, link::SataLink &l,
                                device::SataDisk &d) {
    l.attach(pm.port_endpoint(p), &d);
    pm.connect_port(p, &l);
    d.connect(&l);
}

// libata's fan-out link reset: SControl DET=1, then DET=0, poll SStatus until the PHY is up,
// clear SError; the SStatus it ended with. pm_write / pm_read are the HBA driver's PSCR
// accessors (bool pm_write(port, reg, val), bool pm_read(port, reg, uint32_t &val)).
template <class PmWrite, class PmRead>
uint32_t fanout_link_reset(unsigned port, PmWrite pm_write, PmRead pm_read) {
    EXPECT_TRUE(pm_write(port, pmp::pscr::SCONTROL, 0x301));
    sc_core::wait(1000, sc_core::SC_US);
    EXPECT_TRUE(pm_write(port, pmp::pscr::SCONTROL, 0x300));
    uint32_t ss = 0;
    EXPECT_TRUE(hba_common::wait_until(
        [&] { return pm_read(port, pmp::pscr::SSTATUS, ss) && (ss & 0xF) == 3; }, 100000, 100));
    EXPECT_TRUE(pm_write(port, pmp::pscr::SERROR, 0xFFFFFFFF));
    return ss;
}

struct PmpFanout {
    link::SataLink link;
    pmp::PortMultiplier pm;
    link::SataLink l0, l1, l2;
    device::SataDisk d0, d1, d2;

    // `hba` has port_endpoint(0) and connect_port(0, link); drives are named <serial>0..2.
    template <class Hba>
    PmpFanout(Hba &hba, link::Gen host_gen, const pmp::PmpConfig &pc, const std::string &serial)
        : link("link0", fanout_link_cfg(host_gen, link::Gen::Gen2)), pm("pmp0", pc, nullptr, 0),
          l0("link0_0", fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen2)),
          l1("link0_1", fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen2)),
          l2("link0_2", fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen2)),
          d0("disk0_0", fanout_disk_cfg(serial + "0")), d1("disk0_1", fanout_disk_cfg(serial + "1")),
          d2("disk0_2", fanout_disk_cfg(serial + "2")) {
        connect_pmp(hba, link, pm);
        connect_fanout_port(pm, 0, l0, d0);
        connect_fanout_port(pm, 1, l1, d1);
        connect_fanout_port(pm, 2, l2, d2);
    }
};

} // namespace satasim::test
