#include "trace/trace_sink.h"

#include <cinttypes>
#include <cstring>

#include "trace/eh_rules.h"
#include "trace/json_writer.h"

namespace satasim::harness {

namespace {

const char *class_name(enum sata_trace_class c) {
    switch (c) {
    case SATA_TC_DECISION: return "decision";
    case SATA_TC_INFO: return "info";
    case SATA_TC_CMD: return "cmd";
    }
    return "info";
}

// The log level of a stack event, as the human log uses it: a message is in satasim.log
// when its level is info or above. SATA_LOG_NONE (trace only) reads "debug".
const char *level_name(enum sata_log_level l) {
    switch (l) {
    case SATA_LOG_CONT: return "cont";
    case SATA_LOG_ERR: return "err";
    case SATA_LOG_WARN: return "warn";
    case SATA_LOG_INFO: return "info";
    case SATA_LOG_DEBUG:
    case SATA_LOG_NONE: return "debug";
    }
    return "debug";
}

// The harness's records: "err" for the ones that report a failure of the run, else "info"
// (every harness message is in the log).
const char *harness_level(const std::string &name) {
    static const char *const kErr[] = {"io.error", "io.submit_error", "data.mismatch", "data.lost",
                                       "irq.storm", "eh.livelock",   "run.hang",      "run.frozen",
                                       "fatal",     "step.fail"};
    for (const char *e : kErr)
        if (name == e)
            return "err";
    return "info";
}

void append_hex(std::string &out, uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "\"0x%" PRIx64 "\"", v);
    out += buf;
}

} // namespace

TraceSink::TraceSink(Clock clock, bool trace_cmds) : clock_(std::move(clock)), trace_cmds_(trace_cmds) {}

TraceSink::~TraceSink() { close(); }

bool TraceSink::open(const std::string &trace_path, const std::string &log_path) {
    close();
    if (no_files_)
        return true;
    trace_ = std::fopen(trace_path.c_str(), "wb");
    if (!trace_)
        return false;
    log_file_ = std::fopen(log_path.c_str(), "wb");
    if (!log_file_) {
        std::fclose(trace_);
        trace_ = nullptr;
        return false;
    }
    static const size_t kBuf = 1 << 16;
    std::setvbuf(trace_, nullptr, _IOFBF, kBuf);
    return true;
}

void TraceSink::flush() {
    if (trace_)
        std::fflush(trace_);
    if (log_file_)
        std::fflush(log_file_);
}

void TraceSink::close() {
    if (trace_)
        std::fclose(trace_);
    if (log_file_)
        std::fclose(log_file_);
    trace_ = log_file_ = nullptr;
}

std::string TraceSink::log_time(uint64_t t_ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "[%5" PRIu64 ".%06" PRIu64 "] ", uint64_t(t_ns / 1000000000u),
                  uint64_t((t_ns / 1000u) % 1000000u));
    return buf;
}

std::string TraceSink::ata_name(int port, int link, int dev) {
    if (port < 0)
        return {};
    char buf[48];
    if (dev >= 0)
        std::snprintf(buf, sizeof buf, "ata%d.%02d", port + 1, (link >= 0 ? link : 0) + dev);
    else if (link >= 0)
        std::snprintf(buf, sizeof buf, "ata%d.%02d", port + 1, link);
    else
        std::snprintf(buf, sizeof buf, "ata%d", port + 1);
    return buf;
}

void TraceSink::write_record(const char *src, const char *ev, const char *cls, const char *lvl, int port,
                             int link, int dev, const std::string &fields_json, const char *msg,
                             bool log_pmp_host, const std::string *host) {
    if (!records_wanted()) {
        ++written_;
        return;
    }
    line_.clear();
    line_ += "{\"t_ns\":";
    line_ += std::to_string(clock_());
    line_ += ",\"seq\":";
    line_ += std::to_string(seq_);
    line_ += ",\"src\":";
    json_escape(line_, src);
    line_ += ",\"ev\":";
    json_escape(line_, ev);
    line_ += ",\"cls\":\"";
    line_ += cls;
    line_ += "\",\"lvl\":\"";
    line_ += lvl;
    line_ += "\",\"port\":";
    line_ += std::to_string(port);
    if (link != -1) {
        line_ += ",\"link\":";
        line_ += std::to_string(link);
    }
    if (dev != -1) {
        line_ += ",\"dev\":";
        line_ += std::to_string(dev);
    }
    if (log_pmp_host)
        line_ += ",\"log_pmp_host\":true"; // the log names this host-link line ataN.15
    if (host) { // one of several hosts: which one (its log prefix)
        line_ += ",\"host\":";
        json_escape(line_, *host);
    }
    line_ += ",\"f\":";
    line_ += fields_json;
    if (msg && *msg) {
        line_ += ",\"msg\":";
        json_escape(line_, msg);
    }
    line_ += "}\n";
    if (trace_)
        std::fwrite(line_.data(), 1, line_.size(), trace_);
    if (record_hook_)
        record_hook_(line_);
    ++written_;
}

void TraceSink::write_log(const std::string &line) {
    log_ += line;
    if (log_file_)
        std::fwrite(line.data(), 1, line.size(), log_file_);
}

void TraceSink::emit_stack(const sata_trace_event &ev, const std::string &host_name) {
    std::string f = "{";
    for (unsigned i = 0; i < ev.n_fields && records_wanted(); ++i) {
        const sata_trace_field &fd = ev.fields[i];
        if (i)
            f += ',';
        json_escape(f, fd.key ? fd.key : "?");
        f += ':';
        switch (fd.type) {
        case SATA_TF_INT: f += std::to_string(fd.i); break;
        case SATA_TF_HEX: append_hex(f, uint64_t(fd.i)); break;
        case SATA_TF_STR: json_escape(f, fd.s ? fd.s : ""); break;
        case SATA_TF_BOOL: f += fd.i ? "true" : "false"; break;
        default: f += std::to_string(fd.i); break;
        }
    }
    f += '}';
    const char *name = ev.name ? ev.name : "?";
    if (observer_) {
        TraceRecord r;
        r.src = "stack";
        r.name = name;
        r.port = ev.port;
        r.link = ev.link;
        r.dev = ev.dev;
        r.fields.reserve(ev.n_fields);
        for (unsigned i = 0; i < ev.n_fields; ++i) {
            const sata_trace_field &fd = ev.fields[i];
            const char *key = fd.key ? fd.key : "?";
            switch (fd.type) {
            case SATA_TF_HEX: r.fields.emplace_back(key, TraceValue::hex(uint64_t(fd.i))); break;
            case SATA_TF_STR: r.fields.emplace_back(key, TraceValue::str(fd.s ? fd.s : "")); break;
            case SATA_TF_BOOL: r.fields.emplace_back(key, TraceValue::boolean(fd.i != 0)); break;
            default: r.fields.emplace_back(key, TraceValue::integer(fd.i)); break;
            }
        }
        observer_->on_record(clock_(), r);
    }
    bool write = trace_cmds_ || ev.cls != SATA_TC_CMD;
    if (write)
        write_record("stack", name, class_name(ev.cls), level_name(ev.level), ev.port, ev.link, ev.dev, f,
                     ev.msg, ev.log_pmp_host != 0,
                     ev.port < 0 && &host_name != &host_name_ ? &host_name : nullptr);
    if (ev.msg && *ev.msg && ev.level >= SATA_LOG_INFO) {
        // the block layer's lines ("I/O error, dev sda, ...") carry no device prefix in the
        // kernel log; their record keeps the device's address
        std::string who = std::strncmp(name, "blk.", 4) == 0 ? std::string()
                          : ev.port < 0                     ? host_name
                          : ev.log_pmp_host                 ? ata_name(ev.port, 15, -1)
                                                            : ata_name(ev.port, ev.link, ev.dev);
        const std::string stamp = log_time(clock_());
        if (ev.level == SATA_LOG_CONT)
            // the second line of a two-line printk, as dmesg shows it: under the message,
            // indented by the stamp's width and the nine spaces libata puts before it
            write_log(std::string(stamp.size(), ' ') + "         " + ev.msg + "\n");
        else
            write_log(stamp + (who.empty() ? "" : who + ": ") + ev.msg + "\n");
    }
    ++seq_;
}

static std::string fields_to_json(const std::vector<std::pair<std::string, TraceValue>> &fields) {
    std::string f = "{";
    bool first = true;
    for (const auto &kv : fields) {
        if (!first)
            f += ',';
        first = false;
        json_escape(f, kv.first);
        f += ':';
        const TraceValue &v = kv.second;
        switch (v.kind) {
        case TraceValue::Kind::Int: f += std::to_string(v.i); break;
        case TraceValue::Kind::Hex: append_hex(f, uint64_t(v.i)); break;
        case TraceValue::Kind::Str: json_escape(f, v.s); break;
        case TraceValue::Kind::Bool: f += v.i ? "true" : "false"; break;
        }
    }
    f += '}';
    return f;
}

void TraceSink::set_component_address(const std::string &src, int port, int dev) {
    addresses_[src] = Address{port, dev};
}

void TraceSink::emit(const TraceRecord &rec) {
    int port = rec.port, dev = rec.dev;
    auto it = addresses_.find(rec.src);
    if (it != addresses_.end()) {
        if (port == -1)
            port = it->second.port;
        if (dev == -1)
            dev = it->second.dev;
    }
    // A model saw the host break a rule it implements: the run fails (model/fault/README.md).
    static const std::string kViolation = ".violation";
    if (rec.name.size() >= kViolation.size() &&
        rec.name.compare(rec.name.size() - kViolation.size(), kViolation.size(), kViolation) == 0) {
        ++violations_;
        if (violation_msgs_.size() < 10) {
            std::string rule;
            for (const auto &f : rec.fields)
                if (f.first == "rule")
                    rule = f.second.s;
            violation_msgs_.push_back(rec.src + " " + rec.name + " at t=" + std::to_string(clock_()) + " ns" +
                                      (port >= 0 ? " port " + std::to_string(port) : std::string()) +
                                      (rule.empty() ? std::string() : ": " + rule) +
                                      (rec.msg.empty() ? std::string() : " (" + rec.msg + ")"));
        }
    }
    if (observer_) {
        if (port == rec.port && dev == rec.dev) {
            observer_->on_record(clock_(), rec);
        } else {
            TraceRecord r = rec;
            r.port = port;
            r.dev = dev;
            observer_->on_record(clock_(), r);
        }
    }
    // Model events go to the trace only: the human log reads like the driver's dmesg.
    write_record(rec.src.c_str(), rec.name.c_str(), "model", "debug", port, rec.link, dev,
                 records_wanted() ? fields_to_json(rec.fields) : std::string(), rec.msg.c_str());
    ++seq_;
}

void TraceSink::emit_harness(const std::string &name, enum sata_trace_class cls, int port,
                             const std::vector<std::pair<std::string, TraceValue>> &fields,
                             const std::string &msg) {
    if (trace_cmds_ || cls != SATA_TC_CMD)
        write_record("harness", name.c_str(), class_name(cls), harness_level(name), port, -1, -1,
                     records_wanted() ? fields_to_json(fields) : std::string(), msg.c_str());
    if (!msg.empty())
        write_log(log_time(clock_()) + "satasim: " + msg + "\n");
    ++seq_;
}

void TraceSink::emit_kernel(const std::string &name, const char *lvl,
                            const std::vector<std::pair<std::string, TraceValue>> &fields,
                            const std::string &msg) {
    write_record("kernel", name.c_str(), class_name(SATA_TC_DECISION), lvl, -1, -1, -1,
                 records_wanted() ? fields_to_json(fields) : std::string(),
                 msg.c_str());
    write_log(log_time(clock_()) + msg + "\n");
    ++seq_;
}

} // namespace satasim::harness
