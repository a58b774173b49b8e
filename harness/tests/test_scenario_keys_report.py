"""The scenario keys a real report needs (issue 18): warm-plug steps, request timeout, slow
faults, fail-fast requests, the attach-time read, host.force (libata.force syntax) and the
media_error scope rule with its `satasim check` warnings. The scenarios in scenarios/report/
are compared with their goldens by test_golden.py; here: what each key must do or refuse,
in short runs (well under a second of wall time each)."""

import os
import subprocess

import pytest

from satasim import run
from satasim.results import binary, load_result, load_trace

HEAD = """\
name: k
seed: 3
time_limit: 120s
link: {mode: fis}
controller: {type: ahci, ports: 2}
devices:
  - {port: 0, capacity: 1g, timing: {kind: ssd}}
"""


def check(path):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    return subprocess.run([str(binary()), "check", str(path)], capture_output=True, text=True, env=env)


def decisions(out, name, ev):
    return [r for r in load_trace(out, name) if r["ev"] == ev]


# ------------------------------------------------------------------ refused with file:line

BAD = {
    # host.force: the kernel parameter's syntax
    "force-unknown-value": (HEAD + "host: {force: \"1:fast\"}\n", 8, "host.force", "'fast' is not a libata.force value"),
    "force-unmodelled-value": (HEAD + "host: {force: \"nohrst\"}\n", 8, "host.force", "does not model"),
    "force-6gbps-not-in-kernel-table": (HEAD + "host: {force: \"6.0Gbps\"}\n", 8, "host.force", "not a libata.force"),
    "force-port-beyond-controller": (HEAD + "host: {force: \"3:noncq\"}\n", 8, "host.force", "not on a 2-port"),
    "force-bad-device": (HEAD + "host: {force: \"1.16:noncq\"}\n", 8, "host.force", "device '16'"),
    "force-empty-entry": (HEAD + "host: {force: \"1:noncq,,udma5\"}\n", 8, "host.force", "entry 2"),
    # devices[].timeout
    "timeout-zero": (HEAD.replace("timing: {kind: ssd}}", "timing: {kind: ssd}, timeout: 0s}"), 7,
                     "devices[0].timeout", "whole milliseconds"),
    "timeout-sub-ms": (HEAD.replace("timing: {kind: ssd}}", "timing: {kind: ssd}, timeout: 1500us}"), 7,
                       "devices[0].timeout", "whole milliseconds"),
    # warm-plug steps
    "delete-empty-port": (HEAD + "workload:\n  - {kind: delete, device: 1}\n", 9, "workload[0].device",
                          "no disk is configured on port 1"),
    "scan-no-such-port": (HEAD + "workload:\n  - {kind: scan, port: 2}\n", 9, "workload[0].port", "port 2"),
    "delete-io-key": (HEAD + "workload:\n  - {kind: delete, device: 0, op: read}\n", 9, "workload[0].op", "op"),
    "rescan-needs-device": (HEAD + "workload:\n  - {kind: rescan}\n", 9, "workload[0].device", "required"),
    # request tags (the block layer's tag)
    "tag-beyond-31": (HEAD + "workload:\n  - {kind: request, device: 0, op: read, sectors: 8, tag: 32}\n", 9,
                      "workload[0].tag", "32"),
    # a cominit on a connector without a drive: at a time only
    "cominit-on-cmd-no-drive": (HEAD.replace("devices:\n", "devices:\n  - {port: 1, present: false}\n")
                                + "workload:\n  - {device: 0, op: read, count: 1}\n"
                                "faults:\n  - {kind: cominit, port: 1, on_cmd: {op: read}}\n", 12, "faults[0].on_cmd",
                                "fires at a time (`at`): nothing there counts commands"),
    # slow faults
    "slow-needs-delay": (HEAD + "workload:\n  - {device: 0, op: read, count: 1}\n"
                         "faults:\n  - {kind: slow, port: 0, at: 1ms}\n", 11, "faults[0].delay", "required"),
    "slow-flush": (HEAD + "workload:\n  - {device: 0, op: read, count: 1}\n"
                   "faults:\n  - {kind: slow, port: 0, at: 1ms, delay: 1s, op: flush}\n", 11, "faults[0].op",
                   "delays reads and writes"),
    "slow-count-and-window": (HEAD + "workload:\n  - {device: 0, op: read, count: 1}\n"
                              "faults:\n  - {kind: slow, port: 0, at: 1ms, delay: 1s, count: 2, window: 1s}\n",
                              11, "faults[0].window", "not both"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_key_is_refused_with_file_line_and_key(case, write_scenario, tmp_path):
    text, line, key, why = BAD[case]
    path = write_scenario(text)
    r = run([path], tmp_path / "out")
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{path}:{line}: {key}" in r.stderr, r.stderr
    assert why in r.stderr, r.stderr
    assert not (tmp_path / "out" / "k").exists()


def test_slow_fault_is_refused_on_qemu_with_the_reason(write_scenario, tmp_path):
    path = write_scenario(HEAD.replace("link: {mode: fis}\n", "backend: qemu\n").replace("ports: 2", "ports: 1")
                          + "workload:\n  - {device: 0, op: read, count: 1}\n"
                            "faults:\n  - {kind: slow, port: 0, at: 1ms, delay: 1s}\n")
    r = run([path], tmp_path / "out")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "kind slow" in r.stderr and "latency-ns" in r.stderr, r.stderr


# ------------------------------------------------------------------ media_error scope

SCOPE = HEAD + """\
workload:
  - {kind: request, device: 0, op: read, lba: 2048, sectors: 8, expect_error: true, fail_fast: true}
  - {kind: request, device: 0, op: write, lba: 2048, sectors: 8, barrier: true}
faults:
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [2048, 2055]}, error: idnf%s}
"""


def test_media_error_without_op_keeps_to_its_trigger(write_scenario, tmp_path):
    path = write_scenario(SCOPE % "")
    c = check(path)
    assert c.returncode == 0 and "warning" not in c.stdout, c.stdout + c.stderr
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout
    inject = decisions(tmp_path / "out", "k", "fault.inject")
    assert inject[0]["f"]["op"] == "read"
    assert load_result(tmp_path / "out", "k")["io_errors"] == 0  # the write went through


def test_media_error_op_any_fails_the_write_and_check_warns(write_scenario, tmp_path):
    # what the default was before the scope rule: the write over the range fails too
    path = write_scenario(SCOPE % ", op: any")
    c = check(path)
    assert c.returncode == 0, c.stderr
    assert f"warning: {path}:12: faults[0].op: op any is wider than the trigger's on_cmd.op read" in c.stdout, c.stdout
    r = run([path], tmp_path / "out")
    assert r.returncode == 1
    assert load_result(tmp_path / "out", "k")["io_errors"] == 1


@pytest.mark.parametrize("extra,warning", [
    (", lba: [2040, 2055]", "lba [2040, 2055] is wider than the trigger's on_cmd.lba [2048, 2055]"),
    (", op: write, error: unc", None),  # rewritten below: unc + write
])
def test_check_warns_about_scope_wider_than_trigger(extra, warning, write_scenario):
    text = SCOPE % extra
    if warning is None:
        text = text.replace("error: idnf, op: write, error: unc", "error: unc, op: write")
        warning = "an unc error fails reads only"
    path = write_scenario(text)
    c = check(path)
    assert c.returncode == 0, c.stderr
    assert warning in c.stdout, c.stdout


# ------------------------------------------------------------------ what each key does

def test_force_applies_per_device_port_and_last_id(write_scenario, tmp_path):
    path = write_scenario(HEAD.replace("controller: {type: ahci, ports: 2}", "controller: {type: ahci, ports: 2}\n"
                                       "host: {force: \"noncq,1:ncq,2:1.5Gbps,mwdma2\"}")
                          + "  - {port: 1, capacity: 1g, timing: {kind: ssd}}\n")
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout
    devs = {d["port"]: d for d in load_result(tmp_path / "out", "k")["devices"]}
    # "noncq" (every port) then "1:ncq" turns it back on for ata1; ata2 keeps noncq
    assert devs[0]["ncq"] is True and devs[1]["ncq"] is False
    assert devs[0]["xfer"] == "UDMA/133" and devs[1]["xfer"] == "MWDMA2"
    assert devs[0]["link_gen"] == 3 and devs[1]["link_gen"] == 1
    log = (tmp_path / "out" / "k" / "satasim.log").read_text()
    assert "ata2.00: FORCE: xfer_mask set to mwdma2" in log
    assert "ata2: FORCE: PHY spd limit set to 1.5Gbps" in log


def test_timeout_and_slow_fault(write_scenario, tmp_path):
    """A 3 s late answer: no error under the default 30 s timeout, a timeout under 1 s."""
    body = ("workload:\n  - {kind: request, device: 0, op: read, lba: 64, sectors: 8%s}\n"
            "faults:\n  - {kind: slow, port: 0, on_cmd: {op: read}, delay: 3s, count: 1}\n")
    late = write_scenario(HEAD + body % "", "late.yaml")
    r = run([late], tmp_path / "a")
    assert r.returncode == 0, r.stdout
    assert not decisions(tmp_path / "a", "k", "qc.timeout")
    done = [x for x in load_trace(tmp_path / "a", "k") if x["ev"] == "workload.done"]
    effect = decisions(tmp_path / "a", "k", "fault.effect")
    assert done[0]["t_ns"] - effect[0]["t_ns"] >= 3_000_000_000  # it answered, 3 s late
    short = write_scenario(HEAD.replace("timing: {kind: ssd}}", "timing: {kind: ssd}, timeout: 1s}") + body % "",
                           "short.yaml")
    r = run([short], tmp_path / "b")
    assert r.returncode == 0, r.stdout  # retried after the reset, answered in time
    t = decisions(tmp_path / "b", "k", "qc.timeout")
    slow = decisions(tmp_path / "b", "k", "fault.effect")
    assert len(t) == 1 and t[0]["t_ns"] - slow[0]["t_ns"] < 1_100_000_000


def test_fail_fast_is_not_retried_above_eh(write_scenario, tmp_path):
    body = ("workload:\n  - {kind: request, device: 0, op: read, lba: 64, sectors: 8, expect_error: true%s}\n"
            "faults:\n  - {kind: slow, port: 0, on_cmd: {op: read}, delay: 2s}\n")
    text = HEAD.replace("timing: {kind: ssd}}", "timing: {kind: ssd}, timeout: 1s}") + body
    path = write_scenario(text % ", fail_fast: true")
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout
    fails = decisions(tmp_path / "out", "k", "eh.qc_fail")
    assert [f["f"]["reason"] for f in fails] == ["fail-fast"]
    assert not decisions(tmp_path / "out", "k", "eh.retry")


def test_attach_read_is_the_first_read(write_scenario, tmp_path):
    path = write_scenario(HEAD.replace("timing: {kind: ssd}}", "timing: {kind: ssd}, attach_read: true}") + """\
workload:
  - {device: 0, op: read, count: 2, region: {start: 4096, length: 64}}
faults:
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [0, 7]}, count: 1}
expect: {io_errors: 1}
""")
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout
    log = (tmp_path / "out" / "k" / "satasim.log").read_text()
    assert "I/O error: attach read (port 0): read lba 0 sectors 8 failed" in log
    reads = [x for x in load_trace(tmp_path / "out", "k") if x["ev"] == "qc.issue" and x["f"]["cmd"] == "0x60"]
    inject = decisions(tmp_path / "out", "k", "fault.inject")[0]
    assert inject["f"]["cmd_lba"] == "0x0" and inject["t_ns"] <= reads[1]["t_ns"]


def test_delete_then_scan_brings_the_disk_back(write_scenario, tmp_path):
    path = write_scenario(HEAD + """\
workload:
  - {device: 0, op: write, count: 4, region: {start: 0, length: 32}}
  - {kind: delete, device: 0, barrier: true}
  - {kind: request, device: 0, op: read, sectors: 8, expect_submit: enodev, barrier: true}
  - {kind: scan, port: 0, barrier: true}
  - {device: 0, op: read, count: 4, region: {start: 0, length: 32}, barrier: true}
""")
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout
    res = load_result(tmp_path / "out", "k")
    assert [w["kind"] for w in res["workloads"]] == ["io", "delete", "request", "scan", "io"]
    assert res["workloads"][4]["reads"] == 4 and res["data_errors"] == 0
    warm = [x for x in load_trace(tmp_path / "out", "k") if x["ev"] == "workload.warmplug"]
    assert [(w["f"]["kind"], w["f"]["rc"]) for w in warm] == [("delete", 0), ("scan", 0)]


def test_deleted_disk_must_be_listed_as_absent(write_scenario, tmp_path):
    path = write_scenario(HEAD + "workload:\n  - {kind: delete, device: 0}\n")
    r = run([path], tmp_path / "out")
    assert r.returncode == 1
    assert "disabled" in r.stdout
    ok = write_scenario(HEAD + "workload:\n  - {kind: delete, device: 0}\nexpect: {absent_after: [0]}\n", "ok.yaml")
    assert run([ok], tmp_path / "out2").returncode == 0
