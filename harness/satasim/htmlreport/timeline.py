"""A run's timeline: one lane per device from trace.jsonl, and the plotly figure drawing it.

Lanes (issue 34): a device's records (dev, or a PMP fan-out link) go to the device's lane
(ata1.00, ata1.01, ...: PMP disks their own lanes); a port's own records (resets, the host
link, the PMP's control port, link 15) go to the device's lane when the port has exactly
one device and no PMP, else to the port's lane (ata1); host-wide records to "host".

What a lane holds:
- commands in flight per lane: qc.issue adds (lane, tag), qc.done removes it, and so does
  eh.failed_qc (EH fails a command without a qc.done record: counting it on was the
  "peak 33 at queue depth 32" of issue 34; a retry is a new qc.issue);
- EH phases (first eh.* decision .. EH complete / give-up / disabled / configured / link
  down), each EH decision, fault injections, protocol violations;
- the link speed (probe.link_up, eh.spd_limit) as a band under the plot, named on hover
  and in the legend (no text labels on the plot: at any zoom they overlapped).
The command count of a lane is the table's: workload commands completed, prefill included
(result.json's workloads); what the stack issued (internal commands and EH retries too) is
named beside it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..tracefmt import address, ata_name

EH_END = {"eh.complete", "eh.giveup", "dev.disabled", "probe.configured", "probe.link_down",
          "eh.reset_giveup"}
PMP_CTRL_LINK = 15
MAX_POINTS = 6000        # in-flight steps drawn as they are up to this many, else min..max buckets
BUCKETS = 2000
SPEED_COLORS = {"6.0": "#66bb6a", "3.0": "#fdd835", "1.5": "#ff8a65"}


@dataclass
class Lane:
    key: str                      # "ata1.00", "ata1", "host"
    port: int
    kind: str                     # "device", "port", "host"
    steps: list = field(default_factory=list)        # (t_ns, in flight) after each change
    outstanding: set = field(default_factory=set)
    issued: int = 0               # qc.issue records (internal commands and retries included)
    retries: int = 0              # eh.retry decisions
    workload_cmds: int | None = None   # the table's count (result.json workloads), None: unknown
    eh_spans: list = field(default_factory=list)     # [t0, t1|None, [texts]]
    eh_ticks: list = field(default_factory=list)     # (t, ev, text)
    faults: list = field(default_factory=list)       # (t, text)
    violations: list = field(default_factory=list)   # (t, text)
    speed: list = field(default_factory=list)        # (t, "6.0 Gbps", limited)

    @property
    def peak(self) -> int:
        return max((n for _, n in self.steps), default=0)

    def busy(self) -> bool:
        return bool(self.steps or self.eh_ticks or self.faults or self.violations or self.speed)


@dataclass
class Timeline:
    lanes: list                   # Lane, in port / device order
    t_end: int
    probe_end: int | None         # simulated time the first workload started (the boot probe before)
    host: str


def _device_names(result) -> list[tuple[int, str]]:
    out = []
    for d in (result or {}).get("devices") or []:
        if isinstance(d, dict) and "port" in d:
            pm = d.get("pmp_port")
            out.append((int(d["port"]), d.get("name") or ata_name(int(d["port"]), -1 if pm is None else int(pm), 0)))
    return out


def build_timeline(records, result=None) -> Timeline:
    """Lanes from the records of a trace (one pass; records may be a generator)."""
    records = list(records)
    pmp_ports = {r["port"] for r in records if r.get("link", -1) >= 0 and r["port"] >= 0}
    devs_per_port: dict[int, set] = {}
    for port, name in _device_names(result):
        devs_per_port.setdefault(port, set()).add(name)
        if "." in name and int(name.split(".")[1]) > 0:
            pmp_ports.add(port)
    for r in records:
        if r["port"] >= 0 and (r.get("dev", -1) >= 0 or 0 <= r.get("link", -1) < PMP_CTRL_LINK):
            devs_per_port.setdefault(r["port"], set()).add(
                ata_name(r["port"], r.get("link", -1), max(r.get("dev", -1), 0)))

    lanes: dict[str, Lane] = {}
    host = ""

    def lane_of(rec) -> Lane:
        port = rec.get("port", -1)
        if port < 0:
            key, kind = "host", "host"
        else:
            link, dev = rec.get("link", -1), rec.get("dev", -1)
            if dev >= 0 or 0 <= link < PMP_CTRL_LINK:
                key, kind = ata_name(port, link, max(dev, 0)), "device"
            elif port not in pmp_ports and len(devs_per_port.get(port, ())) == 1:
                key, kind = next(iter(devs_per_port[port])), "device"
            else:
                key, kind = ata_name(port), "port"
        ln = lanes.get(key)
        if ln is None:
            ln = lanes[key] = Lane(key, port, kind)
        return ln

    # every device of the result gets its lane, busy or not (the table lists it)
    for port, name in _device_names(result):
        lanes.setdefault(name, Lane(name, port, "device"))

    t_end, probe_end = 0, None
    for rec in records:
        t, ev, cls, src = rec["t_ns"], rec["ev"], rec["cls"], rec["src"]
        t_end = max(t_end, t)
        f = rec["f"]
        if src == "harness":
            if ev == "run.start":
                host = str(f.get("log_prefix", f.get("controller", "")))
            elif ev == "workload.start" and probe_end is None:
                probe_end = t
            continue
        if cls == "cmd" and ev in ("qc.issue", "qc.done"):
            ln = lane_of(rec)
            k = f.get("tag")
            if ev == "qc.issue":
                ln.issued += 1
                if k not in ln.outstanding:
                    ln.outstanding.add(k)
                    ln.steps.append((t, len(ln.outstanding)))
            elif k in ln.outstanding:
                ln.outstanding.discard(k)
                ln.steps.append((t, len(ln.outstanding)))
        elif cls == "decision":
            ln = lane_of(rec)
            if ev == "eh.failed_qc" and f.get("tag") in ln.outstanding:
                ln.outstanding.discard(f.get("tag"))
                ln.steps.append((t, len(ln.outstanding)))
            if ev == "eh.retry":
                ln.retries += 1
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
            if ev in ("probe.link_up", "eh.spd_limit"):
                sp = f.get("speed")
                if sp:
                    ln.speed.append((t, sp, ev == "eh.spd_limit"))
        elif cls == "model":
            if ev.startswith("fault."):
                fs = " ".join(f"{k}={v}" for k, v in f.items())
                lane_of(rec).faults.append((t, f"{src}:{ev} {rec.get('msg', '')} {fs}".strip()))
            elif ev.endswith(".violation"):
                lane_of(rec).violations.append((t, f"{src}:{ev} {f.get('rule', '')}".strip()))

    # the table's command count per device lane
    for w in (result or {}).get("workloads") or []:
        if not isinstance(w, dict) or "device" not in w:
            continue
        name = _workload_lane(w, result)
        if name in lanes:
            ln = lanes[name]
            ln.workload_cmds = (ln.workload_cmds or 0) + int(w.get("completed") or 0) + int(w.get("prefill_commands") or 0)
    if result:
        for ln in lanes.values():
            if ln.kind == "device" and ln.workload_cmds is None:
                ln.workload_cmds = 0

    # a fan-out link's records without a device there (an empty PMP port): a lane of its own kind
    names = {name for _, name in _device_names(result)}
    if result:
        for ln in lanes.values():
            if ln.kind == "device" and ln.key not in names:
                ln.kind, ln.workload_cmds = "link", None
    order = sorted(lanes.values(), key=lambda ln: (ln.port, ln.kind != "port", ln.key))
    keep = [ln for ln in order if (ln.kind == "device" and ln.key in names) or not result and ln.kind == "device"
            or ln.busy()]
    return Timeline(keep, t_end, probe_end, host)


def _workload_lane(w, result) -> str:
    """The lane (device name) of a workload: `device` is the host port (scenarios/README.md),
    with `pmp_port` behind a port multiplier or `devno` 1 for a PATA-style slave."""
    pm, devno = w.get("pmp_port"), w.get("devno")
    return ata_name(int(w["device"]), -1 if pm is None else int(pm), int(devno or 0))


# ------------------------------------------------------------------------ figure

def _sec(t_ns):
    return t_ns / 1e9


def _fmt_t(t_ns):
    return f"{t_ns / 1e9:.6f} s" if t_ns < 1_000_000_000 else f"{t_ns / 1e9:.3f} s"


def decimate(steps, t_end, buckets=BUCKETS):
    """Step points for the plot: as they are when few, else per time bucket its min and max
    (a spike survives), so a 100k-command trace stays a small page."""
    if len(steps) <= MAX_POINTS:
        return [s[0] for s in steps], [s[1] for s in steps]
    t_end = max(t_end, 1)
    xs, ys = [], []
    cur, i = 0, 0
    for col in range(buckets):
        c0, c1 = col * t_end / buckets, (col + 1) * t_end / buckets
        mn = mx = cur
        while i < len(steps) and steps[i][0] < c1:
            cur = steps[i][1]
            mn, mx = min(mn, cur), max(mx, cur)
            i += 1
        xs += [c0, c0 + (c1 - c0) / 2]
        ys += [mx, mn if mn != mx else cur]
    return xs, ys


def lane_label(ln: Lane) -> str:
    if ln.kind == "device":
        if ln.workload_cmds is not None:
            return f"{ln.key}: peak {ln.peak}, {ln.workload_cmds} cmds"
        return f"{ln.key}: peak {ln.peak}, {ln.issued} issued"
    what = {"port": "port / PMP", "link": "fan-out link, no device", "host": "controller"}[ln.kind]
    return f"{ln.key} ({what})"


def figure(tl: Timeline):
    """The plotly figure: a row per lane sharing the time axis (zoom and pan together)."""
    from plotly.subplots import make_subplots
    import plotly.graph_objects as go

    n = max(len(tl.lanes), 1)
    fig = make_subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=min(0.04, 0.3 / n),
                        subplot_titles=[lane_label(ln) for ln in tl.lanes] or ["(no lanes)"])
    shown = set()

    def legend(name):
        first = name not in shown
        shown.add(name)
        return dict(legendgroup=name, name=name, showlegend=first)

    t_end = max(tl.t_end, 1)
    for row, ln in enumerate(tl.lanes, 1):
        top = max(ln.peak, 1)
        if ln.steps:
            xs, ys = decimate(ln.steps, t_end)
            xs = [0.0] + [_sec(x) for x in xs] + [_sec(t_end)]
            ys = [0] + ys + [ys[-1]]
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(shape="hv", color="#1565c0", width=1),
                                     fill="tozeroy", fillcolor="rgba(144,202,249,0.6)",
                                     hovertemplate="%{y} in flight at %{x:.6f} s<extra>" + ln.key + "</extra>",
                                     **legend("commands in flight")), row=row, col=1)
        for t0, t1, texts in ln.eh_spans:
            t1 = t_end if t1 is None else t1
            x0, x1 = _sec(t0), _sec(max(t1, t0 + t_end // 2000))
            fig.add_trace(go.Scatter(x=[x0, x0, x1, x1, x0], y=[0, top, top, 0, 0], mode="lines",
                                     fill="toself", fillcolor="rgba(255,213,79,0.45)", line=dict(width=0),
                                     hoveron="fills", text=f"EH {_fmt_t(t0)} .. {_fmt_t(t1)}",
                                     hoverinfo="text", **legend("EH phase")), row=row, col=1)
        if ln.eh_ticks:
            fig.add_trace(go.Scatter(x=[_sec(t) for t, _, _ in ln.eh_ticks], y=[top * 1.08] * len(ln.eh_ticks),
                                     mode="markers", marker=dict(symbol="line-ns-open", size=10, color="#e65100",
                                                                 line=dict(width=2)),
                                     text=[f"{_fmt_t(t)} {x}" for t, _, x in ln.eh_ticks], hoverinfo="text",
                                     **legend("EH decision")), row=row, col=1)
        if ln.faults:
            fig.add_trace(go.Scatter(x=[_sec(t) for t, _ in ln.faults], y=[top * 1.2] * len(ln.faults),
                                     mode="markers", marker=dict(symbol="triangle-down", size=10, color="#d32f2f"),
                                     text=[f"{_fmt_t(t)} {x}" for t, x in ln.faults], hoverinfo="text",
                                     **legend("fault injected")), row=row, col=1)
        if ln.violations:
            fig.add_trace(go.Scatter(x=[_sec(t) for t, _ in ln.violations], y=[top * 1.2] * len(ln.violations),
                                     mode="markers", marker=dict(symbol="x", size=9, color="#000"),
                                     text=[f"{_fmt_t(t)} {x}" for t, x in ln.violations], hoverinfo="text",
                                     **legend("protocol violation")), row=row, col=1)
        # link speed: a band under the plot, one trace per speed (legend names it)
        by_speed: dict[str, tuple[list, list, list]] = {}
        for i, (t, sp, limited) in enumerate(ln.speed):
            t1 = ln.speed[i + 1][0] if i + 1 < len(ln.speed) else t_end
            xs, ys, tx = by_speed.setdefault(sp, ([], [], []))
            lo, hi = -0.16 * top, -0.04 * top
            xs += [_sec(t), _sec(t), _sec(max(t1, t + 1)), _sec(max(t1, t + 1)), _sec(t), None]
            ys += [lo, hi, hi, lo, lo, None]
            what = f"link {sp}{' (speed limited by EH)' if limited else ''} from {_fmt_t(t)}"
            tx += [what] * 5 + [None]
        for sp, (xs, ys, tx) in by_speed.items():
            color = SPEED_COLORS.get(sp.split()[0], "#bdbdbd")
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", fill="toself", fillcolor=color,
                                     line=dict(width=0.5, color=color), text=tx, hoveron="fills+points",
                                     hoverinfo="text", **legend(f"link {sp}")), row=row, col=1)
        fig.update_yaxes(range=[-0.2 * top, top * 1.3], row=row, col=1, fixedrange=True,
                         tickformat="d", tick0=0, dtick=max(1, round(top / 4)), title_text="in flight" if row == 1 else None)
    fig.update_xaxes(title_text="simulated time (s)", row=n, col=1, automargin=True)
    fig.update_xaxes(showspikes=True, spikemode="across", spikethickness=1)
    fig.update_yaxes(automargin=True)
    for a in fig.layout.annotations:          # the lane titles: left-aligned, readable
        a.update(x=0, xanchor="left", font=dict(size=12, family="monospace"))
    fig.update_layout(height=120 + 150 * n, margin=dict(l=70, r=40, t=40, b=60),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0 + 30 / (120 + 150 * n), x=0),
                      hovermode="closest", dragmode="zoom", plot_bgcolor="#fbfbfb",
                      uirevision="timeline")
    return fig


def figure_json(tl: Timeline) -> str:
    """The figure as JSON safe inside a <script> element."""
    return figure(tl).to_json().replace("</", "<\\/")


def dumps(obj) -> str:
    """JSON for a <script type="application/json"> block (no "</" to end the element)."""
    return json.dumps(obj, separators=(",", ":")).replace("</", "<\\/")
