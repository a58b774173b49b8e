"""Port multipliers in scenarios (pmps[], devices[].pmp_port): what is refused, with file and line."""

import subprocess

import pytest

from satasim import run
from satasim.results import binary

HEAD = """\
name: bad
seed: 1
controller: {type: ahci, ports: 2}
"""
PMP0 = "pmps:\n  - {port: 0, ports: 3}\n"
DISK01 = "devices:\n  - {port: 0, pmp_port: 1}\n"

CASES = {
    # pmp on a port that has a direct disk
    "pmp-on-direct-disk-port": (HEAD + PMP0 + "devices:\n  - {port: 0}\n", 7, "devices[0].port"),
    # pmp_port beyond the PMP's ports
    "pmp-port-beyond-ports": (HEAD + PMP0 + "devices:\n  - {port: 0, pmp_port: 3}\n", 7, "pmp_port"),
    # two disks on one fan-out port
    "two-disks-one-fanout-port": (
        HEAD + PMP0 + "devices:\n  - {port: 0, pmp_port: 1}\n  - {port: 0, pmp_port: 1}\n",
        8,
        "devices[1].pmp_port",
    ),
    # pmp_port on a port without a PMP
    "pmp-port-without-pmp": (HEAD + "devices:\n  - {port: 1, pmp_port: 0}\n", 5, "pmp_port"),
    # controller without PMP support (QEMU's AHCI)
    "qemu-has-no-pmp": ("name: bad\nbackend: qemu\n" + PMP0, 4, "pmps[0]"),
    "pmp-port-out-of-range": (HEAD + "pmps:\n  - {port: 2}\n", 5, "pmps[0].port"),
    "two-pmps-one-port": (HEAD + "pmps:\n  - {port: 1}\n  - {port: 1}\n", 6, "pmps[1].port"),
    "too-many-fanout-ports": (HEAD + "pmps:\n  - {port: 0, ports: 16}\n", 5, "pmps[0].ports"),
    "bad-product": (HEAD + "pmps:\n  - {port: 0, product: sii9999}\n", 5, "pmps[0].product"),
    # disks behind a PMP addressed by workloads, faults and expectations
    "workload-needs-pmp-port": (HEAD + PMP0 + DISK01 + "workload:\n  - {device: 0, count: 1}\n", 9, "workload[0].device"),
    "workload-pmp-port-without-pmp": (HEAD + PMP0 + DISK01 + "  - {port: 1}\nworkload:\n  - {device: 1, pmp_port: 0, count: 1}\n",
                                      10, "workload[0].pmp_port"),
    "workload-pmp-port-beyond-ports": (HEAD + PMP0 + DISK01 + "workload:\n  - {device: 0, pmp_port: 3, count: 1}\n", 9,
                                       "workload[0].pmp_port"),
    "workload-no-disk-at-pmp-port": (HEAD + PMP0 + DISK01 + "workload:\n  - {device: 0, pmp_port: 2, count: 1}\n", 9,
                                     "workload[0].pmp_port"),
    "fault-needs-pmp-port": (HEAD + PMP0 + DISK01 + "faults:\n  - {kind: unplug, port: 0, at: 1ms}\n", 9, "faults[0].port"),
    "pmp-hang-takes-no-pmp-port": (HEAD + PMP0 + DISK01 + "faults:\n  - {kind: pmp_hang, port: 0, pmp_port: 1, at: 1ms}\n",
                                   9, "faults[0].pmp_port"),
    "pmp-hang-needs-time": (HEAD + PMP0 + DISK01 + "faults:\n  - {kind: pmp_hang, port: 0, after_cmds: 5}\n", 9,
                            "faults[0].after_cmds"),
    "pmp-hang-without-pmp": (HEAD + PMP0 + DISK01 + "  - {port: 1}\nfaults:\n  - {kind: pmp_hang, port: 1, at: 1ms}\n", 10,
                             "faults[0].port"),
    "expect-pmp-port-beyond-ports": (HEAD + PMP0 + DISK01 + "expect:\n  devices:\n    - {port: 0, pmp_port: 7}\n", 10,
                                     "expect.devices[0].pmp_port"),
    "absent-after-disk-twice": (HEAD + PMP0 + DISK01 + "expect:\n  devices_after: [{port: 0, pmp_port: 1}]\n"
                                "  absent_after: [{port: 0, pmp_port: 1}]\n", 10, "expect.absent_after[0]"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_pmp_scenario_is_refused_with_location(case, write_scenario, tmp_path):
    text, line, key = CASES[case]
    path = write_scenario(text)
    out_dir = tmp_path / "out"
    result = run([path], out_dir)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{path}:{line}" in result.stderr, result.stderr
    assert key in result.stderr, result.stderr
    assert not (out_dir / "bad").exists()


def test_pmp_scenario_is_accepted(write_scenario):
    path = write_scenario(
        HEAD
        + "pmps:\n  - {port: 0, ports: 5, product: sii4726, fbs: true, async_notify: false}\n"
        + "devices:\n  - {port: 0, pmp_port: 0}\n  - {port: 0, pmp_port: 4, gen: 1}\n  - {port: 1}\n"
    )
    result = subprocess.run([str(binary()), "check", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_pmp_topology_names_and_addresses(tmp_path):
    """pmp<port>, link<port>.<pmp_port>, disk<port>.<pmp_port> in the trace, addressed by port and link."""
    from satasim.results import load_trace

    from conftest import ROOT

    out_dir = tmp_path / "out"
    result = run([ROOT / "scenarios" / "pmp" / "pmp-5port-ahci.yaml"], out_dir)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    recs = load_trace(out_dir, "pmp-5port-ahci")
    power_on = [r for r in recs if r.get("src") == "pmp0" and r.get("ev") == "pmp.power_on"]
    assert power_on and power_on[0]["port"] == 0
    for fan in (0, 2, 4):
        for kind in ("link", "disk"):
            mine = [r for r in recs if r.get("src") == f"{kind}0.{fan}"]
            assert mine, f"no records from {kind}0.{fan}"
            assert all(r["port"] == 0 and r.get("link") == fan for r in mine)
    # The drive behind fan-out port 2 negotiated its own (Gen1) speed.
    ups = [r for r in recs if r.get("src") == "pmp0" and r.get("ev") == "pmp.port_phy" and r.get("link") == 2
           and r["f"]["ready"]]
    assert ups and ups[0]["f"]["gen"] == 1
