"""The strict-OOB test DUT (model/strict_oob/, issue 32): a controller shaped like the
third-party core of issue 32 (its own OOB state machine, one slot, Gen2, no PxSERR.ERR.T)
on the shell's signal-level OOB (phy.oob: signal). It probes and runs the five EH
scenarios that never ended on that core (the shell kept clocking it through every
simulated timeout) within a bounded wall time, its clock stopped for most of the simulated
time; and it depends on the signal-level OOB: with the shell's timed OOB events it never
sees the COMINIT that answers its COMRESET and the link stays down."""

import shutil

import pytest

from satasim.results import ROOT, load_result, load_trace, run

PROFILE = ROOT / "model" / "strict_oob" / "profile.yaml"
EH_FIVE = ["field/identify-fail-at-probe.yaml", "report/failfast-attach-read.yaml",
           "coverage/hang-softreset-2006.yaml", "link/crc-h2d-data.yaml", "faults/identify-fail-after-flap.yaml"]
CLOCK_MHZ = 150

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None,
                                reason="verilator is not installed (tools/install_deps.sh): rtl backend skipped")


def outside_its_folder(tmp_path, old, new):
    """The strict DUT's profile written elsewhere (paths absolute), old replaced by new."""
    d = str(PROFILE.parent)
    text = (PROFILE.read_text().replace("  - rtl/", f"  - {d}/rtl/").replace("  - ../", f"  - {d}/../")
            .replace("[rtl, ../ahci_rtl/rtl, ../link/rtl]", f"[{d}/rtl, {d}/../ahci_rtl/rtl, {d}/../link/rtl]"))
    assert old in text
    p = tmp_path / "strict.yaml"
    p.write_text(text.replace(old, new))
    return p


def test_five_eh_scenarios_end_and_the_clock_stops(tmp_path, rtl_decisions):
    paths = [ROOT / "scenarios" / s for s in EH_FIVE]
    r = run(paths, tmp_path, "--controller-rtl", str(PROFILE), "--jobs", "2", "--wall-limit", "240", timeout=1500)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "5 passed, 0 failed" in r.stdout, r.stdout
    for s in EH_FIVE:
        name = (ROOT / "scenarios" / s).read_text().split("\n", 1)[0].split(": ", 1)[1]
        res = load_result(tmp_path, name)
        assert res["verdict"] == "pass" and res["backend"] == "rtl", (name, res.get("reasons"))
        assert res["axi_violations"] == 0 and res["phy_violations"] == 0, (name, res)
        # the clock ran for a small part of the simulated time: the DUT was left alone
        # through EH's waits and the simulated timeouts
        clocked_ns = res["dut_cycles"] * 1000 / CLOCK_MHZ
        assert clocked_ns < 0.25 * res["sim_time_ns"], (name, clocked_ns, res["sim_time_ns"])
        log = (tmp_path / name / "satasim.log").read_text()
        # the DUT's own CAP: one slot, Gen2; the link the probe found at its fastest
        assert "1 slots 1 ports 3 Gbps" in log, log
        assert "SATA link up 3.0 Gbps" in log, log


# A probe and verified DMA I/O the DUT can take (one slot, no NCQ, Gen2): the suite's own
# probe scenarios pin NCQ and 6 Gbps, which this DUT lacks, so they are skipped on it.
PROBE = """name: strict-probe
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
workload: [{device: 0, op: write, block: 16, count: 8, mode: dma, verify: true}]
expect: {io_errors: 0, devices: [{port: 0, gen: 2}]}
"""


def probe_scenario(tmp_path):
    p = tmp_path / "strict-probe.yaml"
    p.write_text(PROBE)
    return p


def test_every_link_up_follows_the_duts_own_oob(tmp_path, rtl_decisions):
    r = run([probe_scenario(tmp_path)], tmp_path / "out", "--controller-rtl", str(PROFILE), "--wall-limit", "120")
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr
    trace = load_trace(tmp_path / "out", "strict-probe")
    evs = [x.get("ev") for x in trace if str(x.get("ev", "")).startswith("link.")]
    assert "link.up" in evs, evs
    # each link.up comes after a COMRESET of the DUT's (the device never comes up by itself)
    first_up = evs.index("link.up")
    assert "link.comreset" in evs[:first_up], evs


def test_with_timed_oob_events_the_strict_dut_never_gets_its_link(tmp_path, rtl_decisions):
    # phy.oob: events gives no COMINIT for the DUT's COMRESET and no COMWAKE detection: a
    # controller that runs OOB by the spec waits for them (and retries) and the link stays down
    prof = outside_its_folder(tmp_path, "  oob: signal", "  oob: events")
    r = run([probe_scenario(tmp_path)], tmp_path / "out", "--controller-rtl", str(prof), "--wall-limit", "120")
    assert r.returncode != 0, r.stdout
    log = (tmp_path / "out" / "strict-probe" / "satasim.log").read_text()
    assert "SATA link down" in log and "SATA link up" not in log, log


def test_signal_oob_needs_the_comwake_detect_pin(tmp_path, rtl_env):
    prof = outside_its_folder(tmp_path, "phy_pins: [elecidle, comwake_det]", "phy_pins: [elecidle]")
    r = run([probe_scenario(tmp_path)], tmp_path / "out", "--controller-rtl", str(prof))
    assert r.returncode != 0
    line = next(i for i, l in enumerate(prof.read_text().splitlines(), 1) if l.strip().startswith("oob: signal"))
    assert f"{prof}:{line}:" in r.stderr and "'comwake_det' pins" in r.stderr, r.stderr
