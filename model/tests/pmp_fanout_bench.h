// Three slow SSDs behind a port multiplier on host port 0 of an HBA model, for the FIS-based
// switching tests: host link -> PMP -> one fan-out link and drive per PMP port. The drives
// have a long flat command latency, so two commands that overlap finish in about one
// latency and two that do not in two.
#pragma once

#include "model/device/sata_disk.h"
#include "model/link/sata_link.h"
#include "model/pmp/port_multiplier.h"

namespace satasim::test {

constexpr double kFanoutLatencyUs = 2000;

inline link::SataLink::Config fanout_link_cfg(link::Gen host, link::Gen dev) {
    link::SataLink::Config c;
    c.host_max = host;
    c.device_max = dev;
    return c;
}

inline device::DiskConfig fanout_disk_cfg(const std::string &serial) {
    device::DiskConfig c;
    c.serial = serial;
    c.sectors = 1u << 20;
    c.max_gen = link::Gen::Gen2;
    c.timing.ssd = true;
    c.timing.flat_latency_us = kFanoutLatencyUs;
    return c;
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
        link.attach(hba.port_endpoint(0), &pm);
        hba.connect_port(0, &link);
        pm.connect_host(&link);
        link::SataLink *l[] = {&l0, &l1, &l2};
        device::SataDisk *d[] = {&d0, &d1, &d2};
        for (unsigned p = 0; p < 3; ++p) {
            l[p]->attach(pm.port_endpoint(p), d[p]);
            pm.connect_port(p, l[p]);
            d[p]->connect(l[p]);
        }
    }
};

} // namespace satasim::test
