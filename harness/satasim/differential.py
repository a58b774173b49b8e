"""Differential runs: one scenario on the SystemC models and on another backend (QEMU's AHCI,
or a controller RTL through --controller-rtl), compared. One comparison for every pairing:
the other side is named by `side` ("qemu", "rtl"), which is also its key in a
known-differences file.

What is compared (everything the stack saw and decided that does not depend on timing):
the verdict and its reasons, every probed device's identity and configuration
(result.json devices[]), empty ports, I/O and data errors, each workload's counts, bytes
moved, and the stack's log lines (satasim.log without timestamps and without the harness's
own `satasim:` lines). Timing (sim/wall time, IRQ counts, trace event counts) is not
compared: QEMU runs in real time.

The EH decision sequence (the trace's golden events without fault records, timing
ignored) is compared by eh_lines / eh_differences / unexplained_eh.

A difference is known when it matches the reviewed list (harness/tests/qemu_known_differences.yaml
for QEMU, model/ahci_rtl/known_differences.yaml for the reference RTL). An entry may carry
`scenario` (a name or a list of names / fnmatch globs): then it only excuses those scenarios.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from .golden import events_from_trace
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
    other: object  # the value on the other backend
    side: str = "qemu"

    def __str__(self):
        return f"{self.scenario}: {self.what}: systemc={self.systemc!r} {self.side}={self.other!r}"


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


def compare(name, sys_out, other_out, side="qemu") -> list[Difference]:
    a, b = load_result(sys_out, name), load_result(other_out, name)
    diffs = []

    def d(what, x, y):
        if x != y:
            diffs.append(Difference(name, what, x, y, side))

    d("verdict", a["verdict"], b["verdict"])
    d("reasons", a["reasons"], b["reasons"])
    d("host_started", a.get("host_started"), b.get("host_started"))
    da = {x["port"]: x for x in a["devices"]}
    db = {x["port"]: x for x in b["devices"]}
    d("device ports", sorted(da), sorted(db))
    for port in sorted(set(da) & set(db)):
        for f in DEVICE_FIELDS:
            d(f"device[{port}].{f}", da[port].get(f), db[port].get(f))
    d("empty_ports", a.get("empty_ports"), b.get("empty_ports"))   # only where the scenario expects some
    for f in ("commands", "bytes_moved", "io_errors", "data_errors"):
        d(f, a.get(f), b.get(f))
    wa, wb = a.get("workloads", []), b.get("workloads", [])
    d("workload count", len(wa), len(wb))
    for i, (x, y) in enumerate(zip(wa, wb)):
        for f in WORKLOAD_FIELDS:
            d(f"workload[{i}].{f}", x.get(f), y.get(f))
    la, lb = Counter(log_lines(sys_out, name)), Counter(log_lines(other_out, name))
    for line in sorted((la - lb).elements()):
        diffs.append(Difference(name, "log", line, None, side))
    for line in sorted((lb - la).elements()):
        diffs.append(Difference(name, "log", None, line, side))
    return diffs


def applies(entry: dict, scenario: str) -> bool:
    """Whether a known-differences entry covers this scenario (no `scenario` key: every one)."""
    pats = entry.get("scenario")
    if pats is None:
        return True
    pats = [pats] if isinstance(pats, str) else pats
    return any(fnmatch.fnmatchcase(scenario, p) for p in pats)


def is_known(diff: Difference, known: dict) -> bool:
    entries = lambda kind: [e for e in known.get(kind, []) if applies(e, diff.scenario)]
    if diff.what == "log":
        side, line = ("systemc", diff.systemc) if diff.systemc is not None else (diff.side, diff.other)
        return any(e.get(side) and re.search(e[side], line) for e in entries("log"))
    m = re.match(r"^device\[\d+\]\.(\w+)$", diff.what)
    field = m.group(1) if m else diff.what
    for e in entries("fields"):
        if e["field"] != field:
            continue
        if e.get("systemc", "*") not in ("*", diff.systemc):
            continue
        if e.get(diff.side, "*") not in ("*", diff.other):
            continue
        return True
    return False


def run_differential(paths, out_dir, *args, other=("--backend", "qemu"), side="qemu"):
    """Runs the scenarios on the SystemC models and on the other backend (`other`: its
    `satasim run` options); returns (sys RunOutput, other RunOutput, diffs)."""
    out_dir = Path(out_dir)
    rs = run(paths, out_dir / "systemc", "--backend", "systemc", *args)
    rq = run(paths, out_dir / side, *other, *args)
    diffs = []
    names = sorted(p.name for p in (out_dir / "systemc").iterdir() if (p / "result.json").exists())
    for name in names:
        if (out_dir / side / name / "result.json").exists():
            diffs += compare(name, out_dir / "systemc", out_dir / side, side)
        else:
            diffs.append(Difference(name, "result.json", "present", "missing", side))
    return rs, rq, diffs


# ---- EH decision sequences -------------------------------------------------------------

def eh_lines(run_dir) -> list[str]:
    """The EH decision sequence of a run: golden events without fault records, no time."""
    out = []
    for e in events_from_trace(Path(run_dir) / "trace.jsonl"):
        if ":" in e.ev:      # fault.* / model records
            continue
        out.append(f"{e.addr}  {e.ev}  {e.msg}  {e.fields_text()}".replace("    ", "  "))
    return out


def _kind(line):
    return " ".join(line.split("  ")[:2])     # "ata1.00 eh.failed_qc"


def eh_differences(sys_lines, other_lines):
    """(systemc line | None, other line | None) for every difference between the sequences:
    a changed event is a pair (same address and event), a missing one is one-sided."""
    out = []
    sm = difflib.SequenceMatcher(None, sys_lines, other_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        a, b, j = sys_lines[i1:i2], other_lines[j1:j2], 0
        for line in a:
            k = next((k for k in range(j, len(b)) if _kind(b[k]) == _kind(line)), None)
            if k is None:
                out.append((line, None))
                continue
            out += [(None, x) for x in b[j:k]]
            out.append((line, b[k]))
            j = k + 1
        out += [(None, x) for x in b[j:]]
    return out


def eh_known(known, sys_line, other_line, side="qemu", scenario=None) -> bool:
    """A reviewed `eh:` entry explains this pair (or this one-sided line, the other None)."""
    for e in known.get("eh", []):
        if scenario is not None and not applies(e, scenario):
            continue
        s, q = e.get("systemc"), e.get(side)
        if (s is None) != (sys_line is None) or (q is None) != (other_line is None):
            continue
        if (s is None or re.search(s, sys_line)) and (q is None or re.search(q, other_line)):
            return True
    return False


def unexplained_eh(sys_lines, other_lines, known, side="qemu", scenario=None):
    return [d for d in eh_differences(sys_lines, other_lines)
            if not eh_known(known, *d, side=side, scenario=scenario)]
