// The EH decision oracle: a monitor that reads a run's trace records as they are emitted
// (the stack's decisions and the models' hardware events) and judges the error handler's
// decision sequence by libata's rules (docs/libata-eh.md) and the specifications' register
// semantics, independently of the stack's EH code: it keeps its own small state per port
// and link (frozen, current link speed, pending obligations) from the records alone.
// docs/eh-rules.md lists every rule with its source, what the monitor sees and what it
// excuses; the fuzz oracles (fuzz/oracles.h) report each broken rule as `eh-rule`, and a
// scenario run that breaks one fails with the rule named (trace/report.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/common/trace.h"
#include "trace/eh_policy_rules.h"

namespace satasim::harness {

// Receives every record the trace sink emits (also the command records a scenario without
// trace_cmds does not write), with its simulated time.
class RecordObserver {
  public:
    virtual ~RecordObserver() = default;
    virtual void on_record(uint64_t t_ns, const TraceRecord &r) = 0;
};

struct EhRuleViolation {
    std::string rule;   // the rule's id (EhRules::rules())
    uint64_t t_ns = 0;  // when the monitor saw it broken
    std::string where;  // "ata1", "ata1.02"
    std::string detail; // what happened, with the numbers
    std::string str() const;
};

struct EhRuleInfo {
    const char *id;
    const char *text; // the rule as a reviewer states it, with its source
};

class EhRules : public RecordObserver {
  public:
    // libata's ATA_EH_DEV_TRIES (3 in every era, docs/libata-eh.md 3.1)
    static constexpr int kDevTries = 3;

    void on_record(uint64_t t_ns, const TraceRecord &r) override;
    // End of the trace: judges what is still open and can be judged without a later record.
    void finish();
    const std::vector<EhRuleViolation> &violations() const { return out_; }
    static const std::vector<EhRuleInfo> &rules();

  private:
    using LinkKey = std::pair<int, int>; // port, fan-out link (-1: host link)
    struct PendingError {                // an error the LLD read, to be seen in the next report
        uint64_t t_ns = 0;
        bool need_bus = false;              // AC_ERR_ATA_BUS expected
        std::vector<std::string> words;     // words the description must contain
        std::string what;                   // "PxIS.IFS", "PORT_CMD_ERR 3"
        bool during_eh = false; // read after a snapshot while EH's internal command was on the wire
    };
    struct Report { // the exceptions of one EH report on a port (one simulated instant)
        bool open = false;
        uint64_t t_ns = 0;
        unsigned emask = 0;
        std::string desc;
        bool desc_truncated = false;
        std::vector<PendingError> errors; // what it must describe
    };
    struct Port {
        bool reset_owed = false; // frozen or timed out: no command before a reset
        std::string reset_owed_why;
        bool thawed = false; // known thawed: a host-link reset succeeded since the last freeze
        bool issued = false; // a command was issued since then
        bool pmp = false;    // a port multiplier was seen on this port
        bool internal_active = false; // an internal command (EH's or the probe's) is on the wire
        // Errors the LLD read: since the last EH snapshot (in eh_info now), and those the last
        // snapshot took (the running EH's context: its report describes them). A trace
        // without eh.snapshot records (written before it existed) has only `errors`.
        std::vector<PendingError> errors, snap;
        bool snap_seen = false;
        Report report;
        uint64_t hotplug_t = 0; // the hotplug exception whose link-up is still due (0: none)
        bool hotplug_due = false;
        uint32_t serror_clear_due = 0; // fan-out ports named by GSCR[32] and handled
        uint32_t n_due = 0;            // fan-out ports with a PHY change since SError was read
    };
    struct Link {
        int spd = 0;          // speed of the last link-up (0: unknown)
        int limit_spd = 0;    // a speed limit still to take effect at the next link-up
        bool first_due = false;    // the port reported (a new EH run): the next recovery failure is its first
        bool fail_seen = false;    // a failure record on this link since that report ...
        bool earlier_fail = false; // ... at an earlier instant than the latest one
        uint64_t fail_t = 0;
        int culprit_tag = -1; // the tag the drive failed (NCQ), not yet blamed by EH
        uint64_t culprit_t = 0;
    };

    void add(const char *rule, uint64_t t_ns, int port, int link, std::string detail);
    void freeze(Port &p, const std::string &why);
    void close_report(uint64_t t_ns, int port, Port &p);
    void stack_record(uint64_t t_ns, const TraceRecord &r, Port &p, Link &l);
    void model_record(uint64_t t_ns, const TraceRecord &r, Port &p);
    Port &port(int p) { return ports_[p]; }
    Link &link(int p, int l) { return links_[{p, l}]; }

    std::map<int, Port> ports_;
    std::map<LinkKey, Link> links_;
    std::vector<EhRuleViolation> out_;
    EhPolicyRules policy_{out_}; // the EH profile's verdicts (eh_policy_rules.h), reported here too
};

// One trace.jsonl line as a record (trace/trace_sink.h's format); false if it is not one.
// Field values: integers and "0x.." strings become Int/Hex, true/false Bool, other strings Str.
bool parse_trace_line(const std::string &line, uint64_t &t_ns, TraceRecord &r);

// Every rule over a trace.jsonl file; an unreadable or malformed file is an error (message
// naming file and line in *error, false).
bool check_trace_file(const std::string &path, std::vector<EhRuleViolation> &out, std::string *error);

} // namespace satasim::harness
