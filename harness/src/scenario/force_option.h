// host.force: libata.force's syntax ("1.00:noncq,2:1.5Gbps,udma100"), read into the
// entries the stack applies (ata_host_config.force, stack/README.md "libata.force").
// Documented in scenarios/README.md, section `host`.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace satasim::harness {

struct ForceOption {
    int port = -1;        // libata print id (controller port + 1); -1 every port
    int device = -1;      // -1 any; 0..14 fan-out port; 15 the host link's device
    unsigned spd_limit = 0; // 1 (1.5Gbps) or 2 (3.0Gbps)
    enum class Xfer { None, Pio, Mwdma, Udma } xfer = Xfer::None;
    unsigned xfer_mode = 0; // mode number within its class (udma100 = UDMA 5)
    int ncq = 0;            // -1 noncq, 1 ncq, 0 untouched
    int dma = 0;            // -1 nodma (horkage NODMA), 1 dma, 0 untouched
    int lpm = 0;            // -1 nolpm (horkage NOLPM), 1 lpm, 0 untouched
    int ncq_trim = 0;       // -1 noncqtrim (horkage NO_NCQ_TRIM), 1 ncqtrim, 0 untouched
    std::string name;       // the value as written: the FORCE: log line names it
};

// Parses the parameter's comma-separated `[PORT[.DEVICE]:]VALUE` entries; an entry
// without an ID takes the previous entry's (as the kernel does). On a malformed entry
// returns why, naming it; nullopt when all is well.
std::optional<std::string> parse_force_options(const std::string &text, std::vector<ForceOption> &out);

} // namespace satasim::harness
