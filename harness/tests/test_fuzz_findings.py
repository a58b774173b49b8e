"""A fuzz finding is a regression scenario by itself, and triage reports every finding once per
cause (issue 33, items 2-4): the finding's scenario carries `oracles:` so that `satasim run`
judges it as the fuzz runner did; tools/fuzz triage reads every source of a campaign (crashes,
hangs, the targets' own findings, the seeds), buckets by cause and checks each bucket's file
as a regression. Fixed inputs, a few seconds (the measured campaigns: docs/fuzzing.md)."""

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from satasim.results import binary

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
# a one-disk input that needs a few thousand simulator steps (test_fuzz_smoke's livelock case)
SMALL = bytes([0x40, 0, 1, 0, 1, 0, 0, 0, 1]) + bytes(19) + bytes([0, 0x01, 7, 7, 1, 0, 20])


def sim(*args, **kw):
    return subprocess.run([str(binary()), *map(str, args)], capture_output=True, text=True, env=ENV, timeout=300,
                          **kw)


def result(out):
    (res,) = list(Path(out).glob("*/result.json"))
    return json.loads(res.read_text())


def test_a_finding_replays_as_a_regression(tmp_path):
    """The runner's watchdog finding, written as a scenario: `satasim run` fails it with the
    oracle named; the same scenario with the watchdog that lets it end (what a fix does)
    passes."""
    (tmp_path / "in.bin").write_bytes(SMALL)
    r = sim("fuzz-run", "--max-steps", "50", "--findings", tmp_path / "found", tmp_path / "in.bin")
    assert r.returncode == 1
    (yaml,) = list((tmp_path / "found").glob("watchdog-steps-*/*.yaml"))
    text = yaml.read_text()
    assert "oracles: {fuzz: true, max_steps: 50}" in text
    run = sim("run", yaml, "--out", tmp_path / "bad")
    assert run.returncode == 1, run.stdout
    assert any(x.startswith("fuzz oracle watchdog-steps: ") for x in result(tmp_path / "bad")["reasons"])
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text(text.replace("max_steps: 50", "max_steps: 2000000"))
    ok = sim("run", fixed, "--out", tmp_path / "good")
    assert ok.returncode == 0, ok.stdout + str(result(tmp_path / "good")["reasons"])


def test_oracle_verdict_excuses_what_faults_cause(tmp_path):
    """An unplugged disk EH detaches fails the implicit expectations (a disk lost) but is no
    finding: with `oracles: {fuzz: true}` the verdict is the fuzz oracles' (a finding's scenario
    passes on the fixed build)."""
    base = (ROOT / "scenarios/faults/unplug-ncq-qd32.yaml").read_text().split("expect:")[0]
    base = base.replace("name: fault-unplug-ncq-qd32", "name: unplug-oracle")
    (tmp_path / "implicit.yaml").write_text(base + "expect: {io_errors_min: 0}\n")
    (tmp_path / "oracle.yaml").write_text(base + "expect: {io_errors_min: 0}\noracles: {fuzz: true}\n")
    r = sim("run", tmp_path / "implicit.yaml", "--out", tmp_path / "o1")
    assert r.returncode == 1 and any("disabled" in x for x in result(tmp_path / "o1")["reasons"])
    r = sim("run", tmp_path / "oracle.yaml", "--out", tmp_path / "o2")
    assert r.returncode == 0, result(tmp_path / "o2")["reasons"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(base + "oracles: {fuzz: 3}\n")
    assert sim("check", bad).returncode == 2


def load_fuzz():
    loader = importlib.machinery.SourceFileLoader("tools_fuzz", str(ROOT / "tools" / "fuzz"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def trace(path, records):
    path.write_text("".join(json.dumps(dict({"seq": 0, "cls": "decision", "src": "stack", "port": 0, "f": {}}, **r))
                            + "\n" for r in records))
    return path


def test_bucket_by_cause_not_wording(tmp_path):
    """Two unprovoked-EH findings whose log lines differ (offender known or not, command)
    but whose cause is the same (a command timeout, EH's exception after it) are one bucket;
    a bus error is another."""
    fz = load_fuzz()
    t1 = trace(tmp_path / "a.jsonl", [{"t_ns": 1, "ev": "qc.timeout", "f": {"tag": 3}},
                                     {"t_ns": 2, "ev": "eh.exception", "dev": 0, "f": {"emask": "0x4"}}])
    t2 = trace(tmp_path / "b.jsonl", [{"t_ns": 5, "ev": "probe.link_up"}, {"t_ns": 7, "ev": "qc.timeout"},
                                     {"t_ns": 8, "ev": "eh.exception", "f": {"emask": "0x0"}},
                                     {"t_ns": 8, "ev": "eh.failed_qc", "f": {"emask": "0x4"}}])
    t3 = trace(tmp_path / "c.jsonl", [{"t_ns": 1, "ev": "ahci.error_irq", "f": {"irq_stat": "0x8000000"}},
                                     {"t_ns": 2, "ev": "eh.exception", "f": {"emask": "0x10"}}])
    a = fz.Replay("finding", "unprovoked-eh", "ata#.#: exception Emask # SAct # SErr # action # frozen", "", t1)
    b = fz.Replay("finding", "unprovoked-eh", "ata#: exception Emask # SAct # SErr # action # frozen", "", t2)
    c = fz.Replay("finding", "unprovoked-eh", "ata#.#: exception Emask # SAct # SErr # action # frozen", "", t3)
    assert fz.cause(a) == fz.cause(b) == "unprovoked-eh: timeout after qc.timeout"
    assert fz.cause(c) == "unprovoked-eh: ATA bus error after ahci.error_irq"
    # an EH rule is its rule; a frozen port its last decisions on that port, retries collapsed
    assert fz.cause(fz.Replay("finding", "eh-rule", "speed-down-verdict")) == "eh-rule: speed-down-verdict"
    t4 = trace(tmp_path / "d.jsonl", [{"t_ns": i, "ev": e} for i, e in
                                      enumerate(["eh.reset", "eh.reset_failed", "eh.reset", "eh.reset_failed",
                                                 "eh.reset_giveup"])])
    assert fz.cause(fz.Replay("finding", "frozen-port", "x", "port 0: still frozen", t4)) == \
        "frozen-port: eh.reset > eh.reset_failed > eh.reset_giveup"


def test_triage_reports_every_source_once_per_cause(tmp_path):
    """A campaign folder with the same livelock saved three ways (an AFL++ crash, an AFL++
    hang, the target's own finding) and a seed: triage replays each once, finds one bucket with
    every source counted, writes one reduced scenario for it and checks it fails on the build
    (with the step watchdog low enough that every input is a livelock)."""
    out = tmp_path / "camp"
    for d in ("sync/main/crashes", "sync/main/hangs", "raw-findings/watchdog-steps-00000000", "seeds"):
        (out / d).mkdir(parents=True)
    (out / "sync/main/crashes/id:000000,sig:06").write_bytes(SMALL)
    (out / "sync/main/hangs/id:000000").write_bytes(SMALL)
    (out / "raw-findings/watchdog-steps-00000000/fuzz-x.bin").write_bytes(SMALL)
    (out / "seeds/one.bin").write_bytes(SMALL + bytes([0]))  # same scenario, other bytes
    r = subprocess.run([sys.executable, str(ROOT / "tools/fuzz"), "triage", str(out), "--satasim", str(binary()),
                        "--max-steps", "50"], capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    t = json.loads((out / "findings.json").read_text())
    assert t["inputs"] == 2 and t["replayed_with"] == str(binary())
    (b,) = t["buckets"]
    assert b["oracle"] == "watchdog-steps" and b["inputs"] == 2
    assert b["sources"] == {"crash": 1, "hang": 1, "target": 1, "seed": 1}
    assert b["defective_build"] == "fails"
    files = list((out / "findings").glob("*/*.yaml"))
    assert len(files) == 1 and files[0] == out / b["file"]
    assert "report.html" in os.listdir(out)
