// The simulated machine of one scenario: host memory, the controller's interrupt line,
// the host controller (AHCI HBA, SiI3124, SiI3112 or ICH/PIIX in IDE mode, by controller.type), and for every configured
// disk one SataLink and one SataDisk on its port.
// Ports without a configured disk get no link (an empty connector).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "model/ahci/ahci_hba.h"
#include "model/sil24/sil24_hba.h"
#include "model/sil3112/sil3112_hba.h"
#include "model/piix/piix_ide.h"
#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/pci_window.h"
#include "model/common/trace.h"
#include "model/atapi/atapi_device.h"
#include "model/device/sata_disk.h"
#include "model/fault/fault_injector.h"
#include "model/link/sata_link.h"
#include "model/pmp/port_multiplier.h"
#include "scenario/scenario.h"

namespace satasim::harness {

// One controller of the machine: its interrupt pin (INTx output), its model, register
// window and port hookup. Its functions take the controller's own port numbers.
struct ControllerHookup {
    unsigned first_port = 0; // its port 0 as a host-wide port (Scenario::controllers)
    // The controller's interrupt condition (what the model drives). With a PCI function (pci
    // below) it feeds the function's interrupt logic, whose INTx output is `pin`; without one
    // (the RTL backend) the condition is the line.
    std::unique_ptr<bus::IrqLine> irq;
    // The model's PCI function (its configuration space; null on a backend without one), the
    // register window as the host reaches it through the function's decode (pci_window.h), and
    // the INTx pin the platform's interrupt line follows.
    bus::PciFunction *pci = nullptr;
    std::unique_ptr<bus::PciWindow> window;
    std::unique_ptr<bus::IrqLine> pin;
    bus::IrqLine &host_line() { return pin ? *pin : *irq; }
    // The controller model, whichever type it is: its register window (what the stack's
    // MMIO goes to), its ports' host-side link endpoints and link hookup.
    std::unique_ptr<sc_core::sc_module> hba_module;
    bus::MmioTarget *mmio = nullptr;
    std::function<link::LinkEndpoint *(unsigned port)> port_endpoint;
    std::function<void(unsigned port, link::SataLink *)> connect_port;
    // The controller's fault hooks, whichever type it is.
    std::function<void(unsigned port, unsigned count, uint64_t window_ns, const std::string &id)> lost_irq;
    std::function<void()> clear_hba_faults;
    // An AHCI controller's host bus error (null on other controllers).
    std::function<void(unsigned port, const bus::BusErrorParams &bus, const std::string &id)> host_bus_error;
    // The AHCI model's port engine failing inside (hba_error; null on other controllers).
    std::function<void(unsigned port, unsigned error, unsigned irq, const std::string &id)> hba_error;
    // A taskfile controller's channel of a port (null on other controllers).
    std::function<sff::SffChannel *(unsigned port)> sff_channel;
};

// The machine. It is its first controller's hookup too (what a backend with one controller
// reads); the further controllers of controllers: are in `more`, in PCI order. Every port
// below is host-wide.
struct Topology : ControllerHookup {
    std::unique_ptr<bus::HostMemory> mem;
    std::vector<std::unique_ptr<ControllerHookup>> more;
    size_t n_controllers() const { return 1 + more.size(); }
    ControllerHookup &hba(size_t i) { return i == 0 ? static_cast<ControllerHookup &>(*this) : *more[i - 1]; }
    const ControllerHookup &hba(size_t i) const {
        return i == 0 ? static_cast<const ControllerHookup &>(*this) : *more[i - 1];
    }
    std::map<unsigned, std::unique_ptr<link::SataLink>> links; // by port
    std::map<unsigned, std::unique_ptr<device::SataDisk>> disks; // by port
    std::map<unsigned, std::unique_ptr<atapi::AtapiDevice>> atapis; // ATAPI drives, by port
    // Port multipliers (pmps[]) by host port: links[port] is then the PMP's host link;
    // the disks behind it and their links are keyed by (port, pmp_port).
    std::map<unsigned, std::unique_ptr<pmp::PortMultiplier>> pmps;
    std::map<std::pair<unsigned, unsigned>, std::unique_ptr<link::SataLink>> fanout_links;
    std::map<std::pair<unsigned, unsigned>, std::unique_ptr<device::SataDisk>> fanout_disks;
    // Device 1 (the slave) of a taskfile channel with master/slave emulation, by host port
    // (the channel); its SATA port on the controller is sata_port() of its address.
    std::map<unsigned, std::unique_ptr<link::SataLink>> slave_links;
    std::map<unsigned, std::unique_ptr<device::SataDisk>> slave_disks;
    // The disk at an address, and its own link (a fan-out link behind a PMP); null if none.
    device::SataDisk *disk_at(const DevAddr &a) const;
    link::SataLink *link_at(const DevAddr &a) const;
    std::vector<std::unique_ptr<ModelTrace>> trace_names; // "link<p>.<f>" / "disk<p>.<f>"
    // The scenario's faults (null without any), bound to every port that has a disk.
    std::unique_ptr<fault::FaultInjector> faults;
};

// Elaborates the models (call before sc_start). Component names: controller_name(),
// "link<port>", "disk<port>"; with a port multiplier on the port: "pmp<port>" and, behind it,
// "link<port>.<pmp_port>", "disk<port>.<pmp_port>" (trace names). Each disk's seed is derived
// from the scenario seed and its name.
// make_controller (other backends): builds the controller into the topology instead of
// a SystemC model (its MMIO target, port hookup, fault hooks and hba_module).
using ControllerFactory = std::function<void(const Scenario &sc, Topology &t, ModelTrace *trace)>; // one controller
std::unique_ptr<Topology> build_topology(const Scenario &sc, ModelTrace *trace,
                                         const ControllerFactory &make_controller = {});

// The controller's SATA port of a disk on a host port: the port itself, or for device 1 of a
// channel with master/slave emulation the port its slave position maps (ICH6 MAP 00b: the
// primary slave is P2, the secondary slave P3; piix_ide.h).
unsigned sata_port(const DevAddr &a);

struct BackendStats;
// After the run: how often each fault fired, each link's mode and dword cycles.
void report_topology(const Topology &t, const Scenario &sc, BackendStats &report);

// "ahci0", "sil24_0" or "sil3112_0" (a type ending in a digit gets an underscore); with
// several controllers the second of a type is "ahci1", "sil24_1" (controllers[index]).
std::string controller_name(const ControllerSpec &c);
std::string controller_name(const Scenario &sc, size_t index);

link::Gen to_gen(unsigned gen);
link::SataLink::Mode link_mode(const Scenario &sc, const DeviceSpec &d);
device::NcqOrder to_ncq_order(NcqOrderSpec o);
device::DiskConfig disk_config(const Scenario &sc, const DeviceSpec &d);

} // namespace satasim::harness
