// The parameters of the drive's fault hooks (SataDisk::inject_media_error,
// SataDisk::replace_identity): plain data the drive owns, so the disk model does not
// depend on the fault engine. model/fault/ builds its schedule on these types (fault_plan.h
// names them fault::CommandMatch, fault::MediaParams, fault::PlugParams).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace satasim::device {

// Which commands a fault (or a fault trigger) matches. Unset fields match anything.
struct CommandMatch {
    enum class Op : uint8_t { Any, Read, Write, Flush, Identify, Ncq, NonNcq } op = Op::Any;
    std::optional<uint8_t> opcode;         // exact ATA command opcode
    std::optional<uint64_t> lba_first;     // the command's range [lba, lba+count) must touch
    std::optional<uint64_t> lba_last;      // [lba_first, lba_last] (inclusive)
};

// A device error on commands matching `match`.
struct MediaParams {
    enum class Error : uint8_t { Unc, Idnf, WriteFault, Abrt } error = Error::Unc;
    CommandMatch match;
    unsigned count = 0;                     // commands failed per firing; 0 = every match (persistent)
    bool cleared_by_write = true;           // UNC: a write over the bad range remaps it
};

// The scenario's name of a media error; the drive names its injected errors the same way
// in its trace.
inline const char *to_string(MediaParams::Error e) {
    switch (e) {
    case MediaParams::Error::Unc: return "unc";
    case MediaParams::Error::Idnf: return "idnf";
    case MediaParams::Error::WriteFault: return "write_fault";
    case MediaParams::Error::Abrt: return "abrt";
    }
    return "?";
}

// A drive that answers late (Kind::Slow): matching read/write commands start their media
// access `delay_ns` later (a drive retrying a weak sector, a firmware stall), then complete
// normally. Queued commands behind it wait, as on a drive that serves its queue in order.
struct SlowParams {
    CommandMatch match;
    uint64_t delay_ns = 0;
    unsigned count = 0;      // commands delayed per firing; 0 = every match
    uint64_t window_ns = 0;  // every match for this long after the firing; 0 = no end
};

// What a drive with a firmware bug sends (Kind::BadFis), in the order of the fault's `fis`
// names: a FIS of a type the host does not know, its next Register D2H FIS one dword too
// long, a Register D2H FIS with the I bit for no command, a Set Device Bits FIS with the I
// bit and SActive bits for tags not outstanding in the drive.
enum class BadFis : uint8_t { UnknownType, LongD2h, UnsolicitedD2h, SpuriousSdb };

// The lpm_fail fault: the drive's PHY never answers a wake-up COMWAKE, or its link layer
// answers every power-management request with PMNAK.
enum class LpmFail : uint8_t { NoComwake, Pmnak };

// A drive appearing on the port. Unset fields keep the drive's identity.
struct PlugParams {
    std::optional<std::string> model, serial;
    std::optional<uint64_t> capacity;       // sectors
    bool blank_media = false;               // a different drive: new media (never written: reads its own blank pattern)
};

} // namespace satasim::device
