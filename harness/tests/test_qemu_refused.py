"""Scenarios asking for what QEMU's AHCI cannot model are refused up front (exit 2, nothing
written), with a message naming the feature and the scenario key. No QEMU needed."""

import pytest

from satasim import run

BASE = """\
name: refused
{top}controller: {{type: ahci, ports: {ports}{ctl}}}
devices:
  - {{port: 0{dev}}}
"""

CASES = [
    # (top-level, ports, controller extra, device extra, expected text)
    ("", 8, "", "", "controller.ports 8: QEMU's ICH9 AHCI has 6 ports"),
    ("", 1, ", gen: 3", "", "controller.gen 3: QEMU's AHCI links are Gen1"),
    ("", 1, "", ", gen: 2", "devices[port 0].gen 2: QEMU's SATA links are Gen1"),
    ("", 1, "", ", ncq_order: reverse", "devices[port 0].ncq_order reverse: NCQ reorder policies"),
    ("", 1, "", ", lba48: false", "devices[port 0].lba48 false"),
    ("", 1, "", ", ncq: false", "devices[port 0].ncq false"),
    ("", 1, ", slots: 8", "", "controller.slots 8"),
    ("trace_fis: true\n", 1, "", "", "trace_fis true"),
]


@pytest.mark.parametrize("top,ports,ctl,dev,expected", CASES)
def test_refused_with_feature_named(top, ports, ctl, dev, expected, write_scenario, tmp_path):
    path = write_scenario(BASE.format(top=top, ports=ports, ctl=ctl, dev=dev))
    out = tmp_path / "out"
    result = run([path], out, "--backend", "qemu")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "backend qemu: the QEMU backend cannot model " + expected in result.stderr, result.stderr
    assert not out.exists() or not any(out.iterdir())


def test_backend_key_refused_too(write_scenario, tmp_path):
    path = write_scenario(BASE.format(top="backend: qemu\n", ports=1, ctl="", dev=", ncq_order: random"))
    result = run([path], tmp_path / "out")
    assert result.returncode == 2
    assert "devices[port 0].ncq_order random: NCQ reorder policies cannot be modelled" in result.stderr


def test_gen1_and_defaults_are_accepted_by_check(write_scenario, tmp_path):
    # gen 1 explicitly, everything else default: nothing to refuse (validated, not run).
    path = write_scenario(BASE.format(top="backend: qemu\n", ports=6, ctl=", gen: 1", dev=", gen: 1"))
    from satasim.results import binary
    import subprocess
    proc = subprocess.run([str(binary()), "check", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_unknown_backend_is_a_usage_error(write_scenario, tmp_path):
    path = write_scenario(BASE.format(top="backend: bochs\n", ports=1, ctl="", dev=""))
    result = run([path], tmp_path / "out")
    assert result.returncode == 2
    assert "backend: unknown value 'bochs' (expected one of: systemc, qemu, rtl)" in result.stderr
    result = run([path], tmp_path / "out", "--backend", "bochs")
    assert result.returncode == 2 and "--backend: expected systemc, qemu or rtl" in result.stderr


def test_qemu_start_failure_names_what_failed(write_scenario, tmp_path, monkeypatch):
    monkeypatch.setenv("SATASIM_QEMU", "/nonexistent/qemu-system-x86_64")
    path = write_scenario("name: noqemu\nbackend: qemu\ncontroller: {type: ahci, ports: 1}\n"
                          "devices: [{port: 0, capacity: 1g}]\n")
    result = run([path], tmp_path / "out")
    assert result.returncode == 1
    assert ("qemu/qtest: QEMU (/nonexistent/qemu-system-x86_64) exited before connecting to the qtest "
            "socket; QEMU stderr: cannot execute /nonexistent/qemu-system-x86_64") in result.stdout
