"""The RTL waveform (SATASIM_RTL_VCD) on the simulated time axis: the VCD's times are the
run's simulated time in picoseconds, so an event's t_ns in trace.jsonl (x 1000) finds the
same moment in the waveform, the clock's edges are its period apart, and a DUT that was
stopped while quiet resumes at the simulated time, not at its own tick count."""

import json
import shutil

import pytest

from rtl_profiles import PROFILE
from satasim.results import run

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None,
                                reason="verilator is not installed (tools/install_deps.sh): rtl backend skipped")

PxIE = 0x114
SCENARIO = """\
name: vcd-time
description: PxIE written twice, 2 ms and then 1 ms after the link came up, the DUT quiet in between.
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
steps:
  - poll: {offset: 0x128, mask: 0xF, value: 0x3, timeout: 100ms}
  - delay: 2ms
  - mmio_write: {offset: 0x114, value: 0x1}
  - delay: 1ms
  - mmio_write: {offset: 0x114, value: 0x3}
"""


def read_top_vcd(path, names):
    """The `names` signals of the VCD's first scope that has them all: {name: [(t, value)]}
    with every change (value as an int), and the $timescale."""
    ids, scope, timescale, changes = {}, [], None, {}
    with open(path) as f:
        lines = iter(f)
        for line in lines:
            w = line.split()
            if not w:
                continue
            if w[0] == "$timescale":
                timescale = w[1] if len(w) > 2 else next(lines).strip()
            elif w[0] == "$scope":
                scope.append(w[2])
                found = {}
            elif w[0] == "$var" and w[4] in names and not ids:
                found[w[4]] = w[3]
                if len(found) == len(names):
                    ids = {code: name for name, code in found.items()}
            elif w[0] == "$upscope":
                scope.pop()
            elif w[0] == "$enddefinitions":
                break
        assert ids, f"no scope of {path} has {names}"
        changes = {n: [] for n in names}
        t = 0
        for line in lines:
            line = line.strip()
            if not line:
                continue
            if line[0] == "#":
                t = int(line[1:])
            elif line[0] == "b":
                v, code = line[1:].split()
                if code in ids:
                    changes[ids[code]].append((t, int(v.replace("x", "0").replace("z", "0"), 2)))
            elif line[0] in "01xz" and line[1:] in ids:
                changes[ids[line[1:]]].append((t, 1 if line[0] == "1" else 0))
    return timescale, changes


def value_at(changes, t):
    v = 0
    for ct, cv in changes:
        if ct > t:
            break
        v = cv
    return v


def test_vcd_time_is_the_traces_simulated_time(tmp_path, rtl_decisions, monkeypatch):
    sc = tmp_path / "vcd-time.yaml"
    sc.write_text(SCENARIO)
    vcd = tmp_path / "wave.vcd"
    monkeypatch.setenv("SATASIM_RTL_VCD", str(vcd))
    r = run([sc], tmp_path / "out", "--controller-rtl", str(PROFILE))
    assert r.returncode == 0, r.stdout + r.stderr
    # the two PxIE writes as the trace has them
    records = [json.loads(l) for l in (tmp_path / "out" / "vcd-time" / "trace.jsonl").read_text().splitlines()]
    writes = [rec["t_ns"] for rec in records if rec.get("ev") == "step" and rec["f"].get("kind") == "mmio_write"]
    assert len(writes) == 2, writes
    assert writes[1] - writes[0] >= 1_000_000  # the 1 ms delay between them

    timescale, ch = read_top_vcd(vcd, ["clk", "s_awvalid", "s_awaddr", "s_wdata"])
    assert timescale == "1ps", timescale
    # each write's first clock edge with the address valid is when the trace says the step
    # ran: the DUT was quiet (its clock stopped) for the delay before, so it resumes at the
    # simulated time
    period_ps = 1e6 / 150  # the profile's clock_mhz
    rises = [t for t, v in ch["clk"] if v]
    for t_ns, value in zip(writes, [0x1, 0x3]):
        edge = next((t for t in rises if t >= t_ns * 1000 - period_ps and value_at(ch["s_awvalid"], t)
                     and value_at(ch["s_awaddr"], t) == PxIE and value_at(ch["s_wdata"], t) == value), None)
        assert edge is not None and t_ns * 1000 <= edge <= t_ns * 1000 + 1000 + 8 * period_ps, (t_ns, edge)
    # the clock's rising edges, while it runs, are its period apart (not 2 ticks)
    gaps = [b - a for a, b in zip(rises, rises[1:1001])]
    assert all(abs(g - period_ps) <= 1 for g in gaps), sorted(set(gaps))[:10]
