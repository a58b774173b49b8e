#!/usr/bin/env python3
"""The disk models' figures (docs/disk-models.md): simulated IOPS and MB/s of an SSD set up
as the Samsung 850 EVO, with 32 flash units and with one, on the standard workloads; and a
7200 rpm HDD's 4 KiB random reads over the whole disk by queue depth, in each NCQ order. The
figures are simulated time, so they do not depend on the machine or its load.

    python3 tools/bench_disk_models.py [--satasim build/bin/satasim] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROFILES = {
    "units: 32": "{kind: ssd, latency: 60us, overhead: 20us, rate: 540MB/s, units: 32}",
    "one unit": "{kind: ssd, latency: 60us, overhead: 20us, rate: 540MB/s}",
}
WORKLOADS = [  # name, op, pattern, block, qd, count
    ("4 KiB random read, QD1", "read", "random", "4k", 1, 4000),
    ("4 KiB random read, QD32", "read", "random", "4k", 32, 20000),
    ("128 KiB sequential read, QD32", "read", "sequential", "128k", 32, 2000),
    ("4 KiB random write, QD1", "write", "random", "4k", 1, 4000),
    ("4 KiB random write, QD32", "write", "random", "4k", 32, 20000),
    ("128 KiB sequential write, QD32", "write", "sequential", "128k", 32, 2000),
]
HDD = "{kind: hdd, rpm: 7200, seek: 8.5ms, rate: 180MB/s, overhead: 50us}"
HDD_ORDERS = ["in_order", "shortest_seek", "shortest_access"]
HDD_QDS = [1, 2, 4, 8, 16, 32]


def measure(satasim: str, work: Path, timing: str, op, pattern, block, qd, count, capacity="500g",
            region=", region: {start: 0, length: 8g}", device_keys="") -> tuple[float, float]:
    name = f"w{abs(hash((timing, op, pattern, block, qd, device_keys))) % 10**8}"
    f = work / f"{name}.yaml"
    f.write_text(f"""name: {name}
seed: 7
controller: {{type: ahci, ports: 1, slots: 32}}
devices:
  - {{port: 0, capacity: {capacity}, {device_keys}timing: {timing}}}
workload:
  - {{device: 0, op: {op}, pattern: {pattern}, block: {block}, qd: {qd}, count: {count}, mode: ncq{region},
     verify: true}}
""")
    r = subprocess.run([satasim, "run", str(f), "--out", str(work / "out")], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench_disk_models: {f.name} failed:\n{r.stdout}{r.stderr}")
    w = json.loads((work / "out" / name / "result.json").read_text())["workloads"][0]
    s = (w["end_ns"] - w["start_ns"]) / 1e9
    return w["completed"] / s, w["bytes"] / s / 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--satasim", default=str(ROOT / "build" / "bin" / "satasim"))
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    rows, hdd = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for wl in WORKLOADS:
            rows[wl[0]] = {p: measure(args.satasim, Path(tmp), t, *wl[1:]) for p, t in PROFILES.items()}
        for qd in HDD_QDS:
            hdd[qd] = {o: measure(args.satasim, Path(tmp), HDD, "read", "random", "4k", qd, max(400, 40 * qd),
                                  capacity="1t", region="", device_keys=f"ncq_order: {o}, ")[0]
                       for o in HDD_ORDERS}
    print(f"{'workload':<32}" + "".join(f"{p:>24}" for p in PROFILES))
    for name, got in rows.items():
        cells = [f"{iops:>10,.0f} IOPS {mbs:>6.1f} MB/s" for iops, mbs in got.values()]
        print(f"{name:<32}" + "".join(f"{c:>24}" for c in cells))
    print(f"\nHDD {HDD}, 1 TB, 4 KiB random reads over the whole disk, IOPS")
    print(f"{'queue depth':<12}" + "".join(f"{o:>18}" for o in HDD_ORDERS))
    for qd, got in hdd.items():
        print(f"{qd:<12}" + "".join(f"{got[o]:>18.1f}" for o in HDD_ORDERS))
    if args.json:
        out = {n: {p: {"iops": v[0], "mb_s": v[1]} for p, v in g.items()} for n, g in rows.items()}
        out["hdd 4 KiB random read IOPS"] = {str(qd): got for qd, got in hdd.items()}
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
