// Sections devices[] and pmps[], and the addressing of a disk (host port, fan-out port)
// that workloads, faults and expectations share (scenarios/README.md).
#include "scenario/sections.h"

#include "controller/controller_table.h"

namespace satasim::harness {

// The refusal of a host port or fan-out port that the topology does not have.
std::string no_such_port(const Scenario &sc, unsigned port, unsigned ctl) {
    const ControllerSpec &c = sc.controller_at(ctl);
    return "port " + std::to_string(port) + " does not exist on " +
           (sc.multi() ? "controller " + std::to_string(ctl) + " (" : std::string()) + "a " +
           std::to_string(c.ports) + "-port " + c.type + " controller" + (sc.multi() ? ")" : "");
}

// controllers[]: the controller an entry names (`controller`, default 0).
unsigned parse_controller_ref(const Parser &p, const MapView &m, const Scenario &sc) {
    const Field *v = m.find("controller");
    if (!v)
        return 0;
    const unsigned c = unsigned(as_uint(p, *v, 0, 255));
    if (c >= sc.n_controllers())
        p.fail(*v, "controller " + std::to_string(c) + " does not exist (" +
                       (sc.multi() ? "controllers: has " + std::to_string(sc.controllers.size()) + " entries, 0 to " +
                                         std::to_string(sc.controllers.size() - 1)
                                   : std::string("the scenario has one controller, 0; several are controllers: [...]")) +
                       ")");
    return c;
}

unsigned parse_host_port(const Parser &p, const MapView &m, const Field &pf, const Scenario &sc) {
    const unsigned ctl = parse_controller_ref(p, m, sc);
    const unsigned port = unsigned(as_uint(p, pf, 0, 31));
    if (port >= sc.controller_at(ctl).ports)
        p.fail(pf, no_such_port(sc, port, ctl));
    return sc.controller_at(ctl).first_port + port;
}
std::string no_such_fanout_port(const PmpSpec &pm, unsigned fanout) {
    return "fan-out port " + std::to_string(fanout) + " does not exist on the " + std::to_string(pm.ports) +
           "-port port multiplier on port " + std::to_string(pm.port) + " (line " + std::to_string(pm.line) + ")";
}

// A device number: 0 (master) or 1 (slave), the latter only on a channel with a slave
// position (controller: {type: piix, map: ich6}).
unsigned parse_devno(const Parser &p, const Field &f, const Scenario &sc, unsigned port) {
    unsigned n = unsigned(as_uint(p, f, 0, 1));
    if (n && !sc.controller_of(port).slave_positions())
        p.fail(f, "a " + sc.controller_of(port).type + " port has no device 1 (slave): devno 1 needs controller: {type: piix, map: ich6} or {type: piix, part: piix4}");
    return n;
}

// The disk a workload, fault or expectation names: the host port (`port_key`) and, on a
// port with a port multiplier, the fan-out port (`pmp_port`). Both must exist; whether a
// disk is configured there is the caller's question.
DevAddr parse_dev_addr(const Parser &p, const MapView &m, const char *port_key, const Scenario &sc,
                       const std::string &required_note) {
    if (!m.has(port_key))
        p.fail(m.line(), m.join(port_key), "required (" + required_note + ")");
    const Field &pf = m.get(port_key);
    DevAddr a;
    a.port = parse_host_port(p, m, pf, sc);
    const PmpSpec *pm = sc.pmp_on_port(a.port);
    if (auto *v = m.find("pmp_port")) {
        if (!pm)
            p.fail(*v, sc.port_name(a.port) + " has no port multiplier (pmps[])");
        a.pmp_port = unsigned(as_uint(p, *v, 0, 14));
        if (*a.pmp_port >= pm->ports)
            p.fail(*v, no_such_fanout_port(*pm, *a.pmp_port));
    }
    if (auto *v = m.find("devno"))
        a.devno = parse_devno(p, *v, sc, a.port);
    return a;
}

// The configured disk at `a`, or a failure at the address's port key naming where the disks are.
const DeviceSpec &addressed_disk(const Parser &p, const MapView &m, const char *port_key, const DevAddr &a,
                                 const Scenario &sc, const std::string &extra) {
    if (const DeviceSpec *d = sc.device_at(a))
        return *d;
    const PmpSpec *pm = sc.pmp_on_port(a.port);
    if (pm && !a.pmp_port)
        p.fail(m.get(port_key), "port " + std::to_string(a.port) + " has a port multiplier (pmps[], line " +
                                    std::to_string(pm->line) + "): give the disk's pmp_port");
    std::string where;
    for (const auto &d : sc.devices)
        where += (where.empty() ? "" : ", ") + (d.pmp_port || d.devno ? d.addr().str() : std::to_string(d.port));
    p.fail(a.pmp_port ? m.get("pmp_port") : a.devno ? m.get("devno") : m.get(port_key),
           "no disk on " + a.str() + extra +
               (where.empty() ? std::string(" (no disks configured)") : " (disks are on ports " + where + ")"));
}

static void parse_timing(const Parser &p, const Field &f, TimingSpec &t) {
    MapView m(p, f.node, f.path, f.line,
              {"kind", "rpm", "seek", "latency", "rate", "overhead", "reset_ready", "units"});
    if (!m.has("kind"))
        p.fail(m.line(), m.join("kind"), "required (ssd or hdd)");
    t.ssd = as_enum<bool>(p, m.get("kind"), {{"ssd", true}, {"hdd", false}});
    if (t.ssd) {
        // An SSD default profile: flat latency, SATA-3-class media rate.
        t.latency_us = 60;
        t.rate_mb_s = 550;
        t.overhead_us = 20;
        for (const char *k : {"rpm", "seek"})
            if (m.has(k))
                p.fail(m.get(k), "only for kind: hdd");
    } else {
        for (const char *k : {"latency", "units"})
            if (m.has(k))
                p.fail(m.get(k), std::string("only for kind: ssd") +
                                     (k[0] == 'l' ? " (an hdd's latency comes from seek and rpm)" : ""));
    }
    if (auto *v = m.find("rpm"))
        t.rpm = double(as_uint(p, *v, 1000, 30000));
    if (auto *v = m.find("seek"))
        t.seek_ms = double(as_time_ns(p, *v)) / 1e6;
    if (auto *v = m.find("latency"))
        t.latency_us = double(as_time_ns(p, *v)) / 1e3;
    if (auto *v = m.find("rate"))
        t.rate_mb_s = as_rate(p, *v);
    if (auto *v = m.find("overhead"))
        t.overhead_us = double(as_time_ns(p, *v)) / 1e3;
    if (auto *v = m.find("reset_ready"))
        t.reset_ready_ms = double(as_time_ns(p, *v)) / 1e6;
    if (auto *v = m.find("units"))
        t.units = unsigned(as_uint(p, *v, 1, 256));
}

PmpSpec parse_pmp(const Parser &p, const Field &f, const Scenario &sc) {
    PmpSpec x;
    MapView m(p, f.node, f.path, f.line, {"port", "controller", "ports", "product", "fbs", "async_notify"});
    x.line = m.line();
    if (!m.has("port"))
        p.fail(m.line(), m.join("port"), "required");
    x.port = parse_host_port(p, m, m.get("port"), sc);
    const ControllerSpec &ctl = sc.controller_of(x.port);
    if (!controller_desc(ctl.type).pmp)
        p.fail(m.get("port"), "a " + ctl.type + " taskfile channel cannot address a port multiplier");
    if (const PmpSpec *other = sc.pmp_on_port(x.port))
        p.fail(m.get("port"), sc.port_name(x.port) + " already has a port multiplier (line " +
                                  std::to_string(other->line) + ")");
    if (const char *why = p.backend->refuses_key(ScenarioKey::Pmps))
        p.fail(m.line(), f.path, why);
    if (auto *v = m.find("ports"))
        x.ports = unsigned(as_uint(p, *v, 1, 15));
    if (auto *v = m.find("product"))
        x.product = as_enum<std::string>(p, *v, {{"sii3726", "sii3726"}, {"sii4726", "sii4726"},
                                                       {"sii5744", "sii5744"}, {"jmb394", "jmb394"},
                                                       {"jmb575", "jmb575"}});
    if (auto *v = m.find("fbs"))
        x.fbs = as_bool(p, *v);
    if (auto *v = m.find("async_notify"))
        x.async_notify = as_bool(p, *v);
    return x;
}

static DeviceSpec parse_device(const Parser &p, const Field &f, const Scenario &sc) {
    DeviceSpec d;
    MapView m(p, f.node, f.path, f.line,
              {"port", "controller", "model", "serial", "firmware", "capacity", "lba48", "ncq", "ncq_depth",
               "gen", "udma", "pio", "multi", "ata_major", "write_cache", "status_dsc", "ncq_order", "timing", "blkdebug",
               "present", "hpa", "trim", "ncq_trim", "smart", "ncq_log_count", "d2h_regs", "logical_sector", "physical_sector", "align_offset", "hipm", "dipm", "devsleep", "ncq_sdb_coalesce", "link", "pmp_port", "timeout", "attach_read", "errata", "devno", "atapi"});
    d.line = m.line();
    if (auto *v = m.find("atapi")) {
        MapView am(p, v->node, v->path, v->line, {"disc_blocks", "disc_seed", "medium", "cdb_drq", "dmadir", "dma", "udma", "pio"});
        AtapiSpec a;
        if (auto *x = am.find("disc_blocks"))
            a.disc_blocks = uint32_t(as_uint(p, *x, 1, 0xFFFFFFFFull));
        if (auto *x = am.find("disc_seed"))
            a.disc_seed = as_uint(p, *x, 0, ~0ull);
        if (auto *x = am.find("medium"))
            a.medium = as_bool(p, *x);
        if (auto *x = am.find("cdb_drq"))
            a.cdb_drq = as_enum<unsigned>(p, *x, {{"3ms", 0u}, {"interrupt", 1u}, {"50us", 2u}});
        if (auto *x = am.find("dmadir"))
            a.dmadir = as_bool(p, *x);
        if (auto *x = am.find("dma"))
            a.dma = as_bool(p, *x);
        if (auto *x = am.find("udma"))
            a.udma = unsigned(as_uint(p, *x, 0, 6));
        if (auto *x = am.find("pio"))
            a.pio = unsigned(as_uint(p, *x, 0, 4));
        d.atapi = a;
        d.model = "SATASIM DVD-ROM";
        d.firmware = "1.00";
    }
    if (auto *v = m.find("link"))
        d.link_mode = parse_link(p, *v);
    if (!m.has("port"))
        p.fail(m.line(), m.join("port"), "required");
    d.port = parse_host_port(p, m, m.get("port"), sc); // host-wide: serials differ across controllers
    d.serial = "SIM" + std::string(d.port < 10 ? "000000" : "00000") + std::to_string(d.port);
    if (auto *v = m.find("pmp_port")) {
        d.pmp_port = unsigned(as_uint(p, *v, 0, 14));
        // default serial: SIM<port><pmp_port> in 10 characters, e.g. SIM0000102 (port 1, 2)
        std::string n = std::to_string(d.port * 100 + *d.pmp_port);
        d.serial = "SIM" + std::string(7 - n.size(), '0') + n;
    }
    if (auto *v = m.find("devno")) {
        d.devno = unsigned(as_uint(p, *v, 0, 1));
        if (d.devno) // default serial: the master's + S, e.g. SIM0000000S (port 0's slave)
            d.serial = "SIM" + std::string(d.port < 10 ? "000000" : "00000") + std::to_string(d.port) + "S";
    }
    if (auto *v = m.find("model"))
        d.model = as_ident_string(p, *v, 40);
    if (auto *v = m.find("serial"))
        d.serial = as_ident_string(p, *v, 20);
    if (auto *v = m.find("firmware"))
        d.firmware = as_ident_string(p, *v, 8);
    // the logical sector first: capacity and hpa count in it (docs/device.md 4.1)
    if (auto *v = m.find("logical_sector")) {
        const uint64_t bytes = as_uint(p, *v, 512, 4096);
        if (bytes != 512 && bytes != 4096)
            p.fail(*v, "logical_sector is the logical sector size in bytes: 512, or 4096 (4Kn)");
        d.logical_log2 = bytes == 4096 ? 3 : 0;
        d.physical_log2 = d.logical_log2; // physical_sector defaults to the logical sector
    }
    if (auto *v = m.find("capacity")) {
        d.capacity = as_sectors_of(p, *v, d.logical_log2);
        if (d.capacity < 1 || d.capacity > (1ull << 48) - 1)
            p.fail(*v, "capacity must be 1 .. 2^48-1 sectors");
    } else if (d.logical_log2) {
        d.capacity >>= d.logical_log2;
    }
    if (auto *v = m.find("lba48"))
        d.lba48 = as_bool(p, *v);
    if (auto *v = m.find("ncq"))
        d.ncq = as_bool(p, *v);
    if (auto *v = m.find("ncq_depth"))
        d.ncq_depth = unsigned(as_uint(p, *v, 1, 32));
    if (auto *v = m.find("gen")) {
        d.gen = unsigned(as_uint(p, *v, 1, 3));
        d.gen_set = true;
    }
    if (auto *v = m.find("udma"))
        d.udma = unsigned(as_uint(p, *v, 0, 6));
    if (auto *v = m.find("pio"))
        d.pio = unsigned(as_uint(p, *v, 0, 4));
    if (auto *v = m.find("multi")) {
        d.multi = unsigned(as_uint(p, *v, 0, 128));
        if (d.multi & (d.multi - 1))
            p.fail(*v, "multi must be 0 (off) or a power of two up to 128");
    }
    if (auto *v = m.find("ata_major"))
        d.ata_major = unsigned(as_uint(p, *v, 1, 14));
    if (auto *v = m.find("write_cache"))
        d.write_cache = as_bool(p, *v);
    if (auto *v = m.find("status_dsc"))
        d.status_dsc = as_bool(p, *v);
    if (auto *v = m.find("hpa")) {
        d.hpa = as_sectors_of(p, *v, d.logical_log2);
        if (d.hpa < 1 || d.hpa > d.capacity)
            p.fail(*v, "hpa (the sectors accessible at power-on) must be 1 .. the capacity (" +
                           std::to_string(d.capacity) + " sectors)");
    }
    if (auto *v = m.find("hipm"))
        d.hipm = as_bool(p, *v);
    if (auto *v = m.find("dipm"))
        d.dipm = as_bool(p, *v);
    if (auto *v = m.find("devsleep"))
        d.devsleep = as_bool(p, *v);
    if (auto *v = m.find("trim"))
        d.trim = as_enum<TrimSpec>(p, *v,
                                   {{"none", TrimSpec::None},
                                    {"zeroes", TrimSpec::Zeroes},
                                    {"deterministic", TrimSpec::Deterministic},
                                    {"indeterminate", TrimSpec::Indeterminate}});
    if (auto *v = m.find("ncq_trim")) {
        d.ncq_trim = as_bool(p, *v);
        if (d.ncq_trim && d.trim == TrimSpec::None)
            p.fail(*v, "queued TRIM needs a drive that takes TRIM (trim: zeroes, deterministic or indeterminate)");
    }
    if (auto *v = m.find("physical_sector")) {
        const uint64_t bytes = as_uint(p, *v, 512, 65536);
        unsigned log2 = 0;
        while (log2 < 7 && (512ull << log2) < bytes)
            ++log2;
        if ((512ull << log2) != bytes)
            p.fail(*v, "physical_sector is the physical sector size in bytes: 512, 1024, 2048, 4096, ... 65536");
        if (log2 < d.logical_log2)
            p.fail(*v, "physical_sector (" + std::to_string(bytes) + ") is smaller than the logical sector (" +
                           std::to_string(512u << d.logical_log2) + ")");
        d.physical_log2 = log2;
    }
    if (auto *v = m.find("align_offset")) {
        const unsigned per = 1u << (d.physical_log2 - d.logical_log2);
        d.align_offset = unsigned(as_uint(p, *v, 0, 127));
        if (d.align_offset >= per)
            p.fail(*v, "align_offset (IDENTIFY word 209: where LBA 0 sits in the first physical sector, in logical "
                       "sectors) must be below the logical sectors per physical sector (" +
                           std::to_string(per) + ")");
    }
    if (auto *v = m.find("smart"))
        d.smart = as_enum<SmartSpec>(p, *v,
                                     {{"none", SmartSpec::None},
                                      {"good", SmartSpec::Good},
                                      {"threshold_exceeded", SmartSpec::ThresholdExceeded}});
    if (auto *v = m.find("ncq_log_count"))
        d.ncq_log_count = as_enum<NcqLogCountSpec>(p, *v,
                                                   {{"full", NcqLogCountSpec::Full},
                                                    {"low_byte", NcqLogCountSpec::LowByte},
                                                    {"none", NcqLogCountSpec::None}});
    if (auto *v = m.find("d2h_regs"))
        d.d2h_regs = as_enum<D2hRegsSpec>(p, *v,
                                          {{"cleared", D2hRegsSpec::Cleared},
                                           {"echo", D2hRegsSpec::Echo},
                                           {"lba_bits", D2hRegsSpec::LbaBits}});
    if (auto *v = m.find("ncq_order"))
        d.ncq_order = as_enum<NcqOrderSpec>(p, *v,
                                            {{"in_order", NcqOrderSpec::InOrder},
                                             {"reverse", NcqOrderSpec::Reverse},
                                             {"random", NcqOrderSpec::Random},
                                             {"shortest_seek", NcqOrderSpec::ShortestSeek},
                                             {"shortest_access", NcqOrderSpec::ShortestAccess}});
    if (auto *v = m.find("timing"))
        parse_timing(p, *v, d.timing);
    if (d.timing.units > 1 && m.has("ncq_order"))
        p.fail(m.get("ncq_order"), "a parallel SSD (timing.units > 1) finishes queued commands in the order their "
                                   "data is ready; ncq_order is for a drive that works on one at a time");
    if (d.timing.ssd && d.ncq_order == NcqOrderSpec::ShortestAccess)
        p.fail(m.get("ncq_order"), "shortest_access orders by seek and rotational latency, which an SSD (timing.kind: "
                                   "ssd) does not have");
    if (auto *v = m.find("present"))
        d.present = as_bool(p, *v);
    if (auto *v = m.find("timeout")) {
        // the SCSI disk layer's request timeout (sysfs .../device/timeout); the stack's timers are in ms
        d.timeout_ns = as_time_ns(p, *v);
        if (d.timeout_ns < 1000000ull || d.timeout_ns > 3600ull * 1000000000ull || d.timeout_ns % 1000000ull)
            p.fail(*v, "a request timeout is whole milliseconds from 1ms to 3600s");
    }
    if (auto *v = m.find("attach_read"))
        d.attach_read = as_bool(p, *v);
    if (auto *v = m.find("errata")) {
        const YAML::Node &l = as_list(p, *v);
        for (size_t i = 0; i < l.size(); ++i) {
            Field ef = element(*v, i);
            const std::string e = as_enum<std::string>(p, ef, {{"mod15write", "mod15write"}, {"ncq_trim", "ncq_trim"}});
            bool &flag = e == "ncq_trim" ? d.ncq_trim_erratum : d.mod15write;
            if (flag)
                p.fail(ef, e + " is already listed");
            flag = true;
            if (e == "ncq_trim" && !d.ncq_trim)
                p.fail(ef, "the ncq_trim erratum is a drive that offers queued TRIM (ncq_trim: true)");
        }
    }
    if (auto *v = m.find("ncq_sdb_coalesce")) {
        d.ncq_sdb_coalesce_ns = as_time_ns(p, *v);
        if (d.ncq_sdb_coalesce_ns > 1000000000ull)
            p.fail(*v, "at most 1s");
    }
    if (auto *v = m.find("blkdebug")) {
        const YAML::Node &l = as_list(p, *v);
        for (size_t i = 0; i < l.size(); ++i) {
            Field ef = element(*v, i);
            MapView em(p, ef.node, ef.path, ef.line, {"op", "lba", "once", "errno"});
            BlkdebugRule r;
            r.line = em.line();
            if (!em.has("op"))
                p.fail(em.line(), em.join("op"), "required");
            r.op = as_enum<BlkdebugOp>(p, em.get("op"),
                                       {{"read", BlkdebugOp::Read}, {"write", BlkdebugOp::Write},
                                        {"flush", BlkdebugOp::Flush}});
            if (auto *x = em.find("lba")) {
                if (r.op == BlkdebugOp::Flush)
                    p.fail(*x, "a flush has no sector: leave lba out");
                r.lba = int64_t(as_sectors(p, *x));
                if (uint64_t(r.lba) >= d.capacity)
                    p.fail(*x, "lba beyond the disk's capacity");
            }
            if (auto *x = em.find("once"))
                r.once = as_bool(p, *x);
            if (auto *x = em.find("errno"))
                r.err = unsigned(as_uint(p, *x, 1, 133));
            d.blkdebug.push_back(r);
        }
    }
    return d;
}

// One devices[] entry, checked against the topology: a host port that exists, a fan-out
// port when (and only when) a port multiplier sits on the port, one disk per place.
DeviceSpec parse_placed_device(const Parser &p, const Field &df, const Scenario &sc) {
    DeviceSpec d = parse_device(p, df, sc);
    std::string ppath = df.path + ".port";
    int pline = line_of(df.node["port"], d.line);
    if (const PmpSpec *pm = sc.pmp_on_port(d.port)) {
        const std::string fpath = df.path + ".pmp_port";
        const int fline = line_of(df.node["pmp_port"], d.line);
        if (!d.pmp_port)
            p.fail(pline, ppath,
                   "port " + std::to_string(d.port) + " has a port multiplier (pmps[], line " +
                       std::to_string(pm->line) + "): give the disk its pmp_port");
        if (*d.pmp_port >= pm->ports)
            p.fail(fline, fpath,
                   no_such_fanout_port(*pm, *d.pmp_port));
        for (const DeviceSpec &o : sc.devices)
            if (o.port == d.port && o.pmp_port == d.pmp_port)
                p.fail(fline, fpath,
                       "fan-out port " + std::to_string(*d.pmp_port) + " of port " +
                           std::to_string(d.port) + " already has a disk (line " +
                           std::to_string(o.line) + ")");
    } else if (d.pmp_port) {
        p.fail(line_of(df.node["pmp_port"], d.line), df.path + ".pmp_port",
               "port " + std::to_string(d.port) + " has no port multiplier (add it to pmps[])");
    }
    if (d.atapi && (d.pmp_port || d.devno))
        p.fail(line_of(df.node["atapi"], d.line), df.path + ".atapi",
               "an ATAPI drive sits on a host port's device 0 (not behind a port multiplier, not a slave)");
    if (d.devno && !sc.controller_of(d.port).slave_positions())
        p.fail(line_of(df.node["devno"], d.line), df.path + ".devno",
               "a " + sc.controller_of(d.port).type + " port has no device 1 (slave): devno 1 needs controller: {type: piix, map: ich6} or {type: piix, part: piix4}");
    if (const DeviceSpec *other = d.pmp_port ? nullptr : sc.device_at(d.addr()))
        p.fail(d.devno ? line_of(df.node["devno"], d.line) : pline, d.devno ? df.path + ".devno" : ppath,
               d.addr().str() + " already has a disk (line " + std::to_string(other->line) + ")");
    if (const char *why = p.backend->refuses_key(ScenarioKey::DeviceLink); d.link_mode && why)
        p.fail(line_of(df.node["link"], d.line), df.path + ".link", why);
    // A disk faster than the host is fine: the link negotiates down.
    return d;
}


} // namespace satasim::harness
