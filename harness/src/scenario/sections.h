// The sections of a scenario file, one reader each (section_*.cpp), on the toolkit of
// yaml_walk.h. scenario_parser.cpp calls them in the order one depends on the next: a
// section may read what the sections before it put into the Scenario (the controller's
// ports, the port multipliers, the disks).
#pragma once

#include <string>

#include "model/fault/fault_kind_spec.h"
#include "model/fault/fault_plan.h"
#include "scenario/scenario.h"
#include "scenario/yaml_walk.h"

namespace satasim::harness {

// controller, host, link (section_controller.cpp)
void parse_controller(const Parser &p, const Field &f, ControllerSpec &c, bool in_list = false);
// controllers: [...]: several controllers in one host, in PCI order (Scenario::controllers).
void parse_controllers(const Parser &p, const Field &f, Scenario &sc);
void parse_host(const Parser &p, const Field &f, HostSpec &h);
LinkModeSpec parse_link(const Parser &p, const Field &f); // top level, or a device's override

// pmps[], devices[] and the address of a disk (section_devices.cpp)
PmpSpec parse_pmp(const Parser &p, const Field &f, const Scenario &sc);
// One devices[] entry, checked against the topology (pmps before it).
DeviceSpec parse_placed_device(const Parser &p, const Field &df, const Scenario &sc);
// The refusal of a host port or fan-out port that the topology does not have.
std::string no_such_port(const Scenario &sc, unsigned port, unsigned ctl = 0);
// controllers[]: the controller an entry names (its `controller` key, default 0), refused
// when the scenario has no such controller.
unsigned parse_controller_ref(const Parser &p, const MapView &m, const Scenario &sc);
// The host port an entry names: `pf` holds the port on its controller (`controller` in m),
// checked against that controller; the result is host-wide (Scenario::controllers).
unsigned parse_host_port(const Parser &p, const MapView &m, const Field &pf, const Scenario &sc);
std::string no_such_fanout_port(const PmpSpec &pm, unsigned fanout);
// The disk a workload, fault or expectation names: the host port (`port_key`) and, on a
// port with a port multiplier, the fan-out port (`pmp_port`). Both must exist; whether a
// disk is configured there is the caller's question.
unsigned parse_devno(const Parser &p, const Field &f, const Scenario &sc, unsigned port);
DevAddr parse_dev_addr(const Parser &p, const MapView &m, const char *port_key, const Scenario &sc,
                       const std::string &required_note);
// The configured disk at `a`, or a failure at the address's port key naming where the disks are.
const DeviceSpec &addressed_disk(const Parser &p, const MapView &m, const char *port_key, const DevAddr &a,
                                 const Scenario &sc, const std::string &extra = "");

// workload[] (section_workload.cpp)
WorkloadSpec parse_workload(const Parser &p, const Field &f, const Scenario &sc);

// faults[] (section_faults.cpp); also the entry of an inject step. index: its place in
// Scenario::faults (the default id).
fault::Fault parse_fault(const Parser &p, const Field &f, const Scenario &sc, size_t index);
// What the reader adds to a fault kind's plain facts (fault::kind_specs(): name, keys, what
// its address names, trigger rules): the reader of its own keys (null: it has none) and,
// for a kind bound to a disk, a note for the message when no disk is configured there.
struct FaultKindRow {
    fault::Kind kind;
    void (*parse)(const Parser &p, const MapView &m, fault::Fault &x, uint64_t cap);
    const char *no_disk_note = "";
};
// One row per fault::Kind, in the order of fault::kind_specs().
const std::vector<FaultKindRow> &fault_kind_rows();

// waveform (section_waveform.cpp)
void parse_waveform(const Parser &p, const Field &f, Scenario &sc);

// steps (section_steps.cpp): the directed steps instead of the stack; m is the top level.
void parse_directed_steps(const Parser &p, const MapView &m, const Field &v, Scenario &sc);
// With steps, nothing probes: expectations about found devices and I/O cannot apply.
void check_directed_expect(const Parser &p, const MapView &m);

// oracles (section_oracles.cpp)
void parse_oracles(const Parser &p, const Field &f, Scenario &sc);

// expect (section_expect.cpp)
void parse_expect(const Parser &p, const Field &f, Scenario &sc);

// A name usable as a folder or an id: letters, digits, '-', '_', '.' (scenario_parser.cpp).
bool valid_name(const std::string &n);
// Why a scenario may not have the name `n` (a file the runner or its tools write into the
// output folder), or nullptr.
const char *reserved_name(const std::string &n);
// "scenarios/x.yaml" -> "x"
std::string file_stem(const std::string &path);

} // namespace satasim::harness
