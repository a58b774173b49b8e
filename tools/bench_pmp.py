#!/usr/bin/env python3
"""Five busy disks behind one port multiplier: FIS-based vs command-based switching.

The same scenario twice on an AHCI HBA: five SSD-profile disks behind a SiI4726-like PMP,
each running 4 KiB random NCQ reads at QD 8 over a 64 MiB region (verified), once with
FIS-based switching (controller fbs: true, pmps[].fbs: true) and once with command-based
switching. Reported per mode, measured in one run of this script:
  - CPU time per simulated command over the run's process tree (all five workloads; the
    boot probe's CPU is excluded by subtracting a probe-only run of the same topology in
    the same round),
  - aggregate simulated IOPS (commands per simulated second of the workload phase),
and the FBS/CBS ratios. The two modes run interleaved round by round (a load change lands
on both); each figure is the median of --repeat rounds, flagged NOISY where its rounds
spread more than 20 % (tools/bench_common.py).

Usage: /usr/bin/python3 tools/bench_pmp.py [--count N] [--repeat N] [--bin build/bin/satasim]
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import Figure, run_scenario  # noqa: E402

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


def run_one(binary: Path, text: str, name: str, tmp: Path):
    """One run; returns (result.json, CPU seconds of the process tree)."""
    path = tmp / f"{name}.yaml"
    path.write_text(text)
    return run_scenario("bench_pmp", binary, path, tmp / "out", "--wall-limit", "3600")


def one_round(binary: Path, fbs: bool, count: int, tmp: Path):
    """(CPU µs per command, simulated IOPS, commands) of one mode, one round."""
    mode = "fbs" if fbs else "cbs"
    _, probe_cpu = run_one(binary, scenario(f"probe-{mode}", fbs, 0), f"probe-{mode}", tmp)
    res, cpu = run_one(binary, scenario(f"busy-{mode}", fbs, count), f"busy-{mode}", tmp)
    cmds = sum(w["completed"] for w in res["workloads"])
    start = min(w["start_ns"] for w in res["workloads"])
    end = max(w["end_ns"] for w in res["workloads"])
    return max(cpu - probe_cpu, 1e-9) / cmds * 1e6, cmds / ((end - start) / 1e9), cmds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=4000, help="commands per disk")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds")
    ap.add_argument("--bin", type=Path, default=Path(__file__).resolve().parents[1] / "build" / "bin" / "satasim")
    ap.add_argument("--json", help="also write the numbers to this file")
    a = ap.parse_args()
    got = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="bench_pmp.") as d:
        for _ in range(a.repeat):
            for fbs in (True, False):
                got[fbs].append(one_round(a.bin, fbs, a.count, Path(d)))
    rows = {}
    for fbs, mode in ((True, "fbs"), (False, "cbs")):
        rows[mode] = {"commands": got[fbs][0][2], "cpu_us_per_cmd": Figure(x[0] for x in got[fbs]),
                      "sim_iops": Figure(x[1] for x in got[fbs])}
    print(f"{DISKS} disks behind one PMP (AHCI), 4 KiB random NCQ reads, QD 8 each, {a.count} per disk; "
          f"{a.repeat} interleaved rounds, median")
    print(f"{'switching':<10} {'commands':>9} {'CPU µs / cmd':>13} {'simulated IOPS':>15}")
    for mode, r in rows.items():
        print(f"{mode:<10} {r['commands']:>9} {r['cpu_us_per_cmd'].median:>13.1f} {r['sim_iops'].median:>15,.0f}"
              f"{r['cpu_us_per_cmd'].note()}")
    cpu_ratio = Figure(c[0] / f[0] for f, c in zip(got[True], got[False]))
    iops_ratio = Figure(f[1] / c[1] for f, c in zip(got[True], got[False]))
    print(f"FBS / CBS: {cpu_ratio.median:.2f}x commands per CPU second{cpu_ratio.note()}, "
          f"{iops_ratio.median:.2f}x simulated IOPS")
    if a.json:
        Path(a.json).write_text(json.dumps({m: {"commands": r["commands"], "cpu_us_per_cmd": r["cpu_us_per_cmd"].as_dict(),
                                                  "sim_iops": r["sim_iops"].as_dict()} for m, r in rows.items()} |
                                           {"fbs_over_cbs_cpu": cpu_ratio.as_dict()}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
