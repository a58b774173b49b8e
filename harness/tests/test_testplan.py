"""satasim.testplan: coverage of scenarios/testplan.yaml, per-feature verdicts from run
outputs, and its failures (a listed scenario that does not exist, an uncovered feature)."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from satasim import testplan

ROOT = Path(__file__).resolve().parents[2]


def _tp(*args):
    return subprocess.run([sys.executable, "-m", "satasim.testplan", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT / "harness"), "PATH": "/usr/bin:/bin"})


def _tree(tmp_path, plan):
    (tmp_path / "sub").mkdir(parents=True, exist_ok=True)
    (tmp_path / "common").mkdir(exist_ok=True)
    (tmp_path / "a.yaml").write_text("name: alpha\n")
    (tmp_path / "b.yaml").write_text("seed: 2\n")               # name: the stem, b
    (tmp_path / "sub" / "c.yaml").write_text("name: sub-c\n")
    (tmp_path / "common" / "frag.yaml").write_text("seed: 3\n")  # an include fragment
    p = tmp_path / "testplan.yaml"
    p.write_text(textwrap.dedent(plan))
    return p


def _summary(tmp_path, name, verdicts):
    d = tmp_path / name
    d.mkdir()
    (d / "summary.json").write_text(json.dumps(
        {"total": len(verdicts), "scenarios": [{"name": n, "verdict": v} for n, v in verdicts.items()]}))
    return d


def test_repository_testplan_is_complete():
    r = _tp()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "UNCOVERED" not in r.stdout and "MISSING" not in r.stdout
    feats = {f.id for f in testplan.load_plan(testplan.DEFAULT_PLAN, testplan.discover(ROOT / "scenarios"))}
    for f in ("probe", "dma", "pio", "ncq", "controller-ahci", "controller-sil24",
              "directed-ahci-registers", "directed-sil24-registers", "eh-policy-libata-2006", "field-bugs",
              "pmp-probe", "pmp-command-switching", "pmp-fis-switching", "pmp-hotplug", "pmp-link-errors"):
        assert f in feats
    for k in ("crc", "lost_irq", "unplug", "plug", "media_error", "hang", "identify_fail", "phy_flap",
              "link_degrade", "pmp_hang"):
        assert f"fault-{k}" in feats


def test_coverage_and_verdicts(tmp_path):
    plan = _tree(tmp_path, """\
        features:
          - {id: f-name, scenarios: [alpha]}
          - {id: f-glob, scenarios: ["*"]}
          - {id: f-path, scenarios: ["sub/*.yaml"], description: in a folder}
          - {id: f-top, scenarios: ["*.yaml"]}
        """)
    out = _summary(tmp_path, "run1", {"alpha": "pass", "b": "pass", "sub-c": "fail"})
    r = _tp("--plan", plan, "--out", tmp_path / "report.md", out)
    assert r.returncode == 1, r.stdout + r.stderr          # sub-c failed
    rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[2:7]]
            for ln in r.stdout.splitlines() if ln.startswith("| f-")}
    assert rows["f-name"] == ["1", "1", "0", "0", "covered"]
    assert rows["f-glob"] == ["3", "2", "1", "0", "FAILING"]
    assert rows["f-path"] == ["1", "0", "1", "0", "FAILING"]
    assert rows["f-top"] == ["2", "2", "0", "0", "covered"]   # `*` does not cross folders
    assert "scenario sub-c (sub/c.yaml) failed" in r.stdout
    assert (tmp_path / "report.md").read_text() == r.stdout
    # The fragment in common/ is no scenario.
    assert "frag" not in r.stdout


def test_not_run_and_all_pass(tmp_path):
    plan = _tree(tmp_path, "features:\n  - {id: f, scenarios: [alpha, b]}\n")
    out = _summary(tmp_path, "run1", {"alpha": "pass"})
    r = _tp("--plan", plan, out)
    assert r.returncode == 0, r.stdout
    assert "| f | 2 | 1 | 0 | 1 | covered |" in r.stdout


def test_missing_scenario_and_uncovered_feature_exit_1(tmp_path):
    plan = _tree(tmp_path, """\
        features:
          - {id: good, scenarios: [alpha]}
          - {id: typo, scenarios: [alpah]}
          - {id: none, scenarios: []}
        """)
    r = _tp("--plan", plan)
    assert r.returncode == 1
    assert "| typo | 0 |" in r.stdout and "UNCOVERED" in r.stdout
    assert "no scenario matches 'alpah'" in r.stdout
    assert "3 features, 1 covered, 2 uncovered: typo, none" in r.stdout
    plan.write_text("features:\n  - {id: good, scenarios: [alpha, nosuch-*]}\n")
    r = _tp("--plan", plan)
    assert r.returncode == 1 and "MISSING SCENARIO" in r.stdout


def test_bad_plan_exit_2(tmp_path):
    plan = _tree(tmp_path, "features:\n  - {id: a, scenarios: [alpha], colour: red}\n")
    r = _tp("--plan", plan)
    assert r.returncode == 2 and f"{plan}:2: features[0].colour: unknown key" in r.stderr, r.stderr
    plan.write_text("features:\n  - {id: a, scenarios: [alpha]}\n  - {id: a, scenarios: [b]}\n")
    r = _tp("--plan", plan)
    assert r.returncode == 2 and "'a' already used" in r.stderr
    r = _tp("--plan", plan.parent / "nope.yaml")
    assert r.returncode == 2
    plan.write_text("features:\n  - {id: a, scenarios: [alpha]}\n")
    r = _tp("--plan", plan, tmp_path / "no-run")
    assert r.returncode == 2 and "cannot read summary" in r.stderr
