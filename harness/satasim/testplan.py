"""Testplan coverage: which scenarios cover which feature, and how they fared.

  python3 -m satasim.testplan [--plan scenarios/testplan.yaml] [--out report.md] OUT_DIR...

The plan (scenarios/testplan.yaml) lists features, each with the scenarios that cover it:
scenario names or name globs (`probe-*`), or file globs relative to the plan's folder
(anything with a `/` or ending in `.yaml`: `faults/*.yaml`). The report gives, per feature,
how many scenarios cover it and how many of them passed, failed or did not run in the
given run outputs (satasim `--out` folders with summary.json), and lists uncovered
features.

Exit status: 0 every feature is covered and every listed scenario exists (and, with
OUT_DIRs, no covering scenario failed), 1 otherwise, 2 unreadable input.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .scenario_file import load_yaml

DEFAULT_PLAN = Path(__file__).resolve().parents[2] / "scenarios" / "testplan.yaml"


class PlanError(Exception):
    pass


@dataclass
class Feature:
    id: str
    description: str
    patterns: list
    line: int
    scenarios: list = field(default_factory=list)   # names, sorted
    missing: list = field(default_factory=list)     # patterns that match nothing


def _line(node) -> int:
    return node.start_mark.line + 1


def discover(root: Path) -> dict:
    """Scenario name -> file (relative to root), for every scenario under root.

    Files in folders named `common` (include fragments) and the plan itself are skipped."""
    out = {}
    for p in sorted(root.rglob("*.yaml")):
        rel = p.relative_to(root)
        if "common" in rel.parts[:-1] or p.name == "testplan.yaml":
            continue
        try:
            spec = load_yaml(p.read_text()) or {}   # as the simulator reads it
        except yaml.YAMLError:
            spec = {}
        name = spec.get("name", p.stem) if isinstance(spec, dict) else p.stem
        out.setdefault(str(name), str(rel))
    return out


def _path_match(rel: str, pat: str) -> bool:
    """Glob on a relative path: `*` stays within one folder level."""
    a, b = rel.split("/"), pat.split("/")
    return len(a) == len(b) and all(fnmatch.fnmatchcase(x, y) for x, y in zip(a, b))


def load_plan(path: Path, scenarios: dict) -> list[Feature]:
    try:
        text = path.read_text()
    except OSError as e:
        raise PlanError(f"{path}: cannot read: {e.strerror}") from None
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as e:
        raise PlanError(f"{path}: YAML error: {e}") from None
    if not isinstance(root, yaml.MappingNode):
        raise PlanError(f"{path}:1: expected a mapping with `features:`")
    feats_node = None
    for k, v in root.value:
        if k.value == "features":
            feats_node = v
        else:
            raise PlanError(f"{path}:{_line(k)}: {k.value}: unknown key (expected: features)")
    if not isinstance(feats_node, yaml.SequenceNode):
        raise PlanError(f"{path}:1: features: expected a list")
    by_file = {v: k for k, v in scenarios.items()}
    features, seen = [], {}
    for i, fn in enumerate(feats_node.value):
        if not isinstance(fn, yaml.MappingNode):
            raise PlanError(f"{path}:{_line(fn)}: features[{i}]: expected a mapping")
        d, nodes = {}, {}
        for k, v in fn.value:
            if k.value not in ("id", "description", "scenarios"):
                raise PlanError(f"{path}:{_line(k)}: features[{i}].{k.value}: unknown key "
                                "(expected one of: id, description, scenarios)")
            nodes[k.value] = v
            d[k.value] = yaml.safe_load(yaml.serialize(v))
        if not isinstance(d.get("id"), str) or not d["id"]:
            raise PlanError(f"{path}:{_line(fn)}: features[{i}].id: required (a name)")
        if d["id"] in seen:
            raise PlanError(f"{path}:{_line(nodes['id'])}: features[{i}].id: '{d['id']}' already used "
                            f"(line {seen[d['id']]})")
        seen[d["id"]] = _line(fn)
        pats = d.get("scenarios") or []
        if not isinstance(pats, list) or not all(isinstance(p, str) for p in pats):
            raise PlanError(f"{path}:{_line(nodes.get('scenarios', fn))}: features[{i}].scenarios: "
                            "expected a list of scenario names or globs")
        f = Feature(d["id"], str(d.get("description", "")), pats, _line(fn))
        names = set()
        for pat in pats:
            if "/" in pat or pat.endswith(".yaml"):
                hit = {by_file[r] for r in by_file if _path_match(r, pat)}
            else:
                hit = {n for n in scenarios if fnmatch.fnmatchcase(n, pat)}
            if not hit:
                f.missing.append(pat)
            names |= hit
        f.scenarios = sorted(names)
        features.append(f)
    return features


def load_verdicts(out_dirs) -> dict:
    """Scenario name -> verdict over the given run outputs (a fail anywhere wins)."""
    verdicts = {}
    for d in out_dirs:
        sp = Path(d) / "summary.json" if Path(d).is_dir() else Path(d)
        try:
            summary = json.loads(sp.read_text())
        except OSError as e:
            raise PlanError(f"{sp}: cannot read summary: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise PlanError(f"{sp}:{e.lineno}: bad JSON: {e.msg}") from None
        for s in summary.get("scenarios", []):
            v = s.get("verdict", "?")
            if verdicts.get(s["name"]) != "fail":
                verdicts[s["name"]] = v
    return verdicts


def report(features, scenarios, verdicts, have_runs: bool, plan: Path) -> tuple[str, bool]:
    ok = True
    lines = [f"# Testplan coverage ({plan.name})", "",
             "| feature | scenarios | passed | failed | not run | status |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    problems = []
    for f in features:
        passed = [n for n in f.scenarios if verdicts.get(n) == "pass"]
        failed = [n for n in f.scenarios if n in verdicts and verdicts[n] != "pass"]
        not_run = [n for n in f.scenarios if n not in verdicts]
        if not f.scenarios:
            status = "UNCOVERED"
        elif f.missing:
            status = "MISSING SCENARIO"
        elif failed:
            status = "FAILING"
        elif have_runs and not passed:
            status = "not run"
        else:
            status = "covered"
        if status in ("UNCOVERED", "MISSING SCENARIO") or failed:
            ok = False
        lines.append(f"| {f.id} | {len(f.scenarios)} | {len(passed) if have_runs else '-'} | "
                     f"{len(failed) if have_runs else '-'} | {len(not_run) if have_runs else '-'} | {status} |")
        for pat in f.missing:
            problems.append(f"- {plan}:{f.line}: feature {f.id}: no scenario matches '{pat}'")
        for n in failed:
            problems.append(f"- feature {f.id}: scenario {n} ({scenarios.get(n, '?')}) failed")
    uncovered = [f.id for f in features if not f.scenarios]
    lines += ["", f"{len(features)} features, {len(features) - len(uncovered)} covered, "
              f"{len(uncovered)} uncovered" + (f": {', '.join(uncovered)}" if uncovered else "")]
    if problems:
        lines += ["", "## Problems", ""] + problems
    lines += ["", "## Scenarios per feature", ""]
    for f in features:
        marks = []
        for n in f.scenarios:
            v = verdicts.get(n)
            marks.append(f"{n}" + (f" ({v})" if v else ""))
        lines.append(f"- **{f.id}**: " + (", ".join(marks) if marks else "none") +
                     (f" — {f.description}" if f.description else ""))
    return "\n".join(lines) + "\n", ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.testplan", description=__doc__.split("\n")[0])
    ap.add_argument("out_dirs", nargs="*", metavar="OUT_DIR", help="satasim run outputs (summary.json)")
    ap.add_argument("--plan", default=str(DEFAULT_PLAN), help="the testplan (default: scenarios/testplan.yaml)")
    ap.add_argument("--out", help="also write the report (Markdown) here")
    a = ap.parse_args(argv)
    plan = Path(a.plan)
    try:
        scenarios = discover(plan.parent)
        features = load_plan(plan, scenarios)
        verdicts = load_verdicts(a.out_dirs)
    except PlanError as e:
        print(f"testplan: {e}", file=sys.stderr)
        return 2
    text, ok = report(features, scenarios, verdicts, bool(a.out_dirs), plan)
    sys.stdout.write(text)
    if a.out:
        Path(a.out).write_text(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
