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
import difflib
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from satasim.dmesg_parse import DmesgError, Report, parse, printable

# The report lines that are EH/probe decisions (satasim's `decision` events print them).
DECISION = re.compile(
    r"^(SATA link (up|down) |configured for |exception Emask |failed command: |cmd [0-9a-f]{2}/|"
    r"res [0-9a-f]{2}/|status: \{|error: \{|hard resetting link|soft resetting link|"
    r"limiting SATA link speed|limiting speed to |NCQ disabled due to excessive errors|EH complete|"
    r"disabled$|disable device$|detaching \(SCSI|COMRESET failed|reset failed|SError: \{|irq_stat )")

READS = {0x60, 0x25, 0xc8, 0x24, 0x29, 0xc4, 0x20}
WRITES = {0x61, 0x35, 0xca, 0x34, 0x39, 0xc5, 0x30, 0x3d}
FLUSHES = {0xe7, 0xea}


def expected_lines(rep: Report) -> list[str]:
    return [f"{addr}: {msg}" for _, _, addr, msg in rep.lines if DECISION.match(msg)]


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


def build_scenario(rep: Report, name: str) -> tuple[str, list[str]]:
    """The scenario text, and notes on what could not be expressed."""
    notes: list[str] = []
    src = printable(os.path.basename(rep.file))   # a file name may hold a newline
    out = [f"# imported by satasim import-dmesg from {src}",
           f"name: {name}",
           f"description: >-\n  Reproduces the libata log {src}: "
           f"{len(rep.exceptions)} exception(s) on {len(rep.disks)} disk(s).",
           "seed: 1", "time_limit: 900s",
           f"controller: {{type: ahci, ports: {max(rep.ports, 1)}, slots: {rep.slots}, gen: {rep.gen}}}"]
    force = []
    for f in rep.force:
        m = re.match(r"^ata(\d+)(?:\.(\d\d))?: FORCE: (PHY spd limit set to (\S+)|horkage modified \((\w+)\)|"
                     r"xfer_mask set to (\S+))", f)
        if m:
            ident = m.group(1) + (f".{m.group(2)}" if m.group(2) else "")
            force.append(f"{ident}:{m.group(4) or m.group(5) or m.group(6)}")
    if force:
        out.append(f"host: {{force: {yaml_str(','.join(force))}}}")
    out.append("devices:")
    # A port whose exceptions the log shows but not its probe (an excerpt that starts after
    # the boot): a default disk there, said so, so that its faults have a disk to act on.
    anonymous = sorted({e.port for e in rep.exceptions if e.port not in rep.disks or not rep.disks[e.port].model})
    for port in anonymous:
        notes.append(f"ata{port + 1}: the log does not show this disk's probe (model, size): a default disk stands in")
        out.append(f"  - {{port: {port}, timing: {{kind: ssd}}}}")
    for port in sorted(rep.disks):
        d = rep.disks[port]
        if not d.model:
            continue  # a link without a disk identity (e.g. a PMP or an ATAPI we do not model)
        gen = f", gen: {d.gen}" if d.gen and d.gen < rep.gen else ""
        out.append(f"  - {{port: {port}, model: {yaml_str(d.model[:40])}, firmware: {yaml_str(d.firmware[:8])}, "
                   f"capacity: {d.sectors or 1953525168}, ata_major: {min(max(d.ata_major, 1), 14)}, "
                   f"multi: {d.multi if d.multi in (0, 1, 2, 4, 8, 16, 32, 64, 128) else 16}, "
                   f"lba48: {str(d.lba48).lower()}, ncq: {str(d.ncq).lower()}, "
                   f"ncq_depth: {min(max(d.ncq_depth, 1), 32)}, udma: {min(d.max_udma, 6)}{gen}, "
                   f"timing: {{kind: ssd}}}}")
    # One fault per distinct (port, kind, command) with the number of times the report
    # shows it (the retries of one command are the stack's to make), one request per
    # distinct failed command.
    faults: dict[str, int] = {}
    work: list[str] = []
    n_requests = 0  # requests for failed commands (not the queue fillers)
    seen: set[tuple] = set()
    for e in rep.exceptions:
        d = rep.disks.get(e.port)
        if e.dev is None or not e.commands:
            if any("PHYRdyChg" in x or "DevExch" in x for x in e.desc) and \
                    any(p == e.port and ln > e.line for ln, _, p in rep.link_down):
                faults.setdefault(f"{{kind: unplug, port: {e.port}, at: {_ms(e.t - rep.boot_end)}}}", 0)
            else:
                notes.append(f"{e.line}: link exception without a failed command: not reproduced")
            continue
        group: list[str] = []  # this exception's new requests, issued at one instant
        for c in e.commands:
            op = _op(c)
            lba_range = f"[{c.lba}, {c.lba + max(c.sectors, 1) - 1}]"
            match = "{op: flush}" if op == "flush" else f"{{op: {op}, lba: {lba_range}}}"
            if "timeout" in c.emask_desc:
                f = f"kind: hang, port: {e.port}, on_cmd: {match}"
            elif "ATA bus error" in c.emask_desc or "ICRC" in c.error_bits:
                f = (f"kind: crc, port: {e.port}, dir: {'h2d' if op == 'write' else 'd2h'}, fis: data, "
                     f"{_symbol(e.serr)}on_cmd: {match}")
            elif "UNC" in c.error_bits or "IDNF" in c.error_bits:
                kind = "unc" if "UNC" in c.error_bits else "idnf"
                f = f"kind: media_error, port: {e.port}, on_cmd: {{op: {op}, lba: [{c.res_lba}, {c.res_lba}]}}, error: {kind}"
            elif op == "flush" or "ABRT" in c.error_bits or "DF" in c.status_bits:
                kind = "write_fault" if "DF" in c.status_bits else "abrt"
                f = f"kind: media_error, port: {e.port}, on_cmd: {match}, error: {kind}"
            else:
                notes.append(f"{c.line}: failed command with Emask 0x{c.emask:x} ({c.emask_desc}): "
                             "no fault kind for it")
                continue
            faults[f] = faults.get(f, 0) + 1
            if (d is None or not d.model) and e.port not in anonymous:
                continue
            if op == "flush":
                req = f"  - {{kind: request, device: {e.port}, op: flush}}"
            else:
                # the protocol of the first failure (EH may turn NCQ off for the retries)
                req = (f"  - {{kind: request, device: {e.port}, op: {op}, lba: {c.lba}, "
                       f"sectors: {max(c.sectors, 1)}, mode: {'ncq' if c.ncq else 'dma'}, verify: false"
                       + (f", tag: {c.tag}" if c.ncq else "") + "}")
            key = (e.port, op, c.lba, c.sectors)  # its retries (NCQ off or not) are the stack's
            if key not in seen:
                seen.add(key)
                group.append(req)
        if group:
            n_requests += len(group)
            work.extend(_issue_together(group + _queue_fillers(e)))
    fault_lines = []
    for f, n in faults.items():
        if f.startswith("{kind: unplug"):
            fault_lines.append(f"  - {f}")
        elif "kind: media_error" in f:
            fault_lines.append(f"  - {{{f}, count: {n}}}" if n == 1 else
                               f"  - {{{f}, count: 1, repeat: {n}, every_cmds: 1}}")
        else:
            fault_lines.append(f"  - {{{f}}}" if n == 1 else f"  - {{{f}, repeat: {n}, every_cmds: 1}}")
    faults = fault_lines
    errors = len(rep.io_errors)  # requests the block layer gave up on
    out.append("workload:" if work else "workload: []")
    out.extend(work)
    out.append("faults:" if faults else "faults: []")
    out.extend(faults)
    out.append("expect:")
    out.append("  all_devices_found: true")
    out.append(f"  io_errors_max: {max(errors, n_requests)}")
    out.append(f"  absent_after: [{', '.join(str(p) for p in sorted({p for _, _, p in rep.link_down}))}]")
    return "\n".join(out) + "\n", notes


def _issue_together(reqs: list[str]) -> list[str]:
    """One exception's requests: the first waits for everything before it (barrier), the
    rest go out at the same instant, so they are in flight together as in the report."""
    return [r[:-1] + (", barrier: true}" if i == 0 else ", barrier: false}") for i, r in enumerate(reqs)]


def _queue_fillers(e) -> list[str]:
    """The rest of an NCQ exception's queue: one read per tag of its SAct that no failed
    command holds, with that tag, so the run has the report's queue depth and tags (its
    SAct and cmd lines). They read sectors no failed command of the exception touches."""
    held = {c.tag for c in e.commands if c.ncq}
    if not held:
        return []
    busy = [(c.lba, c.lba + max(c.sectors, 1)) for c in e.commands]
    out, lba = [], 0
    for t in (t for t in range(32) if e.sact >> t & 1 and t not in held):
        while (hit := [hi for lo, hi in busy if lo < lba + 8 and lba < hi]):
            lba = max(hit)
        out.append(f"  - {{kind: request, device: {e.port}, op: read, lba: {lba}, sectors: 8, mode: ncq, "
                   f"verify: false, tag: {t}}}")
        lba += 8
    return out


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


def write_outputs(files: list[tuple[Path, str]], report: Path) -> None:
    """Writes every (path, text) or none: all targets are checked first, each text goes to a
    temporary file beside its target, and only then are they renamed into place (a failed
    rename puts back what was there). New files get 0666 less the umask (mkstemp's 0600 is
    for secrets), a replaced file keeps its mode."""
    targets = [(_target(p), p) for p, _ in files]
    seen = {os.path.realpath(report): f"{report} is the report itself"}
    for (real, _), p in targets:
        if str(real) in seen:
            raise OutputError(f"{p}: {seen[str(real)]}; name the scenario NAME.yaml")
        seen[str(real)] = f"{p} would be written twice (the scenario and its .expected)"
    new_mode = 0o666 & ~_umask()
    tmps, placed = [], []   # placed: (target, backup of what it replaced or None)
    try:
        for ((real, mode), p), (_, text) in zip(targets, files):
            try:
                fd, tmp = tempfile.mkstemp(dir=str(real.parent), prefix=f".{real.name}.")
            except OSError as e:
                raise OutputError(f"{p}: cannot write in {real.parent}: {e.strerror}") from None
            tmps.append(tmp)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                os.fchmod(f.fileno(), new_mode if mode is None else mode)
                f.write(text)
        for ((real, mode), p), tmp in zip(targets, tmps):
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
            if os.path.lexists(tmp):
                os.unlink(tmp)
        raise
    for _, backup in placed:
        if backup:
            os.unlink(backup)


def import_report(report: Path, out: Path) -> tuple[Path, Path, list[str]]:
    text = report.read_text(errors="replace")
    rep = parse(text, str(report))
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", out.stem) or "imported"
    scen, notes = build_scenario(rep, name)
    exp = out.with_suffix(".expected")
    header = [f"# expected: the libata decision lines of {printable(str(report))}", f"# scenario: {name}"]
    write_outputs([(out, scen), (exp, "\n".join(header + expected_lines(rep)) + "\n")], report)
    return out, exp, notes


# ---------------------------------------------------------------- diff

_LOG = re.compile(r"^\[\s*\d+\.\d+\] (?P<addr>ata\d+(?:\.\d\d)?): (?P<msg>.*)$")


def run_lines(run_dir: Path) -> list[str]:
    out = []
    for raw in (run_dir / "satasim.log").read_text().splitlines():
        m = _LOG.match(raw)
        if m and DECISION.match(m.group("msg")):
            out.append(f"{m.group('addr')}: {m.group('msg')}")
    return out


def diff(expected: Path, run_dir: Path) -> tuple[int, int, list[str]]:
    want = [ln for ln in expected.read_text().splitlines() if ln and not ln.startswith("#")]
    got = run_lines(run_dir)
    sm = difflib.SequenceMatcher(a=want, b=got, autojunk=False)
    matched = sum(b.size for b in sm.get_matching_blocks())
    text = list(difflib.unified_diff(want, got, "report", "satasim", lineterm="", n=1))
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
