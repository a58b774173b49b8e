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


# The parts' own enclosure management bridge (SEMB, the "config port"): (vendor, device) ->
# (its fan-out port, the port count GSCR[2] reports with it). libata resets that link like
# any other and attaches nothing there (sata_pmp_quirks: ATA_LFLAG_NO_SRST |
# ATA_LFLAG_ASSUME_SEMB); the model has it inside the part (PmpConfig::semb_port).
CONFIG_PORTS = {
    (0x1095, 0x3726): (5, 6),
    (0x1095, 0x4726): (6, 7),
}
DEFAULT_PART = (0x1095, 0x3726)     # what a scenario's pmps[] entry without a product is


def config_port(ids: tuple[int, int] | None) -> tuple[int, int] | None:
    """(the config port, the part's port count with it) of the part a log's PMP is imported
    as (pmp_product: the default part when the excerpt has no attach line or names a part
    the model does not have), None for a part without one."""
    return CONFIG_PORTS.get(ids if ids in PRODUCTS else DEFAULT_PART)


# libata-pmp's sata_pmp_scr_read failure: "ataN.PP: failed to read SCR R (Emask=0xM)". Emask
# 0x1 (AC_ERR_DEV) is the PMP's own answer: its control port aborted the read; 0x40
# (AC_ERR_SYSTEM) is a read refused on a frozen port, 0x4 one that timed out.
_SCR_ABORTED = re.compile(r"^failed to read SCR (\d+) \(Emask=0x1\)$")


def reg_abort_faults(lines: list[tuple[int, float, str, str]], pmps) -> list[tuple[int, int, int, int]]:
    """(first line, host port, fan-out port, register) of each PSCR read a PMP aborted: one
    unit's broken register (dmesg corpus 51: the SiI3726's config port 5 fails its SError read
    in every recovery), the scenario's pmp_reg_abort fault, armed from power-on."""
    out: dict[tuple[int, int, int], int] = {}
    for no, _t, addr, msg in lines:
        m = re.match(r"^ata(\d+)\.(\d+)$", addr)
        r = _SCR_ABORTED.match(msg)
        if m and r and int(m.group(1)) - 1 in pmps and int(m.group(2)) < 15:
            out.setdefault((int(m.group(1)) - 1, int(m.group(2)), int(r.group(1))), no)
    return [(no, p, d, reg) for (p, d, reg), no in out.items()]


# lines that end an EH run's report block: the recovery has begun (or the run is over)
_RUN_STEP = re.compile(r"^(hard resetting link|soft resetting link|SATA link (up|down)|configured for |EH complete|"
                       r"controller in dubious state)")


def same_run_issue_times(lines: list[tuple[int, float, str, str]], exceptions, issue: dict[int, float]) -> dict[int, float]:
    """The issue time of each exception's commands (`issue`: exception line -> time), with the
    exceptions one EH run reports together moved to the run's earliest: libata reports a
    port's links one after the other (ata_eh_report, one ata_eh_link_report per link: behind a
    PMP each fan-out link's exception is a block of its own, printed milliseconds apart), but
    their commands failed together, in flight at the same time; spacing them as the lines are
    spaced would have the run meet them one by one (the SiI3124's PMP DMA CS errata of
    dmesg corpus 52 needs three busy links at the error). A run's blocks are the exceptions of
    one host port with no reset, link, "configured for" or "EH complete" line of that port
    between them."""
    out = dict(issue)
    step_lines: dict[int, list[int]] = {}
    for no, _t, addr, msg in lines:
        if _RUN_STEP.match(msg) and (m := re.match(r"^ata(\d+)", addr)):
            step_lines.setdefault(int(m.group(1)) - 1, []).append(no)
    prev: dict[int, object] = {}        # host port -> the previous exception of its run
    first: dict[int, float] = {}        # host port -> the run's earliest issue time
    for e in exceptions:
        p = prev.get(e.port)
        if p is not None and not any(p.line < no < e.line for no in step_lines.get(e.port, ())):
            first[e.port] = min(first[e.port], issue[e.line])
        else:
            first[e.port] = issue[e.line]
        prev[e.port] = e
        out[e.line] = first[e.port]
    # the run's earlier blocks go out with its later ones when a later one's time is earlier
    # (a timed-out command's issue is one timeout before its report)
    for e in exceptions:
        out[e.line] = min(out[x.line] for x in exceptions if x.port == e.port and _same_run(x, e, step_lines))
    return out


def _same_run(a, b, step_lines) -> bool:
    lo, hi = sorted((a.line, b.line))
    return not any(lo < no < hi for no in step_lines.get(a.port, ()))


def idle_link_reports(rep) -> list[int]:
    """The lines of exceptions reported for a PMP's links with no failed command (an idle
    fan-out link's "ata1.03: exception Emask 0x100 ... frozen", the PMP's own ataN.15):
    kernels before 6.1 report every link of a frozen port; 6.1's ata_eh_link_autopsy makes a
    link with no failed command quiet ("if (nr_quiet == nr_failed) ehc->i.flags |=
    ATA_EHI_QUIET;"). Wording evidence for the libata-4.x profile (dmesg corpus 52, 2.6.35)."""
    return [e.line for e in rep.exceptions
            if e.port in rep.pmps and e.dev is not None and not e.commands]


def order_by_tag(work: list[str], keys: list[tuple[float | None, int | None]]) -> list[str]:
    """The workload lines with each run of consecutive requests issued at the same instant
    (`keys`: per line its issue time and the log's tag of its command, None for either when
    not known) put in the order of their tags. Requests that carry no `tag:` key get the
    lowest free tag in the order they are issued, as libata's ata_qc_new allocated them
    before 3.13 (the lowest free bit of qc_allocated); the commands one EH run reports on
    several PMP links (dmesg corpus 52: ata1.02's tag 0, ata1.00's 1, ata1.01's 2) then
    carry the log's tags."""
    out = list(work)
    i = 0
    while i < len(out):
        j = i
        while j + 1 < len(out) and keys[j + 1][0] is not None and keys[j + 1][0] == keys[i][0]:
            j += 1
        group = list(range(i, j + 1))
        if len(group) > 1 and all(keys[k][1] is not None and "tag:" not in work[k] for k in group):
            for k, src in zip(group, sorted(group, key=lambda g: keys[g][1])):
                out[k] = work[src]
        i = j + 1
    return out
