#!/usr/bin/env python3
"""Cost against the number of disks (issue 36, scale): commands per CPU second from 1 disk to
a 32-port AHCI HBA with a 15-port port multiplier on every port (480 disks).

Topologies: 1 disk on a 1-port HBA; 15 x K disks behind K 15-port PMPs (SiI4726-like, FIS-based
switching on the AHCI model) for K = 1, 4, 8, 32. Every disk runs the same verified workload
(random 4 KiB NCQ reads and writes, queue depth 4, every read checked against what was
written), all disks at once, the same --total commands split evenly over the disks, so every
topology does the same work. For each topology a probe-only run of the same
topology is subtracted, so the figure is the I/O's: commands / (CPU of the workload run - CPU of
the probe run), CPU over the process tree; the probe's own CPU is given too. Each figure is the
median of --repeat rounds, the link levels interleaved within a round (tools/bench_common.py
flags a spread above 20 %).

A 1,000-disk topology needs several HBAs in one host (`controllers:`), which satasim does not
have yet: not measured.

Usage: /usr/bin/python3 tools/bench_scale.py [--bin build/bin/satasim] [--total 9600]
           [--repeat 3] [--levels dword,fis] [--sizes 1,15,60,120,480] [--json FILE]
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import Figure, run_scenario  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def scenario(n_disks, per_disk, probe_only):
    """The YAML of one topology; probe_only: no workload."""
    name = f"scale-{n_disks}" + ("-probe" if probe_only else "")
    lines = [f"name: {name}", "seed: 36", "time_limit: 3600s", "trace_cmds: false"]
    disks = []
    if n_disks == 1:
        lines.append("controller: {type: ahci, ports: 1}")
        disks.append((0, None))
    else:
        if n_disks % 15:
            sys.exit(f"bench_scale: {n_disks} disks: use 1 or a multiple of 15 (15 per port multiplier)")
        ports = n_disks // 15
        if ports > 32:
            sys.exit(f"bench_scale: {n_disks} disks need {ports} ports; one AHCI HBA has at most 32")
        lines.append(f"controller: {{type: ahci, ports: {ports}}}")
        lines.append("pmps:")
        lines += [f"  - {{port: {p}, ports: 15, product: sii4726}}" for p in range(ports)]
        disks = [(p, d) for p in range(ports) for d in range(15)]
    lines.append("devices:")
    for p, d in disks:
        where = f"port: {p}" + ("" if d is None else f", pmp_port: {d}")
        lines.append(f"  - {{{where}, capacity: 1g, timing: {{kind: ssd}}}}")
    if not probe_only:
        lines.append("workload:")
        for p, d in disks:
            where = f"device: {p}" + ("" if d is None else f", pmp_port: {d}")
            lines.append(f"  - {{{where}, op: mix, pattern: random, block: 8, qd: 4, count: {per_disk}, "
                         "mode: ncq, region: {start: 0, length: 64m}}")
    lines += ["expect:", "  all_devices_found: true", "  io_errors: 0"]
    return name, "\n".join(lines) + "\n"


def run_one(binary, path, out, level):
    return run_scenario("bench_scale", binary, path, out, env={"SATASIM_LINK_MODE": level})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=str(ROOT / "build" / "bin" / "satasim"))
    ap.add_argument("--total", type=int, default=9600, help="verified commands in all, split over the disks")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--levels", default="dword,fis")
    ap.add_argument("--sizes", default="1,15,60,120,480")
    ap.add_argument("--json")
    args = ap.parse_args()
    binary = Path(args.bin)
    if not binary.exists():
        sys.exit(f"bench_scale: {binary} not found; build it first (tools/build.sh build --target satasim)")
    sizes = [int(x) for x in args.sizes.split(",")]
    levels = args.levels.split(",")
    per_s = {(n, lv): [] for n in sizes for lv in levels}
    probe = {(n, lv): [] for n in sizes for lv in levels}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = {}
        for n in sizes:
            for probe_only in (True, False):
                name, text = scenario(n, max(1, args.total // n), probe_only)
                (tmp / f"{name}.yaml").write_text(text)
                files[(n, probe_only)] = tmp / f"{name}.yaml"
        for i in range(args.repeat):
            for n in sizes:
                for lv in levels:
                    _, pcpu = run_one(binary, files[(n, True)], tmp / f"o{i}-{n}-{lv}-p", lv)
                    r, cpu = run_one(binary, files[(n, False)], tmp / f"o{i}-{n}-{lv}", lv)
                    commands = n * max(1, args.total // n)
                    per_s[(n, lv)].append(commands / max(cpu - pcpu, 1e-9))
                    probe[(n, lv)].append(pcpu)
    results = {"total": args.total, "rounds": args.repeat, "figures": []}
    print(f"{args.total} verified 4 KiB NCQ commands split over the disks, all at once; {args.repeat} rounds, "
          "median; commands per CPU second of the I/O (probe-only run subtracted)")
    print(f"{'disks':>6} " + " ".join(f"{lv + ' cmd/CPU s':>18} {'vs 1 disk':>9} {lv + ' probe CPU s':>17}"
                                      for lv in levels))
    for n in sizes:
        line = f"{n:>6} "
        for lv in levels:
            f, p = Figure(per_s[(n, lv)]), Figure(probe[(n, lv)])
            base = Figure(per_s[(sizes[0], lv)]).median
            line += f"{f.median:>18.0f} {f.median / base:>8.2f}x {p.median:>17.2f}{f.note()}"
            results["figures"].append({"disks": n, "level": lv, "commands_per_cpu_s": f.as_dict(),
                                       "probe_cpu_s": p.as_dict()})
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
