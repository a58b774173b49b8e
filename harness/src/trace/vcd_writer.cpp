#include "trace/vcd_writer.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

extern char **environ;

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

bool VcdWriter::is_fst(const std::string &path) {
    return path.size() > 4 && path.compare(path.size() - 4, 4, ".fst") == 0;
}

std::string VcdWriter::vcd2fst() {
    const char *env = std::getenv("PATH");
    std::string dirs = env ? env : "/usr/bin:/bin";
    size_t pos = 0;
    while (pos <= dirs.size()) {
        size_t colon = dirs.find(':', pos);
        std::string d = dirs.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
        if (!d.empty()) {
            std::string cand = d + "/vcd2fst";
            if (::access(cand.c_str(), X_OK) == 0)
                return cand;
        }
        if (colon == std::string::npos)
            break;
        pos = colon + 1;
    }
    return "";
}

// model/wave/gtkwave_prims.txt holds the same table (harness/tests/test_waveform.py).
const char *VcdWriter::prim_filter() {
    return "00 none\n01 DATA\n02 ALIGN\n03 CONT\n04 SYNC\n05 X_RDY\n06 R_RDY\n07 SOF\n08 EOF\n09 R_IP\n"
           "0A R_OK\n0B R_ERR\n0C HOLD\n0D HOLDA\n0E WTRM\n0F DMAT\n10 BAD_K\n";
}

// The FIS types of the `fis` signals (scenarios/README.md, "waveform"; 0 outside frames).
const char *VcdWriter::fis_filter() {
    return "00 -\n27 Reg_H2D\n34 Reg_D2H\n39 DMA_Activate\n41 DMA_Setup\n46 Data\n58 BIST\n5F PIO_Setup\n"
           "A1 Set_Device_Bits\n";
}

std::string VcdWriter::gtkw_path(const std::string &path) {
    return fs::path(path).replace_extension(".gtkw").string();
}

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
    if (is_fst(path_) && vcd2fst().empty()) {
        *err = "cannot write " + path_ + ": an FST waveform needs vcd2fst (Debian package gtkwave)";
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
    if (is_fst(path_) && !convert_to_fst(err))
        return false;
    std::error_code ec;
    fs::rename(tmp_path_, path_, ec);
    if (ec) {
        *err = "cannot rename " + tmp_path_ + " to " + path_ + ": " + ec.message();
        std::remove(tmp_path_.c_str());
        return false;
    }
    return write_gtkw(err);
}

// The VCD under the temporary name becomes an FST under the same name (vcd2fst, its output
// discarded; the VCD is removed either way).
bool VcdWriter::convert_to_fst(std::string *err) {
    const std::string tool = vcd2fst();
    const std::string vcd = tmp_path_ + ".vcd", fst = tmp_path_;
    std::error_code ec;
    fs::rename(tmp_path_, vcd, ec);
    if (tool.empty() || ec) {
        *err = tool.empty() ? "cannot write " + path_ + ": vcd2fst is not installed (Debian package gtkwave)"
                            : "cannot rename " + tmp_path_ + ": " + ec.message();
        std::remove(tmp_path_.c_str());
        std::remove(vcd.c_str());
        return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::string a0 = tool, a1 = vcd, a2 = fst;
    char *argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
    pid_t pid = -1;
    int rc = posix_spawn(&pid, tool.c_str(), &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    if (rc == 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    std::remove(vcd.c_str());
    if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fs::exists(fst, ec)) {
        *err = "cannot write " + path_ + ": " + tool + " failed" +
               (rc != 0 ? std::string(" to start: ") + std::strerror(rc) : std::string());
        std::remove(fst.c_str());
        return false;
    }
    return true;
}

// GTKWave save file (format of GTKWave 3.3's own: [dumpfile], then per trace a flags line
// "@hex", "^N file" for a translate filter, the full signal name; groups are a blank trace
// "-name" with the group-begin flag 0x800000 and one with the group-end flag 0x1000000).
bool VcdWriter::write_gtkw(std::string *err) const {
    std::error_code ec;
    const fs::path wave = fs::absolute(opt_.final_path.empty() ? path_ : opt_.final_path, ec);
    const fs::path save = fs::path(gtkw_path(wave.string()));
    fs::path stem = wave;
    stem.replace_extension();
    const std::string prims = stem.string() + ".prims.txt", fis = stem.string() + ".fis.txt";
    auto full = [](const Sig &s) {
        std::string n = s.decl.scope.empty() ? s.decl.name : s.decl.scope + "." + s.decl.name;
        if (s.decl.width > 1)
            n += "[" + std::to_string(s.decl.width - 1) + ":0]";
        return n;
    };
    std::ostringstream o;
    o << "[*] satasim: " << opt_.comment << "\n"
      << "[*] signals grouped per signal group and port; link primitives and FIS types decoded ("
      << fs::path(prims).filename().string() << ", " << fs::path(fis).filename().string() << ")\n"
      << "[dumpfile] \"" << wave.string() << "\"\n"
      << "[savefile] \"" << save.string() << "\"\n"
      << "[timestart] 0\n[size] 1400 900\n[sst_width] 260\n[signals_width] 300\n[sst_expanded] 1\n";
    bool uses_prims = false, uses_fis = false;
    // group order: irq, then per port phy, prims, fis, regs (declaration order within)
    std::vector<std::pair<int, unsigned>> keys; // (port, group)
    for (const Sig &s : sigs_) {
        std::pair<int, unsigned> k{s.decl.port, unsigned(s.decl.group)};
        if (std::find(keys.begin(), keys.end(), k) == keys.end())
            keys.push_back(k);
    }
    std::stable_sort(keys.begin(), keys.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    for (const auto &[port, group] : keys) {
        const std::string label = port < 0 ? std::string(wave::group_name(wave::Group(group)))
                                           : "port" + std::to_string(port) + " " +
                                                 wave::group_name(wave::Group(group));
        o << "@800200\n-" << label << "\n";
        for (const Sig &s : sigs_) {
            if (s.decl.port != port || unsigned(s.decl.group) != group)
                continue;
            const wave::Group g = s.decl.group;
            if (s.decl.width == 1) {
                o << "@28\n";
            } else if (g == wave::Group::Prims) {
                o << "@2022\n^1 " << prims << "\n";
                uses_prims = true;
            } else if (g == wave::Group::Fis) {
                o << "@2022\n^2 " << fis << "\n";
                uses_fis = true;
            } else if (s.decl.width <= 4) {
                o << "@24\n";
            } else {
                o << "@22\n";
            }
            o << full(s) << "\n";
        }
        o << "@1000200\n-" << label << "\n";
    }
    auto write = [err](const std::string &file, const std::string &text) {
        FILE *f = std::fopen(file.c_str(), "wb");
        bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
        if (f && std::fclose(f) != 0)
            ok = false;
        if (!ok)
            *err = "cannot write " + file + ": " + std::strerror(errno);
        return ok;
    };
    const std::string here = gtkw_path(path_);   // written beside path_ (the folder may move)
    fs::path here_stem = fs::path(path_);
    here_stem.replace_extension();
    return write(here, o.str()) && (!uses_prims || write(here_stem.string() + ".prims.txt", prim_filter())) &&
           (!uses_fis || write(here_stem.string() + ".fis.txt", fis_filter()));
}

} // namespace satasim::harness
