"""Suite outputs: the summary table and JUnit XML (satasim.report)."""

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from satasim import run
from satasim.report import main

ROOT = Path(__file__).resolve().parents[2]


def _trace(d, n_eh):
    lines = [{"t_ns": 0, "seq": 0, "src": "harness", "ev": "run.start", "cls": "info",
              "port": -1, "f": {"controller": "ahci"}}]
    for i in range(n_eh):
        lines.append({"t_ns": 10 + i, "seq": i + 1, "src": "stack", "ev": "eh.reset",
                      "cls": "decision", "port": 0, "f": {"method": "hard"},
                      "msg": "hard resetting link"})
    lines.append({"t_ns": 50, "seq": 99, "src": "stack", "ev": "probe.link_up",
                  "cls": "decision", "port": 0, "f": {}})
    (d / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def fake_suite(out, scenarios):
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for s in scenarios:
        d = out / s["name"]
        d.mkdir()
        _trace(d, s.pop("n_eh", 0))
        (d / "result.json").write_text(json.dumps({"name": s["name"], "verdict": s["verdict"],
                                                   "controller": {"type": s["controller"]}}))
        entries.append(dict({"file": f"scenarios/{s['name']}.yaml", "reasons": [],
                             "commands": 10, "sim_time_ns": 1_500_000_000,
                             "wall_time_s": 0.25}, **s))
    failed = sum(1 for e in entries if e["verdict"] != "pass")
    (out / "summary.json").write_text(json.dumps({
        "total": len(entries), "passed": len(entries) - failed, "failed": failed,
        "wall_time_s": 1.0, "scenarios": entries}))
    return out


def test_table_and_junit(tmp_path, capsys):
    out = fake_suite(tmp_path / "suite", [
        {"name": "good", "verdict": "pass", "controller": "ahci", "ports": 4, "devices": 2,
         "n_eh": 3},
        {"name": "bad", "verdict": "fail", "controller": "sil24", "ports": 1, "devices": 1,
         "reasons": ["port 0: expected xfer UDMA/133, found UDMA/100", "2 I/O error(s)"]},
    ])
    junit = tmp_path / "j" / "junit.xml"
    assert main([str(out), "--junit", str(junit)]) == 1
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].split() == ["scenario", "controller", "topology", "verdict", "EH",
                                "decisions", "sim", "time", "wall", "time", "golden"]
    good = next(x for x in lines if x.startswith("good "))
    assert "ahci 4p, 2 disks" in good and "PASS" in good and " 3 " in good
    assert "1.500s" in good and "0.25s" in good
    bad = next(x for x in lines if x.startswith("bad "))
    assert "sil24 1p, 1 disk " in bad + " " and "FAIL" in bad
    assert "FAIL bad: port 0: expected xfer UDMA/133, found UDMA/100; 2 I/O error(s)" in text
    assert "1 passed, 1 failed" in text

    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"good", "bad"}
    assert cases["good"].find("failure") is None
    f = cases["bad"].find("failure")
    assert f.get("message") == "port 0: expected xfer UDMA/133, found UDMA/100; 2 I/O error(s)"
    assert cases["bad"].get("classname") == "satasim.sil24"
    assert cases["good"].get("time") == "0.250"


def test_all_pass_exits_0(tmp_path, capsys):
    out = fake_suite(tmp_path / "s", [{"name": "a", "verdict": "pass", "controller": "ahci",
                                        "ports": 1, "devices": 1}])
    assert main([str(out / "summary.json")]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out


def test_corrupt_summary_exits_2(tmp_path, capsys):
    (tmp_path / "summary.json").write_text('{"total": 1,\n "scenarios": [\n')
    assert main([str(tmp_path)]) == 2
    assert f"{tmp_path / 'summary.json'}:3: bad JSON" in capsys.readouterr().err


def test_golden_mismatch_fails_the_report(tmp_path, capsys):
    """A real run: its golden matches; an edited golden makes a failing golden testcase."""
    out = tmp_path / "out"
    r = run([ROOT / "scenarios" / "probe-2port.yaml"], out)
    assert r.returncode == 0, r.stdout + r.stderr
    gdir = tmp_path / "golden"
    from satasim.golden import main as golden_main
    assert golden_main(["record", str(out), "--golden-dir", str(gdir)]) == 0
    junit = tmp_path / "junit.xml"
    assert main([str(out), "--golden-dir", str(gdir), "--junit", str(junit)]) == 0
    assert "goldens: 1 match, 0 mismatch" in capsys.readouterr().out

    gp = gdir / "probe-2port.ahci.golden"
    gp.write_text(gp.read_text().replace("SATA link up 3.0 Gbps", "SATA link up 1.5 Gbps"))
    assert main([str(out), "--golden-dir", str(gdir), "--junit", str(junit),
                 "--show-diffs"]) == 1
    text = capsys.readouterr().out
    assert "MISMATCH" in text and "- [    0.311200] ata2: SATA link up 1.5 Gbps" in text
    cases = {(c.get("classname"), c.get("name")): c for c in ET.parse(junit).iter("testcase")}
    g = cases[("satasim.golden", "probe-2port")]
    assert g.find("failure") is not None and "SATA link up 1.5 Gbps" in g.find("failure").text
    assert cases[("satasim.ahci", "probe-2port")].find("failure") is None
    shutil.rmtree(gdir)


def test_several_suites_one_table_one_total_one_junit(tmp_path, capsys):
    # The main job's parts (the default suite and its adaptations for other controllers):
    # before, four tables, four partial totals and no grand total, and the scenarios the
    # adapter left out were in no JUnit file (every junit.xml said skipped="0").
    a = fake_suite(tmp_path / "suite", [
        {"name": "one", "verdict": "pass", "controller": "ahci", "ports": 1, "devices": 1, "n_eh": 2,
         "observed": "io_errors 3"},
        {"name": "two", "verdict": "fail", "controller": "ahci", "ports": 1, "devices": 1,
         "reasons": ["port 0: link gen is 2, expected 3"]}])
    b = fake_suite(tmp_path / "suite-sil24", [
        {"name": "one-sil24", "verdict": "pass", "controller": "sil24", "ports": 1, "devices": 1}])
    (b / "adapt-skipped.json").write_text(json.dumps([
        {"file": "scenarios/ncq-only.yaml", "why": "needs 32 NCQ tags"},
        {"file": "scenarios/fbs.yaml", "why": "no FIS-based switching"}]))
    junit = tmp_path / "junit.xml"
    assert main(["--suite", f"ahci={a}", "--suite", f"sil24={b}", "--junit", str(junit)]) == 1
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["suite", "scenario"] and lines[0].split()[-1] == "observed"
    assert sum(1 for x in lines if x.startswith(("ahci ", "sil24 "))) == 3   # each run once
    assert next(x for x in lines if " one " in x).rstrip().endswith("io_errors 3")
    assert text.count("two") == 2   # its table row and its FAIL line, nothing else
    assert "FAIL ahci/two: port 0: link gen is 2, expected 3" in text
    assert "skipped on sil24 (2): ncq-only, fbs" in text
    total = [x for x in lines if x.startswith("total:")]
    assert total == [x for x in lines if "passed" in x] and len(total) == 1, text   # one total only
    assert total[0].startswith("total: 2 passed, 1 failed, 2 skipped (3 runs in 2 suites)")
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == ["satasim.ahci", "satasim.sil24"]
    assert [(s.get("tests"), s.get("skipped"), s.get("failures")) for s in suites] == [("2", "0", "1"), ("3", "2", "0")]
    skipped = [tc.get("name") for tc in suites[1].findall("testcase") if tc.find("skipped") is not None]
    assert skipped == ["ncq-only", "fbs"]
