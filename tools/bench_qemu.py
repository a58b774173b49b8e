#!/usr/bin/env python3
"""The same workloads on both backends (satasim SystemC models vs QEMU's AHCI over qtest),
and the speed ratio.

Workloads, each on one 64 GiB SSD-profile disk, reads of a 1 GiB region (never written,
so they read zeros, verified), after the boot probe:
  - 4 KiB random reads at QD 1 (NCQ)
  - 4 KiB random reads at QD 32 (NCQ)
  - 64 KiB sequential reads at QD 1
Rate = commands / (scenario wall time - wall time of a probe-only run of the same
backend), i.e. start-up (QEMU launch, probe) excluded; median of --repeat runs.

Usage: /usr/bin/python3 tools/bench_qemu.py [--count N] [--repeat N] [--bin build/bin/satasim]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HEADER = """\
name: {name}
seed: 3
time_limit: 3600s
trace_cmds: false
controller: {{type: ahci, ports: 1}}
devices:
  - {{port: 0, model: "SATASIM BENCH", capacity: 64g, timing: {{kind: ssd}}}}
"""

WORKLOADS = {
    "randread-4k-qd1": "  - {{device: 0, op: read, pattern: random, block: 4k, qd: 1, count: {n}, mode: ncq, "
                       "prefill: false, region: {{start: 0, length: 1g}}}}\n",
    "randread-4k-qd32": "  - {{device: 0, op: read, pattern: random, block: 4k, qd: 32, count: {n}, mode: ncq, "
                        "prefill: false, region: {{start: 0, length: 1g}}}}\n",
    "seqread-64k-qd1": "  - {{device: 0, op: read, pattern: sequential, block: 64k, qd: 1, count: {n}, mode: auto, "
                       "prefill: false, region: {{start: 0, length: 1g}}}}\n",
}


def run_one(binary, path, out, backend):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    cmd = [str(binary), "run", str(path), "--out", str(out), "--backend", backend, "--jobs", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"bench_qemu: {' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    name = Path(path).stem
    return json.loads((Path(out) / name / "result.json").read_text())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000, help="commands per workload")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bin", default=str(ROOT / "build" / "bin" / "satasim"))
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()
    binary = Path(args.bin)
    if not binary.exists():
        sys.exit(f"bench_qemu: {binary} not found; build it first (tools/build.sh build)")
    if not shutil.which(os.environ.get("SATASIM_QEMU", "qemu-system-x86_64")):
        sys.exit("bench_qemu: qemu-system-x86_64 not found (Debian package qemu-system-x86)")

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = {"probe": tmp / "probe.yaml"}
        files["probe"].write_text(HEADER.format(name="probe"))
        for name, w in WORKLOADS.items():
            files[name] = tmp / f"{name}.yaml"
            files[name].write_text(HEADER.format(name=name) + "workload:\n" + w.format(n=args.count))
        for backend in ("systemc", "qemu"):
            base = statistics.median(run_one(binary, files["probe"], tmp / f"o-{backend}-p{i}", backend)["wall_time_s"]
                                     for i in range(args.repeat))
            results[backend] = {"startup_s": base}
            for name in WORKLOADS:
                walls = []
                for i in range(args.repeat):
                    r = run_one(binary, files[name], tmp / f"o-{backend}-{name}-{i}", backend)
                    assert r["verdict"] == "pass" and r["data_errors"] == 0, r["reasons"]
                    walls.append(r["wall_time_s"])
                wall = statistics.median(walls)
                results[backend][name] = args.count / max(wall - base, 1e-9)

    print(f"{args.count} commands per workload, median of {args.repeat}; rates in commands per wall second "
          f"(start-up excluded: systemc {results['systemc']['startup_s']:.3f} s, "
          f"qemu {results['qemu']['startup_s']:.3f} s)")
    print(f"{'workload':<20} {'systemc':>12} {'qemu':>12} {'systemc/qemu':>13}")
    for name in WORKLOADS:
        s, q = results["systemc"][name], results["qemu"][name]
        results.setdefault("ratio", {})[name] = s / q
        print(f"{name:<20} {s:>12.0f} {q:>12.0f} {s / q:>12.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
