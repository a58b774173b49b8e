"""Log parity with Linux 6.1 libata (issue 18): each test asserts satasim's log against the line
the kernel prints, quoted from the kernel's own format string (drivers/ata/libata-*.c,
block/blk-mq.c), never against satasim's earlier output. Both controllers; the boot probe
also at both link levels."""

import re

import pytest

from satasim import load_result, load_trace, run

# An end of every log line: "[    0.311000] " + prefix + message.
STAMP = r"^\[\s*\d+\.\d{6}\] "


def run_one(write_scenario, tmp_path, text, name, env_mode=None, monkeypatch=None):
    path = write_scenario(text)
    out = tmp_path / "out"
    if env_mode:
        monkeypatch.setenv("SATASIM_LINK_MODE", env_mode)
    result = run([path], out)
    assert result.returncode == 0, result.stdout + result.stderr
    res = load_result(out, name)
    assert res["verdict"] == "pass", res.get("reasons")
    return load_trace(out, name), (out / name / "satasim.log").read_text().splitlines()


def boot_lines(trace, log):
    """The log lines of the boot probe: everything before the workload starts."""
    start = next(r["t_ns"] for r in trace if r.get("ev") == "workload.start")
    t_of = re.compile(r"^\[\s*(\d+)\.(\d{6})\]")
    out = []
    for line in log:
        m = t_of.match(line)
        if m and int(m.group(1)) * 10**9 + int(m.group(2)) * 1000 < start:
            out.append(line)
    return out


BOOT = """
name: parity-boot-{ctl}
seed: 7
controller: {{type: {ctl}, ports: {ports}}}
devices:
  - {{port: 0, model: "SATASIM BOOT A"}}
  - {{port: 2, model: "SATASIM BOOT C"}}
workload:
  - {{device: 0, op: read, pattern: sequential, block: 8, qd: 1, count: 20, mode: dma,
     region: {{start: 0, length: 1m}}}}
faults:
  - {{kind: phy_flap, port: 0, on_cmd: {{op: read}}, down: 1ms}}
"""


@pytest.mark.parametrize("ctl,ports", [("ahci", 3), ("sil24", 4)])
@pytest.mark.parametrize("mode", ["dword", "fis"])
def test_boot_probe_is_quiet(ctl, ports, mode, write_scenario, tmp_path, monkeypatch):
    # libata-core.c ata_port_probe: ehi->flags |= ATA_EHI_NO_AUTOPSY | ATA_EHI_QUIET;
    # libata-eh.c ata_eh_reset: if (verbose) ata_link_info(link, "%s resetting link\n", ...)
    # with verbose = !(ehc->i.flags & ATA_EHI_QUIET): the boot probe resets silently, and
    # prints only the link state, the identity lines and "configured for %s%s".
    trace, log = run_one(write_scenario, tmp_path, BOOT.format(ctl=ctl, ports=ports),
                         f"parity-boot-{ctl}", env_mode=mode, monkeypatch=monkeypatch)
    boot = boot_lines(trace, log)
    assert not [l for l in boot if "resetting link" in l], boot
    assert [l for l in boot if re.match(STAMP + r"ata1: SATA link up [0-9.]+ Gbps \(SStatus 1[0-9]3 SControl [0-9a-f]+\)$", l)]
    assert [l for l in boot if re.match(STAMP + r"ata2: SATA link down \(SStatus 0 SControl [0-9a-f]+\)$", l)]
    assert [l for l in boot if re.match(STAMP + r"ata1\.00: ATA-\d+: SATASIM BOOT A, \S+, max UDMA/133$", l)]
    assert [l for l in boot if re.match(STAMP + r"ata3\.00: configured for UDMA/1[03]{2}$", l)]
    assert not [l for l in boot if "EH complete" in l]  # ATA_PFLAG_RECOVERED is not set quiet
    # the decision itself is still in the trace (golden), just without a log line
    boot_resets = [r for r in trace if r.get("ev") == "eh.reset" and r["t_ns"] < 10**9 and r["port"] == 0]
    assert boot_resets and all(not r.get("msg") for r in boot_resets[:1])
    # after boot EH is verbose again: the PHY flap under a read (a command fails, so 6.1's
    # autopsy does not make the run quiet) says it resets
    assert [l for l in log if re.match(STAMP + r"ata1: hard resetting link$", l)]


PMP = """
name: parity-pmp-boot
seed: 8
controller: {type: ahci, ports: 1}
pmps:
  - {port: 0, ports: 2}
devices:
  - {port: 0, pmp_port: 0, capacity: 1g}
  - {port: 0, pmp_port: 1, capacity: 1g}
"""


def test_pmp_fanout_links_reset_verbosely_at_boot(write_scenario, tmp_path):
    # libata-pmp.c sata_pmp_init_links asks each fan-out link for a probe and a reset
    # (probe_mask, ATA_EH_RESET) without ATA_EHI_QUIET: real boot logs read
    # "ata1.15: Port Multiplier 1.2, ..." then "ata1.00: hard resetting link" per fan-out
    # link, while the host link's own reset stays quiet.
    trace, log = run_one(write_scenario, tmp_path, PMP, "parity-pmp-boot")
    assert not [l for l in log if re.match(STAMP + r"ata1: (hard|soft) resetting link$", l)], log
    assert [l for l in log if re.match(STAMP + r"ata1\.00: hard resetting link$", l)], log
    assert [l for l in log if re.match(STAMP + r"ata1\.01: hard resetting link$", l)], log


IO_ERRORS = """
name: parity-io-{ctl}
seed: 9
controller: {{type: {ctl}, ports: {ports}}}
devices:
  - {{port: 0, capacity: 1g}}
  - {{port: 1, capacity: 1g}}
  - {{port: 2, capacity: 200g}}
workload:
  - {{kind: request, device: 1, op: read, lba: 1600, sectors: 8, mode: dma, expect_error: true}}
  - {{kind: request, device: 0, op: write, lba: 5000, sectors: 8, mode: dma, expect_error: true, barrier: true}}
  - {{kind: request, device: 0, op: flush, expect_error: true, barrier: true}}
  - {{kind: request, device: 2, op: flush, barrier: true}}
  - {{kind: request, device: 2, op: read, lba: 300000000, sectors: 8, mode: dma, barrier: true}}
faults:
  - {{kind: media_error, port: 1, op: read, on_cmd: {{op: read, lba: [1600, 1600]}}, error: unc, count: 0}}
  - {{kind: media_error, port: 0, op: write, on_cmd: {{op: write}}, error: abrt, count: 0}}
  - {{kind: media_error, port: 0, op: flush, on_cmd: {{op: flush}}, error: abrt, count: 0}}
  - {{kind: media_error, port: 2, id: flush_ext, op: flush, on_cmd: {{op: flush}}, error: abrt, count: 1}}
  - {{kind: media_error, port: 2, id: read_ext, op: read, on_cmd: {{op: read, lba: [300000000, 300000007]}}, error: abrt, count: 1}}
"""


@pytest.fixture(scope="module", params=[("ahci", 3), ("sil24", 4)], ids=["ahci", "sil24"])
def io_run(request, tmp_path_factory):
    ctl, ports = request.param
    tmp = tmp_path_factory.mktemp(f"io-{ctl}")
    path = tmp / "in" / "io.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(IO_ERRORS.format(ctl=ctl, ports=ports).lstrip())
    out = tmp / "out"
    result = run([path], out)
    assert result.returncode == 0, result.stdout + result.stderr
    name = f"parity-io-{ctl}"
    res = load_result(out, name)
    assert res["verdict"] == "pass", res.get("reasons")
    return load_trace(out, name), (out / name / "satasim.log").read_text().splitlines()


def io_error_lines(log):
    return [l for l in log if " I/O error, dev " in l]


# block/blk-mq.c blk_print_req_error (6.1):
#   "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u\n"
# with blk_status_to_str(BLK_STS_IOERR) = "I/O" (libata's EH completes a failed command with
# DID_OK + CHECK CONDITION), the disk's sd name (port 0's disk attached first: sda, port 1's:
# sdb), REQ_OP_READ = 0 / REQ_OP_WRITE = 1, and the class of a task's default priority,
# IOPRIO_CLASS_BE = 2. A failed cache flush (blkdev_issue_flush: an empty REQ_OP_WRITE |
# REQ_PREFLUSH; the flush machinery clears PREFLUSH and sets REQ_SYNC = 1 << 11) ends as
# "sector 0 op 0x1:(WRITE) flags 0x800 phys_seg 0". The flags are the request's: a read
# stands for a buffered one (0), a write for a direct one (REQ_SYNC 0x800, issue 31).
@pytest.mark.parametrize("line", [
    r"I/O error, dev sdb, sector 1600 op 0x0:\(READ\) flags 0x0 phys_seg 1 prio class 2",
    r"I/O error, dev sda, sector 5000 op 0x1:\(WRITE\) flags 0x800 phys_seg 1 prio class 2",
    r"I/O error, dev sda, sector 0 op 0x1:\(WRITE\) flags 0x800 phys_seg 0 prio class 2",
], ids=["read", "write", "flush"])
def test_io_error_line(io_run, line):
    trace, log = io_run
    assert [l for l in log if re.match(STAMP + line + "$", l)], io_error_lines(log)


def test_io_errors_only_for_failed_requests_and_before_eh_complete(io_run):
    # the retried-and-recovered flush and read on port 2 print no I/O error; each failed
    # request's line comes before its EH run's "ataN: EH complete" (scsi_eh_flush_done_q
    # runs before ata_scsi_port_error_handler logs it)
    trace, log = io_run
    assert len(io_error_lines(log)) == 3, io_error_lines(log)
    assert not [l for l in io_error_lines(log) if "dev sdc" in l]
    for i, line in enumerate(log):
        if " I/O error, dev " in line:
            assert any(re.match(STAMP + r"ata\d: EH complete$", l) for l in log[i + 1:i + 4]), log[i - 3:i + 4]
    # the record keeps the device's address (golden column), the log line has no prefix
    recs = [r for r in trace if r.get("ev") == "blk.io_error"]
    assert sorted((r["port"], r["f"]["disk"]) for r in recs) == [(0, "sda"), (0, "sda"), (1, "sdb")]


def test_flush_cache_below_2_28_sectors_ext_above(io_run):
    # libata-core.c ata_dev_config_lba: ATA_DFLAG_FLUSH_EXT only if
    # dev->n_sectors >= (1UL << 28) && ata_id_has_flush_ext(id); ata_get_cmd_name names
    # 0xE7 "FLUSH CACHE" and 0xEA "FLUSH CACHE EXT"; the cmd line is
    # "cmd %02x/%02x:%02x:%02x:%02x:%02x/%02x:%02x:%02x:%02x:%02x/%02x".
    trace, log = io_run
    assert [l for l in log if re.match(STAMP + r"ata1\.00: failed command: FLUSH CACHE$", l)], log
    assert [l for l in log if re.match(STAMP + r"ata1\.00: cmd e7/00:00:00:00:00/00:00:00:00:00/a0 tag \d+$", l)]
    assert not [l for l in log if re.match(STAMP + r"ata[12]\.00: failed command: FLUSH CACHE EXT$", l)]
    assert [l for l in log if re.match(STAMP + r"ata3\.00: failed command: FLUSH CACHE EXT$", l)], log
    assert [l for l in log if re.match(STAMP + r"ata3\.00: cmd ea/00:00:00:00:00/00:00:00:00:00/a0 tag \d+$", l)]


def test_read_dma_28bit_when_the_range_fits(io_run):
    # libata's ata_build_rw_tf: lba_28_ok(block, n_block) -> READ DMA (0xC8), else READ DMA
    # EXT (0x25) on an LBA48 disk
    trace, log = io_run
    assert [l for l in log if re.match(STAMP + r"ata2\.00: failed command: READ DMA$", l)], log
    assert [l for l in log if re.match(STAMP + r"ata2\.00: cmd c8/00:08:40:06:00/00:00:00:00:00/e0 tag \d+ dma 4096 in$", l)]
    # 300000000 = 0x11e1a300 is beyond 28 bits
    assert [l for l in log if re.match(STAMP + r"ata3\.00: failed command: READ DMA EXT$", l)], log
    assert [l for l in log if re.match(STAMP + r"ata3\.00: cmd 25/00:08:00:a3:e1/00:00:11:00:00/e0 tag \d+ dma 4096 in$", l)]


NCQ = """
name: parity-ncq-{ctl}-{policy}
seed: 10
controller: {{type: {ctl}, ports: 1}}
host: {{eh_policy: {policy}}}
devices:
  - {{port: 0, capacity: 1g}}
workload:
  - {{device: 0, op: read, pattern: random, block: 4k, qd: 32, count: 200, mode: ncq,
     region: {{start: 0, length: 4m}}}}
"""


@pytest.mark.parametrize("ctl,policy,line,peak", [
    ("ahci", "libata-modern", "NCQ (depth 32)", 32),
    ("ahci", "libata-2006", "NCQ (depth 31/32)", 31),
    ("sil24", "libata-modern", "NCQ (depth 31/32)", 31),
    ("sil24", "libata-2006", "NCQ (depth 31/32)", 31),
])
def test_ncq_depth_line_and_queue(ctl, policy, line, peak, write_scenario, tmp_path):
    # libata-core.c ata_dev_config_ncq: hdepth = min(ap->scsi_host->can_queue, ATA_MAX_QUEUE)
    # (2.6.18: ATA_MAX_QUEUE - 1, the internal tag), then
    #   if (hdepth >= ddepth) "NCQ (depth %d)" ddepth  else "NCQ (depth %d/%d)" hdepth, ddepth.
    # Since 4.18 the internal command has a tag beyond the 32 (its hw_tag is 0), so a 32-slot
    # AHCI host queues 32; sata_sil24 has 31 slots (can_queue 31) under both.
    name = f"parity-ncq-{ctl}-{policy}"
    path = write_scenario(NCQ.format(ctl=ctl, policy=policy))
    out = tmp_path / "out"
    result = run([path], out, "--trace-cmds", "on")
    assert result.returncode == 0, result.stdout + result.stderr
    log = (out / name / "satasim.log").read_text().splitlines()
    assert [l for l in log if re.match(STAMP + r"ata1\.00: \d+ sectors, multi \d+: LBA48 " + re.escape(line) + "$", l)], log[:8]
    outstanding, most = set(), 0
    for rec in load_trace(out, name):
        if rec.get("ev") == "qc.issue" and rec["f"]["cmd"] == "0x60":
            outstanding.add(rec["f"]["tag"])
            most = max(most, len(outstanding))
        elif rec.get("ev") == "qc.done" and rec["f"]["cmd"] == "0x60":
            outstanding.discard(rec["f"]["tag"])
    assert most == peak


SERROR = """
name: parity-serror-{ctl}
seed: 11
controller: {{type: {ctl}, ports: 1}}
devices:
  - {{port: 0, model: "SATASIM CRC"}}
workload:
  - {{device: 0, op: read, pattern: sequential, block: 8, qd: 8, count: 40, mode: ncq,
     region: {{start: 0, length: 1m}}}}
faults:
  - {{kind: crc, port: 0, dir: d2h, fis: data, after_cmds: 10}}
"""


@pytest.mark.parametrize("ctl", ["ahci"])  # sil24 reports a data CRC by its own error code, no SError
def test_serror_line_is_the_links(ctl, write_scenario, tmp_path):
    # libata-eh.c ata_eh_link_report: the exception line is the failed device's
    # (ata_dev_err(ehc->i.dev, "exception Emask ...")), but the SError line is always the
    # link's: ata_link_err(link, "SError: { %s%s...}\n", ...) -> "ata1: SError: { ... }".
    trace, log = run_one(write_scenario, tmp_path, SERROR.format(ctl=ctl), f"parity-serror-{ctl}")
    exc = [l for l in log if re.search(STAMP + r"ata1\.00: exception Emask ", l)]
    serr = [l for l in log if "SError: {" in l]
    assert exc, "\n".join(log)
    assert serr, "\n".join(log)
    for line in serr:
        assert re.match(STAMP + r"ata1: SError: \{ (\w+ )+\}$", line), line
