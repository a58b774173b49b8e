"""The AHCI register conformance suite (scenarios/conformance/) and the conformance report of
a target: the checks the scenarios' steps assert, each with its AHCI 1.3.1 section; how a
run of them fared on a target, step by step; the known, classified differences of each
target (harness/tests/conformance_known_differences.yaml); the report (JSON and HTML) that
tools/conformance writes (docs/rtl-controller.md, "Conformance report").

A check is one rule of the specification that steps assert: the trailing comment of an
asserting step names it, `# §SECTION ID: what it asserts`. Steps that assert the same rule
(the reserved dwords of one area, the same poll in several scenarios) share the ID and
count once: the suite's size is the number of distinct IDs."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .results import ROOT

SUITE = ROOT / "scenarios" / "conformance"
KNOWN = ROOT / "harness" / "tests" / "conformance_known_differences.yaml"
CLASSES = ("required", "optional")
# the step kinds that assert something (mmio_read only with `expect`)
ASSERTING = ("mmio_read", "poll", "wait_irq", "mem_expect", "expect_trace")
CHECK_COMMENT = re.compile(r"#\s*§(?P<section>\d+(?:\.\d+)*)\s+(?P<id>[a-z0-9][a-z0-9.-]*):\s*(?P<text>\S.*)$")
STEP_REF = re.compile(r"^(?P<file>\S+):(?P<line>\d+): steps\[(?P<index>\d+)\] (?P<kind>\w+): (?P<msg>.*)$")


class CatalogueError(ValueError):
    """A conformance scenario whose asserting step lacks its check comment (file:line)."""


@dataclass
class Step:
    index: int
    line: int
    kind: str
    check: str | None      # the check ID (None: a step that asserts nothing)
    section: str = ""
    text: str = ""


@dataclass
class Scenario:
    name: str              # the scenario's `name`
    path: Path
    ports: int
    steps: list[Step] = field(default_factory=list)

    def checks(self) -> dict[str, list[Step]]:
        out: dict[str, list[Step]] = {}
        for s in self.steps:
            if s.check:
                out.setdefault(s.check, []).append(s)
        return out


def _asserts(kind: str, body) -> bool:
    if kind == "mmio_read":
        return isinstance(body, dict) and "expect" in body
    return kind in ASSERTING


def load_scenario(path: Path) -> Scenario:
    """The scenario's steps with their checks; CatalogueError for an asserting step without a
    check comment, or a comment on a step that asserts nothing."""
    path = Path(path)
    text = path.read_text()
    lines = text.split("\n")
    doc = yaml.safe_load(text)
    root = yaml.compose(text)
    steps_node = next(v for k, v in root.value if k.value == "steps")
    sc = Scenario(doc["name"], path, int(doc.get("controller", {}).get("ports", 1)))
    for i, (item, node) in enumerate(zip(doc["steps"], steps_node.value)):
        kind, body = next(iter(item.items()))
        line = node.start_mark.line + 1
        src = lines[line - 1]
        m = CHECK_COMMENT.search(src)
        asserts = _asserts(kind, body)
        if asserts and not m:
            raise CatalogueError(f"{path}:{line}: steps[{i}] {kind} asserts without a check comment "
                                 "('# §SECTION id: what it asserts')")
        if m and not asserts:
            raise CatalogueError(f"{path}:{line}: steps[{i}] {kind} asserts nothing but has a check comment")
        sc.steps.append(Step(i, line, kind, m["id"] if m else None, m["section"] if m else "",
                             m["text"].strip() if m else ""))
    return sc


def load_suite(folder: Path = SUITE) -> list[Scenario]:
    return [load_scenario(p) for p in sorted(Path(folder).glob("*.yaml"))]


def distinct_checks(suite: list[Scenario]) -> dict[str, tuple[str, str]]:
    """check ID -> (section, text) over the suite; CatalogueError when one ID cites two sections."""
    out: dict[str, tuple[str, str]] = {}
    for sc in suite:
        for s in sc.steps:
            if not s.check:
                continue
            if s.check in out and out[s.check][0] != s.section:
                raise CatalogueError(f"{sc.path}:{s.line}: check {s.check} cites §{s.section}, "
                                     f"elsewhere §{out[s.check][0]}")
            out.setdefault(s.check, (s.section, s.text))
    return out


# ---- a run's outcome per step and per check --------------------------------------------

def step_outcomes(result: dict) -> dict[int, tuple[str, str]]:
    """step index -> ("fail" | "skipped", message) from result.json (passed steps are absent)."""
    out = {}
    for key, status in (("reasons", "fail"), ("steps_skipped", "skipped")):
        for r in result.get(key, []):
            m = STEP_REF.match(r)
            if m:
                out[int(m["index"])] = (status, m["msg"])
    return out


def load_known(path: Path = KNOWN) -> dict:
    return yaml.safe_load(Path(path).read_text()) or {}


def known_for(known: dict, target: str, scenario: str) -> dict:
    """check ID -> {class, spec, why, ...} of the target's known differences in the scenario."""
    return ((known.get(target) or {}).get(scenario) or {})


def check_results(sc: Scenario, result: dict | None, refused: str | None, known: dict) -> list[dict]:
    """One record per check of the scenario: status pass / fail / skipped, its steps' messages,
    and the known difference (class, spec, why) that a failing check matches, if any."""
    outcomes = step_outcomes(result) if result else {}
    rows = []
    for cid, steps in sc.checks().items():
        msgs = []
        statuses = []
        for s in steps:
            if refused is not None:
                statuses.append("skipped")
                continue
            st, msg = outcomes.get(s.index, ("pass", ""))
            statuses.append(st)
            if msg:
                msgs.append(f"steps[{s.index}] (line {s.line}): {msg}")
        if "fail" in statuses:
            status = "fail"
        elif all(x == "skipped" for x in statuses):
            status = "skipped"
        else:
            status = "pass"
        k = known.get(cid)
        rows.append({
            "id": cid, "section": steps[0].section, "text": steps[0].text,
            "steps": [s.index for s in steps], "status": status,
            "detail": msgs if refused is None else [f"scenario refused: {refused}"],
            "difference": ({"class": k["class"], "spec": k.get("spec", ""), "why": k.get("why", "")}
                           if k and status == "fail" else None),
        })
    return rows


def unclassified(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["status"] == "fail" and r["difference"] is None]


def stale(rows: list[dict], known: dict) -> list[str]:
    """Known differences of the scenario whose check no longer fails (the list must shrink)."""
    by_id = {r["id"]: r for r in rows}
    return [cid for cid in known if cid in by_id and by_id[cid]["status"] != "fail"]


# ---- the report -----------------------------------------------------------------------

def summarize(scenarios: list[dict]) -> dict:
    s = {"scenarios": len(scenarios), "checks": 0, "pass": 0, "fail": 0, "skipped": 0,
         "fail_required": 0, "fail_optional": 0, "fail_unclassified": 0}
    for sc in scenarios:
        for c in sc.get("checks", []):
            s["checks"] += 1
            s[c["status"]] += 1
            if c["status"] == "fail":
                d = c["difference"]
                s["fail_" + (d["class"] if d else "unclassified")] += 1
    s["distinct_checks"] = len({c["id"] for sc in scenarios for c in sc.get("checks", [])})
    s["eh_same"] = sum(1 for sc in scenarios if sc.get("eh") and sc["eh"]["same"])
    s["eh_differ"] = sum(1 for sc in scenarios if sc.get("eh") and not sc["eh"]["same"])
    s["eh_unreviewed"] = sum(1 for sc in scenarios if sc.get("eh")
                             and any(not d["reviewed"] for d in sc["eh"]["differences"]))
    return s


def _badge(status: str) -> str:
    color = {"pass": "#1a7f37", "fail": "#cf222e", "skipped": "#9a6700"}.get(status, "#57606a")
    return f'<b style="color:{color}">{html.escape(status)}</b>'


def render_html(report: dict) -> str:
    """A self-contained page (no scripts, no external files but the waveforms it links)."""
    e = html.escape
    t = report["target"]
    s = report["summary"]
    out = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">',
           f"<title>AHCI conformance: {e(t['label'])}</title>",
           "<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin-bottom:1em}"
           "td,th{border:1px solid #d0d7de;padding:2px 6px;vertical-align:top;font-size:90%}"
           "th{background:#f6f8fa}code,pre{font-size:85%}pre{margin:0;white-space:pre-wrap}</style>",
           "</head><body>",
           f"<h1>AHCI conformance report: {e(t['label'])}</h1>",
           f"<p>Target: backend <code>{e(t['backend'])}</code>"
           + (f", DUT profile <code>{e(t['profile'])}</code>" if t.get("profile") else "")
           + f". Reference: {e(report['reference'])}. Spec: {e(report['spec'])}. "
           f"Made by <code>{e(report['command'])}</code>.</p>",
           f"<p>{s['checks']} checks ({s['distinct_checks']} distinct rules; a rule checked in several scenarios "
           f"counts in each here): {s['pass']} pass, {s['fail']} fail ({s['fail_required']} required, "
           f"{s['fail_optional']} optional or implementation-defined, {s['fail_unclassified']} unclassified), "
           f"{s['skipped']} skipped. Stack scenarios: {s['eh_same']} with the reference model's EH decisions, "
           f"{s['eh_differ']} with other decisions ({s['eh_unreviewed']} with differences nobody reviewed; "
           f"reviewed ones: {e(str(report.get('eh_known_differences')))}).</p>",
           "<h2>Scenarios</h2><table><tr><th>scenario</th><th>kind</th><th>verdict</th><th>checks</th>"
           "<th>reason / EH</th><th>waveform</th></tr>"]
    for sc in report["scenarios"]:
        checks = sc.get("checks", [])
        n = f"{sum(c['status'] == 'pass' for c in checks)}/{len(checks)} pass" if checks else ""
        why = "; ".join(sc.get("reasons", []))[:400]
        if sc.get("eh"):
            n_un = sum(not d["reviewed"] for d in sc["eh"]["differences"])
            why = ("EH decisions as the reference model's" if sc["eh"]["same"] else
                   f"{len(sc['eh']['differences'])} EH decision difference(s), {n_un} not reviewed") + \
                (f"; {why}" if why else "")
        wave = f'<a href="{e(sc["waveform"])}">VCD</a>' if sc.get("waveform") else ""
        out.append(f'<tr><td><a href="#{e(sc["name"])}">{e(sc["name"])}</a></td><td>{e(sc["kind"])}</td>'
                   f"<td>{_badge(sc['verdict'])}</td><td>{n}</td><td>{e(why)}</td><td>{wave}</td></tr>")
    out.append("</table>")
    for sc in report["scenarios"]:
        out.append(f'<h2 id="{e(sc["name"])}">{e(sc["name"])} — {_badge(sc["verdict"])}</h2>')
        out.append(f"<p><code>{e(sc['file'])}</code>" + (f": {e(sc['description'])}" if sc.get("description") else "")
                   + "</p>")
        if sc.get("reasons") and sc["verdict"] == "skipped":
            out.append(f"<p>Skipped: {e('; '.join(sc['reasons']))}</p>")
        if sc.get("checks"):
            out.append("<table><tr><th>check</th><th>AHCI 1.3.1</th><th>what it asserts</th><th>status</th>"
                       "<th>steps</th><th>detail</th><th>difference</th></tr>")
            for c in sc["checks"]:
                d = c["difference"]
                diff = (f"<b>{e(d['class'])}</b> ({e(d['spec'])}): {e(d['why'])}" if d else
                        ("<b>unclassified</b>" if c["status"] == "fail" else ""))
                out.append(f"<tr><td><code>{e(c['id'])}</code></td><td>§{e(c['section'])}</td><td>{e(c['text'])}</td>"
                           f"<td>{_badge(c['status'])}</td><td>{e(', '.join(map(str, c['steps'])))}</td>"
                           f"<td>{e(' | '.join(c['detail']))}</td><td>{diff}</td></tr>")
            out.append("</table>")
        if sc.get("eh"):
            out.append("<table><tr><th>EH decisions on the target</th><th>the reference model's</th></tr>")
            pairs = sc["eh"]["differences"] if not sc["eh"]["same"] else []
            out.append(f"<tr><td><pre>{e(chr(10).join(sc['eh']['target']))}</pre></td>"
                       f"<td><pre>{e(chr(10).join(sc['eh']['reference']))}</pre></td></tr>")
            if pairs:
                out.append("<tr><th>differing decision on the target</th><th>the reference's "
                           "(reviewed: a known difference)</th></tr>")
            for d in pairs:
                out.append(f"<tr><td><pre>{e(d['target'] or '(none)')}</pre></td>"
                           f"<td><pre>{e(d['reference'] or '(none)')}</pre>"
                           f"{'reviewed' if d['reviewed'] else '<b>not reviewed</b>'}</td></tr>")
            out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_report(report: dict, out_dir: Path) -> tuple[Path, Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    j, h = out_dir / "conformance.json", out_dir / "conformance.html"
    j.write_text(json.dumps(report, indent=1, sort_keys=False) + "\n")
    h.write_text(render_html(report))
    return j, h


# ---- a target's run of the suite -------------------------------------------------------

def refusals(out_dir: Path) -> dict[str, list[str]]:
    """scenario name -> the reasons `satasim run --skip-refused` gave for not running it."""
    p = Path(out_dir) / "summary.json"
    if not p.exists():
        return {}
    return {s["name"]: s["reasons"] for s in json.loads(p.read_text()).get("skipped_scenarios", [])}


def scenario_record(sc: Scenario, out_dir: Path, known: dict, target: str) -> dict:
    """The report's record of one register scenario run into out_dir (refused: skipped)."""
    refused = refusals(out_dir).get(sc.name)
    rp = Path(out_dir) / sc.name / "result.json"
    result = json.loads(rp.read_text()) if rp.exists() and refused is None else None
    if refused is None and result is None:
        refused_text = "no result (the run did not finish)"
        rows = check_results(sc, None, refused_text, {})
        return {"name": sc.name, "file": str(sc.path.relative_to(ROOT)) if sc.path.is_relative_to(ROOT) else str(sc.path),
                "kind": "register", "verdict": "fail", "reasons": [refused_text], "checks": rows}
    k = known_for(known, target, sc.name)
    rows = check_results(sc, result, "; ".join(refused) if refused else None, k)
    doc = yaml.safe_load(sc.path.read_text())
    rec = {"name": sc.name,
           "file": str(sc.path.relative_to(ROOT)) if sc.path.is_relative_to(ROOT) else str(sc.path),
           "description": " ".join(str(doc.get("description", "")).split()),
           "kind": "register",
           "verdict": "skipped" if refused else result["verdict"],
           "reasons": refused or result.get("reasons", []),
           "checks": rows,
           "stale_known": stale(rows, k) if not refused else []}
    if result:
        rec["wall_time_s"] = result.get("wall_time_s")
        rec["steps_skipped"] = result.get("steps_skipped", [])
    return rec
