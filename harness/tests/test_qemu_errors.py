"""I/O errors injected by QEMU's blkdebug driver (scenario key devices[].blkdebug, backend
qemu only) and the stack's EH decisions on QEMU's AHCI."""

import pytest

from satasim import load_result, load_trace, run
from satasim.differential import ROOT, qemu_unavailable_reason
from satasim.golden import GOLDEN_DIR, compare_run, read_golden

ERRORS = ROOT / "scenarios" / "qemu-errors"
needs_qemu = pytest.mark.skipif(bool(qemu_unavailable_reason()), reason=qemu_unavailable_reason() or "")


@pytest.fixture(scope="module")
def errors_run(tmp_path_factory):
    if qemu_unavailable_reason():
        pytest.skip(qemu_unavailable_reason())
    out = tmp_path_factory.mktemp("qemu-errors")
    return run([ERRORS], out, "--trace-cmds", "on", "--wall-limit", "120"), out


@needs_qemu
def test_error_scenarios_pass(errors_run):
    result, out = errors_run
    assert result.returncode == 0, result.stdout + result.stderr


@needs_qemu
def test_once_errors_are_retried_persistent_errors_fail(errors_run):
    _, out = errors_run
    res = load_result(out, "qemu-read-write-flush-errors")
    assert res["verdict"] == "pass", res["reasons"]
    w = res["workloads"]
    # once-read: retried by EH, succeeds; persistent read and write: fail; once-flush: retried.
    assert [x["errors"] for x in w] == [0, 1, 1, 0, 0]
    log = (out / "qemu-read-write-flush-errors" / "satasim.log").read_text()
    # QEMU's IDE core reports an injected error as ABRT (status 0x41, error 0x04), not UNC.
    assert "res 41/04:08:e4:03:00/00:00:00:00:00/e0 Emask 0x1 (device error)" in log
    assert log.count("failed command: READ DMA") >= 2
    trace = load_trace(out, "qemu-read-write-flush-errors")
    assert any(r["ev"].startswith("eh") for r in trace), "no EH records in the trace"


@needs_qemu
def test_ncq_error_without_log_page_10h(errors_run):
    _, out = errors_run
    res = load_result(out, "qemu-ncq-read-error")
    assert res["verdict"] == "pass", res["reasons"]
    assert [x["errors"] for x in res["workloads"]] == [0, 0]


def test_blkdebug_refused_on_systemc(tmp_path):
    result = run([ERRORS / "ncq-read-error.yaml"], tmp_path / "out", "--backend", "systemc")
    assert result.returncode == 2
    assert ("backend systemc: the SystemC backend cannot model devices[port 0].blkdebug: injected I/O "
            "errors through QEMU's blkdebug driver need backend qemu") in result.stderr


def test_blkdebug_keys_validated(write_scenario, tmp_path):
    path = write_scenario("""
        backend: qemu
        devices:
          - port: 0
            capacity: 1g
            blkdebug: [{op: flush, lba: 5}]
    """)
    result = run([path], tmp_path / "out")
    assert result.returncode == 2
    assert "blkdebug[0].lba: a flush has no sector: leave lba out" in result.stderr


@needs_qemu
@pytest.mark.parametrize("name", ["qemu-read-write-flush-errors", "qemu-ncq-read-error"])
def test_eh_decisions_match_the_qemu_goldens(errors_run, name):
    # Recorded from backend qemu with `# time_tolerance: any`: QEMU's decisions are
    # deterministic (checked over 3 runs when recorded), its timestamps are wall-clock
    # driven, so order and content are compared and time is not.
    _, out = errors_run
    golden = GOLDEN_DIR / f"{name}.ahci.golden"
    g = read_golden(golden)
    assert g.header.get("backend") == "qemu" and g.header.get("time_tolerance") == "any"
    c = compare_run(out / name, GOLDEN_DIR)
    assert c is not None, f"no golden {golden}"
    assert c.ok, "golden mismatch (review, then tools/golden update):\n" + "\n".join(c.diff)
