#!/usr/bin/env python3
"""Five busy disks behind one port multiplier: FIS-based vs command-based switching.

The same scenario twice on an AHCI HBA: five SSD-profile disks behind a SiI4726-like PMP,
each running 4 KiB random NCQ reads at QD 8 over a 64 MiB region (verified), once with
FIS-based switching (controller fbs: true, pmps[].fbs: true) and once with command-based
switching. Reported per mode, measured in one run of this script:
  - aggregate simulated commands per wall second (all five workloads; the boot probe's wall
    time is excluded by subtracting a probe-only run of the same topology),
  - aggregate simulated IOPS (commands per simulated second of the workload phase),
and the FBS/CBS ratios. Median of --repeat runs.

Usage: /usr/bin/python3 tools/bench_pmp.py [--count N] [--repeat N] [--bin build/bin/satasim]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISKS = 5


def scenario(name: str, fbs: bool, count: int) -> str:
    fb = "true" if fbs else "false"
    lines = [
        f"name: {name}",
        "seed: 5",
        "time_limit: 3600s",
        "trace_cmds: false",
        f"controller: {{type: ahci, ports: 1, fbs: {fb}}}",
        "pmps:",
        f"  - {{port: 0, ports: 5, product: sii4726, fbs: {fb}}}",
        "devices:",
    ]
    lines += [f"  - {{port: 0, pmp_port: {f}, capacity: 1g, timing: {{kind: ssd}}}}" for f in range(DISKS)]
    if count:
        lines.append("workload:")
        lines += [f"  - {{device: 0, pmp_port: {f}, op: read, pattern: random, block: 8, qd: 8, count: {count}, "
                  "mode: ncq, prefill: false, region: {start: 0, length: 64m}}" for f in range(DISKS)]
    return "\n".join(lines) + "\n"


def run_one(binary: Path, text: str, name: str, tmp: Path) -> dict:
    path = tmp / f"{name}.yaml"
    path.write_text(text)
    out = tmp / "out"
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run([str(binary), "run", str(path), "--out", str(out), "--jobs", "1", "--wall-limit", "3600"],
                       capture_output=True, text=True, env=env)
    res = json.loads((out / name / "result.json").read_text())
    if r.returncode != 0 or res["verdict"] != "pass":
        sys.exit(f"bench_pmp: {name} failed: {res.get('reasons')}")
    return res


def measure(binary: Path, fbs: bool, count: int, repeat: int, tmp: Path) -> dict:
    mode = "fbs" if fbs else "cbs"
    rates, iops = [], []
    for _ in range(repeat):
        probe = run_one(binary, scenario(f"probe-{mode}", fbs, 0), f"probe-{mode}", tmp)
        res = run_one(binary, scenario(f"busy-{mode}", fbs, count), f"busy-{mode}", tmp)
        cmds = sum(w["completed"] for w in res["workloads"])
        start = min(w["start_ns"] for w in res["workloads"])
        end = max(w["end_ns"] for w in res["workloads"])
        rates.append(cmds / max(res["wall_time_s"] - probe["wall_time_s"], 1e-9))
        iops.append(cmds / ((end - start) / 1e9))
    return {"mode": mode, "commands": cmds, "cmds_per_wall_s": statistics.median(rates),
            "sim_iops": statistics.median(iops)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=4000, help="commands per disk")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin" / "satasim")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_pmp.") as d:
        tmp = Path(d)
        rows = [measure(a.bin, True, a.count, a.repeat, tmp), measure(a.bin, False, a.count, a.repeat, tmp)]
    print(f"{DISKS} disks behind one PMP (AHCI), 4 KiB random NCQ reads, QD 8 each, {a.count} per disk; "
          f"median of {a.repeat}")
    print(f"{'switching':<10} {'commands':>9} {'sim cmds / wall s':>18} {'simulated IOPS':>15}")
    for r in rows:
        print(f"{r['mode']:<10} {r['commands']:>9} {r['cmds_per_wall_s']:>18,.0f} {r['sim_iops']:>15,.0f}")
    f, c = rows
    print(f"FBS / CBS: {f['cmds_per_wall_s'] / c['cmds_per_wall_s']:.2f}x sim cmds per wall second, "
          f"{f['sim_iops'] / c['sim_iops']:.2f}x simulated IOPS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
