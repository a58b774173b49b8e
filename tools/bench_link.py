#!/usr/bin/env python3
"""Link benchmark table (issue 3), every figure from one run on this machine.

Runs build/bin/bench_link (bare block, bare pair, full path, idle-heavy link) and then the
simulator's 4 KiB NCQ QD32 random-read benchmark (scenarios/bench/) with the cycle-level
link (SATASIM_LINK_MODE=dword) and the FIS-level link (=fis), and prints one Markdown table
with the targets. Needs a Release build of the bench_link and satasim targets.

Each figure is given twice: per wall second (the targets) and per CPU second of the
measuring process (bench_link --cpu; the simulator's user+system time), which a shared,
loaded machine disturbs much less; compare the two to see how much the load cost.

Usage: /usr/bin/python3 tools/bench_link.py [--build build] [--seconds 3] [--repeat 3]
"""

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "bench" / "ncq-qd32-4k-randread.yaml"


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def env(**extra):
    return dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1", **extra)


def run_bench_link(binary, seconds, cpu=False):
    proc = subprocess.run([str(binary), str(seconds), "--kv"] + (["--cpu"] if cpu else []),
                          capture_output=True, text=True, env=env())
    if proc.returncode != 0:
        sys.exit(f"bench_link failed:\n{proc.stdout}{proc.stderr}")
    kv = {}
    for line in proc.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            kv[key.strip()] = float(value)
    return kv


def child_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_qd32(binary, mode, repeat, tmp):
    """Median commands per wall second and per CPU second (whole process, start-up too)."""
    rates, cpu_rates = [], []
    for i in range(repeat):
        out = Path(tmp) / f"{mode}{i}"
        cpu0 = child_cpu_seconds()
        proc = subprocess.run([str(binary), "run", str(SCENARIO), "--out", str(out)],
                              capture_output=True, text=True, env=env(SATASIM_LINK_MODE=mode))
        cpu = child_cpu_seconds() - cpu0
        if proc.returncode != 0:
            sys.exit(f"satasim ({mode}) failed:\n{proc.stdout}{proc.stderr}")
        (result_file,) = out.glob("*/result.json")
        res = json.loads(result_file.read_text())
        rate = res["commands_per_wall_second"]
        rates.append(rate)
        cpu_rates.append(rate * res["wall_time_s"] / cpu if cpu > 0 else 0.0)
    return statistics.median(rates), statistics.median(cpu_rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"), help="build tree (Release)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="bench_link seconds per measurement (a, b, c)")
    parser.add_argument("--repeat", type=int, default=3, help="simulator runs per link mode (median)")
    args = parser.parse_args()
    bindir = Path(args.build) / "bin"
    bench, sim = bindir / "bench_link", bindir / "satasim"
    for b in (bench, sim):
        if not b.exists():
            sys.exit(f"bench_link.py: {b} not found; build the bench_link and satasim targets")

    load_before = os.getloadavg()[0]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    kv = run_bench_link(bench, args.seconds)
    kc = run_bench_link(bench, args.seconds, cpu=True)
    with tempfile.TemporaryDirectory() as tmp:
        dword, dword_cpu = run_qd32(sim, "dword", args.repeat, tmp)
        fis, fis_cpu = run_qd32(sim, "fis", args.repeat, tmp)
    load_after = os.getloadavg()[0]

    a, b, c = kv["bare_block"], kv["bare_pair"], kv["full_path"]
    ac, bc, cc = kc["bare_block"], kc["bare_pair"], kc["full_path"]
    rows = [
        ("a. bare link block (one verilated sata_link) ticked in a C++ loop, frame moving",
         f"{a / 1e6:.1f} M dword-cycles/s", "100%", f"{ac / 1e6:.1f} M/s", "reference", ""),
        ("b. bare pair: host + device blocks back to back, C++ cable (LinkRtlPair)",
         f"{b / 1e6:.1f} M dword-cycles/s", f"{100 * b / a:.0f}%",
         f"{bc / 1e6:.1f} M/s ({100 * bc / ac:.0f}%)", "", ""),
        ("c. full path: SataLink dword mode in SystemC, transport callbacks, 8 KiB Data FISes",
         f"{c / 1e6:.1f} M dword-cycles/s", f"{100 * c / a:.0f}%",
         f"{cc / 1e6:.1f} M/s ({100 * cc / ac:.0f}%)",
         ">= 10 M/s and >= 50% of a", "met" if c >= 10e6 and c >= 0.5 * a else "missed"),
        ("d. idle-heavy link: a 4 KiB Data FIS every 100 ms for 60 s simulated, dword level",
         f"{kv['idle_dword_x']:,.0f}x real time", "", f"{kc['idle_dword_x']:,.0f}x", "> 1000x",
         "met" if kv["idle_dword_x"] > 1000 else "missed"),
        ("d'. same, FIS level", f"{kv['idle_fis_x']:,.0f}x real time", "",
         f"{kc['idle_fis_x']:,.0f}x", "", ""),
        ("e. 4 KiB NCQ QD32 random reads (whole simulator), cycle-level link",
         f"{dword:,.0f} commands/s", "", f"{dword_cpu:,.0f}/s", ">= 5 k",
         "met" if dword >= 5000 else "missed"),
        ("e'. same, FIS-level link", f"{fis:,.0f} commands/s", "", f"{fis_cpu:,.0f}/s", ">= 50 k",
         "met" if fis >= 50000 else "missed"),
    ]
    print("| measurement | figure (wall) | vs a | per CPU second | target | |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print(f"Run {started} on {os.cpu_count()} CPUs ({cpu_model()}); load average "
          f"{load_before:.1f} before, {load_after:.1f} after; bench_link {args.seconds:g} s per "
          f"item (median of 3 interleaved rounds), simulator median of {args.repeat} runs per mode.")


if __name__ == "__main__":
    main()
