#include "model/fault/fault_kind_spec.h"

#include <cstdio>
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
    P &unset() { unset_default = true; return *this; }
    P &needed(const char *why) { required = why; return *this; }
    P &in_yaml(Show s) { yaml = s; return *this; }
    P &not_with(const char *key) { excludes = key; return *this; }
};

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
        {Kind::Unplug, "unplug", {"noise"}, Binds::Disk, false, true, false, false, {}, true},
        {Kind::Plug, "plug", {"model", "serial", "capacity", "blank_media"}, Binds::Disk, false, true},
        {Kind::MediaError, "media_error", {"error", "op", "lba", "count", "cleared_by_write"}, Binds::Disk, false,
         false},
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
              .bytes({0, 1, 0, 0, 4, 1})}},
        {Kind::PhyFlap, "phy_flap", {"noise"}, Binds::Disk, false, false, false, false,
         {P("down", PT::Time, "how long PhyRdy stays down each time").range(1, 60 * kS).dflt(1000000).always()
              .traced("down_ns")
              .bind([](const Fault &f) -> uint64_t { return f.flap.down_ns; }, [](Fault &f, uint64_t v) { f.flap.down_ns = v; })
              .bytes({0, 4, 0, 0, 2000000, 1, kUs})}},
        {Kind::LinkDegrade, "link_degrade", {}, Binds::Disk, false, false, false, false,
         {P("gen", PT::Uint, "the fastest generation the link reaches from the trigger on").range(1, 3).dflt(1).always()
              .needed("required (1, 2 or 3: the fastest generation the link reaches)")
              .bind([](const Fault &f) -> uint64_t { return f.gen; }, [](Fault &f, uint64_t v) { f.gen = unsigned(v); })
              .bytes({0, 1, 0, 0, 3, 1})}},
        // The port multiplier's control port counts no commands: a time trigger only.
        {Kind::PmpHang, "pmp_hang", {}, Binds::PmpControl, true, false},
        {Kind::Slow, "slow", {"delay", "op", "lba", "count", "window"}, Binds::Disk, false, false},
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
                    [](Fault &f, uint64_t v) { f.bus.access = BusAccess(v); }),
          P("resp", PT::Enum, "how the bus answers: a slave error or a decode error").names({"slverr", "decerr"}).always()
              .bind([](const Fault &f) -> uint64_t { return f.bus.decerr; },
                    [](Fault &f, uint64_t v) { f.bus.decerr = v != 0; })}},
        // A time trigger: the port it acts on may have no drive that counts commands.
        {Kind::Cominit, "cominit", {"noise"}, Binds::Disk, true, false, false, false, {}, false, false},
        // The drive's power supply: its write cache loses what it has not written back.
        {Kind::PowerLoss, "power_loss", {}, Binds::Disk, false, false, false, false,
         {P("off", PT::Time, "how long the power stays off before the drive restarts (then COMINIT, the "
                             "reset sequence and its signature)")
              .range(1 * kUs, 60 * kS).dflt(100 * 1000 * kUs).always()
              .bytes({0, 2, 0, 0, 60000, 1, 1000 * kUs})},
         true, false},
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
    case Show::NotDefault:
    case Show::Same: return v != p.def;
    }
    return true;
}

std::string param_text(const ParamSpec &p, uint64_t v) {
    switch (p.type) {
    case ParamType::Enum: return v < p.values.size() ? p.values[v] : "?";
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
