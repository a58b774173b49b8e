#!/usr/bin/env python3
"""The same workloads on both backends (satasim SystemC models vs QEMU's AHCI over qtest),
and the speed ratio in CPU time per command.

Workloads, each on one 64 GiB SSD-profile disk, reads of a 1 GiB region (never written,
so they read zeros, verified), after the boot probe:
  - 4 KiB random reads at QD 1 (NCQ)
  - 4 KiB random reads at QD 32 (NCQ)
  - 64 KiB sequential reads at QD 1
CPU time per command = (CPU of the workload's run - CPU of a probe-only run of the same
backend, in the same round) / commands, over the whole process tree (satasim, its scenario
process, QEMU): start-up (QEMU launch, probe) excluded. The two backends run interleaved,
round by round, so a change of the machine's load lands on both; each figure is the median
of --repeat rounds, flagged NOISY where its rounds spread more than 20 %
(tools/bench_common.py). The ratio is QEMU's CPU per command over satasim's: above 1,
satasim is faster.

satasim runs in three variants, interleaved with QEMU in each round: the dword level with
its fast path (the default, model/link/link_fast_path.h), the dword level ticking every
frame (SATASIM_LINK_FASTPATH=off) and the FIS level. For the dword variants the link's
dword clocks per CPU second are given too (result.json's dword_cycles over the workload's
CPU time, start-up excluded the same way).

Usage: /usr/bin/python3 tools/bench_qemu.py [--count N] [--repeat N] [--bin build/bin/satasim]
                                            [--variants dword,dword-ticked,fis] [--json FILE]
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import Figure, run_scenario  # noqa: E402

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


# satasim's variants: (backend, environment)
VARIANTS = {
    "dword": ("systemc", {"SATASIM_LINK_MODE": "dword", "SATASIM_LINK_FASTPATH": "on"}),
    "dword-ticked": ("systemc", {"SATASIM_LINK_MODE": "dword", "SATASIM_LINK_FASTPATH": "off"}),
    "fis": ("systemc", {"SATASIM_LINK_MODE": "fis"}),
    "qemu": ("qemu", {}),
}


def run_one(binary, path, out, backend, extra_env):
    """One run; returns (result.json, CPU seconds of the process tree)."""
    return run_scenario("bench_qemu", binary, path, out, "--backend", backend, "--wall-limit", "3600",
                        env=extra_env)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000, help="commands per workload")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--bin", default=str(ROOT / "build" / "bin" / "satasim"))
    parser.add_argument("--variants", default="dword,dword-ticked,fis",
                        help="satasim variants beside QEMU, comma-separated: " + ", ".join(v for v in VARIANTS if v != "qemu"))
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()
    binary = Path(args.bin)
    if not binary.exists():
        sys.exit(f"bench_qemu: {binary} not found; build it first (tools/build.sh build --target satasim)")
    if not shutil.which(os.environ.get("SATASIM_QEMU", "qemu-system-x86_64")):
        sys.exit("bench_qemu: qemu-system-x86_64 not found (Debian package qemu-system-x86)")

    variants = [v for v in args.variants.split(",") if v] + ["qemu"]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        sys.exit(f"bench_qemu: unknown variant(s) {unknown}; known: {', '.join(VARIANTS)}")
    per_cmd = {b: {w: [] for w in WORKLOADS} for b in variants}  # CPU µs per command, per round
    cycles_per_cpu = {b: {w: [] for w in WORKLOADS} for b in variants}  # dword clocks per CPU s
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = {"probe": tmp / "probe.yaml"}
        files["probe"].write_text(HEADER.format(name="probe"))
        for name, w in WORKLOADS.items():
            files[name] = tmp / f"{name}.yaml"
            files[name].write_text(HEADER.format(name=name) + "workload:\n" + w.format(n=args.count))
        for i in range(args.repeat):
            for name in WORKLOADS:
                for v in variants:  # side by side: probe and workload, one variant after the other
                    backend, env = VARIANTS[v]
                    p, probe_cpu = run_one(binary, files["probe"], tmp / f"o-{v}-p{i}-{name}", backend, env)
                    r, cpu = run_one(binary, files[name], tmp / f"o-{v}-{name}-{i}", backend, env)
                    work_cpu = max(cpu - probe_cpu, 1e-9)
                    per_cmd[v][name].append(work_cpu / args.count * 1e6)
                    cycles = sum(lk.get("dword_cycles", 0) for lk in r.get("links", [])) - \
                        sum(lk.get("dword_cycles", 0) for lk in p.get("links", []))
                    if cycles > 0:
                        cycles_per_cpu[v][name].append(cycles / work_cpu / 1e6)

    results = {"count": args.count, "rounds": args.repeat, "variants": variants}
    print(f"{args.count} commands per workload, {args.repeat} interleaved rounds, median; CPU time per command "
          f"over each run's process tree, start-up excluded")
    sims = [v for v in variants if v != "qemu"]
    print(f"{'workload':<18} {'qemu µs':>9} " + " ".join(f"{v + ' µs':>16} {'ratio':>7}" for v in sims))
    for name in WORKLOADS:
        q = Figure(per_cmd["qemu"][name])
        results[name] = {"qemu_us_per_cmd": q.as_dict()}
        line = f"{name:<18} {q.median:>9.1f}{q.note()} "
        for v in sims:
            s = Figure(per_cmd[v][name])
            ratio = Figure([qq / ss for ss, qq in zip(s.values, q.values)])
            entry = {"us_per_cmd": s.as_dict(), "ratio": ratio.as_dict()}
            if cycles_per_cpu[v][name]:
                entry["m_dword_cycles_per_cpu_s"] = Figure(cycles_per_cpu[v][name]).as_dict()
            results[name][v] = entry
            line += f"{s.median:>16.1f} {ratio.median:>6.2f}x{s.note()}{ratio.note()}"
        print(line)
    for v in sims:
        for name in WORKLOADS:
            if cycles_per_cpu[v][name]:
                c = Figure(cycles_per_cpu[v][name])
                print(f"link dword clocks per CPU second, {v}, {name}: {c.median:.1f} M{c.note()}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
