"""A Marvell sata_mv host in a kernel log that names no driver (satasim import-dmesg, issue
31: dmesg corpus 03 and 17, Buffalo NAS boxes). satasim has no model of the Marvell EDMA
host, so such a log is imported onto the default controller (ahci) with a note naming the
line that gave the host away, rather than refused: the port multiplier behind it, the
devices, their modes and the EH runs' shape are still the log's (corpus 17: 8 of its 23
decision lines), while refusing would reproduce none of it and only take the log's lines out
of the corpus count. What differs is the host's own EH: sata_mv's error handler
(mv_pmp_error_handler, the EDMA error causes) and its SError/SControl values.

The evidence, each from sata_mv as the field logs print it:
  - "edma_err_cause=XXXXXXXX pp_flags=XXXXXXXX" in an exception's description (mv_err_intr);
  - "SControl F3x0" in a link line: sata_mv's ports read SControl with the SPM field (bits
    15:12) all ones, which no other host in the corpus does (log 03 "F310", log 17 "F300")."""

from __future__ import annotations

import re

from satasim.dmesg_parse import Report

_SCONTROL_F = re.compile(r"^SATA link (up|down) .*\(SStatus [0-9A-Fa-f]+ SControl F[0-9A-Fa-f]{3}\)")


def marvell_evidence(rep: Report) -> str:
    """"LINE: why" when the log's lines show a sata_mv host, "" otherwise."""
    for no, _t, _addr, msg in rep.lines:
        if msg.startswith("edma_err_cause="):
            return (f"{no}: 'edma_err_cause=' (sata_mv's error description) and no driver named: a Marvell "
                    "sata_mv host, which satasim does not model; ahci stands in (its EDMA error handling differs)")
        if _SCONTROL_F.match(msg):
            return (f"{no}: 'SControl F...' (a Marvell sata_mv port's SControl) and no driver named: a sata_mv "
                    "host, which satasim does not model; ahci stands in (its EH and SControl differ)")
    return ""
