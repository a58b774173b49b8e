#include "model/fault/fault_kind_spec.h"

#include <cstdio>
#include <initializer_list>
#include <utility>

namespace satasim::fault {

// Plain data beside the kind table: the scenario parser names ops without the injector.
const char *to_string(CommandMatch::Op op) {
    switch (op) {
    case CommandMatch::Op::Any: return "any";
    case CommandMatch::Op::Read: return "read";
    case CommandMatch::Op::Write: return "write";
    case CommandMatch::Op::Flush: return "flush";
    case CommandMatch::Op::Identify: return "identify";
    case CommandMatch::Op::Ncq: return "ncq";
    case CommandMatch::Op::NonNcq: return "non_ncq";
    }
    return "?";
}

namespace {

// A typed parameter, entry by entry (ParamSpec's fields, named).
struct P : ParamSpec {
    P(const char *key, ParamType type, const char *doc) : ParamSpec{key, type, {}, 0, 0, 0, doc, Needs::Any} {}
    P &names(std::vector<const char *> v) { values = std::move(v); return *this; }
    P &range(uint64_t lo, uint64_t hi) { min = lo, max = hi; return *this; }
    P &dflt(uint64_t v) { def = v; return *this; }
    P &bind(uint64_t (*g)(const Fault &), void (*s)(Fault &, uint64_t)) { get = g, set = s; return *this; }
    P &traced(const char *field) { trace_field = field; return *this; }
    P &always() { show = Show::Always; return *this; }
    P &in_hex() { hex = true; return *this; }
    P &bytes(FuzzField f) { fuzz = f; return *this; }
    P &bytes_since(uint8_t version, FuzzField f) { fuzz = f, fuzz.since = version; return *this; }
    P &unset() { unset_default = true; return *this; }
    P &needed(const char *why) { required = why; return *this; }
    P &in_yaml(Show s) { yaml = s; return *this; }
    P &not_with(const char *key) { excludes = key; return *this; }
    P &bindv(ParamValue (*g)(const Fault &), void (*s)(Fault &, const ParamValue &)) { getv = g, setv = s; return *this; }
    P &longest(size_t n) { max_len = n; return *this; }
    P &ops_only(std::initializer_list<CommandMatch::Op> ops, const char *why) {
        for (CommandMatch::Op o : ops)
            only |= uint64_t(1) << unsigned(o);
        only_why = why;
        return *this;
    }
    P &needed_at(const char *why) { required_at = why; return *this; }
    P &else_command() { from_command = true; return *this; }
    P &warn_if_wider() { warn_wider = true; return *this; }
    P &warn_with(const char *other_key, uint64_t other_v, uint64_t own_v, const char *msg) {
        warn = {other_key, other_v, own_v, msg};
        return *this;
    }
    P &always_set(uint64_t bits) { forced = bits; return *this; }
    P &yaml_while_zero(const char *key) { yaml_unless = key; return *this; }
    P &untraced() { show = Show::Never; return *this; }
};

using Op = CommandMatch::Op;

using PT = ParamType;
constexpr uint64_t kUs = 1000, kS = 1000000000ull;

// crc's FIS types: index 0 is "not given" (the model corrupts Data FISes then), 1.. these
// (the fuzz format's order).
const sata::FisType kCrcFis[7] = {sata::FisType::Data,          sata::FisType::RegH2D,   sata::FisType::RegD2H,
                                  sata::FisType::SetDeviceBits, sata::FisType::DmaSetup, sata::FisType::PioSetup,
                                  sata::FisType::DmaActivate};

std::vector<ParamSpec> crc_params() {
    return {
        P("dir", PT::Enum, "the direction of the corrupted FISes: device to host (d2h) or host to device (h2d)")
            .names({"d2h", "h2d"}).always()
            .bind([](const Fault &f) -> uint64_t { return f.crc.from_host; },
                  [](Fault &f, uint64_t v) { f.crc.from_host = v != 0; })
            .bytes({0, 1, 0, 1}),
        P("fis", PT::Enum, "the FIS type corrupted (data when not given)")
            .names({"data", "data", "reg_h2d", "reg_d2h", "sdb", "dma_setup", "pio_setup", "dma_activate"}).unset()
            .always() // the record names the type the model corrupts (data when not given)
            .bind([](const Fault &f) -> uint64_t {
                      for (uint64_t i = 0; f.crc.fis && i < 7; ++i)
                          if (kCrcFis[i] == *f.crc.fis)
                              return i + 1;
                      return 0;
                  },
                  [](Fault &f, uint64_t v) {
                      f.crc.fis = v ? std::optional<sata::FisType>(kCrcFis[(v - 1) % 7]) : std::nullopt;
                  })
            .bytes({0, 1, 1, 3}),
        P("dword", PT::Uint, "the FIS dword hit (0: the header; the FIS's length: its CRC)")
            .range(0, 2049).dflt(1).always()
            .bind([](const Fault &f) -> uint64_t { return f.crc.dword; }, [](Fault &f, uint64_t v) { f.crc.dword = unsigned(v); })
            .bytes({1, 2, 0, 0, 2050}),
        P("mask", PT::Uint, "the bits flipped in that dword").range(1, 0xffffffffu).dflt(1).always().in_hex()
            .bind([](const Fault &f) -> uint64_t { return f.crc.xor_mask; },
                  [](Fault &f, uint64_t v) { f.crc.xor_mask = uint32_t(v); })
            .bytes({4, 4, 0, 0, 0, 0, 1, true}),
        P("burst", PT::Uint, "consecutive matching FISes corrupted per firing").range(1, 1000).dflt(1).always()
            .bind([](const Fault &f) -> uint64_t { return f.crc.burst; }, [](Fault &f, uint64_t v) { f.crc.burst = unsigned(v); })
            .bytes({3, 1, 0, 0, 16, 1}),
        P("symbol", PT::Enum, "what the receiver's 8b/10b decoder flags too: nothing, a code error or a disparity error")
            .names({"none", "code", "disparity"})
            .bind([](const Fault &f) -> uint64_t { return uint64_t(f.crc.symbol); },
                  [](Fault &f, uint64_t v) { f.crc.symbol = link::SymbolError(v); })
            .bytes({0, 1, 4, 2, 3}),
    };
}

// A match's LBA range as a ParamValue and back (media_error's and slow's `lba`).
ParamValue range_of(const CommandMatch &m) {
    ParamValue v;
    v.given = m.lba_first.has_value();
    v.n = m.lba_first.value_or(0);
    v.last = m.lba_last.value_or(v.n);
    return v;
}
void set_range(CommandMatch &m, const ParamValue &v) {
    m.lba_first = v.given ? std::optional<uint64_t>(v.n) : std::nullopt;
    m.lba_last = v.given ? std::optional<uint64_t>(v.last) : std::nullopt;
}
ParamValue text_of(const std::optional<std::string> &s) {
    ParamValue v;
    v.given = s.has_value();
    v.text = s.value_or("");
    return v;
}

// `noise: [cominit, decode, internal, phy, comwake]`: what the host PHY picks up from the wire with an
// unplug, a flap or a cominit fault (NoiseParams; bit i: the i-th name).
// The record shows the first three as booleans when any is set (an unplug or a flap without
// noise traces as it did before there was noise), `phy` and `comwake` (added later) only when
// set.
P noise(const char *doc) {
    P p = P("noise", PT::Flags, doc);
    p.flags_shown_when_set = 3;
    p.names({"cominit", "decode", "internal", "phy", "comwake"}).in_yaml(Show::NonZero).bind([](const Fault &f) -> uint64_t {
                  return uint64_t(f.noise.cominit) | uint64_t(f.noise.decode) << 1 | uint64_t(f.noise.internal) << 2 |
                         uint64_t(f.noise.phy) << 3 | uint64_t(f.noise.comwake) << 4;
              },
              [](Fault &f, uint64_t v) {
                  f.noise = {(v & 1) != 0, (v & 2) != 0, (v & 4) != 0, (v & 8) != 0, (v & 16) != 0};
              });
    p.show = Show::NonZero;
    return p;
}

std::vector<ParamSpec> plug_params() {
    return {
        P("model", PT::String, "the new drive's IDENTIFY model string").longest(40)
            .bindv([](const Fault &f) { return text_of(f.plug.model); },
                   [](Fault &f, const ParamValue &v) { f.plug.model = v.given ? std::optional(v.text) : std::nullopt; })
            .bytes({0, 0, 0, 0, 0, 0, 1, false, 0, 4, true, {}, false, "SATASIM FUZZ PLUG"}),
        P("serial", PT::String, "the new drive's IDENTIFY serial number").longest(20)
            .bindv([](const Fault &f) { return text_of(f.plug.serial); },
                   [](Fault &f, const ParamValue &v) { f.plug.serial = v.given ? std::optional(v.text) : std::nullopt; })
            .bytes({0, 0, 0, 0, 0, 0, 1, false, 0, 2, true, {}, false, "FUZZPLUG", true}),
        P("capacity", PT::Sectors, "the new drive's capacity (sectors, or a size)").range(1, (1ull << 48) - 1)
            .in_yaml(Show::NonZero).unset()
            .bind([](const Fault &f) -> uint64_t { return f.plug.capacity.value_or(0); },
                  [](Fault &f, uint64_t v) { f.plug.capacity = v ? std::optional<uint64_t>(v) : std::nullopt; })
            .bytes({1, 4, 0, 0, 0, 1, 1, false, 0, 8, true}),
        P("blank_media", PT::Bool, "a different drive: new media, never written (reads its blank pattern)").always()
            .bind([](const Fault &f) -> uint64_t { return f.plug.blank_media; },
                  [](Fault &f, uint64_t v) { f.plug.blank_media = v != 0; })
            .bytes({0, 1, 0, 1}),
    };
}

std::vector<ParamSpec> media_error_params() {
    return {
        P("error", PT::Enum, "the device error: uncorrectable (unc), ID not found (idnf), write fault, aborted")
            .names({"unc", "idnf", "write_fault", "abrt"}).always()
            .bind([](const Fault &f) -> uint64_t { return uint64_t(f.media.error); },
                  [](Fault &f, uint64_t v) { f.media.error = MediaParams::Error(v); })
            .bytes({0, 1, 0, 2}),
        P("op", PT::Op, "the commands it fails (not given: those its trigger matches)").always().warn_if_wider()
            .warn_with("error", uint64_t(MediaParams::Error::Unc), uint64_t(Op::Write),
                       "an unc error fails reads only (a write reallocates the sector): op write makes this fault "
                       "fail nothing")
            .bind([](const Fault &f) -> uint64_t { return uint64_t(f.media.match.op); },
                  [](Fault &f, uint64_t v) { f.media.match.op = Op(v); })
            .bytes({1, 1, 0, 0, 7}),
        P("lba", PT::LbaRange, "the bad sectors (not given: the range of the command that fires it)")
            .warn_if_wider().else_command().traced("lba")
            .needed_at("required with an `at` trigger (the bad sectors); a command-triggered media error defaults to "
                       "the range of the command that fires it")
            .bindv([](const Fault &f) { return range_of(f.media.match); },
                   [](Fault &f, const ParamValue &v) { set_range(f.media.match, v); })
            .bytes({4, 4, 0, 0, 0, 0, 1, false, 2, 2, true}),
        P("count", PT::Uint, "commands failed per firing (0: every matching command)").range(0, 1000000).always()
            .bind([](const Fault &f) -> uint64_t { return f.media.count; },
                  [](Fault &f, uint64_t v) { f.media.count = unsigned(v); })
            .bytes({3, 1, 0, 0, 9}),
        P("cleared_by_write", PT::Bool, "an unc sector written over is remapped (the error goes)").dflt(1)
            .untraced().in_yaml(Show::Always)
            .bind([](const Fault &f) -> uint64_t { return f.media.cleared_by_write; },
                  [](Fault &f, uint64_t v) { f.media.cleared_by_write = v != 0; })
            .bytes({2, 1, 0, 1, 0, 0, 1, false, 0, 0, false, {1, 0}}),
    };
}

std::vector<ParamSpec> slow_params() {
    constexpr uint64_t kMs = 1000000;
    std::vector<ParamSpec> v = {
        P("delay", PT::Time, "how late the drive starts each matching command's media access").range(1, 3600 * kS)
            .always().traced("delay_ns").needed("required (how late the drive answers each matching command)")
            .bind([](const Fault &f) -> uint64_t { return f.slow.delay_ns; }, [](Fault &f, uint64_t v) { f.slow.delay_ns = v; })
            .bytes({0, 2, 0, 0, 0, 1, kMs}),
        P("op", PT::Op, "the commands it delays (not given: those its trigger matches)").always()
            .ops_only({Op::Any, Op::Read, Op::Write, Op::Ncq, Op::NonNcq},
                      "a slow fault delays reads and writes (any, read, write, ncq or non_ncq)")
            .bind([](const Fault &f) -> uint64_t { return uint64_t(f.slow.match.op); },
                  [](Fault &f, uint64_t v) { f.slow.match.op = Op(v); })
            .bytes({3, 1, 0, 7, 5, 0, 1, false, 0, 0, false,
                    {uint64_t(Op::Any), uint64_t(Op::Read), uint64_t(Op::Write), uint64_t(Op::Ncq), uint64_t(Op::NonNcq)}}),
        P("lba", PT::LbaRange, "the sectors it delays (not given: the range of the command that fires it)")
            .else_command().traced("lba")
            .bindv([](const Fault &f) { return range_of(f.slow.match); },
                   [](Fault &f, const ParamValue &v) { set_range(f.slow.match, v); })
            .bytes({4, 4, 0, 0, 0, 0, 1, false, 3, 0x80, true}),
        P("count", PT::Uint, "commands delayed per firing (0: every match)").range(0, 1000000).always()
            .yaml_while_zero("window")
            .bind([](const Fault &f) -> uint64_t { return f.slow.count; }, [](Fault &f, uint64_t v) { f.slow.count = unsigned(v); })
            .bytes({2, 1, 0, 4, 9, 0, 1, false, 2, 0xf0, false}),
        P("window", PT::Time, "instead of count: every match for this long after the firing").range(1, UINT64_MAX)
            .always().traced("window_ns").in_yaml(Show::NonZero).not_with("count")
            .bind([](const Fault &f) -> uint64_t { return f.slow.window_ns; }, [](Fault &f, uint64_t v) { f.slow.window_ns = v; })
            .bytes({2, 1, 4, 4, 0, 0, 500 * kMs}),
    };
    v.back().fuzz.round_up = true; // (the format's steps: a window of 1..500 ms is one step)
    return v;
}

} // namespace

const std::vector<KindSpec> &kind_specs() {
    static const std::vector<KindSpec> rows = {
        // kind, name, keys (read by a reader of its own), binds, time_only, fires_once,
        // taskfile_only, ahci_only, typed parameters
        {Kind::Crc, "crc", {}, Binds::Disk, false, false, false, false, crc_params()},
        {Kind::LostIrq, "lost_irq", {}, Binds::Disk, false, false, false, false,
         {P("count", PT::Uint, "completion interrupts swallowed per firing").range(1, 1000000).dflt(1).always()
              .in_yaml(Show::NonZero)
              .bind([](const Fault &f) -> uint64_t { return f.lost_irq.count; },
                    [](Fault &f, uint64_t v) { f.lost_irq.count = unsigned(v); })
              .bytes({1, 4, 0, 0, 16, 1, 1, false, 0, 1, false}),
          P("window", PT::Time, "instead of count: every completion interrupt for this long after the firing")
              .range(1, UINT64_MAX).always().traced("window_ns").in_yaml(Show::NonZero).not_with("count")
              .bind([](const Fault &f) -> uint64_t { return f.lost_irq.window_ns; },
                    [](Fault &f, uint64_t v) { f.lost_irq.window_ns = v, f.lost_irq.count = 0; }) // replaces the count
              .bytes({1, 4, 0, 0, 100000, 1, kUs, false, 0, 1, true})}},
        {Kind::Unplug, "unplug", {}, Binds::Disk, false, true, false, false,
         {noise("line noise the host PHY picks up with the pull: COMINIT bursts, 10b/8b decode errors, the "
                       "receiver losing the signal mid-primitive").bytes_since(3, {0, 1, 0, 3})},
         true},
        {Kind::Plug, "plug", {}, Binds::Disk, false, true, false, false, plug_params(), false, Drive::Disk},
        {Kind::MediaError, "media_error", {}, Binds::Disk, false, false, false, false, media_error_params(), false,
         Drive::Disk},
        {Kind::Hang, "hang", {}, Binds::Disk, false, false, false, false,
         {P("comresets", PT::Uint, "COMRESETs the hung firmware sits through (it answers OOB, never sends its "
                                   "signature) before one restarts it")
              .range(0, 1000000)
              .bind([](const Fault &f) -> uint64_t { return f.hang_comresets; },
                    [](Fault &f, uint64_t v) { f.hang_comresets = unsigned(v); })}},
        {Kind::IdentifyFail, "identify_fail", {}, Binds::Disk, false, false, false, false,
         {P("count", PT::Uint, "IDENTIFY commands aborted per firing").range(1, 1000).dflt(1).always()
              .bind([](const Fault &f) -> uint64_t { return f.identify_failures; },
                    [](Fault &f, uint64_t v) { f.identify_failures = unsigned(v); })
              .bytes({0, 1, 0, 0, 4, 1})},
         false, Drive::Disk},
        {Kind::PhyFlap, "phy_flap", {}, Binds::Disk, false, false, false, false,
         {P("down", PT::Time, "how long PhyRdy stays down each time").range(1, 60 * kS).dflt(1000000).always()
              .traced("down_ns")
              .bind([](const Fault &f) -> uint64_t { return f.flap.down_ns; }, [](Fault &f, uint64_t v) { f.flap.down_ns = v; })
              .bytes({0, 4, 0, 0, 2000000, 1, kUs}),
          noise("line noise with each PhyRdy loss, as an unplug's").bytes_since(3, {4, 1, 0, 3})}},
        {Kind::LinkDegrade, "link_degrade", {}, Binds::Disk, false, false, false, false,
         {P("gen", PT::Uint, "the fastest generation the link reaches from the trigger on").range(1, 3).dflt(1).always()
              .needed("required (1, 2 or 3: the fastest generation the link reaches)")
              .bind([](const Fault &f) -> uint64_t { return f.gen; }, [](Fault &f, uint64_t v) { f.gen = unsigned(v); })
              .bytes({0, 1, 0, 0, 3, 1})}},
        // The port multiplier's control port counts no commands: a time trigger only.
        {Kind::PmpHang, "pmp_hang", {}, Binds::PmpControl, true, false},
        {Kind::Slow, "slow", {}, Binds::Disk, false, false, false, false, slow_params(), false, Drive::Disk},
        {Kind::SpuriousIrq, "spurious_irq", {}, Binds::Disk, false, false, true},
        {Kind::IrqStorm, "irq_storm", {}, Binds::Disk, false, true, true},
        {Kind::DrqStuck, "drq_stuck", {}, Binds::Disk, false, false, true},
        {Kind::BsyStuck, "bsy_stuck", {}, Binds::Disk, false, false, true, false,
         {P("until", PT::Enum, "the reset that clears the stuck BSY: an SRST or a COMRESET (srst), or only a "
                               "COMRESET or a PHY restart (comreset: a firmware only a hard reset restarts)")
              .names({"srst", "comreset"})}},
        {Kind::BmdmaError, "bmdma_error", {}, Binds::Disk, false, false, true, false,
         {P("dir", PT::Enum, "the transfer that fails: the next in either direction (any), the next out of memory "
                             "(h2d: a DMA write) or the next into memory (d2h: a DMA read)")
              .names({"any", "h2d", "d2h"})}},
        {Kind::HostBusError, "host_bus_error", {}, Binds::Disk, false, false, false, true,
         {P("access", PT::Enum, "the port's DMA access that fails: a data buffer, the command list or table, the "
                                "FIS area, or whichever comes first")
              .names({"data", "command", "fis", "any"}).always()
              .bind([](const Fault &f) -> uint64_t { return uint64_t(f.bus.access); },
                    [](Fault &f, uint64_t v) { f.bus.access = BusAccess(v); })
              .bytes_since(3, {0, 1, 0, 2}),
          P("resp", PT::Enum, "how the bus answers: a slave error or a decode error").names({"slverr", "decerr"}).always()
              .bind([](const Fault &f) -> uint64_t { return f.bus.decerr; },
                    [](Fault &f, uint64_t v) { f.bus.decerr = v != 0; })
              .bytes_since(3, {0, 1, 2, 1})}},
        // A time trigger: the port it acts on may have no drive that counts commands.
        // Any trigger on a drive that is there (its own COMINIT, the drive resetting itself
        // with commands queued: dmesg corpus 15); at a time only where none is (present: false,
        // the reader's rule). The fuzz format's versions before 5 read it as time-only.
        {Kind::Cominit, "cominit", {}, Binds::Disk, false, false, false, false,
         {noise("what the wire carries besides the COMINIT bursts (always sent): decode errors, the receiver "
                       "losing the signal").always_set(1).bytes_since(3, {0, 1, 0, 3})}},
        // The drive's power supply: its write cache loses what it has not written back.
        {Kind::PowerLoss, "power_loss", {}, Binds::Disk, false, false, false, false,
         {P("off", PT::Time, "how long the power stays off before the drive restarts (then COMINIT, the "
                             "reset sequence and its signature)")
              .range(1 * kUs, 60 * kS).dflt(100 * 1000 * kUs).always()
              .bytes_since(3, {0, 2, 0, 0, 60000, 1, 1000 * kUs})},
         true, Drive::Disk},
        // The drive's firmware breaks the transport layer's rules (docs/device.md, "Malformed
        // and unsolicited FISes"): what the host controller does with the FIS is its own.
        {Kind::BadFis, "bad_fis", {}, Binds::Disk, false, false, false, false,
         {P("fis", PT::Enum, "what the drive sends: a FIS of a type the host does not know (unknown_type, as "
                             "`type`), its next Register D2H FIS one dword too long (long_d2h: the status of a "
                             "command, refused with R_ERR), a Register D2H FIS with the I bit for no command "
                             "(unsolicited_d2h), a Set Device Bits FIS with the I bit and SActive bits for tags "
                             "not outstanding in the drive (spurious_sdb)")
              .names({"unknown_type", "long_d2h", "unsolicited_d2h", "spurious_sdb"}).always()
              .needed("required (unknown_type, long_d2h, unsolicited_d2h or spurious_sdb)")
              .bytes_since(3, {0, 1, 0, 2}),
          P("type", PT::Uint, "unknown_type: the FIS type byte (D9h: a type SATA reserves; not one the host knows)")
              .range(0, 255).dflt(0xD9).in_hex().bytes_since(3, {1, 1})},
         false, Drive::Disk},
        // The drive's interface power management (docs/device.md 6): from the firing on, until
        // a power cycle; it matters only where the host enables link power management.
        {Kind::LpmFail, "lpm_fail", {}, Binds::Disk, false, false, false, false,
         {P("how", PT::Enum, "what breaks: the drive's PHY never answers the host's wake-up COMWAKE out of "
                             "Partial/Slumber (no_comwake: the host's command never goes out, a COMRESET brings "
                             "the link back), or the drive answers every PMREQ with PMNAK (pmnak)")
              .names({"no_comwake", "pmnak"}).always()
              .bytes_since(4, {0, 1, 0, 1}),
          P("wakes", PT::Uint, "no_comwake: how many wake-ups go unanswered (0: every one, until a power cycle)")
              .range(0, 1000000)
              .bytes_since(4, {1, 1, 0, 0, 17}),
          // (after format version 4: not in the fuzz bytes, an input decodes it as none)
          noise("no_comwake: line noise each unanswered wake-up leaves on the host's PHY (a drive PHY that "
                "half-wakes: decode errors, the host PHY's internal error; dmesg corpus 35's "
                "\"UnrecovData PHYRdyChg PHYInt CommWake 10B8B\")")},
         false, Drive::Disk},
        // One unit's control port: a register read it aborts (ERR, ABRT) from the firing on, until
        // a power cycle; COMRESETs do not mend it (dmesg corpus 51: a SiI3726 whose config port's
        // PSCR SError read fails in every recovery, "ata7.05: failed to read SCR 1 (Emask=0x1)").
        {Kind::PmpRegAbort, "pmp_reg_abort", {}, Binds::PmpControl, true, false, false, false,
         {P("pscr_port", PT::Uint, "the fan-out port whose PSCR read is aborted (its config port included)")
              .range(0, 14).always().needed("required (0..14: the fan-out port whose PSCR read fails)"),
          P("reg", PT::Uint, "the PSCR read that is aborted: 0 SStatus, 1 SError, 2 SControl")
              .range(0, 15).dflt(1).always()}},
        // An ATAPI drive's PACKET command ends in CHECK CONDITION (docs/device.md 7): the
        // Error register's sense key, REQUEST SENSE's key/ASC/ASCQ (SPC-4 4.5.6). In the fuzz
        // format from version 5 (a fault there may address an ATAPI drive): the kind's first
        // four bytes.
        {Kind::CheckCondition, "check_condition", {}, Binds::Disk, false, false, false, false,
         {P("key", PT::Uint, "the sense key (SPC-4 table 48: 02h NOT READY, 03h MEDIUM ERROR, 04h HARDWARE ERROR, "
                             "05h ILLEGAL REQUEST, 0Bh ABORTED COMMAND ...)")
              .range(1, 15).dflt(3).always().in_hex()
              .bytes_since(5, {0, 1, 0, 0, 15, 1}),
          P("asc", PT::Uint, "the additional sense code (11h with key 03h: UNRECOVERED READ ERROR)")
              .range(0, 255).dflt(0x11).always().in_hex()
              .bytes_since(5, {1, 1}),
          P("ascq", PT::Uint, "the additional sense code qualifier").range(0, 255).dflt(0).always().in_hex()
              .bytes_since(5, {2, 1}),
          P("abrt", PT::Bool, "ABRT set in the Error register beside the sense key (ATA8-ACS 7.18: drives set it "
                              "with some sense, e.g. NOT READY: res 51/24 in a 2.6.2x log)")
              .bytes_since(5, {3, 1, 0, 1})},
         false, Drive::Atapi},
        // The AHCI port's engine fails inside (AHCI 1.3.1 3.3.5 PxIS, 3.3.12 PxSERR.ERR.E, 6.1:
        // an internal error stops the transfer and is an interface fatal error; a host bus data
        // or fatal error stops the port with HBDS / HBFS). How the interrupt shows is the
        // failing HBA's: as the spec says, not at all (the command never completes: dmesg
        // corpus 48's ata8, "SError: { HostInt }" on a timeout), or its next PxIS read answers
        // all ones as a read the PCIe link dropped does (48's ata7, "irq_stat 0xffffffff").
        // Added after the fuzz format (no bytes): a fuzz input names no HBA error.
        {Kind::HbaError, "hba_error", {}, Binds::Disk, false, false, false, true,
         {P("error", PT::Enum, "what fails inside the port's engine at its next DMA access: an internal error "
                               "(internal: SError.ERR.E, PxIS.IFS), a host bus data error (host_bus_data: "
                               "PxIS.HBDS) or a host bus fatal error (host_bus_fatal: PxIS.HBFS)")
              .names({"internal", "host_bus_data", "host_bus_fatal"}).always()
              .bytes_since(5, {0, 1, 0, 0, 3}),
          P("irq", PT::Enum, "how the port shows it: its PxIS bit and interrupt (raised), nothing (none: the "
                             "engine stops silently, its commands never complete), or the bit raised and the "
                             "port's next PxIS read answered with all ones (all_ones: a register read the "
                             "PCIe link dropped)")
              .names({"raised", "none", "all_ones"}).always()
              .bytes_since(5, {1, 1, 0, 0, 3})},
         false, Drive::Any},
        // Noise on the wire outside any frame with PhyRdy kept (no PHY event, no OOB): what the
        // host PHY latches in SError (SATA 2.6 14.1.5 / AHCI 1.3.1 3.3.12: DIAG.B 10b/8b decode
        // error, ERR.E internal error, DIAG.I/ERR.T, DIAG.W, DIAG.X for COMINIT). Nothing
        // interrupts (no SError bit of these raises one on AHCI, PIIX or the SiI3112's SIEN
        // default): the next EH run of the port reads it (dmesg corpus 25's ICH8 slave link,
        // "SErr 0x80800", "SError: { HostInt 10B8B }", with no failed command). A time
        // trigger: the port may have no drive that counts commands. Added after the fuzz
        // format (no bytes).
        {Kind::LineNoise, "line_noise", {}, Binds::Disk, true, false, false, false,
         {noise("what the host PHY picks up: COMINIT bursts, 10b/8b decode errors, its receiver losing the "
                "signal mid-primitive, its own internal error, COMWAKE-like bursts")
              .needed("required: the noise the host PHY picks up (a list of cominit, decode, internal, phy, "
                      "comwake)")
              .bytes_since(5, {0, 1, 0, 0, 31, 1})}, // (never empty: 1..31, every flag set)
         false, Drive::Any},
    };
    return rows;
}

std::vector<std::string> KindSpec::all_keys() const {
    std::vector<std::string> out = keys;
    for (const ParamSpec &p : params)
        out.push_back(p.key);
    return out;
}

const ParamSpec *KindSpec::param(const std::string &key) const {
    for (const ParamSpec &p : params)
        if (key == p.key)
            return &p;
    return nullptr;
}

uint64_t param(const Fault &f, const ParamSpec &p) {
    if (p.get)
        return p.get(f);
    for (const auto &[k, v] : f.params)
        if (k == p.key)
            return v;
    return p.def;
}

uint64_t param(const Fault &f, const char *key) {
    const KindSpec *s = kind_spec(f.kind);
    const ParamSpec *p = s ? s->param(key) : nullptr;
    return p ? param(f, *p) : 0;
}

void set_param(Fault &f, const ParamSpec &p, uint64_t v) {
    if (p.set) {
        p.set(f, v);
        return;
    }
    for (auto &[k, old] : f.params)
        if (k == p.key) {
            old = v;
            return;
        }
    f.params.emplace_back(p.key, v);
}

bool param_shown(const ParamSpec &p, uint64_t v, bool yaml) {
    if (yaml && p.unset_default && v == 0)
        return false; // "not given": no name of the scenario's
    switch (yaml && p.yaml != Show::Same ? p.yaml : p.show) {
    case Show::Always: return true;
    case Show::NonZero: return v != 0;
    case Show::Never: return false;
    case Show::NotDefault:
    case Show::Same: return v != p.def;
    }
    return true;
}

const std::vector<const char *> &op_names() {
    static const std::vector<const char *> names = [] {
        std::vector<const char *> v;
        for (Op o : {Op::Any, Op::Read, Op::Write, Op::Flush, Op::Identify, Op::Ncq, Op::NonNcq})
            v.push_back(to_string(o));
        return v;
    }();
    return names;
}

std::string param_text(const ParamSpec &p, uint64_t v) {
    switch (p.type) {
    case ParamType::Enum: return v < p.values.size() ? p.values[v] : "?";
    case ParamType::Op: return v < op_names().size() ? op_names()[v] : "?";
    case ParamType::Flags: {
        std::string l;
        for (size_t i = 0; i < p.values.size(); ++i)
            if (v >> i & 1)
                l += (l.empty() ? "" : ", ") + std::string(p.values[i]);
        return "[" + l + "]";
    }
    case ParamType::String:
    case ParamType::LbaRange: return "?"; // (not one number: value_text)
    case ParamType::Sectors:
    case ParamType::Uint: {
        if (!p.hex)
            return std::to_string(v);
        char b[24];
        std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
        return b;
    }
    case ParamType::Time:
        for (auto [div, unit] : {std::pair<uint64_t, const char *>{1000000000ull, "s"}, {1000000ull, "ms"}, {1000ull, "us"}})
            if (v && v % div == 0)
                return std::to_string(v / div) + unit;
        return std::to_string(v) + "ns";
    case ParamType::Bool: return v ? "true" : "false";
    }
    return "?";
}

ParamValue value(const Fault &f, const ParamSpec &p) {
    if (p.getv)
        return p.getv(f);
    ParamValue v;
    v.n = param(f, p);
    return v;
}

void set_value(Fault &f, const ParamSpec &p, const ParamValue &v) {
    if (p.setv)
        p.setv(f, v);
    else
        set_param(f, p, v.n);
}

bool shown(const Fault &f, const ParamSpec &p, bool yaml) {
    const ParamValue v = value(f, p);
    const Show rule = yaml && p.yaml != Show::Same ? p.yaml : p.show;
    if (rule == Show::Never || !v.given)
        return false;
    if (p.type == ParamType::String || p.type == ParamType::LbaRange)
        return true;
    if (yaml && p.yaml_unless && param(f, p.yaml_unless) != 0)
        return false;
    return param_shown(p, yaml ? v.n & ~p.forced : v.n, yaml);
}

std::string value_text(const ParamSpec &p, const ParamValue &v) {
    switch (p.type) {
    case ParamType::String: return "\"" + v.text + "\"";
    case ParamType::LbaRange: return "[" + std::to_string(v.n) + ", " + std::to_string(v.last) + "]";
    case ParamType::Flags: return param_text(p, v.n & ~p.forced);
    default: return param_text(p, v.n);
    }
}

const KindSpec *kind_spec(Kind k) {
    for (const KindSpec &r : kind_specs())
        if (r.kind == k)
            return &r;
    return nullptr;
}

const char *to_string(Kind k) {
    const KindSpec *r = kind_spec(k);
    return r ? r->name : "?";
}

std::optional<Kind> kind_from_string(std::string_view name) {
    for (const KindSpec &r : kind_specs())
        if (name == r.name)
            return r.kind;
    return std::nullopt;
}

} // namespace satasim::fault
