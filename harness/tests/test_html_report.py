"""The HTML report's parts (satasim.htmlreport, issue 34 "A report worth opening"): lanes per
device with the table's command counts, the queue-depth peak, the failure and golden diff at
the top, the folded and filterable log, the collapsed boot probe. In a browser:
test_html_report_browser.py."""

import json
import re
from pathlib import Path

import pytest

from satasim import run_shared
from satasim.htmlreport import logview, render_run, timeline
from satasim.tracefmt import iter_trace
from report_runs import FAULT, PMP, ROOT, failing_fault_scenario
from synthetic_trace import rec


def records(*recs):
    for i, r in enumerate(recs):
        r["seq"] = i
    return list(recs)


def fig_of(html):
    return json.loads(html.split('id="timeline-data">', 1)[1].split("</script>", 1)[0])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("html-runs")
    sc = failing_fault_scenario(out / "scenarios")
    r = run_shared([sc, ROOT / "scenarios" / "pmp" / "pmp-unplug-one-disk.yaml",
                    ROOT / "scenarios" / "faults" / "crc-ncq-speed-down.yaml"], out / "o", "--jobs", "2")
    assert r.returncode == 1, r.stdout + r.stderr
    return out / "o"


# ------------------------------------------------------------------- timeline

def test_a_command_eh_failed_leaves_the_queue():
    """EH fails 32 NCQ commands (eh.failed_qc, no qc.done), then issues an internal command:
    at queue depth 32 the peak is 32 (it read 33: issue 34's off-by-one)."""
    rs = [rec(0, "run.start", cls="info", port=-1, src="harness", controller="ahci")]
    rs += [rec(10 + i, "qc.issue", cls="cmd", dev=0, tag=i) for i in range(32)]
    rs += [rec(100 + i, "eh.failed_qc", dev=0, tag=i, msg="failed command: READ FPDMA QUEUED") for i in range(32)]
    rs += [rec(200, "qc.issue", cls="cmd", dev=0, tag=32), rec(300, "qc.done", cls="cmd", dev=0, tag=32)]
    rs += [rec(400 + i, "qc.issue", cls="cmd", dev=0, tag=i) for i in range(32)]   # the retries
    tl = timeline.build_timeline(records(*rs))
    (ln,) = tl.lanes
    assert ln.key == "ata1.00" and ln.peak == 32 and ln.issued == 65
    assert [n for t, n in ln.steps if 200 <= t <= 300] == [1, 0]


def test_queue_depth_peak_of_a_real_speed_down_run(runs):
    """fault-crc-ncq-speed-down: 128 commands failed by EH and retried; the lane's peak is
    the drive's queue depth, not one more."""
    d = runs / "fault-crc-ncq-speed-down"
    res = json.loads((d / "result.json").read_text())
    tl = timeline.build_timeline(iter_trace(d / "trace.jsonl"), res)
    (ln,) = tl.lanes
    assert res["devices"][0]["ncq_depth"] == 32
    assert ln.peak == 32 and ln.retries > 0
    assert ln.workload_cmds == res["commands"] < ln.issued


def test_pmp_disks_have_a_lane_each_and_the_table_counts(runs):
    d = runs / PMP
    res = json.loads((d / "result.json").read_text())
    tl = timeline.build_timeline(iter_trace(d / "trace.jsonl"), res)
    devs = [ln.key for ln in tl.lanes if ln.kind == "device"]
    assert devs == ["ata1.00", "ata1.01", "ata1.02"] == [x["name"] for x in res["devices"]]
    assert sum(ln.workload_cmds for ln in tl.lanes if ln.kind == "device") == res["commands"]
    kinds = {ln.key: ln.kind for ln in tl.lanes}
    assert kinds["ata1"] == "port"                       # the PMP and the host link
    assert all(kinds[k] == "link" for k in kinds if k in ("ata1.03", "ata1.04"))
    html = render_run(d, plotly="plotly.js")
    for ln in tl.lanes:
        if ln.kind == "device":
            assert f"<td>{ln.key}</td>" in html and f"{ln.key}: peak {ln.peak}, {ln.workload_cmds} cmds" in html
    # no text drawn on the plot (labels overlapped at every zoom): legend and hover name speeds
    fig = fig_of(html)
    assert all("text" not in (tr.get("mode") or "") for tr in fig["data"])
    assert len(fig["layout"]["annotations"]) == len(tl.lanes)    # the lane titles, nothing else
    # the time axis (the bottom lane's) is named, and plotly sizes the margins for its label
    titled = [v for k, v in fig["layout"].items() if k.startswith("xaxis") and v.get("title")]
    assert len(titled) == 1 and titled[0]["title"]["text"] == "simulated time (s)" and titled[0]["automargin"]


def test_the_boot_probe_is_collapsed_when_it_fills_the_axis():
    rs = [rec(0, "run.start", cls="info", port=-1, src="harness", controller="ahci"),
          rec(0, "probe.link_up", port=0, msg="SATA link up 6.0 Gbps", speed="6.0 Gbps"),
          rec(880, "workload.start", cls="info", port=0, src="harness"),
          rec(900, "qc.issue", cls="cmd", dev=0, tag=0), rec(1000, "qc.done", cls="cmd", dev=0, tag=0)]
    tl = timeline.build_timeline(records(*rs))
    assert tl.probe_end == 880 and tl.t_end == 1000


# ------------------------------------------------------------------ the page

def test_failure_and_golden_diff_come_first(runs):
    d = runs / FAULT
    res = json.loads((d / "result.json").read_text())
    assert res["verdict"] == "fail" and res["reasons"]
    html = render_run(d, golden_dir=ROOT / "golden", plotly="plotly.js")
    body = html.split("<body", 1)[1]
    assert body.index('id="failure"') < body.index('id="golden-diff"') < body.index('id="timeline"')
    for reason in res["reasons"]:
        assert reason.replace("'", "&#39;") in body or reason in body
    diff = body.split('id="golden-diff"', 1)[1].split("</section>", 1)[0]
    assert "seed: &#39;13&#39;, the run&#39;s: &#39;14&#39;" in diff
    assert 'class="del"' in diff and 'class="add"' in diff
    ok = render_run(runs / PMP, golden_dir=ROOT / "golden", plotly="plotly.js")
    assert 'id="golden-diff"' not in ok and 'id="failure"' not in ok and 'id="golden-state">match<' in ok
    assert 'id="golden-state">none<' in render_run(d, golden_dir=None, plotly="plotly.js")


def test_log_folds_repeats_and_offers_its_filters(runs):
    d = runs / FAULT
    html = render_run(d, golden_dir=None, plotly="plotly.js")
    counts = [int(c) for c in re.findall(r'<span class="count">×(\d+)</span>', html)]
    log = (d / "satasim.log").read_text()
    enodev = log.count("returned -ENODEV")
    assert enodev > 500 and enodev - 1 in [c - 1 for c in counts]   # one fold holds them all
    folded = html.split('id="log"', 1)[1]
    assert folded.count("returned -ENODEV") == enodev                 # all there, behind the fold
    opts = re.findall(r"<option>([^<]+)</option>", html.split('id="f-dev"', 1)[1].split("</select>", 1)[0])
    assert opts == ["ata1.00"]
    pmp = render_run(runs / PMP, golden_dir=None, plotly="plotly.js")
    opts = re.findall(r"<option>([^<]+)</option>", pmp.split('id="f-dev"', 1)[1].split("</select>", 1)[0])
    assert {"ata1.00", "ata1.01", "ata1.02"} <= set(opts)
    lv = pmp.split('id="f-lvl"', 1)[1].split("</select>", 1)[0]
    assert 'value="err"' in lv and 'value="warn"' in lv


def test_fold_finds_repeated_blocks():
    def e(text, dev="ata1.00"):
        x = logview.Entry(0, text, "ata1", dev, "err")
        x.shape = logview._shape(x)
        return x
    block = lambda tag: [e(f"[    1.0{tag:05d}] failed command: READ FPDMA QUEUED"),
                         e(f"cmd 60/08:{tag:02x}:00 tag {tag} ncq dma 4096 in"), e("status: { DRDY }")]
    items = [e("exception Emask 0x10")] + [x for t in range(32) for x in block(t)] + [e("hard resetting link", "")]
    groups = logview.fold(items)
    assert [(len(g.entries), g.count) for g in groups] == [(1, 1), (3, 32), (1, 1)]
    assert len(groups[1].rest) == 93
    other = [e(f"lba {i} returned -ENODEV", "") for i in range(902)]
    assert [(g.count, len(g.rest)) for g in logview.fold(other)] == [(902, 901)]
    assert [g.count for g in logview.fold([e("a 1"), e("b 1"), e("a 2")])] == [1, 1, 1]
