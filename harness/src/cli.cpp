#include "cli.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/registry.h"
#include "backend/rtl/rtl_backend.h"
#include "fuzz/fuzz_cli.h"
#include "run/runner.h"
#include "scenario/scenario_parser.h"
#include "run/sim_run.h"
#include "scenario/units.h"
#include "trace/eh_rules.h"
#include "trace/vcd_writer.h"

namespace satasim::harness {

namespace {

const char kUsage[] =
    "usage: satasim run PATH... [--out DIR] [--jobs N] [--trace-cmds on|off] [--wall-limit SECONDS]\n"
    "                   [--backend systemc|qemu] [--controller-rtl PROFILE] [--vcd FILE] [--vcd-signals LIST]\n"
    "                   [--vcd-ports LIST] [--skip-refused]\n"
    "       satasim check PATH... | check-profile PROFILE...\n"
    "       satasim eh-check TRACE.jsonl... | eh-check --rules | eh-check --policy-rules\n"
    "       satasim import-dmesg REPORT.txt -o SCENARIO.yaml | import-dmesg diff EXPECTED RUN_DIR\n"
    "       satasim fuzz-decode|fuzz-encode|fuzz-run|fuzz-smoke|fuzz-reduce ... (docs/fuzzing.md)\n"
    "       satasim --help\n"
    "\n"
    "Runs SATA scenarios: the satasim driver stack against SystemC models of an AHCI\n"
    "controller and SATA disks.\n"
    "\n"
    "  run     run each scenario (a PATH that is a folder means its *.yaml files, sorted by\n"
    "          name, not recursive) in its own process, up to --jobs at a time (default: the\n"
    "          number of CPUs); print one verdict line per scenario and a summary.\n"
    "          Writes DIR/<name>/{trace.jsonl,satasim.log,result.json} and DIR/summary.json\n"
    "          (DIR defaults to ./out).\n"
    "          --trace-cmds on|off  override the scenarios' per-command trace records\n"
    "          --wall-limit S       kill a scenario after S seconds of wall time (default 300)\n"
    "          --backend B          systemc (the satasim models; default) or qemu (QEMU's q35\n"
    "                               AHCI over qtest; overrides the scenarios' backend key)\n"
    "          --controller-rtl P   backend rtl: the controller RTL of DUT profile P (YAML, see\n"
    "                               docs/rtl-controller.md), verilated once into a cache\n"
    "          --skip-refused       a scenario the backend cannot model (a DUT without NCQ and an\n"
    "                               NCQ workload) is skipped with the reason instead of\n"
    "                               refusing the whole run\n"
    "          --vcd FILE           write the waveform (VCD, for GTKWave) of the one scenario\n"
    "                               given to FILE\n"
    "          --vcd-signals LIST   signal groups, comma-separated: irq, phy, prims, fis, regs,\n"
    "                               all (overrides the scenarios' waveform.signals; without\n"
    "                               --vcd: every scenario writes DIR/<name>/waveform.vcd)\n"
    "          --vcd-ports LIST     host ports whose signals are recorded, comma-separated\n"
    "                               (overrides waveform.ports; switches waveforms on as above)\n"
    "  check   validate scenario files only; print warnings (a fault wider than its trigger).\n"
    "  check-profile  validate DUT profiles only (docs/rtl-controller.md), without verilating\n"
    "          them: exit 2 with file, line and key for the first fault of each.\n"
    "  eh-check  judge a run's trace.jsonl by libata's EH rules (docs/eh-rules.md): one line per\n"
    "          broken rule; exit 1 if any, 2 if a file is unreadable or not a trace. --rules lists them,\n"
    "          --policy-rules the EH profile's (its verdicts, reset choice, retries).\n"
    "  import-dmesg  a libata kernel log -> SCENARIO.yaml + SCENARIO.expected (the report's\n"
    "          decision lines); `diff` compares a run's satasim.log with them\n"
    "\n"
    "Exit status: 0 every scenario passed, 1 a scenario failed, 2 malformed input (the\n"
    "message names file, line and key; nothing is written).\n"
    "Scenario schema: scenarios/README.md.\n";

int usage_error(const std::string &msg) {
    std::fprintf(stderr, "satasim: %s\n%s", msg.c_str(), kUsage);
    return 2;
}

bool parse_on_off(const std::string &v, bool *out) {
    if (v == "on" || v == "true" || v == "1") {
        *out = true;
        return true;
    }
    if (v == "off" || v == "false" || v == "0") {
        *out = false;
        return true;
    }
    return false;
}

std::string self_exe(const char *argv0) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        return buf;
    }
    return argv0;
}

// --vcd-signals "irq,regs" into a group mask.
bool parse_vcd_signals(const std::string &v, unsigned *mask, std::string *err) {
    *mask = 0;
    size_t pos = 0;
    for (;;) {
        size_t comma = v.find(',', pos);
        std::string name = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        unsigned m = 0;
        if (!wave_group_mask(name, &m, err)) {
            *err = "--vcd-signals: " + *err;
            return false;
        }
        *mask |= m;
        if (comma == std::string::npos)
            return true;
        pos = comma + 1;
    }
}

// --vcd-ports "0,2" (0..31, each once).
bool parse_vcd_ports(const std::string &v, std::vector<unsigned> *ports, std::string *err) {
    ports->clear();
    size_t pos = 0;
    for (;;) {
        size_t comma = v.find(',', pos);
        std::string item = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        auto n = parse_uint(item);
        if (!n || *n > 31) {
            *err = "--vcd-ports: expected port numbers 0..31 separated by commas, got '" + v + "'";
            return false;
        }
        if (std::find(ports->begin(), ports->end(), unsigned(*n)) != ports->end()) {
            *err = "--vcd-ports: port " + item + " is listed twice";
            return false;
        }
        ports->push_back(unsigned(*n));
        if (comma == std::string::npos)
            return true;
        pos = comma + 1;
    }
}

// Splits "--opt=value" / "--opt value" handling for the subcommands.
struct ArgReader {
    std::vector<std::string> args;
    size_t i = 0;
    bool value(const std::string &name, std::string *out, std::string *err) {
        const std::string &a = args[i];
        if (a == name) {
            if (i + 1 >= args.size()) {
                *err = name + " needs a value";
                return false;
            }
            *out = args[++i];
            return true;
        }
        if (a.rfind(name + "=", 0) == 0) {
            *out = a.substr(name.size() + 1);
            return true;
        }
        return false;
    }
};

// The waveform options shared by `run` and `run-one`; true if r's current argument was one.
// On a bad value: true with err set.
// raw: the option and its value, to pass on to `run-one`.
bool vcd_option(ArgReader &r, RunOneOptions &o, std::vector<std::string> *raw, std::string *err) {
    std::string v;
    if (r.value("--vcd", &v, err)) {
        if (v.empty())
            *err = "--vcd needs a file name";
        o.vcd_file = v;
        raw->insert(raw->end(), {"--vcd", v});
        return true;
    }
    if (r.value("--vcd-signals", &v, err)) {
        unsigned mask = 0;
        if (parse_vcd_signals(v, &mask, err))
            o.vcd_groups = mask;
        raw->insert(raw->end(), {"--vcd-signals", v});
        return true;
    }
    if (r.value("--vcd-ports", &v, err)) {
        std::vector<unsigned> ports;
        if (parse_vcd_ports(v, &ports, err))
            o.vcd_ports = ports;
        raw->insert(raw->end(), {"--vcd-ports", v});
        return true;
    }
    return !err->empty();
}

// The overrides of scenario keys shared by `run` and `run-one` (--trace-cmds, --backend);
// true if r's current argument was one. On a bad value: true with err set.
bool override_option(ArgReader &r, std::optional<bool> *trace_cmds, std::optional<std::string> *backend,
                     std::string *err) {
    std::string v;
    if (r.value("--trace-cmds", &v, err)) {
        bool b = false;
        if (!parse_on_off(v, &b))
            *err = "--trace-cmds: expected on or off, got '" + v + "'";
        *trace_cmds = b;
        return true;
    }
    if (r.value("--backend", &v, err)) {
        if (!find_backend(v))
            *err = "--backend: expected " + backend_names_or() + ", got '" + v + "'";
        *backend = v;
        return true;
    }
    return !err->empty();
}

// `--controller-rtl PROFILE` (run and run-one): the DUT profile, read at once (a
// malformed one is a usage error naming file, line and key), as the backend of every
// scenario. build: make sure the DUT is built (the parent, once for all scenarios).
// 0, or the exit code of the error.
int controller_rtl_option(const std::string &path, bool build, std::optional<std::string> *backend,
                          std::vector<std::string> *child_args) {
    try {
        const rtl::DutProfile &p = rtl::use_controller_rtl(path, build);
        *backend = "rtl";
        if (child_args)
            child_args->insert(child_args->end(), {"--controller-rtl", p.file});
    } catch (const ScenarioError &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "satasim: --controller-rtl %s: %s\n", path.c_str(), e.what());
        return 1;
    }
    return 0;
}

// `run --vcd FILE`: one scenario, on the SystemC backend, into an existing folder. The
// file name is made absolute for the child. 0 or the usage error's exit code.
int check_vcd_file(const RunOptions &opt, std::string *file) {
    std::vector<std::string> files;
    if (!expand_paths(opt.paths, &files))
        return 2;
    if (files.size() != 1)
        return usage_error("--vcd FILE: exactly one scenario file (got " + std::to_string(files.size()) +
                           "); without --vcd, --vcd-signals or the waveform key write DIR/<name>/waveform.vcd");
    if (opt.backend && !find_backend(*opt.backend)->rules.takes(ScenarioKey::Waveform))
        return usage_error("--vcd: no waveform on the " + *opt.backend +
                           " backend (it records the SystemC models' signals)");
    try {
        Scenario sc = parse_scenario_file(files[0], backend_rules());
        if (!backend_of(sc).rules.takes(ScenarioKey::Waveform))
            return usage_error("--vcd: " + files[0] + " runs on the " + sc.backend +
                               " backend: no waveform (SystemC models only)");
    } catch (const ScenarioError &) {
        return 0; // the runner reports it
    }
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(*file, ec);
    if (ec || p.filename().empty() || !std::filesystem::is_directory(p.parent_path(), ec))
        return usage_error("--vcd: '" + *file + "': no such folder for the waveform file");
    if (std::filesystem::is_directory(p, ec))
        return usage_error("--vcd: '" + *file + "' is a folder, not a file name");
    *file = p.string();
    return 0;
}

int cmd_run(ArgReader &r, const char *argv0) {
    RunOptions opt;
    RunOneOptions wave; // waveform options, checked here and passed on to run-one
    std::vector<std::string> wave_args;
    std::string err, rtl_profile;
    for (; r.i < r.args.size(); ++r.i) {
        const std::string &a = r.args[r.i];
        std::string v;
        if (vcd_option(r, wave, &wave_args, &err)) {
            if (!err.empty())
                return usage_error(err);
        } else if (r.value("--out", &v, &err)) {
            opt.out_dir = v;
        } else if (r.value("--controller-rtl", &v, &err)) {
            rtl_profile = v;
        } else if (r.value("--jobs", &v, &err) || r.value("-j", &v, &err)) {
            auto n = parse_uint(v);
            if (!n || *n < 1 || *n > 1024)
                return usage_error("--jobs: expected a number from 1 to 1024, got '" + v + "'");
            opt.jobs = unsigned(*n);
        } else if (override_option(r, &opt.trace_cmds, &opt.backend, &err)) {
            if (!err.empty())
                return usage_error(err);
        } else if (r.value("--wall-limit", &v, &err)) {
            auto n = parse_uint(v);
            if (!n || *n < 1 || *n > 1000000)
                return usage_error("--wall-limit: expected seconds, got '" + v + "'");
            opt.wall_limit_s = unsigned(*n);
        } else if (a == "--skip-refused") {
            opt.skip_refused = true;
        } else if (!err.empty()) {
            return usage_error(err);
        } else if (a.size() > 1 && a[0] == '-') {
            return usage_error("unknown option " + a);
        } else {
            opt.paths.push_back(a);
        }
    }
    if (opt.paths.empty())
        return usage_error("run: no scenario files or folders given");
    if (!wave.vcd_file.empty()) {
        std::string file = wave.vcd_file;
        if (int rc = check_vcd_file(opt, &file))
            return rc;
        for (size_t i = 0; i + 1 < wave_args.size(); ++i)
            if (wave_args[i] == "--vcd")
                wave_args[i + 1] = file;
        opt.vcd_file = file;
    }
    opt.child_args = wave_args;
    if (!rtl_profile.empty())
        if (int rc = controller_rtl_option(rtl_profile, true, &opt.backend, &opt.child_args))
            return rc;
    return run_scenarios(opt, self_exe(argv0));
}

int cmd_check(ArgReader &r) {
    std::vector<std::string> paths;
    for (; r.i < r.args.size(); ++r.i) {
        const std::string &a = r.args[r.i];
        if (a.size() > 1 && a[0] == '-')
            return usage_error("unknown option " + a);
        paths.push_back(a);
    }
    if (paths.empty())
        return usage_error("check: no scenario files or folders given");
    return check_scenarios(paths);
}

// `check-profile PROFILE...`: each DUT profile read as `run --controller-rtl` reads it,
// nothing built.
int cmd_check_profile(ArgReader &r) {
    if (r.i >= r.args.size())
        return usage_error("check-profile: no DUT profile given");
    int rc = 0;
    for (; r.i < r.args.size(); ++r.i) {
        const std::string &a = r.args[r.i];
        if (a.size() > 1 && a[0] == '-')
            return usage_error("unknown option " + a);
        try {
            const rtl::DutProfile p = rtl::parse_dut_profile(a);
            std::printf("ok    %s  (%s: top %s, %zu files, %u port%s)\n", escape_controls(a).c_str(), p.name.c_str(),
                        p.top.c_str(), p.files.size(), p.ports, p.ports == 1 ? "" : "s");
        } catch (const ScenarioError &e) {
            std::fprintf(stderr, "%s\n", e.what());
            rc = 2;
        }
    }
    return rc;
}

int cmd_run_one(ArgReader &r) {
    RunOneOptions opt;
    std::vector<std::string> wave_args;
    std::string file, err, rtl_profile;
    for (; r.i < r.args.size(); ++r.i) {
        const std::string &a = r.args[r.i];
        std::string v;
        if (vcd_option(r, opt, &wave_args, &err)) {
            if (!err.empty())
                return usage_error(err);
        } else if (r.value("--out", &v, &err)) {
            opt.out_dir = v;
        } else if (r.value("--controller-rtl", &v, &err)) {
            rtl_profile = v;
        } else if (override_option(r, &opt.trace_cmds, &opt.backend, &err)) {
            if (!err.empty())
                return usage_error(err);
        } else if (!err.empty()) {
            return usage_error(err);
        } else if (file.empty() && !(a.size() > 1 && a[0] == '-')) {
            file = a;
        } else {
            return usage_error("run-one: unexpected argument " + a);
        }
    }
    if (file.empty())
        return usage_error("run-one: no scenario file given");
    if (!rtl_profile.empty())
        if (int rc = controller_rtl_option(rtl_profile, false, &opt.backend, nullptr))
            return rc;
    Scenario sc;
    try {
        sc = parse_scenario_file(file, backend_rules());
    } catch (const ScenarioError &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    if (opt.backend)
        sc.backend = *opt.backend;
    return run_one(sc, opt);
}

// The EH rules (trace/eh_rules.h) over trace files already written.
int cmd_eh_check(ArgReader &r) {
    if (r.i < r.args.size() && r.args[r.i] == "--rules") {
        for (const EhRuleInfo &i : EhRules::rules())
            std::printf("%-30s %s\n", i.id, i.text);
        return 0;
    }
    if (r.i < r.args.size() && r.args[r.i] == "--policy-rules") { // the EH profile's (eh_policy_rules.h)
        for (const EhRuleInfo &i : EhPolicyRules::rules())
            std::printf("%-30s %s\n", i.id, i.text);
        return 0;
    }
    if (r.i >= r.args.size())
        return usage_error("eh-check: no trace file given");
    int rc = 0;
    for (; r.i < r.args.size(); ++r.i) {
        std::vector<EhRuleViolation> v;
        std::string err;
        if (!check_trace_file(r.args[r.i], v, &err)) {
            std::fprintf(stderr, "satasim: eh-check: %s\n", err.c_str());
            return 2;
        }
        for (const EhRuleViolation &x : v)
            std::printf("%s: %s\n", r.args[r.i].c_str(), x.str().c_str());
        if (!v.empty())
            rc = 1;
    }
    return rc;
}

// The importer is Python (a text parser, harness/satasim/import_dmesg.py): run it with the
// rest of the arguments, from the source tree this simulator was built from.
int cmd_import_dmesg(ArgReader &r) {
    std::vector<std::string> args = {"python3", "-m", "satasim.import_dmesg"};
    for (; r.i < r.args.size(); ++r.i)
        args.push_back(r.args[r.i]);
    std::string path = SATASIM_HARNESS_PY;
    if (const char *old = std::getenv("PYTHONPATH"); old && *old)
        path += std::string(":") + old;
    setenv("PYTHONPATH", path.c_str(), 1);
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    execv("/usr/bin/python3", argv.data());
    std::fprintf(stderr, "satasim: import-dmesg: cannot run /usr/bin/python3: %s\n", std::strerror(errno));
    return 2;
}

} // namespace

int cli_main(int argc, char **argv) {
    // libsystemc prints its banner before sc_main unless this is set in the environment
    // (the caller's job); the scenario processes started from here get it set.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    ArgReader r;
    for (int i = 1; i < argc; ++i)
        r.args.push_back(argv[i]);
    if (r.args.empty())
        return usage_error("no command given");
    std::string cmd = r.args[0];
    r.i = 1;
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (cmd == "run")
        return cmd_run(r, argv[0]);
    if (cmd == "check")
        return cmd_check(r);
    if (cmd == "check-profile")
        return cmd_check_profile(r);
    if (cmd == "run-one")
        return cmd_run_one(r);
    if (cmd == "eh-check")
        return cmd_eh_check(r);
    if (cmd == "import-dmesg")
        return cmd_import_dmesg(r);
    if (int rc = fuzz::fuzz_command(cmd, {r.args.begin() + 1, r.args.end()}); rc >= 0)
        return rc;
    return usage_error("unknown command '" + cmd + "'");
}

} // namespace satasim::harness
