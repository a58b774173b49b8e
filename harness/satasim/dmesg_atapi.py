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
(model/atapi/mmc.h); the others are left out with a note. What the log shows going wrong
(a timeout, a bus error, a lost interrupt) is not reproduced: satasim's faults do not bind
to an ATAPI drive, and the note says so at the command's line.
"""

from __future__ import annotations

import re

# The CDB of a PACKET command's message: after the cmd line's data part, hex bytes (six or
# more), optionally after "cdb" or the SCSI command name, before the "res" continuation.
_CDB = re.compile(r"\b(?:in|out|nodata)\b\s*(?:cdb\s+|[A-Za-z][\w ()/-]*?\s+)?"
                  r"(?P<cdb>(?:[0-9a-f]{2}\s+){5,15}[0-9a-f]{2})\s*(?:res\b|$)")
_CDB_HEX = re.compile(r"\bcdb\s+(?P<cdb>(?:[0-9a-f]{2}\s+){5,15}[0-9a-f]{2})\b")
_DATA = re.compile(r"\b(?P<prot>dma|pio|nodata) (?P<n>\d+) (?P<dir>in|out)\b")
# The MMC commands the drive model answers (model/atapi/mmc.h)
MODELLED = {0x00: "TEST UNIT READY", 0x03: "REQUEST SENSE", 0x12: "INQUIRY", 0x1b: "START STOP UNIT",
            0x1e: "PREVENT ALLOW MEDIUM REMOVAL", 0x25: "READ CAPACITY", 0x28: "READ(10)",
            0xa8: "READ(12)", 0x5a: "MODE SENSE(10)", 0x4a: "GET EVENT STATUS NOTIFICATION"}
PACKET = 0xa0
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


def atapi_scenario_parts(rep, atapi: set[tuple[int, int]], portmap: dict[int, int],
                         notes: list[str]) -> tuple[list[str], list[str]]:
    """(device lines, workload lines) for the log's ATAPI drives: one `devices[].atapi` entry
    each (device 0 of a host port: the only place the model takes one) and a scsi step per
    PACKET command the log shows failing."""
    devices, work = [], []
    for port, dev in sorted(atapi):
        if port not in portmap:
            continue
        if dev or port in rep.pmps:
            notes.append(f"1: ata{port + 1}.{dev:02d} is an ATAPI drive {'behind a port multiplier' if port in rep.pmps else 'at device 1'}: "
                         "satasim's ATAPI drive is a host port's device 0 only (no slave, no PMP): not modelled")
            continue
        where = f"port: {portmap[port]}"
        devices.append(f"  - {{{where}, atapi: {{disc_blocks: {DISC_BLOCKS}}}}}")
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
                if data and data.group("prot") == "pio":
                    step += ", pio: true"
                work.append(step + "}")
                notes.append(f"{c.line}: {MODELLED[cdb[0]]} on the ATAPI drive ata{port + 1}.{dev:02d} runs clean: "
                             f"its failure in the log ({c.emask_desc or 'Emask 0x%x' % c.emask}) is not injected "
                             "(satasim's faults do not bind to an ATAPI drive)")
    return devices, work
