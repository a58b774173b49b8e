"""Runs `satasim run` in the background and finds the processes it starts (the scenario's
`run-one` child, QEMU under it), for the tests that kill one of them mid-run."""

import os
import subprocess
import time
from pathlib import Path

from satasim.results import binary


def start_run(scenario, out, *args):
    """`satasim run SCENARIO --out OUT ARGS` as a background process (text pipes)."""
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return subprocess.Popen([str(binary()), "run", str(scenario), "--out", str(out), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _children(pid):
    """(pid, comm, argv) of pid's children."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'
        comm = stat[stat.index("(") + 1: stat.rindex(")")]
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
            out.append((int(d.name), comm, [a.decode(errors="replace") for a in argv if a]))
    return out


def find_descendant(root, match):
    """The first process below root for which match(comm, argv) holds, or None."""
    todo, seen = [root], set()
    while todo:
        for pid, comm, argv in _children(todo.pop()):
            if pid in seen:
                continue
            seen.add(pid)
            if match(comm, argv):
                return pid
            todo.append(pid)
    return None


def wait_for_descendant(proc, match, timeout=60):
    """Polls until a process below proc matches (its pid), proc ends or timeout passes (None)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        pid = find_descendant(proc.pid, match)
        if pid is not None:
            return pid
        time.sleep(0.05)
    return None
