"""satasim import-dmesg: a field report's libata log -> a scenario that reproduces it, plus the
report's decision lines as the expected sequence; and the diff of a run against them.

  python3 -m satasim.import_dmesg REPORT.txt -o scenario.yaml   (also: satasim import-dmesg)
      writes scenario.yaml and scenario.expected (the report's EH decision lines, libata
      wording: link up/down, configured for, exception, failed command, cmd, res, status,
      error, resets, speed limits, NCQ off, EH complete, disabled)
  python3 -m satasim.import_dmesg diff scenario.expected OUT_DIR/<name>
      aligns the run's satasim.log with the expected lines; prints a unified diff and
      "matched N of M report decision lines"; exit 0 when all match, 1 otherwise

What the scenario holds (each inferred from the report's lines):
  controller   ahci, ports and slots from the `AHCI ... slots ... ports` line (else the
               highest ataN), link generation from its Gbps
  devices      every port whose link came up at boot: model, firmware, ATA major, sectors,
               multi, NCQ depth, highest UDMA, the drive's link generation (its first link up)
  host.force   from `FORCE:` lines (PHY spd limit, horkage noncq, xfer_mask)
               and a host link's first link line with SControl SPD set (a limit from before
               the excerpt: `N:1.5Gbps` / `N:3.0Gbps`)
  faults       per exception: UNC/IDNF -> media_error at the res LBA; ABRT on a flush ->
               media_error abrt (DF status: write_fault); timeout -> hang on that command;
               ATA bus error (ICRC) -> crc on that command class (SError 10B8B / Dispar:
               with symbol code / disparity); a link exception with
               PHYRdyChg/DevExch followed by `SATA link down` -> unplug at that time
  workload     the commands that hit them: per failed command a request of its op, LBA,
               sectors and protocol (ncq / dma), one after another per port (barrier); an
               NCQ command keeps its tag, and the other tags of the exception's SAct are
               reads issued with it, so the run has the report's queue depth and tags
The expected lines are the decision subset of the report, compared by address and message.
A malformed libata line stops the import with file:line (exit 2), nothing written. Outputs:
a new or a regular file each (never a device node, FIFO or folder), both written or neither,
with the usual mode (0666 less the umask)."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import re
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from satasim.controller_table import SFF, TABLE, ROWS, by_kernel_driver, stand_in
from satasim.dmesg_parse import Command, DmesgError, Report, parse, printable
from satasim.dmesg_atapi import atapi_devices, atapi_scenario_parts
from satasim.dmesg_noise import N as _N, PHY_EVENT as _PHY_EVENT, W as _W, X as _X, noise_bits, noise_key, noise_list
from satasim.dmesg_pata import pata_controller_keys, quiet_boot_configured, slave_link_line, slave_link_note
from satasim.dmesg_mv import marvell_evidence
from satasim.dmesg_pmp import (config_port, idle_link_reports, order_by_tag, pmp_product, reg_abort_faults,
                                same_run_issue_times)
from satasim.dmesg_rtf import d2h_regs, leftover_steps, ncq_log_count
from satasim.dmesg_sff import pio_only_keys

# The report lines that are EH/probe decisions (satasim's `decision` events print them).
DECISION = re.compile(
    r"^(SATA link (up|down) |configured for |exception Emask |failed command: |cmd [0-9a-f]{2}/|"
    r"res [0-9a-f]{2}/|status: \{|error: \{|hard resetting link|soft resetting link|"
    r"limiting SATA link speed|limiting speed to |NCQ disabled due to excessive errors|EH complete|"
    r"disabled$|disable device$|detaching \(SCSI|COMRESET failed|reset failed|SError: \{|irq_stat )")

# how long after an interface error's request a drive that then stops answering hangs:
# inside EH's first COMRESET (the exception follows the request by milliseconds)
HANG_AFTER_CRC_S = 0.05

# PxIS bits of an ahci "irq_stat 0x..." description (AHCI 1.3.1 3.3.5)
_IRQ_HBDS, _IRQ_HBFS = 1 << 28, 1 << 29

READS = {0x60, 0x25, 0xc8, 0x24, 0x29, 0xc4, 0x20}
WRITES = {0x61, 0x35, 0xca, 0x34, 0x39, 0xc5, 0x30, 0x3d}
FLUSHES = {0xe7, 0xea}
# non-data commands a user sends through the SCSI layer's ATA pass-through (hdparm): SET
# FEATURES, IDLE/STANDBY (IMMEDIATE), CHECK POWER MODE, SLEEP
USER_NODATA = {0xef, 0xe0, 0xe1, 0xe2, 0xe3, 0xe5, 0xe6}


def expected_lines(rep: Report, portmap: dict[int, int] | None = None) -> list[str]:
    """The report's decision lines, `ataN[.DD]: message`, with the log's port numbers moved
    to the scenario's (`portmap`: log port -> controller port, both 0-based)."""
    out = []
    for _, _, addr, msg in rep.lines:
        if not DECISION.match(msg):
            continue
        if portmap:
            m = re.match(r"^ata(\d+)(.*)$", addr)
            addr = f"ata{portmap.get(int(m.group(1)) - 1, int(m.group(1)) - 1) + 1}{m.group(2)}"
        out.append(f"{addr}: {msg}")
    return out


def _op(c) -> str:
    if c.opcode in FLUSHES:
        return "flush"
    if c.opcode in WRITES or c.write:
        return "write"
    return "read"


def _symbol(serr: int) -> str:
    """The crc fault's `symbol` from the exception's SError: the host's decoder flagged the
    corrupted dword too (DIAG.B 10B8B: a code error; DIAG.D Dispar: a disparity error)."""
    if serr & (1 << 19):
        return "symbol: code, "
    if serr & (1 << 20):
        return "symbol: disparity, "
    return ""


def _ms(t: float) -> str:
    return f"{max(1, round(t * 1000))}ms"


# a cominit fault's noise: its COMINIT is the kind's own; the rest of the line's noise and
# CommWake, which a connector's bouncing contacts send too (dmesg corpus 42)
_COMINIT_NOISE = ("decode", "internal", "comwake")
# what a request may wait before it is issued: libata's speed-down windows are 5 and 10
# minutes, so a longer quiet time between two errors of a report changes nothing
MAX_GAP_S = 20 * 60
DEFAULT_TIMEOUT_S = 30
ATA_EH_DEV_TRIES = 3  # libata's tries per device in one EH recovery, the last one disables it
SCSI_TRIES = 6       # the first try and the SCSI layer's 5 retries (the stack's max_retries)


def _controller(rep: Report) -> tuple[str, str]:
    """The controller model for the report's driver (a note when it is a stand-in): the
    driver of the ports the report is about (their SCSI hosts, their port description
    lines), else the one a host line names. Which row stands in for what, and the wording
    that names a controller, are the controller table's (kernel_driver, stands_in,
    log_irq_stat_words)."""
    active = {p for p, _ in rep.disks} | {e.port for e in rep.exceptions}
    named = {rep.port_driver[p] for p in active if p in rep.port_driver}
    drv = named.pop() if len(named) == 1 else rep.driver
    if drv == "pata" and by_kernel_driver(rep.driver):
        drv = rep.driver        # "ataN: PATA max ..." ports of the driver the log names (ata_piix)
    if drv == SFF:
        row = by_kernel_driver(rep.driver)
        if not (row and row["taskfile"]):
            return stand_in("taskfile")
        drv = rep.driver
    desc = " ".join(d for e in rep.exceptions for d in e.desc)
    texts = " ".join(m for _, _, _, m in rep.lines)
    if row := by_kernel_driver(drv):
        if rep.pata and "pata_own" in row["stands_in"]:
            return row["name"], row["stands_in"]["pata_own"]
        return row["name"], ""
    if drv.startswith("pata_") or drv == "ata_generic" or rep.pata:
        return stand_in("pata", drv or "a PATA driver")
    if drv:
        return stand_in("unknown_driver", drv)
    # no driver named: what the log's own lines say (a controller's own irq_stat wording,
    # then libata-sff's)
    for row in ROWS:
        if any(w in desc for w in row["log_irq_stat_words"]):
            return row["name"], row["stands_in"]["log_wording"]
    if "BMDMA stat" in desc or "to clear DRQ" in texts or "lost interrupt" in texts:
        return stand_in("taskfile_log")
    if any(d.dev == 1 and rep.pmps.get(d.port) is None for d in rep.disks.values()):
        return stand_in("slave")
    if "soft resetting link" in texts and "SATA link" not in texts and "hard resetting link" not in texts:
        return stand_in("no_scr")
    return stand_in("default")[0], marvell_evidence(rep)


@dataclass
class _Fault:
    spec: dict
    fired: int = 1          # exceptions of the report it explains
    key: tuple = ()
    extra: list = field(default_factory=list)   # faults that fire with it (bumped alike)


def build_scenario(rep: Report, name: str) -> tuple[str, list[str], dict[int, int]]:
    """The scenario text, notes on what could not be expressed (each "LINE: why"), and the
    map from the log's ports to the scenario's (0-based)."""
    notes: list[str] = list(rep.notes)
    src = printable(os.path.basename(rep.file))   # a file name may hold a newline
    ctype, why = _controller(rep)
    if why:
        notes.append(why if re.match(r"^\d+: ", why) else f"1: {why}")   # a note that names its line keeps it
    row = TABLE[ctype]
    hw_ports = row["max_ports"]
    # the log's host line gives the controller's ports, slots, link speed and staggered spin-up
    host_line = row["log_host_line"]
    log_ports = sorted({int(re.match(r"ata(\d+)", a).group(1)) - 1 for _, _, a, _ in rep.lines})
    base = 0
    if log_ports and (log_ports[-1] >= hw_ports or (host_line and rep.ports and
                                                   log_ports[-1] >= rep.ports and rep.ports < log_ports[-1] + 1)):
        # a taskfile controller's channels come in pairs (primary, secondary)
        base = log_ports[0] - (log_ports[0] % 2 if row["taskfile"] else 0)
    portmap = {p: p - base for p in log_ports}
    if base:
        notes.append(f"1: the log's ata{base + 1} is the controller's first port: its lines are "
                     f"compared as ata{1}")
    nports = max(1, (log_ports[-1] - base + 1) if log_ports else 1)
    if host_line and rep.ports and not base:
        nports = max(nports, rep.ports)
    nports = min(nports, hw_ports)
    ctl = [f"type: {ctype}", f"ports: {nports}"]
    if host_line:
        ctl.append(f"slots: {rep.slots}")
        ctl.append(f"gen: {rep.gen}")
        if rep.sss:
            ctl.append("staggered_spinup: true")
    lpm_line = _lpm_evidence(rep) if "lpm" in row["keys"] else 0
    if lpm_line:
        # the HBA takes the drive's and its own Partial/Slumber requests (CAP.SALP/PSC/SSC)
        ctl.append("lpm: true")
        notes.append(f"{lpm_line}: SError's PHYRdyChg/DevExch with no hotplug in the action: the link runs "
                     "LPM (libata ignores PHY events above max_performance): host.lpm_policy "
                     "med_power_with_dipm, drives with HIPM and DIPM")
    if row["devno1_keys"] and any(k[1] == 1 and k[0] not in rep.pmps for k in rep.disks):
        ctl.append(row["devno1_keys"])
    if row["taskfile"] and (why := slave_link_note(rep.lines, rep.pmps)):
        notes.append(why)
        if "part" in row["keys"]:
            ctl.append("part: ich8")
    if pata := pata_controller_keys(rep.lines, "part" in row["keys"], notes):
        # PIIX3/PIIX4 parallel ATA: master and slave on each cable, no port map
        ctl = [k for k in ctl if k != row["devno1_keys"]] + pata
    out = [f"# imported by satasim import-dmesg from {src}",
           f"name: {name}",
           f"description: >-\n  Reproduces the libata log {src}: "
           f"{len(rep.exceptions)} exception(s) on {len(rep.disks)} device(s).",
           "seed: 1"]
    limit_line = len(out)
    out.append(f"controller: {{{', '.join(ctl)}}}")
    # disks: every device address the log names (an excerpt often starts after the boot probe)
    disks = {}
    semb: dict[int, int] = {}       # host port -> the PMP's port count with its config port
    atapi = atapi_devices(rep)      # ATAPI drives: devices[].atapi and scsi steps (dmesg_atapi)
    for (port, dev), d in sorted(rep.disks.items()):
        if port not in portmap or dev == 15:
            continue
        if not (d.evidence or d.link_up or (d.port_link_up and port not in rep.pmps)):
            continue        # an empty connector: its link was only reset or went down
        if (port, dev) in atapi:
            continue
        pmp = port in rep.pmps
        if pmp and (cfg := config_port(rep.pmp_ids.get(port, (0, None))[1])) and dev == cfg[0] \
                and not (d.identified or d.configured or d.max_lba):
            # the part's own bridge (dmesg_pmp.config_port), not a disk: its link is reset and
            # reported (even an idle link's exception, 52), no drive was identified there
            semb[port] = cfg[1]
            continue
        if dev and not pmp and not (row["devno1_keys"] and dev == 1):
            notes.append(f"1: ata{port + 1}.{dev:02d}: a device {dev} on a port without a port "
                         "multiplier is not modelled")
            continue
        disks[(port, dev)] = d
    force = _force(rep, ctype, portmap, notes)
    force = ",".join(x for x in [force] + _earlier_spd_limits(rep, portmap, force, notes) if x)
    host = []
    no_dma, pio_only = pio_only_keys(rep, disks, notes)
    if no_dma:
        host.append("dma: 0")
    policy, why = _policy(rep)
    if policy:
        host.append(f"eh_policy: {policy}")
        notes.append(why)
    if force:
        host.append(f"force: {yaml_str(force)}")
    if lpm_line:
        host.append("lpm_policy: med_power_with_dipm")
    spd_rule, spd_no, spd_why = _spd_down_unknown(rep)
    if spd_rule and spd_rule != _SPD_DOWN_UNKNOWN_OF.get(policy, "step"):
        host.append(f"spd_down_unknown: {spd_rule}")
        notes.append(f"{spd_no}: {spd_why}: host.spd_down_unknown: {spd_rule}")
    if host:
        out.append(f"host: {{{', '.join(host)}}}")
    pmps = sorted({p for p, _ in disks if p in rep.pmps})
    if pmps:
        out.append("pmps:")
        for p in pmps:
            fan = max([rep.pmps[p], semb.get(p, 0)] + [dev + 1 for q, dev in disks if q == p])
            out.append(f"  - {{port: {portmap[p]}, ports: {min(max(fan, 1), 15)}{_pmp_part(rep, p, notes)}}}")
    atapi_devs, atapi_work, atapi_faults = atapi_scenario_parts(rep, atapi, portmap, notes)
    # the plan (faults and requests) is the disks': an ATAPI drive's exceptions are its steps
    plan = _Plan(dataclasses.replace(rep, exceptions=[e for e in rep.exceptions if (e.port, e.dev) not in atapi])
                 if atapi else rep, disks, portmap, ctype, notes)
    plan.run()
    plan.work.extend(atapi_work)
    for no, port in earlier_probes(rep):
        if port in portmap:
            # two probes of its links before the report's, within the minute: user scans
            # (libata's ata_scsi_user_scan asks a probe of every link of the port)
            plan.work[:0] = [f"  - {{kind: scan, port: {portmap[port]}, barrier: true}}"] * 2
            notes.append(f"{no}: ata{port + 1}'s empty fan-out links limited to 1.5 Gbps at the PMP's probe: "
                         "the third probe within a minute (libata's probe trials); the two before the "
                         "excerpt are user scans")
    for no, t, port in user_scans(rep):
        if port not in portmap or port in rep.pmps:
            # a PMP the scan found is attached by the scenario's boot probe instead
            continue
        at = plan.sim(t) if plan.timed else None
        plan.work.append(f"  - {{kind: scan, port: {portmap[port]}" +
                         (f", delay: {_ms(at)}}}" if at is not None else ", barrier: true}"))
        plan.clock = max(plan.clock, (at or plan.clock) + 60)
        notes.append(f"{no}: ata{port + 1}: an EH run with no exception, one reset and 'EH complete': "
                     "a user scan (kind: scan)")
    # the commands whose results the report's res lines still show in their slots (dmesg_rtf)
    rtf_steps, smart = leftover_steps(rep, disks, plan.where, plan.work, [f.spec for f in plan.faults], notes)
    plan.work[:0] = rtf_steps
    for _no, p, d, reg in reg_abort_faults(rep.lines, rep.pmps):
        if p in pmps:       # a PMP register read the part itself aborts: armed from power-on
            plan.faults.append(_Fault({"kind": "pmp_reg_abort", "port": str(portmap[p]), "pscr_port": str(d),
                                       "reg": str(reg), "at": "1ms", "from_power_on": "true"}))
    out.append("devices:" if disks or plan.empty or atapi_devs else "devices: []")
    out.extend(atapi_devs)
    for (port, dev), d in disks.items():
        where = f"port: {portmap[port]}" + (f", pmp_port: {dev}" if port in rep.pmps else
                                             ", devno: 1" if dev == 1 else "")
        cap = max(d.sectors or 1953525168, d.max_lba)
        if not d.identified and d.max_lba < (1 << 28) and any(
                c.opcode == 0xe7 for e in rep.exceptions if (e.port, e.dev) == (port, dev) for c in e.commands):
            # libata flushes with FLUSH CACHE EXT only from 2^28 sectors on (ATA_DFLAG_FLUSH_EXT)
            cap = (1 << 28) - 1
        if not d.lba48 and cap > (1 << 28) - 1:
            d.lba48 = True
        ncq = d.ncq if d.identified else plan.ncq.get((port, dev), False) or row["ncq"] == "always"
        gen = f", gen: {d.gen}" if d.gen and d.gen < rep.gen and host_line else ""
        if not d.identified and (u := re.match(r"UDMA/(\d+)", d.configured)):
            # the mode it was first configured for: the highest its cable and it allow
            d.max_udma = {"16": 0, "25": 1, "33": 2, "44": 3, "66": 4, "100": 5, "133": 6}.get(u.group(1), 6)
        ident = (f", model: {yaml_str(d.model[:40])}, firmware: {yaml_str(d.firmware[:8])}" if d.identified else "")
        # a disk that appears is read (its partition table) before anything else: the first
        # verified transfer, which libata's speed-down rules count on
        attach = ", attach_read: true" if (port, dev) not in plan.no_attach else ""
        dsc = ", status_dsc: false" if plan.status_dsc((port, dev)) is False else ""
        pio, single = pio_only.get((port, dev), (None, False))
        if single:
            d.multi = 0
        if pio is not None:
            dsc += f", pio: {pio}"
        if (port, dev) in smart:
            dsc += ", smart: good"
        if (nlc := ncq_log_count(rep, (port, dev))) and ncq:
            dsc += f", ncq_log_count: {nlc}"
        if dr := d2h_regs(rep, (port, dev)):
            dsc += f", d2h_regs: {dr}"

        if lpm_line:
            dsc += ", hipm: true, dipm: true"
        out.append(f"  - {{{where}{ident}, capacity: {cap}, ata_major: {min(max(d.ata_major, 1), 14)}, "
                   f"multi: {d.multi if d.multi in (0, 1, 2, 4, 8, 16, 32, 64, 128) else 16}, "
                   f"lba48: {str(d.lba48).lower()}, ncq: {str(ncq and row['ncq'] != 'never').lower()}, "
                   f"ncq_depth: {min(max(d.ncq_depth, 1), 32)}, udma: {min(d.max_udma, 6)}{gen}{attach}{dsc}, "
                   f"timing: {{kind: ssd}}}}")
    for port in sorted(plan.empty):
        # a connector with no drive: the cominit fault's port (the drive never appears)
        out.append(f"  - {{port: {portmap[port]}, present: false, capacity: 1953525168, "
                   f"timing: {{kind: ssd}}}}")
    out.append("workload:" if plan.work else "workload: []")
    out.extend(plan.work)
    out.append("faults:" if plan.faults or atapi_faults else "faults: []")
    for f in plan.faults:
        out.append("  - {" + ", ".join(v if k == "_w" else f"{k}: {v}" for k, v in f.spec.items()) + "}")
    out.extend(atapi_faults)
    out.append("expect:")
    out.append("  all_devices_found: false")
    out.append(f"  io_errors_max: {max(len(rep.io_errors), plan.n_requests)}")
    gone = sorted(plan.gone)
    out.append("  absent_after: [" + ", ".join(
        f"{{port: {portmap[p]}, pmp_port: {d}}}" if p in rep.pmps else
        (f"{{port: {portmap[p]}, devno: 1}}" if d == 1 else str(portmap[p])) for p, d in gone) + "]")
    out.insert(limit_line, f"time_limit: {max(900, int(plan.clock) + 900)}s")
    return "\n".join(out) + "\n", notes, portmap


def _lpm_evidence(rep: Report) -> int:
    """The line of an exception that shows link power management at work, else 0. libata's
    autopsy takes SError.N (PHYRdyChg) or .X (DevExch) on a host link as a hotplug (action
    gains ATA_EH_ENABLE_LINK, 0x8) unless the link's LPM policy is above max_performance
    ("hotplug doesn't work w/ LPM", ata_eh_analyze_serror, 4.x-6.x); ahci then masks the
    PhyRdy interrupt too (ahci_set_lpm), so a command times out with the wake-ups' PHYRdyChg
    and CommWake latched in SError and no "PHY RDY changed" (dmesg-corpus 12, TLP's LPM
    setting; 35, 6.11's med_power_with_dipm default). A policy the log does not name:
    med_power_with_dipm, the distributions' and TLP's default."""
    for e in rep.exceptions:
        if e.serr & 0x04010000 and not e.action & 0x8 and not any("PHY RDY" in d or "connection status" in d
                                                                  for d in e.desc):
            return e.line
    return 0


def _pmp_part(rep: Report, port: int, notes: list[str]) -> str:
    """`, product: X` for the PMP part the log's attach line names (dmesg_pmp)."""
    line, ids = rep.pmp_ids.get(port, (0, None))
    name, why = pmp_product(ids)
    if why:
        notes.append(f"{line}: {why}")
    return f", product: {name}" if name else ""


def user_scans(rep: Report) -> list[tuple[int, float, int]]:
    """The report's user scans (`echo "- - -" > /sys/class/scsi_host/hostN/scan`), each as
    (line, time, 0-based port): an EH run of a host link that no exception opens and that
    resets the link once, sees it up or down and ends with "ataN: EH complete". libata's
    ata_scsi_user_scan only asks for a reset and a probe (ATA_EH_RESET, probe_mask), so the
    run has no failed command; kernels before the autopsy's "if (nr_quiet == nr_failed)
    ehc->i.flags |= ATA_EHI_QUIET;" (not in 4.0's ata_eh_link_autopsy; 6.1 has it) print its
    reset and "EH complete", 6.1 prints nothing (dmesg corpus 21: a 2.6.3x scan of the empty
    ports ata2 and ata5). A run with more than one reset is a recovery whose exception the
    excerpt cut off (16), not a scan."""
    exc = {e.line for e in rep.exceptions}
    out: list[tuple[int, float, int]] = []
    run: dict[int, list] = {}       # port -> [first reset line, time, resets, link seen] of an open run
    busy: set[int] = set()          # ports in a run an exception opened
    for no, t, addr, msg in rep.lines:
        m = re.match(r"^ata(\d+)(\.\d+)?$", addr)
        if not m:
            continue
        port, host = int(m.group(1)) - 1, m.group(2) is None
        if no in exc:
            busy.add(port)
            run.pop(port, None)
        elif host and msg == "EH complete":
            if (r := run.pop(port, None)) and r[2] == 1 and r[3]:
                out.append((r[0], r[1], port))
            busy.discard(port)
        elif host and re.match(r"^(hard|soft) resetting link$", msg) and port not in busy:
            run.setdefault(port, [no, t, 0, False])[2] += 1
        elif host and msg.startswith("SATA link ") and port in run:
            run[port][3] = True
    return out


def earlier_probes(rep: Report) -> list[tuple[int, int]]:
    """The PMP ports whose fan-out links the report shows limited to 1.5 Gbps before they
    were ever reset, with no exception on the port before, each as (line, 0-based port):
    libata's probe trials (ata_eh_schedule_probe: each probe of a link with no device is
    recorded on its ering, which an attach clears, and "if (trials > ATA_EH_PROBE_TRIALS)
    sata_down_spd_limit(link, 1)") -- the probe the report shows is at least the third of
    those links within ATA_EH_PROBE_TRIAL_INTERVAL (a minute). The earlier two are before
    the excerpt (dmesg corpus 07: four empty links of a JMB394 limited right after its
    attach line, at 2676 s of uptime)."""
    exc = {e.port: e.line for e in reversed(rep.exceptions)}     # port -> its first exception
    seen: set[str] = set()
    out: dict[int, int] = {}
    for no, _t, addr, msg in rep.lines:
        m = re.match(r"^ata(\d+)\.(\d\d)$", addr)
        if m and int(m.group(2)) != 15 and addr not in seen and (port := int(m.group(1)) - 1) in rep.pmps \
                and msg == "limiting SATA link speed to 1.5 Gbps" and no < exc.get(port, 1 << 30):
            out.setdefault(port, no)
        seen.add(addr)
    return [(no, port) for port, no in sorted(out.items())]


# the EH profiles' rule for a speed-down on a link of unknown speed (stack/eh/policy; satasim/ata.h)
_SPD_DOWN_UNKNOWN_OF = {"libata-2006": "lowest", "libata-2.6.20": "lowest", "libata-4.x": "lowest",
                        "libata-4.9": "keep", "": "step"}


def _spd_down_unknown(rep: Report) -> tuple[str, int, str]:
    """What the report's kernel did when it lowered the speed of a link it found down
    (sata_down_spd_limit with no current speed: satasim/ata.h, enum ata_spd_down_unknown):
    "limiting SATA link speed to 1.5 Gbps" right after a reset found the link down with no
    speed limit in SControl (SPD 0h or 3h; a step from there would say 3.0 Gbps) is the rule
    to 4.14 (lowest); a device disabled after three resets that each found the link down,
    with no such line after the second (its last chance, ata_eh_handle_dev_fail) and SControl
    not yet at 1.5 Gbps, is the rule of 4.15-6.1 (keep: dmesg corpus 42, a RHEL kernel of 2021
    with commit 2dc0b46b5ea3, found on the same C620 chipset). ("", 0, "") if the report
    shows neither."""
    runs: dict[str, list] = {}                  # port address -> the current EH run's events
    for no, _t, addr, msg in rep.lines:
        port = addr.split(".")[0]
        run = runs.setdefault(port, [])
        if msg.startswith("exception Emask") or msg == "EH complete":
            runs[port] = []
            continue
        if m := re.match(r"^SATA link down \(SStatus [0-9A-Fa-f]+ SControl ([0-9A-Fa-f]+)\)", msg):
            run.append(("down", no, (int(m.group(1), 16) >> 4) & 0xf))
        elif msg.endswith("resetting link"):
            run.append(("reset", no, 0))
        elif msg == "limiting SATA link speed to 1.5 Gbps" and run and run[-1][0] == "down" \
                and run[-1][2] in (0, 3):
            return "lowest", no, "a link found down limited to 1.5 Gbps (Linux to 4.14)"
        elif msg.startswith("limiting SATA link speed"):
            run.append(("limit", no, 0))
        elif msg in ("disabled", "disable device"):
            downs = [x for x in run if x[0] == "down"]
            if len(downs) >= 3 and [x[0] for x in run[-6:]] == ["reset", "down"] * 3 and downs[-2][2] != 1:
                return "keep", downs[-2][1], ("no speed-down at the last chance of a device whose link is "
                                              "down (Linux 4.15-6.1)")
    return "", 0, ""


def _policy(rep: Report) -> tuple[str, str]:
    """The EH profile whose wording the report's kernel has: libata-modern (the default) is
    6.1's; a report that says "disabled", or reports an EH run in which no command failed
    (a link exception, or resets with no exception before them), comes from a kernel before
    that: libata-4.x (the same rules); "disabled" with 4.9's "ncq dma" cmd lines: libata-4.9;
    a cmd line with 2.6.20-2.6.23's "cdb 0x0 data 4096 in" and no status lines: libata-2.6.20.
    A "Linux version" line decides first."""
    if rep.kernel:
        v = tuple(int(x) for x in re.findall(r"\d+", rep.kernel)[:3])
        if (2, 6, 20) <= v < (2, 6, 24):
            return "libata-2.6.20", f"{rep.kernel_line}: Linux {rep.kernel}: the wording of libata-2.6.20"
        if (4, 9) <= v < (5, 17):
            return "libata-4.9", f"{rep.kernel_line}: Linux {rep.kernel}: the wording of libata-4.9"
        return ("", "") if v >= (5, 17) else \
            ("libata-4.x", f"{rep.kernel_line}: Linux {rep.kernel}: the wording of libata-4.x")
    # a failed command's cmd line in 2.6.20-2.6.23's wording ("cmd c8/.. tag 0 cdb 0x0 data
    # 4096 in", no status lines: ata_eh_report's one printk of cmd and res; the same cmd line
    # with status lines is 2.6.24 on, not this profile's)
    for no, _, _, msg in rep.lines:
        if re.match(r"^cmd \S+ tag \d+ cdb 0x[0-9a-f]+ data \d+", msg) and \
                not any(m.startswith("status: {") for _, _, _, m in rep.lines):
            return "libata-2.6.20", (f"{no}: the cmd line of 2.6.20-2.6.23 ('cdb 0x.. data N', no status "
                                     "lines): libata-2.6.20")
    # the wording the report has, line by line: 6.x's, or the older kernels'
    old, new = [], []
    for no, _, _, msg in rep.lines:
        if msg == "disable device" or re.match(r"^cmd .* ncq dma \d+ (in|out)$", msg):
            new.append(no)
        elif msg == "disabled" or re.match(r"^cmd .* ncq \d+ (in|out)$", msg):
            old.append(no)
    old += [e.line for e in rep.exceptions if e.dev is None and not e.commands] + idle_link_reports(rep) + \
        [no for no, _, _ in user_scans(rep)]
    # a slave link's exception report: 6.x's autopsy makes the master link, which has no
    # failed command of its own, quiet, and passes that to the slave link (libata's
    # ATA_EHI_TO_SLAVE_MASK): a kernel that reports one is older
    if slave_link_line(rep.lines, rep.pmps)[0]:
        old += [e.line for e in rep.exceptions]
    # 4.9-5.16 print a queued command's protocol as "ncq dma" and still say "disabled": a log
    # with both, and with neither 5.17's "disable device" nor 3.x/4.1's "ncq 4096 in", is one
    ncq_dma = [no for no, _, _, m in rep.lines if re.match(r"^cmd .* ncq dma \d+ (in|out)$", m)]
    said_disabled = [no for no, _, _, m in rep.lines if m == "disabled"]
    if ncq_dma and said_disabled and len(new) == len(ncq_dma) and not \
            any(re.match(r"^cmd .* ncq \d+ (in|out)$", m) for _, _, _, m in rep.lines):
        return "libata-4.9", (f"{min(said_disabled)}: 'disabled' (until 5.16) with 'ncq dma' cmd lines "
                              f"(4.9 on: {min(ncq_dma)}): libata-4.9")
    if not new and (no := quiet_boot_configured(rep.lines)):
        return "libata-2006", (f"{no}: 'configured for' from a boot probe that only soft-reset its port, as "
                               "kernels before 5.15 print it (dmesg_pata.quiet_boot_configured): libata-2006")
    if len(old) > len(new):
        return "libata-4.x", (f"{min(old)}: the wording of kernels before 6.x ('disabled', 'ncq 4096 in', an EH "
                              f"run reported with no failed command: {len(old)} line(s)): libata-4.x")
    return "", ""


def _force(rep: Report, ctype: str, portmap: dict[int, int], notes: list[str]) -> str:
    """libata.force as the kernel applied it: the boot command line's parameter when the log
    has it (parsed once), else what its `FORCE:` lines say; values satasim does not model
    are left out with a note, ports moved to the scenario's numbering."""
    entries: list[tuple[str, str]] = []      # (id, value)
    if rep.cmdline_force:
        ident = ""
        for item in rep.cmdline_force.split(","):
            m = re.match(r"^(?:(\d+)(?:\.(\d+))?:)?(.+)$", item.strip())
            if not m:
                continue
            if m.group(1):
                ident = m.group(1) + (f".{int(m.group(2)):02d}" if m.group(2) else "")
            entries.append((ident, m.group(3)))
        line = rep.cmdline_line
    else:
        for f in rep.force:
            m = re.match(r"^ata(\d+)(?:\.(\d\d))?: FORCE: (?:PHY spd limit set to (\S+)|horkage modified "
                         r"\((\w+)\)|xfer_mask set to (\S+))", f)
            if m:
                ident = m.group(1) + (f".{m.group(2)}" if m.group(2) else "")
                entries.append((ident, m.group(3) or m.group(4) or m.group(5)))
        line = 1
    ok = re.compile(r"^(1\.5Gbps|3\.0Gbps|noncq|ncq|nodma|dma|udma[0-7]|udma/?(16|25|33|44|66|100|133)|mwdma[0-4]|pio[0-6])$")
    out, seen = [], set()
    for ident, value in entries:
        if not ok.match(value):
            notes.append(f"{line}: libata.force value {value!r}: not modelled by satasim, left out")
            continue
        if value in ("noncq", "ncq") and TABLE[ctype]["ncq"] == "never":
            continue
        if ident:
            port = int(ident.split(".")[0]) - 1
            if port not in portmap:
                continue
            ident = str(portmap[port] + 1) + ident[len(ident.split(".")[0]):]
        item = f"{ident}:{value}" if ident else value
        if item not in seen:
            seen.add(item)
            out.append(item)
    return ",".join(out)


def _earlier_spd_limits(rep: Report, portmap: dict[int, int], force: str, notes: list[str]) -> list[str]:
    """libata.force link speed limits standing in for a limit set before the excerpt: a host
    link whose first link line in the report already has SControl SPD 1h or 2h (libata writes
    SPD only under a limit: sata_set_spd, link->sata_spd_limit), with no "limiting SATA link
    speed" line and no FORCE line for it before. Linux sets such a limit with libata.force or
    with an earlier EH speed-down (sata_down_spd_limit); the report cannot tell them apart,
    and the force sets the same limit from the boot on without errors the report does not
    show (dmesg corpus 48: ata7's "SATA link up 1.5 Gbps (SStatus 113 SControl 310)")."""
    out, done = [], set()
    for no, _t, addr, msg in rep.lines:
        m = re.match(r"^ata(\d+)$", addr)
        if not m:
            continue
        port = int(m.group(1)) - 1
        if port in done:
            continue
        if msg.startswith("limiting SATA link speed"):
            done.add(port)
            continue
        c = re.match(r"^SATA link (?:up|down).*SControl ([0-9A-Fa-f]+)\)", msg)
        if not c:
            continue
        done.add(port)
        spd = (int(c.group(1), 16) >> 4) & 0xf
        if spd not in (1, 2) or port not in portmap or port in rep.pmps or \
                re.search(rf"(^|,){portmap[port] + 1}(\.\d+)?:\d\.\dGbps", force):
            continue
        value = "1.5Gbps" if spd == 1 else "3.0Gbps"
        out.append(f"{portmap[port] + 1}:{value}")
        notes.append(f"{no}: ata{port + 1}'s first link line has SControl {c.group(1)} (a speed limit set before "
                     f"the excerpt, by libata.force or an earlier speed-down): host.force {portmap[port] + 1}:{value}")
    return out


def _res_bits(c) -> tuple[list[str], list[str]]:
    """The command's status and error bits: its `status:` / `error:` lines, else (a 2.6.2x
    report prints neither) what its res line's Status and Error registers say."""
    status, error = list(c.status_bits), list(c.error_bits)
    if c.has_res and not status and not error and not c.res_status & 0x80:
        status = [n for b, n in ((0x40, "DRDY"), (0x20, "DF"), (0x01, "ERR")) if c.res_status & b]
        if c.res_status & 0x01:
            error = [n for b, n in ((0x80, "ICRC"), (0x40, "UNC"), (0x10, "IDNF"), (0x04, "ABRT"),
                                    (0x01, "AMNF")) if c.res_error & b]
    return status, error


def _kind_of(e, c) -> str:
    """What went wrong with one failed command, in the fault vocabulary."""
    status_bits, error_bits = _res_bits(c)
    if c.res_status & 0x80 and not c.emask & 0x4:
        return "hsm"        # BSY: the other bits of the taskfile mean nothing
    if c.emask & 0x20:
        return "host_bus"
    if c.emask & 0x14 == 0x14 and e.serr & (1 << 16) and e.serr & (1 << 18) and e.frozen and \
            not any(d.startswith("irq_stat") for d in e.desc):
        # timed out with the link's noise and no interrupt: the link was lost on a wake-up out
        # of Partial/Slumber (CommWake latched) while ahci had the PhyRdy interrupt masked
        # for LPM (dmesg corpus 35); without LPM evidence, a flap (fault_for)
        return "wake"
    if c.emask & 0x10 and e.serr & _X and not e.serr & _N and e.frozen and \
            any("connection status" in d for d in e.desc):
        # DevExch without a PhyRdy change, PxIS.PCS ("connection status changed"): a COMINIT
        # from the drive, which restarted with its commands queued (dmesg corpus 15)
        return "cominit"
    if c.emask & 0x10 and e.serr & _PHY_EVENT and e.frozen:
        return "flap"       # the link dropped under the command (it may have timed out too)
    if c.emask & 0x4 or "timeout" in c.emask_desc:
        return "timeout"
    if c.emask & 0x10 or "ICRC" in error_bits:
        return "bus"
    if "UNC" in error_bits or "IDNF" in error_bits or "AMNF" in error_bits or c.emask & 0x8:
        return "media"
    if "DF" in status_bits:
        return "write_fault"
    if "ABRT" in error_bits:
        return "abrt"
    if c.emask & 0x1 and c.ncq and not c.res_status & 0x01:
        return "no_ncq_log"     # a device error whose culprit the NCQ log did not name
    if c.emask & 0x2:
        return "hsm"
    return ""


class _Plan:
    """Faults and requests that make the stack go through the report's exceptions.

    Per device, each exception's failed commands are the report's requests; a command that
    fails again in the next exception of its device is the stack's own retry (libata and the
    SCSI layer retry every error but a media error, up to SCSI_TRIES tries), so it is no new
    request, and the fault that failed it fires once more (its repeat). A media error is
    never retried: the sector stays bad (count 0) and each failure is a request of its own.
    Requests go out at the report's times (gaps over MAX_GAP_S shortened) when it has
    times, else one exception after the other."""

    def __init__(self, rep, disks, portmap, ctype, notes):
        self.rep, self.disks, self.portmap, self.ctype, self.notes = rep, disks, portmap, ctype, notes
        self.row = TABLE[ctype]
        self.work: list[str] = []
        self.faults: list[_Fault] = []
        self.gone: set[tuple[int, int]] = set()
        self.ncq: dict[tuple[int, int], bool] = {}
        self.had_error: set[tuple[int, int]] = set()
        self.pulled: set[int] = set()      # ports whose drive an unplug fault pulled
        self.empty: set[int] = set()       # ports with no drive that a cominit fault acts on
        self.plugged: set[int] = set()     # empty ports a drive is plugged into (plug fault)
        self.trials_before: dict[int, int] = {}   # port -> the exception whose probe trials came before the excerpt
        self.last_link: dict[int, object] = {}   # the port's last link exception
        self.link_at: dict[int, float] = {}      # and when its fault fires
        self.attach_fails: set[tuple[int, int]] = set()   # the attach read is the first failure
        self.no_attach: set[tuple[int, int]] = set()      # an attach read would hit a fault
        self.n_requests = 0
        self.work_keys: list[tuple[str | None, int | None]] = []   # per workload line: its delay, its log tag
        self.clock = 0.0
        times = sorted({t for _, t, _, _ in rep.lines})
        self.timed = len(times) > 1
        self.anchors: list[float] = []
        # the profile waits out libata's reset cool-down between the resets of one EH run
        # (the 2.6.2x ones sleep "retrying in 5 secs" instead)
        self.cool_down = _policy(rep)[0] not in ("libata-2006", "libata-2.6.20")

    # ---- time: the report's seconds -> seconds after the workload starts, which is the end
    # of the report's boot probe when it has one, else a second before its first event; a
    # minute and a second when the excerpt has link events (hotplug, DevExch): on the
    # reporter's system the boot probe was long before, and libata counts it as a probe
    # trial for a minute (ATA_EH_PROBE_TRIAL_INTERVAL, docs/libata-eh.md 5.6)
    START = 1.0
    START_LINK = 61.0

    def sim(self, t: float) -> float:
        start = 0.0 if self.rep.boot_end else \
            self.START_LINK if any(e.dev is None and not e.commands for e in self.rep.exceptions) else self.START
        if not self.timed:
            return start
        a = [x for x in self.anchors if x >= self.rep.boot_end] or [self.rep.boot_end]
        cum, prev = 0.0, a[0]
        for x in a:
            if x > t:
                break
            cum += min(x - prev, MAX_GAP_S)
            prev = x
        return start + cum + min(max(t - prev, 0.0), MAX_GAP_S)

    def where(self, port: int, dev: int | None, key: str = "port") -> str:
        w = f"{key}: {self.portmap[port]}"
        if port in self.rep.pmps and dev is not None:
            w += f", pmp_port: {dev}"
        elif dev == 1:
            w += ", devno: 1"
        return w

    def run(self):
        rep = self.rep
        for e in rep.exceptions:
            for c in e.commands:
                if c.ncq:
                    self.ncq[(e.port, e.dev)] = True
        # issue times: a timed-out command went out one timeout before its exception
        issue = {}
        for e in rep.exceptions:
            kinds = {_kind_of(e, c) for c in e.commands}
            issue[e.line] = e.t - DEFAULT_TIMEOUT_S if kinds <= {"timeout", "wake"} and kinds else e.t
        issue = same_run_issue_times(rep.lines, rep.exceptions, issue)
        self.issue_t = issue
        self.anchors = sorted({t for _, t, _, _ in rep.lines} | set(issue.values()))
        live: dict[tuple, dict] = {}
        chain: dict[tuple, tuple[_Fault, frozenset]] = {}
        last_t: dict[tuple, float] = {}
        for e in rep.exceptions:
            if e.port not in self.portmap:
                continue
            key = (e.port, e.dev if e.dev is not None else 0)
            if e.dev is not None and not e.commands and key in self.disks and self.cut_interface_error(e):
                continue
            if e.dev is None or not e.commands:
                self.link_event(e)
                continue
            if key not in self.disks:
                self.notes.append(f"{e.line}: exception of ata{e.port + 1}.{e.dev:02d}, a device "
                                  "the scenario does not have: not reproduced")
                continue
            cmds = [c for c in e.commands if c.opcode or c.name]
            kinds = [_kind_of(e, c) for c in cmds]
            ids = [(_op(c), c.lba, c.sectors) for c in cmds]
            st = live.setdefault(key, {})
            fresh = e.t - last_t.get(key, e.t) > 2 * DEFAULT_TIMEOUT_S + 60
            last_t[key] = e.t
            if fresh:
                st.clear()
            retried = [i for i in ids if i in st]
            # commands of the last exception that are not failed again succeeded on retry
            for i in list(st):
                if i not in ids and "timeout" in kinds:
                    del st[i]
            prev = chain.get(key)
            if prev and ids and all(i in st for i in ids) and frozenset(ids) <= prev[1]:
                f = prev[0]
                f.fired += 1
                self.bump(f)
            else:
                f = self.fault_for(e, cmds, kinds)
                same = next((g for g in self.faults if f is not None and g.spec == f.spec and
                             f.spec["kind"] == "media_error" and f.spec.get("count") == "0"), None)
                if same is not None:
                    f = same        # the same bad sector again: it is still bad
                    chain[key] = (f, frozenset(ids))
                elif f is not None:
                    chain[key] = (f, frozenset(ids))
                    self.faults.append(f)
                    self.identify_failures(e, f)
                    if key not in self.had_error and len(cmds) == 1 and self.cut_report_before(e):
                        f.fired += 1
                        self.bump(f)
                new = [(c, i) for c, i in zip(cmds, ids) if i not in retried]
                reqs, tags = [], []
                for c, i in new:
                    if key not in self.had_error and _op(c) == "read" and c.lba == 0 and \
                            c.sectors == 8 and not rep.disks[key].boot:
                        # the first read of a disk, of its partition table: the attach read
                        self.attach_fails.add(key)
                        continue
                    if _op(c) == "read" and c.lba < 8 and key not in self.attach_fails:
                        # a fault there would fire on the attach read, which the report's
                        # system did long before (or without an error)
                        self.no_attach.add(key)
                    r = self.request(e, c)
                    if r:
                        reqs.append(r)
                        tags.append(c.tag)
                if reqs:
                    self.n_requests += len(reqs)
                    fill = self.fillers(e, cmds)
                    low, low_tags = self.lower_tag_fillers(e, [c for c, _ in new], issue)
                    self.issue(e, issue[e.line], low + reqs + fill, low_tags + tags + [None] * len(fill))
            self.had_error.add(key)
            for c, i, k in zip(cmds, ids, kinds):
                n = st.get(i, 0) + 1
                if k == "media" or n >= SCSI_TRIES:
                    st.pop(i, None)
                else:
                    st[i] = n
        self.cut_short(chain)
        if len(self.work_keys) == len(self.work):
            self.work = order_by_tag(self.work, self.work_keys)
        self.orphan_resets(rep)
        self.probe_identify_timeouts(rep)
        self.probe_setmode_failures(rep)
        self.ends(rep)
        self.gone |= {(p, 0) for p in self.pulled if (p, 0) in self.disks}

    def cut_interface_error(self, e) -> bool:
        """A device's interface error (Emask 0x10: AHCI's "interface fatal error") whose
        failed commands the excerpt lacks (it ends after the exception's SError line): what
        the SError says went wrong, on a queue of the exception's SAct. Handshk (DIAG.H: the
        device answered a FIS the host sent with R_ERR) is a write's Data FIS corrupted on
        the way to the drive; BadCRC (DIAG.C) one the host received, a read's. The write (or
        read) takes the SAct's lowest tag, fillers the others (dmesg corpus 18)."""
        rep = self.rep
        if not e.emask & 0x10 or not e.sact or e.serr & _PHY_EVENT:
            return False
        later = [m for no, _, a, m in rep.lines if no > e.line and re.match(rf"^ata{e.port + 1}(\.|$)", a)]
        if any(not (m.startswith(("SError: {", "irq_stat ")) or m in e.desc) for m in later):
            return False        # the excerpt goes on: not cut inside the report
        handshk, crc = e.serr & (1 << 22), e.serr & (1 << 21)
        if not (handshk or crc):
            return False
        op, d = ("write", "h2d") if handshk else ("read", "d2h")
        tag = min(t for t in range(32) if e.sact >> t & 1)
        lba = max(self.rep.disks[(e.port, e.dev)].max_lba, 1 << 20)
        c = Command(e.line, "", opcode=0x61 if op == "write" else 0x60, lba=lba, sectors=8, tag=tag, ncq=True,
                    write=op == "write", prot="ncq")
        where = self.where(e.port, e.dev)
        self.faults.append(_Fault({"kind": "crc", "_w": where, "dir": d, "fis": "data",
                                   **({"symbol": _symbol(e.serr)[8:-2]} if _symbol(e.serr) else {}),
                                   "on_cmd": f"{{op: {op}, lba: [{lba}, {lba + 7}]}}"}))
        self.notes.append(f"{e.line}: an interface error whose failed commands the excerpt lacks: "
                          f"a {op}'s Data FIS corrupted ({'Handshk' if handshk else 'BadCRC'}), tag {tag} of its SAct")
        reqs = [self.request(e, c)]
        fill = self.fillers(e, [c])
        self.n_requests += 1
        self.issue(e, e.t, reqs + fill, [tag] + [None] * len(fill))
        self.had_error.add((e.port, e.dev))
        return True

    def cut_short(self, chain):
        """An excerpt that ends inside the next EH run of a device: after the port's last "EH
        complete" only the device's "limiting speed to ..." (libata prints the speed-down in
        the autopsy, ata_eh_speed_down, before the run's exception report). The command that
        failed last failed once more: its fault fires once more (the retry of the same
        command, dmesg corpus 01)."""
        rep = self.rep
        for (port, dev), (f, _ids) in chain.items():
            if f.spec["kind"] == "media_error" and f.spec.get("count", "0") == "0":
                continue        # a bad sector stays bad: nothing to add
            last = max((e.line for e in rep.exceptions if e.port == port), default=0)
            addr = re.compile(rf"^ata{port + 1}(\.{dev:02d})?$")
            after = [(no, a, m) for no, _, a, m in rep.lines if no > last and addr.match(a)]
            done = [no for no, a, m in after if m == "EH complete"]
            if done and (spdn := [no for no, a, m in after if no > done[-1] and m.startswith("limiting speed to ")]):
                f.fired += 1
                self.bump(f)
                self.notes.append(f"{spdn[0]}: a speed-down after the last EH run: the next error's "
                                  "autopsy, the excerpt ends there; the last fault fires once more")

    def orphan_resets(self, rep):
        """Resets of a device's port with no exception before them in the excerpt (it starts
        inside the EH run): the drive stopped answering. Its firmware hangs (sitting through
        the COMRESETs the log shows fail; for ever when EH gave up or disabled it) and its
        PHY drops for a moment, which starts EH."""
        for (port, dev), d in self.disks.items():
            if dev or port in rep.pmps:
                continue
            first_exc = min([e.line for e in rep.exceptions if e.port == port] or [1 << 30])
            run = [(no, t, m) for no, t, a, m in rep.lines
                   if no < first_exc and re.match(rf"^ata{port + 1}(\.00)?$", a)]
            starts = [(no, t) for no, t, m in run if m.startswith(("hard resetting link", "COMRESET failed",
                                                                    "link is slow to respond"))]
            if not starts or any(m.startswith("configured for") and no < starts[0][0] for no, _, m in run):
                continue
            n = sum(m.startswith(("COMRESET failed", "softreset failed")) for _, _, m in run)
            dead = any(m in ("disabled", "disable device") or m.startswith("reset failed") for _, _, m in run)
            at = self.sim(starts[0][1])
            w = self.where(port, None)
            self.notes.append(f"{starts[0][0]}: resets with no exception before them: the drive stopped "
                              "answering (a firmware hang, and a PHY event that starts EH)")
            self.faults.append(_Fault({"kind": "hang", "_w": w, "at": _ms(at),
                                       "comresets": "1000" if dead else str(n)}))
            self.faults.append(_Fault({"kind": "phy_flap", "_w": w, "at": _ms(at), "down": "1ms"}))
            self.clock = max(self.clock, at + 300)

    def probe_identify_timeouts(self, rep):
        """IDENTIFYs that timed out while libata probed a drive, before any exception of its
        port and before the drive was configured ("qc timeout (cmd 0xec)", "failed to IDENTIFY
        (I/O error, err_mask=0x4)"): the drive answers each COMRESET and then hangs on the
        IDENTIFY, once per line (libata's probe resets and retries with the longer IDENTIFY
        timeouts, lowering the link speed before its last try; dmesg-corpus 45). A hang on
        IDENTIFY from power-on, as often as the log's probe failed."""
        for (port, dev) in sorted(self.disks):
            first_exc = min([e.line for e in rep.exceptions if e.port == port] or [1 << 30])
            addr = f"ata{port + 1}.{dev:02d}"
            fails = []
            for no, _, a, m in rep.lines:
                if a != addr:
                    continue
                if no > first_exc or m.startswith("configured for"):
                    break
                if re.match(r"failed to IDENTIFY \(I/O error, err_mask=0x4\)", m):
                    fails.append(no)
            n = len(fails)
            if not n:
                continue
            self.notes.append(f"{fails[0]}: {addr}'s IDENTIFY timed out {n} time(s) in its probe: "
                              "the drive hangs on it")
            self.faults.append(_Fault({"kind": "hang", "_w": self.where(port, dev),
                                       "on_cmd": "{op: identify}", "from_power_on": "true",
                                       **({"repeat": str(n)} if n > 1 else {})}))

    def probe_setmode_failures(self, rep):
        """SET FEATURES - XFER MODE failing while libata probed a drive, before any exception
        of its port and before the drive was configured ("failed to set xfermode
        (err_mask=0x..)"). On 6.x the probe's first READ LOG EXT (the log directory, read for
        the Identify Device and Security logs) timed out ("qc timeout (cmd 0x2f)") and froze the
        port, so the SET XFERMODE after it was refused (err_mask 0x40, AC_ERR_SYSTEM: no
        internal command on a frozen port); each failure spends one of the device's three tries
        (ATA_EH_DEV_TRIES), the last but one lowering the link speed and the PIO mode, the last
        disabling it (dmesg-corpus 53). The stack reads no log at probe, so the drive hangs on
        the command whose failure the log reports: a hang on SET FEATURES (0xef) from power-on,
        as often as the probe failed (three times when the log ends in "disabled")."""
        for (port, dev) in sorted(self.disks):
            first_exc = min([e.line for e in rep.exceptions if e.port == port] or [1 << 30])
            addr = f"ata{port + 1}.{dev:02d}"
            fails, disabled = [], False
            for no, _, a, m in rep.lines:
                if a != addr:
                    continue
                if no > first_exc or m.startswith("configured for"):
                    break
                if re.match(r"failed to set xfermode \(err_mask=0x[0-9a-f]+\)", m):
                    fails.append(no)
                elif fails and m in ("disabled", "disable device"):
                    disabled = True
            if not fails:
                continue
            n = ATA_EH_DEV_TRIES if disabled else len(fails)
            self.notes.append(f"{fails[0]}: {addr}'s SET XFERMODE failed in its probe (a command before it timed "
                              f"out and froze the port): the drive hangs on SET FEATURES, {n} time(s)")
            self.faults.append(_Fault({"kind": "hang", "_w": self.where(port, dev),
                                       "on_cmd": "{opcode: 0xef}", "from_power_on": "true",
                                       **({"repeat": str(n)} if n > 1 else {})}))

    def bump(self, f: _Fault):
        for x in [f] + f.extra:
            s = x.spec
            if s["kind"] == "media_error":
                if s.get("count", "0") != "0":
                    s["count"] = str(f.fired)
                continue
            s["repeat"] = str(f.fired)
            if "on_cmd" in s:
                s.setdefault("every_cmds", "1")

    def fault_for(self, e, cmds, kinds):
        rep = self.rep
        trig = cmds[0]
        where = self.where(e.port, e.dev)
        op = _op(trig)
        lba_range = f"[{trig.lba}, {trig.lba + max(trig.sectors, 1) - 1}]"
        match = "{op: flush}" if op == "flush" else f"{{op: {op}, lba: {lba_range}}}"
        k = next((x for x in kinds if x in ("media", "abrt", "write_fault", "no_ncq_log")), kinds[0])
        if k == "timeout" and self.row["taskfile"]:
            if trig.has_res and trig.res_status & 0xc0 == 0x40 and \
                    (trig.prot == "dma" or trig.opcode in (0xc8, 0xca, 0x25, 0x35)):
                # a DMA command whose device was done (DRDY, not BSY, in the taskfile EH
                # read): its interrupt never came (a PIO command's would leave DRQ, which the
                # lost-interrupt path completes instead)
                return _Fault({"kind": "lost_irq", "_w": where, "on_cmd": match})
            # a taskfile channel's device that stays busy until EH's SRST (no COMRESET there)
            return _Fault({"kind": "bsy_stuck", "_w": where, "on_cmd": match})
        if k == "timeout" and e.serr & 0x800 and not trig.has_res and "hba_error" in self.row["fault_kinds"]:
            # a port whose HBA failed inside (SError.ERR.E, HostInt: Emask 0x40) and never
            # finished the command, with no irq_stat: an internal error the HBA never raised
            # (dmesg corpus 48's ata8)
            f = _Fault({"kind": "hba_error", "_w": where, "on_cmd": match, "error": "internal", "irq": "none"})
            self.hang_behind(e, where, "the HBA's internal error")
            return f
        if k == "timeout":
            if e.serr & 0x800 and not trig.has_res:
                # (a controller without hba_error) a drive that stops answering takes EH down
                # the same path: the timeout, then resets that fail
                self.notes.append(f"{e.line}: SError HostInt on a command that timed out: the HBA's "
                                  "internal error is not modelled here, a drive that hangs stands in")
            f = _Fault({"kind": "hang", "_w": where, "on_cmd": match})
            n, gave_up = self.reset_failures(e)
            if n or gave_up:
                # the drive did not come back at the first COMRESET
                f.spec["comresets"] = "1000" if gave_up else str(n)
            return f
        if k == "bus":
            f = _Fault({"kind": "crc", "_w": where, "dir": "h2d" if op == "write" else "d2h",
                        "fis": "data", **({"symbol": _symbol(e.serr)[8:-2]} if _symbol(e.serr) else {}),
                        "on_cmd": match})
            self.hang_behind(e, where, "the CRC errors")
            return f
        if k == "wake" and self.timed and _lpm_evidence(rep) and "lpm" in self.row["keys"]:
            # the drive's PHY did not answer the wake-up the command needed (lpm_fail): armed
            # just before the command is issued, on a link idle in a power state by then
            self.notes.append(f"{e.line}: a command that timed out with CommWake, PHYRdyChg and no "
                              "interrupt under LPM: the drive's PHY did not answer the wake-up (lpm_fail)")
            return _Fault({"kind": "lpm_fail", "_w": where, "how": "no_comwake", "wakes": "1",
                           "at": _ms(max(self.sim(self.issue_t[e.line]) - 0.001, 0.0)),
                           **noise_key(e.serr, ("decode", "internal", "phy"))})
        if k == "cominit":
            # the drive's COMINIT on its failed command (the first of them: the others are the
            # ones it had queued), with the CommWake the SError shows
            self.notes.append(f"{e.line}: DevExch without a PhyRdy change on queued commands: the drive "
                              "restarted itself (its COMINIT, a cominit fault on the command)")
            return _Fault({"kind": "cominit", "_w": where, "on_cmd": match, **noise_key(e.serr, _COMINIT_NOISE)})
        if k in ("flap", "wake"):
            return _Fault({"kind": "phy_flap", "_w": where, "on_cmd": match, "down": "1ms"})
        if k == "media":
            c = next(c for c, x in zip(cmds, kinds) if x == "media")
            lba = c.res_lba if c.lba <= c.res_lba < c.lba + max(c.sectors, 1) else c.lba
            err = "idnf" if "IDNF" in _res_bits(c)[1] else "unc"
            # the bad sector itself (lba): without it the whole command's range is bad and the
            # drive reports its first sector, not the res line's
            return _Fault({"kind": "media_error", "_w": where,
                           "on_cmd": f"{{op: {_op(c)}, lba: [{lba}, {lba}]}}", "lba": f"[{lba}, {lba}]",
                           "error": err, "count": "0"})
        if k in ("abrt", "write_fault"):
            c = next(c for c, x in zip(cmds, kinds) if x == k)
            if not (c.opcode in READS | WRITES | FLUSHES or c.ncq):
                self.notes.append(f"{c.line}: {c.name} failed: not a command a request makes")
                return None
            m = "{op: flush}" if _op(c) == "flush" else \
                f"{{op: {_op(c)}, lba: [{c.lba}, {c.lba + max(c.sectors, 1) - 1}]}}"
            return _Fault({"kind": "media_error", "_w": where, "on_cmd": m, "error": k, "count": "1"})
        if k == "no_ncq_log":
            # every queued command failed with a plain device error: libata could not read
            # the NCQ error log (log page 10h) that names the culprit. The drive fails the
            # first command (ABRT: the log would have said which error) and then the log read.
            self.notes.append(f"{trig.line}: an NCQ device error with no culprit (Emask 0x1 on every "
                              "command): the drive's NCQ log read fails (READ LOG EXT aborted)")
            log = _Fault({"kind": "media_error", "_w": where, "on_cmd": "{opcode: 0x2f}",
                          "error": "abrt", "count": "1"})
            self.faults.append(log)
            return _Fault({"kind": "media_error", "_w": where,
                           "on_cmd": f"{{op: {op}, lba: [{trig.lba}, {trig.lba}]}}", "error": "abrt", "count": "1"},
                          extra=[log])
        if k == "host_bus":
            irq = next((int(m.group(1), 16) for d in e.desc if (m := re.match(r"irq_stat (0x[0-9a-f]{8})", d))), None)
            if irq is not None and "hba_error" in self.row["fault_kinds"] and \
                    (irq == 0xffffffff or irq & _IRQ_HBDS and not irq & _IRQ_HBFS):
                # every bit set: libahci decoded a PxIS read that came back all ones (a read the
                # PCIe link dropped: dmesg corpus 48's ata7, "unknown FIS 00000000 ...");
                # HBDS alone: a host bus data error
                return _Fault({"kind": "hba_error", "_w": where, "on_cmd": match,
                               "error": "host_bus_fatal" if irq == 0xffffffff else "host_bus_data",
                               "irq": "all_ones" if irq == 0xffffffff else "raised"})
            if "host_bus_error" in self.row["fault_kinds"]:
                return _Fault({"kind": "host_bus_error", "_w": where, "on_cmd": match})
        self.notes.append(f"{trig.line}: failed command with Emask 0x{trig.emask:x} "
                          f"({trig.emask_desc}): no fault kind for it")
        return None

    def hang_behind(self, e, where, after: str) -> None:
        """EH's resets after exception e found no drive answering ("softreset failed (1st FIS
        failed)", "COMRESET failed"): the drive's firmware wedged after the error (or the
        HBA's port executes nothing more, which a silent drive stands in for). A hang armed
        behind the error's fault, firing while EH's first COMRESET is under way (the
        exception comes within milliseconds of the request, or at the timeout; the reset takes
        some 300 ms): every reset the log shows failing finds the drive still hung
        (dmesg-corpus 39, 48)."""
        n, gave_up = self.reset_failures(e)
        if (n or gave_up) and self.timed:
            self.notes.append(f"{e.line}: the resets after {after} failed: the drive stopped answering "
                              f"(a hang behind {after})")
            self.faults.append(_Fault({"kind": "hang", "_w": where, "at": _ms(self.sim(e.t) + HANG_AFTER_CRC_S),
                                       "comresets": "1000" if gave_up else str(n)}))

    def identify_failures(self, e, f: _Fault):
        """IDENTIFYs that failed while EH revalidated the device after exception e ("failed to
        IDENTIFY", "revalidation failed"): that many are aborted from the same trigger on (all
        of them when EH disabled the device)."""
        rep = self.rep
        nxt = [x.line for x in rep.exceptions if x.port == e.port and x.line > e.line]
        end = nxt[0] if nxt else 1 << 30
        run = [m for no, _, a, m in rep.lines if e.line < no < end and a.startswith(f"ata{e.port + 1}")]
        n = sum(m.startswith("failed to IDENTIFY") for m in run)
        if not n or not ("on_cmd" in f.spec or "at" in f.spec):
            return
        dead = any(m in ("disabled", "disable device") for m in run)
        if any(re.match(r"failed to IDENTIFY \(I/O error, err_mask=0x4\)", m) for m in run) and \
                f.spec["kind"] != "hang":
            # the IDENTIFY of the revalidation timed out (AC_ERR_TIMEOUT, "qc timeout (cmd
            # 0xec)"): the drive answered the reset and then nothing, and the resets after it
            # fail ("softreset failed (1st FIS failed)"): it hangs on that IDENTIFY, as
            # long as the log's resets fail (for ever when EH gave up; dmesg-corpus 48)
            fails, gave_up = self.reset_failures(e, after_identify=True)
            self.notes.append(f"{e.line}: the revalidation's IDENTIFY timed out: the drive hangs on it")
            if fails or gave_up:
                hang = {"comresets": "1000" if gave_up or dead else str(fails)}
            else:
                # every reset brought it back and its next IDENTIFY hung again (dmesg-corpus
                # 35): a COMRESET ends each hang, once per timed-out IDENTIFY
                timeouts = sum(bool(re.match(r"failed to IDENTIFY \(I/O error, err_mask=0x4\)", m)) for m in run)
                hang = {"repeat": str(timeouts)} if timeouts > 1 else {}
            self.faults.append(_Fault({"kind": "hang", "_w": f.spec["_w"], "on_cmd": "{op: identify}", **hang}))
            return
        trigger = {"on_cmd": f.spec["on_cmd"]} if "on_cmd" in f.spec else {"at": f.spec["at"]}
        self.faults.append(_Fault({"kind": "identify_fail", "_w": f.spec["_w"], **trigger,
                                   "count": "1000" if dead else str(n)}))

    def reset_failures(self, e, after_identify: bool = False) -> tuple[int, bool]:
        """The COMRESETs of the EH run after exception e that the drive did not answer
        ("COMRESET failed", "softreset failed"), and whether EH gave up on it; with
        after_identify, only those after the first failed IDENTIFY."""
        rep = self.rep
        nxt = [x.line for x in rep.exceptions if x.port == e.port and x.line > e.line]
        end = nxt[0] if nxt else 1 << 30
        n, gave_up, counting = 0, False, not after_identify
        for no, _, addr, msg in rep.lines:
            if not e.line < no < end or not re.match(rf"^ata{e.port + 1}(\.\d\d)?$", addr):
                continue
            if msg.startswith("failed to IDENTIFY"):
                counting = True
            if not counting:
                continue
            if msg.startswith("COMRESET failed") or msg.startswith("softreset failed"):
                n += 1
            elif msg.startswith("reset failed, giving up"):
                gave_up = True
            elif msg.startswith("configured for"):
                break
        return n, gave_up

    def status_dsc(self, key) -> bool | None:
        """Whether the drive sets DSC in its status, from the res lines that show a status it
        sent itself: a non-queued error's (a timeout's is what ata_qc_reinit left, DRDY:
        libata never reads a timed-out command's result, docs/libata-eh.md 1.2)."""
        votes = []
        for e in self.rep.exceptions:
            if (e.port, e.dev if e.dev is not None else 0) != key:
                continue
            for c in e.commands:
                s = c.res_status
                if not c.has_res or s & 0x80 or not s & 0x40:
                    continue
                if not c.ncq and s & 0x01 and not c.emask & 0x4:
                    votes.append(bool(s & 0x10))
        return None if not votes else votes.count(True) >= votes.count(False)

    def request(self, e, c) -> str:
        where = self.where(e.port, e.dev, "device")
        op = _op(c)
        if op == "flush":
            # (libata's flush is a block-layer request like any other: its cmd line shows the
            # request's tag, dmesg corpus 35's "tag 10")
            tag = f", tag: {c.tag}" if self.row["tagged_non_ncq"] and c.tag else ""
            return f"  - {{kind: request, {where}, op: flush{tag}}}"
        if not (c.opcode in READS | WRITES or c.ncq):
            if c.nodata and c.tf and c.opcode in USER_NODATA:
                return self.passthrough(c, where)
            self.notes.append(f"{c.line}: {c.name} is not a command a request makes: not reproduced")
            return ""
        mode = "ncq" if c.ncq else "pio" if c.prot == "pio" or c.opcode in (0x20, 0x30, 0x24, 0x34, 0xc4, 0xc5, 0x29, 0x39) \
            else "dma"
        if self.row["ncq"] == "never" and mode == "ncq":
            mode = "dma"
        tag = f", tag: {c.tag}" if self.row["tagged_non_ncq"] or mode == "ncq" else ""
        return (f"  - {{kind: request, {where}, op: {op}, lba: {c.lba}, sectors: {max(c.sectors, 1)}, "
                f"mode: {mode}, verify: false{tag}}}")

    def passthrough(self, c, where: str) -> str:
        """A non-data command a user sent (hdparm -B/-S/-W: SET FEATURES, the power commands)
        as the SCSI layer got it: ATA PASS-THROUGH(16), protocol 3 (non-data), with the cmd
        line's taskfile (SAT-4 12.2.2; libata's ata_scsi_pass_thru). Whether it fails is the
        drive's own doing (the model aborts a SET FEATURES subcommand it does not have, as
        the log's drive did): no fault."""
        (cmd, feat, n, l0, l1, l2, hf, hn, h0, h1, h2, d) = c.tf
        ext = 1 if any((hf, hn, h0, h1, h2)) else 0
        cdb = [0x85, 3 << 1 | ext, 0x00, hf, feat, hn, n, h0, l0, h1, l1, h2, l2, d, cmd, 0x00]
        err = c.has_res and c.res_status & 0x01
        self.notes.append(f"{c.line}: {c.name} (no data): a user's command, sent as ATA PASS-THROUGH(16)")
        return (f"  - {{kind: scsi, {where}, cdb: \"{' '.join(f'{b:02x}' for b in cdb)}\", "
                f"expect_status: {'check_condition' if err else 'good'}}}")

    def fillers(self, e, cmds) -> list[str]:
        """The rest of an NCQ exception's queue: one read per tag of its SAct that no failed
        command holds, with that tag, so the run has the report's queue depth and tags (its
        SAct and cmd lines). They read sectors no failed command of the exception touches."""
        held = {c.tag for c in cmds if c.ncq}
        if not held or self.row["ncq"] == "never":
            return []
        busy = [(c.lba, c.lba + max(c.sectors, 1)) for c in cmds]
        out, lba = [], 0
        where = self.where(e.port, e.dev, "device")
        for t in (t for t in range(32) if e.sact >> t & 1 and t not in held):
            while (hit := [hi for lo, hi in busy if lo < lba + 8 and lba < hi]):
                lba = max(hit)
            out.append(f"  - {{kind: request, {where}, op: read, lba: {lba}, sectors: 8, mode: ncq, "
                       f"verify: false, tag: {t}}}")
            lba += 8
        return out

    def cut_report_before(self, e) -> bool:
        """The excerpt starts inside an earlier report of e's device: its first lines for that
        device are a report's tail (`status: { ... }`, `error: { ... }`, no exception line
        before them; its EH's lines may follow) with the status and error lines e reports for
        its one failed command.
        That is the same command failing before: libata retries a failed I/O command that is
        no media error (ata_eh_worth_retry; the SCSI layer's 5 retries), so the drive that
        failed it once failed the retry the same way (dmesg corpus 17: a READ DMA of LBA 2
        that the drive aborts, "status: { DRDY ERR }", "error: { ABRT }" cut at the top, then
        the retry's whole report). The fault fires once more, as for a repeat."""
        addr = f"ata{e.port + 1}.{e.dev:02d}" if e.dev is not None else f"ata{e.port + 1}"
        mine = [(no, m) for no, _, a, m in self.rep.lines if a == addr]
        head = []
        for no, m in mine:                  # the device's first lines: the cut report's tail
            if no >= e.line or not m.startswith(("status: {", "error: {")):
                break
            head.append(m)
        if not head:
            return False
        tail = [m for no, m in mine if no > e.line and m.startswith(("status: {", "error: {"))][:len(head)]
        if tail != head:
            return False
        self.notes.append(f"{e.line}: the excerpt starts inside an earlier report of {addr} with the same "
                          f"{' '.join(head)}: the command failed once before (libata's retry), its fault fires once more")
        return True

    def lower_tag_fillers(self, e, cmds, issue) -> tuple[list[str], list[int]]:
        """The other I/O that held a PMP port's lower tags when a non-queued command went
        out: before 3.13 libata's ata_qc_new gave a command the lowest free bit of the
        port's qc_allocated (one tag space for all the port's links), so a non-queued
        command's `tag 1` means tag 0 was busy, with a command to another fan-out link (dmesg
        corpus 52: a 2.6.35 md raid10 over a SiI3726, "tag 1" at a lone ICRC error). Each
        lower tag that no command of the port's reports at that instant holds becomes an
        8-sector read of another fan-out device, issued just before (it completes without
        error, so no report shows it). Not where a request's own `tag:` places the command
        (tagged_non_ncq: since 4.18 the tag is the block layer's), not for a port without a
        PMP (one device, non-queued commands one at a time)."""
        if e.port not in self.rep.pmps or self.row["tagged_non_ncq"]:
            return [], []
        at = issue[e.line]
        held = {c.tag for x in self.rep.exceptions if x.port == e.port and issue.get(x.line) == at
                for c in x.commands if c.tag is not None}
        want = sorted({t for c in cmds if not c.ncq and c.tag for t in range(c.tag)} - held)
        busy = {x.dev for x in self.rep.exceptions if x.port == e.port and issue.get(x.line) == at}
        other = next((d for (p, d) in sorted(self.disks) if p == e.port and d not in busy), None)
        if not want or other is None:
            return [], []
        lba = max(self.rep.disks[(e.port, other)].max_lba, 1 << 20)
        where = self.where(e.port, other, "device")
        self.notes.append(f"{e.line}: tag(s) {', '.join(map(str, want))} below the failed command's were "
                          f"busy (the lowest free tag, before 3.13): reads of ata{e.port + 1}.{other:02d} hold them")
        out = [f"  - {{kind: request, {where}, op: read, lba: {lba + 8 * i}, sectors: 8, mode: dma, verify: false}}"
               for i in range(len(want))]
        return out, want

    def issue(self, e, t_issue, reqs, tags=None):
        """One exception's requests, issued at one instant: at the report's time when it has
        times, else after everything before them (barrier)."""
        at = self.sim(t_issue) if self.timed else None
        self.work_keys += [(_ms(at) if at is not None else None, t) for t in (tags or [None] * len(reqs))]
        for i, r in enumerate(reqs):
            if at is not None:
                r = r[:-1] + f", delay: {_ms(at)}}}"
            else:
                r = r[:-1] + (", barrier: true}" if i == 0 else ", barrier: false}")
            self.work.append(r)
        if at is not None:
            self.clock = max(self.clock, at + 3 * DEFAULT_TIMEOUT_S * SCSI_TRIES)
        else:
            self.clock += 3 * DEFAULT_TIMEOUT_S * SCSI_TRIES

    def link_event(self, e):
        """A link-level exception (no failed command): a PHY event. The link came back (link up
        and a device configured before the next exception of the port): the PHY dropped for
        that long (phy_flap); it stayed down: the drive was pulled (unplug)."""
        rep = self.rep
        key = (e.port, 0)
        if not e.serr & _PHY_EVENT:
            if not self.line_noise(e):
                self.notes.append(f"{e.line}: link exception without a failed command: not reproduced")
            return
        nxt = [x.line for x in rep.exceptions if x.port == e.port and x.line > e.line]
        end = nxt[0] if nxt else 1 << 30
        after = [(no, t, m) for no, t, a, m in rep.lines if e.line < no < end and
                 a.startswith(f"ata{e.port + 1}") and not a.startswith(f"ata{e.port + 1}.15")]
        up = next(((no, t) for no, t, m in after if m.startswith("SATA link up")), None)
        down = next(((no, t) for no, t, m in after if m.startswith("SATA link down")), None)
        prev = self.last_link.get(e.port)
        self.last_link[e.port] = e
        if prev is not None and e.line - prev.line == 1 and (e.serr, e.emask) == (prev.serr, prev.emask):
            return      # the same exception line twice (console and syslog copies, printk levels)
        at = self.sim(e.t)
        if not self.timed and e.port in self.link_at:
            at = self.link_at[e.port] + 5.0    # no times: one event after the other's EH run
        self.link_at[e.port] = at
        w = self.where(e.port, None)
        with_noise = noise_key(e.serr)
        # (a cominit fault sends COMINIT of its own; a connector's bouncing contacts put
        # COMWAKE-like bursts on the line too: dmesg corpus 42's "SError: { CommWake DevExch }")
        cominit_noise = noise_key(e.serr, _COMINIT_NOISE)
        configured = any(m.startswith("configured for") for _, _, m in after)
        if key not in self.disks and not any(p == e.port for p, _ in self.disks):
            if e.serr & (_N | _W) == _N | _W and not down and e.port not in self.plugged:
                # a drive appears on a port the boot found empty: its OOB ran with the PHY
                # (PHYRdyChg CommWake, RecovComm) before EH read SError, and no reset finds
                # the link down after it: plugged in at the exception
                self.empty.add(e.port)
                self.plugged.add(e.port)
                self.faults.append(_Fault({"kind": "plug", "_w": w, "at": _ms(at)}))
                self.clock = max(self.clock, at + 120)
            elif e.port in self.plugged:
                self.notes.append(f"{e.line}: a PHY event on ata{e.port + 1} after its drive was "
                                  "plugged (a drive the log never identifies): not reproduced")
            elif e.serr & _X and not up:
                # COMINIT bursts on a connector with no drive the log knows (a drive that never
                # finishes OOB, a backplane glitch): a cominit fault on an empty port
                first = e.port not in self.empty
                self.empty.add(e.port)
                if first:
                    self.earlier_trials(e, w, at)
                self.faults.append(_Fault({"kind": "cominit", "_w": w, "at": _ms(at), **cominit_noise}))
                self.clock = max(self.clock, at + 120)
            else:
                self.notes.append(f"{e.line}: a PHY event on ata{e.port + 1}, which has no device in "
                                  "the log: not reproduced")
            return
        if e.port in self.pulled:
            if up and configured:
                # the drive pulled earlier is back: plugged in at the exception, whose SError
                # shows the drive's OOB (RecovComm/CommWake: the PHY answered its COMINIT), or
                # else when the link came up
                t_plug = at if e.serr & _W else self.sim(up[1])
                self.faults.append(_Fault({"kind": "plug", "_w": w, "at": _ms(t_plug)}))
                self.pulled.discard(e.port)
            elif e.serr & _X:
                # no drive on the cable, yet COMINIT bursts: the connector's noise (or a drive
                # half in that never finishes OOB)
                self.faults.append(_Fault({"kind": "cominit", "_w": w, "at": _ms(at), **cominit_noise}))
                self.clock = max(self.clock, at + 120)
            else:
                self.notes.append(f"{e.line}: a PHY event on ata{e.port + 1} after its drive was pulled "
                                  "(no drive on the cable): not reproduced")
            return
        if up and configured:
            secs = max(0.001, min(60.0, (up[1] - e.t) - 0.5)) if self.timed and up[1] > e.t else 0.001
            if self.timed and down and down[0] < up[0]:
                # a reset found the link down first (the drive's PHY silent: SStatus 0): the
                # signal was back by the COMRESET of the reset that brought it up (its COMINIT
                # cut EH's cool-down short), however long the drive then took to answer (42:
                # that reset 4.80 s after the exception, its link up 1.93 s later)
                t_reset = max((t for no, t, m in after if no < up[0] and m.endswith("resetting link")),
                              default=None)
                if t_reset is not None and t_reset > e.t:
                    secs = max(0.001, min(secs, t_reset - e.t))
            self.faults.append(_Fault({"kind": "phy_flap", "_w": w, "at": _ms(at),
                                       "down": f"{max(1, round(secs * 1000))}ms", **with_noise}))
        elif down:
            self.faults.append(_Fault({"kind": "unplug", "_w": w, "at": _ms(at), **with_noise}))
            self.pulled.add(e.port)
            self.early_resets(e, after, w)
        else:
            self.faults.append(_Fault({"kind": "phy_flap", "_w": w, "at": _ms(at), "down": "1ms", **with_noise}))
        self.clock = max(self.clock, at + 120)

    def line_noise(self, e) -> bool:
        """A link exception with no failed command whose SError holds line noise alone (10B8B,
        HostInt, PHYInt/UnrecovData: no PHY event, nothing else): the host PHY latched noise
        with PhyRdy kept (line_noise), and none of those bits interrupts (AHCI 1.3.1 3.3.12 /
        3.3.5, ata_piix has no SError interrupt), so something else started the EH run that
        read it. The importer's stand-in is a user scan (ata_scsi_user_scan: a reset and a
        probe, no failed command; kernels before 6.x's quiet autopsy report the run, dmesg
        corpus 25: "ata2.01: exception Emask 0x40 SAct 0x0 SErr 0x80800 action 0x0")."""
        names = ("decode", "internal", "phy")
        key = (e.port, e.dev or 0)
        if not e.serr or e.serr & ~noise_bits(names) or key not in self.disks or e.port in self.rep.pmps:
            return False
        noise = noise_list(e.serr, names)
        at = self.sim(e.t)
        self.faults.append(_Fault({"kind": "line_noise", "_w": self.where(e.port, e.dev),
                                   "at": _ms(max(at - 0.01, 0.001)), "noise": noise}))
        self.work.append(f"  - {{kind: scan, port: {self.portmap[e.port]}, delay: {_ms(at)}}}")
        self.work_keys.append((_ms(at), None))
        self.clock = max(self.clock, at + 60)
        self.notes.append(f"{e.line}: ata{e.port + 1}.{e.dev or 0:02d}: line noise (SError {e.serr:#x}) read by an EH run with "
                          "no failed command and no PHY event: line_noise, and a user scan to start the run "
                          "(kind: scan)")
        return True

    def earlier_trials(self, e, w, at):
        """The port's first COMINIT exception limits the link to 1.5 Gbps before its reset:
        libata's probe trials (ata_eh_schedule_probe: more than ATA_EH_PROBE_TRIALS probes of
        the empty slot within a minute), so two more probes came before the excerpt -- the
        same loop, cut by the excerpt (dmesg corpus 04 starts at an "EH complete"): two
        cominit faults in the minute before it (the boot's probe is a minute earlier, START_LINK)."""
        if self.trials_before.get(e.port) is not None:
            return
        limited = False
        for no, _t, addr, m in self.rep.lines:     # up to its reset (a copy of the exception line may follow)
            if no <= e.line or addr != f"ata{e.port + 1}":
                continue
            if m.endswith("resetting link") or m == "EH complete":
                break
            limited |= m == "limiting SATA link speed to 1.5 Gbps"
        if not limited:
            return
        self.trials_before[e.port] = e.line
        for back in (10.0, 5.0):
            self.faults.append(_Fault({"kind": "cominit", "_w": w, "at": _ms(max(at - back, 1.0))}))
        self.notes.append(f"{e.line}: ata{e.port + 1} limited to 1.5 Gbps at its first exception: the third probe "
                          "of the empty port within a minute (libata's probe trials); the two before the "
                          "excerpt are cominit faults")

    # libata's ATA_EH_RESET_COOL_DOWN, and how much sooner than it a reset must come to show
    # that something cut it short (printk times are a few ms apart from the reset's jiffies)
    COOL_DOWN_S = 5.0
    COOL_DOWN_SLACK_S = 0.25

    def early_resets(self, e, after, w):
        """A reset of the same EH run (no exception before it) that starts sooner after the
        previous reset ended than the reset cool-down: the PHY event that woke EH's sleep
        (eh/reset.c, eh_reset_cool_down: any EH scheduling ends libata's cool-down; its
        eh_info is taken by the reset, so the log shows no exception for it). On a port whose
        drive was pulled the event is a COMINIT burst (the connector's contacts as the drive
        leaves; dmesg corpus 42: its two pulls re-reset 1.35/1.94 s and 0.74/1.72 s after the
        previous reset ended, each after a PHY event): a cominit fault at that reset."""
        if not (self.timed and self.cool_down):
            return
        ended = None
        for _no, t, m in after:
            if m == "EH complete":
                break
            if m.startswith(("SATA link down", "SATA link up")):
                ended = t
            elif m.endswith("resetting link") and ended is not None:
                if t - ended < self.COOL_DOWN_S - self.COOL_DOWN_SLACK_S:
                    self.faults.append(_Fault({"kind": "cominit", "_w": w, "at": _ms(self.sim(t))}))
                ended = None

    def ends(self, rep):
        """Devices the report disables or detaches (and does not configure again)."""
        for no, t, addr, msg in rep.lines:
            m = re.match(r"^ata(\d+)(?:\.(\d\d))?$", addr)
            key = (int(m.group(1)) - 1, int(m.group(2) or 0))
            if msg in ("disabled", "disable device") or msg.startswith("detaching ("):
                if key in self.disks:
                    self.gone.add(key)
            elif msg.startswith("configured for"):
                self.gone.discard(key)


def yaml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class OutputError(Exception):
    """An output file that cannot or must not be written: 'path: why'."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


def _target(path: Path) -> tuple[Path, int | None]:
    """Where `path` really is (symlinks followed) and the mode a replacement keeps (None: a
    new file). Only a regular file is replaced: os.replace onto a device node or a FIFO
    would put a regular file in its place (as root, -o /dev/null would)."""
    real = Path(os.path.realpath(path))
    try:
        st = real.stat()
    except FileNotFoundError:
        if not real.parent.is_dir():
            raise OutputError(f"{path}: its folder {real.parent} does not exist") from None
        return real, None
    except OSError as e:
        raise OutputError(f"{path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{path}: not a regular file ({_kind(st.st_mode)}); "
                          "give the name of a new or a regular file")
    return real, stat.S_IMODE(st.st_mode)


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


class _Stopped(BaseException):
    """A signal that ends the import (SIGTERM, SIGHUP, SIGINT) while outputs are written: it
    unwinds write_outputs' cleanup, then the process ends as the signal would have ended it."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stop(signum, _frame):
    raise _Stopped(signum)


def _unnamed(folder: Path, mode: int) -> int | None:
    """An open file in `folder` that has no name yet (O_TMPFILE): a kill, even SIGKILL, before
    it is linked leaves nothing behind. None where the kernel or file system has none."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(str(folder), flag | os.O_WRONLY, mode)
    except OSError:
        return None     # EOPNOTSUPP (the file system), EISDIR (an older kernel): a named temp


def _link_fd(fd: int, dst: str) -> None:
    """Gives the unnamed file open on `fd` the name `dst`: linkat(2) of /proc/self/fd/N with
    AT_SYMLINK_FOLLOW (os.link calls link(2), which links the /proc symlink itself: EXDEV)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, at_symlink_follow = -100, 0x400
    if libc.linkat(at_fdcwd, f"/proc/self/fd/{fd}".encode(), at_fdcwd, os.fsencode(dst), at_symlink_follow):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), dst)


def _temp_name(real: Path) -> str:
    return os.path.join(str(real.parent), f".{real.name}.{os.urandom(6).hex()}")


def write_outputs(files: list[tuple[Path, str]], report: Path) -> None:
    """Writes every (path, text) or none, and never a partial file: all targets are checked
    first; each text is written whole into a file with no name yet (O_TMPFILE; else a hidden
    temporary beside its target), and only then are they linked and renamed into place (a
    failed rename puts back what was there). SIGTERM, SIGHUP and SIGINT meanwhile unwind the
    same way (nothing left, then the signal's exit); a SIGKILL while the texts are written
    leaves nothing, and only in the instant between a link and its rename a hidden
    `.NAME.xxxx` file. New files get 0666 less the umask (mkstemp's 0600 is for secrets), a
    replaced file keeps its mode."""
    targets = [(_target(p), p) for p, _ in files]
    seen = {os.path.realpath(report): f"{report} is the report itself"}
    for (real, _), p in targets:
        if str(real) in seen:
            raise OutputError(f"{p}: {seen[str(real)]}; name the scenario NAME.yaml")
        seen[str(real)] = f"{p} would be written twice (the scenario and its .expected)"
    new_mode = 0o666 & ~_umask()
    import signal
    import threading
    handled = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    old_handlers = {}
    if threading.current_thread() is threading.main_thread():
        old_handlers = {sig: signal.signal(sig, _stop) for sig in handled}
    fds: list[int | None] = []  # per target: its unnamed file, or None (then tmps has its name)
    tmps: list[str | None] = []
    placed = []   # (target, backup of what it replaced or None)
    try:
        try:
            for ((real, mode), p), (_, text) in zip(targets, files):
                fmode = new_mode if mode is None else mode
                fd = _unnamed(real.parent, fmode)
                tmp = None
                if fd is None:
                    try:
                        fd, tmp = tempfile.mkstemp(dir=str(real.parent), prefix=f".{real.name}.")
                    except OSError as e:
                        raise OutputError(f"{p}: cannot write in {real.parent}: {e.strerror}") from None
                fds.append(fd if tmp is None else None)
                tmps.append(tmp)
                data = text.encode("utf-8")
                os.fchmod(fd, fmode)
                while data:
                    data = data[os.write(fd, data):]
                os.fsync(fd)
                if tmp is not None:
                    os.close(fd)
            for i, (((real, mode), p), tmp) in enumerate(zip(targets, tmps)):
                if tmp is None:     # give the written file a name, beside its target
                    tmp = tmps[i] = _temp_name(real)
                    _link_fd(fds[i], tmp)
                    os.close(fds[i])
                    fds[i] = None
                backup = None
                if mode is not None:   # keep the old file under a second name until all are in place
                    backup = tmp + ".old"
                    os.link(real, backup)
                try:
                    os.replace(tmp, real)
                except OSError as e:
                    if backup:
                        os.unlink(backup)
                    raise OutputError(f"{p}: {e.strerror}") from None
                placed.append((real, backup))
        except BaseException:
            for real, backup in reversed(placed):
                if backup:
                    os.replace(backup, real)
                else:
                    os.unlink(real)
            for tmp in tmps:
                if tmp and os.path.lexists(tmp):
                    os.unlink(tmp)
            for fd in fds:
                if fd is not None:
                    os.close(fd)
            raise
        for _, backup in placed:
            if backup:
                os.unlink(backup)
    except _Stopped as st:
        for sig, h in old_handlers.items():
            signal.signal(sig, h)
        os.kill(os.getpid(), st.signum)     # end as the signal would have
        raise KeyboardInterrupt from None   # a handler that did not end the process
    finally:
        for sig, h in old_handlers.items():
            signal.signal(sig, h)


def import_report(report: Path, out: Path) -> tuple[Path, Path, list[str]]:
    text = report.read_text(errors="replace")
    rep = parse(text, str(report))
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", out.stem) or "imported"
    scen, notes, portmap = build_scenario(rep, name)
    exp = out.with_suffix(".expected")
    header = [f"# expected: the libata decision lines of {printable(str(report))}", f"# scenario: {name}"]
    if any(k != v for k, v in portmap.items()):
        header.append("# ports: " + ", ".join(f"log ata{k + 1} = ata{v + 1}" for k, v in sorted(portmap.items())))
    write_outputs([(out, scen), (exp, "\n".join(header + expected_lines(rep, portmap)) + "\n")], report)
    return out, exp, notes


# ---------------------------------------------------------------- diff

def run_lines(run_dir: Path) -> list[str]:
    """The run's decision lines, read from its satasim.log as a report is read (the res line
    continues its cmd line, as in the kernel's log)."""
    text = (run_dir / "satasim.log").read_text()
    try:
        rep = parse(text, str(run_dir / "satasim.log"))
    except DmesgError:
        return []
    return expected_lines(rep)


def _addr(line: str) -> str:
    return line.split(":", 1)[0]


def _addr_key(addr: str) -> tuple[int, int]:
    port, _, dev = addr[3:].partition(".")
    return int(port), int(dev) if dev else -1


def diff(expected: Path, run_dir: Path) -> tuple[int, int, list[str]]:
    """Aligns the report's decision lines with the run's, per port and per device (each
    address, ataN or ataN.DD, on its own): libata probes and recovers the ports of a host
    at once, and a PMP's links reset before any of their devices is revalidated, so the
    order between two addresses' lines is the scheduler's, not a decision; within one
    address the order is kept. Returns (matched, total, unified diff text)."""
    want = [ln for ln in expected.read_text().splitlines() if ln and not ln.startswith("#")]
    got = run_lines(run_dir)
    matched, text = 0, []
    for addr in sorted({_addr(x) for x in want + got}, key=_addr_key):
        a = [x for x in want if _addr(x) == addr]
        b = [x for x in got if _addr(x) == addr]
        sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
        matched += sum(blk.size for blk in sm.get_matching_blocks())
        if a and a != b:    # (addresses the report never names are the run's own)
            text += list(difflib.unified_diff(a, b, f"report {addr}", f"satasim {addr}", lineterm="", n=1))
    return matched, len(want), text


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "diff":
        ap = argparse.ArgumentParser(prog="satasim import-dmesg diff")
        ap.add_argument("expected", type=Path)
        ap.add_argument("run_dir", type=Path)
        a = ap.parse_args(argv[1:])
        try:
            matched, total, text = diff(a.expected, a.run_dir)
        except OSError as e:
            print(f"satasim import-dmesg: {e}", file=sys.stderr)
            return 2
        for ln in text:
            print(ln)
        print(f"matched {matched} of {total} report decision lines")
        return 0 if matched == total else 1
    ap = argparse.ArgumentParser(prog="satasim import-dmesg",
                                 description="libata kernel log -> scenario + expected decision lines")
    ap.add_argument("report", type=Path)
    ap.add_argument("-o", "--output", type=Path, required=True, help="scenario file to write (NAME.yaml)")
    a = ap.parse_args(argv)
    try:
        scen, exp, notes = import_report(a.report, a.output)
    except (DmesgError, OutputError) as e:
        print(f"satasim import-dmesg: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"satasim import-dmesg: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    for n in notes:
        print(f"note: {a.report}:{n}")
    print(f"wrote {scen} and {exp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
