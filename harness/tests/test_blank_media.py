"""Cost follows the commands issued, not the region (issue 17 item 3).

A never-written sector of a model disk reads as a deterministic pattern of its LBA and the
disk's media seed (documented in scenarios/README.md and model/device/media_store.h); the
harness knows that pattern, so a read workload checks its data without pre-writing its
region, and a whole-disk read workload issues only its own commands."""

import json
import struct

import pytest

from satasim import load_result, load_trace, run

MASK = (1 << 64) - 1
WEYL = 0x9E3779B97F4A7C15
MAGIC = int.from_bytes(b"UNWRITTN", "little")


def splitmix64(v):
    z = (v + WEYL) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def fnv1a64(s):
    h = 0xCBF29CE484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001B3) & MASK
    return h


def derive_seed(seed, name):
    return splitmix64(seed ^ splitmix64(fnv1a64(name)))


def blank_sector(lba, media_seed):
    """The documented contents of a never-written sector (scenarios/README.md)."""
    base = splitmix64(((lba * WEYL) & MASK) ^ media_seed)
    words = [lba, MAGIC, media_seed]
    for k in range(3, 64):
        w = (base + (k - 2) * WEYL) & MASK
        words.append(w ^ (w >> 29))
    return struct.pack("<64Q", *words)


# A hand-built READ DMA EXT of one never-written sector (as scenarios/directed/ahci-identify.yaml
# builds an IDENTIFY), then the buffer compared with the pattern computed here.
DIRECTED = """\
name: blank-sector-pattern
seed: {seed}
controller: {{type: ahci, ports: 1}}
devices: [{{port: 0, capacity: 1g, timing: {{kind: ssd}}}}]
steps:
  - alloc: {{name: cl, size: 1024, align: 1024}}
  - alloc: {{name: rfis, size: 256, align: 256}}
  - alloc: {{name: ct, size: 256, align: 128}}
  - alloc: {{name: buf, size: 512, align: 512}}
  - poll: {{offset: 0x128, mask: 0xF, value: 0x3, timeout: 100ms}}
  - poll: {{offset: 0x120, mask: 0x88, value: 0, timeout: 1s}}
  - mmio_write: {{offset: 0x100, value: "${{cl}}"}}
  - mmio_write: {{offset: 0x104, value: 0}}
  - mmio_write: {{offset: 0x108, value: "${{rfis}}"}}
  - mmio_write: {{offset: 0x10C, value: 0}}
  - mmio_write: {{offset: 0x118, value: 0x16}}
  - poll: {{offset: 0x118, mask: 0x4000, value: 0x4000, timeout: 1ms}}
  - mmio_write: {{offset: 0x130, value: 0xFFFFFFFF}}
  - mmio_write: {{offset: 0x110, value: 0xFFFFFFFF}}
  - mmio_write: {{offset: 0x114, value: 0x00000001}}
  - mmio_write: {{offset: 0x04, value: 0x80000002}}
  - mmio_write: {{offset: 0x118, value: 0x17}}
  - poll: {{offset: 0x118, mask: 0x8000, value: 0x8000, timeout: 1ms}}
  - mem_write: {{addr: "${{cl}}", dwords: [0x00010005, 0, "${{ct}}", 0]}}
  # H2D FIS, C=1, READ DMA EXT, LBA {lba}, 1 sector, device 0x40 (LBA mode)
  - mem_write: {{addr: "${{ct}}", bytes: [0x27, 0x80, 0x25, 0x00, {l0}, {l1}, {l2}, 0x40, {l3}, {l4}, {l5}, 0, 1, 0, 0, 0, 0, 0, 0, 0]}}
  - mem_write: {{addr: "${{ct}}+0x80", dwords: ["${{buf}}", 0, 0, 511]}}
  - mmio_write: {{offset: 0x138, value: 1}}
  - wait_irq: {{timeout: 10ms}}
  - poll: {{offset: 0x138, mask: 1, value: 0, timeout: 10ms}}
  - mmio_read: {{offset: 0x120, expect: 0x50, mask: 0x89}}
  - mem_expect: {{addr: "${{cl}}+4", dwords: [512]}}
  - mem_expect: {{addr: "${{buf}}", dwords: [{dwords}]}}
"""


@pytest.mark.parametrize("seed,lba", [(7, 123456), (8, 123456), (7, 2000000)])
def test_never_written_sector_reads_the_documented_pattern(seed, lba, write_scenario, tmp_path):
    want = blank_sector(lba, derive_seed(seed, "media0"))
    dwords = ", ".join(hex(d) for d in struct.unpack("<128I", want))
    lb = [(lba >> (8 * i)) & 0xFF for i in range(6)]
    path = write_scenario(DIRECTED.format(seed=seed, lba=lba, dwords=dwords,
                                          **{f"l{i}": lb[i] for i in range(6)}))
    result = run([path], tmp_path)
    res = load_result(tmp_path, "blank-sector-pattern")
    assert res["verdict"] == "pass", res["reasons"]
    assert result.returncode == 0, result.stdout + result.stderr


# Reads of a region nothing wrote, then writes and reads over part of it: the data check
# knows the pattern of the sectors the run never wrote, so it verifies every read without a
# prefill; a wrong pattern (or zeros) would be reported as data errors.
READS = """\
name: blank-reads-{variant}
seed: 3
controller: {{type: {ctl}, ports: 1}}
devices: [{{port: 0, capacity: 256m, timing: {{kind: ssd}}}}]
workload:
  - {{device: 0, op: read, pattern: random, block: 8, qd: 8, count: 300, mode: ncq, region: {{start: 0, length: 64m}}{prefill}}}
  - {{device: 0, barrier: true, op: mix, pattern: random, block: {{min: 1, max: 64}}, qd: 8, count: 300, mode: ncq, region: {{start: 1000, length: 4m}}}}
  - {{device: 0, barrier: true, op: read, pattern: sequential, block: 256, qd: 4, count: 40, region: {{start: 0, length: 8m}}}}
"""


@pytest.mark.parametrize("ctl", ["ahci", "sil24"])
@pytest.mark.parametrize("variant,prefill", [("default", ""), ("no-prefill", ", prefill: false")])
def test_data_check_passes_without_prefill(ctl, variant, prefill, write_scenario, tmp_path):
    path = write_scenario(READS.format(ctl=ctl, variant=variant, prefill=prefill))
    result = run([path], tmp_path, "--trace-cmds", "off")
    name = f"blank-reads-{variant}"
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", res["reasons"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert res["data_errors"] == 0
    assert sum(w["reads"] for w in res["workloads"]) >= 340
    assert all(w["prefill_commands"] == 0 for w in res["workloads"])
    assert not [r for r in load_trace(tmp_path, name) if r["ev"] == "workload.prefill"]


WHOLE_DISK = """\
name: whole-disk-reads-{cap}
seed: 11
controller: {{type: ahci, ports: 1}}
devices: [{{port: 0{capacity}}}]
workload:
  - {{device: 0, op: read, pattern: random, block: 8, qd: 4, count: 100}}
"""


@pytest.mark.parametrize("cap", ["default", "64m"])
def test_whole_disk_random_reads_issue_only_their_commands(cap, write_scenario, tmp_path):
    path = write_scenario(WHOLE_DISK.format(cap=cap, capacity="" if cap == "default" else f", capacity: {cap}"))
    result = run([path], tmp_path, "--trace-cmds", "on", "--wall-limit", "30")
    name = f"whole-disk-reads-{cap}"
    # A run stopped by --wall-limit leaves its last record cut short: read what is whole.
    trace = []
    for line in (tmp_path / name / "trace.jsonl").read_text().splitlines():
        try:
            trace.append(json.loads(line))
        except json.JSONDecodeError:
            break
    assert not [r for r in trace if r["ev"] == "workload.prefill"]
    start = next(i for i, r in enumerate(trace) if r["ev"] == "workload.start")
    issued = [r for r in trace[start:] if r["ev"] == "qc.issue"]
    assert len(issued) == 100, f"{len(issued)} commands issued after workload.start"
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", res["reasons"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert res["workloads"][0]["reads"] == 100 and res["workloads"][0]["prefill_commands"] == 0
