"""Topologies at the controllers' limits (issue 36, scale)."""

import json

from satasim.results import run


def test_a_32_port_ahci_with_a_disk_on_every_port_boots(tmp_path):
    # With all 32 ports interrupting at once HOST_IRQ_STAT reads 0xffffffff, a legitimate
    # value when every port is implemented (Linux's ahci handler rejects only 0). Before:
    # the handler took it for a vanished controller, "irq 19: nobody cared" and every
    # IDENTIFY timed out; 31 ports, or 32 ports with 31 disks, passed.
    devices = "\n".join(f"  - {{port: {i}, serial: 'P{i:07d}', timing: {{kind: ssd}}}}" for i in range(32))
    expect = "\n".join(f"    - {{port: {i}, class: ata, serial: 'P{i:07d}', gen: 3}}" for i in range(32))
    scen = tmp_path / "probe-32port.yaml"
    scen.write_text(f"""name: probe-32port
description: a 32-port AHCI HBA with a disk on every port, then verified writes on the first and last
seed: 32
controller: {{type: ahci, ports: 32}}
devices:
{devices}
workload:
  - {{device: 0, op: write, qd: 4, count: 16, block: 8, verify: true}}
  - {{device: 31, op: write, qd: 4, count: 16, block: 8, verify: true}}
expect:
  io_errors: 0
  devices:
{expect}
  log_contains: ["ata32: SATA link up 6.0 Gbps", "ata32.00: configured for UDMA/133"]
  log_not_contains: ["nobody cared", "qc timeout"]
""")
    r = run([scen], tmp_path / "out")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    result = json.loads((tmp_path / "out" / "probe-32port" / "result.json").read_text())
    assert result["verdict"] == "pass", result
