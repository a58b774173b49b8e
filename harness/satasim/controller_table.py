"""The simulator's controller descriptor table (harness/src/controller/controller_table.cpp), as
`satasim controllers --json` writes it to controller_table.json (test_controllers checks the copy
is current). The Python tools take every per-controller fact from here, so none of them compares
a controller's name: limits (max_ports, ncq, max_gen, ...), how a kernel log names the
controller (kernel_driver, log_port_desc, log_irq_stat_words, stands_in), what the importer
reads in the log (log_host_line, tagged_non_ncq, devno1_keys) and how a scenario written for
the reference controller is adapted for it (reference, adapt_keeps, adapt_log).

CLI (PYTHONPATH=harness; tools/run_suite.sh uses it):
  python3 -m satasim.controller_table reference      the controller the suites are written for
  python3 -m satasim.controller_table adapt-targets  the others a SystemC suite is adapted for
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_DOC = json.loads(Path(__file__).with_name("controller_table.json").read_text(encoding="utf-8"))

ROWS: list[dict] = _DOC["controllers"]
TABLE: dict[str, dict] = {r["name"]: r for r in ROWS}
DEFAULT: str = _DOC["default"]             # controller.type when a scenario names none
REFERENCE: str = next(r["name"] for r in ROWS if r["reference"])   # the suites' controller

# The Linux drivers of the rows, as the log prints them, and the words that make a driver
# name a row's platform glue (ahci_sunxi, ahci-mvebu, imx_ahci are ahci).
KERNEL_DRIVERS: list[str] = [r["kernel_driver"] for r in ROWS]
GLUE_MATCHES: list[str] = [r["kernel_glue_match"] for r in ROWS if r["kernel_glue_match"]]

# A port whose description names a taskfile (SFF) interface that several rows share: the
# log's driver decides which (dmesg_parse's port_driver value for it).
SFF = "sff"


def by_kernel_driver(drv: str) -> dict | None:
    """The row whose Linux driver the log names (None: no model of it)."""
    return next((r for r in ROWS if drv and r["kernel_driver"] == drv), None)


def kernel_driver_of(name: str) -> str:
    """The driver a name in the log stands for: a row's platform glue (ahci_sunxi, ahci-mvebu)
    is its LLD; any other name is itself."""
    for r in ROWS:
        if r["kernel_glue_match"] and r["kernel_glue_match"] in name:
            return r["kernel_driver"]
    return name


def port_desc_driver(msg: str) -> str | None:
    """The driver a port description line ("SATA max ...") names: a row's words; several
    rows' (a taskfile port: cmd/ctl/bmdma) -> SFF; None if none."""
    hits = {r["kernel_driver"] for r in ROWS if r["log_port_desc"] and re.search(r["log_port_desc"], msg)}
    if len(hits) == 1:
        return hits.pop()
    return SFF if hits else None


def stand_in(role: str, driver: str = "") -> tuple[str, str]:
    """(controller, note) of the row standing in for `role` (ControllerDesc::ToolFacts)."""
    for r in ROWS:
        if role in r["stands_in"]:
            return r["name"], r["stands_in"][role].replace("{driver}", driver)
    raise KeyError(f"no controller stands in for {role!r}")


def adapt_targets() -> list[str]:
    """The controllers other than the reference that run SystemC scenarios, in table order."""
    return [r["name"] for r in ROWS if not r["reference"] and "systemc" in r["backends"]]


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["reference"]:
        print(REFERENCE)
    elif args == ["adapt-targets"]:
        print(" ".join(adapt_targets()))
    else:
        print("usage: python3 -m satasim.controller_table reference|adapt-targets", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
