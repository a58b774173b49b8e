// The command line, on CLI11 (Debian's libcli11-dev): one subcommand per task, each with its
// own --help; satasim --version. Usage errors exit 2 with the message and where to read
// more; the fuzz-* commands and import-dmesg keep their own parsers (fuzz/fuzz_cli.cpp, the
// Python importer) and get the rest of the line as it is.
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

#include <CLI/CLI.hpp>

#include "backend/registry.h"
#include "backend/rtl/rtl_backend.h"
#include "fuzz/fuzz_cli.h"
#include "run/runner.h"
#include "run/sim_run.h"
#include "scenario/scenario_parser.h"
#include "scenario/units.h"
#include "trace/eh_policy_rules.h"
#include "trace/eh_rules.h"
#include "trace/vcd_writer.h"
#include "version.h"

namespace satasim::harness {

namespace {

const char kAbout[] =
    "Runs SATA scenarios: the satasim driver stack against SystemC models of SATA controllers,\n"
    "port multipliers and disks, QEMU's AHCI or a controller's RTL (docs/, README.md).";

const char kFooter[] =
    "Exit status: 0 every scenario passed, 1 a scenario failed, 2 malformed input (the\n"
    "message names file, line and key; nothing is written).\n"
    "Scenario schema: scenarios/README.md. Each command has its own --help.\n";

const char kPassThrough[] =
    "  import-dmesg  a libata kernel log -> SCENARIO.yaml + SCENARIO.expected (the report's\n"
    "                decision lines); `diff` compares a run's satasim.log with them\n"
    "  fuzz-decode|fuzz-encode|fuzz-run|fuzz-smoke|fuzz-reduce ...  (docs/fuzzing.md)\n";

int usage_error(const std::string &msg) {
    std::fprintf(stderr, "satasim: %s\nRun 'satasim --help' (or 'satasim COMMAND --help') for the usage.\n",
                 msg.c_str());
    return 2;
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

// The options `run` and `run-one` share: the overrides of scenario keys and the waveform.
// raw: each given option and its value again, for the scenario processes (`run-one`).
struct SharedRunOptions {
    std::optional<bool> trace_cmds;
    std::optional<std::string> backend;
    std::string vcd_file, vcd_signals, vcd_ports;
    std::vector<std::string> raw_wave;
};

void add_shared_options(CLI::App *c, SharedRunOptions &o) {
    c->add_option_function<std::string>(
         "--trace-cmds", [&o](const std::string &v) { o.trace_cmds = v == "on" || v == "true" || v == "1"; },
         "override the scenarios' per-command trace records")
        ->check(CLI::IsMember({"on", "off", "true", "false", "1", "0"}))
        ->type_name("on|off");
    c->add_option_function<std::string>(
         "--backend", [&o](const std::string &v) { o.backend = v; },
         "systemc (the satasim models; default) or qemu (QEMU's q35 AHCI over qtest); overrides the scenarios' "
         "backend key")
        ->check([](const std::string &v) {
            return find_backend(v) ? std::string() : "expected " + backend_names_or() + ", got '" + v + "'";
        })
        ->type_name("NAME");
    c->add_option("--vcd", o.vcd_file, "write the waveform (VCD, for GTKWave) of the one scenario given to FILE")
        ->type_name("FILE");
    c->add_option("--vcd-signals", o.vcd_signals,
                  "signal groups, comma-separated: irq, phy, prims, fis, regs, all (overrides waveform.signals; "
                  "without --vcd every scenario writes DIR/<name>/waveform.vcd)")
        ->type_name("LIST");
    c->add_option("--vcd-ports", o.vcd_ports,
                  "host ports whose signals are recorded, comma-separated (overrides waveform.ports; switches "
                  "waveforms on as above)")
        ->type_name("LIST");
}

// The options that set scenario keys from outside the files: --set (repeatable), --seed
// and --matrix (repeatable; not on run-one, which gets each point as --set).
struct KeyOptions {
    std::vector<std::string> set, matrix;
    std::optional<uint64_t> seed;
};

void add_key_options(CLI::App *c, KeyOptions &k, bool with_matrix) {
    c->add_option("--set", k.set,
                  "set a scenario key for every scenario, as if written in the file (repeatable): "
                  "controller.type=sil24, devices[0].timing.kind=hdd, faults=[]")
        ->type_name("KEY.PATH=VALUE")
        ->take_all()
        ->allow_extra_args(false);
    if (!with_matrix)
        return;
    c->add_option("--seed", k.seed, "the scenarios' seed (the same as --set seed=N)")->type_name("N");
    c->add_option("--matrix", k.matrix,
                  "run every scenario once per value of this key (repeatable: the product of the axes), each run "
                  "named NAME.VALUE...: --matrix controller.type=ahci,sil24 --matrix seed=1,2,3")
        ->type_name("KEY.PATH=V1,V2,...")
        ->allow_extra_args(false);
}

// The overrides and matrix axes of k; "" or the usage error.
std::string take_key_options(const KeyOptions &k, Overrides *ov, std::vector<MatrixAxis> *axes) {
    for (const std::string &a : k.set) {
        ScenarioOverride o;
        if (std::string why = parse_override(a, &o); !why.empty())
            return "--set: " + why;
        ov->push_back(o);
    }
    if (k.seed)
        ov->push_back({"seed", std::to_string(*k.seed)});
    for (const std::string &a : k.matrix) {
        ScenarioOverride o;
        if (std::string why = parse_override(a, &o); !why.empty())
            return "--matrix: " + why;
        if (o.path == "name")
            return "--matrix: a point's name is made from its values";
        MatrixAxis axis{o.path, {}};
        for (size_t at = 0; at <= o.value.size();) {
            const size_t comma = std::min(o.value.find(',', at), o.value.size());
            if (comma == at)
                return "--matrix: '" + a + "': an empty value";
            axis.values.push_back(o.value.substr(at, comma - at));
            at = comma + 1;
        }
        axes->push_back(std::move(axis));
    }
    return "";
}

// --shard K/N -> 1 <= K <= N; "" or the usage error.
std::string parse_shard(const std::string &v, unsigned *k, unsigned *n) {
    const size_t slash = v.find('/');
    const auto kk = parse_uint(v.substr(0, slash)), nn = slash == std::string::npos ? std::nullopt : parse_uint(v.substr(slash + 1));
    if (!kk || !nn || *nn < 1 || *nn > 100000 || *kk < 1 || *kk > *nn)
        return "--shard: expected K/N with 1 <= K <= N (the K-th of N shares), got '" + v + "'";
    *k = unsigned(*kk);
    *n = unsigned(*nn);
    return "";
}

// The waveform options checked into o (RunOneOptions) and their raw form; "" or the error.
std::string take_wave_options(SharedRunOptions &s, RunOneOptions &o) {
    std::string err;
    if (!s.vcd_file.empty()) {
        o.vcd_file = s.vcd_file;
        s.raw_wave.insert(s.raw_wave.end(), {"--vcd", s.vcd_file});
    }
    if (!s.vcd_signals.empty()) {
        unsigned mask = 0;
        if (!parse_vcd_signals(s.vcd_signals, &mask, &err))
            return err;
        o.vcd_groups = mask;
        s.raw_wave.insert(s.raw_wave.end(), {"--vcd-signals", s.vcd_signals});
    }
    if (!s.vcd_ports.empty()) {
        std::vector<unsigned> ports;
        if (!parse_vcd_ports(s.vcd_ports, &ports, &err))
            return err;
        o.vcd_ports = ports;
        s.raw_wave.insert(s.raw_wave.end(), {"--vcd-ports", s.vcd_ports});
    }
    return "";
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

// `check-profile PROFILE...`: each DUT profile read as `run --controller-rtl` reads it,
// nothing built.
int cmd_check_profile(const std::vector<std::string> &profiles) {
    int rc = 0;
    for (const std::string &a : profiles) {
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

// The EH rules (trace/eh_rules.h) over trace files already written.
int cmd_eh_check(const std::vector<std::string> &traces) {
    int rc = 0;
    for (const std::string &t : traces) {
        std::vector<EhRuleViolation> v;
        std::string err;
        if (!check_trace_file(t, v, &err)) {
            std::fprintf(stderr, "satasim: eh-check: %s\n", err.c_str());
            return 2;
        }
        for (const EhRuleViolation &x : v)
            std::printf("%s: %s\n", t.c_str(), x.str().c_str());
        if (!v.empty())
            rc = 1;
    }
    return rc;
}

// The importer is Python (a text parser, harness/satasim/import_dmesg.py): run it with the
// rest of the arguments, from the source tree this simulator was built from.
int cmd_import_dmesg(const std::vector<std::string> &rest) {
    std::vector<std::string> args = {"python3", "-m", "satasim.import_dmesg"};
    args.insert(args.end(), rest.begin(), rest.end());
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

int cli(int argc, char **argv) {
    // The pass-through commands keep their own parsers: the rest of the line goes to them.
    if (argc >= 2) {
        const std::string cmd = argv[1];
        const std::vector<std::string> rest(argv + 2, argv + argc);
        if (cmd == "import-dmesg")
            return cmd_import_dmesg(rest);
        if (int rc = fuzz::fuzz_command(cmd, rest); rc >= 0)
            return rc;
    }

    CLI::App app(kAbout, "satasim");
    app.footer(std::string("Also:\n") + kPassThrough + "\n" + kFooter);
    app.set_version_flag("--version", version_text(), "print satasim's version and the format versions it writes");
    app.require_subcommand(1);
    app.fallthrough(false);

    // run
    RunOptions ropt;
    SharedRunOptions rshared;
    std::string rtl_profile;
    unsigned jobs = 0, wall = 1200, cpu = 300;
    CLI::App *run = app.add_subcommand(
        "run", "run each scenario (a folder means its *.yaml files, sorted by name, not recursive) in its own "
               "process, up to --jobs at a time; one verdict line per scenario and a summary. Writes "
               "DIR/<name>/{trace.jsonl,satasim.log,result.json} and DIR/summary.json");
    run->add_option("paths", ropt.paths, "scenario files or folders")->required()->type_name("PATH");
    run->add_option("--out", ropt.out_dir, "output folder (default ./out)")->type_name("DIR");
    run->add_option("-j,--jobs", jobs, "scenarios at a time (default: the number of CPUs)")
        ->check(CLI::Range(1, 1024))
        ->type_name("N");
    run->add_option("--cpu-limit", cpu,
                    "kill a scenario after this many seconds of CPU time (default 300: the limit that holds on a "
                    "loaded machine)")
        ->check(CLI::Range(1, 1000000))
        ->type_name("SECONDS");
    run->add_option("--wall-limit", wall,
                    "kill a scenario after this many seconds of wall time (default 1200: a backstop for a run that "
                    "waits without computing)")
        ->check(CLI::Range(1, 1000000))
        ->type_name("SECONDS");
    run->add_option("--controller-rtl", rtl_profile,
                    "backend rtl: the controller RTL of this DUT profile (docs/rtl-controller.md), verilated once "
                    "into a cache")
        ->type_name("PROFILE");
    run->add_flag("--no-total", ropt.no_total,
                  "no closing 'N passed, M failed' line (a caller that totals several runs prints its own)");
    run->add_flag("--skip-refused", ropt.skip_refused,
                  "a scenario the backend cannot model is skipped with the reason instead of refusing the run");
    add_shared_options(run, rshared);
    KeyOptions rkeys;
    add_key_options(run, rkeys, true);
    std::string shard;
    run->add_option("--shard", shard,
                    "run only the K-th of every N runs (1-based, in file and matrix-point order): CI matrix jobs "
                    "that together run everything once")
        ->type_name("K/N");

    // check
    std::vector<std::string> check_paths;
    CLI::App *check = app.add_subcommand("check", "validate scenario files only; print warnings (a fault wider "
                                                  "than its trigger)");
    check->add_option("paths", check_paths, "scenario files or folders")->required()->type_name("PATH");
    KeyOptions ckeys;
    add_key_options(check, ckeys, true);

    // check-profile
    std::vector<std::string> profiles;
    CLI::App *check_profile = app.add_subcommand(
        "check-profile", "validate DUT profiles only (docs/rtl-controller.md), without verilating them");
    check_profile->add_option("profiles", profiles, "DUT profiles")->required()->type_name("PROFILE");

    // eh-check
    std::vector<std::string> traces;
    bool list_rules = false, list_policy_rules = false;
    CLI::App *eh = app.add_subcommand(
        "eh-check", "judge a run's trace.jsonl by libata's EH rules (docs/eh-rules.md): one line per broken rule; "
                    "exit 1 if any, 2 if a file is unreadable or not a trace");
    eh->add_option("traces", traces, "trace files")->type_name("TRACE.jsonl");
    eh->add_flag("--rules", list_rules, "list the rules");
    eh->add_flag("--policy-rules", list_policy_rules,
                 "list the EH profile's rules (its verdicts, reset choice, retries)");

    // run-one: the scenario process `run` starts (not for people: hidden)
    RunOneOptions oopt;
    SharedRunOptions oshared;
    std::string one_file, one_rtl;
    CLI::App *one = app.add_subcommand("run-one", "one scenario in this process (what `run` starts per scenario)");
    one->group("");
    one->add_option("file", one_file, "scenario file")->required();
    one->add_option("--out", oopt.out_dir);
    one->add_option("--controller-rtl", one_rtl);
    add_shared_options(one, oshared);
    KeyOptions okeys;
    add_key_options(one, okeys, false);

    if (argc >= 2 && argv[1][0] != '-') {
        const auto subs = app.get_subcommands([&](CLI::App *c) { return c->get_name() == argv[1]; });
        if (subs.empty())
            return usage_error(std::string("unknown command '") + argv[1] + "'");
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        if (e.get_exit_code() == 0)
            return app.exit(e);
        return usage_error(e.what());
    }

    if (run->parsed()) {
        RunOneOptions wave;
        if (std::string err = take_wave_options(rshared, wave); !err.empty())
            return usage_error(err);
        if (std::string err = take_key_options(rkeys, &ropt.overrides, &ropt.matrix); !err.empty())
            return usage_error(err);
        if (!shard.empty())
            if (std::string err = parse_shard(shard, &ropt.shard_k, &ropt.shard_n); !err.empty())
                return usage_error(err);
        ropt.jobs = jobs;
        ropt.wall_limit_s = wall;
        ropt.cpu_limit_s = cpu;
        ropt.trace_cmds = rshared.trace_cmds;
        ropt.backend = rshared.backend;
        if (!wave.vcd_file.empty()) {
            std::string file = wave.vcd_file;
            if (int rc = check_vcd_file(ropt, &file))
                return rc;
            for (size_t i = 0; i + 1 < rshared.raw_wave.size(); ++i)
                if (rshared.raw_wave[i] == "--vcd")
                    rshared.raw_wave[i + 1] = file;
            ropt.vcd_file = file;
        }
        ropt.child_args = rshared.raw_wave;
        if (!rtl_profile.empty())
            if (int rc = controller_rtl_option(rtl_profile, true, &ropt.backend, &ropt.child_args))
                return rc;
        return run_scenarios(ropt, self_exe(argv[0]));
    }
    if (check->parsed()) {
        Overrides ov;
        std::vector<MatrixAxis> axes;
        if (std::string err = take_key_options(ckeys, &ov, &axes); !err.empty())
            return usage_error(err);
        return check_scenarios(check_paths, ov, axes);
    }
    if (check_profile->parsed())
        return cmd_check_profile(profiles);
    if (eh->parsed()) {
        if (list_rules) {
            for (const EhRuleInfo &i : EhRules::rules())
                std::printf("%-30s %s\n", i.id, i.text);
            return 0;
        }
        if (list_policy_rules) { // the EH profile's (trace/eh_policy_rules.h)
            for (const EhRuleInfo &i : EhPolicyRules::rules())
                std::printf("%-30s %s\n", i.id, i.text);
            return 0;
        }
        if (traces.empty())
            return usage_error("eh-check: no trace file given");
        return cmd_eh_check(traces);
    }
    // run-one
    if (std::string err = take_wave_options(oshared, oopt); !err.empty())
        return usage_error(err);
    oopt.trace_cmds = oshared.trace_cmds;
    oopt.backend = oshared.backend;
    if (!one_rtl.empty())
        if (int rc = controller_rtl_option(one_rtl, false, &oopt.backend, nullptr))
            return rc;
    Overrides one_ov;
    std::vector<MatrixAxis> no_axes;
    if (std::string err = take_key_options(okeys, &one_ov, &no_axes); !err.empty())
        return usage_error(err);
    Scenario sc;
    try {
        sc = parse_scenario_file(one_file, backend_rules(), one_ov);
    } catch (const ScenarioError &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    if (oopt.backend)
        sc.backend = *oopt.backend;
    return run_one(sc, oopt);
}

} // namespace

int cli_main(int argc, char **argv) {
    // Set at load time already (main.cpp); the scenario processes started from here inherit it.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return cli(argc, argv);
}

} // namespace satasim::harness
