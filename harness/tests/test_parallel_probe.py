"""Ports probe at once (issue 18): libata gives every port an EH thread of its own and probes
the ports asynchronously (ata_port_probe per port through async_schedule), so a slow port
delays no other one and a many-port boot takes about one port's time. Then the SCSI layer
scans the ports in port order (libata synchronises the async probes before
ata_scsi_scan_host), so the disk names sda, sdb, ... follow the ports, not the order in
which their probes finished. Log lines at one simulated instant come in port order."""

import re
from pathlib import Path

import yaml

from satasim import load_result, run

ROOT = Path(__file__).resolve().parents[2]



STAMP = re.compile(r"^\[\s*(\d+)\.(\d{6})\] (ata\d+)(?:\.\d\d)?: (.*)$")


def log_of(out, name):
    return (out / name / "satasim.log").read_text().splitlines()


def stamped(lines, text):
    """(seconds, port name) of every log line whose message starts with text."""
    out = []
    for line in lines:
        m = STAMP.match(line)
        if m and m.group(4).startswith(text):
            out.append((int(m.group(1)) + int(m.group(2)) / 1e6, m.group(3)))
    return out


def run_ok(paths, out):
    r = run(paths, out)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


SLOW_PORT0 = """\
name: slow-port0
seed: 7
controller: {type: ahci, ports: 2}
devices:
  - {port: 0, capacity: 1g, timing: {kind: hdd, reset_ready: 8s}}
  - {port: 1, capacity: 1g, timing: {kind: ssd}}
workload:
  - {kind: request, device: 0, op: read, lba: 1000, sectors: 8, expect_error: true, verify: false}
  - {kind: request, device: 1, op: read, lba: 2000, sectors: 8, expect_error: true, verify: false}
faults:
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [1000, 1000]}, count: 6}
  - {kind: media_error, port: 1, on_cmd: {op: read, lba: [2000, 2000]}, count: 6}
"""


def test_a_slow_port_delays_no_other(write_scenario, tmp_path):
    """Port 0's drive needs 8 s to its signature after COMRESET; port 1's is an SSD. Port 1
    is configured at the SSD's time (libata: its own EH thread), not after port 0's 8 s."""
    out = tmp_path / "out"
    run_ok([write_scenario(SLOW_PORT0)], out)
    conf = {}
    for t, port in stamped(log_of(out, "slow-port0"), "configured for"):
        conf.setdefault(port, t)  # the boot probe's (EH configures again after the errors)
    assert conf["ata2"] < 1.0, conf
    assert conf["ata1"] > 8.0, conf


def test_disk_names_follow_the_ports_not_the_probe_order(write_scenario, tmp_path):
    """Port 1's probe ends first, yet port 0's disk is sda: the block layer's I/O error lines
    (Linux 6.1 blk_print_req_error) name sda for port 0's sector 1000, sdb for port 1's 2000."""
    out = tmp_path / "out"
    run_ok([write_scenario(SLOW_PORT0)], out)
    log = log_of(out, "slow-port0")
    errors = [ln for ln in log if "I/O error, dev" in ln]
    assert any(re.search(r"\] I/O error, dev sda, sector 1000 op 0x0:\(READ\)", ln) for ln in errors), errors
    assert any(re.search(r"\] I/O error, dev sdb, sector 2000 op 0x0:\(READ\)", ln) for ln in errors), errors


def test_ties_are_broken_by_port_number(tmp_path):
    """probe-4port: three links come up and one stays down after the same reset time; the
    lines of one instant are in port order."""
    out = tmp_path / "out"
    run_ok([ROOT / "scenarios" / "probe-4port.yaml"], out)
    links = stamped(log_of(out, "probe-4port"), "SATA link")
    assert [p for _, p in links] == ["ata1", "ata2", "ata3", "ata4"], links
    assert len({t for t, _ in links}) == 1, links


def test_120_disks_probe_in_one_ports_time(tmp_path):
    """8 ports with a 15-disk port multiplier each: the boot probe ends when the same
    topology with one port ends (the serial probe took 8 times as long: 58.2 s)."""
    full = ROOT / "scenarios" / "pmp" / "pmp-probe-120disks-ahci.yaml"
    spec = yaml.safe_load(full.read_text())
    spec["name"] = "one-port"
    spec["controller"]["ports"] = 1
    spec["pmps"] = [p for p in spec["pmps"] if p["port"] == 0]
    spec["devices"] = [d for d in spec["devices"] if d["port"] == 0]
    spec["workload"] = []
    one = tmp_path / "one-port.yaml"
    one.write_text(yaml.safe_dump(spec))
    out = tmp_path / "out"
    run_ok([full, one], out)
    assert load_result(out, "pmp-probe-120disks-ahci")["verdict"] == "pass"
    end_all = max(t for t, _ in stamped(log_of(out, "pmp-probe-120disks-ahci"), "configured for"))
    end_one = max(t for t, _ in stamped(log_of(out, "one-port"), "configured for"))
    assert len(stamped(log_of(out, "pmp-probe-120disks-ahci"), "configured for")) == 120
    assert end_all <= end_one * 1.05, (end_all, end_one)


def serial_order(log):
    """Each port's link line comes after the previous port's configured line."""
    links = stamped(log, "SATA link")
    conf = {}
    for t, port in stamped(log, "configured for"):
        conf.setdefault(port, t)
    for (t0, p0), (t1, p1) in zip(links, links[1:]):
        assert p0 < p1, links
        if p0 in conf:
            assert t1 > conf[p0], (p0, conf[p0], p1, t1)
    return links


def test_staggered_spinup_probes_one_port_after_another(tmp_path):
    """With CAP.SSS libata's ahci does not set ATA_HOST_PARALLEL_SCAN and says so
    (ahci_init_one: "SSS flag set, parallel bus scan disabled"); port n's probe waits for
    port n-1's."""
    spec = yaml.safe_load((ROOT / "scenarios" / "probe-4port.yaml").read_text())
    spec["controller"]["staggered_spinup"] = True
    path = tmp_path / "probe-4port.yaml"
    path.write_text(yaml.safe_dump(spec))
    out = tmp_path / "out"
    run_ok([path], out)
    log = log_of(out, spec["name"])
    assert any(ln.endswith("ahci 0000:00:1f.2: SSS flag set, parallel bus scan disabled") for ln in log), log[:4]
    links = serial_order(log)
    assert len({t for t, _ in links}) == 4, links


def test_sil24_probes_one_port_after_another(tmp_path):
    """sata_sil24 does not set ATA_HOST_PARALLEL_SCAN: its ports probe in turn."""
    out = tmp_path / "out"
    run_ok([ROOT / "scenarios" / "sil24" / "probe-and-io.yaml"], out)
    name = yaml.safe_load((ROOT / "scenarios" / "sil24" / "probe-and-io.yaml").read_text())["name"]
    links = serial_order(log_of(out, name))
    assert len(links) >= 2 and len({t for t, _ in links}) == len(links), links
