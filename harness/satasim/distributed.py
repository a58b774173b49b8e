"""One result from many machines (issue 34, docs/python.md "Many machines").

The pytest plugin's `--satasim-summary FILE` writes, on the process that controls a run
(pytest-xdist's controller when the items ran on execnet gateways), one summary of every
scenario item: outcome, verdict, reasons, the trace's SHA-256 and the worker that ran it.
A CI matrix splits the items with `--satasim-shard K/N` instead; its jobs' summaries and
JUnit files are joined here:

    python3 -m satasim.distributed merge --summary all.json --junit all.xml \\
        shard1.json shard2.json shard1.xml shard2.xml

A summary is independent of where its items ran (a trace is the same bytes on every
machine), so a merged or distributed summary equals a one-machine run's apart from the
`worker` fields; `same_runs` compares two that way.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

SUMMARY_FORMAT = 1


class MergeError(ValueError):
    """Parts that cannot be joined: unreadable, of another format, or overlapping."""


def summary_of(entries: list[dict]) -> dict:
    runs = sorted(entries, key=lambda e: e["nodeid"])
    outcomes = Counter(e["outcome"] for e in runs)
    return {
        "format": SUMMARY_FORMAT,
        "runs": runs,
        "total": {"runs": len(runs), "passed": outcomes["passed"], "failed": outcomes["failed"],
                  "skipped": outcomes["skipped"]},
        "workers": dict(sorted(Counter(e.get("worker", "local") for e in runs).items())),
    }


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_summary(path: Path, entries: list[dict]) -> None:
    _write_atomically(Path(path), json.dumps(summary_of(entries), indent=1) + "\n")


def load_summary(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise MergeError(f"{path}: not a readable summary ({e})") from None
    if not isinstance(data, dict) or data.get("format") != SUMMARY_FORMAT or not isinstance(data.get("runs"), list):
        raise MergeError(f"{path}: not a satasim pytest summary of format {SUMMARY_FORMAT}")
    return data


def merge_summaries(paths: list[Path]) -> dict:
    entries: dict[str, dict] = {}
    origin: dict[str, Path] = {}
    for p in paths:
        for e in load_summary(p)["runs"]:
            if e["nodeid"] in entries:
                raise MergeError(f"{p}: {e['nodeid']} is also in {origin[e['nodeid']]} (do the shards overlap?)")
            entries[e["nodeid"]] = e
            origin[e["nodeid"]] = p
    return summary_of(list(entries.values()))


def same_runs(a: dict, b: dict) -> bool:
    """Whether two summaries hold the same runs with the same results, wherever they ran."""
    def strip(s):
        return [{k: v for k, v in e.items() if k != "worker"} for e in s["runs"]]
    return strip(a) == strip(b)


def merge_junit(paths: list[Path]) -> str:
    """pytest's JUnit files (one testsuite each) as one testsuite, test cases in a stable order."""
    cases = []
    totals = Counter()
    seen: dict[tuple, Path] = {}
    for p in paths:
        try:
            root = ET.parse(p).getroot()
        except (OSError, ET.ParseError) as e:
            raise MergeError(f"{p}: not a readable JUnit file ({e})") from None
        suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
        if not suites:
            raise MergeError(f"{p}: no <testsuite> in it")
        for suite in suites:
            for key in ("tests", "failures", "errors", "skipped"):
                totals[key] += int(suite.get(key, "0"))
            totals["time"] += float(suite.get("time", "0"))
            for case in suite.iter("testcase"):
                key = (case.get("classname", ""), case.get("name", ""))
                if key in seen:
                    raise MergeError(f"{p}: test case {key[0]}::{key[1]} is also in {seen[key]}")
                seen[key] = p
                cases.append(case)
    merged = ET.Element("testsuites")
    suite = ET.SubElement(merged, "testsuite", name="pytest", tests=str(totals["tests"]),
                          failures=str(totals["failures"]), errors=str(totals["errors"]),
                          skipped=str(totals["skipped"]), time=f"{totals['time']:.3f}")
    for case in sorted(cases, key=lambda c: (c.get("classname", ""), c.get("name", ""))):
        suite.append(case)
    ET.indent(merged)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(merged, encoding="unicode") + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.distributed",
                                 description="Join the summaries and JUnit files of a sharded or distributed run.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("merge", help="join shards' summaries (*.json) and JUnit files (*.xml)")
    m.add_argument("parts", nargs="+", type=Path, metavar="PART")
    m.add_argument("--summary", type=Path, metavar="FILE", help="write the joined summary here")
    m.add_argument("--junit", type=Path, metavar="FILE", help="write the joined JUnit file here")
    args = ap.parse_args(argv)
    summaries = [p for p in args.parts if p.suffix == ".json"]
    junits = [p for p in args.parts if p.suffix == ".xml"]
    other = [p for p in args.parts if p.suffix not in (".json", ".xml")]
    if other:
        ap.error(f"{other[0]}: a part is a summary (.json) or a JUnit file (.xml)")
    if (args.summary is None) != (not summaries) or (args.junit is None) != (not junits):
        ap.error("--summary goes with .json parts and --junit with .xml parts")
    try:
        if summaries:
            merged = merge_summaries(summaries)
            _write_atomically(args.summary, json.dumps(merged, indent=1) + "\n")
            t = merged["total"]
            print(f"{args.summary}: {t['runs']} runs from {len(summaries)} parts: "
                  f"{t['passed']} passed, {t['failed']} failed, {t['skipped']} skipped")
        if junits:
            _write_atomically(args.junit, merge_junit(junits))
            print(f"{args.junit}: the test cases of {len(junits)} JUnit files")
    except MergeError as e:
        print(f"satasim.distributed: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
