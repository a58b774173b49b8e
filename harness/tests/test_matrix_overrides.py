"""Scenario keys from the command line (--set, --seed), a matrix of runs (the `matrix:` key,
--matrix) and --shard K/N for CI matrix jobs (issue 34)."""

import json
import os
import subprocess

from satasim.results import ROOT, binary

PROBE = ROOT / "scenarios" / "probe-2port.yaml"


def sim(*args):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return subprocess.run([str(binary()), *map(str, args)], capture_output=True, text=True, env=env, timeout=600)


def results(out):
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(out.glob("*/result.json"))}


def test_set_and_seed_change_the_scenario_as_run(tmp_path):
    r = sim("run", PROBE, "--out", tmp_path, "--set", "controller.ports=3", "--seed", "77",
            "--set", "expect.empty_ports=[2]")
    res = results(tmp_path)["probe-2port"]
    assert res["ports"] == 3 and res["seed"] == 77, res
    assert res["overrides"] == ["controller.ports=3", "expect.empty_ports=[2]", "seed=77"], res["overrides"]
    assert r.returncode == 0, r.stdout + r.stderr  # the third port is empty, as the override says
    first = json.loads((tmp_path / "probe-2port" / "trace.jsonl").read_text().splitlines()[0])
    assert first["f"]["ports"] == 3 and first["f"]["seed"] == 77


def test_a_bad_override_names_itself_and_runs_nothing(tmp_path):
    for args, said in [(["--set", "controller.ports=99"], "(--set controller.ports=99):1: controller.ports: 99 is out of range"),
                       (["--set", "devices[9].port=1"], "(--set devices[9].port=1): no list element [9] there"),
                       (["--set", "controller.ports"], "--set: expected KEY.PATH=VALUE"),
                       (["--set", "matrix.seed=[1]"], "'matrix' cannot be set"),
                       (["--matrix", "seed=1,,2"], "an empty value"),
                       (["--shard", "4/3"], "--shard: expected K/N")]:
        r = sim("run", PROBE, "--out", tmp_path / "out", *args)
        assert r.returncode == 2 and said in r.stderr, (args, r.stderr)
    assert not (tmp_path / "out").exists()


def test_a_matrix_runs_every_point_named_after_its_values(tmp_path):
    scen = tmp_path / "in" / "mx.yaml"
    scen.parent.mkdir()
    # verified DMA writes and reads, the same on either controller
    scen.write_text("name: mx\ncontroller: {type: ahci, ports: 1}\n"
                    "devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]\n"
                    "workload: [{device: 0, op: write, mode: dma, block: 64k, qd: 1, count: 20, verify: true}]\n"
                    "expect: {io_errors: 0, devices: [{port: 0, class: ata}]}\n"
                    "matrix:\n  controller.type: [ahci, sil24]\n")
    r = sim("run", scen, "--out", tmp_path / "out", "--matrix", "seed=5,6", "--jobs", "2")
    got = results(tmp_path / "out")
    assert sorted(got) == ["mx.ahci.5", "mx.ahci.6", "mx.sil24.5", "mx.sil24.6"], (sorted(got), r.stderr)
    for name, res in got.items():
        _, ctl, seed = name.split(".")
        assert res["controller"]["type"] == ctl and res["seed"] == int(seed), (name, res["controller"], res["seed"])
        assert res["overrides"] == [f"controller.type={ctl}", f"seed={seed}", f"name={name}"]
        assert res["verdict"] == "pass" and res["data_errors"] == 0, (name, res["reasons"])
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["total"] == 4 and summary["passed"] == 4


def test_shards_partition_the_runs(tmp_path):
    seen = []
    for k in (1, 2, 3):
        out = tmp_path / f"s{k}"
        r = sim("run", PROBE, "--out", out, "--matrix", "seed=1,2,3,4,5", "--shard", f"{k}/3")
        assert r.returncode == 0 and f"shard {k}/3:" in r.stdout, r.stdout + r.stderr
        assert json.loads((out / "summary.json").read_text())["shard"] == f"{k}/3"
        seen += list(results(out))
    assert sorted(seen) == [f"probe-2port.{s}" for s in range(1, 6)]  # each once, none twice


def test_set_fixes_an_axis_of_the_matrix(tmp_path):
    scen = tmp_path / "in" / "m.yaml"
    scen.parent.mkdir()
    scen.write_text((ROOT / "scenarios" / "probe-2port.yaml").read_text().replace("name: probe-2port", "name: m")
                    + "matrix: {seed: [1, 2, 3]}\n")
    r = sim("run", scen, "--out", tmp_path / "out", "--set", "seed=2", "--matrix", "link.mode=fis,dword")
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(results(tmp_path / "out")) == ["m.dword", "m.fis"]  # seed fixed at 2, link expanded
    assert all(res["seed"] == 2 for res in results(tmp_path / "out").values())
