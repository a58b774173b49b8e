#!/usr/bin/env python3
"""Benchmarks on the release build, reported in one run so ratios compare like with like.

  - wall time of the default scenario suite (scenarios/*.yaml, all cores);
  - each scenario under scenarios/bench/: simulated commands per wall second and the
    simulated-to-wall time ratio, median of --repeat runs.

Usage: /usr/bin/python3 tools/bench.py [--repeat N] [--bin build/bin/satasim]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(binary, paths, out_dir, jobs=None):
    cmd = [str(binary), "run", *map(str, paths), "--out", str(out_dir)]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bin", default=str(ROOT / "build" / "bin" / "satasim"))
    args = parser.parse_args()
    binary = Path(args.bin)
    if not binary.exists():
        sys.exit(f"bench: {binary} not found; run tools/run_suite.sh or tools/build.sh build first")

    with tempfile.TemporaryDirectory() as tmp:
        suite_walls = [run(binary, [ROOT / "scenarios"], Path(tmp) / f"suite{i}", jobs=os.cpu_count())
                       for i in range(args.repeat)]
        print(f"default suite: {statistics.median(suite_walls):.2f} s wall "
              f"(median of {args.repeat}, {os.cpu_count()} jobs)")

        for scenario in sorted((ROOT / "scenarios" / "bench").glob("*.yaml")):
            rates, ratios = [], []
            for i in range(args.repeat):
                out = Path(tmp) / f"{scenario.stem}{i}"
                run(binary, [scenario], out)
                (result_file,) = out.glob("*/result.json")
                res = json.loads(result_file.read_text())
                rates.append(res["commands_per_wall_second"])
                ratios.append(res["sim_time_ns"] / 1e9 / res["wall_time_s"])
            print(f"{scenario.stem}: {statistics.median(rates):,.0f} simulated commands per wall second; "
                  f"simulated/wall time {statistics.median(ratios):.3f} (median of {args.repeat})")


if __name__ == "__main__":
    main()
