// libata.force's values as Linux 6.1's table names them (Documentation/admin-guide/
// kernel-parameters.txt, "libata.force"); the ones satasim models, and the others named
// as such so a report's parameter is refused with a reason, not as a typo.
#include "scenario/force_option.h"

#include <cctype>

#include "scenario/units.h"

namespace satasim::harness {

namespace {

const std::string kValues =
    "1.5Gbps, 3.0Gbps, noncq, ncq, noncqtrim, ncqtrim, nodma, dma, nolpm, lpm, udma0..7, udma16..udma133, udma/16..udma/133, mwdma0..4, pio0..6)";

// The value part: true when it is one satasim applies.
bool value_of(const std::string &v, ForceOption &o) {
    using X = ForceOption::Xfer;
    if (v == "1.5Gbps" || v == "3.0Gbps") { // the kernel's table has no 6.0Gbps
        o.spd_limit = v[0] == '1' ? 1 : 2;
        return true;
    }
    if (v == "noncq" || v == "ncq") {
        o.ncq = v == "noncq" ? -1 : 1;
        return true;
    }
    if (v == "noncqtrim" || v == "ncqtrim") { // horkage NO_NCQ_TRIM on / off
        o.ncq_trim = v == "noncqtrim" ? -1 : 1;
        return true;
    }
    if (v == "nodma" || v == "dma") { // horkage NODMA on / off
        o.dma = v == "nodma" ? -1 : 1;
        return true;
    }
    if (v == "nolpm" || v == "lpm") { // horkage NOLPM on / off
        o.lpm = v == "nolpm" ? -1 : 1;
        return true;
    }
    // UDMA by speed (udma100, udma/100) or by number (udma5)
    static const std::pair<const char *, unsigned> kUdmaSpeeds[] = {
        {"16", 0}, {"25", 1}, {"33", 2}, {"44", 3}, {"66", 4}, {"100", 5}, {"133", 6}};
    struct Class {
        const char *prefix;
        X x;
        unsigned max;
    };
    for (const Class &c : {Class{"udma", X::Udma, 7}, Class{"mwdma", X::Mwdma, 4}, Class{"pio", X::Pio, 6}}) {
        const std::string pre = c.prefix;
        if (v.compare(0, pre.size(), pre) != 0)
            continue;
        std::string rest = v.substr(pre.size());
        bool slash = !rest.empty() && rest[0] == '/';
        if (slash)
            rest = rest.substr(1);
        if (c.x == X::Udma)
            for (const auto &[speed, mode] : kUdmaSpeeds)
                if (rest == speed) {
                    o.xfer = X::Udma;
                    o.xfer_mode = mode;
                    return true;
                }
        if (slash || rest.size() != 1 || !std::isdigit(static_cast<unsigned char>(rest[0])))
            return false;
        unsigned n = unsigned(rest[0] - '0');
        if (n > c.max)
            return false;
        o.xfer = c.x;
        o.xfer_mode = n;
        return true;
    }
    return false;
}

// libata.force values satasim has no model of (cables, reset and link flags, other horkages).
bool known_unmodelled(const std::string &v) {
    static const char *const kNames[] = {"40c", "80c", "short40c", "unk", "ign", "sata", "nohrst", "nosrst",
                                         "norst", "rstonce", "noncqati", "dump_id",
                                         "atapi_dmadir", "disable", "nodmalog", "dmalog", "noiddevlog",
                                         "iddevlog", "max_sec_128", "max_sec_1024",
                                         "max_sec_lba48", "nosetxfer", "setxfer", "nofua", "fua",
                                         "noatapi", "atapi", "notrim", "trim", "nodmadir"};
    for (const char *n : kNames)
        if (v == n)
            return true;
    return false;
}

} // namespace

std::optional<std::string> parse_force_options(const std::string &text, std::vector<ForceOption> &out) {
    int last_port = -1, last_device = -1;
    size_t pos = 0;
    unsigned index = 0;
    for (;;) {
        size_t comma = text.find(',', pos);
        std::string ent = trim(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        ++index;
        const std::string where = "entry " + std::to_string(index) + " '" + ent + "'";
        if (ent.empty())
            return where + ": empty (entries are [PORT[.DEVICE]:]VALUE, separated by commas)";
        ForceOption o;
        o.port = last_port;
        o.device = last_device;
        std::string val = ent;
        if (size_t colon = ent.find(':'); colon != std::string::npos) {
            std::string id = trim(ent.substr(0, colon));
            val = trim(ent.substr(colon + 1));
            std::string port = id, dev;
            if (size_t dot = id.find('.'); dot != std::string::npos) {
                port = id.substr(0, dot);
                dev = id.substr(dot + 1);
            }
            auto pn = parse_uint(port);
            if (!pn || *pn < 1 || *pn > 32)
                return where + ": the port '" + port + "' is not a libata port number (1 = the controller's port 0)";
            o.port = int(*pn);
            o.device = -1;
            if (!dev.empty()) {
                auto dn = parse_uint(dev);
                if (!dn || *dn > 15)
                    return where + ": the device '" + dev + "' is not 0..15 (00 the disk, 01..14 behind a port "
                                   "multiplier)";
                o.device = int(*dn);
            } else if (id.find('.') != std::string::npos) {
                return where + ": nothing after the '.' of the ID";
            }
            last_port = o.port;
            last_device = o.device;
        }
        o.name = val;
        if (!value_of(val, o)) {
            if (known_unmodelled(val))
                return where + ": '" + val + "' is a libata.force value satasim does not model (it takes " + kValues;
            return where + ": '" + val + "' is not a libata.force value (" + kValues;
        }
        if (o.name.size() > 15)
            return where + ": too long";
        out.push_back(o);
        if (comma == std::string::npos)
            return std::nullopt;
        pos = comma + 1;
    }
}

} // namespace satasim::harness
