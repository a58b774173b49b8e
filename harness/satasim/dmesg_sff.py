"""PIO-only devices in a kernel log (satasim import-dmesg, issue 31): what a device's
"configured for PIOn" lines and its PIO commands say about its transfer modes and multiple
count, for logs whose controller is read from the log's own lines (an excerpt with no driver
line, dmesg corpus 56).

libata's block path picks the command from the device's state (libata-core.c
ata_rwcmd_protocol, unchanged from 2.6.2x to 6.x): a device in a PIO mode (ATA_DFLAG_PIO)
reads with READ MULTIPLE when dev->multi_count is set, else with READ SECTOR(S) (0x20, 0x24;
writes 0x30, 0x34). So a failed READ/WRITE SECTOR(S) in PIO says the device has no multiple
count (`multi: 0`). A device that is only ever "configured for PIOn" uses no DMA mode:
ata_do_set_mode gives it its best PIO mode when the DMA mask (the host's, the device's or
libata.dma) leaves it none. satasim has no IDE function without a bus master, so the run
gets the same result from the host's `dma: 0` (libata.dma, no message) and the device's
`pio: n`, with a note saying so."""

from __future__ import annotations

import re

from satasim.dmesg_parse import Report

# READ/WRITE SECTOR(S) (and EXT): the PIO commands of a device without a multiple count
SECTORS_CMDS = {0x20, 0x24, 0x30, 0x34}
_PIO = re.compile(r"^configured for PIO(\d)")


def pio_mode(rep: Report, key: tuple[int, int]) -> int | None:
    """n when every "configured for" line of the device (port, dev) says PIOn (the last
    one's n), None when it has none or any names a DMA mode."""
    port, dev = key
    addr = f"ata{port + 1}.{dev:02d}"
    modes = [msg for _, _, a, msg in rep.lines if a == addr and msg.startswith("configured for ")]
    if not modes or not all(_PIO.match(m) for m in modes):
        return None
    return min(int(_PIO.match(modes[-1]).group(1)), 4)


def no_multiple(rep: Report, key: tuple[int, int]) -> int:
    """The line of a failed PIO READ/WRITE SECTOR(S) of the device (its multiple count is 0),
    0 if it has none."""
    port, dev = key
    for e in rep.exceptions:
        if (e.port, e.dev or 0) != key:
            continue
        for c in e.commands:
            if c.prot == "pio" and c.opcode in SECTORS_CMDS:
                return c.line
    return 0


def pio_only_keys(rep: Report, disks, notes: list[str]) -> tuple[bool, dict[tuple[int, int], tuple[int | None, bool]]]:
    """(the host needs `dma: 0`, per device (its PIO mode or None, no multiple count)), with a
    note for each; nothing for a log whose devices use DMA and READ MULTIPLE."""
    extra: dict[tuple[int, int], tuple[int | None, bool]] = {}
    no_dma = False
    for key in disks:
        n = pio_mode(rep, key)
        line = no_multiple(rep, key)
        if line:
            notes.append(f"{line}: a PIO READ/WRITE SECTOR(S): the device has no multiple count (multi: 0)")
        if n is not None or line:
            no_dma = no_dma or n is not None
            extra[key] = (n, bool(line))
    if no_dma:
        first = next(no for no, _, _, msg in rep.lines if _PIO.match(msg))
        notes.append(f"{first}: 'configured for PIO': the device uses no DMA mode; host dma: 0 (libata.dma) "
                     "stands in for a controller or device without one")
    return no_dma, extra
