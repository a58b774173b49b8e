"""Suite outputs: a summary table and JUnit XML from a satasim run's summary.json.

  python3 -m satasim.report out/suite                    # table
  python3 -m satasim.report out/suite/summary.json --junit out/suite/junit.xml
  python3 -m satasim.report out/suite --golden-dir golden # + a golden testcase per golden

Exit status: 0 all passed, 1 a scenario (or golden) failed, 2 unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .tracefmt import TraceError, iter_trace


@dataclass
class Row:
    name: str
    file: str
    controller: str
    topology: str
    verdict: str
    reasons: list
    eh_decisions: int | None
    sim_time_ns: int
    wall_time_s: float
    commands: int
    golden: str = "-"          # "match", "MISMATCH", "-" (none)
    # beyond pass/fail: "io_errors 1204, disabled ata1.02, fault0 fired 1/3" (result.json
    # "observed": I/O errors, disks disabled at the end, faults short of their count)
    observed: str = ""
    golden_diff: str = ""
    extra: dict = field(default_factory=dict)


def _eh_decisions(trace) -> int | None:
    """EH decision records (cls decision, ev eh.*) in a trace; None if there is no trace."""
    if not Path(trace).exists():
        return None
    n = 0
    try:
        for rec in iter_trace(trace, lambda ln: '"eh.' in ln):
            if rec["cls"] == "decision" and rec["ev"].startswith("eh."):
                n += 1
    except TraceError:
        return None   # a crashed run's truncated trace: the verdict already says so
    return n


def load_rows(arg) -> tuple[Path, dict, list[Row]]:
    p = Path(arg)
    sp = p / "summary.json" if p.is_dir() else p
    try:
        summary = json.loads(sp.read_text())
    except OSError as e:
        raise TraceError(sp, 0, f"cannot read summary: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise TraceError(sp, e.lineno, f"bad JSON: {e.msg}") from None
    out_dir = sp.parent
    rows = []
    for s in summary.get("scenarios", []):
        name = s["name"]
        ctrl = s.get("controller", "?")
        ports, disks = s.get("ports", "?"), s.get("devices", "?")
        topo = f"{ctrl} {ports}p, {disks} disk{'' if disks == 1 else 's'}"
        rows.append(Row(name, s.get("file", ""), ctrl, topo, s.get("verdict", "?"),
                        list(s.get("reasons") or []),
                        _eh_decisions(out_dir / name / "trace.jsonl"),
                        int(s.get("sim_time_ns") or 0), float(s.get("wall_time_s") or 0.0),
                        int(s.get("commands") or 0),
                        observed=_observed(s, out_dir / name / "result.json")))
    return out_dir, summary, rows


def _observed(entry, result_path) -> str:
    """The scenario's "observed" text: from summary.json, else from its result.json."""
    if "observed" in entry:
        return entry["observed"] or ""
    try:
        return json.loads(Path(result_path).read_text()).get("observed") or ""
    except (OSError, json.JSONDecodeError):
        return ""


def add_goldens(out_dir, rows, golden_dir, tol=None):
    from .golden import compare_run, format_comparison
    for r in rows:
        run_dir = Path(out_dir) / r.name
        if not (run_dir / "result.json").exists():
            continue
        try:
            c = compare_run(run_dir, golden_dir, tol)   # None: the run's tolerance
        except TraceError as e:
            r.golden, r.golden_diff = "ERROR", str(e)
            continue
        if c is None:
            continue
        r.golden = "match" if c.ok else "MISMATCH"
        r.golden_diff = "" if c.ok else format_comparison(c)


def _fmt_time(ns: int) -> str:
    return f"{ns / 1e9:.3f}s"


def table(rows, summary) -> str:
    head = ("scenario", "controller", "topology", "verdict", "EH decisions", "sim time",
            "wall time", "golden")
    body = [(r.name, r.controller, r.topology, r.verdict.upper(),
             "?" if r.eh_decisions is None else str(r.eh_decisions),
             _fmt_time(r.sim_time_ns), f"{r.wall_time_s:.2f}s", r.golden) for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h)
              for i, h in enumerate(head)]
    right = {4, 5, 6}

    def fmt(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    lines = [fmt(head), fmt(tuple("-" * w for w in widths))] + [fmt(b) for b in body]
    failed = [r for r in rows if r.verdict != "pass"]
    gbad = [r for r in rows if r.golden in ("MISMATCH", "ERROR")]
    for r in failed:
        lines.append(f"FAIL {r.name}: {'; '.join(r.reasons) or r.verdict}")
    # What a verdict alone hides: I/O errors, disabled disks, faults short of their count.
    for r in rows:
        if r.observed:
            lines.append(f"{r.verdict.upper()} {r.name} with {r.observed}")
    total = summary.get("total", len(rows))
    tail = f"{total - len(failed)} passed, {len(failed)} failed"
    ng = sum(1 for r in rows if r.golden != "-")
    if ng:
        tail += f"; goldens: {ng - len(gbad)} match, {len(gbad)} mismatch"
    if "wall_time_s" in summary:
        tail += f"; suite wall time {float(summary['wall_time_s']):.2f}s"
    return "\n".join(lines + [tail]) + "\n"


def junit(rows, summary, suite_name="satasim") -> str:
    cases = []
    for r in rows:
        tc = ET.Element("testcase", classname=f"{suite_name}.{r.controller}", name=r.name,
                        time=f"{r.wall_time_s:.3f}", file=r.file)
        props = ET.SubElement(tc, "properties")
        for k, v in (("topology", r.topology), ("sim_time_ns", r.sim_time_ns),
                     ("commands", r.commands), ("eh_decisions", r.eh_decisions),
                     ("observed", r.observed)):
            ET.SubElement(props, "property", name=k, value=str(v))
        if r.verdict != "pass":
            msg = "; ".join(r.reasons) or r.verdict
            f = ET.SubElement(tc, "failure", message=msg, type=r.verdict)
            f.text = "\n".join(r.reasons) or r.verdict
        cases.append(tc)
        if r.golden != "-":
            g = ET.Element("testcase", classname=f"{suite_name}.golden", name=r.name, time="0")
            if r.golden != "match":
                f = ET.SubElement(g, "failure", message=f"golden {r.golden.lower()}",
                                  type="golden")
                f.text = r.golden_diff
            cases.append(g)
    failures = sum(1 for c in cases if c.find("failure") is not None)
    ts = ET.Element("testsuite", name=suite_name, tests=str(len(cases)),
                    failures=str(failures), errors="0", skipped="0",
                    time=f"{float(summary.get('wall_time_s', 0.0)):.3f}")
    ts.extend(cases)
    root = ET.Element("testsuites")
    root.append(ts)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.report",
                                 description="Summary table and JUnit XML of a satasim run.")
    ap.add_argument("summary", metavar="SUMMARY_OR_OUT_DIR")
    ap.add_argument("--junit", metavar="FILE", help="write JUnit XML here")
    ap.add_argument("--golden-dir", metavar="DIR",
                    help="also compare each scenario that has a golden in DIR")
    ap.add_argument("--show-diffs", action="store_true",
                    help="print the diff of every golden mismatch after the table")
    args = ap.parse_args(argv)
    try:
        out_dir, summary, rows = load_rows(args.summary)
        if args.golden_dir:
            add_goldens(out_dir, rows, args.golden_dir)
    except TraceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(table(rows, summary))
    if args.show_diffs:
        for r in rows:
            if r.golden_diff:
                print(f"\n{r.name}: golden {r.golden}")
                sys.stdout.write(r.golden_diff if r.golden_diff.endswith("\n")
                                 else r.golden_diff + "\n")
    if args.junit:
        Path(args.junit).parent.mkdir(parents=True, exist_ok=True)
        Path(args.junit).write_text(junit(rows, summary), encoding="utf-8")
        print(f"JUnit XML: {args.junit}")
    bad = any(r.verdict != "pass" or r.golden in ("MISMATCH", "ERROR") for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
