// The one trace sink: every event of the stack (through the platform's trace op), of the
// models (ModelTrace) and of the harness itself becomes one JSON-lines record in
// trace.jsonl and, when it carries a message, one line of the human log satasim.log in
// libata's wording. Both outputs are deterministic: simulated time only, integers only,
// fields in emission order.
//
// Record: {"t_ns":N,"seq":N,"src":"stack"|<model>|"harness","ev":name,
//          "cls":"decision"|"info"|"cmd"|"model","lvl":"err"|"warn"|"info"|"debug"|"cont",
//          "port":N[,"link":N][,"dev":N],"f":{...}[,"msg":".."]}
// lvl is the log level: a record's msg is a satasim.log line exactly when lvl is not
// "debug" (stack: its SATA_LOG_* level; models: always debug; harness: info, or err for
// a failure of the run). "cont": the second line of the record before it (a two-line
// printk), written without a prefix, indented under it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/common/trace.h"
#include "satasim/trace.h"

namespace satasim::harness {

class TraceSink : public ModelTrace {
  public:
    using Clock = std::function<uint64_t()>; // simulated time in ns

    TraceSink(Clock clock, bool trace_cmds);
    ~TraceSink() override;

    // Opens the two output files (truncating). False with errno set on failure.
    bool open(const std::string &trace_path, const std::string &log_path);
    // Process-wide: open() writes no files and records are not formatted (the log text, the
    // observer and the counts stay): the fuzz runner's runs, whose oracles read the report.
    static void set_no_files(bool on) { no_files_ = on; }
    void flush();
    void close();

    // ModelTrace
    void emit(const TraceRecord &rec) override;
    // The stack's platform trace op.
    void emit_stack(const sata_trace_event &ev) { emit_stack(ev, host_name_); }
    // The same for one of several hosts: its log lines without a port read "<host_name>: ..."
    // (a host's driver and PCI address), and its records without a port say "host":<host_name>.
    void emit_stack(const sata_trace_event &ev, const std::string &host_name);
    // The harness's own events (src "harness"); the log line, if msg is set, is
    // "[time] satasim: msg".
    void emit_harness(const std::string &name, enum sata_trace_class cls, int port,
                      const std::vector<std::pair<std::string, TraceValue>> &fields,
                      const std::string &msg = {});

    // The kernel's own messages outside libata (src "kernel", cls decision: the interrupt
    // core's "nobody cared"): the log line is the printk as is, "[time] msg".
    void emit_kernel(const std::string &name, const char *lvl,
                     const std::vector<std::pair<std::string, TraceValue>> &fields, const std::string &msg);

    // Address of a model component whose records carry no port (e.g. "disk0" -> port 0,
    // dev 0): filled into its records where they say -1.
    void set_component_address(const std::string &src, int port, int dev);
    // Prefix of the human log for stack events without a port (e.g. "ahci").
    void set_host_name(const std::string &name) { host_name_ = name; }

    // The human log so far, for log_contains / log_not_contains.
    const std::string &log_text() const { return log_; }
    uint64_t events() const { return seq_; }
    // Model `*.violation` records (protocol rules the host broke) and the first few.
    uint64_t violations() const { return violations_; }
    const std::vector<std::string> &violation_messages() const { return violation_msgs_; }
    uint64_t records_written() const { return written_; }
    // Called with every record line written (directed steps' expect_trace).
    void set_record_hook(std::function<void(const std::string &line)> fn) { record_hook_ = std::move(fn); }
    // Given every stack and model record as it is emitted, also the command records a
    // scenario without trace_cmds does not write (the EH rules, trace/eh_rules.h).
    void set_observer(class RecordObserver *o) { observer_ = o; }

    // "[    0.104173] " for t_ns.
    static std::string log_time(uint64_t t_ns);
    // "ata1", "ata1.00", "ata1.03" (PMP link 3), "" when port < 0.
    static std::string ata_name(int port, int link, int dev);

  private:
    bool records_wanted() const { return trace_ || record_hook_; }
    void write_record(const char *src, const char *ev, const char *cls, const char *lvl, int port,
                      int link, int dev, const std::string &fields_json, const char *msg,
                      bool log_pmp_host = false, const std::string *host = nullptr);
    void write_log(const std::string &line);

    static inline bool no_files_ = false;
    Clock clock_;
    bool trace_cmds_;
    FILE *trace_ = nullptr;
    FILE *log_file_ = nullptr;
    uint64_t seq_ = 0;
    uint64_t written_ = 0;
    uint64_t violations_ = 0;
    std::vector<std::string> violation_msgs_;
    std::string log_;
    std::string line_; // scratch
    std::string host_name_;
    std::function<void(const std::string &)> record_hook_;
    class RecordObserver *observer_ = nullptr;
    struct Address {
        int port, dev;
    };
    std::map<std::string, Address> addresses_;
};

} // namespace satasim::harness
