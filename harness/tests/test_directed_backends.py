"""The project's directed register scenarios (scenarios/directed/) on every backend: the
SystemC models, the reference RTL (backend rtl) and QEMU's AHCI (backend qemu) read and
write the same registers through the same steps (run/directed_steps.cpp over the backend's
HardwareView). The models pass them all; on the other targets every failing or skipped
step must be one of directed_known_differences.yaml, classified against AHCI 1.3.1, and
every listed one must still fail (or be skipped). Each backend's run takes a few seconds."""

import re
import shutil
from pathlib import Path

import pytest
import yaml

from rtl_profiles import PROFILE
from satasim import load_result, load_trace, run
from satasim.differential import qemu_unavailable_reason
from satasim.results import ROOT

DIRECTED = ROOT / "scenarios" / "directed"
AHCI = ["ahci-reset-values", "ahci-comreset", "ahci-identify"]
KNOWN = yaml.safe_load((Path(__file__).parent / "directed_known_differences.yaml").read_text())
STEP = re.compile(r"^\S+:\d+: steps\[(\d+)\] ")

no_verilator = pytest.mark.skipif(shutil.which("verilator") is None,
                                  reason="verilator is not installed (tools/install_deps.sh): rtl backend skipped")
no_qemu = pytest.mark.skipif(bool(qemu_unavailable_reason()), reason=qemu_unavailable_reason() or "")


def step_indices(lines):
    """The step indices that "file:line: steps[i] kind: ..." lines name."""
    out = set()
    for line in lines:
        m = STEP.match(line)
        assert m, line
        out.add(int(m.group(1)))
    return out


def paths(names):
    return [DIRECTED / f"{n}.yaml" for n in names]


def check_against_known(out, backend, names):
    """Each scenario's failing and skipped steps are exactly the listed ones, of their class."""
    for n in names:
        name = f"directed-{n}"
        res = load_result(out, name)
        known = KNOWN[backend].get(name) or {}
        failed = step_indices(res["reasons"])
        skipped = step_indices(res.get("steps_skipped", []))
        assert failed == {i for i, k in known.items() if k["class"] != "skipped"}, (name, res["reasons"])
        assert skipped == {i for i, k in known.items() if k["class"] == "skipped"}, (name, res.get("steps_skipped"))
        assert res["verdict"] == ("fail" if failed else "pass"), (name, res["reasons"])
        for i, k in known.items():
            assert k["class"] in ("deviation", "capability", "skipped"), (name, i)
            assert k["class"] == "skipped" or k.get("spec"), (name, i)
        # a skipped step is a record with its reason, never silently dropped
        trace = load_trace(out, name)
        skips = [r for r in trace if r["ev"] == "step.skip"]
        assert {r["f"]["index"] for r in skips} == skipped, name
        assert all(f"skipped on backend {backend}: " in r["msg"] for r in skips), skips


def test_systemc_models_pass_every_directed_ahci_scenario(tmp_path):
    r = run(paths(AHCI), tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    for n in AHCI:
        res = load_result(tmp_path, f"directed-{n}")
        assert res["verdict"] == "pass" and "steps_skipped" not in res, res


@no_verilator
def test_reference_rtl_runs_the_directed_scenarios(tmp_path, rtl_env):
    # The power-on COMRESET reaches the disk (ahci-comreset's first step: PxSSTS.DET 3, then
    # the signature in PxTFD): before the shell told a COMRESET asserted and released between
    # two services as both, PxSSTS stayed 1 (phy_port_test.cpp).
    r = run(paths(AHCI), tmp_path, "--controller-rtl", str(PROFILE), "--skip-refused")
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"SKIP\s+directed-ahci-reset-values\s+.*cannot model controller\.ports 2: the DUT has 1 port",
                     r.stdout), r.stdout
    assert "2 passed, 0 failed, 1 skipped" in r.stdout, r.stdout
    check_against_known(tmp_path, "rtl", ["ahci-comreset", "ahci-identify"])
    trace = load_trace(tmp_path, "directed-ahci-comreset")
    first = next(t for t in trace if t["ev"] == "link.comreset")
    assert first["t_ns"] < 1000, first  # the DUT's power-on COMRESET (SPINUP clocks), before any step


@no_verilator
def test_reference_rtl_reset_values_on_two_ports(tmp_path, rtl_env):
    # The reset values (CAP, GHC, PI, VS, the empty port's and the disk's port registers) on
    # a 2-port build of the reference (profile-ppm2.yaml): all as the model's.
    r = run(paths(["ahci-reset-values"]), tmp_path, "--controller-rtl",
            str(PROFILE.parent / "profile-ppm2.yaml"))
    assert r.returncode == 0, r.stdout + r.stderr
    check_against_known(tmp_path, "rtl", ["ahci-reset-values"])


@no_verilator
def test_device_fis_and_inject_steps_on_the_dut(write_scenario, tmp_path, rtl_env):
    # The device side and the fault engine are the SystemC models' on the RTL backend too:
    # a D2H Register FIS with ERR from the device reaches the DUT's PxTFD, PxIS.TFES and
    # its FIS area (AHCI 1.3.1 3.3.5, 3.3.8, 4.2.1); an unplug takes PxSSTS.DET to 0.
    head = "controller: {type: ahci, ports: 1}\ndevices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]\nsteps:\n"
    fis = write_scenario("name: dfis\n" + head + """\
  - alloc: {name: rfis, size: 256, align: 256}
  - poll: {offset: 0x128, mask: 0xf, value: 3, timeout: 100ms}
  - poll: {offset: 0x120, mask: 0x80, value: 0, timeout: 10ms}
  - mmio_write: {offset: 0x108, value: "${rfis}"}
  - mmio_write: {offset: 0x118, value: 0x16}
  - mmio_write: {offset: 0x130, value: 0xffffffff}
  - mmio_write: {offset: 0x110, value: 0xffffffff}
  - mmio_write: {offset: 0x114, value: 0x40000001}
  - mmio_write: {offset: 0x04, value: 0x80000002}
  - device_fis: {port: 0, fis: {type: reg_d2h, status: 0x51, error: 0x04}}
  - wait_irq: {timeout: 1ms}
  - mmio_read: {offset: 0x120, expect: 0x0451, mask: 0xffff}
  - mmio_read: {offset: 0x110, expect: 0x40000001, mask: 0x40000001}
  - mem_expect: {addr: "${rfis}+0x40", bytes: [0x34, 0x40, 0x51, 0x04]}
""", "dfis.yaml")
    inj = write_scenario("name: inj\n" + head + """\
  - poll: {offset: 0x128, mask: 0xf, value: 3, timeout: 100ms}
  - inject: {kind: unplug, port: 0, id: pull}
  - poll: {offset: 0x128, mask: 0xf, value: 0, timeout: 1ms}
  - expect_trace: {ev: fault.inject, src: fault, fields: {id: pull, kind: unplug}}
""", "inj.yaml")
    r = run([fis, inj], tmp_path / "out", "--controller-rtl", str(PROFILE))
    assert r.returncode == 0, r.stdout + r.stderr
    for n in ["dfis", "inj"]:
        res = load_result(tmp_path / "out", n)
        assert res["verdict"] == "pass" and "steps_skipped" not in res, res


@no_qemu
def test_qemu_runs_the_directed_scenarios_with_its_known_differences(tmp_path):
    r = run(paths(AHCI), tmp_path, "--backend", "qemu", "--skip-refused")
    assert r.returncode == 1, r.stdout + r.stderr  # QEMU's deviations fail their steps
    assert re.search(r"SKIP\s+directed-ahci-reset-values\s+.*cannot model controller\.gen 3", r.stdout), r.stdout
    assert "0 passed, 2 failed, 1 skipped" in r.stdout, r.stdout
    check_against_known(tmp_path, "qemu", ["ahci-comreset", "ahci-identify"])
    # the polls for what QEMU never does end at their deadline without a read per interval
    for n in ["ahci-comreset", "ahci-identify"]:
        res = load_result(tmp_path, f"directed-{n}")
        assert res["qemu_round_trips"] < 1000, res["qemu_round_trips"]
