"""Differential runs: the same scenarios on the satasim AHCI model and on QEMU's AHCI. What
the stack saw (probe results, log lines) and the data it verified must agree, except for
the reviewed differences in qemu_known_differences.yaml; any other difference fails."""

import pytest

from satasim.differential import (KNOWN_DIFFERENCES, ROOT, Difference, is_known, load_known,
                                  qemu_unavailable_reason, run_differential)


def test_known_differences_are_reviewed():
    known = load_known()
    assert known["fields"] and known["log"]
    for e in known["fields"]:
        assert {"field", "systemc", "qemu", "reason"} <= set(e), e
    for e in known["log"]:
        assert e.get("systemc") or e.get("qemu"), e


def test_unknown_differences_are_not_excused():
    known = load_known()
    assert is_known(Difference("s", "device[0].xfer", "UDMA/133", "UDMA/100"), known)
    assert not is_known(Difference("s", "device[0].xfer", "UDMA/133", "UDMA/66"), known)
    assert not is_known(Difference("s", "device[0].serial", "S1", "S2"), known)
    assert not is_known(Difference("s", "device[0].ncq_depth", 31, 32), known)
    assert not is_known(Difference("s", "data_errors", 0, 3), known)
    assert not is_known(Difference("s", "log", "ata1.00: failed command: READ FPDMA QUEUED", None), known)
    assert is_known(Difference("s", "log", None, "ata2: SATA link up 1.5 Gbps (SStatus 113 SControl 300)"), known)


@pytest.mark.skipif(bool(qemu_unavailable_reason()), reason=qemu_unavailable_reason() or "")
def test_differential_suite(tmp_path):
    rs, rq, diffs = run_differential([ROOT / "scenarios" / "qemu"], tmp_path, "--wall-limit", "120")
    assert rs.returncode == 0, rs.stdout + rs.stderr
    assert rq.returncode == 0, rq.stdout + rq.stderr
    assert diffs, "the backends cannot be identical (QEMU is Gen1): the comparison did not run"
    known = load_known()
    new = [str(d) for d in diffs if not is_known(d, known)]
    assert not new, (f"{len(new)} difference(s) between the satasim AHCI model and QEMU not in "
                     f"{KNOWN_DIFFERENCES.name}:\n" + "\n".join(new))
