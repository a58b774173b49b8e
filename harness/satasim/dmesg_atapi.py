"""ATAPI drives in a kernel log (satasim import-dmesg): which device is an ATAPI drive, and
the commands of it the log shows, as `kind: scsi` steps on a `devices[].atapi` drive.

libata names an ATAPI drive at probe ("ata1.00: ATAPI: HL-DT-ST DVDRAM GH22NS50, TN02, max
UDMA/100"); an excerpt that starts after the probe still shows it by its failed commands:
the cmd line of a PACKET command (ATA opcode A0h, "cmd a0/00:00:00:00:fc/00:00:00:00:00/a0
tag 0 pio 131072 in") followed by its CDB, either as hex ("cdb 00 00 00 ...", 2.6.2x) or
with the SCSI layer's name of the command ("Read(10) 28 00 00 00 05 61 00 00 40 00",
4.x and later, the text before `res`).

Each such command becomes a step that sends the same CDB with the same transfer (data_in,
pio for a PIO command) on the model's drive, which answers the MMC commands it implements
(model/atapi/mmc.h); the others are left out with a note. What the log shows going wrong is
a fault on the drive matched by the CDB's operation code (docs/device.md 7, `fault_for`): a
timeout whose res line shows the drive done (DRDY, not BSY) is a lost interrupt (with ERR: the
drive ended it in CHECK CONDITION first), one that left it busy a hang, a CHECK CONDITION whose
REQUEST SENSE (EH's own PACKET command, "qc timeout (cmd 0xa0)" before the report) timed out a
hang on the REQUEST SENSE; the link dropping under
the command (an ATA bus error with a PHY event in SError) a PHY flap with the line noise SError
shows; an interface CRC error a crc fault on the data; a device error CHECK CONDITION with the
sense key of the res line's Error register.
"""

from __future__ import annotations

import re

from satasim.dmesg_noise import PHY_EVENT as _PHY_EVENT, noise_list

# The CDB of a PACKET command's message: after the cmd line's data part, hex bytes (six or
# more), optionally after "cdb" or the SCSI command name, before the "res" continuation.
_CDB = re.compile(r"\b(?:in|out|nodata)\b\s*(?:cdb\s+|[A-Za-z][\w ()/-]*?\s+)?"
                  r"(?P<cdb>(?:[0-9a-f]{2}\s+){5,15}[0-9a-f]{2})\s*(?:res\b|$)")
_CDB_HEX = re.compile(r"\bcdb\s+(?P<cdb>(?:[0-9a-f]{2}\s+){5,15}[0-9a-f]{2})\b")
_DATA = re.compile(r"\b(?P<prot>dma|pio|nodata) (?P<n>\d+) (?P<dir>in|out)\b")
# The MMC commands the drive model answers (model/atapi/mmc.h)
MODELLED = {0x00: "TEST UNIT READY", 0x03: "REQUEST SENSE", 0x12: "INQUIRY", 0x1b: "START STOP UNIT",
            0x1e: "PREVENT ALLOW MEDIUM REMOVAL", 0x25: "READ CAPACITY", 0x28: "READ(10)",
            0xa8: "READ(12)", 0x5a: "MODE SENSE(10)", 0x4a: "GET EVENT STATUS NOTIFICATION",
            0x46: "GET CONFIGURATION"}
PACKET = 0xa0
TEST_UNIT_READY = "00 00 00 00 00 00 00 00 00 00 00 00"
BYTE_COUNT_MAX = 63 * 1024  # the stack's byte count for a transfer (libata's limit, atapi_xlat)
DISC_BLOCKS = 65536        # a disc every logged READ fits on (and the QEMU backend's largest)
CDB_LEN = 12               # an ATAPI drive's packet (IDENTIFY PACKET word 0 bits 1:0 = 0)


def atapi_devices(rep) -> set[tuple[int, int]]:
    """The (port, dev) of every ATAPI drive of a log: named by its probe line, or the device
    of a failed PACKET command."""
    out = {k for k, d in rep.disks.items() if d.atapi}
    for e in rep.exceptions:
        if e.dev is not None and any(c.opcode == PACKET for c in e.commands):
            out.add((e.port, e.dev))
    return out


def _message(rep, line: int) -> str:
    for no, _t, _addr, msg in rep.lines:
        if no == line:
            return msg
    return ""


def packet_cdb(msg: str) -> list[int] | None:
    """The CDB bytes of a PACKET command's cmd message (cut to the drive's 12-byte packet),
    or None when the message shows none."""
    text = " ".join(msg.split())
    m = _CDB_HEX.search(text) or _CDB.search(text)
    if not m:
        return None
    b = [int(x, 16) for x in m.group("cdb").split()]
    return b[:CDB_LEN] if len(b) > CDB_LEN else b


# The ASC/ASCQ a drive most likely gave with a sense key the log shows only in the Error
# register (bits 7:4): NOT READY medium not present, MEDIUM ERROR unrecovered read error,
# ILLEGAL REQUEST invalid field in CDB, UNIT ATTENTION medium changed (SPC-4 table 49).
_ASC_OF_KEY = {0x2: (0x3a, 0), 0x3: (0x11, 0), 0x4: (0x08, 0x03), 0x5: (0x24, 0), 0x6: (0x28, 0),
               0xb: (0x00, 0)}
# SError bits (SATA 2.6 14.1.2): PHYRdyChg, CommWake, DevExch; 10B8B, HostInt


def _check_condition(where: str, match: str, err: int) -> str:
    asc, ascq = _ASC_OF_KEY.get(err >> 4, (0, 0))
    return (f"  - {{kind: check_condition, {where}, on_cmd: {match}, key: {err >> 4}, asc: 0x{asc:02x}"
            + (f", ascq: 0x{ascq:02x}" if ascq else "") + (", abrt: true" if err & 0x04 else "") + "}")


# ata_exec_internal's message for an internal command that timed out ("qc timeout after N
# msecs (cmd 0x..)" since 6.0)
_INTERNAL_TIMEOUT = re.compile(r"^qc timeout(?: after \d+ msecs)? \(cmd 0x(?P<cmd>[0-9a-f]+)\)$")
REQUEST_SENSE = 0x03


def sense_timed_out(rep, e) -> int:
    """The line of an internal PACKET command of exception e's device that timed out just
    before the exception (after the previous one), or 0. Before its report, EH issues one
    PACKET command of its own: the REQUEST SENSE of a command that ended in CHECK CONDITION
    (atapi_eh_request_sense, from ata_eh_link_autopsy, 2.6.18 to 6.x). Its timeout freezes the
    port and adds AC_ERR_TIMEOUT to the failed command (dmesg corpus 29: "qc timeout (cmd
    0xa0)", then the TEST UNIT READY's "res 51/24:03 ... Emask 0x5 (timeout)", frozen)."""
    addr = f"ata{e.port + 1}.{e.dev:02d}"
    before = max([x.line for x in rep.exceptions if x.line < e.line], default=0)
    for no, _t, a, msg in rep.lines:
        m = _INTERNAL_TIMEOUT.match(msg)
        if before < no < e.line and a == addr and m and int(m.group("cmd"), 16) == PACKET:
            return no
    return 0


def fault_for(e, c, where: str, cdb: list[int], sense_timeout: int = 0) -> tuple[list[str], str]:
    """The faults (scenario lines) that make the drive fail PACKET command c of exception e as
    the log shows, and what they reproduce (for the note); no lines: nothing fits.
    sense_timeout: the line of the internal PACKET command that timed out before the report
    (sense_timed_out), or 0."""
    match = f"{{opcode: 0x{cdb[0]:02x}}}"
    done = c.has_res and c.res_status & 0xc8 == 0x40     # DRDY, neither BSY nor DRQ
    if sense_timeout and c.has_res and c.res_status & 0x89 == 0x01 and c.res_error >> 4:
        # the command ended in CHECK CONDITION (the res line is its own Register FIS) and EH's
        # REQUEST SENSE got no answer: the drive hangs on it until the reset
        return ([_check_condition(where, match, c.res_error),
                 f"  - {{kind: hang, {where}, on_cmd: {{opcode: 0x{REQUEST_SENSE:02x}}}}}"],
                f"a CHECK CONDITION whose REQUEST SENSE timed out (line {sense_timeout}: a hang on it)")
    if c.emask & 0x10 and e.serr & _PHY_EVENT and e.frozen:
        return ([f"  - {{kind: phy_flap, {where}, on_cmd: {match}, down: 1ms, noise: {noise_list(e.serr) or '[]'}}}"],
                "the link dropping under the command (phy_flap)")
    if c.emask & 0x4 or "timeout" in c.emask_desc:
        if done or (c.has_res and c.res_status & 0x89 == 0x01):
            lines = [f"  - {{kind: lost_irq, {where}, on_cmd: {match}, count: 1}}"]
            if c.res_status & 0x01:     # the drive ended it in CHECK CONDITION first
                lines.insert(0, _check_condition(where, match, c.res_error))
            return lines, "a lost interrupt" + (" after a CHECK CONDITION" if c.res_status & 0x01 else "")
        return [f"  - {{kind: hang, {where}, on_cmd: {match}}}"], "a hang (timeout, the drive busy)"
    if c.emask & 0x10 or c.emask & 0x2:
        return ([f"  - {{kind: crc, {where}, on_cmd: {match}, dir: d2h, fis: data}}"],
                "an interface CRC error on the data (crc)")
    if c.emask & 0x1 and c.has_res and c.res_status & 0x01 and c.res_error >> 4:
        return [_check_condition(where, match, c.res_error)], "a CHECK CONDITION"
    return [], ""


def status_phase_before(e, c, faults: list[str]) -> bool:
    """Whether the res line of PACKET command c shows a status phase the command itself never
    reached: a Count of 03h (interrupt reason CoD and I/O) where the link dropped under it (a
    phy_flap fault: dmesg corpus 40, a READ(10) cut in its data phase). An AHCI port's result
    is its received-FIS area's Register D2H FIS (ahci_qc_fill_rtf), so that is the one a good
    command before it ended with (sr's previous read)."""
    return bool(c.has_res and len(c.res_regs) > 0 and c.res_regs[0] == 0x03 and
                any("kind: phy_flap" in x for x in faults))


def atapi_scenario_parts(rep, atapi: set[tuple[int, int]], portmap: dict[int, int],
                         notes: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(device lines, workload lines, fault lines) for the log's ATAPI drives: one
    `devices[].atapi` entry each (device 0 of a host port: the only place the model takes
    one), a scsi step per PACKET command the log shows failing and the fault that fails it
    (fault_for)."""
    devices, work, faults = [], [], []
    for port, dev in sorted(atapi):
        if port not in portmap:
            continue
        if dev or port in rep.pmps:
            notes.append(f"1: ata{port + 1}.{dev:02d} is an ATAPI drive {'behind a port multiplier' if port in rep.pmps else 'at device 1'}: "
                         "satasim's ATAPI drive is a host port's device 0 only (no slave, no PMP): not modelled")
            continue
        where = f"port: {portmap[port]}"
        # a drive libata configured for a PIO mode (its first "configured for" line): one
        # without DMA whose fastest PIO mode is that one
        d = rep.disks.get((port, dev))
        pio = re.match(r"PIO(\d)$", d.configured) if d and d.configured else None
        modes = f", dma: false, pio: {pio.group(1)}" if pio else ""
        devices.append(f"  - {{{where}, atapi: {{disc_blocks: {DISC_BLOCKS}{modes}}}}}")
        for e in rep.exceptions:
            if (e.port, e.dev) != (port, dev):
                continue
            for c in e.commands:
                if c.opcode != PACKET:
                    continue
                msg = _message(rep, c.line)
                cdb = packet_cdb(msg)
                if not cdb or len(cdb) not in (6, 10, 12, 16):
                    notes.append(f"{c.line}: ata{port + 1}.{dev:02d}'s PACKET command shows no CDB: not reproduced")
                    continue
                if cdb[0] not in MODELLED:
                    notes.append(f"{c.line}: CDB opcode {cdb[0]:02x}h is not one the drive model answers "
                                 "(model/atapi/mmc.h): not reproduced")
                    continue
                data = _DATA.search(msg)
                n = int(data.group("n")) if data and data.group("dir") == "in" else 0
                step = (f"  - {{kind: scsi, {where.replace('port', 'device', 1)}, barrier: true, "
                        f"cdb: \"{' '.join(f'{x:02x}' for x in cdb)}\"")
                if n:
                    step += f", data_in: {n}"
                # the byte count the cmd line's LBA mid/high show, where it is not the transfer's
                # (at most 63 KiB): libata puts the request's own length there and maps the
                # drain buffer it adds to a pass-through read of a non-READ command on top of it
                # in the transfer (ATAPI_MAX_DRAIN, 16 KiB, 2.6.25 on: qc->nbytes = the request
                # + qc->extrabytes, the byte count ata_qc_raw_nbytes), so dmesg corpus 55's
                # 32-byte GET CONFIGURATION shows "a0/01:00:00:20:00 ... dma 16416 in"
                bc = c.tf[4] | c.tf[5] << 8 if len(c.tf) > 5 else 0
                if n and 2 <= bc <= 0xfffe and bc != min(n, BYTE_COUNT_MAX):
                    step += f", byte_count: {bc}"
                    notes.append(f"{c.line}: ata{port + 1}.{dev:02d}'s {MODELLED[cdb[0]]} has byte count {bc} in "
                                 f"a {n}-byte transfer: libata's drain buffer (ATAPI_MAX_DRAIN) after the request")
                if data and data.group("prot") == "pio":
                    step += ", pio: true"
                lines, what = fault_for(e, c, where, cdb, sense_timed_out(rep, e))
                if status_phase_before(e, c, lines):
                    # a good command first, whose status phase leaves its registers there
                    work.append(f"  - {{kind: scsi, {where.replace('port', 'device', 1)}, barrier: true, "
                                f"cdb: \"{TEST_UNIT_READY}\"}}")
                    notes.append(f"{c.line}: the res line's Count 03 (CoD and I/O: a status phase) is the drive's "
                                 f"last Register FIS before the {MODELLED[cdb[0]]}, which never reached its own: "
                                 "a TEST UNIT READY before it leaves it")
                # the step is a pass-through (SG_IO) request: the failure the fault gives it
                # ends it in CHECK CONDITION, with the drive's sense or libata's from the
                # taskfile (docs/device.md 7), and the SCSI layer does not retry it
                work.append(step + (", expect_status: check_condition" if lines else "") + "}")
                if lines:   # (a command the log shows failing again: the same fault, once)
                    faults.extend(x for x in lines if x not in faults)
                    notes.append(f"{c.line}: {MODELLED[cdb[0]]} on the ATAPI drive ata{port + 1}.{dev:02d}: "
                                 f"its failure ({c.emask_desc or 'Emask 0x%x' % c.emask}) is {what}")
                elif not lines:
                    notes.append(f"{c.line}: {MODELLED[cdb[0]]} on the ATAPI drive ata{port + 1}.{dev:02d}: no fault "
                                 f"kind for its failure ({c.emask_desc or 'Emask 0x%x' % c.emask}): it runs clean")
    return devices, work, faults
