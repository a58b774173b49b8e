"""Several controllers in one host (issue 36, `controllers:`): the reader's refusals, libata's
port numbering across hosts, a shared interrupt line, and EH on one host leaving the others
alone."""

import json
from pathlib import Path

import pytest

from satasim import run

ROOT = Path(__file__).resolve().parents[2]
MULTI = ROOT / "scenarios" / "multi"

TWO = """\
name: bad
seed: 1
controllers:
  - {type: ahci, ports: 2}
  - {type: sil24, pci: "03:00.0"}
"""

# (text, line, what the message must name)
BAD = {
    # a device on a controller the scenario does not have
    "no-such-controller": (TWO + "devices:\n  - {controller: 2, port: 0}\n", 7, "controller 2 does not exist"),
    # a port the named controller does not have (the SiI3124 has 4: 0..3)
    "port-not-on-that-controller": (TWO + "devices:\n  - {controller: 1, port: 4}\n", 7,
                                    "does not exist on controller 1"),
    # controller: in a one-controller scenario names controller 0 only
    "controller-1-of-one": ("name: bad\ncontroller: {type: ahci, ports: 2}\n"
                            "devices:\n  - {controller: 1, port: 0}\n", 4, "controller 1 does not exist"),
    # a workload and a fault address a controller the same way
    "workload-no-such-controller": (TWO + "devices:\n  - {port: 0}\nworkload:\n  - {controller: 5, device: 0}\n",
                                    9, "controller 5 does not exist"),
    "fault-no-such-controller": (TWO + "devices:\n  - {port: 0}\nfaults:\n"
                                 "  - {kind: crc, controller: 3, port: 0, after_cmds: 1}\n", 9,
                                 "controller 3 does not exist"),
    "both-forms": ("name: bad\ncontroller: {type: ahci}\ncontrollers:\n  - {type: ahci}\n", 3, "not both"),
    "pci-out-of-order": ("name: bad\ncontrollers:\n  - {type: ahci, pci: \"05:00.0\"}\n"
                         "  - {type: sil24, pci: \"03:00.0\"}\n", 4, "PCI order"),
    "pci-malformed": ("name: bad\ncontrollers:\n  - {type: ahci, pci: \"0:31.2\"}\n", 3, "PCI address"),
    "two-ich-ide-functions": ("name: bad\ncontrollers:\n  - {type: piix}\n  - {type: piix, pci: \"00:1f.5\"}\n",
                              4, "one per host"),
    "sil24-fewer-ports": ("name: bad\ncontrollers:\n  - {type: ahci}\n  - {type: sil24, ports: 2}\n", 4,
                          "leave ports out"),
    "force-across-hosts": (TWO + "host: {force: '3:1.5Gbps'}\n", 6, "host.force"),
    "qemu-backend": ("name: bad\nbackend: qemu\ncontrollers:\n  - {type: ahci}\n  - {type: ahci}\n", 4,
                     "one controller only"),
    "pmp-on-taskfile-controller": ("name: bad\ncontrollers:\n  - {type: ahci}\n  - {type: sil3112}\n"
                                   "pmps:\n  - {controller: 1, port: 0}\n", 6, "cannot address a port multiplier"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_reader_refuses_with_file_line_and_field(case, write_scenario, tmp_path):
    text, line, what = BAD[case]
    path = write_scenario(text)
    r = run([path], tmp_path / "out")
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{path}:{line}" in r.stderr, r.stderr
    assert what in r.stderr, r.stderr


def _run(scenario, tmp_path):
    out = tmp_path / "out"
    r = run([scenario], out)
    name = scenario.stem
    result = json.loads((out / name / "result.json").read_text())
    log = (out / name / "satasim.log").read_text()
    trace = [json.loads(x) for x in (out / name / "trace.jsonl").read_text().splitlines()]
    return r, result, log, trace


def test_ports_are_numbered_across_hosts_and_the_shared_line_serves_both(tmp_path):
    r, result, log, trace = _run(MULTI / "multi-ahci-sil24-shared-irq.yaml", tmp_path)
    assert r.returncode == 0 and result["verdict"] == "pass", result["reasons"]
    # the SiI3124's port 0 is ata3, its port 2 ata5 (after the AHCI's ata1, ata2)
    found = {(d["controller"], d["controller_port"]): (d["port"], d["name"], d["serial"]) for d in result["devices"]}
    assert found == {(0, 0): (0, "ata1.00", "SIM0000000"), (0, 1): (1, "ata2.00", "SIM0000001"),
                     (1, 0): (2, "ata3.00", "SIM0000002"), (1, 2): (4, "ata5.00", "SIM0000004")}
    assert [c["ata"] for c in result["controllers"]] == ["ata1-ata2", "ata3-ata6"]
    assert {c["irq"] for c in result["controllers"]} == {19}
    # every disk's verified I/O completed
    done = {(w["controller"], w["controller_port"]): w["completed"] for w in result["workloads"]}
    assert done == {(0, 0): 300, (0, 1): 300, (1, 0): 300, (1, 2): 300}
    assert result["io_errors"] == 0 and result["data_errors"] == 0
    # both drivers' handlers ran on the one line: the AHCI's and the sil24's records both
    # appear, and nothing went unclaimed
    assert "nobody cared" not in log
    assert result["irq_calls"] > 0
    # each host's own lines name its driver and PCI address
    hosts = {rec.get("host") for rec in trace if rec["src"] == "stack" and rec["port"] < 0}
    assert {"ahci 0000:00:1f.2", "sata_sil24 0000:03:00.0"} <= hosts, hosts


def test_a_shared_line_runs_every_handler_and_a_lone_handler_does_not(tmp_path):
    # The same host on two lines, then on one: on a shared line each interrupt calls both
    # handlers (one of them says "not mine"), so the handler calls grow while the work is the same.
    base = (MULTI / "multi-ahci-sil24-shared-irq.yaml").read_text()
    split = tmp_path / "split.yaml"
    split.write_text(base.replace("name: multi-ahci-sil24-shared-irq", "name: split")
                     .replace('pci: "03:00.0", irq: 19', 'pci: "03:00.0", irq: 16'))
    shared = tmp_path / "shared.yaml"
    shared.write_text(base.replace("name: multi-ahci-sil24-shared-irq", "name: shared"))
    out = tmp_path / "out"
    r = run([split, shared], out)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    s = json.loads((out / "split" / "result.json").read_text())
    h = json.loads((out / "shared" / "result.json").read_text())
    assert [c["irq"] for c in s["controllers"]] == [19, 16]
    assert s["commands"] == h["commands"]
    assert h["irq_calls"] > s["irq_calls"]


def test_a_fault_on_one_host_leaves_the_other_host_alone(tmp_path):
    r, result, log, trace = _run(MULTI / "multi-ahci-sil24-fault-isolation.yaml", tmp_path)
    assert r.returncode == 0 and result["verdict"] == "pass", result["reasons"]
    fault = result["faults"][0]
    assert (fault["controller"], fault["controller_port"], fault["port"], fault["fired"]) == (1, 2, 4, 3)
    # EH ran on ata5 (host-wide port 4) only: every EH decision after the boot probe is there
    probe_done = next(rec["t_ns"] for rec in trace if rec["ev"] == "probe.done")
    eh_ports = {rec["port"] for rec in trace
                if rec["src"] == "stack" and rec["t_ns"] > probe_done and rec["ev"].startswith("eh.")}
    assert eh_ports == {4}, eh_ports
    assert "ata5: hard resetting link" in log
    for other in ("ata1", "ata2", "ata3"):
        assert f"{other}.00: exception" not in log
    # and every disk's reads verified
    assert result["io_errors"] == 0 and result["data_errors"] == 0
    assert all(w["completed"] == 400 for w in result["workloads"])


def test_controllers_of_three_kinds_in_one_host(tmp_path):
    r, result, log, _ = _run(MULTI / "multi-ahci-piix-sil3112.yaml", tmp_path)
    assert r.returncode == 0 and result["verdict"] == "pass", result["reasons"]
    names = sorted(d["name"] for d in result["devices"])
    assert names == ["ata1.00", "ata3.00", "ata6.00"]
    assert [c["type"] for c in result["controllers"]] == ["ahci", "piix", "sil3112"]
    assert result["data_errors"] == 0


SCREAMING = """\
name: {name}
description: an AHCI and a SiI3112 whose interrupt output sticks asserted; lines {irq_a} and {irq_b}
seed: 311218
controllers:
  - {{type: ahci, ports: 1, irq: {irq_a}}}
  - {{type: sil3112, pci: "04:00.0", irq: {irq_b}}}
devices:
  - {{port: 0, capacity: 1g, timing: {{kind: ssd}}}}
  - {{controller: 1, port: 0, capacity: 1g, timing: {{kind: ssd}}}}
workload:
  - {{controller: 1, device: 0, op: write, pattern: sequential, block: 8, qd: 1, count: 40, mode: dma,
     region: {{start: 0, length: 4m}}}}
  - {{device: 0, op: mix, pattern: random, block: 8, qd: 1, count: 40, mode: dma, region: {{start: 0, length: 4m}},
     delay: 1ms}}
faults:
  - {{kind: irq_storm, controller: 1, port: 0, after_cmds: 12}}
expect:
  io_errors: 0
  log_contains: ["irq {irq_b}: nobody cared (try booting with the \\"irqpoll\\" option)", "Disabling IRQ #{irq_b}"]
"""


def test_a_screaming_controller_disables_a_shared_line_for_both_hosts(tmp_path):
    # The SiI3112's line sticks asserted with nothing pending: sata_sil says "not mine" every
    # time. On a line of its own, the kernel disables that line only and the AHCI's I/O is
    # untouched; on a line it shares with the AHCI, the AHCI's handler finds nothing either,
    # so the shared line is disabled and the AHCI's completions wait for the spurious poller
    # (every 100 ms) too. Both runs verify every sector.
    (tmp_path / "own.yaml").write_text(SCREAMING.format(name="own", irq_a=19, irq_b=18))
    (tmp_path / "shared.yaml").write_text(SCREAMING.format(name="shared", irq_a=17, irq_b=17))
    out = tmp_path / "out"
    r = run([tmp_path / "own.yaml", tmp_path / "shared.yaml"], out)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    own = json.loads((out / "own" / "result.json").read_text())
    shared = json.loads((out / "shared" / "result.json").read_text())
    own_log = (out / "own" / "satasim.log").read_text()
    assert "irq 19: nobody cared" not in own_log and "irq 18: nobody cared" in own_log
    ahci_own = next(w for w in own["workloads"] if w["controller"] == 0)
    ahci_shared = next(w for w in shared["workloads"] if w["controller"] == 0)
    assert ahci_own["completed"] == ahci_shared["completed"] == 40
    # 40 commands at one poll (100 ms) each against microseconds each on a live line
    own_ms = (ahci_own["end_ns"] - ahci_own["start_ns"]) / 1e6
    shared_ms = (ahci_shared["end_ns"] - ahci_shared["start_ns"]) / 1e6
    assert own_ms < 100 and shared_ms > 1000, (own_ms, shared_ms)
    assert own["data_errors"] == shared["data_errors"] == 0


def test_sixty_disks_behind_two_hbas_with_a_fault_on_one_fan_out_link(tmp_path):
    # The test command's version of the 480-disk benchmark topology (multi-480disks-4hba-pmp):
    # two 2-port AHCI HBAs, a 15-port PMP on each port, verified NCQ I/O on all 60 disks and a
    # CRC storm on the fan-out link of ata4.03 (controller 1, port 1, fan-out port 3).
    r, result, log, trace = _run(MULTI / "multi-60disks-2hba-pmp.yaml", tmp_path)
    assert r.returncode == 0 and result["verdict"] == "pass", result["reasons"]
    names = {d["name"] for d in result["devices"]}
    assert names == {f"ata{p}.{f:02d}" for p in range(1, 5) for f in range(15)}
    assert all(w["completed"] == 16 for w in result["workloads"]) and len(result["workloads"]) == 60
    assert result["data_errors"] == 0 and result["faults"][0]["fired"] == 3
    # every EH decision after the boot probe is on that one fan-out link (or its PMP's host
    # link, port 3): the other host and the other fan-out links are not touched
    probe_done = next(rec["t_ns"] for rec in trace if rec["ev"] == "probe.done")
    touched = {(rec["port"], rec.get("link", -1)) for rec in trace
               if rec["src"] == "stack" and rec["t_ns"] > probe_done and rec["cls"] == "decision"}
    assert touched and all(port == 3 and link in (3, 15, -1) for port, link in touched), touched
    assert "ata4.03: exception Emask 0x10" in log


TWO_SIL24 = """\
name: {name}
description: two SiI3124 cards, one disk each on ports 0 and 2; their boot probes as the kernel runs them
seed: 3124
host: {{eh_policy: {policy}}}
controllers:
  - {{type: sil24, pci: "03:00.0", irq: 16}}
  - {{type: sil24, pci: "04:00.0", irq: 17}}
devices:
  - {{port: 0, capacity: 1g}}
  - {{port: 2, capacity: 1g}}
  - {{controller: 1, port: 0, capacity: 1g}}
  - {{controller: 1, port: 2, capacity: 1g}}
"""


def _first_reset_and_probe_end(trace):
    """Per ata port number (1-based across hosts), over the boot probe: the t_ns of the
    stack's first and of its last EH record on the port (its EH pass's start and end; the
    driver's port description lines come before any probe)."""
    first, end = {}, {}
    for rec in trace:
        if rec["ev"] == "probe.done":
            break
        if rec["src"] != "stack" or rec.get("port", -1) < 0 or rec.get("link", -1) != -1:
            continue
        if not rec["ev"].startswith(("eh.", "probe.")) or rec["ev"] == "probe.port_desc":
            continue
        port = rec["port"] + 1
        first.setdefault(port, rec["t_ns"])
        end[port] = rec["t_ns"]
    return first, end


@pytest.mark.parametrize("policy", ["libata-modern", "libata-4.x"])
def test_the_controllers_boot_probes_overlap_as_libatas_async_port_probe(policy, tmp_path):
    # libata 2.6.29 on schedules each port's probe as async work and returns from the driver's
    # probe, so the second card is brought up and probes while the first still probes. The
    # SiI3124 has no parallel scan: its port 0 starts at once, every later port waits for all
    # work scheduled before it (async_synchronize_cookie), the other card's ports included.
    path = tmp_path / "two-sil24.yaml"
    path.write_text(TWO_SIL24.format(name="two-sil24", policy=policy))
    r, result, log, trace = _run(path, tmp_path)
    assert r.returncode == 0 and result["verdict"] == "pass", result["reasons"]
    first, end = _first_reset_and_probe_end(trace)
    assert sorted(first) == list(range(1, 9)) and sorted(end) == list(range(1, 9))
    card0_done = max(end[p] for p in range(1, 5))
    # the second card's port 0 (ata5) probes beside the first card's ports ...
    assert first[5] < end[2] < card0_done, (first, end)
    # ... its port 1 (ata6) waits until every port of the first card and its own port 0 ended
    assert first[6] >= max(card0_done, end[5]), (first, end)
    # within a card one port after the other
    for p in (2, 3, 4, 7, 8):
        assert first[p] >= end[p - 1], (p, first, end)
    assert [d["name"] for d in sorted(result["devices"], key=lambda d: d["port"])] == \
        ["ata1.00", "ata3.00", "ata5.00", "ata7.00"]


def test_the_2006_core_probes_one_controller_after_the_other(tmp_path):
    # 2.6.2x's ata_device_add probed every port inside the driver's probe: the second card
    # starts after the first card's last port.
    path = tmp_path / "two-sil24-2006.yaml"
    path.write_text(TWO_SIL24.format(name="two-sil24-2006", policy="libata-2006"))
    r, result, log, trace = _run(path, tmp_path)
    assert r.returncode == 0 and result["verdict"] == "pass", result["reasons"]
    first, end = _first_reset_and_probe_end(trace)
    assert first[5] >= max(end[p] for p in range(1, 5)), (first, end)
