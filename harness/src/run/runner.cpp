#include "run/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "trace/json_reader.h"
#include "trace/json_writer.h"
#include "backend/registry.h"
#include "scenario/scenario_parser.h"
#include "run/sim_run.h"
#include "scenario/units.h"
#include "trace/vcd_writer.h"
#include "version.h"

namespace fs = std::filesystem;

namespace satasim::harness {

namespace {

struct Job {
    std::string file;
    Scenario sc;
    pid_t pid = -1;
    std::string log_path; // child's stdout+stderr
    std::chrono::steady_clock::time_point started;
    bool running = false, done = false, printed = false, killed = false;
    int status = 0;
    // from result.json
    bool pass = false;
    std::vector<std::string> reasons;
    uint64_t sim_time_ns = 0, commands = 0, devices = 0;
    double wall_s = 0;
    // beyond pass/fail (result.json "observed", "io_errors", "disabled"): I/O errors, disks
    // disabled at the end, faults that fired less than their count
    std::string observed;
    uint64_t io_errors = 0;
    std::vector<std::string> disabled;
};

std::string read_text(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string tail_lines(const std::string &text, size_t n) {
    std::vector<std::string> lines;
    std::istringstream is(text);
    std::string l;
    while (std::getline(is, l))
        lines.push_back(l);
    size_t from = lines.size() > n ? lines.size() - n : 0;
    std::string out;
    for (size_t i = from; i < lines.size(); ++i)
        out += lines[i] + "\n";
    return out;
}

const char *signal_name(int sig) {
    switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGKILL: return "SIGKILL";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTERM: return "SIGTERM";
    default: return "signal";
    }
}

bool load_result(Job &j, const fs::path &dir) {
    fs::path rp = dir / "result.json";
    if (!fs::exists(rp))
        return false;
    try {
        std::ifstream in(rp, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        const JsonValue r = parse_json(text.str());
        auto need = [&r](const char *key) -> const JsonValue & {
            if (const JsonValue *v = r.find(key))
                return *v;
            throw JsonError(0, std::string("no \"") + key + "\"");
        };
        j.pass = need("verdict").as_string() == "pass";
        j.reasons.clear();
        for (const JsonValue &x : need("reasons").items())
            j.reasons.push_back(x.as_string());
        j.sim_time_ns = need("sim_time_ns").as_uint();
        j.commands = need("commands").as_uint();
        j.devices = need("devices").size();
        j.wall_s = need("wall_time_s").as_double();
        const JsonValue *io = r.find("io_errors");
        j.io_errors = io ? io->as_uint() : 0;
        const JsonValue *observed = r.find("observed");
        j.observed = observed ? observed->as_string() : "";
        j.disabled.clear();
        if (const JsonValue *disabled = r.find("disabled"))
            for (const JsonValue &d : disabled->items()) {
                const JsonValue *name = d.find("name");
                if (!name)
                    throw JsonError(0, "a \"disabled\" entry without \"name\"");
                j.disabled.push_back(name->as_string());
            }
        return true;
    } catch (const std::exception &e) {
        j.pass = false;
        j.reasons = {std::string("unreadable result.json: ") + e.what()};
        return true;
    }
}

// The child died without writing its result: keep what it wrote (trace, log), add its
// output and a result.json saying why, and put the folder in place. A waveform it had
// not finished stays in the folder as waveform.partial.vcd (what led up to the crash); a
// --vcd target (vcd_file) gets nothing, never a half-written file.
void salvage(Job &j, const fs::path &out, const std::string &why, const std::string &child_output,
             const std::string &vcd_file) {
    std::error_code ec;
    fs::path final_dir = out / j.sc.name;
    fs::path tmp = out / temp_dir_name(j.sc.name, long(j.pid));
    if (!fs::exists(tmp)) {
        fs::create_directories(tmp, ec);
    }
    if (vcd_file.empty()) {
        const std::string partial = VcdWriter::temp_path((tmp / "waveform.vcd").string(), long(j.pid));
        if (fs::exists(partial, ec))
            fs::rename(partial, tmp / "waveform.partial.vcd", ec);
    } else {
        fs::remove(VcdWriter::temp_path(vcd_file, long(j.pid)), ec);
    }
    {
        std::ofstream o(tmp / "output.txt", std::ios::binary);
        o << child_output;
    }
    JsonWriter w(true);
    w.begin_object();
    w.kv("name", j.sc.name);
    w.kv("file", j.file);
    w.kv("description", j.sc.description);
    w.kv("seed", j.sc.seed);
    w.kv("verdict", "fail");
    w.key("reasons").begin_array().value(why).end_array();
    w.key("controller").begin_object();
    w.kv("type", j.sc.controller.type);
    w.kv("ports", j.sc.controller.ports);
    w.end_object();
    w.kv("ports", j.sc.controller.ports);
    w.key("devices").begin_array().end_array();
    w.key("workloads").begin_array().end_array();
    w.kv("commands", uint64_t(0));
    w.kv("bytes_moved", uint64_t(0));
    w.kv("io_errors", uint64_t(0));
    w.kv("data_errors", uint64_t(0));
    w.kv("sim_time_ns", uint64_t(0));
    w.key("wall_time_s").fixed(j.wall_s, 6);
    w.key("commands_per_wall_second").fixed(0.0, 1);
    w.end_object();
    {
        std::ofstream o(tmp / "result.json", std::ios::binary);
        o << w.str();
    }
    fs::remove_all(final_dir, ec);
    fs::rename(tmp, final_dir, ec);
    j.pass = false;
    j.reasons = {why};
    j.observed.clear();
    j.io_errors = 0;
    j.disabled.clear();
}

unsigned ncpus() {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? unsigned(n) : 1;
}

std::string fmt_sim(uint64_t ns) { return format_seconds(ns, 3) + "s"; }

std::string fmt_wall(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fs", s);
    return buf;
}

std::string pad(const std::string &s, size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

} // namespace

bool expand_paths(const std::vector<std::string> &paths, std::vector<std::string> *files) {
    bool ok = true;
    for (const std::string &p : paths) {
        std::error_code ec;
        fs::file_status st = fs::status(p, ec);
        if (ec || !fs::exists(st)) {
            std::fprintf(stderr, "%s: no such file or directory\n", p.c_str());
            ok = false;
            continue;
        }
        if (fs::is_directory(st)) {
            std::vector<std::string> found;
            for (const auto &e : fs::directory_iterator(p, ec))
                // testplan.yaml (scenarios/testplan.yaml, satasim.testplan) is no scenario
                if (e.is_regular_file() && e.path().extension() == ".yaml" && e.path().filename() != "testplan.yaml")
                    found.push_back(e.path().string());
            std::sort(found.begin(), found.end());
            if (found.empty()) {
                std::fprintf(stderr, "%s: no *.yaml scenario files in this folder\n", p.c_str());
                ok = false;
            }
            files->insert(files->end(), found.begin(), found.end());
        } else {
            files->push_back(p);
        }
    }
    if (ok && files->empty()) {
        std::fprintf(stderr, "satasim: no scenario files given\n");
        ok = false;
    }
    return ok;
}

namespace {

// Parses every file; prints every error. False if any is malformed.
// A scenario left out by --skip-refused: what the backend cannot model, one line each.
struct Skipped {
    std::string file, name;
    std::vector<std::string> reasons;
};

// skipped non-null (--skip-refused): a scenario the backend refuses is listed there instead
// of making the run fail.
// One run to parse: a file and a point of its matrix (no matrix: one point, no overrides).
struct Candidate {
    std::string file;
    Overrides point;
};

// Every file's points (its matrix with --matrix's axes), the --shard's share of them; false
// (message printed) if a matrix is malformed.
bool candidates(const std::vector<std::string> &files, const RunOptions &opt, std::vector<Candidate> *out) {
    bool ok = true;
    size_t index = 0;
    for (const std::string &f : files) {
        try {
            // An axis whose key --set fixes is not expanded: the set value wins (one point of a
            // matrix can be run alone so, as the pytest plugin does).
            std::vector<MatrixAxis> axes = scenario_matrix(f, opt.matrix);
            axes.erase(std::remove_if(axes.begin(), axes.end(),
                                      [&](const MatrixAxis &a) {
                                          return std::any_of(opt.overrides.begin(), opt.overrides.end(),
                                                             [&](const ScenarioOverride &o) { return o.path == a.path; });
                                      }),
                       axes.end());
            for (Overrides &point : matrix_points(axes)) {
                if (!opt.shard_n || index % opt.shard_n == opt.shard_k - 1)
                    out->push_back({f, std::move(point)});
                ++index;
            }
        } catch (const ScenarioError &e) {
            std::fprintf(stderr, "%s\n", e.what());
            ok = false;
        }
    }
    return ok;
}

bool parse_all(const std::vector<Candidate> &runs, std::vector<Job> *jobs, const RunOptions &opt,
               std::vector<Skipped> *skipped = nullptr) {
    bool ok = true;
    const std::optional<std::string> &backend = opt.backend;
    std::map<std::string, std::string> names;
    for (const Candidate &c : runs) {
        const std::string &f = c.file;
        try {
            Job j;
            j.file = f;
            Overrides ov = opt.overrides;
            ov.insert(ov.end(), c.point.begin(), c.point.end());
            j.sc = parse_scenario_file(f, backend_rules(), ov);
            if (!c.point.empty()) {
                // a matrix point is named after its values; its process gets the name too
                j.sc.name += "." + point_suffix(c.point);
                j.sc.overrides.push_back({"name", j.sc.name});
            }
            auto it = names.find(j.sc.name);
            if (it != names.end()) {
                std::fprintf(stderr, "%s:1: name: scenario name '%s' is also used by %s (names pick the output folder)\n",
                             f.c_str(), j.sc.name.c_str(), it->second.c_str());
                ok = false;
                continue;
            }
            if (backend)
                j.sc.backend = *backend;
            {
                // Refused up front, naming each feature the backend cannot model.
                bool refused = false;
                const BackendRules &rules = backend_of(j.sc).rules;
                Skipped skip{f, j.sc.name, {}};
                for (const Refusal &r : rules.refusals(j.sc)) {
                    // At the key that asks for it where the rules know its line.
                    char at[64];
                    std::snprintf(at, sizeof at, ":%d: backend ", r.line ? r.line : j.sc.backend_line);
                    const std::string line = f + at + j.sc.backend + ": the " + rules.title +
                                             " backend cannot model " + escape_controls(r.what);
                    if (skipped)
                        skip.reasons.push_back(line);
                    else
                        std::fprintf(stderr, "%s\n", line.c_str());
                    refused = true;
                }
                if (refused && skipped) {
                    skipped->push_back(std::move(skip));
                    continue;
                }
                if (refused) {
                    ok = false;
                    continue;
                }
            }
            names[j.sc.name] = f;
            jobs->push_back(std::move(j));
        } catch (const ScenarioError &e) {
            std::fprintf(stderr, "%s\n", e.what());
            ok = false;
        }
    }
    return ok;
}

} // namespace

int check_scenarios(const std::vector<std::string> &paths, const Overrides &overrides,
                    const std::vector<MatrixAxis> &matrix) {
    std::vector<std::string> files;
    if (!expand_paths(paths, &files))
        return 2;
    RunOptions opt;
    opt.overrides = overrides;
    opt.matrix = matrix;
    std::vector<Candidate> runs;
    std::vector<Job> jobs;
    if (!candidates(files, opt, &runs) || !parse_all(runs, &jobs, opt))
        return 2;
    for (const Job &j : jobs) {
        for (const std::string &w : j.sc.warnings)
            std::printf("warning: %s\n", w.c_str());
        std::printf("ok    %s  (%s: %u ports, %zu disks, %zu workload entries)\n", j.file.c_str(),
                    j.sc.name.c_str(), j.sc.total_ports(), j.sc.devices.size(), j.sc.workload.size());
    }
    return 0;
}

// Why the output folder cannot take the runs' results ("" if it can): it is created, and a
// folder and a file are made and removed in it, as each run will (a folder under /proc or
// one without write permission passes create_directories and fails only later, per run).
static std::string unusable_out_dir(const std::string &dir) {
    std::error_code ec;
    const fs::path out(dir);
    fs::create_directories(out, ec);
    if (ec)
        return "cannot create it (" + ec.message() + ")";
    if (!fs::is_directory(out, ec))
        return "not a folder";
    const fs::path probe = out / (".satasim-probe." + std::to_string(getpid()));
    fs::create_directory(probe, ec);
    if (ec)
        return "cannot make a folder in it (" + ec.message() + ")";
    bool wrote = false;
    {
        std::ofstream f(probe / "probe", std::ios::binary);
        wrote = f && (f << "probe\n") && f.flush();
    }
    fs::remove_all(probe, ec);
    return wrote ? "" : "cannot write a file in it";
}

int run_scenarios(const RunOptions &opt, const std::string &self_exe) {
    std::vector<std::string> files;
    if (!expand_paths(opt.paths, &files))
        return 2;
    std::vector<Candidate> runs;
    std::vector<Job> jobs;
    std::vector<Skipped> skipped;
    if (!candidates(files, opt, &runs) || !parse_all(runs, &jobs, opt, opt.skip_refused ? &skipped : nullptr))
        return 2;
    if (opt.shard_n)
        std::printf("shard %u/%u: %zu of the runs\n", opt.shard_k, opt.shard_n, runs.size());
    if (std::string why = unusable_out_dir(opt.out_dir); !why.empty()) {
        std::fprintf(stderr, "satasim: --out %s: %s\n", escape_controls(opt.out_dir).c_str(), why.c_str());
        return 2;
    }
    // Skipped with the reason, before anything runs (a suite on a DUT that lacks features).
    for (const Skipped &s : skipped) {
        std::printf("SKIP  %s  %s\n", s.name.c_str(), s.reasons[0].c_str());
        for (size_t i = 1; i < s.reasons.size(); ++i)
            std::printf("      %s  %s\n", std::string(s.name.size(), ' ').c_str(), s.reasons[i].c_str());
    }
    std::fflush(stdout);

    fs::path out(opt.out_dir);
    std::error_code ec;

    unsigned max_jobs = opt.jobs ? opt.jobs : ncpus();
    bool tty = isatty(STDOUT_FILENO);
    size_t name_w = 20;
    for (const Job &j : jobs)
        name_w = std::max(name_w, j.sc.name.size());
    auto wall_start = std::chrono::steady_clock::now();

    size_t next = 0, running = 0, finished = 0, next_print = 0;
    std::string progress_shown;
    auto clear_progress = [&] {
        if (tty && !progress_shown.empty()) {
            std::fputs("\r\033[K", stdout);
            progress_shown.clear();
        }
    };
    auto show_progress = [&] {
        if (!tty)
            return;
        std::string names;
        for (const Job &j : jobs)
            if (j.running)
                names += (names.empty() ? "" : ", ") + j.sc.name;
        std::string line = "[" + std::to_string(finished) + "/" + std::to_string(jobs.size()) + "] running: " + names;
        if (line.size() > 100)
            line = line.substr(0, 97) + "...";
        if (line != progress_shown) {
            std::fputs(("\r\033[K" + line).c_str(), stdout);
            std::fflush(stdout);
            progress_shown = line;
        }
    };
    // "[ k/N] ": which of the runs this is, on every verdict line (a log read later, or CI's
    // output, shows the progress too); the continuation lines are indented under the verdict.
    const std::string total_text = std::to_string(jobs.size());
    const std::string indent(total_text.size() * 2 + 4, ' ');
    auto print_ready = [&] {
        while (next_print < jobs.size() && jobs[next_print].done) {
            Job &j = jobs[next_print++];
            clear_progress();
            std::string k = std::to_string(next_print);
            std::printf("[%s%s/%s] ", std::string(total_text.size() - k.size(), ' ').c_str(), k.c_str(),
                        total_text.c_str());
            if (j.pass) {
                std::printf("PASS  %s  %s  %u ports/%llu disks  cmds %llu  sim %s  wall %s%s\n",
                            pad(j.sc.name, name_w).c_str(),
                            (j.sc.multi() ? std::to_string(j.sc.controllers.size()) + " controllers"
                                          : j.sc.controller.type).c_str(),
                            j.sc.total_ports(),
                            (unsigned long long)j.devices, (unsigned long long)j.commands,
                            fmt_sim(j.sim_time_ns).c_str(), fmt_wall(j.wall_s).c_str(),
                            j.observed.empty() ? "" : ("  " + j.observed).c_str());
            } else {
                std::string first = j.reasons.empty() ? "failed (no reason given)" : j.reasons[0];
                std::printf("FAIL  %s  %s\n", pad(j.sc.name, name_w).c_str(), first.c_str());
                for (size_t i = 1; i < j.reasons.size() && i < 4; ++i)
                    std::printf("%s      %s  %s\n", indent.c_str(), std::string(name_w, ' ').c_str(),
                                j.reasons[i].c_str());
                if (j.reasons.size() > 4)
                    std::printf("%s      %s  (%zu more in %s)\n", indent.c_str(), std::string(name_w, ' ').c_str(),
                                j.reasons.size() - 4, (out / j.sc.name / "result.json").c_str());
                if (!j.observed.empty())
                    std::printf("%s      %s  observed: %s\n", indent.c_str(), std::string(name_w, ' ').c_str(),
                                j.observed.c_str());
            }
            std::fflush(stdout);
        }
    };

    auto start_job = [&](Job &j) {
        char tmpl[] = "/tmp/satasim-child-XXXXXX";
        int fd = mkstemp(tmpl);
        if (fd < 0) {
            std::perror("satasim: mkstemp");
            std::exit(2);
        }
        j.log_path = tmpl;
        std::vector<std::string> args = {self_exe, "run-one", j.file, "--out", opt.out_dir};
        if (opt.trace_cmds)
            args.insert(args.end(), {"--trace-cmds", *opt.trace_cmds ? "on" : "off"});
        if (opt.backend)
            args.insert(args.end(), {"--backend", *opt.backend});
        for (const ScenarioOverride &o : j.sc.overrides) // --set, --seed and the matrix point
            args.insert(args.end(), {"--set", o.text()});
        args.insert(args.end(), opt.child_args.begin(), opt.child_args.end());
        std::fflush(stdout);
        std::fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            std::perror("satasim: fork");
            std::exit(2);
        }
        if (pid == 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
            setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
            // SIGXCPU at the limit, SIGKILL a few seconds of CPU later if it is caught
            const struct rlimit cpu = {rlim_t(opt.cpu_limit_s), rlim_t(opt.cpu_limit_s) + 5};
            setrlimit(RLIMIT_CPU, &cpu);
            std::vector<char *> argv;
            for (auto &a : args)
                argv.push_back(const_cast<char *>(a.c_str()));
            argv.push_back(nullptr);
            execv(self_exe.c_str(), argv.data());
            std::fprintf(stderr, "satasim: exec %s: %s\n", self_exe.c_str(), std::strerror(errno));
            _exit(127);
        }
        close(fd);
        j.pid = pid;
        j.running = true;
        j.started = std::chrono::steady_clock::now();
        ++running;
    };

    auto reap = [&](Job &j, int status) {
        j.running = false;
        j.done = true;
        j.status = status;
        --running;
        ++finished;
        j.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - j.started).count();
        std::string output = read_text(j.log_path);
        ::unlink(j.log_path.c_str());
        bool normal = WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1);
        if (j.killed) {
            salvage(j, out, "wall-clock limit of " + std::to_string(opt.wall_limit_s) + "s exceeded: killed",
                    output, opt.vcd_file);
        } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
            salvage(j, out, "CPU time limit of " + std::to_string(opt.cpu_limit_s) + "s exceeded: killed", output,
                    opt.vcd_file);
        } else if (normal && load_result(j, out / j.sc.name)) {
            // The child wrote its verdict.
            if (WEXITSTATUS(status) == 1 && j.pass) {
                j.pass = false;
                j.reasons.insert(j.reasons.begin(), "run-one exited 1 with a passing result");
            }
        } else {
            std::string why;
            if (WIFSIGNALED(status))
                why = std::string("crashed: ") + signal_name(WTERMSIG(status)) + " (signal " +
                      std::to_string(WTERMSIG(status)) + ")";
            else
                why = "run-one exited with status " + std::to_string(WEXITSTATUS(status)) + " without a result";
            std::string t = tail_lines(output, 12);
            // The most telling line of the child's output, in the verdict.
            std::string key;
            std::istringstream is(t);
            for (std::string l; std::getline(is, l);)
                if (l.find("FATAL") != std::string::npos || l.find("ERROR: AddressSanitizer") != std::string::npos ||
                    l.find("runtime error") != std::string::npos || l.find("Assertion") != std::string::npos ||
                    l.find("Error:") != std::string::npos)
                    key = l;
            if (!key.empty())
                why += ": " + key;
            salvage(j, out, why, output, opt.vcd_file);
            if (!t.empty()) {
                j.reasons.push_back("last output of the child (" + (out / j.sc.name / "output.txt").string() + "):");
                std::istringstream ts(t);
                for (std::string l; std::getline(ts, l);)
                    j.reasons.push_back("  " + l);
            }
        }
    };

    while (finished < jobs.size()) {
        while (running < max_jobs && next < jobs.size())
            start_job(jobs[next++]);
        show_progress();
        int status = 0;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            for (Job &j : jobs)
                if (j.running && j.pid == pid) {
                    reap(j, status);
                    break;
                }
            print_ready();
            continue;
        }
        if (pid < 0 && errno != EINTR && errno != ECHILD) {
            std::perror("satasim: waitpid");
            return 2;
        }
        auto now = std::chrono::steady_clock::now();
        for (Job &j : jobs)
            if (j.running && !j.killed &&
                now - j.started > std::chrono::seconds(opt.wall_limit_s)) {
                j.killed = true;
                kill(j.pid, SIGKILL);
            }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    print_ready();
    clear_progress();

    size_t passed = 0, failed = 0;
    for (const Job &j : jobs)
        (j.pass ? passed : failed)++;
    double total_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (!opt.no_total) {
        if (opt.skip_refused)
            std::printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped.size());
        else
            std::printf("%zu passed, %zu failed\n", passed, failed);
    }

    JsonWriter w(true);
    w.begin_object();
    w.kv("result_format", kResultFormat);
    w.kv("satasim_version", satasim_version());
    if (opt.shard_n)
        w.kv("shard", std::to_string(opt.shard_k) + "/" + std::to_string(opt.shard_n));
    w.kv("total", uint64_t(jobs.size()));
    w.kv("passed", uint64_t(passed));
    w.kv("failed", uint64_t(failed));
    if (opt.skip_refused) {
        w.kv("skipped", uint64_t(skipped.size()));
        w.key("skipped_scenarios").begin_array();
        for (const Skipped &s : skipped) {
            w.begin_object();
            w.kv("name", s.name);
            w.kv("file", s.file);
            w.kv("reasons", s.reasons);
            w.end_object();
        }
        w.end_array();
    }
    w.kv("jobs", max_jobs);
    w.key("wall_time_s").fixed(total_wall, 3);
    w.key("scenarios").begin_array();
    for (const Job &j : jobs) {
        w.begin_object();
        w.kv("name", j.sc.name);
        w.kv("file", j.file);
        w.kv("verdict", j.pass ? "pass" : "fail");
        w.kv("reasons", j.reasons);
        w.kv("observed", j.observed);
        w.kv("io_errors", j.io_errors);
        w.kv("disabled", j.disabled);
        w.kv("controller", j.sc.controller.type);
        w.kv("ports", j.sc.controller.ports);
        w.kv("devices", j.devices);
        w.kv("commands", j.commands);
        w.kv("sim_time_ns", j.sim_time_ns);
        w.key("wall_time_s").fixed(j.wall_s, 3);
        w.kv("result", (fs::path(j.sc.name) / "result.json").string());
        w.end_object();
    }
    w.end_array();
    w.end_object();
    fs::path tmp = out / ".summary.json.tmp";
    {
        std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
        o << w.str();
    }
    fs::rename(tmp, out / "summary.json", ec);
    if (ec)
        std::fprintf(stderr, "satasim: cannot write %s: %s\n", (out / "summary.json").c_str(), ec.message().c_str());
    return failed ? 1 : 0;
}

} // namespace satasim::harness
