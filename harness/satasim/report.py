"""Suite outputs: a summary table and JUnit XML from a satasim run's summary.json.

  python3 -m satasim.report out/suite                    # table
  python3 -m satasim.report out/suite/summary.json --junit out/suite/junit.xml
  python3 -m satasim.report out/suite --golden-dir golden # + a golden testcase per golden
  python3 -m satasim.report --suite ahci=out/suite --suite sil24=out/suite-sil24 \
      --junit out/suite/junit.xml --golden-dir golden   # several runs: one table, one total

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


@dataclass
class Part:
    """One run of a multi-suite report (--suite LABEL=OUT_DIR)."""
    label: str
    out_dir: Path
    summary: dict
    rows: list
    skipped: list   # (name or file, why): left out by the adapter or by --skip-refused


def load_part(label: str, arg: str, golden_dir) -> Part:
    out_dir, summary, rows = load_rows(arg)
    if golden_dir:
        add_goldens(out_dir, rows, golden_dir)
    skipped = [(s.get("name", "?"), (s.get("reasons") or ["skipped"])[0]) for s in summary.get("skipped_scenarios", [])]
    adapt = out_dir / "adapt-skipped.json"   # tools/run_suite.sh: satasim.controllers adapt --skipped-out
    if adapt.exists():
        try:
            skipped += [(Path(s["file"]).stem, s["why"]) for s in json.loads(adapt.read_text())]
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
            raise TraceError(adapt, 0, f"not the adapter's list of skipped scenarios ({e})") from None
    return Part(label, out_dir, summary, rows, skipped)


def multi_table(parts) -> str:
    """One table over every part's runs (a suite column), each failure once, the skipped per
    part in one line each, and one grand total."""
    head = ("suite", "scenario", "topology", "verdict", "EH decisions", "sim time", "wall time", "golden", "observed")
    body = [(p.label, r.name, r.topology, r.verdict.upper(), "?" if r.eh_decisions is None else str(r.eh_decisions),
             _fmt_time(r.sim_time_ns), f"{r.wall_time_s:.2f}s", r.golden, r.observed or "-")
            for p in parts for r in p.rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
    right = {4, 5, 6}

    def fmt(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    lines = [fmt(head), fmt(tuple("-" * w for w in widths))] + [fmt(b) for b in body]
    runs = [(p, r) for p in parts for r in p.rows]
    failed = [(p, r) for p, r in runs if r.verdict != "pass"]
    gbad = [(p, r) for p, r in runs if r.golden in ("MISMATCH", "ERROR")]
    for p, r in failed:
        lines.append(f"FAIL {p.label}/{r.name}: {'; '.join(r.reasons) or r.verdict}")
    for p in parts:
        if p.skipped:
            lines.append(f"skipped on {p.label} ({len(p.skipped)}): " +
                         ", ".join(name for name, _ in p.skipped) + f" (why: {p.out_dir}/adapt-skipped.json)")
    nskip = sum(len(p.skipped) for p in parts)
    ng = sum(1 for _, r in runs if r.golden != "-")
    wall = sum(float(p.summary.get("wall_time_s", 0.0)) for p in parts)
    tail = (f"total: {len(runs) - len(failed)} passed, {len(failed)} failed, {nskip} skipped "
            f"({len(runs)} runs in {len(parts)} suites)")
    if ng:
        tail += f"; goldens: {ng - len(gbad)} match, {len(gbad)} mismatch"
    tail += f"; wall time {wall:.2f}s"
    return "\n".join(lines + [tail]) + "\n"


def multi_junit(parts) -> str:
    """One JUnit file: a testsuite per part, its skipped scenarios as skipped testcases."""
    root = ET.Element("testsuites")
    for p in parts:
        one = ET.fromstring(junit(p.rows, p.summary, f"satasim.{p.label}").split("\n", 1)[1])
        ts = one.find("testsuite")
        for name, why in p.skipped:
            tc = ET.SubElement(ts, "testcase", classname=f"satasim.{p.label}", name=name, time="0")
            ET.SubElement(tc, "skipped", message=why)
        ts.set("tests", str(len(ts.findall("testcase"))))
        ts.set("skipped", str(len(p.skipped)))
        root.append(ts)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def main_multi(args) -> int:
    try:
        parts = []
        for s in args.suite:
            label, sep, d = s.partition("=")
            if not sep or not label or not d:
                print(f"error: --suite {s}: expected LABEL=OUT_DIR", file=sys.stderr)
                return 2
            parts.append(load_part(label, d, args.golden_dir))
    except TraceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(multi_table(parts))
    if args.show_diffs:
        for p in parts:
            for r in p.rows:
                if r.golden_diff:
                    print(f"\n{p.label}/{r.name}: golden {r.golden}")
                    sys.stdout.write(r.golden_diff if r.golden_diff.endswith("\n") else r.golden_diff + "\n")
    if args.junit:
        Path(args.junit).parent.mkdir(parents=True, exist_ok=True)
        Path(args.junit).write_text(multi_junit(parts), encoding="utf-8")
        print(f"JUnit XML: {args.junit}")
    bad = any(r.verdict != "pass" or r.golden in ("MISMATCH", "ERROR") for p in parts for r in p.rows)
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.report",
                                 description="Summary table and JUnit XML of a satasim run.")
    ap.add_argument("summary", metavar="SUMMARY_OR_OUT_DIR", nargs="?")
    ap.add_argument("--suite", action="append", metavar="LABEL=OUT_DIR",
                    help="several runs (repeatable): one table with a suite column, one grand total with the "
                         "skipped, one JUnit file with a testsuite each")
    ap.add_argument("--junit", metavar="FILE", help="write JUnit XML here")
    ap.add_argument("--golden-dir", metavar="DIR",
                    help="also compare each scenario that has a golden in DIR")
    ap.add_argument("--show-diffs", action="store_true",
                    help="print the diff of every golden mismatch after the table")
    args = ap.parse_args(argv)
    if args.suite:
        if args.summary:
            ap.error("give either SUMMARY_OR_OUT_DIR or --suite, not both")
        return main_multi(args)
    if not args.summary:
        ap.error("SUMMARY_OR_OUT_DIR or --suite is required")
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
