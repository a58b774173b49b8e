"""tools/conformance: the per-target conformance report (JSON and HTML). Its structure, a
failing check shown as failed with its section (a register value planted into a copy of a
conformance scenario), the class of a known difference (QEMU's), and the committed example
(the reference RTL's, docs/conformance/)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from satasim.conformance import distinct_checks, load_suite
from satasim.differential import qemu_unavailable_reason
from satasim.results import ROOT, binary

TOOL = ROOT / "tools" / "conformance"
SUITE = ROOT / "scenarios" / "conformance"
EXAMPLE = ROOT / "docs" / "conformance" / "reference-rtl" / "conformance.json"


def tool(*args):
    env = dict(os.environ, SATASIM_BIN=str(binary()))
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=900)


def check_structure(rep):
    assert rep["format"] == "satasim-conformance/1" and rep["spec"] == "AHCI 1.3.1"
    assert set(rep["target"]) == {"backend", "label", "profile"}
    s = rep["summary"]
    for sc in rep["scenarios"]:
        assert sc["kind"] in ("register", "stack"), sc
        assert sc["verdict"] in ("pass", "fail", "skipped"), sc
        if sc["verdict"] == "skipped":
            assert sc["reasons"], sc  # skipped with its reason
        for c in sc.get("checks", []):
            assert set(c) >= {"id", "section", "text", "steps", "status", "detail", "difference"}, c
            assert c["status"] in ("pass", "fail", "skipped"), c
            assert c["section"][0].isdigit() and c["steps"], c
            if c["difference"]:
                assert c["status"] == "fail" and c["difference"]["class"] in ("required", "optional"), c
        if sc["kind"] == "stack" and sc["verdict"] != "skipped":
            assert set(sc["eh"]) == {"target", "reference", "same", "differences"}, sc
            assert sc["eh"]["same"] == (not sc["eh"]["differences"]), sc
            assert all(set(d) == {"reference", "target", "reviewed"} for d in sc["eh"]["differences"]), sc
    assert s["checks"] == sum(len(sc.get("checks", [])) for sc in rep["scenarios"])
    assert s["checks"] == s["pass"] + s["fail"] + s["skipped"]
    assert s["fail"] == s["fail_required"] + s["fail_optional"] + s["fail_unclassified"]
    assert s["distinct_checks"] == len({c["id"] for sc in rep["scenarios"] for c in sc.get("checks", [])})


def test_a_planted_register_difference_shows_as_a_failed_unclassified_check(tmp_path):
    # port-spec with PxSCTL's reset value planted as 0x300: the model reads 0, the check fails
    src = (SUITE / "port-spec.yaml").read_text()
    line = next(ln for ln in src.splitlines() if "sctl.reset:" in ln)
    planted = tmp_path / "port-spec.yaml"
    planted.write_text(src.replace(line, line.replace("expect: 0}", "expect: 0x300}")))
    hba = SUITE / "hba-spec.yaml"
    r = tool("--out", tmp_path / "rep", "--scenarios", planted, hba)
    assert r.returncode == 1, r.stdout + r.stderr  # an unclassified failing check
    assert "1 fail (0 required, 0 optional, 1 unclassified)" in r.stdout, r.stdout
    rep = json.loads((tmp_path / "rep" / "conformance.json").read_text())
    check_structure(rep)
    assert rep["target"]["backend"] == "systemc"
    port = next(sc for sc in rep["scenarios"] if sc["name"] == "conformance-port-spec")
    bad = [c for c in port["checks"] if c["status"] == "fail"]
    assert [c["id"] for c in bad] == ["sctl.reset"], bad
    assert bad[0]["section"] == "3.3.11" and bad[0]["difference"] is None
    assert "reads 0x00000000, expected 0x00000300" in bad[0]["detail"][0], bad[0]
    assert port["verdict"] == "fail"
    hba_rec = next(sc for sc in rep["scenarios"] if sc["name"] == "conformance-hba-spec")
    assert hba_rec["verdict"] == "pass" and all(c["status"] == "pass" for c in hba_rec["checks"])
    page = (tmp_path / "rep" / "conformance.html").read_text()
    assert "<b>unclassified</b>" in page and "sctl.reset" in page and "§3.3.11" in page
    assert "<script" not in page and "http" not in page  # self-contained


@pytest.mark.skipif(bool(qemu_unavailable_reason()), reason=qemu_unavailable_reason() or "")
def test_qemu_report_classifies_its_differences_and_skips_what_it_cannot_run(tmp_path):
    r = tool("--backend", "qemu", "--out", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr  # every failing check is classified
    rep = json.loads((tmp_path / "conformance.json").read_text())
    check_structure(rep)
    by = {sc["name"]: sc for sc in rep["scenarios"]}
    vs = next(c for c in by["conformance-hba-spec"]["checks"] if c["id"] == "vs.131")
    assert vs["status"] == "fail" and vs["difference"]["class"] == "optional" and vs["section"] == "3.1.5"
    clb = next(c for c in by["conformance-port-spec"]["checks"] if c["id"] == "clb.rw")
    assert clb["status"] == "fail" and clb["difference"]["class"] == "required"
    assert by["conformance-hbfs"]["verdict"] == "skipped" and "inject" in by["conformance-hbfs"]["reasons"][0]
    assert all(c["status"] == "skipped" for c in by["conformance-hbfs"]["checks"])
    assert rep["summary"]["fail_unclassified"] == 0 and rep["summary"]["fail_required"] > 0


def test_the_committed_reference_rtl_report():
    # docs/conformance/reference-rtl/: tools/conformance --controller-rtl model/ahci_rtl/profile.yaml
    rep = json.loads(EXAMPLE.read_text())
    check_structure(rep)
    assert rep["target"]["backend"] == "rtl" and rep["target"]["profile"] == "model/ahci_rtl/profile.yaml"
    assert (EXAMPLE.parent / "conformance.html").exists()
    register = [sc for sc in rep["scenarios"] if sc["kind"] == "register"]
    # every check of the suite is in it, each once per scenario
    ids = {c["id"] for sc in register for c in sc["checks"]}
    assert ids == set(distinct_checks(load_suite())), ids ^ set(distinct_checks(load_suite()))
    assert rep["summary"]["fail_unclassified"] == 0
    # the DUT's EH decisions beside the model's: equal, or different as reviewed in
    # model/ahci_rtl/known_differences.yaml (test_rtl_differential.py holds it to that)
    assert any(sc["kind"] == "stack" and sc.get("eh") for sc in rep["scenarios"])
    assert rep["summary"]["eh_unreviewed"] == 0
    # the reference passes every check it runs (its one required difference, PxCMD.CR after
    # an HBFS, 10.3.2, is fixed); port-spec-empty is skipped on the 1-port profile
    bad = [(sc["name"], c["id"]) for sc in register for c in sc["checks"] if c["status"] == "fail"]
    assert bad == [], bad
    hbfs = next(sc for sc in register if sc["name"] == "conformance-hbfs")
    assert hbfs["verdict"] == "pass" and all(c["status"] == "pass" for c in hbfs["checks"]), hbfs
    assert {sc["name"] for sc in register if sc["verdict"] == "skipped"} == {"conformance-port-spec-empty"}
    # a report names its runs relative to itself (runs/ is not committed: .gitignore), and
    # quotes the scenarios' paths as a checkout has them
    assert all(not Path(sc.get("run") or "x").is_absolute() for sc in rep["scenarios"])
    assert "/work/" not in EXAMPLE.read_text() and "/home/" not in EXAMPLE.read_text()
