"""The stack's log against the kernel's wording where field reports showed it differs (issue
31: each found by diffing real logs, harness/tests/fixtures/dmesg-corpus/). Each test quotes
the kernel's format string or code and the version it is from, never satasim's earlier
output. libata-modern speaks 6.1; libata-4.x (the same rules) the 2.6.3x-4.x wording."""

import re

import pytest

from satasim import load_result, load_trace, run
from satasim.render import render_log

STAMP = r"^\[\s*\d+\.\d{6}\] "


def run_one(write_scenario, tmp_path, text, name, ok=True):
    path = write_scenario(text)
    out = tmp_path / "out"
    result = run([path], out)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    res = load_result(out, name)
    if ok:
        assert res["verdict"] == "pass", res.get("reasons")
    return load_trace(out, name), (out / name / "satasim.log").read_text(), out / name


MEDIA = """
name: wording-res
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
workload:
  - {kind: request, device: 0, op: read, lba: 1600, sectors: 8, mode: ncq, verify: false, expect_error: true}
faults:
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [1600, 1600]}, count: 0}
expect: {io_errors: 0}
"""


def test_res_line_continues_the_cmd_line(write_scenario, tmp_path):
    # 6.1 libata-eh.c ata_eh_link_report prints both lines with one printk:
    #   ata_dev_err(qc->dev, "cmd %02x/%02x:%02x:%02x:%02x:%02x/%02x:%02x:%02x:%02x:%02x/%02x "
    #       "tag %d%s\n         %s" "res %02x/%02x:%02x:%02x:%02x:%02x/%02x:%02x:%02x:%02x:%02x/%02x "
    #       "Emask 0x%x (%s)%s\n", ...)
    # and dmesg shows the record's second line without a prefix, under the message (the
    # stamp's width, then libata's nine spaces).
    trace, log, _ = run_one(write_scenario, tmp_path, MEDIA, "wording-res")
    lines = log.splitlines()
    i = next(i for i, l in enumerate(lines) if re.match(STAMP + r"ata1\.00: cmd 60/08:", l))
    stamp = re.match(r"^\[\s*\d+\.\d{6}\] ", lines[i]).group(0)
    assert lines[i + 1] == " " * len(stamp) + "         " + \
        "res 41/40:08:40:06:00/00:00:00:00:00/40 Emask 0x409 (media error) <F>", lines[i:i + 2]
    assert not [l for l in lines if re.match(STAMP + r"ata1\.00: res ", l)]
    # the trace keeps it a record of its own (the golden's), at level "cont"
    res = [r for r in trace if r.get("ev") == "eh.failed_qc_res"]
    assert res and all(r["lvl"] == "cont" for r in res)
    # the renderer writes the same log from the trace alone
    assert render_log(tmp_path / "out" / "wording-res" / "trace.jsonl") == log


SCAN = """
name: wording-scan
controller: {{type: ahci, ports: 2}}
host: {{eh_policy: {policy}}}
devices: [{{port: 0, capacity: 1g, timing: {{kind: ssd}}}}]
workload:
  - {{kind: scan, port: 1}}
  - {{kind: scan, port: 0, barrier: true}}
"""


def test_an_eh_run_without_a_failed_command_is_quiet(write_scenario, tmp_path):
    # 6.1 libata-eh.c ata_eh_link_autopsy:
    #   /* If all failed commands requested silence, then be quiet */
    #   if (nr_quiet == nr_failed) ehc->i.flags |= ATA_EHI_QUIET;
    # which holds when none failed: a user scan (of an empty port or of a disk) gets no
    # report, ata_eh_reset's "if (verbose) ata_link_info(link, \"%s resetting link\\n\", ...)"
    # stays silent and ata_eh_about_to_do never sets ATA_PFLAG_RECOVERED ("EH complete").
    # ata_dev_set_mode still prints "configured for %s%s" after a hardreset
    # ("if (!(ehc->i.flags & ATA_EHI_QUIET) || ehc->i.flags & ATA_EHI_DID_HARDRESET)").
    _, log, _ = run_one(write_scenario, tmp_path, SCAN.format(policy="libata-modern"), "wording-scan")
    assert not re.search(r"resetting link|EH complete|exception", log), log
    assert len(re.findall(STAMP + r"ata2: SATA link down", log, re.M)) == 2, log      # boot + scan
    assert len(re.findall(STAMP + r"ata1\.00: configured for UDMA/133$", log, re.M)) == 2, log


def test_kernels_before_6_report_every_eh_run(write_scenario, tmp_path):
    # a 4.15 DevExch loop and a 2.6.38 hotplug (dmesg-corpus 22, 30) report runs in which no
    # command failed: "hard resetting link", then "EH complete"
    _, log, _ = run_one(write_scenario, tmp_path, SCAN.format(policy="libata-4.x"), "wording-scan")
    for line in ("ata2: hard resetting link", "ata2: EH complete", "ata1: hard resetting link", "ata1: EH complete"):
        assert re.search(STAMP + line + "$", log, re.M), (line, log)


UNPLUG = """
name: wording-unplug
controller: {{type: ahci, ports: 1}}
host: {{eh_policy: {policy}}}
devices: [{{port: 0, capacity: 1g, timing: {{kind: ssd}}}}]
faults:
  - {{kind: unplug, port: 0, at: 1ms}}
expect: {{absent_after: [0]}}
"""


@pytest.mark.parametrize("policy,line", [("libata-modern", "disable device"), ("libata-4.x", "disabled"),
                                         ("libata-4.9", "disabled"), ("libata-2006", "disabled")])
def test_disable_wording(policy, line, write_scenario, tmp_path):
    # libata-eh.c ata_dev_disable, 5.16: if (ata_msg_drv(dev->link->ap))
    #   ata_dev_warn(dev, "disabled\n");
    # 5.17 ("libata: drop ata_msg_drv()") to 6.x: ata_dev_warn(dev, "disable device\n");
    _, log, _ = run_one(write_scenario, tmp_path, UNPLUG.format(policy=policy), "wording-unplug")
    assert re.search(STAMP + r"ata1\.00: " + line + "$", log, re.M), log


STALE = """
name: wording-stale-desc
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
workload:
  - {kind: request, device: 0, op: read, lba: 1000, sectors: 8, mode: ncq, verify: false}
  - {kind: request, device: 0, op: read, lba: 3000, sectors: 8, mode: dma, verify: false, barrier: true, delay: 1s}
faults:
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [1000, 1000]}, count: 1}
  - {kind: media_error, port: 0, on_cmd: {opcode: 0x2f}, error: abrt, count: 1}
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [3000, 3000]}, count: 1}
expect: {io_errors_max: 3}
"""


def test_eh_info_is_cleared_when_the_run_completes(write_scenario, tmp_path):
    # libata-eh.c ata_scsi_port_error_handler (4.x-6.1), after the error handler:
    #   /* this run is complete, make sure EH info is clear */
    #   ata_for_each_link(link, ap, HOST_FIRST)
    #           memset(&link->eh_info, 0, sizeof(link->eh_info));
    # The NCQ log read that fails inside EH raises an error interrupt whose description
    # ("irq_stat 0x40000001") must not show up again in the next exception's report.
    _, log, _ = run_one(write_scenario, tmp_path, STALE, "wording-stale-desc", ok=False)
    descs = re.findall(STAMP + r"ata1\.00: (irq_stat .*)$", log, re.M)
    assert descs and all(d.count("irq_stat") == 1 for d in descs), descs


FLAGS = """
name: wording-flags
controller: {type: ahci, ports: 3}
devices: [{port: 0, capacity: 1g}, {port: 1, capacity: 1g}, {port: 2, capacity: 1g}]
workload:
  - {kind: request, device: 0, op: read, lba: 1600, sectors: 8, mode: dma, expect_error: true, fail_fast: true}
  - {kind: request, device: 1, op: read, lba: 1600, sectors: 8, mode: dma, expect_error: true, barrier: true}
  - {kind: request, device: 2, op: write, lba: 1600, sectors: 8, mode: dma, expect_error: true, barrier: true}
faults:
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [1600, 1600]}, count: 0}
  - {kind: media_error, port: 1, on_cmd: {op: read, lba: [1600, 1600]}, count: 0}
  - {kind: media_error, port: 2, op: write, on_cmd: {op: write}, error: abrt, count: 0}
"""


@pytest.mark.parametrize("line", [
    r"I/O error, dev sda, sector 1600 op 0x0:\(READ\) flags 0x80700 phys_seg 1 prio class 2",
    r"I/O error, dev sdb, sector 1600 op 0x0:\(READ\) flags 0x0 phys_seg 1 prio class 2",
    r"I/O error, dev sdc, sector 1600 op 0x1:\(WRITE\) flags 0x800 phys_seg 1 prio class 2",
], ids=["readahead", "buffered-read", "direct-write"])
def test_io_error_flags_are_the_requests(line, write_scenario, tmp_path):
    # block/blk-mq.c blk_print_req_error (6.1): "... op 0x%x:(%s) flags 0x%x phys_seg %u
    # prio class %u\n", flags = req->cmd_flags & ~REQ_OP_MASK. include/linux/blk_types.h:
    # REQ_FAILFAST_DEV/TRANSPORT/DRIVER = bits 8-10, REQ_SYNC = bit 11, REQ_RAHEAD = bit 19:
    # readahead 0x80700 (dmesg-corpus 18, 40), a direct write 0x800 (35), a buffered read 0 (56).
    _, log, _ = run_one(write_scenario, tmp_path, FLAGS, "wording-flags")
    assert re.search(STAMP + line + "$", log, re.M), [l for l in log.splitlines() if "I/O error" in l]


RESCAN = """
name: wording-rescan
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
workload:
  - {kind: rescan, device: 0}
"""


def test_rescan_is_the_scsi_layers_only(write_scenario, tmp_path):
    # drivers/scsi/sd.c sd_rescan -> sd_revalidate_disk: READ CAPACITY and friends, which
    # libata-scsi.c answers from the IDENTIFY data (ata_scsi_simulate: ata_scsiop_read_cap),
    # so a rescan issues no ATA command and runs no EH: no reset, no "configured for" again.
    trace, log, _ = run_one(write_scenario, tmp_path, RESCAN, "wording-rescan")
    after = log.split("warm-plug rescan", 1)[1]
    assert not re.search(r"resetting link|configured for|EH complete", after), after
    start = next(r["t_ns"] for r in trace if r["ev"] == "workload.start")
    assert [r for r in trace if r["ev"] == "dev.rescan"]
    assert not [r for r in trace if r["t_ns"] >= start and r["ev"] in ("eh.reset", "qc.issue")]


NCQ_HANG = """
name: wording-timeouts
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
workload:
  - {kind: request, device: 0, op: read, lba: 0, sectors: 8, mode: ncq, verify: false, tag: 3}
  - {kind: request, device: 0, op: read, lba: 8, sectors: 8, mode: ncq, verify: false, tag: 4}
  - {kind: request, device: 0, op: read, lba: 16, sectors: 8, mode: ncq, verify: false, tag: 5}
faults:
  - {kind: hang, port: 0, on_cmd: {op: read, lba: [0, 7]}}
"""


def test_requests_issued_together_time_out_together(write_scenario, tmp_path):
    # block/blk-mq.c blk_mq_timeout_work walks every request of the queue and
    # blk_mq_check_expired expires each one with "time_after_eq(jiffies, rq->deadline)":
    # the queued commands issued with the hung one all become timed-out commands of one EH
    # run (dmesg-corpus 32: 15 "Emask 0x4 (timeout)" blocks under one exception).
    _, log, _ = run_one(write_scenario, tmp_path, NCQ_HANG, "wording-timeouts")
    first = log.split("exception Emask", 2)[1]
    assert len(re.findall(r"failed command: READ FPDMA QUEUED", first)) == 3, first
    # a timed-out command's result is never read from the controller (6.1
    # ata_scsi_cmd_error_handler: "qc->err_mask |= AC_ERR_TIMEOUT; qc->flags |= ATA_QCFLAG_EH;",
    # no fill_result_tf): its res line is what ata_qc_reinit left, "init result_tf such that
    # it indicates normal completion" (DRDY, no error), even from a drive whose statuses
    # carry DSC (0x50: the stack read the Register FIS area before, "res 50/00:...")
    assert len(re.findall(r"res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x4 \(timeout\)", first)) == 3, first


LEFTOVERS = """
name: wording-leftovers
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}, smart: good}]
workload:
  # what smartd and hdparm leave in command slots 3-6 (ATA PASS-THROUGH (16) through SG_IO)
  - {kind: scsi, device: 0, tag: 3, cdb: "85 06 00 00 00 00 00 00 00 00 00 00 00 00 e5 00"}
  - {kind: scsi, device: 0, tag: 4, cdb: "85 06 00 00 da 00 00 00 00 00 4f 00 c2 40 b0 00"}
  - {kind: scsi, device: 0, tag: 5, cdb: "85 08 0e 00 d0 00 01 00 00 00 4f 00 c2 00 b0 00", data_in: 512}
  - {kind: scsi, device: 0, tag: 6, cdb: "85 08 0e 00 00 00 01 00 00 00 00 00 00 00 ec 00", data_in: 512}
  # reads on those slots and on 7 that complete: they leave the slots as they were
  - {kind: request, device: 0, op: read, lba: 64, sectors: 8, mode: ncq, tag: 3, delay: 50ms}
  - {kind: request, device: 0, op: read, lba: 72, sectors: 8, mode: ncq, tag: 4, delay: 50ms}
  - {kind: request, device: 0, op: read, lba: 80, sectors: 8, mode: ncq, tag: 7, delay: 50ms}
  # then the queue that times out
  - {kind: request, device: 0, op: read, lba: 0, sectors: 8, mode: ncq, verify: false, tag: 3, delay: 100ms}
  - {kind: request, device: 0, op: read, lba: 8, sectors: 8, mode: ncq, verify: false, tag: 4, delay: 100ms}
  - {kind: request, device: 0, op: read, lba: 16, sectors: 8, mode: ncq, verify: false, tag: 5, delay: 100ms}
  - {kind: request, device: 0, op: read, lba: 24, sectors: 8, mode: ncq, verify: false, tag: 6, delay: 100ms}
  - {kind: request, device: 0, op: read, lba: 32, sectors: 8, mode: ncq, verify: false, tag: 7, delay: 100ms}
faults:
  - {kind: hang, port: 0, on_cmd: {op: read, lba: [0, 7]}}
"""


def test_a_timeout_shows_what_the_slot_kept(write_scenario, tmp_path):
    # ata_qc_reinit (2.6.20 to 6.x) resets only Status and Error of a slot's result_tf;
    # ata_qc_complete fills it for a failed command or one with ATA_QCFLAG_RESULT_TF (ATA
    # PASS-THROUGH: ata_scsi_pass_thru "result TF is copied back"), not for a good read; a
    # timeout is never filled. So each slot shows its pass-through command's answer (dmesg
    # corpus 32, 6.x: "res 40/00:ff:00:00:00/00:00:00:00:00/00 Emask 0x4 (timeout)" on tag
    # 13, "res 40/00:00:00:4f:c2/..." on 16, "res 40/00:01:00:4f:c2/..." on 29; 33's /40)
    _, log, _ = run_one(write_scenario, tmp_path, LEFTOVERS, "wording-leftovers")
    first = log.split("exception Emask", 2)[1]
    res = dict(re.findall(r"tag (\d+) ncq dma 4096 in\s+res (\S+) Emask 0x4 \(timeout\)", first))
    assert res == {
        "3": "40/00:ff:00:00:00/00:00:00:00:00/00",     # CHECK POWER MODE: Count FFh (active)
        "4": "40/00:00:00:4f:c2/00:00:00:00:00/40",     # SMART RETURN STATUS: 4Fh/C2h, Device as sent
        "5": "40/00:01:00:4f:c2/00:00:00:00:00/00",     # SMART READ DATA: its PIO Setup FIS
        "6": "40/00:01:00:00:00/00:00:00:00:00/00",     # IDENTIFY DEVICE: its PIO Setup FIS
        "7": "40/00:00:00:00:00/00:00:00:00:00/00",     # a slot only good reads used
    }, first


COMRESETS = """
name: wording-comresets
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
workload:
  - {kind: request, device: 0, op: write, lba: 0, sectors: 8, mode: dma, verify: false}
faults:
  - {kind: hang, port: 0, on_cmd: {op: write}, comresets: 1}
"""


def test_a_hang_that_sits_through_a_comreset(write_scenario, tmp_path):
    # libahci ahci_hardreset -> ata_wait_after_reset: the link comes up, the drive stays
    # busy: "link is slow to respond, please be patient (ready=%d)" after 5 s, then
    # libata-eh.c ata_eh_reset: "COMRESET failed (errno=%d)" and the next hardreset
    # (dmesg-corpus 36, 4.4: one "COMRESET failed (errno=-16)" per exception)
    _, log, _ = run_one(write_scenario, tmp_path, COMRESETS, "wording-comresets")
    assert len(re.findall(STAMP + r"ata1: COMRESET failed \(errno=-16\)$", log, re.M)) == 1, log
    assert len(re.findall(STAMP + r"ata1: hard resetting link$", log, re.M)) == 2, log
    assert re.search(STAMP + r"ata1\.00: configured for UDMA/133$", log.split("COMRESET failed")[1], re.M)


PMP = """
name: wording-pmp
controller: {type: ahci, ports: 1}
pmps: [{port: 0, ports: 2}]
devices: [{port: 0, pmp_port: 0}, {port: 0, pmp_port: 1}]
"""


def test_follow_up_softreset_is_not_announced(write_scenario, tmp_path):
    # libata-eh.c ata_eh_reset: "if (verbose) ata_link_info(link, \"%s resetting link\\n\",
    # reset == softreset ? \"soft\" : \"hard\");" for the reset it chose, then "perform
    # follow-up SRST if necessary" with ata_do_reset(link, reset, classes, deadline, true)
    # alone: a 6.x boot behind a JMB PMP (dmesg-corpus 46) reads "ata6.00: hard resetting
    # link" / "ata6.00: SATA link up ..." per fan-out link, no "soft resetting link"; and
    # attaching the PMP recovers its links, which are not quiet: "ata6: EH complete".
    _, log, _ = run_one(write_scenario, tmp_path, PMP, "wording-pmp")
    assert re.search(STAMP + r"ata1\.00: hard resetting link$", log, re.M), log
    assert not re.search(r"soft resetting link", log), log
    assert re.search(STAMP + r"ata1: EH complete$", log, re.M), log


PMP_HOST_LINK = """
name: wording-pmp-host-link
controller: {type: ahci, ports: 1}
host: {eh_policy: libata-4.x}
pmps: [{port: 0, ports: 2}]
devices: [{port: 0, pmp_port: 0, timing: {kind: ssd}}, {port: 0, pmp_port: 1, timing: {kind: ssd}}]
workload:
  - {kind: scan, port: 0, delay: 10ms}
faults:
  - {kind: pmp_hang, port: 0, at: 1ms}
"""


def test_host_link_lines_name_the_pmp_once_attached(write_scenario, tmp_path):
    # 6.1 libata-core.c ata_link_printk:
    #   if (sata_pmp_attached(link->ap) || link->ap->slave_link)
    #           printk("%sata%u.%02u: %pV", level, link->ap->print_id, link->pmp, &vaf);
    #   else
    #           printk("%sata%u: %pV", level, link->ap->print_id, &vaf);
    # with the host link's pmp number SATA_PMP_CTRL_PORT once the PMP is attached: the boot
    # hardreset that finds the PMP is "ata1: SATA link up", every later host-link line is
    # ata1.15 (dmesg-corpus 17, 51, 52: "ata1.15: hard resetting link", "ata1.15: SATA link
    # up 3.0 Gbps (SStatus 123 SControl 0)"); ata_port_printk's lines stay "ata1:" ("ata1:
    # EH complete"). (A user scan resets the fan-out links only -- ata_scsi_user_scan, EDGE
    # links -- whose PSCR access finds the control port hung (pmp_hang): the PMP is reset.
    # libata-4.x: the scan's EH run is not quiet, so its resets are printed.)
    trace, log, out = run_one(write_scenario, tmp_path, PMP_HOST_LINK, "wording-pmp-host-link")
    ups = re.findall(STAMP + r"(ata1(?:\.15)?): SATA link up ", log, re.M)
    assert ups[0] == "ata1" and "ata1.15" in ups[1:], log
    assert re.search(STAMP + r"ata1\.15: hard resetting link$", log, re.M), log
    assert re.search(STAMP + r"ata1: EH complete$", log, re.M), log
    # the trace keeps the host link's address (link -1); the renderer names it as the log does
    assert all("link" not in r for r in trace if r.get("ev") == "eh.reset" and r.get("log_pmp_host"))
    assert render_log(out / "trace.jsonl") == log


COMINIT_EMPTY = """
name: wording-cominit
controller: {{type: ahci, ports: 2}}
host: {{eh_policy: {policy}}}
devices:
  - {{port: 0, capacity: 1g, timing: {{kind: ssd}}}}
  - {{port: 1, present: false, capacity: 1g, timing: {{kind: ssd}}}}
faults:
  - {{kind: cominit, port: 1, at: 61s, repeat: {n}, every: 2s}}   # (past the boot probe's minute)
"""


def test_cominit_bursts_on_an_empty_port(write_scenario, tmp_path):
    # A connector with no drive that sees COMINIT bursts (docs/hardware.md 2.7): DIAG.X alone,
    # so PxIS.PCS; libahci ahci_error_intr: "irq_stat & PORT_IRQ_CONNECT ... "connection
    # status changed"", ata_ehi_hotplugged (AC_ERR_ATA_BUS, Emask 0x10, frozen), and the
    # hardreset finds nothing. A 4.15 kernel's loop (dmesg-corpus 22, 4.x wording):
    #   ata6: exception Emask 0x10 SAct 0x0 SErr 0x4000000 action 0xe frozen
    #   ata6: irq_stat 0x00000040, connection status changed
    #   ata6: SError: { DevExch }
    #   ata6: hard resetting link
    #   ata6: SATA link down (SStatus 0 SControl 300)
    #   ata6: EH complete
    _, log, _ = run_one(write_scenario, tmp_path, COMINIT_EMPTY.format(policy="libata-4.x", n=2), "wording-cominit")
    want = ["exception Emask 0x10 SAct 0x0 SErr 0x4000000 action 0xe frozen",
            "irq_stat 0x00000040, connection status changed", "SError: { DevExch }", "hard resetting link",
            "SATA link down (SStatus 0 SControl 300)", "EH complete"]
    got = [l.split("ata2: ", 1)[1] for l in log.splitlines() if re.match(STAMP + "ata2: ", l)]
    assert got[-12:] == want * 2, got
    assert "ata1" not in "".join(l for l in log.splitlines() if "exception" in l), log


def test_probe_trials_force_the_link_to_1_5_gbps(write_scenario, tmp_path):
    # 6.1 libata-eh.c ata_eh_schedule_probe: every probe of the empty slot records
    # AC_ERR_OTHER; "if (trials > ATA_EH_PROBE_TRIALS) sata_down_spd_limit(link, 1);"
    # (ATA_EH_PROBE_TRIALS 2, ATA_EH_PROBE_TRIAL_INTERVAL 60000 ms), and the probe's
    # ata_dev_init puts the limit back first ("SATA spd limit is bound to the attached
    # device, reset together"): the third probe within a minute and each one after limits
    # again, before its hardreset (dmesg-corpus 42, 04: "limiting SATA link speed to 1.5 Gbps",
    # then "SATA link down (SStatus 0 SControl 310)").
    _, log, _ = run_one(write_scenario, tmp_path, COMINIT_EMPTY.format(policy="libata-4.x", n=4), "wording-cominit")
    got = [l.split("ata2: ", 1)[1] for l in log.splitlines() if re.match(STAMP + "ata2: ", l)]
    runs = "\n".join(got).split("EH complete")
    # (the boot probe was a trial too, more than a minute before)
    assert "limiting SATA link speed" not in runs[-5] and "limiting SATA link speed" not in runs[-4], got
    for run_ in runs[-3:-1]:
        assert "limiting SATA link speed to 1.5 Gbps\nhard resetting link\nSATA link down (SStatus 0 SControl 310)" \
            in run_, got
    # the 2.6.2x EH has no probe trials
    _, log, _ = run_one(write_scenario, tmp_path / "2006", COMINIT_EMPTY.format(policy="libata-2006", n=4),
                        "wording-cominit")
    assert "limiting SATA link speed" not in log, log


UNPLUG_NOISE = """
name: wording-unplug-noise
controller: {type: ahci, ports: 1}
host: {eh_policy: libata-4.x}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
faults:
  - {kind: unplug, port: 0, at: 1s, noise: [cominit, decode, internal]}
expect: {all_devices_found: false, absent_after: [0]}
"""


def test_a_cable_pull_with_line_noise(write_scenario, tmp_path):
    # An Intel C620 (dmesg-corpus 42, 4.x) reports a pulled SSD with what its PHY latched on
    # the way (docs/hardware.md 2.7): N, B, X and ERR.E, PxIS.PRCS and PCS. libahci:
    # "irq_stat & PORT_IRQ_CONNECT ? "connection status changed" : "PHY RDY changed"";
    # libata-eh.c ata_eh_analyze_serror: SERR_INTERNAL -> AC_ERR_SYSTEM (0x40), with the
    # hotplug's AC_ERR_ATA_BUS (0x10):
    #   ata7: exception Emask 0x50 SAct 0x0 SErr 0x4090800 action 0xe frozen
    #   ata7: irq_stat 0x00400040, connection status changed
    #   ata7: SError: { HostInt PHYRdyChg 10B8B DevExch }
    _, log, _ = run_one(write_scenario, tmp_path, UNPLUG_NOISE, "wording-unplug-noise")
    got = [l.split("ata1: ", 1)[1] for l in log.splitlines() if re.match(STAMP + "ata1: ", l)]
    i = next(i for i, l in enumerate(got) if l.startswith("exception"))
    assert got[i:i + 3] == ["exception Emask 0x50 SAct 0x0 SErr 0x4090800 action 0xe frozen",
                            "irq_stat 0x00400040, connection status changed",
                            "SError: { HostInt PHYRdyChg 10B8B DevExch }"], got


PLUG = """
name: wording-plug
controller: {type: ahci, ports: 2}
host: {eh_policy: libata-4.x}
devices:
  - {port: 0, capacity: 1g, timing: {kind: ssd}}
  - {port: 1, present: false, capacity: 1g, timing: {kind: ssd}}
workload:
  - {kind: request, device: 0, op: read, lba: 0, sectors: 8, delay: 3s}
faults:
  - {kind: plug, port: 1, at: 1s}
expect:
  empty_ports: [1]
  devices_after: [{port: 1, class: ata}]
"""


def test_a_plug_reports_the_oob_its_phy_finished(write_scenario, tmp_path):
    # A drive plugged into a listening AHCI port (dmesg-corpus 06, 42, 4.x):
    #   ata7: exception Emask 0x10 SAct 0x0 SErr 0x4050002 action 0xe frozen
    #   ata7: irq_stat 0x00000040, connection status changed
    #   ata7: SError: { RecovComm PHYRdyChg CommWake DevExch }
    # The COMINIT raises PxIS.PCS at once (irq_stat without PRCS: PhyRdy is not up yet when
    # libahci's ahci_error_intr reads PxIS and clears SError), and EH's autopsy reads SError
    # again (libata-eh.c ata_eh_link_autopsy: "ehc->i.serror |= serror") only once the SCSI EH
    # kthread runs (scsi_eh_wakeup wakes it; no sleep in between, but the scheduler's
    # latency): by then the PHY's own OOB brought the link up (W, N, M).
    _, log, _ = run_one(write_scenario, tmp_path, PLUG, "wording-plug")
    got = [l.split("ata2: ", 1)[1] for l in log.splitlines() if re.match(STAMP + "ata2: ", l)]
    i = next(i for i, l in enumerate(got) if l.startswith("exception"))
    assert got[i:i + 4] == ["exception Emask 0x10 SAct 0x0 SErr 0x4050002 action 0xe frozen",
                            "irq_stat 0x00000040, connection status changed",
                            "SError: { RecovComm PHYRdyChg CommWake DevExch }",
                            "hard resetting link"], got
    assert any(l.startswith("SATA link up 6.0 Gbps") for l in got[i + 4:]), got


@pytest.mark.parametrize("policy", ["libata-modern", "libata-4.x", "libata-2006"])
def test_a_failed_recovery_is_retried_after_the_reset_cool_down(policy, write_scenario, tmp_path):
    # Linux 4.0 libata-eh.c ata_eh_recover, after the per-link revalidation:
    #   rest_fail: nr_fails++; if (dev) ata_eh_handle_dev_fail(dev, rc); ...
    #   if (nr_fails) goto retry;
    # no message, no sleep; the next ata_eh_reset waits out ATA_EH_RESET_COOL_DOWN (5000 ms
    # after ehc->last_reset, the previous reset's completion). The 2.6.2x EH said
    # "failed to recover some devices, retrying in 5 secs" and slept 5 s (field reports of
    # 2.6.20-2.6.24; dmesg-corpus 42, a 5.x pull, shows none).
    trace, log, _ = run_one(write_scenario, tmp_path, UNPLUG.format(policy=policy), "wording-unplug")
    said = re.findall(STAMP + r"ata1: failed to recover some devices, retrying in 5 secs$", log, re.M)
    assert bool(said) == (policy == "libata-2006"), log
    start = next(r["t_ns"] for r in trace if r.get("ev") == "eh.exception")   # the pull's EH run
    resets = [r for r in trace if r.get("ev") == "eh.reset" and r["t_ns"] >= start]
    ups = [r for r in trace if r.get("ev") in ("probe.link_down", "probe.link_up")]
    assert len(resets) >= 2 and ups, log
    if policy != "libata-2006":
        # each retry's reset starts 5 s after the previous reset ended (its link line)
        for prev, nxt in zip(resets, resets[1:]):
            done = max(r["t_ns"] for r in ups if prev["t_ns"] <= r["t_ns"] <= nxt["t_ns"])
            assert nxt["t_ns"] - done == 5_000_000_000, (prev, nxt, done)


PATA_BOOT = """
name: wording-pata-boot
controller: {{type: piix, ports: 2, part: piix4}}
host: {{eh_policy: {policy}}}
devices: [{{port: 0, capacity: 1g, udma: 5, timing: {{kind: ssd}}}}]
"""


@pytest.mark.parametrize("policy,printed", [("libata-2006", True), ("libata-4.x", False),
                                            ("libata-modern", False)])
def test_configured_for_at_a_softreset_only_boot(policy, printed, write_scenario, tmp_path):
    # A parallel ATA channel has no SCRs: the boot probe resets it with SRST only.
    # 2.6.20 libata-core.c ata_dev_set_mode ends unconditionally with
    #   ata_dev_printk(dev, KERN_INFO, "configured for %s\n",
    #                  ata_mode_string(ata_xfer_mode2mask(dev->xfer_mode)));
    # (dmesg corpus 54, ata_piix 2.10ac1 on 2.6.20: "ata1.00: configured for UDMA/33" in the
    # boot probe of a PATA disk). 5.15 and 6.1 print it only
    #   if (!(ehc->i.flags & ATA_EHI_QUIET) || ehc->i.flags & ATA_EHI_DID_HARDRESET)
    # and ata_port_probe makes the boot probe quiet, so a softreset-only boot is silent.
    _, log, _ = run_one(write_scenario, tmp_path, PATA_BOOT.format(policy=policy), "wording-pata-boot")
    assert re.search(STAMP + r"ata1\.00: ATA-", log, re.M), log          # the disk was probed
    found = re.findall(STAMP + r"ata1\.00: configured for UDMA/33$", log, re.M)
    assert len(found) == (1 if printed else 0), log


APM = """
name: wording-2620
controller: {{type: ahci, ports: 1}}
host: {{eh_policy: {policy}}}
devices: [{{port: 0, capacity: 1g, udma: 6, timing: {{kind: ssd}}}}]
workload:
  - {{kind: scsi, device: 0, cdb: "85 06 00 00 05 00 fe 00 00 00 00 00 00 40 ef 00", expect_status: check_condition}}
  - {{kind: request, device: 0, op: read, lba: 1600, sectors: 8, mode: dma, verify: false, expect_error: true}}
faults:
  - {{kind: media_error, port: 0, on_cmd: {{op: read, lba: [1600, 1600]}}, count: 0}}
"""


@pytest.mark.parametrize("policy", ["libata-2.6.20", "libata-2006", "libata-modern"])
def test_2620_cmd_and_res_lines(policy, write_scenario, tmp_path):
    # 2.6.20 libata-eh.c ata_eh_report prints each failed command with one printk:
    #   ata_dev_printk(qc->dev, KERN_ERR,
    #       "cmd %02x/%02x:%02x:%02x:%02x:%02x/%02x:%02x:%02x:%02x:%02x/%02x "
    #       "tag %d cdb 0x%x data %u %s\n         "
    #       "res %02x/%02x:%02x:%02x:%02x:%02x/%02x:%02x:%02x:%02x:%02x/%02x "
    #       "Emask 0x%x (%s)\n", ..., qc->tag, qc->cdb[0], qc->nbytes, dma_str[qc->dma_dir], ...)
    # with dma_str[DMA_NONE] = "" and qc->cdb filled for ATAPI only (0 for an ATA command);
    # no "failed command:", "status:" or "error:" line (2.6.24 added the status lines).
    # dmesg corpus 24: hdparm -B's SET FEATURES 05h aborted by a drive without APM,
    # "cmd ef/05:fe:00:00:00/00:00:00:00:00/40 tag 0 cdb 0x0 data 0"; 08: "... tag 0 cdb 0x0 data 4096 in".
    _, log, _ = run_one(write_scenario, tmp_path, APM.format(policy=policy), "wording-2620")
    msgs = [l.split("ata1.00: ", 1)[1] for l in log.splitlines() if re.match(STAMP + r"ata1\.00: ", l)]
    cont = [l.strip() for l in log.splitlines() if l.startswith(" ") and l.strip().startswith("res ")]
    apm = "cmd ef/05:fe:00:00:00/00:00:00:00:00/40 tag 0"
    read = "cmd c8/00:08:40:06:00/00:00:00:00:00/e0 tag 0"
    if policy == "libata-2.6.20":
        assert apm + " cdb 0x0 data 0 " in msgs, msgs          # dma_str[DMA_NONE] leaves the space
        assert read + " cdb 0x0 data 4096 in" in msgs, msgs
        assert [c for c in cont if c.startswith("res 51/04:") and c.endswith("Emask 0x1 (device error)")], cont
        assert [c for c in cont if c.startswith("res 51/40:") and c.endswith("Emask 0x9 (media error)")], cont
        assert not [m for m in msgs if m.startswith(("failed command:", "status:", "error:"))], msgs
    elif policy == "libata-2006":
        assert "tag 0 cmd 0xef Emask 0x1 stat 0x51 err 0x4 (device error)" in msgs, msgs
    else:
        assert apm in msgs and "failed command: SET FEATURES" in msgs and "error: { ABRT }" in msgs, msgs


NCQ_TIMEOUT = """
name: wording-ncq
controller: {{type: ahci, ports: 1}}
host: {{eh_policy: {policy}}}
devices: [{{port: 0, capacity: 1g, timing: {{kind: ssd}}}}]
workload:
  - {{kind: request, device: 0, op: read, lba: 1600, sectors: 8, mode: ncq, verify: false, expect_error: true}}
faults:
  - {{kind: media_error, port: 0, on_cmd: {{op: read, lba: [1600, 1600]}}, count: 0}}
"""


@pytest.mark.parametrize("policy,prot", [("libata-4.x", "ncq"), ("libata-4.9", "ncq dma"),
                                         ("libata-modern", "ncq dma")])
def test_queued_cmd_line_protocol(policy, prot, write_scenario, tmp_path):
    # ata_eh_link_report's cmd line prints prot_str[qc->tf.protocol]: 3.x and 4.1 name
    # ATA_PROT_NCQ "ncq" (" ncq 4096 in"), 4.9 on "ncq dma" (dmesg corpus 41: "tag 6 ncq dma
    # 4096 in" in a log that still says "disabled", so between 4.9 and 5.16: libata-4.9).
    _, log, _ = run_one(write_scenario, tmp_path, NCQ_TIMEOUT.format(policy=policy), "wording-ncq")
    assert re.search(STAMP + r"ata1\.00: cmd 60/08:\S+ tag \d+ " + prot + r" 4096 in$", log, re.M), log

NCQ_LOG_COUNT = """
name: wording-ncq-log-count
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}%s}]
workload:
  - {kind: request, device: 0, op: read, lba: 4096, sectors: 264, mode: ncq, verify: false, expect_error: true}
faults:
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [4100, 4100]}, count: 0}
expect: {io_errors: 0}
"""


@pytest.mark.parametrize("key,count", [("", "08:00:10:00/00:01"), (", ncq_log_count: full", "08:00:10:00/00:01"),
                                       (", ncq_log_count: low_byte", "08:00:10:00/00:00"),
                                       (", ncq_log_count: none", "00:00:10:00/00:00")])
def test_the_ncq_logs_count_is_the_drives(write_scenario, tmp_path, key, count):
    # libata-eh.c ata_eh_read_log_10h copies the log page's bytes 12/13 into the result's
    # Count/hob Count, which the res line prints: drives log a 264-sector read's Count as
    # 08h/01h (the whole of it), 08h/00h (its low byte: dmesg corpus 11, 57 "res 41/40:00:
    # b1:4b:1c/00:00:14:00:00/40" for "cmd 60/00:00:b1:4b:1c/01:00:14:00:00/40") or nothing
    _, log, _ = run_one(write_scenario, tmp_path, NCQ_LOG_COUNT % key, "wording-ncq-log-count")
    assert re.search(r"res 41/40:%s:00:00:00/40 Emask 0x409 \(media error\) <F>" % count, log), log


D2H_REGS_DMA = """
name: wording-d2h-regs
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 2g, ncq: false, timing: {kind: ssd}%s}]
workload:
  - {kind: request, device: 0, op: read, lba: 1845312, sectors: 8, mode: dma, verify: false, expect_error: true}
faults:
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [1845312, 1845312]}, count: 0}
expect: {io_errors: 0}
"""


@pytest.mark.parametrize("key,regs", [("", "00:40:28:1c/00:00:00:00:00/40"),
                                      (", d2h_regs: echo", "08:40:28:1c/00:00:00:00:00/e0"),
                                      (", d2h_regs: lba_bits", "00:40:28:1c/00:00:00:00:00/00")])
def test_a_failed_commands_count_and_device_are_the_drives(write_scenario, tmp_path, key, regs):
    # ata_eh_link_report prints the error Register FIS libata filled the result from; Count and
    # Device are not ATA's there (ACS-3 error outputs) and drives differ (docs/hardware.md 8.7):
    # dmesg corpus 31 "cmd c8/00:08:40:28:1c/00:00:00:00:00/e0" -> "res 51/40:08:40:28:1c/.../e0"
    # (echo), corpus 27 "cmd .../e1" -> "res 51/40:00:.../01" (lba_bits: LBA 27:24 alone)
    _, log, _ = run_one(write_scenario, tmp_path, D2H_REGS_DMA % key, "wording-d2h-regs")
    assert re.search(r"cmd c8/00:08:40:28:1c/00:00:00:00:00/e0 tag \d+ dma 4096 in", log), log
    assert re.search(r"res 51/40:%s Emask 0x9 \(media error\)" % regs, log), log


D2H_REGS_NCQ = """
name: wording-d2h-regs-ncq
controller: {type: ahci, ports: 1}
host: {eh_policy: libata-4.x}
devices: [{port: 0, capacity: 2g, timing: {kind: ssd}%s}]
workload:
  - {kind: request, device: 0, op: read, lba: 4096, sectors: 8, mode: ncq, verify: false, tag: 1, expect_error: true}
  - {kind: request, device: 0, op: read, lba: 8192, sectors: 8, mode: ncq, verify: false, tag: 2}
faults:
  - {kind: media_error, port: 0, on_cmd: {opcode: 0x2f}, error: abrt, count: 1}
  - {kind: media_error, port: 0, on_cmd: {op: read, lba: [4096, 4096]}, count: 1}
expect: {io_errors: 0}
"""


@pytest.mark.parametrize("key,regs", [("", "00:00:00:00/00:00:00:00:00/00"),
                                      (", d2h_regs: echo", "10:00:20:00/00:00:00:00:00/40")])
def test_a_failed_queue_shows_the_last_acceptance(write_scenario, tmp_path, key, regs):
    # ahci_qc_fill_rtf (4.x to 6.1) fills every command of a failed queue from the D2H
    # Register FIS area; with no culprit from the NCQ log (its READ LOG EXT aborted, as in
    # dmesg corpus 26 and 50) EH prints them all so: the last Register FIS, the acceptance of the command accepted last, which some drives
    # send with that command's registers (dmesg corpus 26, 50: "res 40/00:10:7d:00:de/..."
    # on every tag, tag 2's Count and LBA)
    _, log, _ = run_one(write_scenario, tmp_path, D2H_REGS_NCQ % key, "wording-d2h-regs-ncq")
    assert re.search(r"cmd 60/08:10:00:20:00/00:00:00:00:00/40 tag 2 ncq 4096 in\n\S*\s*"
                     r"res 40/00:%s Emask 0x" % regs, log), log
