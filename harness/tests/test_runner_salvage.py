"""A scenario's process that ends without its verdict: killed by the runner at
`--cpu-limit` or `--wall-limit`, or crashed. The scenario fails naming why, its folder holds what the child
wrote, and no waveform is left half-written under its real name (runner.cpp salvage)."""

import os
import signal
import time

from process_tree import start_run, wait_for_descendant
from satasim import load_result, run

# Far more work than a 1 s wall-clock limit allows, at the default cycle-level link.
ENDLESS = """\
name: endless
seed: 5
time_limit: 3600s
controller: {{type: ahci, ports: 1}}
devices: [{{port: 0, capacity: 1g, timing: {{kind: ssd}}}}]
workload:
  - {{device: 0, op: read, pattern: random, block: 8, qd: 32, count: 50000000, mode: ncq,
     region: {{start: 0, length: 64m}}}}
{extra}
"""


def test_killed_run_fails_naming_the_limit(write_scenario, tmp_path):
    scen = write_scenario(ENDLESS.format(extra=""), name="endless.yaml")
    r = run([scen], tmp_path / "out", "--wall-limit", "1", timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    res = load_result(tmp_path / "out", "endless")
    assert res["verdict"] == "fail"
    assert res["reasons"][0] == "wall-clock limit of 1s exceeded: killed"
    folder = tmp_path / "out" / "endless"
    assert (folder / "output.txt").exists()
    assert not [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")], "temporary folder left"


def test_a_run_past_its_cpu_limit_fails_naming_it(write_scenario, tmp_path):
    # CPU time is the default limit (a loaded machine stretches wall time, not CPU time):
    # before, a big run on a busy machine was killed after 300 s of wall time, 27 s of CPU.
    scen = write_scenario(ENDLESS.format(extra=""), name="endless.yaml")
    r = run([scen], tmp_path / "out", "--cpu-limit", "2", timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    res = load_result(tmp_path / "out", "endless")
    assert res["verdict"] == "fail" and res["reasons"][0] == "CPU time limit of 2s exceeded: killed", res["reasons"]
    assert (tmp_path / "out" / "endless" / "output.txt").exists()


def test_killed_run_keeps_its_waveform_as_partial(write_scenario, tmp_path):
    scen = write_scenario(ENDLESS.format(extra="waveform: {signals: [irq, regs]}"), name="endless.yaml")
    # Long enough for the child to be simulating (header written) even on a loaded machine.
    r = run([scen], tmp_path / "out", "--wall-limit", "4", timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    folder = tmp_path / "out" / "endless"
    assert not (folder / "waveform.vcd").exists(), "an unfinished waveform under the finished name"
    partial = folder / "waveform.partial.vcd"
    assert partial.exists(), sorted(p.name for p in folder.iterdir())
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]
    head = partial.read_text(errors="replace")[:200]
    assert head.startswith("$"), head  # the VCD header the child wrote before it was killed


def test_killed_run_leaves_no_file_at_the_vcd_target(write_scenario, tmp_path):
    scen = write_scenario(ENDLESS.format(extra=""), name="endless.yaml")
    target_dir = tmp_path / "waves"
    target_dir.mkdir()
    r = run([scen], tmp_path / "out", "--wall-limit", "1", "--vcd", str(target_dir / "endless.vcd"), timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert load_result(tmp_path / "out", "endless")["verdict"] == "fail"
    assert list(target_dir.iterdir()) == [], "nothing half-written next to the --vcd target"


def test_crashed_child_is_salvaged_naming_the_signal(write_scenario, tmp_path):
    scen = write_scenario(ENDLESS.format(extra="waveform: {signals: [irq, regs]}"), name="endless.yaml")
    out = tmp_path / "out"
    proc = start_run(scen, out, "--wall-limit", "300")
    try:
        child = wait_for_descendant(proc, lambda comm, argv: "run-one" in argv)
        assert child is not None, "the runner never started run-one"
        time.sleep(2)  # simulating, the waveform header written
        assert proc.poll() is None, "the run ended by itself"
        os.kill(child, signal.SIGABRT)  # ASan leaves SIGABRT alone: the child dies of it
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, stdout + stderr
    res = load_result(out, "endless")
    assert res["verdict"] == "fail"
    assert res["reasons"][0] == "crashed: SIGABRT (signal 6)", res["reasons"]
    folder = out / "endless"
    assert (folder / "output.txt").exists()
    assert (folder / "waveform.partial.vcd").read_text(errors="replace").startswith("$")
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")], "temporary folder left"
