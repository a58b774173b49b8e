#include "fuzz/fuzz_cli.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "backend/registry.h"
#include "fuzz/findings.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/in_process_runner.h"
#include "fuzz/scenario_yaml.h"
#include "scenario/scenario_parser.h"
#include "scenario/units.h"

namespace fs = std::filesystem;

namespace satasim::harness::fuzz {

namespace {

int usage(const std::string &msg) {
    std::fprintf(stderr, "satasim: %s (docs/fuzzing.md)\n", msg.c_str());
    return 2;
}

bool read_bytes(const std::string &path, std::vector<uint8_t> *out) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

std::string default_work_dir() {
    const char *shm = "/dev/shm";
    std::error_code ec;
    const std::string base = fs::is_directory(shm, ec) ? shm : fs::temp_directory_path(ec).string();
    return base + "/satasim-fuzz-" + std::to_string(long(getpid()));
}

// Options shared by the commands; the rest are positional.
struct Args {
    std::vector<std::string> pos;
    bool fis = false;
    bool decode_only = false;
    bool via_yaml = false;
    std::string out, findings;
    uint64_t seed = 1, count = 20, max_steps = kDefaultMaxSteps;
    std::string error;
};

Args parse_args(const std::vector<std::string> &a) {
    Args r;
    for (size_t i = 0; i < a.size(); ++i) {
        auto value = [&](const char *name) -> const std::string * {
            if (a[i] != name)
                return nullptr;
            if (i + 1 >= a.size()) {
                r.error = std::string(name) + " needs a value";
                return nullptr;
            }
            return &a[++i];
        };
        auto number = [&](const std::string *v, uint64_t *out) {
            auto n = parse_uint(*v);
            if (!n)
                r.error = a[i - 1] + ": expected a number, got '" + *v + "'";
            else
                *out = *n;
        };
        if (a[i] == "--fis")
            r.fis = true;
        else if (a[i] == "--decode-only")
            r.decode_only = true;
        else if (a[i] == "--via-yaml")
            r.via_yaml = true;
        else if (auto *v = value("--out"))
            r.out = *v;
        else if (auto *v = value("--findings"))
            r.findings = *v;
        else if (auto *v = value("--seed"))
            number(v, &r.seed);
        else if (auto *v = value("--count"))
            number(v, &r.count);
        else if (auto *v = value("--max-steps"))
            number(v, &r.max_steps);
        else if (!r.error.empty())
            break;
        else if (a[i].size() > 1 && a[i][0] == '-')
            r.error = "unknown option " + a[i];
        else
            r.pos.push_back(a[i]);
        if (!r.error.empty())
            break;
    }
    return r;
}

RunnerOptions runner_options(const Args &a) {
    RunnerOptions o;
    o.work_dir = default_work_dir();
    o.limits.max_steps = a.max_steps;
    o.decode.force_fis = a.fis;
    o.write_files = !a.out.empty(); // only --out keeps them
    o.via_yaml = a.via_yaml;
    return o;
}

int cmd_decode(const Args &a) {
    if (a.pos.size() != 1)
        return usage("fuzz-decode: one input file");
    std::vector<uint8_t> b;
    if (!read_bytes(a.pos[0], &b))
        return usage("fuzz-decode: cannot read " + a.pos[0]);
    DecodeOptions o;
    o.force_fis = a.fis;
    std::fputs(scenario_yaml(decode_scenario(b.data(), b.size(), o), "decoded from " + a.pos[0] + " (" +
                                                                         std::to_string(b.size()) + " bytes)")
                   .c_str(),
               stdout);
    return 0;
}

int cmd_encode(const Args &a) {
    if (a.pos.size() != 2)
        return usage("fuzz-encode: a scenario file and an output file");
    Scenario sc;
    try {
        sc = parse_scenario_file(a.pos[0], backend_rules());
    } catch (const ScenarioError &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    if (a.fis)
        sc.link_mode = LinkModeSpec::Fis;
    std::vector<std::string> lost;
    short_schedules(sc, &lost);
    std::vector<uint8_t> b = encode_scenario(sc, &lost);
    for (const std::string &l : lost)
        std::fprintf(stderr, "%s: not expressed: %s\n", a.pos[0].c_str(), l.c_str());
    std::ofstream o(a.pos[1], std::ios::binary | std::ios::trunc);
    o.write(reinterpret_cast<const char *>(b.data()), std::streamsize(b.size()));
    o.close();
    if (!o)
        return usage("fuzz-encode: cannot write " + a.pos[1]);
    return 0;
}

// One line per input; findings written to --findings; the traces copied to --out.
int run_inputs(InProcessRunner &runner, const Args &a, size_t n,
               const std::function<std::vector<uint8_t>(size_t)> &input, const std::function<std::string(size_t)> &label) {
    std::map<std::string, unsigned> buckets;
    unsigned findings = 0;
    uint64_t max_steps = 0;
    for (size_t i = 0; i < n; ++i) {
        const std::vector<uint8_t> bytes = input(i);
        InputResult r = runner.run_bytes(bytes.data(), bytes.size());
        max_steps = std::max(max_steps, r.steps);
        if (!a.out.empty()) {
            std::error_code ec;
            const fs::path d = fs::path(a.out) / std::to_string(i);
            fs::create_directories(d, ec);
            for (const char *f : {"trace.jsonl", "satasim.log"})
                fs::copy_file(fs::path(runner.options().work_dir) / f, d / f, fs::copy_options::overwrite_existing, ec);
            std::ofstream(d / "scenario.yaml") << r.yaml;
        }
        std::string line = label(i) + " " + r.name + " steps " + std::to_string(r.steps) + " sim " +
                           std::to_string(r.sim_time_ns) + "ns";
        if (r.findings.empty()) {
            std::printf("%s ok\n", line.c_str());
        } else {
            ++findings;
            for (const Finding &f : r.findings) {
                ++buckets[f.bucket()];
                std::printf("%s FINDING %s | %s\n", line.c_str(), f.bucket().c_str(), f.detail.c_str());
            }
            if (!a.findings.empty())
                write_finding(a.findings, bytes, r, runner.options().limits.max_steps);
        }
        std::fflush(stdout);
    }
    std::printf("inputs %zu, with findings %u, buckets %zu, max steps %llu\n", n, findings, buckets.size(),
                (unsigned long long)max_steps);
    for (const auto &[b, count] : buckets)
        std::printf("  %u x %s\n", count, b.c_str());
    std::error_code ec;
    fs::remove_all(runner.options().work_dir, ec);
    return findings ? 1 : 0;
}

int cmd_run(const Args &a) {
    if (a.pos.empty())
        return usage("fuzz-run: no input files");
    InProcessRunner runner(runner_options(a));
    for (const std::string &p : a.pos)
        if (std::error_code ec; !fs::is_regular_file(p, ec))
            return usage("fuzz-run: cannot read " + p);
    return run_inputs(
        runner, a, a.pos.size(),
        [&](size_t i) {
            std::vector<uint8_t> b;
            read_bytes(a.pos[i], &b);
            return b;
        },
        [&](size_t i) { return a.pos[i]; });
}

// splitmix64: the smoke run's inputs from its seed alone.
uint64_t splitmix(uint64_t &s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

std::vector<uint8_t> smoke_input(uint64_t seed, size_t i) {
    uint64_t s = seed * 1000003u + i;
    std::vector<uint8_t> b(size_t(splitmix(s) % 400));
    for (uint8_t &c : b)
        c = uint8_t(splitmix(s));
    return b;
}

// The format's promises on N random inputs, without running them: the reader accepts
// every decoded scenario, reading it back loses nothing the bytes carry, and encoding is
// a fixpoint (decode(encode(decode(b))) == decode(b)).
int check_format(const Args &a) {
    unsigned bad = 0;
    DecodeOptions o;
    o.force_fis = a.fis;
    for (size_t i = 0; i < a.count; ++i) {
        std::vector<uint8_t> b = smoke_input(a.seed, i);
        // a fifth each in versions 1, 2 (long schedules), 3 (the kinds it adds), 4 (link power
        // management) and 5 (faults on ATAPI drives)
        if (i % 5 && b.size() > layout::kVersionCheck) {
            const uint8_t v = i % 5 == 1 ? kFormatV2 : i % 5 == 2 ? kFormatV3 : i % 5 == 3 ? kFormatV4 : kFormatV5;
            b[layout::kVersion] = v, b[layout::kVersionCheck] = uint8_t(~v);
        }
        const Scenario sc = decode_scenario(b.data(), b.size(), o);
        const std::string yaml = scenario_yaml(sc);
        std::vector<std::string> lost;
        const std::vector<uint8_t> canon = encode_scenario(sc, &lost);
        std::string why;
        try {
            const Scenario back = parse_scenario_text(yaml, sc.name + ".yaml", backend_rules());
            std::vector<std::string> lost2;
            if (const std::vector<uint8_t> again = encode_scenario(back, &lost2); again != canon) {
                size_t at = 0;
                while (at < again.size() && at < canon.size() && again[at] == canon[at])
                    ++at;
                why = "the scenario read back from its YAML encodes differently (from byte " + std::to_string(at) + ")";
            }
            else if (!lost.empty())
                why = "a decoded scenario has keys the format does not carry: " + lost.front();
            else if (const std::string y2 = scenario_yaml(decode_scenario(canon.data(), canon.size(), o)); y2 != yaml) {
                std::vector<std::string> l3;
                const std::vector<uint8_t> c2 = encode_scenario(decode_scenario(canon.data(), canon.size(), o), &l3);
                size_t at = 0;
                while (at < c2.size() && at < canon.size() && c2[at] == canon[at])
                    ++at;
                why = "decode(encode(decode(b))) differs from decode(b) (the encoding from byte " + std::to_string(at) + ")";
            }
        } catch (const ScenarioError &e) {
            why = std::string("the reader refuses the decoded scenario: ") + e.what();
        }
        if (!why.empty()) {
            ++bad;
            if (bad <= 5)
                std::printf("input %zu (%zu bytes): %s\n%s", i, b.size(), why.c_str(), yaml.c_str());
        }
    }
    std::printf("format check: %llu inputs, %u failed\n", (unsigned long long)a.count, bad);
    return bad ? 1 : 0;
}

int cmd_smoke(const Args &a) {
    if (a.decode_only)
        return check_format(a);
    InProcessRunner runner(runner_options(a));
    return run_inputs(
        runner, a, size_t(a.count), [&](size_t i) { return smoke_input(a.seed, i); },
        [&](size_t i) { return "smoke[" + std::to_string(i) + "]"; });
}

// fuzz-reduce INPUT OUTDIR: the input's first finding, reduced while its bucket stays.
int cmd_reduce(const Args &a) {
    if (a.pos.size() != 2)
        return usage("fuzz-reduce: an input file and a findings folder");
    std::vector<uint8_t> b;
    if (!read_bytes(a.pos[0], &b))
        return usage("fuzz-reduce: cannot read " + a.pos[0]);
    InProcessRunner runner(runner_options(a));
    InputResult first = runner.run_bytes(b.data(), b.size());
    if (first.findings.empty()) {
        std::printf("%s: no finding\n", a.pos[0].c_str());
        return 0;
    }
    const std::string bucket = first.findings.front().bucket();
    unsigned runs = 0;
    std::vector<uint8_t> small = reduce_input(runner, b, bucket, &runs);
    InputResult r = runner.run_bytes(small.data(), small.size());
    // The finding of the bucket first (the reduced input may show others too).
    for (size_t i = 0; i < r.findings.size(); ++i)
        if (r.findings[i].bucket() == bucket)
            std::swap(r.findings[0], r.findings[i]);
    write_finding(a.pos[1], small, r, runner.options().limits.max_steps);
    std::printf("%s: %s: reduced %zu -> %zu bytes in %u runs: %s/%s/%s.yaml\n", a.pos[0].c_str(), bucket.c_str(),
                b.size(), small.size(), runs, a.pos[1].c_str(), bucket_dir_name(r.findings.front()).c_str(),
                r.name.c_str());
    std::error_code ec;
    fs::remove_all(runner.options().work_dir, ec);
    return 1;
}

} // namespace

int fuzz_command(const std::string &cmd, const std::vector<std::string> &args) {
    const bool ours = cmd == "fuzz-decode" || cmd == "fuzz-encode" || cmd == "fuzz-run" || cmd == "fuzz-smoke" ||
                      cmd == "fuzz-reduce";
    if (!ours)
        return -1;
    Args a = parse_args(args);
    if (!a.error.empty())
        return usage(cmd + ": " + a.error);
    if (cmd == "fuzz-decode")
        return cmd_decode(a);
    if (cmd == "fuzz-encode")
        return cmd_encode(a);
    if (cmd == "fuzz-run")
        return cmd_run(a);
    if (cmd == "fuzz-reduce")
        return cmd_reduce(a);
    return cmd_smoke(a);
}

} // namespace satasim::harness::fuzz
