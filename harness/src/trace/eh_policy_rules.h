// The EH policy oracle: the verdicts of the EH profile (stack/eh/policy/) judged from the
// trace by libata's rules for that profile (docs/libata-eh.md 1.5, 2, 3.3, 3.5), restated
// here without the stack's code: the error category of each recorded error, the
// speed-down verdict from the device's error history (windows, thresholds, the ring's
// clearing), how a verdict is applied (NCQ off, link speed, transfer mode), the reset
// method and the reset attempts' waits, and which failed commands are retried (fail-fast).
// A verdict one error early or late is a broken rule. The profile is the host's
// (`eh.policy` record; libata-modern when a trace has none).
//
// It runs beside EhRules (trace/eh_rules.h), which feeds it every record and reports its
// violations with its own: an `eh-rule` fuzz finding, a failed scenario run.
// docs/eh-rules.md, "Policy rules", lists each rule with its source and its excuses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "model/common/trace.h"

namespace satasim::harness {

struct EhRuleViolation;
struct EhRuleInfo;

class EhPolicyRules {
  public:
    explicit EhPolicyRules(std::vector<EhRuleViolation> &out) : out_(out) {}
    void on_record(uint64_t t_ns, const TraceRecord &r);
    void finish();
    static const std::vector<EhRuleInfo> &rules();

    enum class Profile { Modern, L2006 };

  private:
    struct Entry { // one error in a device's ring
        uint64_t t = 0;
        unsigned err_mask = 0, eflags = 0;
    };
    struct Dev {
        std::vector<Entry> ring; // oldest first, at most 32, since the last clear
        int ncq = -1;            // NCQ in use: 1, 0, -1 unknown
        unsigned xfer_mask = 0;  // the last limit EH set (0: unknown)
        unsigned spdn_cnt = 0;   // transfer-mode steps EH tried (modern: 2 at most)
        bool set_mode_since = false; // a set-mode since the last recorded error
        unsigned reports = 0;    // EH reports since the last clear (2006: invisible entries)
        bool atapi = false;      // an ATAPI device (probe.class): may fall back to PIO on SATA
    };
    struct Link {
        int spd = 0;          // speed of the last link-up (0: unknown)
        unsigned limit = 0;   // the last speed limit mask EH set (0: none seen)
        bool limit_pending = false; // set since the last link-up: the next reset must apply it
        unsigned exc_action = 0;    // the action of this run's report (0: none)
        bool report_first = false;  // the run's report came and no reset since
        int last_try = 0;
        std::string last_method;
        uint64_t try_start = 0;     // the first record of the attempt in progress
        bool pmp = false;           // (host link) a port multiplier is on the port
        bool atapi = false;         // the link's one device is ATAPI (a link's probe.class)
    };
    struct Pending { // a verdict whose application is the next record
        bool open = false;
        uint64_t t = 0;
        int port = -1, link = -1, dev = -1;
        unsigned verdict = 0;
    };
    using Key = std::tuple<int, int, int>; // port, link, dev

    void add(const char *rule, uint64_t t, int port, int link, int dev, const std::string &detail);
    void ering(uint64_t t, const TraceRecord &r, Dev &d, const Key &k);
    void resolve(const TraceRecord *r);
    void reset(uint64_t t, const TraceRecord &r, Link &l);
    void reset_failed(uint64_t t, const TraceRecord &r, Link &l);
    void retry(uint64_t t, const TraceRecord &r);
    unsigned verdict(const std::vector<Entry> &ring, uint64_t now, bool older_verified) const;
    int category(unsigned err_mask, unsigned eflags, bool dubious) const;

    std::vector<EhRuleViolation> &out_;
    Profile profile_ = Profile::Modern;
    bool has_hardreset_ = false; // the driver has a hardreset (eh.policy)
    // Several hosts (controllers:): each eh.policy names its ports (first_port, ports); the
    // hardreset of the driver of a port's host, by its first port (absent: has_hardreset_).
    std::map<int, std::pair<int, bool>> host_hardreset_; // first port -> (ports, hardreset)
    bool hardreset_on(int port) const;
    std::map<Key, Dev> devs_;
    std::map<std::pair<int, int>, Link> links_;
    Pending pending_;
};

} // namespace satasim::harness
