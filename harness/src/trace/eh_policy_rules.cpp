#include "trace/eh_policy_rules.h"

#include <algorithm>

#include "trace/eh_rules.h"
#include "trace/trace_fields.h"
#include "trace/trace_sink.h"

namespace satasim::harness {

namespace {

// AC_ERR_* (docs/libata-eh.md 1.1)
constexpr unsigned kDev = 1u << 0, kHsm = 1u << 1, kTimeout = 1u << 2, kMedia = 1u << 3, kAtaBus = 1u << 4,
                   kInvalid = 1u << 7;
// error ring entry flags and verdict bits (1.5, 2.2)
constexpr unsigned kIsIo = 1u << 0, kDubious = 1u << 1;
constexpr unsigned kNcqOff = 1u << 0, kSpeedDown = 1u << 1, kFallbackPio = 1u << 2, kKeepErrors = 1u << 3;
// categories (1.5): bus, timeout/HSM, unknown device error; +4 "transfer not yet verified"
constexpr int kCatBus = 1, kCatToutHsm = 2, kCatUnkDev = 3, kCatDubious = 4;
constexpr size_t kRingSize = 32;       // ATA_ERING_SIZE
constexpr uint64_t kMin = 60'000'000'000ull;
constexpr unsigned kXferSteps = 2;     // 4.x: DMA, then UDMA/33 (2.2 step 2b)
constexpr unsigned kMaxRetries = 5;    // the SCSI layer's retries of a failed request
constexpr int kResetTries = 4;         // the deadline table's attempts (3.5)
constexpr uint64_t kResetDeadlineS[kResetTries] = {10, 10, 35, 5};
constexpr int64_t kPause2006S = 5;     // 2006: "retrying in 5 secs" after any failed reset
// transfer mask layout (ata_xfer_mask: PIO bits 0-4, MWDMA 5-11, UDMA 12-19)
constexpr unsigned kUdmaShift = 12, kUdmaMask = 0xffu << kUdmaShift, kMwdmaMask = 0x7fu << 5;

using trace_fields::contains;
using trace_fields::field;
using trace_fields::hex;
using trace_fields::num;
using trace_fields::str;
int top_bit(unsigned m) {
    int b = -1;
    for (; m; m >>= 1)
        ++b;
    return b;
}
int popcount(unsigned m) {
    int n = 0;
    for (; m; m &= m - 1)
        ++n;
    return n;
}

// The records that are a verdict's application (2.2 steps 1-4), on the device or its link.
bool is_action(const std::string &n) {
    return n == "eh.ncq_off" || n == "eh.spd_limit" || n == "eh.xfer_limit" || n == "eh.speed_down_none";
}

} // namespace

const std::vector<EhRuleInfo> &EhPolicyRules::rules() {
    static const std::vector<EhRuleInfo> r = {
        {"ering-category",
         "a recorded error's category is libata's: ATA bus error 1, timeout (or HSM on I/O) 2, an unknown device "
         "error on I/O 3, +4 while the transfer is not verified (4.x), nothing else recorded (4.x) "
         "(docs/libata-eh.md 1.5)"},
        {"speed-down-verdict",
         "the speed-down verdict after each recorded error follows from the device's error history: 4.x the five "
         "rules over 5- and 10-minute windows, 2006 more than 3 bus/timeout (10 device) errors of the newest's kind "
         "in 15 minutes; the ring holds 32 and is cleared when an action was taken without KEEP_ERRORS and when "
         "the device is disabled or replaced (docs/libata-eh.md 1.5, 2.1, 2.2)"},
        {"speed-down-action",
         "a verdict is applied as libata applies it, one action per error: NCQ off while NCQ is in use (4.x), "
         "else a lower link speed while one is left, else a transfer-mode step (4.x: DMA, then UDMA/33, two at "
         "most; 2006: a DMA step), else nothing; no action without a verdict (docs/libata-eh.md 2.1, 2.2, 2.3)"},
        {"reset-method",
         "the reset EH chooses: 4.x a hardreset whenever the driver has one; 2006 a softreset for \"some "
         "reset\" unless a hardreset alone was asked for or a link speed change is pending; later attempts "
         "hardreset (docs/libata-eh.md 3.5, \"Which reset\")"},
        {"reset-deadline",
         "at most 4 reset attempts; a failed attempt waits out its deadline from the table 10/10/35/5 s (4.x), "
         "5 s in 2006 (docs/libata-eh.md 3.5, timeout table and failure path)"},
        {"retry-worth",
         "a failed request is retried as libata decides (fail-fast): 4.x never a media error and any other "
         "file-system I/O, 2006 neither a media nor an invalid-address error; at most 5 retries "
         "(docs/libata-eh.md 3.3 step 4, ata_eh_worth_retry)"},
    };
    return r;
}

void EhPolicyRules::add(const char *rule, uint64_t t, int port, int link, int dev, const std::string &detail) {
    const char *profile = profile_ == Profile::Modern ? "libata-modern" : "libata-2006";
    out_.push_back({rule, t, TraceSink::ata_name(port, link, dev), detail + " [" + profile + "]"});
}

int EhPolicyRules::category(unsigned em, unsigned eflags, bool dubious) const {
    const int base = dubious ? kCatDubious : 0;
    if (em & kAtaBus)
        return base + kCatBus;
    if (em & kTimeout)
        return base + kCatToutHsm;
    if (eflags & kIsIo) {
        if (em & kHsm)
            return base + kCatToutHsm;
        if ((em & (kDev | kMedia | kInvalid)) == kDev)
            return base + kCatUnkDev;
    }
    return 0;
}

// The verdict over the ring (newest last) at `now`. older_verified: every entry but the
// newest counts as verified (set-mode clears the top entry's DUBIOUS flag, 1.5; the trace
// does not show whether it did, so both readings are tried).
unsigned EhPolicyRules::verdict(const std::vector<Entry> &ring, uint64_t now, bool older_verified) const {
    if (ring.empty())
        return 0;
    if (profile_ == Profile::L2006) {
        const Entry &top = ring.back();
        const int c = category(top.err_mask, top.eflags, false);
        const bool bus_class = c == kCatBus || c == kCatToutHsm; // one category in 2006
        if (!bus_class && c != kCatUnkDev)
            return 0;
        const uint64_t since = now > 15 * kMin ? now - 15 * kMin : 0;
        unsigned n = 0;
        for (const Entry &e : ring) {
            const int ce = category(e.err_mask, e.eflags, false);
            if (e.t >= since && (bus_class ? ce == kCatBus || ce == kCatToutHsm : ce == kCatUnkDev))
                ++n;
        }
        return n > (bus_class ? 3u : 10u) ? kSpeedDown | kKeepErrors : 0;
    }
    unsigned n5[8] = {}, n10[8] = {};
    bool xfer_ok = false; // sticky, newest to oldest: a verified entry verifies every older one
    for (size_t i = ring.size(); i-- > 0;) {
        const Entry &e = ring[i];
        if (!(e.eflags & kDubious) || (older_verified && i + 1 < ring.size()))
            xfer_ok = true;
        const int c = category(e.err_mask, e.eflags, !xfer_ok);
        if (now < e.t + 10 * kMin || e.t + 10 * kMin == now) {
            ++n10[c];
            if (now <= e.t + 5 * kMin)
                ++n5[c];
        }
    }
    unsigned v = 0;
    if (n5[kCatDubious + kCatBus] + n5[kCatDubious + kCatToutHsm] > 1)
        v |= kSpeedDown | kFallbackPio | kKeepErrors;
    if (n5[kCatDubious + kCatToutHsm] + n5[kCatDubious + kCatUnkDev] > 1)
        v |= kNcqOff | kKeepErrors;
    if (n5[kCatBus] + n5[kCatToutHsm] + n5[kCatUnkDev] > 6) // the code's "> 6" (its comment says 8)
        v |= kFallbackPio;
    if (n10[kCatToutHsm] + n10[kCatUnkDev] > 3)
        v |= kNcqOff;
    if (n10[kCatBus] + n10[kCatToutHsm] > 3 || n10[kCatUnkDev] > 6)
        v |= kSpeedDown;
    return v;
}

void EhPolicyRules::on_record(uint64_t t, const TraceRecord &r) {
    // a verdict's application is the next EH decision on the port: only reading SStatus comes
    // between (the models' records; through a PMP its commands, in simulated time, and pmp.*
    // records when the read fails) and other ports' records
    if (pending_.open && r.src == "stack" && r.port == pending_.port && r.name.rfind("eh.", 0) == 0)
        resolve(&r);
    if (r.src == "harness")
        return;
    if (r.src != "stack") {
        // a PHY event: the link's speed is unknown until its next link-up
        if (r.port >= 0 && (contains(r.name, "phy") || contains(r.name, "comreset") || contains(r.name, "cominit") ||
                            contains(r.name, "offline") || contains(r.name, "power_on")))
            for (auto &kv : links_)
                if (kv.first.first == r.port)
                    kv.second.spd = 0;
        return;
    }
    if (r.name == "eh.policy") {
        // libata-2.6.20 is libata-2006's rules in 2.6.20's report wording (stack/eh/policy/libata2006.c)
        profile_ = str(r, "name") == "libata-2006" || str(r, "name") == "libata-2.6.20" ? Profile::L2006
                                                                                          : Profile::Modern;
        has_hardreset_ = num(r, "hardreset", 0) != 0;
        if (const int64_t first = num(r, "first_port", -1); first >= 0)
            host_hardreset_[int(first)] = {int(num(r, "ports", 0)), has_hardreset_};
        return;
    }
    if (r.port < 0)
        return;
    Link &l = links_[{r.port, r.link}];
    const Key k{r.port, r.link, r.dev};
    if (r.name == "probe.class") { // a link's one device (dev -1), or each of two
        if (r.dev < 0)
            l.atapi = str(r, "cls") == "atapi";
        else
            devs_[k].atapi = str(r, "cls") == "atapi";
    } else if (r.name == "probe.identify") {
        const bool atapi = devs_[k].atapi || l.atapi;
        devs_[k] = Dev{}; // a new device: a clean history (2.2; recover.c's attach)
        devs_[k].atapi = atapi;
    } else if (r.name == "dev.disabled") {
        devs_[k].ring.clear(); // from now on the ring counts probe failures (1.5)
        devs_[k].reports = 0;
    } else if (r.name == "probe.configured") {
        Dev &d = devs_[k];
        d.ncq = num(r, "ncq", 0) ? 1 : 0;
        d.set_mode_since = true;
    } else if (r.name == "eh.ering") {
        ering(t, r, devs_[k], k);
    } else if (r.name == "eh.exception") {
        l.exc_action = unsigned(num(r, "action", 0));
        l.report_first = true;
        for (auto &kv : devs_)
            if (std::get<0>(kv.first) == r.port && std::get<1>(kv.first) == r.link)
                ++kv.second.reports;
    } else if (r.name == "probe.link_up") {
        l.spd = int(num(r, "spd", 0));
        l.limit_pending = false;
    } else if (r.name == "probe.link_down") {
        l.spd = 0;
    } else if (r.name == "eh.spd_limit") {
        l.limit = unsigned(num(r, "limit", 0));
        l.limit_pending = true;
    } else if (r.name == "eh.reset") {
        reset(t, r, l);
    } else if (r.name == "eh.reset_failed") {
        reset_failed(t, r, l);
    } else if (r.name == "eh.retry" || r.name == "eh.qc_fail") {
        retry(t, r);
    } else if (r.name == "eh.recover_retry") {
        // a failed recovery round: 2006 escalates the next round's reset to a hardreset once a
        // reset was tried (its "link empty" path counts as a softreset): not the report's choice
        l.report_first = false;
    } else if (r.name == "eh.complete" || r.name == "eh.giveup") {
        for (auto &kv : links_)
            if (kv.first.first == r.port)
                kv.second.report_first = false;
    }
    if (r.link >= 0)
        links_[{r.port, -1}].pmp = true;
}

void EhPolicyRules::ering(uint64_t t, const TraceRecord &r, Dev &d, const Key &k) {
    const auto [port, link, dev] = k;
    const unsigned em = unsigned(num(r, "err_mask", 0)), ef = unsigned(num(r, "eflags", 0));
    const int cat = int(num(r, "category", -1));
    const unsigned v = unsigned(num(r, "verdict", 0));
    const bool modern = profile_ == Profile::Modern;
    const int want_cat = category(em, ef, modern && (ef & kDubious));
    if (cat != want_cat || (modern && want_cat == 0))
        add("ering-category", t, port, link, dev,
            "error Emask " + hex(em) + " eflags " + hex(ef) + " recorded as category " + std::to_string(cat) +
                (want_cat ? ", libata's is " + std::to_string(want_cat) : ", libata records it in no category"));
    d.ring.push_back({t, em, ef});
    if (d.ring.size() > kRingSize)
        d.ring.erase(d.ring.begin());
    const unsigned mine = verdict(d.ring, t, false);
    const unsigned alt = d.set_mode_since ? verdict(d.ring, t, true) : mine;
    d.set_mode_since = false;
    const unsigned judged = modern ? v : v & (kSpeedDown | kNcqOff | kFallbackPio);
    const unsigned want = modern ? mine : mine & kSpeedDown, want_alt = modern ? alt : alt & kSpeedDown;
    // 2006's ring also holds the errors of no category (never traced): past 32 reports the
    // oldest counted ones may be gone, so only a verdict the history cannot give is judged
    const bool overflow = !modern && d.ring.size() + d.reports > kRingSize;
    const bool ok = judged == want || judged == want_alt || (overflow && !(judged & ~want));
    if (!ok) {
        size_t n = 0;
        for (const Entry &e : d.ring)
            n += e.t + 10 * kMin >= t;
        add("speed-down-verdict", t, port, link, dev,
            "verdict " + hex(v) + " after error Emask " + hex(em) + " (category " + std::to_string(cat) +
                "), the error history gives " + hex(want) + " (" + std::to_string(d.ring.size()) +
                " errors since the last clear, " + std::to_string(n) + " in the last 10 minutes)");
    }
    pending_ = {true, t, port, link, dev, v};
}

// The decision after a verdict (r; nullptr at the end of the trace): its application.
void EhPolicyRules::resolve(const TraceRecord *r) {
    const Pending p = pending_;
    pending_.open = false;
    std::string act;
    if (r && r->port == p.port && r->link == p.link && is_action(r->name) &&
        (r->name == "eh.spd_limit" || r->dev == p.dev))
        act = r->name;
    Dev &d = devs_[{p.port, p.link, p.dev}];
    const Link &l = links_[{p.port, p.link}];
    const bool modern = profile_ == Profile::Modern;
    const unsigned v = p.verdict;
    // what libata does with v (2.1, 2.2): each step's outcome, -1 where the trace cannot tell
    std::vector<std::string> allowed;
    bool applied = false;
    if (modern && (v & kNcqOff) && d.ncq != 0) {
        allowed.push_back("eh.ncq_off");
        applied = d.ncq == 1;
    }
    if (!applied && (v & kSpeedDown)) {
        int spd_ok = -1; // sata_down_spd_limit (2.3): a speed below the current one is left
        if (l.spd == 1) {
            spd_ok = 0;
        } else if (l.spd > 1) {
            unsigned m = l.limit ? l.limit : 0x7u;
            m = popcount(m) > 1 ? m & ~(1u << top_bit(m)) & ((1u << (l.spd - 1)) - 1) : 0;
            spd_ok = m != 0;
        }
        if (spd_ok != 0)
            allowed.push_back("eh.spd_limit");
        if (spd_ok != 1) {
            if (!modern || d.spdn_cnt < kXferSteps)
                allowed.push_back("eh.xfer_limit");
            allowed.push_back("eh.speed_down_none");
        }
        applied = spd_ok == 1;
    }
    // FALLBACK_TO_PIO (2.2 step 3): a device still in a DMA mode after two transfer-mode
    // steps drops to PIO, "meaningless for SATA ATA devices": an ATAPI device, or a parallel
    // cable (a link whose speed the trace does not show: accepted)
    const bool to_pio = modern && (v & kFallbackPio) && d.spdn_cnt >= kXferSteps && (d.atapi || l.atapi || l.spd == 0) &&
                        (!d.xfer_mask || (d.xfer_mask & (kUdmaMask | kMwdmaMask)));
    if (!applied && to_pio)
        allowed.push_back("eh.xfer_limit");
    if (!applied && v && !(v & kSpeedDown) && !((v & kNcqOff) && d.ncq == 1))
        allowed.push_back("eh.speed_down_none"); // e.g. FALLBACK_TO_PIO: never for SATA disks
    if (!v)
        allowed.clear();
    // a verdict always leaves a record (an action or eh.speed_down_none), no verdict none
    const bool ok = act.empty() ? allowed.empty() : std::find(allowed.begin(), allowed.end(), act) != allowed.end();
    if (!ok) {
        std::string want;
        for (const std::string &a : allowed)
            want += (want.empty() ? "" : " or ") + a;
        add("speed-down-action", p.t, p.port, p.link, p.dev,
            "verdict " + hex(v) + " followed by " + (act.empty() ? "no action" : act) + ", libata: " +
                (want.empty() ? "no action" : want) + " (NCQ " +
                (d.ncq < 0 ? "unknown" : d.ncq ? "in use" : "off") + ", link speed " + std::to_string(l.spd) +
                ", transfer-mode steps so far " + std::to_string(d.spdn_cnt) + ")");
    }
    if (act == "eh.ncq_off") {
        d.ncq = 0;
    } else if (act == "eh.xfer_limit" && to_pio && !(unsigned(num(*r, "xfer_mask", 0)) & (kUdmaMask | kMwdmaMask))) {
        d.xfer_mask = unsigned(num(*r, "xfer_mask", 0)); // the fallback: its steps count again
        d.spdn_cnt = 0;
    } else if (act == "eh.xfer_limit") {
        const unsigned m = unsigned(num(*r, "xfer_mask", 0));
        // 4.x's second step caps UDMA at UDMA/33 ("40-wire"); the others drop the top DMA mode
        const bool cap33 = modern && d.spdn_cnt == 1;
        if (cap33 && (m & kUdmaMask & ~(0x7u << kUdmaShift)))
            add("speed-down-action", p.t, p.port, p.link, p.dev,
                "second transfer-mode step to mask " + hex(m) + ", libata caps UDMA at UDMA/33 (ATA_DNXFER_40C)");
        if (!cap33 && d.xfer_mask) {
            unsigned want = d.xfer_mask;
            // (a device in PIO steps its PIO mode: ATA_DNXFER_PIO, the first of pio_dnxfer_sel)
            const bool pio = !(want & (kUdmaMask | kMwdmaMask));
            if (want & kUdmaMask)
                want &= ~(1u << top_bit(want & kUdmaMask));
            else if (want & kMwdmaMask)
                want &= ~(1u << top_bit(want & kMwdmaMask));
            else if (popcount(want) > 1)
                want &= ~(1u << top_bit(want));
            if (m != want)
                add("speed-down-action", p.t, p.port, p.link, p.dev,
                    "transfer-mode step from " + hex(d.xfer_mask) + " to " + hex(m) + ", libata's " +
                        (pio ? "PIO" : "DMA") + " step gives " + hex(want));
        }
        d.xfer_mask = m;
        ++d.spdn_cnt;
    } else if (act == "eh.speed_down_none" && (v & kSpeedDown) && l.spd != 0 && (!modern || d.spdn_cnt < kXferSteps)) {
        ++d.spdn_cnt; // the step was tried and changed nothing (2.2 step 2b counts it)
    }
    if ((act == "eh.ncq_off" || act == "eh.spd_limit" || act == "eh.xfer_limit") && !(v & kKeepErrors)) {
        d.ring.clear(); // "done": the ring is cleared unless the verdict keeps errors
        d.reports = 0;
    }
}

bool EhPolicyRules::hardreset_on(int port) const {
    auto it = host_hardreset_.upper_bound(port);
    if (it == host_hardreset_.begin())
        return has_hardreset_;
    --it;
    return port < it->first + it->second.first ? it->second.second : has_hardreset_;
}

void EhPolicyRules::reset(uint64_t t, const TraceRecord &r, Link &l) {
    const std::string method = str(r, "method");
    const int attempt = int(num(r, "try", 0));
    // a hardreset that could not classify is followed by a softreset of the same attempt
    const bool follow_up = method == "soft" && l.last_method == "hard" && attempt == l.last_try;
    if (attempt > kResetTries)
        add("reset-deadline", t, r.port, r.link, -1,
            "reset attempt " + std::to_string(attempt) + ", libata's deadline table has " +
                std::to_string(kResetTries));
    if (!follow_up) {
        l.try_start = t;
        const bool modern = profile_ == Profile::Modern;
        std::string want;
        const bool has_hardreset = hardreset_on(r.port);
        if (has_hardreset && (modern || attempt > 1)) {
            want = "hard";
        } else if (has_hardreset && l.limit_pending) {
            want = "hard"; // only a hardreset applies SControl.SPD
        } else if (has_hardreset && l.report_first && (l.exc_action & 0x6) && !links_[{r.port, -1}].pmp) {
            // (behind a PMP the PMP's own recovery asks for resets the report does not show)
            want = (l.exc_action & 0x6) == 0x4 ? "hard" : "soft";
        }
        if (!want.empty() && method != want)
            add("reset-method", t, r.port, r.link, -1,
                method + "reset at attempt " + std::to_string(attempt) + ", libata chooses a " + want + "reset (" +
                    (modern ? "a hardreset whenever the driver has one"
                     : attempt > 1 ? "later attempts hardreset"
                     : l.limit_pending ? "a link speed change is pending"
                                       : "the report asked for action " + hex(l.exc_action & 0x6)) +
                    ")");
    }
    if (method == "hard")
        l.limit_pending = false; // a hardreset writes the limit into SControl.SPD (sata_set_spd) first
    l.report_first = false;
    l.last_try = attempt;
    l.last_method = method;
}

void EhPolicyRules::reset_failed(uint64_t t, const TraceRecord &r, Link &l) {
    const int64_t secs = num(r, "retry_s", -1);
    if (profile_ == Profile::L2006) {
        if (secs != kPause2006S)
            add("reset-deadline", t, r.port, r.link, -1,
                "failed reset retried in " + std::to_string(secs) + " s, libata-2006 waits 5 s");
        return;
    }
    if (l.last_try < 1 || l.last_try > kResetTries)
        return;
    const uint64_t deadline = l.try_start + kResetDeadlineS[l.last_try - 1] * 1'000'000'000ull;
    const int64_t want = deadline > t ? int64_t((deadline - t + 999'999'999ull) / 1'000'000'000ull) : 0;
    if (secs < want - 1 || secs > want + 1) // the deadline is taken a moment before the record
        add("reset-deadline", t, r.port, r.link, -1,
            "failed reset attempt " + std::to_string(l.last_try) + " retried in " + std::to_string(secs) +
                " s, its deadline (" + std::to_string(kResetDeadlineS[l.last_try - 1]) + " s from " +
                std::to_string(l.try_start) + " ns) leaves " + std::to_string(want) + " s");
}

void EhPolicyRules::retry(uint64_t t, const TraceRecord &r) {
    const unsigned em = unsigned(num(r, "emask", 0));
    const bool modern = profile_ == Profile::Modern;
    // every request of the workloads is file-system I/O (a bio): 4.x retries all of it but a
    // media error; 2006 neither a media nor an invalid-address error
    const unsigned never = modern ? kMedia : kMedia | kInvalid;
    const std::string what = "tag " + std::to_string(num(r, "tag", -1)) + " cmd " + hex(uint64_t(num(r, "cmd", 0))) +
                             " Emask " + hex(em);
    if (r.name == "eh.retry") {
        if (em & never)
            add("retry-worth", t, r.port, r.link, r.dev,
                what + " retried, libata never retries " + (em & kMedia ? "a media error" : "an invalid address"));
        if (num(r, "retry", 0) > int64_t(kMaxRetries))
            add("retry-worth", t, r.port, r.link, r.dev,
                what + " retry " + std::to_string(num(r, "retry", 0)) + ", at most " + std::to_string(kMaxRetries));
        return;
    }
    const std::string why = str(r, "reason");
    if (why == "not retryable" && em && !(em & never))
        add("retry-worth", t, r.port, r.link, r.dev, what + " failed without a retry, libata retries it");
    else if (why == "retries exhausted" && num(r, "retries", 0) < int64_t(kMaxRetries))
        add("retry-worth", t, r.port, r.link, r.dev,
            what + " failed as retries exhausted after " + std::to_string(num(r, "retries", 0)) + " of " +
                std::to_string(kMaxRetries));
}

void EhPolicyRules::finish() {
    if (pending_.open)
        resolve(nullptr);
}

} // namespace satasim::harness
