"""The taskfile controllers' paths that a golden does not show: polled PIO takes no
interrupt at all, the interrupt-driven run of the same kind of I/O takes one per DRQ block,
and a lost PIO interrupt is recovered by the lost-interrupt check without EH."""

from pathlib import Path

import pytest

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


def _trace(tmp_path, name):
    return load_trace(tmp_path, name)


def test_mod15write_fixup_splits_every_command_to_15_sectors(tmp_path):
    """A listed drive with the erratum: the fixup is logged at probe, max_sectors is 15,
    every data command carries at most 15 sectors (so the requests up to 256 sectors were
    split) and the data read back equals the data written (verdict pass, no data errors)."""
    name = "sil3112-mod15write"
    res = _run(tmp_path, name)
    trace = _trace(tmp_path, name)
    fix = [e for e in trace if e["ev"] == "sil.mod15write"]
    assert len(fix) == 1 and fix[0]["f"]["max_sectors"] == 15
    conf = [e for e in trace if e["ev"] == "probe.configured"]
    assert conf and all(e["f"]["max_sectors"] == 15 for e in conf)
    data = [e["f"]["bytes"] for e in trace if e["ev"] == "qc.issue" and e["f"]["bytes"]]
    assert data and max(data) == 15 * 512
    requests = sum(w["completed"] for w in res["workloads"])
    assert len(data) > 2 * requests  # 64 KiB requests went out as 9 commands each
    assert not [e for e in trace if e["ev"] == "fault.effect"]  # the drive never hung


def test_mod15write_unlisted_drive_hangs_on_an_8k_data_fis(tmp_path):
    """The same erratum on a drive the list misses: no fixup, 65535 sectors per command;
    the short writes pass, the 64 KiB write hangs the drive at its first 8 KiB Data FIS,
    times out, is retried after each hardreset (the COMRESET restarts the drive) and
    finally fails: one I/O error, no data error."""
    name = "sil3112-mod15write-unlisted"
    result = run([SFF / f"{name}.yaml"], tmp_path)
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", (res.get("reasons"), result.stdout + result.stderr)
    assert res["io_errors"] == 1 and res["data_errors"] == 0
    trace = _trace(tmp_path, name)
    assert not [e for e in trace if e["ev"] == "sil.mod15write"]
    hangs = [e for e in trace if e["ev"] == "fault.effect" and e["f"].get("id") == "mod15write"
             and e["f"]["state"] == "hung"]
    resets = [e for e in trace if e["ev"] == "eh.reset" and e["f"].get("method") == "hard" and e["port"] == 0]
    # every try of the write hangs, and each hang is followed by a hardreset
    assert len(hangs) >= 2 and len(resets) >= len(hangs) + 1  # + the boot probe's
    assert all(e["f"]["bytes"] == 8192 for e in hangs)


def test_split_request_goes_on_after_a_failed_piece(tmp_path):
    """Requests of 128 sectors split into 15-sector pieces (8 of 15, one of 8). A read with an
    unreadable sector at 4130 (third piece): that piece fails once (a media error is not
    retried) and every later piece is still issued; the I/O error line names 4130, with the
    one segment left. A write with a write fault under its second piece: that piece is
    retried until the retries are used up, the pieces after it are each written once, and
    the line names the piece's start 8207. The read after the rewrite verifies (no data
    error)."""
    name = "sil3112-mod15write-split-error"
    _run(tmp_path, name)
    trace = _trace(tmp_path, name)
    # data commands in issue order (EH's internal commands run on tag 32)
    issued = [(e["f"]["cmd"], e["f"]["bytes"]) for e in trace if e["ev"] == "qc.issue" and e["f"]["tag"] != 32]

    def request(cmd, tries_of_piece=None):
        pieces = [(cmd, 15 * 512)] * 8 + [(cmd, 8 * 512)]
        if tries_of_piece:
            piece, tries = tries_of_piece
            pieces[piece:piece + 1] = [pieces[piece]] * tries
        return pieces

    write, read = request("0xca"), request("0xc8")
    assert issued == write + read + write + read + request("0xca", (1, 6))
    effects = [e["f"] for e in trace if e["ev"] == "fault.effect" and "cmd" in e["f"]]
    assert [(f["id"], int(f["lba"], 16)) for f in effects] == [("unc", 4130)] + [("df", 8207)] * 6
    errors = [e["f"] for e in trace if e["ev"] == "blk.io_error"]
    assert [(e["sector"], e["op"], e["phys_seg"]) for e in errors] == [(4130, "0x0", 1), (8207, "0x1", 1)]
    fails = [e["f"] for e in trace if e["ev"] == "eh.qc_fail"]
    assert [(f["emask"], f["reason"]) for f in fails] == [("0x9", "not retryable"), ("0x1", "retries exhausted")]


IRQ_POLL_NS = 100_000_000  # the kernel's POLL_SPURIOUS_IRQ_INTERVAL (HZ/10)


@pytest.mark.parametrize("name", ["piix-irq-storm", "sil3112-irq-storm"])
def test_screaming_line_is_disabled_then_polled(tmp_path, name):
    """A line stuck asserted with nothing pending: every handler call is unhandled; at the
    kernel's 100,000th interrupt (more than 99,900 unhandled) it is reported and disabled at
    the instant the storm began, and from then on every command completes in a poll of the
    spurious poller, on its 100 ms grid: no timeout, no EH decision, data verified."""
    res = _run(tmp_path, name)
    trace = _trace(tmp_path, name)
    decisions = [e for e in trace if e["cls"] == "decision" or e["ev"] == "fault.inject"]
    storm = next(i for i, e in enumerate(decisions) if e["ev"] == "fault.inject")
    after = [(e["src"], e["ev"]) for e in decisions[storm:]]
    assert after == [("fault", "fault.inject"), ("kernel", "irq.nobody_cared"), ("kernel", "irq.disabled")]
    t_storm = decisions[storm]["t_ns"]
    cared, disabled = decisions[storm + 1], decisions[storm + 2]
    assert cared["t_ns"] == disabled["t_ns"] == t_storm  # 100,000 calls at one instant
    assert cared["f"]["unhandled"] > 99_900 and cared["f"]["of"] == 100_000
    assert res["irq_calls"] >= 100_000
    done = [e["t_ns"] for e in trace if e["ev"] == "qc.done" and e["t_ns"] > t_storm]
    assert len(done) > 30
    assert all((t - t_storm) % IRQ_POLL_NS == 0 for t in done), "a completion outside a poll"
    # the idle interrupts are counted, not traced one by one
    assert sum(1 for e in trace if e["ev"] == "sff.idle_irq") < 1100


def test_sil3112_hotplug_into_an_empty_port(tmp_path):
    """A drive plugged into an empty SiI3112 connector: the PHY answers its COMINIT, PhyRdy
    raises the SATA interrupt, and EH (exception, hardreset, link up, configure) attaches it
    on port 1 only; port 0's I/O sees no EH at all. (Before the PHY answered COMINIT the link
    stayed down and the drive was never seen.)"""
    name = "sil3112-plug-empty-port"
    _run(tmp_path, name)
    trace = _trace(tmp_path, name)
    t_plug = next(e["t_ns"] for e in trace if e["ev"] == "fault.inject")
    answer = [e for e in trace if e["ev"] == "sff.cominit_answer" and e["port"] == 1]
    assert len(answer) == 1 and answer[0]["t_ns"] >= t_plug
    after = [e["ev"] for e in trace if e["cls"] == "decision" and e["t_ns"] >= t_plug and e["port"] == 1]
    assert after[:4] == ["eh.exception", "eh.reset", "probe.link_up", "probe.class"]
    assert "probe.configured" in after
    exc = next(e for e in trace if e["ev"] == "eh.exception" and e["port"] == 1)
    assert exc["f"]["frozen"] and exc["t_ns"] > answer[0]["t_ns"]
    assert not [e for e in trace if e["cls"] == "decision" and e["t_ns"] >= t_plug and e["port"] == 0]


def test_piix_has_no_hotplug(tmp_path):
    """The same plug on the PIIX: the link comes up in the model, but with no SCRs and no PHY
    interrupt the stack decides nothing about port 1 (ata_piix has no hotplug)."""
    name = "piix-plug-empty-port"
    _run(tmp_path, name)
    trace = _trace(tmp_path, name)
    t_plug = next(e["t_ns"] for e in trace if e["ev"] == "fault.inject")
    up = [e for e in trace if e["ev"] == "sff.phyrdy_change" and e["port"] == 1 and e["f"]["ready"]]
    assert up and up[-1]["t_ns"] > t_plug
    assert not [e for e in trace if e["cls"] == "decision" and e["t_ns"] >= t_plug]


def _probe_cmds(trace):
    """(device, command) of every IDENTIFY (ec) and SET FEATURES (ef), in issue order."""
    return [(e["dev"], e["f"]["cmd"]) for e in trace if e["ev"] == "qc.issue" and e["f"]["cmd"] in ("0xec", "0xef")]


def test_ich6_master_slave_four_disks_probe_and_data(tmp_path):
    """ICH6 MAP 00b: both channels get a slave position; the probe finds all four disks with
    their own identities, IDENTIFY goes to device 1 before device 0 on each channel (libata's
    reverse order), the transfer modes are set from device 0 up, and every disk's workload
    completes with its data verified."""
    name = "piix-ich6-master-slave"
    res = _run(tmp_path, name)
    found = {d["name"]: d["model"] for d in res["devices"]}
    assert found == {"ata1.00": "SATASIM P0 MASTER", "ata1.01": "SATASIM P2 SLAVE",
                     "ata2.00": "SATASIM P1 MASTER", "ata2.01": "SATASIM P3 SLAVE"}
    assert [w["completed"] for w in res["workloads"]] == [40, 40, 30, 30, 32]
    trace = load_trace(tmp_path, name)
    for port in (0, 1):
        # probe: IDENTIFY 1 then 0; transfer mode: SET FEATURES + IDENTIFY 0, then 1
        assert _probe_cmds([e for e in trace if e.get("port") == port]) == [
            (1, "0xec"), (0, "0xec"), (0, "0xef"), (0, "0xec"), (1, "0xef"), (1, "0xec")]
        classes = [(e["dev"], e["f"]["cls"]) for e in trace if e["ev"] == "probe.class" and e["port"] == port]
        assert classes == [(0, "ata"), (1, "ata")]
    maps = [e for e in trace if e["ev"] == "piix.map"]
    assert len(maps) == 1 and maps[0]["f"]["slave_poss"] == 3


def test_ich6_slave_errors_per_device_eh(tmp_path):
    """Faults on the slave only. The IDNF: no reset, only the slave is revalidated; the
    transfer mode is then set again on both devices of the link (libata's ata_set_mode covers
    the link: SET FEATURES and the post-setmode IDENTIFY per device, in device order). The lost
    DMA interrupt: a timeout, one SRST for the channel, both devices classified, revalidated
    (slave first) and configured; the master's requests and data are unaffected."""
    name = "piix-ich6-slave-errors"
    res = _run(tmp_path, name)
    trace = load_trace(tmp_path, name)
    ex = [i for i, e in enumerate(trace) if e["ev"] == "eh.exception"]
    done = [i for i, e in enumerate(trace) if e["ev"] == "eh.complete"]
    assert len(ex) == 2 and all(trace[i]["dev"] == 1 for i in ex)
    first = trace[ex[0]:next(d for d in done if d > ex[0])]
    second = trace[ex[1]:next(d for d in done if d > ex[1])]
    # IDNF on a block request: revalidation of the failed command's device only, no reset
    assert trace[ex[0]]["f"]["action"] == "0x0"
    assert not [e for e in first if e["ev"] == "eh.reset"]
    assert _probe_cmds(first) == [(1, "0xec"), (0, "0xef"), (0, "0xec"), (1, "0xef"), (1, "0xec")]
    # timeout: the channel's reset, then both devices
    assert trace[ex[1]]["f"]["action"] == "0x6"
    assert [e["f"]["method"] for e in second if e["ev"] == "eh.reset"] == ["soft"]
    assert [(e["dev"], e["f"]["cls"]) for e in second if e["ev"] == "probe.class"] == [(0, "ata"), (1, "ata")]
    assert _probe_cmds(second) == [(1, "0xec"), (0, "0xec"),  # revalidation, device 1 first
                                   (0, "0xef"), (0, "0xec"), (1, "0xef"), (1, "0xec")]  # transfer mode
    assert [e["f"]["devmask"] for e in second if e["ev"] == "sff.devchk"] == ["0x3"]
    assert [e["dev"] for e in second if e["ev"] == "probe.configured"] == [0, 1]
    # the slave alone carries the blame in its error ring
    assert {e["dev"] for e in trace if e["ev"] == "eh.ering"} == {1}
    assert [w["completed"] for w in res["workloads"]] == [60, 60]


EH_WAKEUP_NS = 200_000


def test_busy_after_the_bus_master_stopped_is_an_hsm_violation(tmp_path):
    """Issue 30 item 6: a PHY flap resets the drive in the middle of a READ DMA on piix (no
    SCRs: the stack is not told), then a spurious INTRQ while the drive is still BSY. The bus
    master saw the edge, so the interrupt is the command's: the engine is stopped and Status
    reads BSY. libata's BMDMA port interrupt calls that an HSM violation at once (the engine
    is stopped, the command cannot go on): frozen, SRST, the read retried and verified. It
    used to be an idle interrupt, leaving the command to its 30 s timeout."""
    name = "field-piix-spurious-irq-after-flap"
    result = run([ROOT / "scenarios" / "field" / "piix-spurious-irq-after-flap.yaml"], tmp_path)
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", (res.get("reasons"), result.stdout + result.stderr)
    assert res["io_errors"] == 0 and res["data_errors"] == 0
    trace = load_trace(tmp_path, name)
    spurious = [e for e in trace if e["ev"] == "fault.inject" and e["f"]["kind"] == "spurious_irq"][0]
    hsm = [e for e in trace if e["ev"] == "sff.hsm_violation"]
    assert len(hsm) == 1 and hsm[0]["t_ns"] == spurious["t_ns"], hsm
    assert int(hsm[0]["f"]["status"], 16) & 0x80  # BSY
    # EH reports it when it runs: the EH context starts 200 us after it is woken (the SCSI
    # EH thread's wake-up, harness/src/backend/platform_binding.cpp)
    exc = [e for e in trace if e["ev"] == "eh.exception"]
    assert len(exc) == 1 and exc[0]["t_ns"] == spurious["t_ns"] + EH_WAKEUP_NS and exc[0]["f"]["frozen"]
    assert exc[0]["f"]["desc"].startswith("BMDMA stat 0x")
    assert not [e for e in trace if e["ev"] in ("qc.timeout", "sff.lost_interrupt")]


def test_spurious_irq_after_the_reset_signature_is_a_blind_spot(tmp_path):
    """Issue 30 item 6, the documented blind spot (docs/controllers.md): the same flap, the
    spurious INTRQ after the reset drive's signature (Status 50h). The bus master's Interrupt
    bit is set, Status is good: libata completes the read as a success with none of its data
    transferred, and so does the stack. Only the data check sees it: 64 sectors still hold
    the harness's 0xA5 poison, no I/O error, no EH."""
    name = "piix-spurious-irq-after-signature"
    run([ROOT / "harness" / "tests" / "fixtures" / "sff" / f"{name}.yaml"], tmp_path)
    res = load_result(tmp_path, name)
    assert res["verdict"] == "fail"
    assert res["io_errors"] == 0 and res["data_errors"] == 64
    assert all("0xA5 poison" in r for r in res["reasons"] if r.startswith("data mismatch")), res["reasons"]
    trace = load_trace(tmp_path, name)
    assert not [e for e in trace if e["ev"] in ("eh.exception", "sff.hsm_violation", "qc.timeout")]
    done = [e for e in trace if e["ev"] == "qc.done" and e["f"]["cmd"] == "0xc8"]
    assert all(e["f"]["err_mask"] == "0x0" for e in done)


@pytest.mark.parametrize("ctl", ["piix", "sil3112"])
def test_spurious_irq_in_the_middle_of_a_dma_read_is_an_hsm_violation(tmp_path, ctl):
    """Issue 30 items 5 and 6: a spurious INTRQ while the drive is busy with a READ DMA. The
    driver stops the bus master and finds BSY: HSM violation at once, reset, retry, data
    verified; the drive's Data FISes for the stopped engine do not wedge the bridge."""
    name = f"spurious-irq-mid-dma-{ctl}"
    result = run([ROOT / "harness" / "tests" / "fixtures" / "sff" / f"{name}.yaml"], tmp_path)
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", (res.get("reasons"), result.stdout + result.stderr)
    assert res["io_errors"] == 0 and res["data_errors"] == 0
    trace = load_trace(tmp_path, name)
    spurious = [e for e in trace if e["ev"] == "fault.inject"][0]
    hsm = [e for e in trace if e["ev"] == "sff.hsm_violation"]
    assert len(hsm) == 1 and hsm[0]["t_ns"] == spurious["t_ns"]
    assert not [e for e in trace if e["ev"] in ("qc.timeout", "eh.softreset_failed", "dev.disabled")]


# bmdma_error's `dir` (issue 35: a typed fault parameter declared in its spec row only): armed
# during writes, a d2h error waits for the first transfer into memory (a read); an h2d one
# armed during reads never finds its transfer.
_BMDMA_DIR = """\
name: bmdma-dir-{dir}
seed: 311206
time_limit: 120s
controller: {{type: sil3112}}
devices:
  - {{port: 0, capacity: 1g, timing: {{kind: ssd}}}}
workload:
  - {{device: 0, op: {first}, pattern: sequential, block: 8, qd: 1, count: 20, mode: dma, region: {{start: 0, length: 4m}}}}
  - {{device: 0, op: {second}, pattern: sequential, block: 8, qd: 1, count: 20, mode: dma, region: {{start: 0, length: 4m}}, barrier: true}}
faults:
  - {{kind: bmdma_error, port: 0, after_cmds: 5, dir: {dir}}}
"""
_READS = ("0xc8", "0x25")


def _bmdma_dir_run(tmp_path, dir_, first, second):
    src = tmp_path / f"bmdma-dir-{dir_}.yaml"
    src.write_text(_BMDMA_DIR.format(dir=dir_, first=first, second=second))
    result = run([src], tmp_path / "out")
    res = load_result(tmp_path / "out", f"bmdma-dir-{dir_}")
    assert res["verdict"] == "pass", (res.get("reasons"), result.stdout + result.stderr)
    assert res["data_errors"] == 0 and res["io_errors"] == 0
    return load_trace(tmp_path / "out", f"bmdma-dir-{dir_}")


def test_bmdma_error_dir_d2h_fails_the_first_read(tmp_path):
    trace = _bmdma_dir_run(tmp_path, "d2h", "write", "read")
    inject = [e for e in trace if e["ev"] == "fault.inject"]
    assert len(inject) == 1 and inject[0]["f"]["dir"] == "d2h"
    errors = [i for i, e in enumerate(trace) if e["ev"] == "bmdma.error"]
    assert len(errors) == 1
    issued = [e["f"]["cmd"] for e in trace[:errors[0]] if e["ev"] == "qc.issue" and e["f"]["bytes"]]
    # armed on the 5th write, it let the other 15 writes through and hit the first read
    assert issued[-1] in _READS and issued[-2] not in _READS, issued[-3:]
    assert sum(1 for c in issued if c not in _READS) >= 20


def test_bmdma_error_dir_h2d_leaves_reads_alone(tmp_path):
    trace = _bmdma_dir_run(tmp_path, "h2d", "read", "read")
    assert [e["f"]["dir"] for e in trace if e["ev"] == "fault.inject"] == ["h2d"]
    assert not [e for e in trace if e["ev"] == "bmdma.error"]


SIL3112_BOOT = """
name: sil3112-boot-{policy}
controller: {{type: sil3112, ports: 2}}
host: {{eh_policy: {policy}}}
devices: [{{port: 0, capacity: 1g, timing: {{kind: ssd}}}}]
workload:
  - {{kind: io, device: 0, op: read, pattern: sequential, count: 4, block: 4k, mode: dma}}
"""


@pytest.mark.parametrize("policy", ["libata-2006", "libata-2.6.20", "libata-modern"])
def test_sil3112_links_are_up_after_power_on(policy, tmp_path):
    """A SATA host sends COMRESET on its ports when it comes out of power-on reset (SATA
    1.0a's power-on sequence; on a PC the BIOS has brought the drives up before the OS): the
    SiI3112's link is up before the driver looks. libata 2.6.2x's boot probe soft-resets
    first (2.6.20 ata_host_register: "ehi->action |= ATA_EH_SOFTRESET"; ata_std_prereset
    resumes the PHY, drops the softreset only on an offline link), so it finds the drive
    there: "SATA link up 1.5 Gbps" and the disk configured, no COMRESET of its own. Before,
    the model's links stayed down until the driver's first COMRESET and the 2.6.2x profiles
    found no drive on a SiI3112 (dmesg corpus 08, sata_sil on 2.6.2x)."""
    name = f"sil3112-boot-{policy}"
    path = tmp_path / f"{name}.yaml"
    path.write_text(SIL3112_BOOT.format(policy=policy))
    result = run([path], tmp_path / "out")
    res = load_result(tmp_path / "out", name)
    assert res["verdict"] == "pass", (res.get("reasons"), result.stdout + result.stderr)
    log = (tmp_path / "out" / name / "satasim.log").read_text()
    assert "ata1: SATA link up 1.5 Gbps (SStatus 113 SControl 300)" in log, log
    assert "ata1.00: configured for UDMA/100" in log, log
    trace = load_trace(tmp_path / "out", name)
    resets = [e["f"]["method"] for e in trace if e["ev"] == "eh.reset" and e["port"] == 0]
    assert resets[:1] == (["hard"] if policy == "libata-modern" else ["soft"]), resets
