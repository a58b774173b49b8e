"""Parallel ATA in a kernel log (satasim import-dmesg): which PIIX part a log's ata_piix PATA
ports are, from libata's port description line.

libata prints one line per port when the host registers ("ata1: PATA max UDMA/33 cmd 0x1f0
ctl 0x3f6 bmdma 0xc000 irq 14"): the mode after "max" is the port's own transfer mask, the
controller's, before any drive is looked at. ata_piix gives the Intel parts these masks
(its port_info table, read for the facts):
  - PIIX3 (82371SB) "PATA max MWDMA2": PIO4, MWDMA1-2, no UDMA;
  - PIIX4 (82371AB/EB/MB) "PATA max UDMA/33": PIO4, MWDMA1-2, UDMA0-2;
  - the ICH's IDE function (ich_pata_66/100/133) "PATA max UDMA/66" .. "UDMA/133": not
    modelled; a PIIX4 stands in (the same driver and register layout, UDMA/33 at most).
The scenario's controller block gets `part: piix3` or `part: piix4` (scenarios/README.md,
controller.part); the devices of such a controller are parallel ATA drives.
"""

from __future__ import annotations

import re

# "PATA max MODE" of the port description, and the part whose port mask tops out there
_PATA_MAX = re.compile(r"^PATA max (?P<mode>\S+)")
PART_OF_MAX = {"MWDMA2": "piix3", "UDMA/33": "piix4"}


def pata_part(lines: list[tuple[int, float, str, str]]) -> tuple[str, str]:
    """The PIIX part of a log's PATA ports and a note ("LINE: why", "" if none) when the log's
    port mask is one no PIIX part has, from the first "PATA max" line; ("", "") if the log has
    none."""
    for no, _t, _addr, msg in lines:
        m = _PATA_MAX.match(msg)
        if not m:
            continue
        mode = m.group("mode")
        if mode in PART_OF_MAX:
            return PART_OF_MAX[mode], ""
        return "piix4", (f"{no}: 'PATA max {mode}': an IDE function satasim does not model (the ICH's, "
                         "UDMA/44 and up, or an older part); a PIIX4 stands in, UDMA/33 at most")
    return "", ""


def pata_controller_keys(lines: list[tuple[int, float, str, str]], takes_part: bool,
                         notes: list[str]) -> list[str]:
    """The controller keys of a log with PATA ports, for a controller row that takes `part`
    (the controller table's keys); a note for a port mask no part has. [] when the log has no
    PATA port or the row has no parts."""
    part, why = pata_part(lines)
    if not part or not takes_part:
        return []
    if why:
        notes.append(why)
    return [f"part: {part}"]
