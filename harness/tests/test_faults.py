"""Fault injection (scenarios/faults/): every fault scenario passes on AHCI and on the
SiI3124, and the stack's reaction is asserted from result.json and the trace beyond the
scenario's own expect block. Bad fault keys are refused like any malformed scenario."""

from pathlib import Path

import pytest
import yaml

from satasim import load_result, load_trace, run, run_shared

from satasim.controllers import adaptable, write_adapted_shared  # the one controller rewrite (incl. speed-down on sil24)

ROOT = Path(__file__).resolve().parents[2]
FAULTS = sorted((ROOT / "scenarios" / "faults").glob("*.yaml"))


def run_fault(path, ctl, tmp_path):
    # the goldens' adapter: this run, the suite's and the golden's are one (run_shared)
    src = write_adapted_shared(path, ctl, tmp_path / "in")
    spec = yaml.safe_load(src.read_text())
    name = spec["name"]
    out = tmp_path / "out"
    result = run_shared([src], out)
    res = load_result(out, name)
    return spec, result, res, out, name


def params():
    # on the SiI3124 every fault scenario the adapter takes (not the AHCI-only fault kinds:
    # host_bus_error acts on an AHCI port's DMA engine)
    for ctl in ("ahci", "sil24"):
        for path in FAULTS:
            if adaptable(yaml.safe_load(path.read_text()), ctl) is None:
                yield pytest.param(ctl, path, id=f"{ctl}-{path.stem}")


def test_every_fault_kind_has_a_scenario():
    kinds = set()
    for path in FAULTS:
        for f in yaml.safe_load(path.read_text()).get("faults", []):
            kinds.add(f["kind"])
    assert kinds >= {"crc", "lost_irq", "unplug", "plug", "media_error", "hang", "identify_fail",
                     "phy_flap", "link_degrade"}


@pytest.mark.parametrize("ctl,path", list(params()))
def test_fault_scenario(ctl, path, tmp_path):
    spec, result, res, out, name = run_fault(path, ctl, tmp_path)
    assert res["verdict"] == "pass", res["reasons"]
    assert result.returncode == 0
    assert res["data_errors"] == 0
    assert res["violations"] == 0
    assert res["frozen_ports"] == []
    # Every fault fired, and its fault.inject records are in the trace, in firing order.
    trace = load_trace(out, name)
    injects = [r for r in trace if r["ev"] == "fault.inject"]
    for i, f in enumerate(spec["faults"]):
        fid = f.get("id", f"fault{i}")
        fired = [r for r in injects if r["f"]["id"] == fid]
        rep = [x for x in res["faults"] if x["id"] == fid][0]
        assert rep["fired"] >= 1
        assert len(fired) == rep["fired"]
        assert [r["f"]["firing"] for r in fired] == list(range(1, rep["fired"] + 1))
        assert all(r["src"] == "fault" and r["port"] == f["port"] for r in fired)
    # The stack reacted after the first injection, not before; a fault the hardware absorbs
    # (its scenario expects no EH exception: an unsolicited FIS on an idle port) leaves the
    # stack quiet, and that is checked too.
    first = injects[0]["seq"]
    eh = [r for r in trace if r["src"] == "stack" and r["ev"].startswith(("eh.", "probe.link")) and r["seq"] > first]
    if "exception" in (spec.get("expect") or {}).get("log_not_contains", []):
        assert not eh, f"EH or link events after a fault the hardware absorbs: {eh[:3]}"
    else:
        assert eh, "no EH or link event after the first fault"


def reaction(tmp_path, stem, ctl="ahci"):
    spec, result, res, out, name = run_fault(ROOT / "scenarios" / "faults" / f"{stem}.yaml", ctl, tmp_path)
    return res, load_trace(out, name)


def test_media_error_fails_exactly_the_culprit(tmp_path):
    res, trace = reaction(tmp_path, "media-error-ncq")
    assert res["io_errors"] == 1
    failed = [r for r in trace if r["ev"] == "eh.failed_qc" and not r["f"]["retry"]]
    assert len(failed) == 1 and failed[0]["f"]["ncq_culprit"]
    assert int(failed[0]["f"]["emask"], 16) & 0x8  # AC_ERR_MEDIA
    err = [r for r in trace if r["ev"] == "io.error"]
    assert len(err) == 1 and err[0]["f"]["lba"] <= 1600 < err[0]["f"]["lba"] + err[0]["f"]["sectors"]
    assert res["workloads"][0]["completed"] == 512


def test_hang_ncq_off_turns_ncq_off_after_timeouts(tmp_path):
    res, trace = reaction(tmp_path, "hang-ncq-off")
    assert res["devices_after"][0]["ncq"] is False
    assert res["devices"][0]["ncq"] is True  # at probe
    timeouts = [r for r in trace if r["ev"] == "qc.timeout"]
    assert len(timeouts) >= 4
    resets = [r for r in trace if r["ev"] == "eh.reset" and r["f"].get("method") == "hard"]
    assert len(resets) >= 5  # the boot probe's and one per hang


def test_unplug_fails_everything_in_flight_and_leaves_port_empty(tmp_path):
    res, trace = reaction(tmp_path, "unplug-ncq-qd32")
    assert res["absent_after"] == [0]
    assert res["io_errors"] >= 32
    assert res["workloads"][0]["finished"]
    unplug = [r for r in trace if r["ev"] == "fault.inject"][0]
    failed = [r for r in trace if r["ev"] == "io.error" and r["seq"] > unplug["seq"]]
    assert len(failed) >= 32


def test_hotswap_attaches_the_new_drive(tmp_path):
    res, trace = reaction(tmp_path, "hotswap-new-serial")
    assert res["devices"][0]["serial"] == "SIM0000000"
    assert res["devices_after"][0]["serial"] == "NEWDRIVE0001"
    assert res["devices_after"][0]["sectors"] == 4194304


def test_plug_on_empty_port(tmp_path):
    res, trace = reaction(tmp_path, "plug-empty-port")
    assert res["empty_ports"] == [1]
    assert [d["port"] for d in res["devices_after"]] == [0, 1]


def test_a_plug_as_the_last_event_is_seen_through(tmp_path):
    """A plug with nothing after it (no workload, no later fault: a field report whose log
    ends at the plug, dmesg-corpus 06): the run must not end while the drive's COMINIT and
    the PHY's negotiation are still on the wire (the runner's settle waits for a link's OOB,
    TopologyView::quiet); it ended with the drive unseen before."""
    scen = tmp_path / "plug-last.yaml"
    scen.write_text("""
name: plug-last
controller: {type: ahci, ports: 1}
devices: [{port: 0, present: false, capacity: 1g, serial: "PLUGLAST0001", timing: {kind: ssd}}]
faults:
  - {kind: plug, port: 0, at: 2s}
expect:
  empty_ports: [0]
  devices_after: [{port: 0, serial: "PLUGLAST0001", class: ata}]
""")
    out = tmp_path / "out"
    result = run([scen], out)
    res = load_result(out, "plug-last")
    assert res["verdict"] == "pass", (res.get("reasons"), result.stdout[-500:])
    assert [d["serial"] for d in res["devices_after"]] == ["PLUGLAST0001"]


def test_link_degrade_renegotiates_lower(tmp_path):
    res, trace = reaction(tmp_path, "link-degrade")
    assert res["devices"][0]["link_gen"] == 3
    assert res["devices_after"][0]["link_gen"] == 1


# ---- bad fault keys: refused with file, line and key; exit 2; nothing written

HEAD = """\
name: bad
controller: {type: ahci, ports: 2}
devices:
  - port: 0
"""

BAD = {
    "no-kind": (HEAD + "faults:\n  - {port: 0, at: 1ms}\n", 6, "faults[0].kind"),
    "bad-kind": (HEAD + "faults:\n  - {kind: meteor, port: 0, at: 1ms}\n", 6, "faults[0].kind"),
    "no-trigger": (HEAD + "faults:\n  - kind: hang\n    port: 0\n", 6, "faults[0].at"),
    "two-triggers": (HEAD + "faults:\n  - kind: hang\n    port: 0\n    at: 1ms\n    after_cmds: 3\n", 9,
                     "faults[0].after_cmds"),
    "port-without-disk": (HEAD + "faults:\n  - {kind: hang, port: 1, at: 1ms}\n", 6, "faults[0].port"),
    "port-out-of-range": (HEAD + "faults:\n  - {kind: hang, port: 7, at: 1ms}\n", 6, "faults[0].port"),
    "key-of-other-kind": (HEAD + "faults:\n  - kind: hang\n    port: 0\n    at: 1ms\n    burst: 2\n", 9,
                          "faults[0].burst"),
    "crc-bad-fis": (HEAD + "faults:\n  - kind: crc\n    port: 0\n    at: 1ms\n    fis: dat\n", 9, "faults[0].fis"),
    "crc-bad-dir": (HEAD + "faults:\n  - kind: crc\n    port: 0\n    at: 1ms\n    dir: up\n", 9, "faults[0].dir"),
    "bad-time": (HEAD + "faults:\n  - kind: hang\n    port: 0\n    at: 5\n", 8, "faults[0].at"),
    "repeat-without-every": (HEAD + "faults:\n  - kind: phy_flap\n    port: 0\n    at: 1ms\n    repeat: 3\n", 9,
                             "faults[0].repeat"),
    "every-with-cmd-trigger": (HEAD + "faults:\n  - kind: hang\n    port: 0\n    after_cmds: 3\n    every: 1ms\n",
                               9, "faults[0].every"),
    "media-lba-beyond-disk": (
        HEAD + "faults:\n  - kind: media_error\n    port: 0\n    at: 1ms\n    lba: [0, 99999999999]\n", 9,
        "faults[0].lba"),
    "media-at-without-lba": (HEAD + "faults:\n  - kind: media_error\n    port: 0\n    at: 1ms\n", 6,
                             "faults[0].lba"),
    "media-bad-error": (HEAD + "faults:\n  - kind: media_error\n    port: 0\n    on_cmd: {op: read}\n"
                        "    error: oops\n", 9, "faults[0].error"),
    "on-cmd-unknown-key": (HEAD + "faults:\n  - kind: hang\n    port: 0\n    on_cmd: {op: read, tag: 3}\n", 8,
                           "faults[0].on_cmd.tag"),
    "degrade-no-gen": (HEAD + "faults:\n  - {kind: link_degrade, port: 0, at: 1ms}\n", 6, "faults[0].gen"),
    "degrade-gen4": (HEAD + "faults:\n  - {kind: link_degrade, port: 0, at: 1ms, gen: 4}\n", 6, "faults[0].gen"),
    "lost-irq-count-and-window": (
        HEAD + "faults:\n  - kind: lost_irq\n    port: 0\n    at: 1ms\n    count: 2\n    window: 1ms\n", 10,
        "faults[0].window"),
    "plug-serial-too-long": (HEAD + "faults:\n  - kind: plug\n    port: 0\n    at: 1ms\n"
                             "    serial: ABCDEFGHIJKLMNOPQRSTUVWXYZ\n", 9, "faults[0].serial"),
    "duplicate-id": (HEAD + "faults:\n  - {kind: hang, port: 0, at: 1ms, id: x}\n"
                     "  - {kind: hang, port: 0, at: 2ms, id: x}\n", 7, "faults[1].id"),
    "unplug-repeat": (HEAD + "faults:\n  - kind: unplug\n    port: 0\n    at: 1ms\n    every: 1ms\n"
                      "    repeat: 2\n", 10, "faults[0].repeat"),
    "present-bad": ("name: bad\ndevices:\n  - port: 0\n    present: maybe\n", 4, "devices[0].present"),
    "workload-on-unplugged": ("name: bad\ndevices:\n  - {port: 0, present: false}\nworkload:\n"
                              "  - {device: 0, op: read, count: 1}\n", 5, "workload[0].device"),
    "coalesce-no-unit": ("name: bad\ndevices:\n  - port: 0\n    ncq_sdb_coalesce: 5\n", 4,
                         "devices[0].ncq_sdb_coalesce"),
    "io-errors-and-range": ("name: bad\nexpect:\n  io_errors: 1\n  io_errors_min: 1\n", 4,
                            "expect.io_errors_min"),
    "io-errors-range-inverted": ("name: bad\nexpect:\n  io_errors_min: 5\n  io_errors_max: 1\n", 4,
                                 "expect.io_errors_max"),
    "absent-after-bad-port": ("name: bad\ncontroller: {ports: 2}\nexpect:\n  absent_after: [3]\n", 4,
                              "expect.absent_after[0]"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_fault_key_is_refused(case, write_scenario, tmp_path):
    text, line, key = BAD[case]
    path = write_scenario(text)
    out_dir = tmp_path / "out"
    result = run([path], out_dir)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{path}:{line}: {key}" in result.stderr, result.stderr
    assert not (out_dir / "bad").exists()


def test_qemu_backend_refuses_faults(write_scenario, tmp_path):
    path = write_scenario(HEAD + "backend: qemu\nfaults:\n  - {kind: hang, port: 0, at: 1ms}\n")
    result = run([path], tmp_path / "out")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cannot model faults" in result.stderr
    assert "blkdebug" in result.stderr


def test_request_pending_at_the_end_is_named(write_scenario, tmp_path):
    # The drive hangs and the time limit ends the run before the 30 s command timeout: the
    # run fails with a hang naming the request that never ended.
    path = write_scenario(
        """
        name: pending
        time_limit: 5s
        controller: {type: ahci, ports: 1}
        devices:
          - {port: 0, capacity: 1g}
        workload:
          - {device: 0, op: write, block: 8, qd: 1, count: 10, mode: dma}
        faults:
          - {kind: hang, port: 0, after_cmds: 3}
        """
    )
    result = run([path], tmp_path / "out")
    assert result.returncode == 1
    res = load_result(tmp_path / "out", "pending")
    assert any(r.startswith("hang: not finished within the time limit") for r in res["reasons"]), res["reasons"]
    pending = [r for r in res["reasons"] if r.startswith("request pending at the end:")]
    assert len(pending) == 1 and "write lba 16 sectors 8" in pending[0], res["reasons"]
