#include "fuzz/in_process_runner.h"

#include <filesystem>

#include "backend/registry.h"
#include "fuzz/scenario_yaml.h"
#include "fuzz/sim_context.h"
#include "scenario/scenario_parser.h"
#include "trace/trace_sink.h"

namespace satasim::harness::fuzz {

InputResult InProcessRunner::run_bytes(const uint8_t *data, size_t size) {
    Scenario sc = decode_scenario(data, size, opt_.decode);
    const std::string yaml = scenario_yaml(sc);
    sc.file = sc.name + ".yaml"; // as the reader names it
    if (opt_.via_yaml) {
        try {
            sc = parse_scenario_text(yaml, sc.name + ".yaml", backend_rules());
        } catch (const ScenarioError &e) {
            InputResult r;
            r.yaml = yaml;
            r.name = sc.name;
            r.findings.push_back({"decoder", normalize(e.what()), e.what()});
            return r;
        }
    }
    InputResult r = run_scenario(sc);
    r.yaml = yaml;
    return r;
}

InputResult InProcessRunner::run_scenario(const Scenario &sc) {
    std::error_code ec;
    if (opt_.write_files)
        std::filesystem::create_directories(opt_.work_dir, ec);
    TraceSink::set_no_files(!opt_.write_files);
    InputResult r;
    r.name = sc.name;
    fresh_sim_context();
    {
        std::unique_ptr<SimRun> run = simulate(sc, RunOneOptions{}, opt_.work_dir, opt_.limits);
        if (!run->error.empty()) {
            r.findings.push_back({"runner", run->error, run->error});
        } else {
            r.findings = judge(run->report);
            r.steps = run->steps;
            r.sim_time_ns = run->report.sim_time_ns;
            r.pass = run->report.pass;
            r.log_text = std::move(run->report.log_text);
        }
        end_processes();
    } // the models, the platform and the stack's threads go here, before their context
    TraceSink::set_no_files(false);
    return r;
}

} // namespace satasim::harness::fuzz
