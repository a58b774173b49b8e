#include "trace/eh_rules.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "controller/controller_table.h"
#include "trace/json_reader.h"
#include "trace/trace_fields.h"
#include "trace/trace_sink.h"

namespace satasim::harness {

namespace {

// AC_ERR_* (docs/libata-eh.md 1.1)
constexpr unsigned kErrSystem = 1u << 6, kErrAtaBus = 1u << 4;
// AHCI 1.3.1 3.3.5 PxIS bits the LLD decodes (docs/hardware.md 5.2)
constexpr uint64_t kIsUfs = 1u << 4, kIsPcs = 1u << 6, kIsPrcs = 1u << 22, kIsIfs = 1u << 27, kIsHbds = 1u << 28,
                   kIsHbfs = 1u << 29;
// the stack's tag of internal commands (ATA_TAG_INTERNAL, stack/include/satasim/libata.h)
constexpr int64_t kTagInternal = 32;
// SATA 3.x SError.N (PhyRdy change), SATA PM 1.2 PSCR[1] and GSCR[32]
constexpr uint64_t kSerrN = 1u << 16;
constexpr int64_t kPscrSError = 1, kPscrSControl = 2, kGscrError = 32, kPmpCtrlLink = 15;
// libata's hotplug debounce (sata_deb_timing_hotplug, docs/libata-eh.md 5.3): the link
// must read stable for 500 ms before it counts as up
constexpr uint64_t kHotplugDebounceNs = 500'000'000;

using trace_fields::contains;
using trace_fields::hex;
using trace_fields::str;
int64_t num_or(const TraceRecord &r, const char *key, int64_t dflt) { return trace_fields::num(r, key, dflt); }
bool flag(const TraceRecord &r, const char *key) { return num_or(r, key, 0) != 0; }
bool is(const TraceRecord &r, const char *name) { return r.name == name; }

// The drivers' records named in their rows of the controller table (controller_table.h):
// an error interrupt (its freeze flag), an engine restart that failed.
bool is_error_irq(const TraceRecord &r) {
    for (const ControllerDesc &d : controller_descs())
        if (*d.error_irq_record && r.name == d.error_irq_record)
            return true;
    return false;
}

// What a driver's error-interrupt record says (its fields are the driver's own, so each
// driver's decoding is its own function, bound to its controller row by ControllerId).
struct ErrorIrq {
    bool is_error = false;          // an error the next EH report must describe
    bool need_bus = false;          // AC_ERR_ATA_BUS expected
    std::vector<std::string> words; // words the description must contain
    std::string what;               // "PxIS 0x8000000", "PORT_CMD_ERR 3"
    std::string unfrozen;           // an interface error: the port must freeze (what it was)
};
using ErrorIrqDecoder = ErrorIrq (*)(const TraceRecord &r);

// ahci's error_irq: PxIS as read (AHCI 1.3.1 3.3.5; ahci_error_intr's decoding).
ErrorIrq ahci_error_irq(const TraceRecord &r) {
    ErrorIrq e;
    const uint64_t is_ = uint64_t(num_or(r, "irq_stat", 0));
    e.what = "PxIS " + hex(is_);
    if (is_ & kIsIfs) {
        e.need_bus = true;
        e.words.push_back("interface fatal error");
        e.unfrozen = "PxIS.IFS";
    }
    if (is_ & (kIsHbfs | kIsHbds))
        e.words.push_back("host bus error");
    if (is_ & kIsPcs)
        e.words.push_back("connection status changed");
    else if (is_ & kIsPrcs)
        e.words.push_back("PHY RDY changed");
    if (is_ & kIsUfs)
        e.words.push_back("unknown FIS");
    e.is_error = e.need_bus || !e.words.empty();
    return e;
}

// sil24's error_irq: PORT_CMD_ERR 3 (data FIS) and 4 (command FIS) are interface errors
// (docs/hardware.md 6.5; sil24_error_intr's table).
ErrorIrq sil24_error_irq(const TraceRecord &r) {
    ErrorIrq e;
    const int64_t cerr = num_or(r, "cmd_err", 0);
    if (cerr == 3 || cerr == 4) {
        e.is_error = true;
        e.what = "PORT_CMD_ERR " + std::to_string(cerr);
        e.need_bus = true;
        e.words.push_back(cerr == 3 ? "error in data FIS" : "failed to transmit command FIS");
        e.unfrozen = e.what;
    }
    return e;
}

// One per ControllerId, in its order: the decoder of the row's error_irq_record (null: the
// row names none; the taskfile drivers record their errors as eh.exception only).
const ErrorIrqDecoder kErrorIrqDecoders[kControllerCount] = {ahci_error_irq, sil24_error_irq, nullptr, nullptr};

// The decoder of r, when r is a row's error-interrupt record.
ErrorIrqDecoder error_irq_decoder(const TraceRecord &r) {
    for (const ControllerDesc &d : controller_descs())
        if (*d.error_irq_record && r.name == d.error_irq_record)
            return kErrorIrqDecoders[size_t(d.id)];
    return nullptr;
}

bool is_engine_failed(const TraceRecord &r) {
    for (const ControllerDesc &d : controller_descs())
        for (const std::string &n : d.engine_failed_records)
            if (r.name == n)
                return true;
    return false;
}

// A model event that changes a link's PHY (out-of-band signalling, PHY ready, offline):
// after one the link's speed is not known until the next link-up.
bool phy_event(const std::string &name) {
    return contains(name, "phy") || contains(name, "comreset") || contains(name, "cominit") ||
           contains(name, "offline") || contains(name, "power_on");
}

} // namespace

const std::vector<EhRuleInfo> &EhRules::rules() {
    static const std::vector<EhRuleInfo> r = {
        {"reset-after-freeze",
         "a frozen port or a timed-out command is reset before any command is issued on that port "
         "(docs/libata-eh.md 3.2, 3.3 step 5: frozen or timeout -> RESET)"},
        {"interface-error-is-link-error",
         "an interface error the HBA reported (AHCI PxIS.IFS, SiI3124 PORT_CMD_ERR 3/4) freezes the port and "
         "EH reports it as an ATA bus error (docs/libata-eh.md 8.3, 8.4; AHCI 1.3.1 3.3.5)"},
        {"hba-error-decoded",
         "every error bit the LLD read is decoded into the EH description (libahci: interface fatal error, host "
         "bus error, PHY RDY changed, connection status changed, unknown FIS; sil24: the PORT_CMD_ERR name)"},
        {"ncq-culprit-is-failed-tag",
         "the NCQ command EH blames from log page 10h is the one the drive failed (docs/libata-eh.md 1.4)"},
        {"spd-limit-lowers-speed",
         "a link speed limit is below the link's current speed, and the next link-up is at or below it "
         "(docs/libata-eh.md 2.3 sata_down_spd_limit)"},
        {"dev-tries-per-run",
         "each EH run gives a device ATA_EH_DEV_TRIES (3) recovery attempts afresh: its first failure in a run "
         "leaves 2 (1 after -ENODEV/-EINVAL, 3 after -EAGAIN) (docs/libata-eh.md 3.6)"},
        {"pmp-event-serror-cleared",
         "a fan-out port GSCR[32] names is handled with its PSCR SError cleared (written back) before the port is "
         "reset or GSCR[32] is read again (docs/libata-eh.md 6.2 step 6; SATA PM 1.2)"},
        {"hotplug-debounce-timing",
         "the reset of an EH run that saw a hotplug event debounces with the hotplug timing: the link is not up "
         "earlier than 500 ms after the event's report (docs/libata-eh.md 5.2, 5.3)"},
        {"pmp-phy-change-latches-n",
         "a PHY ready change on a PMP fan-out port latches SError.N in that port's PSCR until software clears it "
         "(SATA PM 1.2; SATA 3.x SError.N; docs/hardware.md 7)"},
        {"internal-cmd-refused-unfrozen",
         "an internal command is refused (AC_ERR_SYSTEM, never issued) only while the port is frozen "
         "(docs/libata-eh.md 3.2)"},
    };
    return r;
}

std::string EhRuleViolation::str() const {
    return rule + " at " + std::to_string(t_ns) + " ns on " + where + ": " + detail;
}

void EhRules::add(const char *rule, uint64_t t_ns, int port, int lnk, std::string detail) {
    out_.push_back({rule, t_ns, TraceSink::ata_name(port, lnk, -1), std::move(detail)});
}

void EhRules::freeze(Port &p, const std::string &why) {
    p.thawed = false;
    if (!p.reset_owed) {
        p.reset_owed = true;
        p.reset_owed_why = why;
    }
}

// The report of the EH run that followed the LLD's error reads is complete: each error its
// snapshot took must be in it.
void EhRules::close_report(uint64_t t_ns, int port_no, Port &p) {
    if (!p.report.open)
        return;
    p.report.open = false;
    for (const PendingError &e : p.report.errors) {
        if (e.need_bus && !(p.report.emask & kErrAtaBus))
            add("interface-error-is-link-error", t_ns, port_no, -1,
                e.what + " read at " + std::to_string(e.t_ns) + " ns, yet the exception's Emask " +
                    hex(p.report.emask) + " has no ATA bus error (0x10)");
        for (const std::string &w : e.words)
            if (!p.report.desc_truncated && !contains(p.report.desc, w.c_str()))
                add("hba-error-decoded", t_ns, port_no, -1,
                    e.what + " read at " + std::to_string(e.t_ns) + " ns, yet the description \"" + p.report.desc +
                        "\" does not say \"" + w + "\"");
    }
    p.report.errors.clear();
}

void EhRules::on_record(uint64_t t_ns, const TraceRecord &r) {
    policy_.on_record(t_ns, r);
    if (r.port < 0)
        return;
    Port &p = port(r.port);
    // a report spans the exceptions (and their lines) of one instant
    if (p.report.open && (t_ns != p.report.t_ns || (r.src == "stack" && r.name.rfind("eh.", 0) != 0 &&
                                                    r.name.rfind("pmp.eh_route", 0) != 0)))
        close_report(t_ns, r.port, p);
    if (r.link >= 0)
        p.pmp = true; // only a port multiplier's port has fan-out links (and the PMP's link 15)
    if (r.src == "stack")
        stack_record(t_ns, r, p, link(r.port, r.link));
    else if (r.src != "harness" && r.src != "kernel")
        model_record(t_ns, r, p);
}

void EhRules::stack_record(uint64_t t, const TraceRecord &r, Port &p, Link &l) {
    const int pn = r.port, ln = r.link;
    // ---- freezes (reset-after-freeze, internal-cmd-refused-unfrozen)
    if (is_error_irq(r) && flag(r, "freeze"))
        freeze(p, r.name + " with freeze at " + std::to_string(t) + " ns");
    else if (is(r, "qc.timeout") || is(r, "qc.internal_timeout") || is(r, "eh.fast_drain_timeout"))
        freeze(p, r.name + " at " + std::to_string(t) + " ns");
    else if (is(r, "eh.exception") && flag(r, "frozen"))
        freeze(p, "a frozen port's exception at " + std::to_string(t) + " ns");
    else if (is_engine_failed(r))
        p.thawed = false; // the LLD could not restart its engine: EH's commands may be refused
    if (is(r, "eh.reset")) {
        p.reset_owed = false;
        if (ln < 0) {
            p.thawed = false; // EH freezes the host port for its reset
            p.serror_clear_due = 0; // a PMP reset: every fan-out link is probed afresh
        }
    } else if (is(r, "eh.giveup")) {
        p.reset_owed = false; // EH gave up and thawed the port (stack/README.md)
        p.errors.clear();     // and dropped eh_info
        p.snap.clear();
    }
    if (is(r, "qc.issue") && p.reset_owed) {
        add("reset-after-freeze", t, pn, ln,
            "command " + hex(uint64_t(num_or(r, "cmd", 0))) + " (tag " + std::to_string(num_or(r, "tag", -1)) +
                ") issued after " + p.reset_owed_why + " without a reset in between");
        p.reset_owed = false;
    }
    if ((is(r, "probe.link_up") || is(r, "probe.link_down") || is(r, "probe.class")) && ln < 0) {
        p.thawed = true; // postreset runs after the reset thawed the port
        p.issued = false;
        // a reset that succeeded clears eh_info (docs/libata-eh.md 3.5 step 5): what was read
        // since the snapshot is never reported
        if (p.snap_seen)
            p.errors.clear();
    }
    if (is(r, "qc.issue"))
        p.issued = true;
    if ((is(r, "qc.issue") || is(r, "qc.done")) && num_or(r, "tag", -1) == kTagInternal)
        p.internal_active = is(r, "qc.issue");
    else if (is(r, "eh.reset"))
        p.internal_active = false;

    // ---- errors the LLD read (interface-error-is-link-error, hba-error-decoded)
    // An error goes to the link's eh_info; an EH run takes its snapshot of eh_info
    // (eh.snapshot) and its report describes that snapshot. One read after the snapshot (the
    // disk pulled while EH stops the engine; a CRC error on EH's own READ LOG EXT) waits in
    // eh_info for the next run's snapshot, unless a reset that succeeds clears eh_info first
    // (docs/libata-eh.md 3.5 step 5): libata never reports it then. The freeze itself is
    // still checked, and reset-after-freeze checks the reset. An EH invocation that ends with
    // EH not pending again zeroes eh_info ("this run is complete, make sure EH info is clear",
    // libata's port error handler): the next invocation's first snapshot (run 1) never sees
    // what was read during the last one. The trace marks no such end; an error read while EH's
    // internal command was on the wire (after the snapshot) was read during it, and an error
    // that aborts an internal command does not make EH pending again. A trace without snapshot
    // records: an error read while an internal command is on the wire (EH's, so after the
    // snapshot) is left out, and every other error belongs to the next report.
    const bool record_error = p.snap_seen || !p.internal_active;
    if (is(r, "eh.snapshot")) {
        close_report(t, pn, p); // a new EH run: the last one's report is complete
        if (num_or(r, "run", 0) == 1) // a new invocation: the last one ended and zeroed eh_info
            p.errors.erase(std::remove_if(p.errors.begin(), p.errors.end(),
                                          [](const PendingError &e) { return e.during_eh; }),
                           p.errors.end());
        p.snap_seen = true;
        p.snap = std::move(p.errors); // an earlier snapshot nothing reported is dropped
        p.errors.clear();
    }
    if (const ErrorIrqDecoder decode = error_irq_decoder(r)) {
        const ErrorIrq d = decode(r);
        if (d.is_error && record_error) {
            PendingError e;
            e.t_ns = t;
            e.during_eh = p.snap_seen && p.internal_active;
            e.what = d.what;
            e.need_bus = d.need_bus;
            e.words = d.words;
            p.errors.push_back(e);
        }
        if (!d.unfrozen.empty() && !flag(r, "freeze"))
            add("interface-error-is-link-error", t, pn, ln, d.unfrozen + " read without freezing the port");
    }
    std::vector<PendingError> &described = p.snap_seen ? p.snap : p.errors;
    if (is(r, "eh.exception") && (p.report.open || !described.empty())) {
        if (!p.report.open) {
            p.report = Report{};
            p.report.open = true;
            p.report.t_ns = t;
            p.report.errors = std::move(described);
            described.clear();
        }
        p.report.emask |= unsigned(num_or(r, "emask", 0));
        const std::string d = str(r, "desc");
        p.report.desc += d + ";";
        // ATA_EH_DESC_LEN 80: several events' words may not all fit
        p.report.desc_truncated = p.report.desc_truncated || d.size() >= 70;
    } else if (is(r, "eh.failed_qc") && p.report.open) {
        p.report.emask |= unsigned(num_or(r, "emask", 0));
    } else if ((is(r, "eh.reset") || is(r, "eh.giveup")) && !p.report.open) {
        described.clear(); // a reset before any report discards what EH had gathered (3.5 step 5)
    }

    // ---- dev-tries-per-run: a report starts an EH run; its first failure on a link is
    // judged unless an earlier failure of the run (e.g. a probe's silent IDENTIFY failure:
    // no "retrying" line for a device not yet enabled) already used a try
    if (is(r, "eh.exception"))
        for (auto &kv : links_)
            if (kv.first.first == pn) {
                kv.second.first_due = true;
                kv.second.fail_seen = false;
                kv.second.earlier_fail = false;
            }
    const bool failure = r.name.size() > 7 && (r.name.compare(r.name.size() - 7, 7, "_failed") == 0 ||
                                               contains(r.name, "mismatch") || contains(r.name, "aborted"));
    if (failure) {
        if (l.fail_seen && l.fail_t != t)
            l.earlier_fail = true;
        l.fail_seen = true;
        l.fail_t = t;
    }
    if (is(r, "eh.recover_retry")) {
        const int64_t tries = num_or(r, "tries", -99), err = num_or(r, "errno", 0);
        const bool in_range = tries >= 1 && tries <= kDevTries;
        const bool fresh = tries == kDevTries - 1 || (err == -11 && tries == kDevTries) ||
                           ((err == -19 || err == -22) && tries == 1);
        const bool judged = l.first_due && !l.earlier_fail;
        if (!in_range || (judged && !fresh))
            add("dev-tries-per-run", t, pn, ln,
                "recovery failed (errno " + std::to_string(err) + ") with " + std::to_string(tries) +
                    " tries left" + (in_range ? " at its first failure in this EH run" : ""));
        l.first_due = false;
    }

    // ---- spd-limit-lowers-speed
    if (is(r, "probe.link_up")) {
        const int spd = int(num_or(r, "spd", 0));
        if (l.limit_spd && spd > l.limit_spd)
            add("spd-limit-lowers-speed", t, pn, ln,
                "link up at speed " + std::to_string(spd) + " after EH limited it to " + std::to_string(l.limit_spd));
        l.limit_spd = 0;
        l.spd = spd;
    } else if (is(r, "probe.link_down")) {
        l.spd = 0;
    } else if (is(r, "eh.spd_limit")) {
        const int spd = int(num_or(r, "spd", 0));
        if (l.spd && spd >= l.spd)
            add("spd-limit-lowers-speed", t, pn, ln,
                "limited to speed " + std::to_string(spd) + " (" + str(r, "speed") +
                    ") while the link is up at speed " + std::to_string(l.spd));
        l.limit_spd = spd;
    }

    // ---- ncq-culprit-is-failed-tag
    if (is(r, "eh.ncq_culprit")) {
        const int64_t tag = num_or(r, "tag", -1);
        if (l.culprit_tag >= 0 && tag != l.culprit_tag)
            add("ncq-culprit-is-failed-tag", t, pn, ln,
                "EH blamed tag " + std::to_string(tag) + ", the drive failed tag " + std::to_string(l.culprit_tag) +
                    " at " + std::to_string(l.culprit_t) + " ns");
        l.culprit_tag = -1;
    } else if (is(r, "eh.ncq_log_failed") || is(r, "eh.read_log_failed") || is(r, "eh.ncq_log_nq") ||
               is(r, "eh.ncq_log_inactive") || is(r, "eh.ncq_log_csum")) {
        l.culprit_tag = -1;
    } else if (is(r, "eh.reset")) {
        for (auto &kv : links_)
            if (kv.first.first == pn)
                kv.second.culprit_tag = -1; // a reset clears the drive's NCQ error state
    }

    // ---- hotplug-debounce-timing (ports without a PMP: a PMP reset re-probes every link)
    if (is(r, "eh.exception") && ln < 0 && (num_or(r, "action", 0) & 0x8) && !p.pmp && !p.hotplug_due) {
        p.hotplug_due = true; // ENABLE_LINK: ata_ehi_hotplugged (docs/libata-eh.md 5.2)
        p.hotplug_t = t;
    } else if (is(r, "probe.link_up") && ln < 0 && p.hotplug_due) {
        if (!p.pmp && t - p.hotplug_t < kHotplugDebounceNs)
            add("hotplug-debounce-timing", t, pn, ln,
                "link up " + std::to_string((t - p.hotplug_t) / 1000) + " us after the hotplug report at " +
                    std::to_string(p.hotplug_t) + " ns (the hotplug debounce needs 500 ms of stable DET)");
        p.hotplug_due = false;
    } else if ((is(r, "probe.link_down") || is(r, "eh.complete")) && ln < 0) {
        p.hotplug_due = false;
    }

    // ---- pmp-event-serror-cleared
    if (is(r, "pmp.events"))
        p.serror_clear_due |= uint32_t(num_or(r, "ports", 0));

    // ---- internal-cmd-refused-unfrozen
    if (is(r, "probe.identify_failed") || is(r, "eh.read_log_failed") || is(r, "eh.ncq_log_failed") ||
        is(r, "pmp.gscr_failed") || is(r, "pmp.scr_failed") || is(r, "probe.setmode_failed") ||
        is(r, "pmp.config_failed") || is(r, "probe.set_multi_failed") || is(r, "pmp.notify_failed")) {
        if (num_or(r, "err_mask", 0) == kErrSystem && p.thawed && !p.issued)
            add("internal-cmd-refused-unfrozen", t, pn, ln,
                r.name + ": the internal command failed with AC_ERR_SYSTEM alone, never issued, while the port "
                         "was thawed by the last reset");
    }
}

void EhRules::model_record(uint64_t t, const TraceRecord &r, Port &p) {
    const int pn = r.port, ln = r.link;
    if (phy_event(r.name))
        for (auto &kv : links_)
            if (kv.first.first == pn)
                kv.second.spd = 0; // the link renegotiates: its speed is unknown until the next link-up
    if (is(r, "disk.ncq_error") && str(r, "cause") == "command failed") {
        Link &l = link(pn, ln);
        l.culprit_tag = int(num_or(r, "tag", -1));
        l.culprit_t = t;
    }
    if (is(r, "pmp.power_on"))
        p.n_due = 0;
    if (is(r, "pmp.port_phy") && ln >= 0 && ln < 32)
        p.n_due |= 1u << ln;
    if ((is(r, "pmp.read") || is(r, "pmp.write")) && ln >= 0 && ln < 32) {
        const int64_t reg = num_or(r, "reg", -1);
        const uint64_t val = uint64_t(num_or(r, "value", 0));
        const bool ok = flag(r, "ok");
        const uint32_t bit = 1u << ln;
        if (ln != kPmpCtrlLink && reg == kPscrSError) {
            if (is(r, "pmp.write") || !ok)
                p.serror_clear_due &= ~bit;
            if (is(r, "pmp.read") && ok && (p.n_due & bit) && !(val & kSerrN))
                add("pmp-phy-change-latches-n", t, pn, ln,
                    "PSCR SError reads " + hex(val) + " after a PHY ready change on this fan-out port (N not set)");
            if ((is(r, "pmp.read") && ok) || (is(r, "pmp.write") && (val & kSerrN)))
                p.n_due &= ~bit;
        } else if (ln != kPmpCtrlLink && reg == kPscrSControl && is(r, "pmp.write") && (p.serror_clear_due & bit)) {
            add("pmp-event-serror-cleared", t, pn, ln,
                "port reset (SControl " + hex(val) + ") after GSCR[32] named it, its SError never written back");
            p.serror_clear_due &= ~bit;
        } else if (ln == kPmpCtrlLink && reg == kGscrError && is(r, "pmp.read") && p.serror_clear_due) {
            for (int k = 0; k < 15; ++k)
                if (p.serror_clear_due & (1u << k))
                    add("pmp-event-serror-cleared", t, pn, k,
                        "GSCR[32] read again after it named this port, its SError never written back");
            p.serror_clear_due = 0;
        }
    }
}

void EhRules::finish() {
    policy_.finish();
    for (auto &kv : ports_)
        close_report(kv.second.report.t_ns, kv.first, kv.second);
}

// ---- trace.jsonl reading (the sink's own flat format: one object, one nested "f") ----

namespace {

// A trace value as the sink wrote it: "0x.." strings are hex numbers, integers, booleans and
// strings; nothing else appears in a record.
bool trace_value(const JsonValue &j, TraceValue &v) {
    switch (j.type()) {
    case JsonValue::Type::String: {
        const std::string &t = j.as_string();
        if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            char *end = nullptr;
            const unsigned long long x = std::strtoull(t.c_str() + 2, &end, 16);
            if (end && !*end) {
                v = TraceValue::hex(x);
                return true;
            }
        }
        v = TraceValue::str(t);
        return true;
    }
    case JsonValue::Type::Bool:
        v = TraceValue::boolean(j.as_bool());
        return true;
    case JsonValue::Type::Number:
        v = TraceValue::integer(j.as_int());
        return true;
    default:
        return false;
    }
}

} // namespace

bool parse_trace_line(const std::string &line, uint64_t &t_ns, TraceRecord &r) {
    r = TraceRecord{};
    t_ns = 0;
    bool have_t = false, have_ev = false;
    try {
        const JsonValue rec = parse_json(line);
        if (!rec.is_object())
            return false;
        for (size_t k = 0; k < rec.size(); ++k) {
            const std::string &key = rec.keys()[k];
            const JsonValue &val = rec.items()[k];
            if (key == "f") {
                if (!val.is_object())
                    return false;
                for (size_t f = 0; f < val.size(); ++f) {
                    TraceValue v;
                    if (!trace_value(val.items()[f], v))
                        return false;
                    r.fields.emplace_back(val.keys()[f], std::move(v));
                }
                continue;
            }
            TraceValue v;
            if (!trace_value(val, v))
                return false;
            if (key == "t_ns") {
                t_ns = uint64_t(v.i);
                have_t = true;
            } else if (key == "src") {
                r.src = val.as_string();
            } else if (key == "ev") {
                r.name = val.as_string();
                have_ev = true;
            } else if (key == "port") {
                r.port = int(v.i);
            } else if (key == "link") {
                r.link = int(v.i);
            } else if (key == "dev") {
                r.dev = int(v.i);
            } else if (key == "msg") {
                r.msg = val.as_string();
            }
        }
    } catch (const JsonError &) {
        return false; // not JSON, or a value of the wrong type
    }
    return have_t && have_ev;
}

bool check_trace_file(const std::string &path, std::vector<EhRuleViolation> &out, std::string *error) {
    std::ifstream in(path);
    if (!in) {
        if (error)
            *error = path + ": cannot read (" + std::strerror(errno) + ")";
        return false;
    }
    EhRules rules;
    std::string line;
    unsigned n = 0;
    uint64_t last_t = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty())
            continue;
        uint64_t t = 0;
        TraceRecord r;
        if (!parse_trace_line(line, t, r)) {
            if (error)
                *error = path + ":" + std::to_string(n) + ": not a trace record";
            return false;
        }
        // A trace is written as simulated time advances: time going backwards is a
        // corrupt or hand-edited trace, whose rules would be judged out of order.
        if (t < last_t) {
            if (error)
                *error = path + ":" + std::to_string(n) + ": t_ns: " + std::to_string(t) +
                         " is earlier than the record before it (" + std::to_string(last_t) +
                         "): not a trace in time order";
            return false;
        }
        last_t = t;
        rules.on_record(t, r);
    }
    rules.finish();
    out = rules.violations();
    return true;
}

} // namespace satasim::harness
