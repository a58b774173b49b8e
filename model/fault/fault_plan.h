// A fault schedule: what to break, where, and when. Plain data shared by the scenario
// parser (harness, which fills it from a scenario's `faults:` list) and the fault injector
// (model/fault/fault_injector.h, which arms the blocks' fault hooks when a trigger fires,
// each kind as its row in model/fault/fault_kinds.h says; the kinds' plain facts are
// model/fault/fault_kind_spec.h).
// Times are simulated nanoseconds; LBAs and counts are 512-byte sectors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/bus/bus_fault.h"
#include "model/device/fault_params.h"
#include "model/link/symbol_error.h"
#include "model/sata/fis.h"

namespace satasim::fault {

enum class Kind : uint8_t {
    Crc,          // corrupt dwords of FISes on the wire (link DwordFault): the receiver sees a bad CRC
    LostIrq,      // the controller finishes commands but does not raise their completion interrupt
    Unplug,       // the device vanishes: cable pulled (PhyRdy lost, in-flight work lost)
    Plug,         // a device appears on the port (same drive, or a new identity)
    MediaError,   // the drive fails matching commands with a device error (UNC, IDNF, write fault, ABRT)
    Hang,         // the drive stays BSY and answers nothing until a COMRESET
    IdentifyFail, // IDENTIFY DEVICE after a reset is aborted (the drive fails to come back)
    PhyFlap,      // PhyRdy drops and comes back, `repeat` times, `every` apart
    LinkDegrade,  // from the trigger on, the link only comes up at `gen` or slower
    PmpHang,      // the port multiplier's control port stops answering (until a COMRESET)
    Slow,         // the drive answers matching commands late (then completes them)
    // Taskfile (SFF) controllers only: the channel's register interface misbehaves.
    SpuriousIrq,  // INTRQ asserted with nothing pending (cleared by the next Status read)
    IrqStorm,     // the controller's interrupt output stuck asserted, nothing pending (screaming line)
    DrqStuck,     // after the next PIO block Status keeps DRQ (until SRST or COMRESET)
    BsyStuck,     // Status reads BSY whatever the device did (until SRST or COMRESET)
    BmdmaError,   // the next bus-master transfer fails as on a PCI master abort (Error bit)
    // AHCI controllers only (the SystemC model and a DUT behind the RTL shell):
    HostBusError, // the host bus answers the port's next matching DMA with an error (PxIS.HBFS)
    // Any controller:
    Cominit,      // COMINIT bursts on the wire, OOB never completes (a drive stuck restarting, a
                  // backplane glitch): the host PHY sees a device exchange, no PhyRdy change
    PowerLoss,    // the drive's power drops for `off`: its write cache's unwritten data is gone,
                  // its electronics restart (PhyRdy lost, COMINIT and the signature after)
    BadFis,       // the drive's firmware sends an unsolicited or malformed FIS: a type the host
                  // does not know, a Register D2H a dword too long, a D2H with the I bit for no
                  // command, a Set Device Bits FIS with bits for tags not outstanding
    LpmFail,      // the drive's interface power management is broken: its PHY never answers a
                  // wake-up COMWAKE out of Partial/Slumber, or it PMNAKs every request
    PmpRegAbort,  // the port multiplier's control port aborts READ PORT MULTIPLIER of one fan-out
                  // port's PSCR from then on (until a power cycle): a broken register of one unit
    // ATAPI drives only (model/atapi):
    CheckCondition, // the drive ends a PACKET command in CHECK CONDITION with the given sense
    // AHCI controllers only (the SystemC model; a DUT's internals are its own):
    HbaError,     // the port's engine fails inside at its next DMA access: an internal error
                  // (SError.E, PxIS.IFS), a host bus data error (HBDS) or fatal error (HBFS);
                  // raised as the spec says, not at all, or read back as all ones
    // Any controller:
    LineNoise,    // noise on the wire outside any frame, no PHY event: the host PHY latches what
                  // it saw in SError (10b/8b decode errors, its receiver's internal error, ...)
};
const char *to_string(Kind k); // the scenario's name of a kind (fault_kind_spec.h: the table)

// Which commands a trigger or a media error matches (the drive's own type: the disk
// model matches media errors with it).
using device::CommandMatch;
const char *to_string(CommandMatch::Op op); // the scenario's name of an op class

// When a fault fires. Exactly one of at_ns / after_cmds / on_cmd is the primary trigger.
// Times count from the start of the workload (the end of the boot probe) unless
// `from_power_on` is set.
struct Trigger {
    std::optional<uint64_t> at_ns;          // simulated time
    std::optional<uint64_t> after_cmds;     // fire on the Nth command the drive receives (1 = first)
    std::optional<CommandMatch> on_cmd;     // fire on the next command matching this
    bool from_power_on = false;
    unsigned repeat = 1;                    // how many times it fires (0 = for ever)
    uint64_t every_ns = 0;                  // time triggers: gap between firings
    uint64_t every_cmds = 0;                // command triggers: commands between firings
};

// What a Crc fault corrupts: the nth..(nth+burst-1) matching FISes from the trigger on.
struct CrcParams {
    bool from_host = false;                 // direction: host->device (true) or device->host
    std::optional<sata::FisType> fis;       // FIS type; unset = Data
    unsigned dword = 1;                     // FIS dword hit (0 = header; FIS length = CRC)
    uint32_t xor_mask = 0x00000001;
    unsigned burst = 1;                     // consecutive matching FISes corrupted per firing
    link::SymbolError symbol = link::SymbolError::None; // what the receiver's 8b/10b decoder flags
};

// A device error on commands matching `match` (Kind::MediaError), and a drive appearing
// on the port (Kind::Plug): the parameters of the drive's fault hooks.
using device::MediaParams;
using device::PlugParams;
using device::SlowParams;
using device::to_string; // the scenario's name of a media error

struct LostIrqParams {
    unsigned count = 1;                     // completion interrupts swallowed per firing
    uint64_t window_ns = 0;                 // or: every completion interrupt for this long
};

// Which of the port's DMA accesses a host bus error hits (Kind::HostBusError), and how the
// bus answers it.
using bus::BusAccess;
using bus::BusErrorParams;
using bus::to_string; // the scenario's name of an access class

struct FlapParams {
    uint64_t down_ns = 1000000;             // how long PhyRdy stays down each time
};

// Line noise the host PHY picks up (SataLink::line_noise): with an unplug (a bouncing
// connector), what a cominit fault sends, and what a failed wake-up leaves (lpm_fail).
// `noise: [cominit, decode, internal, phy, comwake]`.
struct NoiseParams {
    bool cominit = false;  // COMINIT bursts: SError.DIAG.X (AHCI PxIS.PCS)
    bool decode = false;   // 10b/8b decode errors outside any frame: DIAG.B
    bool internal = false; // the HBA's receiver loses the signal mid-primitive: ERR.E
    bool phy = false;      // the host PHY's internal error and the data it spoiled: DIAG.I, ERR.T
    bool comwake = false;  // COMWAKE-like bursts (a bouncing connector): DIAG.W
};

struct Fault {
    int line = 0;                           // where the entry starts in the scenario file
    std::string id;                         // "fault<index>" unless named; in every trace record
    Kind kind = Kind::Crc;
    unsigned port = 0;                      // host port
    std::optional<unsigned> pmp_port;       // the disk behind the port multiplier on `port`
    unsigned devno = 0;                     // the channel's device 1 (slave) on a taskfile port
    Trigger trigger;
    CrcParams crc;
    MediaParams media;
    LostIrqParams lost_irq;
    PlugParams plug;
    FlapParams flap;
    SlowParams slow;
    BusErrorParams bus;
    NoiseParams noise;                      // Unplug: what the pull adds; Cominit: cominit set
    unsigned gen = 1;                       // LinkDegrade: fastest generation the link reaches
    unsigned identify_failures = 1;         // IdentifyFail: IDENTIFY commands aborted per firing
    unsigned hang_comresets = 0;            // Hang: COMRESETs the hung firmware sits through
    // The kind's typed parameters given in the scenario (fault_kind_spec.h: ParamSpec; read
    // them with param(), which falls back to the default).
    std::vector<std::pair<std::string, uint64_t>> params;
    // Not the models': the harness's verdict. The run fails unless the fault fired at least
    // this often; 0 (no `min_fired` key) means its full count (`repeat`, or once when it
    // repeats for ever).
    unsigned min_fired = 0;
};

using FaultPlan = std::vector<Fault>;

} // namespace satasim::fault
