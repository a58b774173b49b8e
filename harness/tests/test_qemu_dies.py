"""QEMU dying in the middle of a workload: the run must fail promptly with a reason that
names how QEMU ended (not hang until the wall limit, not a bare socket error)."""

import os
import signal
import subprocess
import time

import pytest

from process_tree import start_run, wait_for_descendant
from satasim import load_result
from satasim.differential import qemu_unavailable_reason

pytestmark = pytest.mark.skipif(bool(qemu_unavailable_reason()), reason=qemu_unavailable_reason() or "")

LONG = """\
name: qemu-dies
backend: qemu
time_limit: 3600s
controller: {type: ahci, ports: 1}
devices:
  - {port: 0, capacity: 1g}
workload:
  - {device: 0, op: read, pattern: random, block: 8, qd: 32, count: 5000000, mode: ncq,
     region: {start: 0, length: 64m}}
"""


def test_qemu_killed_mid_workload_fails_naming_its_exit(tmp_path):
    scen = tmp_path / "long.yaml"
    scen.write_text(LONG)
    out = tmp_path / "out"
    proc = start_run(scen, out, "--wall-limit", "300")
    try:
        qemu = wait_for_descendant(proc, lambda comm, argv: comm.startswith("qemu-system"))
        assert qemu is not None, "QEMU never started: " + (proc.stderr.read() if proc.poll() is not None else "")
        time.sleep(1.5)   # boot probe done (0.3 s), the workload running
        assert proc.poll() is None, "the run ended before QEMU was killed"
        os.kill(qemu, signal.SIGKILL)
        killed = time.monotonic()
        stdout, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("satasim hung after QEMU was killed (no failure within 60 s)")
    elapsed = time.monotonic() - killed
    assert elapsed < 30, f"the failure took {elapsed:.1f} s after QEMU died"
    assert proc.returncode == 1, stdout + stderr
    res = load_result(out, "qemu-dies")
    assert res["verdict"] == "fail"
    why = "\n".join(res["reasons"])
    assert "QEMU killed by signal 9" in why, why
    assert "qemu/qtest" in why, why
    assert "QEMU killed by signal 9" in stdout, stdout
    log = (out / "qemu-dies" / "satasim.log").read_text()
    assert "configured for UDMA/100" in log, "QEMU was not killed during the workload"
