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


def quiet_boot_configured(lines: list[tuple[int, float, str, str]]) -> int:
    """The line of a "configured for" that a boot probe printed after a softreset only, 0 if
    the log has none: a device identified ("ATA-N: ..." / "ATAPI") and configured with no
    link line (SATA link up/down), no reset and no exception of its port before it, and no
    "EH complete" of the port after it (a quiet probe has none). Only kernels that print the
    line after every mode setting do that: 2.6.2x ("ata_dev_printk(dev, KERN_INFO,
    \"configured for %s\\n\", ...)", unconditional; 3.x's ata_dev_info as well); 5.15 and 6.1
    print it only when the EH is not quiet or did a hardreset. satasim's libata-2006 profile
    prints it so; libata-4.x and libata-modern have 6.1's rule."""
    loud: set[int] = set()          # ports whose lines so far show a link, a reset or an error
    identified: set[str] = set()
    found = 0
    for no, _t, addr, msg in lines:
        m = re.match(r"^ata(\d+)", addr)
        if not m:
            continue
        port = int(m.group(1))
        if msg.startswith(("SATA link ", "hard resetting link", "soft resetting link", "exception ")):
            loud.add(port)
        elif re.match(r"^(ATA-\d+|ATAPI|CFA)", msg):
            identified.add(addr)
        elif msg.startswith("configured for ") and port not in loud and addr in identified and not found:
            found = no
        elif msg == "EH complete" and found:
            fport = int(re.match(r"^ata(\d+)", next(a for n, _, a, _ in lines if n == found)).group(1))
            if port == fport:
                return 0
    return found


_LINK_MSG = re.compile(r"^(hard resetting link|soft resetting link|SATA link (up|down) |SError: )")


def slave_link_line(lines: list[tuple[int, float, str, str]], pmp_ports) -> tuple[int, str]:
    """The first line that addresses a link line to a device of a port without a port
    multiplier ("ata5.00: hard resetting link", "ata2.01: SError: ...") and that line's
    "addr: message", (0, "") when the log has none: ata_piix on an ICH8 or later in IDE mode
    with its SIDPR registers gives each device position its own link and SCRs (libata's slave
    link: the master link prints as ataN.00, the slave's as ataN.01; dmesg corpus 14, 25)."""
    for no, _t, addr, msg in lines:
        m = re.match(r"^ata(\d+)\.(\d\d)$", addr)
        if m and int(m.group(1)) - 1 not in pmp_ports and _LINK_MSG.match(msg):
            return no, f"{addr}: {msg.split(' (')[0]}"
    return 0, ""


def slave_link_note(lines: list[tuple[int, float, str, str]], pmp_ports) -> str:
    """A note ("LINE: why") for a log with slave links (slave_link_line): the part is the
    ICH8 (part: ich8, SIDPR), whose stack gives device 1 a slave link. "" when it has none."""
    no, what = slave_link_line(lines, pmp_ports)
    if not no:
        return ""
    return (f"{no}: '{what}': a link per device (ata_piix's SIDPR SCRs, libata's slave link): "
            "the ICH8's SATA function, part: ich8")
