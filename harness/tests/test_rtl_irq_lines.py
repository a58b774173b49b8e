"""Backend rtl: a DUT with one interrupt line per port (interface.irq_per_port,
docs/rtl-controller.md "Interrupts"). The reference controller has both outputs, so the
test command's one DUT build serves both wirings: the lines ORed into the host's one
interrupt input give the driver stack the same EH decisions as the single line (the
reviewed golden of the single-line run), with no line breaking its rules. The rules
themselves are irq_lines_test's (ctest); a DUT with a dead line is the on-demand
planted check in docs/rtl-controller.md."""

import json
import shutil

import pytest

from rtl_profiles import profile_copy, tiny_dut
from satasim.golden import GOLDEN_DIR, Tolerance, compare_run
from satasim.results import ROOT, run

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None,
                                reason="verilator is not installed (tools/install_deps.sh): rtl backend skipped")

PER_PORT = ("  clock_mhz: 150", "  irq_per_port: true\n  clock_mhz: 150")


def test_per_port_lines_give_the_single_lines_eh_decisions(tmp_path, rtl_env):
    # An NCQ run with a host bus error: completions by SDB FIS, the error interrupt, EH's
    # freeze, reset and thaw, all through port 0's own line.
    scen = ROOT / "scenarios" / "faults" / "host-bus-error-ncq.yaml"
    p = profile_copy(tmp_path / "per-port.yaml", *PER_PORT)
    r = run([scen], tmp_path / "out", "--controller-rtl", str(p))
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads((tmp_path / "out" / "fault-host-bus-error-ncq" / "result.json").read_text())
    assert res["verdict"] == "pass", res.get("reasons")
    assert res["irq_violations"] == 0 and res["violations"] == 0, res
    # The same decisions in the same order with the same fields; times within 2 us: a
    # port's line drops when the handler clears PxIS, one register write before the single
    # line (at IS), so the DUT's clock stops a few cycles earlier each time (measured: at
    # most 0.5-1 us apart over this run).
    c = compare_run(tmp_path / "out" / "fault-host-bus-error-ncq", GOLDEN_DIR, tol=Tolerance(0.0, 2_000))
    assert c is not None and c.ok, "\n".join(c.diff if c else ["no golden"])


def test_per_port_lines_the_top_lacks_are_refused_at_the_key(tmp_path, rtl_env):
    # No irq_port at all, then one of the wrong width: refused once verilated (nothing
    # compiled), naming the file, the key's line and what the top needs.
    for outputs, n in (([], 0), (["[1:0] irq_port"], 1)):
        d = tmp_path / str(n)
        d.mkdir()
        p = tiny_dut(d, ["clk", "rst"], {"irq_per_port": "true"}, outputs)
        line = next(i for i, l in enumerate(p.read_text().splitlines(), 1) if "irq_per_port" in l)
        r = run([ROOT / "scenarios" / "probe-1port.yaml"], d / "out", "--controller-rtl", str(p))
        assert r.returncode == 2, r.stdout + r.stderr
        assert (f"{p}:{line}: interface.irq_per_port: one interrupt line per port, but the top module 'tiny' "
                "has no output irq_port[0:0]") in r.stderr, r.stderr
        assert not (d / "out").exists()
    # Not a boolean: refused while the profile is read.
    bad = profile_copy(tmp_path / "bad.yaml", PER_PORT[0], PER_PORT[1].replace("true", "maybe"))
    line = next(i for i, l in enumerate(bad.read_text().splitlines(), 1) if "irq_per_port" in l)
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(bad))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{bad}:{line}: interface.irq_per_port: expected true or false, got 'maybe'" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
