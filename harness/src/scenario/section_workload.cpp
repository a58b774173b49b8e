// Section workload[] (scenarios/README.md).
#include "scenario/sections.h"

#include <algorithm>
#include <cctype>

namespace satasim::harness {

const std::vector<std::pair<const char *, ModeSpec>> kModes = {
    {"auto", ModeSpec::Auto}, {"dma", ModeSpec::Dma}, {"pio", ModeSpec::Pio}, {"ncq", ModeSpec::Ncq}};

namespace {

const std::vector<std::pair<const char *, WorkloadKind>> kKinds = {
    {"io", WorkloadKind::Io},         {"request", WorkloadKind::Request}, {"delete", WorkloadKind::Delete},
    {"scan", WorkloadKind::Scan},     {"rescan", WorkloadKind::Rescan},   {"packet", WorkloadKind::Packet},
    {"tray", WorkloadKind::Tray},     {"scsi", WorkloadKind::Scsi}};

// The sense a scsi step must end with as [key, asc, ascq], whatever its format (fixed or
// descriptor); without expect_status it also says which status.
void parse_sense_key(const Parser &p, const Field &f, WorkloadSpec &w) {
    const YAML::Node &s = as_list(p, f);
    if (s.size() != 3)
        p.fail(f, "the sense as [key, asc, ascq]");
    std::array<uint8_t, 3> k{};
    for (size_t i = 0; i < 3; ++i)
        k[i] = uint8_t(as_uint(p, element(f, i), 0, i ? 255 : 15));
    w.expect_sense_key = k;
    if (!w.expect_status)
        w.expect_status = uint8_t(k[0] ? 2 : 0);
}

// An ATAPI drive's own options of a scsi step: PIO forced, the byte count limit.
void parse_atapi_options(const Parser &p, const MapView &m, WorkloadSpec &w) {
    if (auto *v = m.find("pio"))
        w.packet_pio = as_bool(p, *v);
    if (auto *v = m.find("byte_count"))
        w.byte_count = uint16_t(as_uint(p, *v, 2, 0xFFFE));
}

// packet / tray: an ATAPI drive's PACKET command (a CDB as sg_raw would send it) or a tray
// event of the drive (the user's eject button, a disc change).
WorkloadSpec parse_atapi_step(const Parser &p, const MapView &m, WorkloadSpec w, const Scenario &sc) {
    if (auto *v = m.find("barrier"))
        w.barrier = as_bool(p, *v);
    if (auto *v = m.find("delay"))
        w.start_delay_ns = as_time_ns(p, *v);
    if (!m.has("device"))
        p.fail(m.line(), m.join("device"), "required: the port of the ATAPI drive");
    const Field &devf = m.get("device");
    const unsigned port = unsigned(as_uint(p, devf, 0, 31));
    const DeviceSpec *dev = sc.device_on_port(port);
    if (!dev || !dev->atapi)
        p.fail(devf, "no ATAPI drive is configured on port " + std::to_string(port) + " (devices[].atapi)");
    w.device = port;
    if (w.kind == WorkloadKind::Tray) {
        if (!m.has("action"))
            p.fail(m.line(), m.join("action"), "required: open, close, change or remove");
        w.tray_action = as_enum<std::string>(p, m.get("action"),
                                             {{"open", "open"}, {"close", "close"}, {"change", "change"}, {"remove", "remove"}});
        if (w.tray_action == "change") {
            if (!m.has("disc_seed"))
                p.fail(m.line(), m.join("disc_seed"), "required for a change: the new disc");
            w.disc_seed = as_uint(p, m.get("disc_seed"), 0, ~0ull);
            w.disc_blocks = dev->atapi->disc_blocks;
            if (auto *v = m.find("disc_blocks"))
                w.disc_blocks = uint32_t(as_uint(p, *v, 1, 0xFFFFFFFFull));
        } else if (m.has("disc_seed") || m.has("disc_blocks")) {
            p.fail(m.has("disc_seed") ? m.get("disc_seed") : m.get("disc_blocks"), "only a change brings a disc");
        }
        return w;
    }
    // kind: packet: the alias of kind: scsi on an ATAPI drive (the CDB as a list of numbers,
    // `len` for data_in, the sense as [key, asc, ascq]), read into the same step
    if (!m.has("cdb"))
        p.fail(m.line(), m.join("cdb"), "required: the command's bytes, e.g. [0x28, 0, 0, 0, 0, 16, 0, 0, 1, 0]");
    const Field &cf = m.get("cdb");
    const YAML::Node &l = as_list(p, cf);
    if (l.size() < 6 || l.size() > 16)
        p.fail(cf, "a CDB has 6 to 16 bytes");
    for (size_t i = 0; i < l.size(); ++i)
        w.cdb.push_back(uint8_t(as_uint(p, element(cf, i), 0, 255)));
    if (auto *v = m.find("len"))
        w.data_in = uint32_t(as_uint(p, *v, 0, 1u << 20));
    parse_atapi_options(p, m, w);
    if (auto *v = m.find("verify"))
        w.verify = as_bool(p, *v);
    if (auto *v = m.find("expect_status"))
        w.expect_status = as_enum<uint8_t>(p, *v, {{"good", uint8_t(0)}, {"check_condition", uint8_t(2)}});
    if (auto *v = m.find("expect_sense"))
        parse_sense_key(p, *v, w);
    w.kind = WorkloadKind::Scsi;
    w.count = 1;
    w.qd = 1;
    return w;
}

// Hex bytes ("12 00 00 00 24 00", spaces optional) of a kind: scsi key.
std::vector<uint8_t> as_hex_bytes(const Parser &p, const Field &f, size_t max) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->pattern(f.path, "^[0-9a-fA-F ]*$");
    const std::string s = scalar(p, f, "hex bytes (\"12 00 00 00 24 00\")");
    std::vector<uint8_t> out;
    std::string digits;
    for (char c : s) {
        if (c == ' ')
            continue;
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            p.fail(f, std::string("'") + c + "' is not a hex digit (expected bytes such as \"12 00 00 00 24 00\")");
        digits.push_back(c);
    }
    if (digits.size() % 2)
        p.fail(f, "an odd number of hex digits (" + std::to_string(digits.size()) + "): every byte is two digits");
    for (size_t i = 0; i < digits.size(); i += 2)
        out.push_back(uint8_t(std::stoul(digits.substr(i, 2), nullptr, 16)));
    if (out.size() > max)
        p.fail(f, std::to_string(out.size()) + " bytes, at most " + std::to_string(max));
    return out;
}

// kind: scsi: the CDB, its data and what must come back (scenarios/README.md).
WorkloadSpec parse_scsi(const Parser &p, const MapView &m, WorkloadSpec w, const DeviceSpec &dev) {
    if (!m.has("cdb"))
        p.fail(m.line(), m.join("cdb"), "required: the CDB as hex bytes (6, 10, 12 or 16 of them)");
    const Field &cf = m.get("cdb");
    w.cdb = as_hex_bytes(p, cf, 16);
    if (w.cdb.size() != 6 && w.cdb.size() != 10 && w.cdb.size() != 12 && w.cdb.size() != 16)
        p.fail(cf, "a CDB of " + std::to_string(w.cdb.size()) + " bytes: 6, 10, 12 or 16");
    if (auto *v = m.find("data_in"))
        w.data_in = uint32_t(as_uint(p, *v, 0, 1u << 20));
    if (auto *v = m.find("data_out")) {
        if (w.data_in)
            p.fail(*v, "a command moves data one way: data_in is set too");
        w.data_out = as_hex_bytes(p, *v, 1u << 16);
    }
    if (auto *v = m.find("expect_status"))
        w.expect_status = as_enum<uint8_t>(p, *v, {{"good", uint8_t(0x00)}, {"check_condition", uint8_t(0x02)}});
    if (auto *v = m.find("expect_sense")) {
        w.expect_sense = as_hex_bytes(p, *v, 96);
        if (w.expect_status && *w.expect_status == 0x00 && !w.expect_sense->empty())
            p.fail(*v, "sense data with expect_status: good (GOOD carries none)");
    }
    if (auto *v = m.find("expect_sense_key")) {
        if (w.expect_status && *w.expect_status == 0x00)
            p.fail(*v, "a sense with expect_status: good (GOOD carries none)");
        parse_sense_key(p, *v, w);
    }
    for (const char *k : {"pio", "byte_count", "verify"})
        if (!dev.atapi && m.has(k))
            p.fail(m.get(k), std::string(k) + ": only for an ATAPI drive (devices[].atapi): " +
                                 (std::string(k) == "verify" ? "its READ data is checked against the disc"
                                                             : "the PACKET command's transfer"));
    parse_atapi_options(p, m, w);
    if (auto *v = m.find("expect_data")) {
        w.expect_data = as_hex_bytes(p, *v, 4096);
        if (w.expect_data.size() > w.data_in)
            p.fail(*v, std::to_string(w.expect_data.size()) + " bytes expected, but data_in is " +
                           std::to_string(w.data_in));
    }
    if (auto *v = m.find("tag")) {
        if (dev.atapi)
            p.fail(*v, "for a disk's ATA command (the slot that keeps its result), not an ATAPI drive's");
        w.tag = unsigned(as_uint(p, *v, 0, 31));
    }
    w.count = 1;
    w.qd = 1;
    return w;
}

// delete / scan / rescan: the stack's warm-plug calls act on a host port (ata.h), so a port
// with a port multiplier is refused; a device step needs the disk configured and present.
WorkloadSpec parse_warmplug(const Parser &p, const MapView &m, WorkloadSpec w, const Scenario &sc) {
    if (auto *v = m.find("barrier"))
        w.barrier = as_bool(p, *v);
    if (auto *v = m.find("delay"))
        w.start_delay_ns = as_time_ns(p, *v);
    const char *kname = workload_kind_name(w.kind);
    if (sc.multi()) // the warm-plug calls name a port of the one host (ata.h)
        p.fail(m.line(), m.join("kind"), std::string("a ") + kname +
                                             " step is not modelled with several controllers (controllers:)");
    if (w.kind == WorkloadKind::Scan) {
        if (auto *v = m.find("port")) {
            unsigned port = unsigned(as_uint(p, *v, 0, 31));
            if (port >= sc.controller.ports)
                p.fail(*v, no_such_port(sc, port));
            w.scan_port = port;
            w.device = port;
        }
        return w;
    }
    if (!m.has("device"))
        p.fail(m.line(), m.join("device"), std::string("required: the port of the disk to ") + kname);
    const Field &devf = m.get("device");
    unsigned port = unsigned(as_uint(p, devf, 0, 31));
    if (port >= sc.controller.ports)
        p.fail(devf, no_such_port(sc, port));
    if (const PmpSpec *pm = sc.pmp_on_port(port))
        p.fail(devf, std::string("a ") + kname + " acts on a host port's device (ata_dev_delete / ata_port_scan); port " +
                         std::to_string(port) + " has a port multiplier (line " + std::to_string(pm->line) + ")");
    const DeviceSpec *dev = sc.device_on_port(port);
    if (!dev)
        p.fail(devf, "no disk is configured on port " + std::to_string(port) + " (devices[])");
    if (!dev->present)
        p.fail(devf, "the disk on port " + std::to_string(port) + " starts unplugged (present: false, line " +
                         std::to_string(dev->line) + ")");
    w.device = port;
    return w;
}

} // namespace

WorkloadSpec parse_workload(const Parser &p, const Field &f, const Scenario &sc) {
    WorkloadSpec w;
    if (!f.node.IsMap())
        p.fail(f, std::string("expected a mapping, got ") + kind_name(f.node));
    if (f.node["kind"].IsDefined() && f.node["kind"].IsScalar()) {
        // the kind decides the keys: read it first (an unknown kind is refused below)
        for (const auto &[name, k] : kKinds)
            if (f.node["kind"].Scalar() == name)
                w.kind = k;
    }
    const bool request = w.kind == WorkloadKind::Request;
    std::vector<std::string> keys;
    if (w.kind == WorkloadKind::Packet)
        keys = {"kind", "device", "cdb", "len", "pio", "byte_count", "verify", "expect_status", "expect_sense", "barrier", "delay"};
    else if (w.kind == WorkloadKind::Tray)
        keys = {"kind", "device", "action", "disc_seed", "disc_blocks", "barrier", "delay"};
    else if (w.kind == WorkloadKind::Scan)
        keys = {"kind", "port", "barrier", "delay"};
    else if (w.warmplug())
        keys = {"kind", "device", "barrier", "delay"};
    else if (w.kind == WorkloadKind::Scsi)
        keys = {"kind", "device", "controller", "pmp_port", "devno", "cdb", "data_in", "data_out", "expect_status",
                "expect_sense", "expect_sense_key", "expect_data", "pio", "byte_count", "verify", "barrier", "delay",
                "tag"};
    else if (request)
        keys = {"kind", "device", "controller", "pmp_port", "devno", "op", "lba", "sectors", "mode", "expect_submit", "expect_error",
                "verify", "barrier", "delay", "fail_fast", "tag", "fua"};
    else
        keys = {"kind", "device", "controller", "pmp_port", "devno", "op", "read_pct", "pattern", "block", "qd", "count", "mode",
                "region", "verify", "prefill", "barrier", "delay", "sg_segment", "fail_fast", "fua"};
    MapView m(p, f.node, f.path, f.line, keys);
    w.line = m.line();
    if (auto *v = m.find("kind"))
        w.kind = as_enum<WorkloadKind>(p, *v, kKinds);
    if (w.warmplug())
        return parse_warmplug(p, m, w, sc);
    if (w.kind == WorkloadKind::Packet || w.kind == WorkloadKind::Tray)
        return parse_atapi_step(p, m, w, sc);
    if (auto *v = m.find("fail_fast"))
        w.fail_fast = as_bool(p, *v);

    const DevAddr addr = parse_dev_addr(p, m, "device", sc, "the port of the disk");
    const Field &devf = m.get("device");
    w.device = addr.port;
    w.pmp_port = addr.pmp_port;
    w.devno = addr.devno;
    const DeviceSpec *dev = &addressed_disk(p, m, "device", addr, sc);
    if (dev->atapi && w.kind != WorkloadKind::Scsi)
        p.fail(devf, "the device on " + addr.str() + " is an ATAPI drive (line " + std::to_string(dev->line) +
                         "): it takes packet, tray and scsi steps, not block requests");
    if (!dev->present)
        p.fail(devf, "the disk on " + addr.str() + " starts unplugged (present: false, line " +
                         std::to_string(dev->line) + "): the boot probe finds nothing to run a workload on");

    if (auto *v = m.find("verify"))
        w.verify = as_bool(p, *v);
    if (auto *v = m.find("barrier"))
        w.barrier = as_bool(p, *v);
    if (auto *v = m.find("delay"))
        w.start_delay_ns = as_time_ns(p, *v);
    if (w.kind == WorkloadKind::Scsi)
        return parse_scsi(p, m, w, *dev);
    if (auto *v = m.find("mode"))
        w.mode = as_enum<ModeSpec>(p, *v, kModes);

    if (request) {
        if (!m.has("op"))
            p.fail(m.line(), m.join("op"), "required (read, write, flush or trim)");
        w.op = as_enum<OpSpec>(p, m.get("op"),
                               {{"read", OpSpec::Read},
                                {"write", OpSpec::Write},
                                {"flush", OpSpec::Flush},
                                {"trim", OpSpec::Trim}});
        if (auto *v = m.find("lba"))
            w.lba = as_uint(p, *v, 0, (1ull << 48) - 1);
        if (w.op != OpSpec::Flush) {
            if (!m.has("sectors"))
                p.fail(m.line(), m.join("sectors"), "required for a read, write or trim request");
            w.sectors = uint32_t(as_uint(p, m.get("sectors"), 1, 131072));
        } else if (m.has("sectors")) {
            p.fail(m.get("sectors"), "a flush has no sectors");
        }
        if (auto *v = m.find("expect_submit"))
            w.expect_submit = as_enum<SubmitExpect>(p, *v,
                                                    {{"ok", SubmitExpect::Ok},
                                                     {"einval", SubmitExpect::Einval},
                                                     {"eopnotsupp", SubmitExpect::Eopnotsupp},
                                                     {"enodev", SubmitExpect::Enodev}});
        if (auto *v = m.find("expect_error"))
            w.expect_error = as_bool(p, *v);
        if (auto *v = m.find("fua")) {
            if (w.op != OpSpec::Write)
                p.fail(*v, "only for op: write (a FUA write is durable when it completes)");
            w.fua = as_bool(p, *v);
        }
        if (auto *v = m.find("tag")) // (a flush too: libata 6.x prints its blk-mq tag, dmesg corpus 35)
            w.tag = unsigned(as_uint(p, *v, 0, 31));
        w.count = 1;
        w.qd = 1;
        return w;
    }

    if (!m.has("op"))
        p.fail(m.line(), m.join("op"), "required (read, write, mix, flush or trim)");
    w.op = as_enum<OpSpec>(p, m.get("op"),
                           {{"read", OpSpec::Read},
                            {"write", OpSpec::Write},
                            {"mix", OpSpec::Mix},
                            {"flush", OpSpec::Flush},
                            {"trim", OpSpec::Trim}});
    if (auto *v = m.find("fua")) {
        if (w.op != OpSpec::Write && w.op != OpSpec::Mix)
            p.fail(*v, "only for op: write or mix (a FUA write is durable when it completes)");
        w.fua = as_bool(p, *v);
    }
    if (auto *v = m.find("read_pct")) {
        if (w.op != OpSpec::Mix)
            p.fail(*v, "only for op: mix");
        w.read_pct = unsigned(as_uint(p, *v, 0, 100));
    }
    if (auto *v = m.find("pattern"))
        w.pattern = as_enum<PatternSpec>(p, *v,
                                         {{"sequential", PatternSpec::Sequential}, {"random", PatternSpec::Random}});
    if (auto *v = m.find("block")) {
        if (v->node.IsMap()) {
            MapView b(p, v->node, v->path, v->line, {"min", "max"});
            if (!b.has("min") || !b.has("max"))
                p.fail(b.line(), v->path, "a block range needs min and max");
            w.block_min = uint32_t(std::min<uint64_t>(as_sectors_of(p, b.get("min"), dev->logical_log2), UINT32_MAX));
            w.block_max = uint32_t(std::min<uint64_t>(as_sectors_of(p, b.get("max"), dev->logical_log2), UINT32_MAX));
            if (w.block_min == 0)
                p.fail(b.get("min"), "a block is at least one sector");
            if (w.block_max < w.block_min)
                p.fail(b.get("max"), "max is smaller than min");
        } else {
            uint64_t s = as_sectors_of(p, *v, dev->logical_log2);
            if (s == 0)
                p.fail(*v, "a block is at least one sector");
            w.block_min = w.block_max = uint32_t(std::min<uint64_t>(s, UINT32_MAX));
        }
        if (w.op == OpSpec::Flush)
            p.fail(*v, "a flush has no block size");
        if (w.block_max > dev->max_sectors())
            p.fail(*v, std::to_string(w.block_max) + " sectors exceeds the " +
                           std::to_string(dev->max_sectors()) + "-sector command limit of the " +
                           (dev->lba48 ? "LBA48" : "LBA28") + " disk on port " +
                           std::to_string(dev->port) + " (use kind: request for limit tests)");
    }
    if (auto *v = m.find("qd"))
        w.qd = unsigned(as_uint(p, *v, 1, 256));
    if (auto *v = m.find("sg_segment")) {
        w.sg_segment = as_bytes(p, *v);
        if (w.sg_segment < 2 || w.sg_segment > (4u << 20) || (w.sg_segment & 1))
            p.fail(*v, "a scatter/gather segment is an even number of bytes from 2 to 4 MiB");
    }

    uint64_t cap = dev->addressable();
    if (auto *v = m.find("region")) {
        MapView r(p, v->node, v->path, v->line, {"start", "length"});
        if (auto *s = r.find("start")) {
            w.region_start = as_sectors_of(p, *s, dev->logical_log2);
            if (w.region_start >= cap)
                p.fail(*s, "start " + std::to_string(w.region_start) + " is beyond the disk's " +
                               std::to_string(cap) + " sectors");
        }
        if (auto *l = r.find("length")) {
            w.region_length = as_sectors_of(p, *l, dev->logical_log2);
            if (w.region_length == 0)
                p.fail(*l, "a region is at least one sector");
            if (w.region_start + w.region_length > cap)
                p.fail(*l, "region " + std::to_string(w.region_start) + "+" +
                               std::to_string(w.region_length) + " sectors ends beyond the disk's " +
                               std::to_string(cap) + " sectors");
        }
    }
    if (w.region_length == 0)
        w.region_length = cap - w.region_start;
    if (w.op != OpSpec::Flush && w.region_length < w.block_max)
        p.fail(m.has("region") ? m.get("region").line : m.line(), m.join("region"),
               "region of " + std::to_string(w.region_length) + " sectors is smaller than the block (" +
                   std::to_string(w.block_max) + " sectors)");

    if (auto *v = m.find("count")) {
        w.count = as_uint(p, *v, 1, 100000000);
    } else if (w.pattern == PatternSpec::Sequential && w.op != OpSpec::Flush && w.block_min == w.block_max) {
        w.count = w.region_length / w.block_max; // one pass over the region
        if (w.count > 100000000)
            p.fail(m.line(), m.join("count"), "required (a sequential pass over the whole region would be " +
                                                  std::to_string(w.count) + " commands)");
    } else {
        p.fail(m.line(), m.join("count"), "required (except for a sequential pass with a fixed block)");
    }
    if (auto *v = m.find("prefill")) {
        w.prefill = as_bool(p, *v) ? PrefillSpec::Yes : PrefillSpec::No;
        if (w.prefill == PrefillSpec::Yes && w.op == OpSpec::Flush)
            p.fail(*v, "a flush workload has nothing to prefill");
    }

    if (w.mode == ModeSpec::Ncq) {
        const Field &mf = m.get("mode");
        if (!dev->ncq)
            p.fail(mf, "the disk on port " + std::to_string(dev->port) + " has ncq: false");
        if (!sc.controller_of(dev->port).ncq)
            p.fail(mf, "the controller has ncq: false");
        if (sc.host.no_ncq)
            p.fail(mf, "host.no_ncq is set");
        if (w.op == OpSpec::Flush)
            p.fail(mf, "a flush is never queued");
        if (w.op == OpSpec::Trim)
            p.fail(mf, "the stack chooses how a trim goes out (SEND FPDMA QUEUED where the disk and host allow it, else DATA SET MANAGEMENT): leave mode auto");
    }
    if (w.op == OpSpec::Trim && dev->trim == TrimSpec::None)
        p.fail(m.get("op"), "the disk on port " + std::to_string(dev->port) + " has no trim key (it does not take TRIM)");
    return w;
}

} // namespace satasim::harness
