"""The HTML pages: a run's report and a suite's index (jinja2 templates in templates/).

A page carries its scripts: plotly.js (Debian's python3-plotly, plotly.offline.get_plotlyjs)
inlined, so one .html file is the whole report. A suite's pages can share one copy instead
(plotly_js="plotly.js" written once beside the index): 128 reports would otherwise carry
128 copies of the library's 8.6 MB.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..tracefmt import TraceError, iter_trace, trace_path
from . import logview, timeline

TEMPLATES = Path(__file__).with_name("templates")
MAX_LOG_GROUPS = 20_000       # a log longer than this (after folding) is cut, and says so
MAX_FOLDED_SHOWN = 5000       # repetitions listed inside one fold (the rest: satasim.log)


def _env():
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters["t"] = fmt_t
    return env


def fmt_t(t_ns) -> str:
    t_ns = int(t_ns or 0)
    if t_ns >= 1_000_000_000:
        return f"{t_ns / 1e9:.3f} s"
    return f"{t_ns / 1e6:.3f} ms"


def plotly_js() -> str:
    from plotly.offline import get_plotlyjs
    return get_plotlyjs()


def _script_assets(plotly: str | None):
    """(inline plotly source or None, src attribute or None)."""
    if plotly is None:
        return plotly_js(), None
    return None, plotly


def _static(name) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def _load_result(run_dir: Path):
    rp = run_dir / "result.json"
    if not rp.exists():
        return None
    try:
        return json.loads(rp.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def _golden(run_dir: Path, golden_dir):
    """(state, diff text): "match", "MISMATCH", "ERROR" or None (no golden or no directory)."""
    if golden_dir is None or not (run_dir / "result.json").exists():
        return None, ""
    from ..golden import compare_run, format_comparison
    try:
        c = compare_run(run_dir, golden_dir)
    except TraceError as e:
        return "ERROR", str(e)
    except (OSError, ValueError, KeyError) as e:
        return "ERROR", f"{type(e).__name__}: {e}"
    if c is None:
        return None, ""
    return ("match", "") if c.ok else ("MISMATCH", format_comparison(c))


def default_golden_dir():
    g = Path(__file__).resolve().parents[3] / "golden"
    return g if g.is_dir() else None


def render_run(path, title=None, golden_dir="default", plotly=None) -> str:
    """A run's report. path: a trace.jsonl or its run folder (result.json beside it is read
    when there). golden_dir: "default" (the checkout's golden/), None (no comparison) or a
    folder. plotly: None inlines plotly.js; a string is the src of a shared copy."""
    tp = trace_path(path)
    run_dir = tp.parent
    records = list(iter_trace(tp))
    res = _load_result(run_dir)
    tl = timeline.build_timeline(records, res)
    entries = logview.entries(records)
    groups = logview.fold(entries)
    cut = max(len(groups) - MAX_LOG_GROUPS, 0)
    groups = groups[:MAX_LOG_GROUPS]
    if golden_dir == "default":
        golden_dir = default_golden_dir()
    gstate, gdiff = _golden(run_dir, golden_dir)
    name = title or (res or {}).get("name") or run_dir.name
    inline, src = _script_assets(plotly)
    ctrl = (res or {}).get("controller")
    if isinstance(ctrl, dict):
        ctrl = f"{ctrl.get('type')} ({ctrl.get('ports')} port{'' if ctrl.get('ports') == 1 else 's'})"
    device_rows = []
    for d in (res or {}).get("devices") or []:
        if isinstance(d, dict):
            lane = next((ln for ln in tl.lanes if ln.key == d.get("name")), None)
            device_rows.append({"name": d.get("name"), "model": d.get("model"), "xfer": d.get("xfer"),
                                "link": d.get("link_speed"), "ncq": d.get("ncq_depth") if d.get("ncq") else "-",
                                "cmds": lane.workload_cmds if lane else None,
                                "issued": lane.issued if lane else None,
                                "peak": lane.peak if lane else None})
    probe = None
    if tl.probe_end and tl.t_end:
        probe = {"end_s": tl.probe_end / 1e9, "end": fmt_t(tl.probe_end),
                 "share": round(100 * tl.probe_end / tl.t_end),
                 "collapsed": tl.probe_end / tl.t_end > 0.2}
    return _env().get_template("run.html.j2").render(
        name=name, res=res, controller=ctrl, trace=str(tp), t_end=tl.t_end,
        lanes=tl.lanes, fig_json=timeline.figure_json(tl), probe=probe,
        probe_json=timeline.dumps(probe), t_end_s=tl.t_end / 1e9,
        groups=groups, facets=logview.facets(entries), cut=cut, n_lines=len(entries),
        max_folded=MAX_FOLDED_SHOWN, golden=gstate, golden_diff=gdiff,
        device_rows=device_rows,
        reasons=logview.fold_texts((res or {}).get("reasons") or [(res or {}).get("verdict", "")]), plotly_inline=inline, plotly_src=src,
        css=_static("report.css"), js=_static("report.js"))


def render_index(parts, report_href, plotly=None, title="satasim suite") -> str:
    """The suite index. parts: report.Part-like (label, out_dir, summary, rows, skipped);
    report_href(part, row) -> the link to the row's report, or None."""
    import plotly.graph_objects as go
    rows, scat = [], {}
    for p in parts:
        for r in p.rows:
            href = report_href(p, r)
            rows.append({"suite": p.label, "name": r.name, "controller": r.controller, "topology": r.topology,
                         "verdict": r.verdict, "reasons": r.reasons, "eh": r.eh_decisions,
                         "reason_groups": [(g.entries[0].text, g.count) for g in logview.fold_texts(r.reasons)],
                         "sim": fmt_t(r.sim_time_ns), "wall": f"{r.wall_time_s:.2f} s", "golden": r.golden,
                         "observed": r.observed, "href": href})
            key = "pass" if r.verdict == "pass" else "fail"
            xs, ys, tx = scat.setdefault(key, ([], [], []))
            xs.append(max(r.wall_time_s, 1e-3))
            ys.append(max(r.sim_time_ns / 1e9, 1e-6))
            tx.append(f"{p.label}/{r.name}" if len(parts) > 1 else r.name)
    fig = go.Figure()
    for key, color in (("pass", "#2e7d32"), ("fail", "#c62828")):
        if key in scat:
            xs, ys, tx = scat[key]
            fig.add_trace(go.Scatter(x=xs, y=ys, text=tx, mode="markers", name=key,
                                     marker=dict(color=color, size=8, opacity=0.75),
                                     hovertemplate="%{text}<br>wall %{x:.3f} s<br>simulated %{y:.6f} s<extra></extra>"))
    fig.update_xaxes(type="log", title_text="wall time (s)", automargin=True)
    fig.update_yaxes(type="log", title_text="simulated time (s)", automargin=True)
    fig.update_layout(height=420, margin=dict(l=70, r=30, t=30, b=60), plot_bgcolor="#fbfbfb",
                      legend=dict(orientation="h", y=1.08, x=0))
    skipped = [(p.label, name, why) for p in parts for name, why in p.skipped]
    failed = [r for r in rows if r["verdict"] != "pass"]
    gbad = [r for r in rows if r["golden"] in ("MISMATCH", "ERROR")]
    wall = sum(float(p.summary.get("wall_time_s", 0.0)) for p in parts)
    inline, src = _script_assets(plotly)
    return _env().get_template("index.html.j2").render(
        title=title, rows=rows, failed=failed, gbad=gbad, skipped=skipped, multi=len(parts) > 1,
        wall=f"{wall:.2f} s", fig_json=fig.to_json().replace("</", "<\\/"),
        plotly_inline=inline, plotly_src=src, css=_static("report.css"), js=_static("report.js"))


def write_suite(parts, index_path, golden_dir="default", reports=True, self_contained=False,
                jobs=None) -> dict:
    """Writes the index at index_path and, with reports, OUT_DIR/<scenario>/report.html for
    every run (one shared plotly.js beside the index unless self_contained). Returns
    {"index": path, "reports": [paths], "errors": [(name, why)]}."""
    index_path = Path(index_path)
    index_path.parent.mkdir(parents=True, exist_ok=True)
    shared = None
    if not self_contained:
        shared = index_path.parent / "plotly.js"
        js = plotly_js()
        if not shared.exists() or shared.stat().st_size != len(js.encode("utf-8")):
            shared.write_text(js, encoding="utf-8")
    written, errors, hrefs = [], [], {}
    if reports:
        for p in parts:
            for r in p.rows:
                run_dir = Path(p.out_dir) / r.name
                if not (run_dir / "trace.jsonl").exists():
                    continue
                out = run_dir / "report.html"
                src = None if shared is None else os.path.relpath(shared, out.parent)
                try:
                    out.write_text(render_run(run_dir, golden_dir=golden_dir, plotly=src), encoding="utf-8")
                except TraceError as e:
                    errors.append((r.name, str(e)))
                    continue
                written.append(out)
                hrefs[(p.label, r.name)] = os.path.relpath(out, index_path.parent)
    src = None if shared is None else os.path.relpath(shared, index_path.parent)
    index_path.write_text(render_index(parts, lambda p, r: hrefs.get((p.label, r.name)), plotly=src),
                          encoding="utf-8")
    return {"index": index_path, "reports": written, "errors": errors}
