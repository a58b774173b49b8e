"""Trace tools: the log rendered from trace.jsonl equals satasim.log; the HTML report."""

import json
from collections import Counter
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import yaml

from satasim import run, run_shared
from satasim.controllers import is_scenario
from satasim.render import buckets, build_lanes, main, render_html, render_log
from synthetic_trace import rec

ROOT = Path(__file__).resolve().parents[2]


def write_trace(path, records):
    for i, r in enumerate(records):
        r["seq"] = i
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        for r in records:
            fh.write(json.dumps(r, separators=(",", ":")) + "\n")
    return path


# ------------------------------------------------------------------------- log

def test_log_lines_follow_the_sink(tmp_path):
    t = write_trace(tmp_path / "trace.jsonl", [
        rec(0, "run.start", cls="info", port=-1, src="harness", controller="sil24"),
        rec(0, "sil24.errata", port=-1, msg="Applying completion IRQ loss on PCI-X errata fix"),
        rec(1_999_999_999, "eh.reset", port=0, msg="hard resetting link"),
        rec(2_000_000_500, "probe.configured", port=1, dev=0, msg="configured for UDMA/100"),
        rec(2_000_001_000, "eh.exception", port=0, link=15, dev=0, msg="exception Emask 0x4"),
        rec(2_000_001_000, "link.up", port=3, link=15, msg="x"),                   # PMP link
        rec(2_000_002_000, "eh.port_disabled", port=2, msg="port disabled--ignoring", lvl="debug"),
        rec(2_000_002_100, "eh.anything", port=2, msg="any debug-level message", lvl="debug"),
        rec(2_000_002_200, "eh.spd_limit", port=2, msg="warning", lvl="warn"),
        rec(2_000_002_300, "eh.port_disabled", port=3, msg="no lvl: an older trace", ),
        rec(2_000_003_000, "probe.class", port=0, cls_="ata"),                     # no msg
        rec(2_000_004_000, "link.comreset", cls="model", src="link0", port=0, msg="COMRESET"),
        rec(2_000_005_000, "io.error", cls="info", port=0, src="harness", msg="read failed"),
    ])
    assert render_log(t).splitlines() == [
        "[    0.000000] sil24: Applying completion IRQ loss on PCI-X errata fix",
        "[    1.999999] ata1: hard resetting link",
        "[    2.000000] ata2.00: configured for UDMA/100",
        "[    2.000001] ata1.15: exception Emask 0x4",
        "[    2.000001] ata4.15: x",
        "[    2.000002] ata3: warning",
        "[    2.000002] ata4: no lvl: an older trace",
        "[    2.000005] satasim: read failed",
    ]


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory):
    """The default suite and the sil24 scenarios: the suite's own runs (run_shared), one
    scenario file each, as test_suite.py and test_sil24.py run them."""
    out = tmp_path_factory.mktemp("render-runs")
    files = [p for d in (ROOT / "scenarios", ROOT / "scenarios" / "sil24") for p in sorted(d.glob("*.yaml"))
             if is_scenario(yaml.safe_load(p.read_text()))]
    for p in files:
        r = run_shared([p], out / p.stem)
        assert r.returncode == 0, r.stdout + r.stderr
    dirs = sorted(d for f in files for d in (out / f.stem).iterdir() if (d / "result.json").exists())
    assert len(dirs) == len(files)
    return dirs


def test_rendered_log_equals_satasim_log(real_runs):
    assert len(real_runs) >= 10
    for d in real_runs:
        want = (d / "satasim.log").read_text()
        got = render_log(d / "trace.jsonl")
        assert want, d
        assert got == want, f"{d.name}: rendered log differs from satasim.log"


def test_every_record_carries_its_log_level(real_runs):
    """lvl on every record; a model record is debug; a message is in the log iff lvl != debug;
    a "cont" record (a failed command's res line) is the cmd line's second line: it comes
    right after its eh.failed_qc_cmd and the log holds it without a prefix, indented."""
    levels = Counter()
    for d in real_runs:
        log = (d / "satasim.log").read_text()
        prev = None
        for line in (d / "trace.jsonl").open():
            r = json.loads(line)
            assert r["lvl"] in ("err", "warn", "info", "debug", "cont"), (d.name, line)
            if r["lvl"] == "cont":
                assert r["ev"] == "eh.failed_qc_res" and prev["ev"] == "eh.failed_qc_cmd", (d.name, line)
                assert f"\n                        {r['msg']}\n" in log or f"         {r['msg']}\n" in log, line
            if r["src"] == "stack" and r["cls"] != "cmd":
                prev = r
            assert list(r)[:7] == ["t_ns", "seq", "src", "ev", "cls", "lvl", "port"], line
            levels[r["src"] if r["src"] in ("stack", "harness") else "model", r["lvl"]] += 1
            if r["src"] not in ("stack", "harness"):
                assert r["lvl"] == "debug", line
            if r.get("msg") and r["lvl"] == "debug":
                assert f": {r['msg']}\n" not in log or r["src"] != "stack", (d.name, line)
    assert levels["stack", "info"] and levels["model", "debug"] and levels["harness", "info"], levels


def test_log_cli_and_html_on_a_real_run(real_runs, tmp_path, capsys):
    d = next(d for d in real_runs if d.name == "probe-4port")
    assert main(["log", str(d)]) == 0
    assert capsys.readouterr().out == (d / "satasim.log").read_text()
    out = tmp_path / "r.html"
    assert main(["html", str(d), "-o", str(out)]) == 0
    text = out.read_text()
    for port in ("ata1", "ata2", "ata3", "ata4"):
        assert f">{port}</text>" in text
    assert "1.5 Gbps" in text and "ata3: SATA link down" in text


def test_corrupt_trace_exits_2(tmp_path, capsys):
    t = write_trace(tmp_path / "trace.jsonl", [rec(0, "eh.reset", msg="hard resetting link")])
    t.write_text(t.read_text() + '{"t_ns":1,"seq":1\n')
    assert main(["log", str(t)]) == 2
    assert f"{t}:2: bad JSON" in capsys.readouterr().err


# ------------------------------------------------------------------------ HTML

def test_buckets_keep_peaks():
    steps = [(10, 1), (11, 5), (12, 0), (500, 2), (990, 3)]
    lo, hi = buckets(steps, 1000, width=10)
    assert hi[0] == 5 and lo[0] == 0           # the 5-high spike survives aggregation
    assert hi[1:5] == [0, 0, 0, 0]
    assert hi[5] == 2 and hi[8] == 2 and hi[9] == 3


def _big_trace(path, n_cmds=50_000, qd=32):
    """~100k cmd records on one port, an EH episode with a fault, a speed limit."""
    recs = [rec(0, "run.start", cls="info", port=-1, src="harness", controller="ahci"),
            rec(1_000, "eh.reset", port=0, msg="hard resetting link"),
            rec(2_000, "probe.link_up", port=0, msg="SATA link up 6.0 Gbps", speed="6.0 Gbps"),
            rec(3_000, "probe.configured", port=0, dev=0, msg="configured for UDMA/133")]
    t = 10_000
    inflight = []
    for i in range(n_cmds):
        tag = i % qd
        if len(inflight) == qd:
            done = inflight.pop(0)
            recs.append(rec(t, "qc.done", cls="cmd", port=0, dev=0, tag=done, cmd="0x60"))
        recs.append(rec(t, "qc.issue", cls="cmd", port=0, dev=0, tag=tag, cmd="0x60"))
        inflight.append(tag)
        t += 1_000
        if i == n_cmds // 2:
            recs += [rec(t, "fault.inject", cls="model", src="fault", port=0,
                         msg="inject crc on ata1 (fault0, firing 1)", id="fault0"),
                     rec(t + 10, "eh.exception", port=0, dev=0, msg="exception Emask 0x10"),
                     rec(t + 20, "eh.spd_limit", port=0, msg="limiting SATA link speed to 3.0 Gbps",
                         speed="3.0 Gbps"),
                     rec(t + 30, "eh.complete", port=0, msg="EH complete")]
    for tag in inflight:
        recs.append(rec(t, "qc.done", cls="cmd", port=0, dev=0, tag=tag, cmd="0x60"))
    return write_trace(path, recs)


def test_html_report_of_a_100k_record_trace(tmp_path):
    t = _big_trace(tmp_path / "run" / "trace.jsonl")
    assert sum(1 for _ in t.open()) > 100_000
    text = render_html(t.parent)
    assert len(text) < 400_000, "commands in flight must be aggregated, not one point per record"
    svgs = [s[: s.index("</svg>") + 6] for s in text.split("<svg")[1:]]
    assert len(svgs) == 1
    root = ET.fromstring("<svg" + svgs[0])                      # well-formed SVG
    ns = "{http://www.w3.org/2000/svg}"
    titles = [el.text for el in root.iter(ns + "title")]
    assert any("fault:fault.inject" in x for x in titles)     # fault marker
    assert any(x.startswith("EH ") for x in titles)           # EH phase
    assert ">peak 32<" in text
    assert "3.0 Gbps (limit)" in text and ">6.0 Gbps<" in text
    assert "ata1: limiting SATA link speed to 3.0 Gbps" in text  # the log


def test_lanes_count_commands_in_flight(tmp_path):
    t = _big_trace(tmp_path / "trace.jsonl", n_cmds=100, qd=4)
    from satasim.tracefmt import iter_trace
    lanes, t_end, log = build_lanes(iter_trace(t))
    ln = lanes[0]
    assert ln.cmds == 100
    assert max(n for _, n in ln.steps) == 4 and ln.steps[-1][1] == 0
    assert len(ln.faults) == 1 and len(ln.eh_spans) >= 1
