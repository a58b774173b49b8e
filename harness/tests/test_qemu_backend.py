"""The unchanged stack on QEMU's q35 ICH9 AHCI (backend qemu, over qtest): probe, DMA, PIO
and NCQ scenarios pass with every read verified against what was written."""

import pytest

from satasim import load_result, load_trace, run
from satasim.differential import ROOT, qemu_unavailable_reason

QEMU_SCENARIOS = ROOT / "scenarios" / "qemu"

pytestmark = pytest.mark.skipif(bool(qemu_unavailable_reason()), reason=qemu_unavailable_reason() or "")


@pytest.fixture(scope="module")
def qemu_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("qemu-suite")
    result = run([QEMU_SCENARIOS], out, "--backend", "qemu", "--trace-cmds", "on", "--wall-limit", "120")
    return result, out


def test_suite_passes_on_qemu(qemu_run):
    result, out = qemu_run
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 passed, 0 failed" in result.stdout


def test_probe_on_qemu(qemu_run):
    _, out = qemu_run
    res = load_result(out, "qemu-probe-3port")
    assert res["backend"] == "qemu"
    assert res["verdict"] == "pass", res["reasons"]
    devs = {d["port"]: d for d in res["devices"]}
    assert sorted(devs) == [0, 2, 5] and res["empty_ports"] == [1, 3, 4]
    assert devs[0]["model"] == "SATASIM SSD 240" and devs[0]["serial"] == "S0001"
    assert devs[2]["firmware"] == "HDD2.1" and devs[2]["sectors"] == 1953525168
    assert devs[5]["sectors"] == 2097152
    for d in devs.values():
        assert d["lba48"] and d["ncq"] and d["ncq_depth"] == 32 and d["max_sectors"] == 65535
        assert d["link_gen"] == 1  # QEMU's AHCI is Gen1 only
    log = (out / "qemu-probe-3port" / "satasim.log").read_text()
    assert "QEMU q35 AHCI at 00:1f.2 8086:2922" in log
    assert "ahci 0000:00:1f.2: AHCI 0001.0000 32 slots 6 ports 1.5 Gbps 0x3f impl SATA mode" in log


@pytest.mark.parametrize("name,reads,writes", [
    ("qemu-dma-rw-verify", {"0xc8", "0x25"}, {"0xca", "0x35"}),  # READ/WRITE DMA (EXT)
    ("qemu-pio-rw-verify", {"0xc4", "0x29"}, {"0xc5", "0x39"}),  # READ/WRITE MULTIPLE (EXT)
    ("qemu-ncq-qd32", {"0x60"}, {"0x61"}),                       # READ/WRITE FPDMA QUEUED
])
def test_data_verified_on_qemu(qemu_run, name, reads, writes):
    _, out = qemu_run
    res = load_result(out, name)
    assert res["verdict"] == "pass", res["reasons"]
    assert res["data_errors"] == 0 and res["io_errors"] == 0
    assert sum(w["reads"] for w in res["workloads"]) > 30
    assert sum(w["writes"] for w in res["workloads"]) > 20
    trace = load_trace(out, name)
    seen = {r["f"].get("cmd") for r in trace if r["ev"] == "qc.issue"}
    assert seen & reads and seen & writes, f"expected {reads} and {writes} in the trace, saw {seen}"
    assert not seen & {"0x60", "0x61"} or name == "qemu-ncq-qd32"


def test_ncq_queue_fills_on_qemu(qemu_run):
    _, out = qemu_run
    outstanding, peak = set(), 0
    for rec in load_trace(out, "qemu-ncq-qd32"):
        if rec["ev"] == "qc.issue" and rec["f"].get("cmd") in ("0x60", "0x61"):
            outstanding.add(rec["f"]["tag"])
            peak = max(peak, len(outstanding))
        elif rec["ev"] == "qc.done":
            outstanding.discard(rec["f"]["tag"])
    assert peak >= 16, f"NCQ peak depth {peak}"


def test_qemu_leaves_no_images_or_processes(qemu_run):
    _, out = qemu_run
    assert not list(out.rglob("*.img")), "disk images must be removed at the end of a run"
    assert not list(out.rglob("qtest.sock"))


def test_scenario_backend_key(write_scenario, tmp_path):
    path = write_scenario("""
        name: keyed
        backend: qemu
        time_limit: 30s
        controller: {type: ahci, ports: 1}
        devices: [{port: 0, model: "KEYED", capacity: 1g}]
        workload: [{device: 0, op: mix, pattern: random, block: 8, count: 50, region: {start: 0, length: 1m}}]
    """)
    result = run([path], tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    res = load_result(tmp_path / "out", "keyed")
    assert res["backend"] == "qemu" and res["qemu_requests"] > 0


def test_dma_through_qtest_memory_commands(tmp_path, monkeypatch):
    """The fallback DMA path (qtest b64write/b64read instead of the shared guest-RAM file)."""
    monkeypatch.setenv("SATASIM_QEMU_DMA", "qtest")
    out = tmp_path / "out"
    result = run([QEMU_SCENARIOS / "two-disks-flush.yaml"], out, "--backend", "qemu")
    assert result.returncode == 0, result.stdout + result.stderr
    res = load_result(out, "qemu-two-disks-flush")
    assert res["verdict"] == "pass" and res["data_errors"] == 0
    assert not (out / "qemu-two-disks-flush" / "guest-ram").exists()
