"""What a res line's registers say about the command slot before the failure (issue 31).

libata resets only Status and Error of a command slot's result taskfile when it reuses the
slot (ata_qc_reinit, 2.6.20 to 6.x: "init result_tf such that it indicates normal
completion"), fills the result from the controller only for a command that fails, an internal
one, or one whose issuer asked for it (ATA_QCFLAG_RESULT_TF: ATA PASS-THROUGH), and never for
a command the block layer timed out (ata_scsi_cmd_error_handler sets AC_ERR_TIMEOUT with no
fill_result_tf). So a timeout's res line shows Status 40h, Error 00h and, in the other
registers, what the slot's last filled result left: smartd's and hdparm's pass-through
commands on that tag. Those are the registers a drive answers, and the importer issues the
command that leaves them on that tag (a `kind: scsi` ATA PASS-THROUGH (16) step with `tag:`,
as smartctl and hdparm send it through SG_IO) before the report's requests:

  res 40/00:ff:00:00:00/00:00:00:00:00/00   CHECK POWER MODE (E5h): Count FFh, active or idle
  res 40/00:00:00:4f:c2/00:00:00:00:00/DD   SMART RETURN STATUS (B0h/DAh): LBA mid/high 4Fh/C2h,
                                            Device DD as written (smartctl -H)
  res 40/00:01:00:4f:c2/00:00:00:00:00/DD   SMART READ DATA (B0h/D0h, PIO in): the PIO Setup
                                            FIS's registers, the command's own (smartctl -A)
  res 40/00:00:01:4f:c2/00:00:00:00:00/DD   SMART ENABLE OPERATIONS (B0h/D8h), LBA low 01h as
                                            smartmontools writes it (smartctl -s on, smartd)
  res 40/00:01:00:00:00/00:00:00:00:00/DD   IDENTIFY DEVICE (ECh, PIO in) (smartctl -i, hdparm -I)
  res 40/00:00:00:00:00/00:00:00:00:00/10   STANDBY IMMEDIATE (E0h, non-data) on a slave: all
                                            zero but the DEV bit libata's pass-through sets for
                                            device 1 (ata_scsi_pass_thru); a spin-down tool's
                                            (hdparm -y, hd-idle -c ata). CHECK POWER MODE of a
                                            drive in Standby (Count 00h, ACS-2 7.5) leaves the
                                            same; on a master both leave nothing to tell

A slot shows one leftover per report here: a later res line on that tag with other registers
(the slot filled again in between) is noted, not reproduced; so are registers no command of the
list leaves (a failed command's D2H Register FIS a later timeout still shows).

The res lines EH read from a drive's NCQ Command Error log also tell what that drive puts in
the log's Count (ncq_log_count: docs/hardware.md 8.6)."""

from __future__ import annotations

import re

START_MS = 100      # the leftover commands' time, at the end of the boot probe


def _pass_thru(regs: tuple[int, ...]) -> tuple[str, int, bool] | None:
    """(CDB, data_in bytes, needs SMART) of the pass-through command whose result leaves
    regs in the slot, or None. regs: the res line's registers after Status/Error, as
    dmesg_parse.Command.res_regs holds them (count, LBA low/mid/high, the five hob
    registers, device)."""
    count, lbal, lbam, lbah, hob, dev = regs[0], regs[1], regs[2], regs[3], regs[4:9], regs[9]
    if any(hob) or dev & 0x0f:
        return None
    cdb = [0x85, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, dev, 0, 0]
    if (count, lbal, lbam, lbah, dev) == (0xff, 0, 0, 0, 0):
        cdb[1], cdb[14] = 3 << 1, 0xe5                 # non-data: CHECK POWER MODE
        return " ".join(f"{b:02x}" for b in cdb), 0, False
    if (count, lbal, lbam, lbah) == (0, 1, 0x4f, 0xc2):
        cdb[1], cdb[4], cdb[8], cdb[10], cdb[12], cdb[14] = 3 << 1, 0xd8, 1, 0x4f, 0xc2, 0xb0
        return " ".join(f"{b:02x}" for b in cdb), 0, True     # non-data: SMART ENABLE OPERATIONS
    if (lbal, lbam, lbah) == (0, 0x4f, 0xc2) and count in (0, 1):
        cdb[10], cdb[12], cdb[14] = 0x4f, 0xc2, 0xb0
        if count == 0:
            cdb[1], cdb[4] = 3 << 1, 0xda              # non-data: SMART RETURN STATUS
            return " ".join(f"{b:02x}" for b in cdb), 0, True
        # PIO data-in, T_DIR in, BYT_BLOK, T_LENGTH in Count: SMART READ DATA
        cdb[1], cdb[2], cdb[4], cdb[6] = 4 << 1, 0x0e, 0xd0, 1
        return " ".join(f"{b:02x}" for b in cdb), 512, True
    if (count, lbal, lbam, lbah) == (0, 0, 0, 0) and dev == 0x10:
        cdb[1], cdb[13], cdb[14] = 3 << 1, 0, 0xe0      # non-data: STANDBY IMMEDIATE (DEV: devno's)
        return " ".join(f"{b:02x}" for b in cdb), 0, False
    if (count, lbal, lbam, lbah) == (1, 0, 0, 0):
        cdb[1], cdb[2], cdb[6], cdb[14] = 4 << 1, 0x0e, 1, 0xec   # PIO data-in: IDENTIFY DEVICE
        return " ".join(f"{b:02x}" for b in cdb), 512, False
    return None


def _left_over(c) -> tuple[int, ...] | None:
    """The registers a timed-out command's res line shows beside Status 40h / Error 00h, or
    None when the line is not one of those (or shows nothing: a slot never filled)."""
    if not c.has_res or not c.emask & 0x4 or c.res_status != 0x40 or c.res_error or not c.res_regs:
        return None
    return c.res_regs if any(c.res_regs) else None


def leftover_steps(rep, disks, where, work: list[str], faults: list[dict], notes: list[str]) -> tuple[list[str], set]:
    """The scsi steps that leave the report's res leftovers in their slots (put before the
    report's requests), and the disks ((port, dev) of the report) that need SMART. No
    IDENTIFY DEVICE where a fault of the scenario fires on IDENTIFY (it would take that one)."""
    identify_fault = any("op: identify" in str(f) for f in faults)
    seen: dict[tuple[int, int, int], tuple[int, tuple[int, ...]]] = {}
    steps, smart = [], set()
    for e in rep.exceptions:
        key_dev = (e.port, e.dev or 0)
        if e.dev is None or key_dev not in disks:
            continue
        for c in e.commands:
            regs = _left_over(c)
            if regs is None:
                continue
            slot = key_dev + (c.tag,)
            if slot in seen:
                if seen[slot][1] != regs:
                    notes.append(f"{c.res_line}: the res line's registers differ from what tag {c.tag} showed "
                                 f"at line {seen[slot][0]} (the slot filled again in between): not reproduced")
                continue
            seen[slot] = (c.res_line, regs)
            cmd = _pass_thru(regs)
            if cmd is not None and identify_fault and cmd[0].endswith("ec 00"):
                cmd = None
            if cmd is None:
                notes.append(f"{c.res_line}: the res line's registers (left in tag {c.tag} by an earlier "
                             "command) are not what a pass-through command the importer can issue there leaves")
                continue
            cdb, data_in, needs_smart = cmd
            data = f", data_in: {data_in}" if data_in else ""
            steps.append((c.res_line, f"  - {{kind: scsi, {where(e.port, e.dev, 'device')}, tag: {c.tag}, "
                                  f"cdb: \"{cdb}\"{data}}}"))
            if needs_smart:
                smart.add(key_dev)
    if not steps:
        return [], set()
    # they go out at the end of the boot probe: the report's requests must come later. A
    # report without times issues its first exception's requests at once (the first with
    # barrier: true, which waits for nothing before it, the others barrier: false): they wait
    # START_MS more; a report with times must not start them sooner
    for i, w in enumerate(work):
        if "delay:" in w or (i and "barrier: true" in w):
            break
        work[i] = w[:-1] + f", delay: {START_MS}ms}}"
    if any(int(m.group(1)) < START_MS for w in work if (m := re.search(r"delay: (\d+)ms", w))):
        notes.append(f"{steps[0][0]}: the res lines' leftovers need commands on their tags before the "
                     f"report's requests, which start within {START_MS} ms: not reproduced")
        return [], set()
    return [s for _, s in steps], smart


def ncq_log_count(rep, key: tuple[int, int]) -> str | None:
    """The drive's `ncq_log_count` (docs/hardware.md 8.6) when its NCQ error log's Count is not
    the failed command's sector count: read from the res lines EH took from the log (a queued
    command failed with ERR, the culprit marked <F> or the only ERR status of its exception).
    Only a count above 255 tells the low byte apart from the whole of it."""
    votes = []
    for e in rep.exceptions:
        if (e.port, e.dev or 0) != key or e.dev is None:
            continue
        for c in e.commands:
            if not (c.ncq and c.has_res and c.res_status & 0x01 and c.res_regs and c.sectors):
                continue
            logged = c.res_regs[0] | c.res_regs[5] << 8
            n = c.sectors & 0xffff
            if logged == n:
                votes.append("full")
            elif not logged:
                votes.append("none")
            elif n > 0xff and logged == n & 0xff:
                votes.append("low_byte")
    if not votes:
        return None
    best = max(("full", "low_byte", "none"), key=votes.count)
    # a count of 256 or 2560 logs 0 whether the drive keeps its low byte or nothing: the
    # low byte is what more drives of the corpus do
    if best == "none" and all((c.sectors & 0xff) == 0 for e in rep.exceptions if (e.port, e.dev or 0) == key
                              for c in e.commands if c.ncq and c.res_status & 0x01):
        best = "low_byte"
    return None if best == "full" else best


def _echoed(e, c) -> bool:
    """c (a queued command of exception e, failed without ERR: Emask 0x1 and the D2H-area
    fill of ahci before 6.2) shows in its res line the registers of one of e's commands: the
    drive's acceptance Register FIS carried them (d2h_regs: echo)."""
    return any(c.res_regs[:4] + c.res_regs[5:] == o.tf[2:6] + o.tf[7:] for o in e.commands if o.ncq and o.tf)


def d2h_regs(rep, key: tuple[int, int]) -> str | None:
    """The drive's `d2h_regs` (docs/hardware.md 8.7) when its Register FISes do not carry the
    model's default Count 0 / Device 40h: a failed non-queued command's res line with the
    command's own Count and Device (echo: corpus 28, 31), or Count 0 and LBA 27:24 alone in
    Device (lba_bits: corpus 27); a failed queue whose res lines show one of its commands'
    registers (echo: corpus 26, 50, the acceptance FIS)."""
    votes = []
    for e in rep.exceptions:
        if (e.port, e.dev or 0) != key or e.dev is None:
            continue
        for c in e.commands:
            if not (c.has_res and c.res_regs and len(c.tf) == 12):
                continue
            count, dev = c.res_regs[0], c.res_regs[9]
            if c.ncq:
                if c.emask & 0x1 and c.res_status == 0x40 and any(c.res_regs) and _echoed(e, c):
                    votes.append("echo")
            elif c.res_status & 0x01 and not c.emask & 0x4:
                if (count, dev) == (c.tf[2], c.tf[11]) and (count, dev) != (0, 0x40):
                    votes.append("echo")
                elif count == 0 and dev == (c.res_lba >> 24) & 0x0f and c.tf[11] & 0x40 and dev != c.tf[11]:
                    votes.append("lba_bits")
                elif (count, dev) == (0, 0x40):
                    votes.append("cleared")
    if not votes:
        return None
    best = max(("cleared", "echo", "lba_bits"), key=votes.count)
    return None if best == "cleared" else best

