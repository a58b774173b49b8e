"""What the side-by-side benchmarks share (tools/bench_qemu.py, bench_pmp.py, bench_scale.py): a run's
CPU time over its whole process tree, medians with their spread, and the flag for a figure
too noisy to trust. The machines are shared: CPU time is the fair figure (a loaded core
stretches wall time, not CPU time), the two sides run interleaved round by round (a load
change lands on both), and each figure is the median of the rounds with its spread."""

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

# A figure whose rounds spread more than this around their median is flagged.
NOISY_SPREAD = 0.20


def children_cpu() -> float:
    """CPU seconds (user + system) of every descendant waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_measured(cmd, **kw):
    """Runs cmd to its end; returns (CompletedProcess, CPU seconds of its whole process
    tree, wall seconds). The tree's CPU counts because each process waits for its own
    children (satasim run -> run-one -> qemu), so their time reaches RUSAGE_CHILDREN."""
    cpu0, t0 = children_cpu(), time.monotonic()
    proc = subprocess.run(cmd, **kw)
    return proc, children_cpu() - cpu0, time.monotonic() - t0


def sim_env():
    return dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


def run_scenario(tool, binary, path, out, *args, env=None):
    """`satasim run PATH --out OUT --jobs 1 ARGS` measured (run_measured); returns (its
    result.json, CPU seconds of the process tree). A run that fails, does not pass or reads
    back wrong data ends the benchmark (exit with the tool's name): its figure would mean
    nothing."""
    full_env = sim_env()
    full_env.update(env or {})
    cmd = [str(binary), "run", str(path), "--out", str(out), "--jobs", "1", *args]
    proc, cpu, _ = run_measured(cmd, capture_output=True, text=True, env=full_env)
    if proc.returncode != 0:
        sys.exit(f"{tool}: {' '.join(cmd)} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    result = json.loads((Path(out) / Path(path).stem / "result.json").read_text())
    if result["verdict"] != "pass" or result.get("data_errors", 0):
        sys.exit(f"{tool}: {path} did not pass: {result.get('reasons')}")
    return result, cpu


class Figure:
    """One measured quantity over the rounds: median, spread and its noise flag."""

    def __init__(self, values):
        self.values = list(values)
        self.median = statistics.median(self.values)
        self.spread = (max(self.values) - min(self.values)) / self.median if self.median else 0.0

    @property
    def noisy(self) -> bool:
        return len(self.values) > 1 and self.spread > NOISY_SPREAD

    def note(self) -> str:
        return f" (NOISY: spread {self.spread:.0%})" if self.noisy else ""

    def as_dict(self) -> dict:
        return {"median": self.median, "values": self.values, "spread": self.spread, "noisy": self.noisy}
