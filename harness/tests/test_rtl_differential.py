"""Differential runs: a few scenarios of the controller-neutral suite on the SystemC AHCI
model and on the reference AHCI controller RTL (model/ahci_rtl/profile.yaml). What the
stack saw and decided must agree: the data verdicts and result fields, the log, and the EH
decision sequence (the trace's golden events without fault records, timing ignored), with
the comparison code the QEMU differential uses (satasim.differential). Every difference
must be a reviewed entry of model/ahci_rtl/known_differences.yaml, else the test fails.

The clean scenarios here are also the RTL backend's own smoke run (what test_rtl_backend.py
once ran separately): each RTL run's AXI, protocol, data and timer checks are asserted too.
CI cost: the SystemC runs take about a second, the RTL runs about 10 s (the DUT's
Verilator build is cached next to the sanitized simulator binary, as in
test_rtl_backend.py). It checks decisions, so it runs the release build where the test
command built one (conftest's decisions_binary: a third of the sanitized CPU time); the
RTL backend's own tests run the sanitized binary."""

import fnmatch
import re
import shutil
from pathlib import Path

import pytest
import yaml

from satasim.differential import (ROOT, Difference, eh_lines, is_known, load_known, run_differential,
                                  unexplained_eh)
from satasim.results import load_result

PROFILE = ROOT / "model" / "ahci_rtl" / "profile.yaml"
KNOWN = ROOT / "model" / "ahci_rtl" / "known_differences.yaml"
SUITE = ROOT / "scenarios" / "suites" / "controller-neutral.txt"
# Clean I/O, EH with identical decisions (host bus errors too), and EH whose differences are reviewed (timing of
# the in-flight commands at the fault, the device's error FIS after IFS, IFS on unplug).
# The clean runs get the timer and EH checks below too. (dma-rw-verify, 2 MiB of
# back-to-back 8 KiB Data FIS, once showed a link bug on the DUT: it costs a minute on the
# RTL, so it runs in tools/run_rtl_suite.sh; ahci_rtl_test's dma_write_read reads 24 KiB
# in several Data FIS through the same link in ctest.)
CLEAN = ["probe-1port.yaml", "pio-sectors-rw-verify.yaml", "flush.yaml"]
DIFFERENTIAL = [*CLEAN, "link/crc-d2h-data.yaml",
                # the decoder's code error on the word reaches the DUT on phy_rx_codeerr
                "link/crc-d2h-data-decode-error.yaml",
                "link/crc-h2d-data.yaml", "faults/device-errors-dma.yaml", "faults/media-error-ncq.yaml",
                "faults/unplug-ncq-qd32.yaml", "report/timeout-slow-device.yaml",
                "faults/host-bus-error-dma.yaml", "faults/host-bus-error-ncq.yaml",
                # the DUT's PRCS interrupt trails the PHY flap by a few cycles: the run once
                # ended between the two (settle now waits for the hardware to be quiet)
                "field/identify-fail-at-probe.yaml"]

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None,
                                     reason="verilator is not installed (tools/install_deps.sh): rtl differential skipped")


def suite_files():
    out = []
    for line in SUITE.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def test_suite_list_names_existing_scenarios_and_the_differential_is_part_of_it():
    files = suite_files()
    assert files and len(files) == len(set(files))
    for f in files:
        assert (ROOT / "scenarios" / f).is_file(), f
    assert set(DIFFERENTIAL) <= set(files)


def test_known_differences_are_reviewed():
    known = load_known(KNOWN)
    names = {yaml.safe_load((ROOT / "scenarios" / f).read_text()).get("name", Path(f).stem)
             for f in suite_files()}
    for e in known["scenarios"]:
        assert {"scenario", "status", "differs", "why"} <= set(e), e
        assert e["status"] in ("refused", "fails", "differs"), e
        pats = [e["scenario"]] if isinstance(e["scenario"], str) else e["scenario"]
        in_suite = [p for p in pats if any(fnmatch.fnmatchcase(n, p) for n in names)]
        # in the suite exactly when it passes on the RTL
        assert in_suite == (pats if e["status"] == "differs" else []), e
    for kind in ("fields", "log", "eh"):
        for e in known[kind]:
            assert e.get("reason") and e.get("scenario"), e   # every entry scoped to its scenarios
            for side in ("systemc", "rtl"):
                if kind != "fields" and e.get(side):
                    re.compile(e[side])


def test_unknown_differences_are_not_excused():
    known = load_known(KNOWN)
    d = lambda *a: Difference(*a, side="rtl")
    # a reviewed one, in its scenario only
    line = "ata1.00  eh.failed_qc_cmd  cmd 60/08:40:40:06:00/00:00:00:00:00/40 tag 8 ncq dma 4096 in  {}"
    sline = line.replace("08:40:", "08:48:").replace("tag 8", "tag 9")
    assert not unexplained_eh([sline], [line], known, side="rtl", scenario="fault-media-error-ncq")
    assert unexplained_eh([sline], [line], known, side="rtl", scenario="flush")
    # data and verdicts are never excused
    assert not is_known(d("fault-media-error-ncq", "data_errors", 0, 1), known)
    assert not is_known(d("fault-media-error-ncq", "verdict", "pass", "fail"), known)
    assert not is_known(d("flush", "log", None, "ata1.00: failed command: FLUSH CACHE EXT"), known)


@needs_verilator
def test_differential_systemc_vs_rtl(tmp_path, rtl_decisions):
    paths = [ROOT / "scenarios" / f for f in DIFFERENTIAL]
    rs, rr, diffs = run_differential(paths, tmp_path, "--jobs", "2", "--wall-limit", "120",
                                     other=("--controller-rtl", str(PROFILE)), side="rtl")
    assert rs.returncode == 0, rs.stdout + rs.stderr
    assert rr.returncode == 0, rr.stdout + rr.stderr
    assert "satasim: DUT satasim_ahci_ref:" in rr.stderr
    # Every run on the DUT: bus traffic that obeyed the AXI rules, no protocol violation, the
    # data verified; a clean scenario also needs no command timeout and no EH beyond the
    # boot probe's reset.
    clean = {yaml.safe_load((ROOT / "scenarios" / f).read_text())["name"] for f in CLEAN}
    for d in (tmp_path / "rtl").iterdir():
        if not (d / "result.json").exists():
            continue
        res = load_result(tmp_path / "rtl", d.name)
        assert res["verdict"] == "pass" and res["backend"] == "rtl", res
        assert res["axi_violations"] == 0 and res["violations"] == 0, res
        assert res["dut_cycles"] > 0 and res["axi_bursts"] > 0, res
        assert res["data_errors"] == 0, res
        if d.name in clean:
            assert res["io_errors"] == 0, res
            assert res["timers_fired"] == 0 and res["eh_runs"] <= 1, (d.name, res["timers_fired"], res["eh_runs"])
    known = load_known(KNOWN)
    new = [str(x) for x in diffs if not is_known(x, known)]
    names = sorted(p.name for p in (tmp_path / "systemc").iterdir() if (p / "result.json").exists())
    assert len(names) == len(DIFFERENTIAL)
    eh_total = 0
    for name in names:
        a, b = eh_lines(tmp_path / "systemc" / name), eh_lines(tmp_path / "rtl" / name)
        eh_total += sum(" eh.failed_qc " in x for x in a)
        for s, r in unexplained_eh(a, b, known, side="rtl", scenario=name):
            new.append(f"{name}: eh:\n  systemc: {s or '(none)'}\n  rtl:     {r or '(none)'}")
    assert eh_total >= 5, "the EH scenarios failed no command on the model: the comparison did not run"
    assert diffs, "the RTL's timing differs from the model's: identical results mean the comparison did not run"
    assert not new, (f"{len(new)} difference(s) between the SystemC AHCI model and the reference RTL not in "
                     f"{KNOWN.relative_to(ROOT)}:\n" + "\n".join(new))
