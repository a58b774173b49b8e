"""Cross-backend EH: each QEMU error scenario (scenarios/qemu-errors/, faults injected by
QEMU's blkdebug driver) and the same faults expressed for the SystemC AHCI model
(`faults: media_error`), run on both; the stack's EH decision sequences (the golden subset
without fault records, timing ignored) must agree, except for the reviewed differences in
qemu_known_differences.yaml (`eh:`)."""

import copy
import re

import pytest
import yaml

from satasim import run
from satasim.differential import (KNOWN_DIFFERENCES, ROOT, eh_differences, eh_lines, load_known,
                                  qemu_unavailable_reason, unexplained_eh)

ERRORS = sorted((ROOT / "scenarios" / "qemu-errors").glob("*.yaml"))


def systemc_equivalent(spec):
    """The scenario with its blkdebug rules as SystemC media_error faults. QEMU's IDE core
    reports every injected error as ABRT (status 0x41, error 0x04), so the model fails the
    command the same way (error: abrt). A `once` rule fails the next matching command; a
    persistent one every matching command for ever."""
    spec = copy.deepcopy(spec)
    spec["backend"] = "systemc"
    faults = []
    for dev in spec.get("devices", []):
        for i, rule in enumerate(dev.pop("blkdebug", []) or []):
            f = {"kind": "media_error", "port": dev["port"], "id": f"blkdebug{dev['port']}_{i}",
                 "error": "abrt", "cleared_by_write": False}
            cmd = {"op": rule["op"]}
            if "lba" in rule:
                cmd["lba"] = [rule["lba"], rule["lba"]]
            f["on_cmd"] = cmd
            f["count"] = 1 if rule.get("once", True) else 0
            faults.append(f)
    spec["faults"] = faults
    return spec


def unexplained(sys_lines, qemu_lines, known):
    return unexplained_eh(sys_lines, qemu_lines, known, side="qemu")


def _fmt(d):
    s, q = d
    return f"  systemc: {s or '(none)'}\n  qemu:    {q or '(none)'}"


# expect.log_contains lines that only hold on QEMU (its missing log page 10h)
QEMU_ONLY_EXPECT = ("failed to read log page 10h",)


def systemc_scenario(path, dst_dir):
    spec = systemc_equivalent(yaml.safe_load(path.read_text()))
    exp = spec.get("expect") or {}
    if "log_contains" in exp:
        exp["log_contains"] = [x for x in exp["log_contains"]
                               if not any(q in x for q in QEMU_ONLY_EXPECT)]
    dst = dst_dir / path.name
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(yaml.safe_dump(spec, sort_keys=False))
    return dst, spec["name"]


def test_systemc_equivalent_expresses_every_blkdebug_rule():
    spec = yaml.safe_load((ROOT / "scenarios" / "qemu-errors" / "read-write-flush-errors.yaml").read_text())
    got = systemc_equivalent(spec)
    assert got["backend"] == "systemc" and "blkdebug" not in got["devices"][0]
    assert [(f["on_cmd"]["op"], f["on_cmd"].get("lba"), f["count"]) for f in got["faults"]] == [
        ("read", [1000, 1000], 1), ("read", [2000, 2000], 0), ("write", [5000, 5000], 0), ("flush", None, 1)]
    assert all(f["kind"] == "media_error" and f["error"] == "abrt" for f in got["faults"])


def test_eh_differences_pair_changed_events_and_keep_missing_ones():
    a = ["ata1  eh.reset  hard", "ata1.00  eh.failed_qc  x stat=0x51", "ata1  eh.complete  done"]
    b = ["ata1  eh.reset  hard", "ata1  eh.ncq_log_failed  log", "ata1.00  eh.failed_qc  x stat=0x41",
         "ata1  eh.complete  done"]
    assert eh_differences(a, b) == [(None, "ata1  eh.ncq_log_failed  log"),
                                    ("ata1.00  eh.failed_qc  x stat=0x51", "ata1.00  eh.failed_qc  x stat=0x41")]
    known = {"eh": [{"systemc": "stat=0x51", "qemu": "stat=0x41", "reason": "r"}]}
    assert unexplained(a, b, known) == [(None, "ata1  eh.ncq_log_failed  log")]
    assert unexplained(a, a[:1] + a[2:], known) == [("ata1.00  eh.failed_qc  x stat=0x51", None)]


def test_eh_known_differences_are_reviewed():
    for e in load_known().get("eh", []):
        assert e.get("reason") and (e.get("systemc") or e.get("qemu")), e
        for side in ("systemc", "qemu"):
            if e.get(side):
                re.compile(e[side])


@pytest.mark.skipif(bool(qemu_unavailable_reason()), reason=qemu_unavailable_reason() or "")
@pytest.mark.parametrize("path", ERRORS, ids=lambda p: p.stem)
def test_eh_decisions_agree_across_backends(path, tmp_path):
    src, name = systemc_scenario(path, tmp_path / "in")
    rs = run([src], tmp_path / "systemc")
    rq = run([path], tmp_path / "qemu", "--wall-limit", "120")
    assert rs.returncode == 0, rs.stdout + rs.stderr
    assert rq.returncode == 0, rq.stdout + rq.stderr
    a, b = eh_lines(tmp_path / "systemc" / name), eh_lines(tmp_path / "qemu" / name)
    assert any(" eh.failed_qc " in x for x in a) and any(" eh.failed_qc " in x for x in b), \
        "no EH on one backend: the faults did not fire"
    assert eh_differences(a, b), "QEMU is Gen1: identical sequences mean the comparison did not run"
    new = unexplained(a, b, load_known())
    assert not new, (f"{len(new)} EH difference(s) between the SystemC model and QEMU not in "
                     f"{KNOWN_DIFFERENCES.name} (eh:):\n" + "\n".join(map(_fmt, new)))
