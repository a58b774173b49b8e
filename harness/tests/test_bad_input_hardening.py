"""Hostile and odd scenario input (issue 17 items 4-6): `include:` confined to the scenario's
folder tree, regular files of bounded size, no file contents in messages; the names the
runner writes into the output folder reserved; scenario text echoed with control characters
escaped; backend refusals with a line; a second YAML document and too deep nesting refused
by name. Each malformed input: exit 2, file:line: key, nothing written."""

import os
import subprocess

import pytest

from satasim.results import binary

GOOD_HEAD = """\
name: bad
seed: 1
controller: {type: ahci, ports: 4}
"""

# A quick valid scenario (a small disk, a few commands).
QUICK = """\
name: quick
seed: 1
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 16m, timing: {kind: ssd}}]
workload:
  - {device: 0, op: write, block: 8, count: 4, region: {start: 0, length: 1m}}
"""


def sim(args, timeout=60):
    """`satasim ARGS` -> (exit code, stdout, stderr as text); a hang is a failure."""
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    try:
        p = subprocess.run([str(binary()), *map(str, args)], capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"satasim {' '.join(map(str, args))} did not finish in {timeout} s")
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def refused(scenarios, tmp_path, timeout=60):
    """Runs the scenarios; asserts exit 2 and nothing written; returns stderr."""
    out = tmp_path / "out"
    rc, so, se = sim(["run", *scenarios, "--out", out], timeout)
    assert rc == 2, so + se
    assert not out.exists() or not any(out.iterdir()), sorted(p.name for p in out.iterdir())
    return se


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


SECRET = "root:$6$SECRETHASH$abcdef:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"

# ---------------------------------------------------------------------------------------
# Item 5: names the runner writes


@pytest.mark.parametrize("name", ["summary.json", "junit.xml"])
def test_reserved_scenario_names_are_refused(name, tmp_path):
    quick = write(tmp_path / "in" / "quick.yaml", QUICK)
    scen = write(tmp_path / "in" / "s.yaml", f"seed: 1\nname: {name}\n" + QUICK.split("\n", 2)[2])
    err = refused([quick, scen], tmp_path)
    assert f"{scen}:2: name: '{name}' is reserved" in err, err


def test_dot_and_slash_names_stay_refused(tmp_path):
    for i, name in enumerate([".summary.json.tmp", "a/b", ".."]):
        scen = write(tmp_path / "in" / f"s{i}.yaml", f'name: "{name}"\n')
        err = refused([scen], tmp_path)
        assert f"{scen}:1: name: " in err, err


