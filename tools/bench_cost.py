#!/usr/bin/env python3
"""Cost follows the work, not the region (issue 17 item 3): wall time and peak memory.

Three scenarios, each run by a baseline and a candidate simulator binary:
  whole-disk-reads  `devices: [{port: 0}]` (the default 1 TB disk), 100 random 4 KiB reads
                    over the whole disk (the default region)
  region-1g-reads   1 GiB region, 2,000 random 4 KiB reads
  random-writes     20,000 random 4 KiB NCQ writes over the whole default disk, then a check
                    of every written sector against the media (the run's own invariant)
Reported per scenario and binary: wall time and peak RSS (/usr/bin/time -v, "Maximum
resident set size"), medians of --repeat runs, the commands the run completed (prefill
included), and the baseline/candidate ratios. A run killed by --wall-limit is shown as such.

Usage: /usr/bin/python3 tools/bench_cost.py --base BASELINE/bin/satasim | --load-base FILE
           [--bin build/bin/satasim] [--repeat 3] [--wall-limit 120] [--only NAME]
           [--save-base FILE]
--base is a simulator built from the baseline commit (e.g. a second checkout's
build/bin/satasim); --bin defaults to this checkout's build.
--save-base runs only the baseline and writes its medians to FILE; --load-base takes the
baseline's medians from FILE instead of running it.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCENARIOS = {
    "whole-disk-reads": """\
name: whole-disk-reads
seed: 1
trace_cmds: false
controller: {type: ahci, ports: 1}
devices: [{port: 0}]
workload:
  - {device: 0, op: read, pattern: random, count: 100}
""",
    "region-1g-reads": """\
name: region-1g-reads
seed: 1
trace_cmds: false
controller: {type: ahci, ports: 1}
devices: [{port: 0, timing: {kind: ssd}}]
workload:
  - {device: 0, op: read, pattern: random, block: 8, qd: 8, count: 2000, mode: ncq, region: {start: 0, length: 1g}}
""",
    "random-writes": """\
name: random-writes
seed: 1
trace_cmds: false
time_limit: 3600s
controller: {type: ahci, ports: 1}
devices: [{port: 0, timing: {kind: ssd}}]
workload:
  - {device: 0, op: write, pattern: random, block: 8, qd: 8, count: 20000, mode: ncq}
""",
}


def run_once(binary: Path, path: Path, out: Path, wall_limit: int) -> dict:
    cmd = ["/usr/bin/time", "-v", str(binary), "run", str(path), "--out", str(out),
           "--wall-limit", str(wall_limit)]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m_rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    m_wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    wall = 0.0
    if m_wall:
        h, mnt, sec = m_wall.groups()
        wall = int(h or 0) * 3600 + int(mnt) * 60 + float(sec)
    res = {"wall_s": wall, "rss_mb": int(m_rss.group(1)) / 1024 if m_rss else 0.0,
           "verdict": "?", "commands": None}
    rj = out / path.stem / "result.json"
    if rj.exists():
        r = json.loads(rj.read_text())
        res["verdict"] = r.get("verdict", "?")
        res["commands"] = sum(w.get("completed", 0) + w.get("prefill_commands", 0) for w in r.get("workloads", []))
    else:
        res["verdict"] = f"no result (exit {p.returncode}, wall limit?)"
    return res


def median_run(binary: Path, path: Path, repeat: int, wall_limit: int) -> dict:
    runs = []
    for i in range(repeat):
        with tempfile.TemporaryDirectory(prefix="bench-cost-") as out:
            runs.append(run_once(binary, path, Path(out), wall_limit))
    return {"wall_s": statistics.median(r["wall_s"] for r in runs),
            "rss_mb": statistics.median(r["rss_mb"] for r in runs),
            "verdict": ",".join(sorted({r["verdict"] for r in runs})),
            "commands": runs[-1]["commands"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, help="the baseline simulator (no default: a build of the base commit)")
    ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin" / "satasim")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--wall-limit", type=int, default=120)
    ap.add_argument("--only", action="append", choices=sorted(SCENARIOS))
    ap.add_argument("--save-base", type=Path)
    ap.add_argument("--load-base", type=Path)
    a = ap.parse_args()
    if a.base is None and a.load_base is None:
        ap.error("give the baseline: --base BASELINE/bin/satasim, or --load-base FILE")
    if not Path("/usr/bin/time").is_file():
        ap.error("/usr/bin/time is not installed (Debian package time; bash tools/install_deps.sh installs it)")
    # a missing simulator gave a table of "no result (exit 127)": refuse it up front
    for what, path in (("--base", a.base), ("--bin", None if a.save_base else a.bin)):
        if path is not None and not path.is_file():
            ap.error(f"{what} {path}: no such simulator (build it, or name another)")
    names = a.only or list(SCENARIOS)
    loaded = json.loads(a.load_base.read_text()) if a.load_base else {}
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-cost-in-") as d:
        for name in names:
            path = Path(d) / f"{name}.yaml"
            path.write_text(SCENARIOS[name])
            base = loaded[name] if name in loaded else median_run(a.base, path, a.repeat, a.wall_limit)
            if a.save_base:
                loaded[name] = base
                a.save_base.write_text(json.dumps(loaded, indent=1))
                print(f"{name}: base {base}", flush=True)
                continue
            cand = median_run(a.bin, path, a.repeat, a.wall_limit)
            rows.append((name, base, cand))
            print(f"{name}: base {base}  candidate {cand}", file=sys.stderr, flush=True)
    if a.save_base:
        return 0
    print(f"medians of {a.repeat} runs; base {a.base}, candidate {a.bin}")
    print(f"{'scenario':18} {'binary':9} {'wall s':>8} {'peak RSS MB':>12} {'commands':>9}  verdict")
    for name, base, cand in rows:
        for label, r in (("base", base), ("candidate", cand)):
            print(f"{name:18} {label:9} {r['wall_s']:8.2f} {r['rss_mb']:12.1f} {str(r['commands']):>9}  {r['verdict']}")
        wr = base["wall_s"] / cand["wall_s"] if cand["wall_s"] else float("inf")
        mr = base["rss_mb"] / cand["rss_mb"] if cand["rss_mb"] else float("inf")
        print(f"{name:18} {'ratio':9} {wr:7.1f}x {mr:11.1f}x   (base / candidate)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
