"""Same scenario and seed: byte-identical trace and log. Another seed: a different run."""

from satasim import load_result, run

SCENARIO = """\
name: det
seed: {seed}
controller: {{type: ahci, ports: 2}}
devices:
  - port: 0
    ncq_order: random
    timing: {{kind: hdd, rpm: 7200}}
  - port: 1
    ncq_order: reverse
workload:
  - device: 0
    op: mix
    read_pct: 50
    pattern: random
    block: 4k
    qd: 32
    count: 300
    mode: ncq
    region: {{start: 0, length: 8m}}
    verify: true
  - device: 1
    op: write
    pattern: sequential
    block: 64k
    qd: 4
    count: 50
    mode: auto
    verify: true
"""


def _run(write_scenario, tmp_path, seed, tag):
    path = write_scenario(SCENARIO.format(seed=seed), name=f"det-{tag}.yaml")
    out_dir = tmp_path / f"out-{tag}"
    result = run([path], out_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    assert load_result(out_dir, "det")["verdict"] == "pass"
    scenario_dir = out_dir / "det"
    return (scenario_dir / "trace.jsonl").read_bytes(), (scenario_dir / "satasim.log").read_bytes()


def test_same_seed_gives_identical_trace_and_log(write_scenario, tmp_path):
    trace_a, log_a = _run(write_scenario, tmp_path, 11, "a")
    trace_b, log_b = _run(write_scenario, tmp_path, 11, "b")
    assert len(trace_a) > 0 and len(log_a) > 0
    assert trace_a == trace_b
    assert log_a == log_b


def test_other_seed_changes_the_run(write_scenario, tmp_path):
    trace_a, _ = _run(write_scenario, tmp_path, 11, "a")
    trace_c, _ = _run(write_scenario, tmp_path, 12, "c")
    assert trace_a != trace_c
