"""Trace tools: the libata-style log and a self-contained HTML report from a trace.jsonl.

  python3 -m satasim.render log TRACE_OR_RUN_DIR            # == satasim.log
  python3 -m satasim.render html TRACE_OR_RUN_DIR -o report.html

The HTML report has one SVG timeline per port: commands in flight (a step plot from the
qc.issue/qc.done cmd records, aggregated to one max/min column per pixel so 100k-record
traces stay small), EH phases (shaded from the first eh.* decision to EH complete / the
device configured / disabled), each EH decision as a tick, fault injections as red markers,
protocol violations as black markers, and the link speed (probe.link_up, eh.spd_limit).
The log follows.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from pathlib import Path

from .tracefmt import TraceError, address, iter_trace, log_line, trace_path

WIDTH = 1000          # plot width in px (one bucket per px)
LANE_H = 70           # in-flight plot height
MARGIN_L = 70


def render_log(path) -> str:
    """satasim.log as the trace sink wrote it, from trace.jsonl alone."""
    host, out = "", []
    for rec in iter_trace(path):
        if rec["src"] == "harness" and rec["ev"] == "run.start":
            host = str(rec["f"].get("log_prefix", rec["f"].get("controller", "")))
        line = log_line(rec, host)
        if line is not None:
            out.append(line)
    return "".join(out)


# ------------------------------------------------------------------------ model

EH_END = {"eh.complete", "eh.giveup", "dev.disabled", "probe.configured", "probe.link_down",
          "eh.reset_giveup"}


class PortLane:
    def __init__(self, name):
        self.name = name
        self.steps = []            # (t_ns, inflight) after each change
        self.inflight = 0
        self.outstanding = set()   # (dev, tag)
        self.cmds = 0
        self.eh_spans = []         # [t0, t1|None, [labels]]
        self.eh_ticks = []         # (t, ev, msg)
        self.faults = []           # (t, text)
        self.violations = []       # (t, text)
        self.speed = []            # (t, "6.0 Gbps")

    def _set(self, t, n):
        self.inflight = n
        self.steps.append((t, n))


def build_lanes(records):
    lanes, host, t_end, log = {}, "", 0, []

    def lane(rec):
        port = rec.get("port", -1)
        key = port if port >= 0 else -1
        if key not in lanes:
            lanes[key] = PortLane(f"ata{port + 1}" if port >= 0 else (host or "host"))
        return lanes[key]

    for rec in records:
        t, ev, cls, src = rec["t_ns"], rec["ev"], rec["cls"], rec["src"]
        t_end = max(t_end, t)
        if src == "harness" and ev == "run.start":
            host = str(rec["f"].get("log_prefix", rec["f"].get("controller", "")))
        line = log_line(rec, host)
        if line is not None:
            log.append(line)
        if cls == "cmd" and ev in ("qc.issue", "qc.done"):
            ln = lane(rec)
            k = (rec.get("dev", -1), rec["f"].get("tag"))
            if ev == "qc.issue":
                ln.cmds += 1
                if k not in ln.outstanding:
                    ln.outstanding.add(k)
                    ln._set(t, len(ln.outstanding))
            elif k in ln.outstanding:
                ln.outstanding.discard(k)
                ln._set(t, len(ln.outstanding))
        elif cls == "decision":
            ln = lane(rec)
            text = f"{address(rec, host)}: {rec.get('msg') or ev}"
            if ev.startswith("eh.") or ev in EH_END:
                if ev.startswith("eh."):
                    ln.eh_ticks.append((t, ev, text))
                    if not ln.eh_spans or ln.eh_spans[-1][1] is not None:
                        ln.eh_spans.append([t, None, []])
                    ln.eh_spans[-1][2].append(text)
                if ev in EH_END and ln.eh_spans and ln.eh_spans[-1][1] is None:
                    ln.eh_spans[-1][1] = t
                    ln.eh_spans[-1][2].append(text)
            if ev == "probe.link_up" or ev == "eh.spd_limit":
                sp = rec["f"].get("speed")
                if sp:
                    ln.speed.append((t, sp + ("" if ev == "probe.link_up" else " (limit)")))
        elif cls == "model":
            if ev.startswith("fault."):
                f = " ".join(f"{k}={v}" for k, v in rec["f"].items())
                lane(rec).faults.append((t, f"{src}:{ev} {rec.get('msg', '')} {f}".strip()))
            elif ev.endswith(".violation"):
                lane(rec).violations.append((t, f"{src}:{ev} {rec['f'].get('rule', '')}"))
    return lanes, t_end, log


def buckets(steps, t_end, width=WIDTH):
    """Per pixel column: (min, max) in-flight count over the column's time span."""
    if t_end <= 0:
        t_end = 1
    lo = [None] * width
    hi = [0] * width
    cur, i = 0, 0
    for col in range(width):
        c1 = (col + 1) * t_end / width
        mn = mx = cur
        while i < len(steps) and steps[i][0] < c1:
            cur = steps[i][1]
            mn, mx = min(mn, cur), max(mx, cur)
            i += 1
        lo[col], hi[col] = mn, mx
    return lo, hi


# ------------------------------------------------------------------------- SVG

def _x(t, t_end):
    return MARGIN_L + (t / t_end * WIDTH if t_end else 0)


def _fmt_t(t_ns):
    if t_ns >= 1_000_000_000:
        return f"{t_ns / 1e9:.3f} s"
    return f"{t_ns / 1e6:.3f} ms"


def lane_svg(ln: PortLane, t_end: int) -> str:
    t_end = max(t_end, 1)
    H = LANE_H + 60
    top = 18
    base = top + LANE_H
    peak = max((n for _, n in ln.steps), default=0)
    scale = LANE_H / max(peak, 1)
    e = html.escape
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{MARGIN_L + WIDTH + 20}" '
             f'height="{H}" class="lane">']
    parts.append(f'<text x="4" y="{top + 12}" class="lbl">{e(ln.name)}</text>')
    parts.append(f'<text x="4" y="{top + 28}" class="sm">peak {peak}</text>')
    parts.append(f'<text x="4" y="{top + 42}" class="sm">{ln.cmds} cmds</text>')
    parts.append(f'<rect x="{MARGIN_L}" y="{top}" width="{WIDTH}" height="{LANE_H}" class="bg"/>')
    for t0, t1, labels in ln.eh_spans:
        x0, x1 = _x(t0, t_end), _x(t1 if t1 is not None else t_end, t_end)
        title = e("\n".join(labels[:40]) + ("\n..." if len(labels) > 40 else ""))
        parts.append(f'<rect x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 1.5):.1f}" '
                     f'height="{LANE_H}" class="eh"><title>EH {_fmt_t(t0)}: {title}</title></rect>')
    if ln.steps:
        lo, hi = buckets(ln.steps, t_end)
        pts_hi = [f"{MARGIN_L + i},{base - v * scale:.1f}" for i, v in enumerate(hi)]
        pts_lo = [f"{MARGIN_L + i},{base - v * scale:.1f}" for i, v in reversed(list(enumerate(lo)))]
        parts.append(f'<polygon points="{" ".join(pts_hi + pts_lo)}" class="band"/>')
        parts.append(f'<polyline points="{" ".join(pts_hi)}" class="inflight"/>')
    for t, ev, text in ln.eh_ticks:
        x = _x(t, t_end)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + 8}" class="tick">'
                     f'<title>{_fmt_t(t)} {e(text)}</title></line>')
    for t, text in ln.faults:
        x = _x(t, t_end)
        parts.append(f'<path d="M{x:.1f},{top - 2} l-5,-9 h10 z" class="fault">'
                     f'<title>{_fmt_t(t)} {e(text)}</title></path>')
    for t, text in ln.violations:
        x = _x(t, t_end)
        parts.append(f'<circle cx="{x:.1f}" cy="{top - 7}" r="4" class="viol">'
                     f'<title>{_fmt_t(t)} {e(text)}</title></circle>')
    # link speed band
    sy = base + 6
    for i, (t, sp) in enumerate(ln.speed):
        x0 = _x(t, t_end)
        x1 = _x(ln.speed[i + 1][0], t_end) if i + 1 < len(ln.speed) else MARGIN_L + WIDTH
        cls = "spd3" if sp.startswith("6.0") else "spd2" if sp.startswith("3.0") else "spd1"
        parts.append(f'<rect x="{x0:.1f}" y="{sy}" width="{max(x1 - x0, 1):.1f}" height="12" '
                     f'class="{cls}"><title>{_fmt_t(t)} link {e(sp)}</title></rect>')
        parts.append(f'<text x="{x0 + 3:.1f}" y="{sy + 10}" class="sm">{e(sp)}</text>')
    # axis
    ay = sy + 28
    parts.append(f'<line x1="{MARGIN_L}" y1="{ay - 8}" x2="{MARGIN_L + WIDTH}" y2="{ay - 8}" class="axis"/>')
    for k in range(6):
        t = t_end * k / 5
        x = _x(t, t_end)
        parts.append(f'<text x="{x:.1f}" y="{ay + 4}" class="sm" text-anchor="middle">'
                     f'{_fmt_t(int(t))}</text>')
    parts.append("</svg>")
    return "".join(parts)


CSS = """
body{font-family:sans-serif;margin:1em 2em;color:#222}
h1{font-size:1.3em} h2{font-size:1.1em;margin-top:1.5em}
pre{background:#f6f6f6;padding:.6em;font-size:12px;overflow-x:auto}
.lbl{font:bold 13px monospace}.sm{font:10px sans-serif;fill:#444}
.bg{fill:#fbfbfb;stroke:#ccc}.eh{fill:#ffd54f;opacity:.45}
.band{fill:#90caf9;stroke:none}.inflight{fill:none;stroke:#1565c0;stroke-width:1}
.tick{stroke:#e65100;stroke-width:1.5}.fault{fill:#d32f2f}.viol{fill:#000}
.spd3{fill:#c8e6c9}.spd2{fill:#fff9c4}.spd1{fill:#ffccbc}.axis{stroke:#999}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 8px}
.legend span{display:inline-block;margin-right:1.2em;font-size:12px}
.sw{display:inline-block;width:12px;height:12px;vertical-align:middle;margin-right:4px}
"""


def render_html(path, title=None) -> str:
    path = trace_path(path)
    lanes, t_end, log = build_lanes(iter_trace(path))
    res = None
    rp = path.parent / "result.json"
    if rp.exists():
        try:
            res = json.loads(rp.read_text())
        except (OSError, json.JSONDecodeError):
            res = None
    name = title or (res or {}).get("name") or path.parent.name
    e = html.escape
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
           f"<title>satasim: {e(name)}</title><style>{CSS}</style></head><body>",
           f"<h1>satasim run: {e(name)}</h1>"]
    if res:
        ctrl = res.get("controller") or {}
        rows = [("verdict", res.get("verdict")),
                ("reasons", "; ".join(res.get("reasons") or []) or "-"),
                ("controller", f"{ctrl.get('type')} ({ctrl.get('ports')} ports)" if isinstance(ctrl, dict) else ctrl),
                ("seed", res.get("seed")), ("commands", res.get("commands")),
                ("simulated time", _fmt_t(int(res.get("sim_time_ns", 0)))),
                ("EH runs", res.get("eh_runs"))]
        out.append("<table>" + "".join(f"<tr><th>{e(str(k))}</th><td>{e(str(v))}</td></tr>"
                                        for k, v in rows) + "</table>")
    out.append(f"<p>trace: {e(str(path))}, simulated 0 .. {_fmt_t(t_end)}</p>")
    out.append('<p class="legend"><span><i class="sw" style="background:#90caf9"></i>'
               'commands in flight (min..max per pixel)</span><span><i class="sw" '
               'style="background:#ffd54f"></i>EH phase</span><span><i class="sw" '
               'style="background:#e65100"></i>EH decision</span><span><i class="sw" '
               'style="background:#d32f2f"></i>fault injected</span><span><i class="sw" '
               'style="background:#000"></i>protocol violation</span><span><i class="sw" '
               'style="background:#c8e6c9"></i>link speed</span></p>')
    out.append("<h2>Timeline per port</h2>")
    for key in sorted(lanes):
        out.append("<div>" + lane_svg(lanes[key], t_end) + "</div>")
    out.append("<h2>Log</h2><pre>" + e("".join(log)) + "</pre></body></html>\n")
    return "".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.render",
                                 description="Render a trace.jsonl as a log or an HTML report.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("log", help="the libata-style log (equals satasim.log)")
    p.add_argument("trace", metavar="TRACE_OR_RUN_DIR")
    p = sub.add_parser("html", help="self-contained HTML report with SVG timelines")
    p.add_argument("trace", metavar="TRACE_OR_RUN_DIR")
    p.add_argument("-o", "--output", default="report.html")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "log":
            sys.stdout.write(render_log(trace_path(args.trace)))
        else:
            Path(args.output).write_text(render_html(args.trace), encoding="utf-8")
            print(f"wrote {args.output}")
    except TraceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
