"""Differential runs: one scenario on the SystemC models and on QEMU's AHCI, compared.

What is compared (everything the stack saw and decided that does not depend on timing):
the verdict and its reasons, every probed device's identity and configuration
(result.json devices[]), empty ports, I/O and data errors, each workload's counts, bytes
moved, and the stack's log lines (satasim.log without timestamps and without the harness's
own `satasim:` lines). Timing (sim/wall time, IRQ counts, trace event counts) is not
compared: QEMU runs in real time.

A difference is known when it matches the reviewed list (harness/tests/qemu_known_differences.yaml).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from .results import load_result, run

ROOT = Path(__file__).resolve().parents[2]
KNOWN_DIFFERENCES = ROOT / "harness" / "tests" / "qemu_known_differences.yaml"

DEVICE_FIELDS = ("class", "model", "serial", "firmware", "sectors", "lba48", "ncq", "ncq_depth",
                 "max_sectors", "multi", "xfer", "xfer_mode", "link_gen", "link_speed")
WORKLOAD_FIELDS = ("completed", "errors", "reads", "writes", "flushes", "bytes", "data_errors")


def qemu_binary() -> str | None:
    return shutil.which(os.environ.get("SATASIM_QEMU", "qemu-system-x86_64"))


def qemu_unavailable_reason() -> str | None:
    """None if QEMU can be used, else why not (for a visible pytest.skip)."""
    exe = qemu_binary()
    if not exe:
        return ("qemu-system-x86_64 is not installed (Debian package qemu-system-x86; "
                "tools/install_deps.sh installs it): QEMU backend tests skipped")
    try:
        subprocess.run([exe, "--version"], capture_output=True, timeout=20, check=True)
    except (OSError, subprocess.SubprocessError) as e:
        return f"{exe} does not run ({e}): QEMU backend tests skipped"
    return None


@dataclass(frozen=True)
class Difference:
    scenario: str
    what: str      # "device[0].xfer", "log", "verdict", ...
    systemc: object
    qemu: object

    def __str__(self):
        return f"{self.scenario}: {self.what}: systemc={self.systemc!r} qemu={self.qemu!r}"


def load_known(path=KNOWN_DIFFERENCES) -> dict:
    data = yaml.safe_load(Path(path).read_text()) or {}
    for kind in ("fields", "log"):
        for e in data.get(kind, []):
            if not e.get("reason"):
                raise ValueError(f"{path}: every known difference needs a reason: {e}")
    return data


def log_lines(out_dir, name) -> list[str]:
    lines = []
    for line in (Path(out_dir) / name / "satasim.log").read_text().splitlines():
        m = re.match(r"^\[\s*[\d.]+\]\s(.*)$", line)
        text = m.group(1) if m else line
        if text.startswith("satasim:"):
            continue
        lines.append(text)
    return lines


def compare(name, sys_out, qemu_out) -> list[Difference]:
    a, b = load_result(sys_out, name), load_result(qemu_out, name)
    diffs = []

    def d(what, x, y):
        if x != y:
            diffs.append(Difference(name, what, x, y))

    d("verdict", a["verdict"], b["verdict"])
    d("reasons", a["reasons"], b["reasons"])
    d("host_started", a.get("host_started"), b.get("host_started"))
    da = {x["port"]: x for x in a["devices"]}
    db = {x["port"]: x for x in b["devices"]}
    d("device ports", sorted(da), sorted(db))
    for port in sorted(set(da) & set(db)):
        for f in DEVICE_FIELDS:
            d(f"device[{port}].{f}", da[port].get(f), db[port].get(f))
    d("empty_ports", a["empty_ports"], b["empty_ports"])
    for f in ("commands", "bytes_moved", "io_errors", "data_errors"):
        d(f, a.get(f), b.get(f))
    wa, wb = a.get("workloads", []), b.get("workloads", [])
    d("workload count", len(wa), len(wb))
    for i, (x, y) in enumerate(zip(wa, wb)):
        for f in WORKLOAD_FIELDS:
            d(f"workload[{i}].{f}", x.get(f), y.get(f))
    la, lb = Counter(log_lines(sys_out, name)), Counter(log_lines(qemu_out, name))
    for line in sorted((la - lb).elements()):
        diffs.append(Difference(name, "log", line, None))
    for line in sorted((lb - la).elements()):
        diffs.append(Difference(name, "log", None, line))
    return diffs


def is_known(diff: Difference, known: dict) -> bool:
    if diff.what == "log":
        side, line = ("systemc", diff.systemc) if diff.systemc is not None else ("qemu", diff.qemu)
        return any(e.get(side) and re.search(e[side], line) for e in known.get("log", []))
    m = re.match(r"^device\[\d+\]\.(\w+)$", diff.what)
    if not m:
        return False
    for e in known.get("fields", []):
        if e["field"] != m.group(1):
            continue
        if e.get("systemc", "*") not in ("*", diff.systemc):
            continue
        if e.get("qemu", "*") not in ("*", diff.qemu):
            continue
        return True
    return False


def run_differential(paths, out_dir, *args):
    """Runs the scenarios on both backends; returns (sys RunOutput, qemu RunOutput, diffs)."""
    out_dir = Path(out_dir)
    rs = run(paths, out_dir / "systemc", "--backend", "systemc", *args)
    rq = run(paths, out_dir / "qemu", "--backend", "qemu", *args)
    diffs = []
    names = sorted(p.name for p in (out_dir / "systemc").iterdir() if (p / "result.json").exists())
    for name in names:
        if (out_dir / "qemu" / name / "result.json").exists():
            diffs += compare(name, out_dir / "systemc", out_dir / "qemu")
        else:
            diffs.append(Difference(name, "result.json", "present", "missing"))
    return rs, rq, diffs
