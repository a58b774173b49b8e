"""The disk models against real SATA drives' published figures (issue 36; docs/disk-models.md).

A parallel SSD (`timing: {kind: ssd, units: 32}`: flash units reading at once, an internal
path at the media rate, the link last) set up as the Samsung 850 EVO 500 GB/1 TB is
specified (60 us flash latency, 20 us firmware overhead, 540 MB/s) must give, in simulated
time, that drive's published 4 KiB random read figures at queue depth 1 and 32 and its
sequential read rate, with every read verified; a single-unit drive (no `units`) gains
almost nothing from queueing, as the model was before.

A 7200 rpm HDD (8.5 ms average seek) must give the random read rate its class is specified
for at queue depth 1, and with rotational position ordering (`ncq_order: shortest_access`)
the queue depth 16 rate published for 7200 rpm drives; ordering by seek distance alone gains
less, and working in arrival order gains nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from satasim.results import binary

# Samsung SSD 850 EVO (500 GB, 1 TB), Samsung's specification as published in product
# listings and the launch coverage (PC World / cio.de, Dec 2014): 4 KB random read QD1 up to
# 10,000 IOPS, QD32 94,000-98,000 IOPS; sequential read 540 MB/s.
PUBLISHED = {"rr_qd1_iops": 10_000, "rr_qd32_iops": 98_000, "seq_read_mb_s": 540}


def run_workload(tmp_path: Path, name: str, timing: str, op: str, pattern: str, block: str, qd: int,
                 count: int, mode: str = "ncq", capacity: str = "500g", region: str = "{start: 0, length: 8g}",
                 device_keys: str = "") -> tuple[float, float]:
    """(IOPS, MB/s) in simulated time of one verified workload on one disk (region None: the
    whole disk)."""
    f = tmp_path / f"{name}.yaml"
    where = f", region: {region}" if region else ""
    f.write_text(f"""name: {name}
seed: 7
controller: {{type: ahci, ports: 1, slots: 32}}
devices:
  - {{port: 0, capacity: {capacity}, {device_keys}timing: {timing}}}
workload:
  - {{device: 0, op: {op}, pattern: {pattern}, block: {block}, qd: {qd}, count: {count}, mode: {mode}{where},
     verify: true}}
expect: {{io_errors: 0}}
""")
    r = subprocess.run([str(binary()), "run", str(f), "--out", str(tmp_path / "out")], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads((tmp_path / "out" / name / "result.json").read_text())
    assert res["verdict"] == "pass" and res["data_errors"] == 0, res.get("reasons")
    w = res["workloads"][0]
    assert w["completed"] == count
    seconds = (w["end_ns"] - w["start_ns"]) / 1e9
    return w["completed"] / seconds, w["bytes"] / seconds / 1e6


EVO = "{kind: ssd, latency: 60us, overhead: 20us, rate: 540MB/s, units: 32}"
SINGLE = "{kind: ssd, latency: 60us, overhead: 20us, rate: 540MB/s}"


def within(measured: float, published: float, tolerance: float) -> bool:
    return abs(measured - published) <= tolerance * published


def test_parallel_ssd_gives_the_published_figures(tmp_path):
    qd1, _ = run_workload(tmp_path, "rr-qd1", EVO, "read", "random", "4k", 1, 600)
    qd32, _ = run_workload(tmp_path, "rr-qd32", EVO, "read", "random", "4k", 32, 4000)
    _, seq = run_workload(tmp_path, "seq-read", EVO, "read", "sequential", "128k", 32, 400)
    got = f"QD1 {qd1:.0f} IOPS, QD32 {qd32:.0f} IOPS, sequential {seq:.0f} MB/s"
    assert within(qd1, PUBLISHED["rr_qd1_iops"], 0.10), got
    assert within(qd32, PUBLISHED["rr_qd32_iops"], 0.10), got
    assert within(seq, PUBLISHED["seq_read_mb_s"], 0.05), got


def test_a_single_unit_drive_gains_little_from_queueing(tmp_path):
    qd1, _ = run_workload(tmp_path, "one-qd1", SINGLE, "read", "random", "4k", 1, 600)
    qd32, _ = run_workload(tmp_path, "one-qd32", SINGLE, "read", "random", "4k", 32, 2000)
    assert qd32 < 1.5 * qd1, (qd1, qd32)
    evo32, _ = run_workload(tmp_path, "evo-qd32", EVO, "read", "random", "4k", 32, 2000)
    assert evo32 > 6 * qd32, (qd32, evo32)


# A 7200 rpm desktop drive as the Hitachi Deskstar 7K500 is specified (8.5 ms average read
# seek, 4.17 ms average latency): its specification's random access table gives 55.5 s
# (typical, which it defines as 105 % of the nominal time T) for 4,096 single-sector random
# reads, so T is 12.9 ms per read, 77.5 IOPS. Seagate's Exos X18 data sheet (7200 rpm, 4.16 ms
# average latency) gives 170 IOPS for 4 KiB random reads at queue depth 16 (the X20: 168).
HDD_PUBLISHED = {"rr_qd1_iops": 77.5, "rr_qd16_iops": 170}
HDD = "{kind: hdd, rpm: 7200, seek: 8.5ms, rate: 180MB/s, overhead: 50us}"


def hdd_random_read(tmp_path: Path, order: str, qd: int, count: int) -> float:
    iops, _ = run_workload(tmp_path, f"hdd-{order}-qd{qd}", HDD, "read", "random", "4k", qd, count,
                           capacity="1t", region=None, device_keys=f"ncq_order: {order}, ")
    return iops


def test_hdd_gives_its_class_figures_and_rotational_ordering_gains_most(tmp_path):
    qd1 = hdd_random_read(tmp_path, "in_order", 1, 300)
    rpo = hdd_random_read(tmp_path, "shortest_access", 16, 480)
    sstf = hdd_random_read(tmp_path, "shortest_seek", 16, 480)
    fifo = hdd_random_read(tmp_path, "in_order", 16, 480)
    got = f"QD1 {qd1:.1f}, QD16: shortest_access {rpo:.1f}, shortest_seek {sstf:.1f}, in_order {fifo:.1f} IOPS"
    assert within(qd1, HDD_PUBLISHED["rr_qd1_iops"], 0.10), got
    assert within(rpo, HDD_PUBLISHED["rr_qd16_iops"], 0.10), got
    assert rpo > 1.1 * sstf and sstf > 1.3 * fifo, got  # rotation matters as much as the seek
    assert within(fifo, qd1, 0.05), got  # arrival order: the queue gains nothing


def test_units_is_for_an_ssd_and_excludes_an_ncq_order(tmp_path):
    for body, words in ((f"timing: {{kind: hdd, units: 4}}", "timing.units: only for kind: ssd"),
                        (f"ncq_order: random, timing: {EVO}", "ncq_order: a parallel SSD"),
                        ("ncq_order: shortest_access, timing: {kind: ssd}", "an SSD (timing.kind: ssd)")):
        f = tmp_path / "bad.yaml"
        f.write_text(f"name: bad\ncontroller: {{type: ahci, ports: 1}}\ndevices:\n  - {{port: 0, {body}}}\n")
        r = subprocess.run([str(binary()), "check", str(f)], capture_output=True, text=True)
        assert r.returncode == 2 and words in r.stderr, r.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
