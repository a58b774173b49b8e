"""Port multipliers in a kernel log (issue 31): the part a PMP's attach line names.

libata prints, when it attaches a PMP (libata-pmp.c sata_pmp_configure, unchanged since
2.6.24):
    ataN.15: Port Multiplier 1.1, 0x1095:0x3726 r23, 6 ports, feat 0x1/0x9
i.e. the spec revision, GSCR[0] vendor:device, the product revision, GSCR[2] ports, and the
features enabled / supported. The vendor:device pair names the part; the scenario's
`pmps[].product` is the model of that part (docs/hardware.md 7.6). A part the model does not
have keeps the default (a SiI3726) and the import says so."""

from __future__ import annotations

import re

# GSCR[0] vendor:device -> scenario product (model/pmp/port_multiplier.cpp product_config)
PRODUCTS = {
    (0x1095, 0x3726): "sii3726",
    (0x1095, 0x4726): "sii4726",
    (0x1095, 0x5744): "sii5744",
    (0x197B, 0x0325): "jmb394",
    (0x197B, 0x5755): "jmb575",
}

_ATTACH = re.compile(r"^Port Multiplier (\d\.\d|<unknown>), 0x([0-9a-fA-F]{4}):0x([0-9a-fA-F]{4}) r(\d+), "
                     r"(\d+) ports")


def pmp_ids(msg: str) -> tuple[int, int] | None:
    """(vendor, device) of an attach line, None for any other message."""
    m = _ATTACH.match(msg)
    return (int(m.group(2), 16), int(m.group(3), 16)) if m else None


def pmp_product(ids: tuple[int, int] | None) -> tuple[str, str]:
    """The scenario product for a PMP's (vendor, device), and a note when the model has no
    such part ("" when it has, or when the log never printed the attach line)."""
    if ids is None:
        return "", ""
    name = PRODUCTS.get(ids)
    if name:
        return name, ""
    return "", (f"PMP 0x{ids[0]:04x}:0x{ids[1]:04x} is not a modelled part: imported as a SiI3726 "
                "(docs/hardware.md 7.6)")
