#include "trace/vcd_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

namespace fs = std::filesystem;

namespace satasim::harness {

namespace {

// The group names the scenario reader knows (scenario/wave_groups.h, no SystemC) are the
// models' (model/wave/wave_probe.h).
bool wave_group_names_agree() {
    for (unsigned g = 0; g < wave::kGroups; ++g)
        if (std::string(wave_group_name(g)) != wave::group_name(wave::Group(g)))
            return false;
    return true;
}

// VCD identifier codes: printable ASCII 33..126, shortest first.
std::string id_code(size_t n) {
    std::string s;
    do {
        s += char(33 + n % 94);
        n /= 94;
    } while (n);
    return s;
}

} // namespace

std::string VcdWriter::temp_path(const std::string &path, long pid) {
    fs::path p(path);
    return (p.parent_path() / ("." + p.filename().string() + ".tmp-" + std::to_string(pid))).string();
}

VcdWriter::VcdWriter(std::string path, VcdOptions opt)
    : path_(std::move(path)), tmp_path_(temp_path(path_, long(getpid()))), opt_(std::move(opt)) {}

VcdWriter::~VcdWriter() { abandon(); }

bool VcdWriter::open(std::string *err) {
    if (!wave_group_names_agree()) {
        *err = "internal: scenario/wave_groups.cpp and model/wave disagree on the signal group names";
        return false;
    }
    f_ = std::fopen(tmp_path_.c_str(), "wb");
    if (!f_) {
        *err = "cannot write " + tmp_path_ + ": " + std::strerror(errno);
        return false;
    }
    std::setvbuf(f_, nullptr, _IOFBF, 1 << 16);
    return true;
}

void VcdWriter::abandon() {
    if (f_) {
        std::fclose(f_);
        f_ = nullptr;
        std::remove(tmp_path_.c_str());
    }
}

wave::SignalId VcdWriter::declare(const wave::SignalDecl &d) {
    if (started_ || !(opt_.groups & (1u << unsigned(d.group))))
        return wave::kNoSignal;
    if (d.port >= 0 && !opt_.ports.empty() &&
        std::find(opt_.ports.begin(), opt_.ports.end(), unsigned(d.port)) == opt_.ports.end())
        return wave::kNoSignal;
    Sig s;
    s.decl = d;
    s.code = id_code(sigs_.size());
    s.written = d.init;
    sigs_.push_back(std::move(s));
    return wave::SignalId(sigs_.size() - 1);
}

void VcdWriter::change(wave::SignalId id, uint64_t t, uint64_t value) {
    if (id >= sigs_.size())
        return;
    if (t < written_t_)
        t = written_t_; // cannot happen (see the header); never write time backwards
    buf_.push_back({t, id, value});
    if (buf_.size() >= flush_at_) {
        flush_before(wave::now());
        // Whatever is still ahead of the current time stays; do not re-sort it on every call.
        flush_at_ = std::max<size_t>(1 << 16, 2 * buf_.size());
    }
}

// Only changes still buffered can be withdrawn: those ahead of the current time always are
// (flush_before writes what lies behind it).
void VcdWriter::retract_after(wave::SignalId id, uint64_t t) {
    buf_.erase(std::remove_if(buf_.begin(), buf_.end(), [&](const Rec &r) { return r.id == id && r.t > t; }),
               buf_.end());
}

void VcdWriter::write_scopes() {
    // Scope tree in first-declaration order.
    struct Node {
        std::string name;
        std::vector<std::unique_ptr<Node>> kids;
        std::vector<size_t> vars;
    };
    Node root;
    for (size_t i = 0; i < sigs_.size(); ++i) {
        Node *n = &root;
        const std::string &scope = sigs_[i].decl.scope;
        size_t pos = 0;
        while (pos <= scope.size() && !scope.empty()) {
            size_t dot = scope.find('.', pos);
            std::string part = scope.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
            Node *next = nullptr;
            for (auto &k : n->kids)
                if (k->name == part)
                    next = k.get();
            if (!next) {
                n->kids.push_back(std::make_unique<Node>());
                next = n->kids.back().get();
                next->name = part;
            }
            n = next;
            if (dot == std::string::npos)
                break;
            pos = dot + 1;
        }
        n->vars.push_back(i);
    }
    auto emit = [&](auto &self, const Node &n) -> void {
        for (size_t i : n.vars) {
            const Sig &s = sigs_[i];
            if (s.decl.width == 1)
                std::fprintf(f_, "$var wire 1 %s %s $end\n", s.code.c_str(), s.decl.name.c_str());
            else
                std::fprintf(f_, "$var wire %u %s %s [%u:0] $end\n", s.decl.width, s.code.c_str(),
                             s.decl.name.c_str(), s.decl.width - 1);
        }
        for (const auto &k : n.kids) {
            std::fprintf(f_, "$scope module %s $end\n", k->name.c_str());
            self(self, *k);
            std::fputs("$upscope $end\n", f_);
        }
    };
    emit(emit, root);
}

void VcdWriter::start() {
    if (!f_ || started_)
        return;
    started_ = true;
    std::fprintf(f_, "$comment %s $end\n", opt_.comment.c_str());
    std::fputs("$comment prim codes: 0 none (PHY not ready), 1 DATA, 2 ALIGN, 3 CONT, 4 SYNC, 5 X_RDY, "
               "6 R_RDY, 7 SOF, 8 EOF, 9 R_IP, 10 R_OK, 11 R_ERR, 12 HOLD, 13 HOLDA, 14 WTRM, 15 DMAT, "
               "16 invalid K character $end\n",
               f_);
    std::fputs("$version satasim $end\n", f_);
    std::fprintf(f_, "$timescale %s $end\n", sc_core::sc_get_time_resolution().to_string().c_str());
    write_scopes();
    std::fputs("$enddefinitions $end\n#0\n$dumpvars\n", f_);
    for (const Sig &s : sigs_)
        write_value(s, s.decl.init);
    std::fputs("$end\n", f_);
    std::fflush(f_); // a run killed later still leaves a readable partial waveform
}

void VcdWriter::write_value(const Sig &s, uint64_t v) {
    if (s.decl.width == 1) {
        std::fprintf(f_, "%c%s\n", v ? '1' : '0', s.code.c_str());
        return;
    }
    char bits[65];
    int n = 0;
    for (int b = int(s.decl.width) - 1; b >= 0; --b)
        if (n || (v >> b) & 1u || b == 0)
            bits[n++] = ((v >> b) & 1u) ? '1' : '0';
    bits[n] = 0;
    std::fprintf(f_, "b%s %s\n", bits, s.code.c_str());
}

// Writes the buffered changes before `limit` in time order, in arrival order within a
// time: a zero-width pulse (an interrupt the handler clears at the same simulated time)
// stays visible as two changes under one timestamp.
void VcdWriter::flush_before(uint64_t limit) {
    if (!f_ || !started_ || buf_.empty())
        return;
    std::stable_sort(buf_.begin(), buf_.end(), [](const Rec &a, const Rec &b) { return a.t < b.t; });
    size_t i = 0;
    for (; i < buf_.size() && buf_[i].t < limit; ++i) {
        const Rec &r = buf_[i];
        Sig &s = sigs_[r.id];
        if (r.v == s.written)
            continue;
        if (r.t != written_t_) {
            std::fprintf(f_, "#%llu\n", (unsigned long long)r.t);
            written_t_ = r.t;
        }
        write_value(s, r.v);
        s.written = r.v;
    }
    buf_.erase(buf_.begin(), buf_.begin() + long(i));
    std::fflush(f_); // the partial waveform of a killed run ends at a whole chunk
}

bool VcdWriter::finish(uint64_t end_t, std::string *err) {
    if (!f_) {
        *err = "waveform file not open";
        return false;
    }
    start();
    flush_before(UINT64_MAX);
    if (end_t > written_t_)
        std::fprintf(f_, "#%llu\n", (unsigned long long)end_t);
    const bool io_error = std::ferror(f_) != 0;
    const bool close_error = std::fclose(f_) != 0;
    f_ = nullptr;
    if (io_error || close_error) {
        *err = "cannot write " + tmp_path_;
        std::remove(tmp_path_.c_str());
        return false;
    }
    std::error_code ec;
    fs::rename(tmp_path_, path_, ec);
    if (ec) {
        *err = "cannot rename " + tmp_path_ + " to " + path_ + ": " + ec.message();
        std::remove(tmp_path_.c_str());
        return false;
    }
    return true;
}

} // namespace satasim::harness
