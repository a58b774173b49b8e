"""Shared include fragments in the repository (scenarios/common/): used by real scenarios,
never run or listed as scenarios themselves."""

import os
import subprocess
from pathlib import Path

import yaml

from satasim.golden import run_info
from satasim.results import binary
from satasim.testplan import discover

ROOT = Path(__file__).resolve().parents[2]
COMMON = ROOT / "scenarios" / "common"
FRAGMENTS = sorted(COMMON.glob("*.yaml"))


def includers():
    """(scenario file, fragment) for every scenario that includes a fragment of scenarios/common."""
    out = []
    for p in sorted((ROOT / "scenarios").rglob("*.yaml")):
        if COMMON in p.parents:
            continue
        spec = yaml.safe_load(p.read_text())
        inc = spec.get("include") if isinstance(spec, dict) else None
        for name in (inc if isinstance(inc, list) else [inc] if inc else []):
            out.append((p, (p.parent / name).resolve()))
    return out


def test_a_fragment_is_shared_by_two_scenarios():
    assert FRAGMENTS
    users = {}
    for scen, frag in includers():
        assert frag.exists(), f"{scen}: include {frag} does not exist"
        users.setdefault(frag, []).append(scen)
    assert any(len(v) >= 2 for v in users.values()), users


def test_fragments_are_not_scenarios_of_the_suite(tmp_path):
    # satasim run FOLDER does not recurse: the suite's folders never reach scenarios/common
    suite = [ROOT / "scenarios" / d for d in ("", "faults", "link", "field")]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run([str(binary()), "check", *map(str, suite)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "scenarios/common" not in r.stdout
    # the testplan skips folders named common
    assert not any("common/" in f for f in discover(ROOT / "scenarios").values())


def test_including_scenarios_keep_their_topology():
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    for scen, _ in includers():
        r = subprocess.run([str(binary()), "check", str(scen)], capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        assert "1 ports, 1 disks" in r.stdout, r.stdout


def test_golden_provenance_reads_through_includes(tmp_path):
    scen = next(s for s, _ in includers() if s.stem == "crc-errors-slow-link")
    d = tmp_path / "field-crc-errors-slow-link"
    d.mkdir()
    (d / "result.json").write_text(
        '{"name": "field-crc-errors-slow-link", "file": "%s", "controller": {"type": "ahci", "ports": 1},'
        ' "verdict": "pass", "backend": "systemc", "seed": 502}' % scen)
    info = run_info(d)
    assert info["topology"] == "ahci 1p, 1 disk" and info["eh_policy"] == "libata-2006"
