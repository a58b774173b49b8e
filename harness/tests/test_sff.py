"""The taskfile controllers' paths that a golden does not show: polled PIO takes no
interrupt at all, the interrupt-driven run of the same kind of I/O takes one per DRQ block,
and a lost PIO interrupt is recovered by the lost-interrupt check without EH."""

from pathlib import Path

from satasim import load_result, load_trace, run

ROOT = Path(__file__).resolve().parents[2]
SFF = ROOT / "scenarios" / "sff"


def _run(tmp_path, name):
    result = run([SFF / f"{name}.yaml"], tmp_path)
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", (res.get("reasons"), result.stdout + result.stderr)
    assert res["data_errors"] == 0 and res["io_errors"] == 0
    return res


def test_polled_pio_takes_no_interrupt(tmp_path):
    res = _run(tmp_path, "sil3112-pio-polling")
    assert res["irq_calls"] == 0
    assert sum(w["completed"] for w in res["workloads"]) == 78


def test_interrupt_driven_pio_takes_one_per_drq_block(tmp_path):
    res = _run(tmp_path, "sil3112-probe-and-io")
    assert res["irq_calls"] > sum(w["completed"] for w in res["workloads"])


def test_lost_pio_interrupt_recovered_without_eh(tmp_path):
    _run(tmp_path, "sil3112-pio-irq-lost")
    names = [e["ev"] for e in load_trace(tmp_path, "sil3112-pio-irq-lost")]
    assert names.count("sff.lost_interrupt") == 1
    assert "eh.exception" not in names
