#!/usr/bin/env python3
"""Cost against the number of disks (issue 36, scale): commands per CPU second from 1 disk to
1,000 disks behind several HBAs in one host.

Topologies: 1 disk on a 1-port HBA; 15 x K disks behind K 15-port PMPs (SiI4726-like); up to
8 PMPs on one AHCI HBA (15, 60, 120 disks), more on several 8-port AHCI HBAs in one host
(`controllers:`, each on its own interrupt line): 480 disks = 4 HBAs x 8 ports x 15, 1,000
disks = 9 HBAs x 8 ports, 67 PMPs, the last with 10 disks. Every disk runs the same verified
workload (random 4 KiB NCQ reads and writes, queue depth 4, every read checked against what
was written), all disks at once, the same --total commands split evenly over the disks, so
every topology does the same work. For each topology a probe-only run of the same topology is
subtracted, so the figure is the I/O's: commands / (CPU of the workload run - CPU of the probe
run - reading the workload section), CPU over the process tree; the probe's own CPU is given
too. Reading the workload section is setup, not I/O, and at 1,000 disks it is a thousand
entries: its CPU is measured with `satasim check` (the scenario minus the probe-only one) and
counted twice, since the runner and its run-one process each read the file (without the
correction a fifth of the 1,000-disk figure was YAML parsing). Each figure is the median
of --repeat rounds, the link levels interleaved within a round (tools/bench_common.py flags a
spread above 20 %).

--emit N writes the N-disk scenario (with --fault: a CRC storm on one fan-out link of the
last HBA) to stdout instead: scenarios/multi/multi-480disks-4hba-pmp.yaml is
`tools/bench_scale.py --emit 480 --fault --per-disk 20`.

Usage: /usr/bin/python3 tools/bench_scale.py [--bin build/bin/satasim] [--total 9600]
           [--repeat 3] [--levels dword,fis] [--sizes 1,15,60,120,480,1000] [--json FILE]
       /usr/bin/python3 tools/bench_scale.py --emit N [--fault] [--per-disk K]
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import Figure, run_measured, run_scenario, sim_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


HBA_PORTS = 8   # ports per HBA once one HBA is not enough (8-port cards)
MAX_ONE_HBA = 8


def topology(n_disks, hba_ports=None):
    """(controllers, disks): the HBAs' port counts and each disk's (controller, port, fan-out port).
    hba_ports: split the PMPs over HBAs of this many ports (default: one HBA up to 8 PMPs, then
    8-port HBAs)."""
    if n_disks == 1:
        return [1], [(0, 0, None)]
    pmps = -(-n_disks // 15)
    per_hba = hba_ports or (pmps if pmps <= MAX_ONE_HBA else HBA_PORTS)
    hbas = [per_hba] * (-(-pmps // per_hba))
    disks = []
    for i in range(n_disks):
        pmp, fan = divmod(i, 15)
        disks.append((pmp // per_hba, pmp % per_hba, fan))
    return hbas, disks


def scenario(n_disks, per_disk, probe_only, fault=False, hba_ports=None):
    """The YAML of one topology; probe_only: no workload; fault: a CRC storm on one fan-out link."""
    name = f"scale-{n_disks}" + ("-probe" if probe_only else "")
    lines = [f"name: {name}", "seed: 36", "time_limit: 3600s", "trace_cmds: false"]
    hbas, disks = topology(n_disks, hba_ports)
    if len(hbas) == 1:
        lines.append(f"controller: {{type: ahci, ports: {hbas[0]}}}")
    else:
        lines.append("controllers:")
        lines += [f"  - {{type: ahci, ports: {n}}}" for n in hbas]
    pmp_ports = sorted({(c, p) for c, p, f in disks if f is not None})

    def at(c, p, key="port"):
        return (f"controller: {c}, " if len(hbas) > 1 else "") + f"{key}: {p}"
    if pmp_ports:
        lines.append("pmps:")
        lines += [f"  - {{{at(c, p)}, ports: 15, product: sii4726}}" for c, p in pmp_ports]
    lines.append("devices:")
    for c, p, d in disks:
        where = at(c, p) + ("" if d is None else f", pmp_port: {d}")
        lines.append(f"  - {{{where}, capacity: 1g, timing: {{kind: ssd}}}}")
    if not probe_only:
        lines.append("workload:")
        for c, p, d in disks:
            where = at(c, p, "device") + ("" if d is None else f", pmp_port: {d}")
            lines.append(f"  - {{{where}, op: mix, pattern: random, block: 8, qd: 4, count: {per_disk}, "
                         "mode: ncq, region: {start: 0, length: 64m}}")
    if fault:
        c, p, _ = disks[-1]
        lines += ["faults:",
                  f"  - {{id: fanout-crc, kind: crc, {at(c, p)}, pmp_port: 3, dir: d2h, fis: data, "
                  f"on_cmd: {{op: ncq}}, every_cmds: {max(1, per_disk // 4)}, repeat: 3}}"]
    lines += ["expect:", "  all_devices_found: true", "  io_errors: 0"]
    return name, "\n".join(lines) + "\n"


def run_one(binary, path, out, level):
    return run_scenario("bench_scale", binary, path, out, env={"SATASIM_LINK_MODE": level})


# A run reads its scenario twice: the runner checks every file before it starts any, and the
# run-one process it starts reads the file again.
READS_PER_RUN = 2


def read_cpu(binary, path):
    """CPU seconds of reading one scenario file (`satasim check`, which reads it as a run does)."""
    proc, cpu, _ = run_measured([str(binary), "check", str(path)], capture_output=True, text=True, env=sim_env())
    if proc.returncode != 0:
        sys.exit(f"bench_scale: satasim check {path} failed:\n{proc.stdout}{proc.stderr}")
    return cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=str(ROOT / "build" / "bin" / "satasim"))
    ap.add_argument("--total", type=int, default=9600, help="verified commands in all, split over the disks")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--levels", default="dword,fis")
    ap.add_argument("--sizes", default="1,15,60,120,480,1000")
    ap.add_argument("--json")
    ap.add_argument("--emit", type=int, help="write this topology's scenario to stdout and stop")
    ap.add_argument("--fault", action="store_true", help="with --emit: a CRC storm on one fan-out link")
    ap.add_argument("--per-disk", type=int, default=20, help="with --emit: commands per disk")
    ap.add_argument("--hba-ports", type=int, help="with --emit: PMP ports per HBA (default: 8 on one HBA, then 8-port HBAs)")
    args = ap.parse_args()
    if args.emit:
        sys.stdout.write(scenario(args.emit, args.per_disk, False, args.fault, args.hba_ports)[1])
        return
    binary = Path(args.bin)
    if not binary.exists():
        sys.exit(f"bench_scale: {binary} not found; build it first (tools/build.sh build --target satasim)")
    sizes = [int(x) for x in args.sizes.split(",")]
    levels = args.levels.split(",")
    per_s = {(n, lv): [] for n in sizes for lv in levels}
    probe = {(n, lv): [] for n in sizes for lv in levels}
    reading = {n: [] for n in sizes}
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
                # the workload section's reading, as the probe-only file has none
                parse = READS_PER_RUN * max(0.0, read_cpu(binary, files[(n, False)]) - read_cpu(binary, files[(n, True)]))
                reading[n].append(parse)
                for lv in levels:
                    _, pcpu = run_one(binary, files[(n, True)], tmp / f"o{i}-{n}-{lv}-p", lv)
                    r, cpu = run_one(binary, files[(n, False)], tmp / f"o{i}-{n}-{lv}", lv)
                    commands = n * max(1, args.total // n)
                    per_s[(n, lv)].append(commands / max(cpu - pcpu - parse, 1e-9))
                    probe[(n, lv)].append(pcpu)
    results = {"total": args.total, "rounds": args.repeat, "figures": []}
    print(f"{args.total} verified 4 KiB NCQ commands split over the disks, all at once; {args.repeat} rounds, "
          "median; commands per CPU second of the I/O (probe-only run and the workload section's reading subtracted)")
    print(f"{'disks':>6} {'reading CPU s':>13} " +
          " ".join(f"{lv + ' cmd/CPU s':>18} {'vs 1 disk':>9} {lv + ' probe CPU s':>17}" for lv in levels))
    for n in sizes:
        r = Figure(reading[n])
        line = f"{n:>6} {r.median:>13.3f} "
        for lv in levels:
            f, p = Figure(per_s[(n, lv)]), Figure(probe[(n, lv)])
            base = Figure(per_s[(sizes[0], lv)]).median
            line += f"{f.median:>18.0f} {f.median / base:>8.2f}x {p.median:>17.2f}{f.note()}"
            results["figures"].append({"disks": n, "level": lv, "commands_per_cpu_s": f.as_dict(),
                                       "probe_cpu_s": p.as_dict(), "reading_cpu_s": r.as_dict()})
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
