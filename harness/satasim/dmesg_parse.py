"""Reading a Linux libata kernel log (dmesg, journalctl -k) into plain facts: the controller,
each port's link and disk, and each EH exception with its failed commands, resets,
speed-downs and the block layer's I/O errors. Only libata's own line formats are read
(Linux 4.x-6.x wording); other lines are skipped. A line that is libata's but does not
parse is an error naming the file and line (DmesgError).

Used by satasim.import_dmesg (scenario + expected decision lines) and its diff."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

# "[   12.345678] " and journald's "Dec 04 10:00:00 host kernel: " prefixes
_PREFIX = re.compile(r"^(?:\S+\s+\d+\s+[\d:]+\s+\S+\s+kernel:\s*)?(?:\[\s*(?P<t>\d+\.\d+)\]\s*)?(?P<rest>.*)$")
_ATA = re.compile(r"^(?:ahci|sata_\w+) [0-9a-f:.]+: (?P<host>.*)$|^(?P<addr>ata(?P<port>\d+)(?:\.(?P<dev>\d{2}))?): (?P<msg>.*)$")


class DmesgError(Exception):
    """A libata line that does not parse: 'file:line: why'."""


@dataclass
class Command:
    """One `failed command` block of an exception (cmd / res lines decoded)."""
    line: int
    name: str
    opcode: int = 0
    lba: int = 0
    sectors: int = 0
    tag: int = 0
    ncq: bool = False
    write: bool = False
    res_status: int = 0
    res_error: int = 0
    res_lba: int = 0
    emask: int = 0
    emask_desc: str = ""
    error_bits: list[str] = field(default_factory=list)
    status_bits: list[str] = field(default_factory=list)


@dataclass
class Exception_:
    line: int
    t: float
    port: int              # 0-based controller port
    dev: int | None        # None: a link-level exception ("ataN: exception")
    emask: int
    sact: int
    serr: int
    action: int
    frozen: bool
    desc: list[str] = field(default_factory=list)  # irq_stat / SError / free text lines
    commands: list[Command] = field(default_factory=list)


@dataclass
class Disk:
    port: int
    model: str = ""
    firmware: str = ""
    ata_major: int = 8
    max_udma: int = 6
    sectors: int = 0
    multi: int = 16
    lba48: bool = True
    ncq: bool = True
    ncq_depth: int = 32
    gen: int = 0            # first link speed seen
    configured: str = ""


@dataclass
class Report:
    file: str
    ports: int = 0
    slots: int = 32
    gen: int = 3
    disks: dict[int, Disk] = field(default_factory=dict)
    exceptions: list[Exception_] = field(default_factory=list)
    # (line, t, address, message): every libata line of the report, in order
    lines: list[tuple[int, float, str, str]] = field(default_factory=list)
    io_errors: list[tuple[int, str, int, str]] = field(default_factory=list)  # line, dev, sector, op
    force: list[str] = field(default_factory=list)  # FORCE: lines, as "ata2: 1.5Gbps"
    boot_end: float = 0.0   # time of the last boot-probe line (first `configured for` round)
    link_down: list[tuple[int, float, int]] = field(default_factory=list)  # line, t, port


GBPS = {"1.5": 1, "3.0": 2, "6.0": 3}
UDMA = {"UDMA/16": 0, "UDMA/25": 1, "UDMA/33": 2, "UDMA/44": 3, "UDMA/66": 4, "UDMA/100": 5,
        "UDMA/133": 6, "UDMA7": 7}

# the taskfile of a cmd/res line: FIRST/feature:nsect:lbal:lbam:lbah/hob x5/device
_TF = (r"(?P<f>[0-9a-f]{2}):(?P<n>[0-9a-f]{2}):(?P<l0>[0-9a-f]{2}):(?P<l1>[0-9a-f]{2}):(?P<l2>[0-9a-f]{2})/"
       r"(?P<hf>[0-9a-f]{2}):(?P<hn>[0-9a-f]{2}):(?P<h0>[0-9a-f]{2}):(?P<h1>[0-9a-f]{2}):(?P<h2>[0-9a-f]{2})/"
       r"(?P<d>[0-9a-f]{2})")
_CMD = re.compile(r"^cmd (?P<c>[0-9a-f]{2})/" + _TF + r"(?: tag (?P<tag>\d+))?(?P<rest>.*)$")
# res: status/error (the feature position holds the error register)
_RES = re.compile(r"^res (?P<s>[0-9a-f]{2})/" + _TF.replace("(?P<f>", "(?P<e>") +
                  r" Emask (?P<em>0x[0-9a-f]+)(?: \((?P<desc>[^)]*)\))?")
_EXC = re.compile(r"^exception Emask (?P<em>0x[0-9a-f]+) SAct (?P<sa>0x[0-9a-f]+) SErr (?P<se>0x[0-9a-f]+)"
                  r" action (?P<ac>0x[0-9a-f]+)(?P<fr> frozen)?")
_LINK_UP = re.compile(r"^SATA link up (?P<g>[\d.]+) Gbps \(SStatus [0-9a-f]+ SControl [0-9a-f]+\)$")
_LINK_DOWN = re.compile(r"^SATA link down \(SStatus [0-9a-f]+ SControl [0-9a-f]+\)$")
_IDENT = re.compile(r"^(?:ATA|ATAPI)-(?P<maj>\d+): (?P<model>.*), (?P<fw>[^,]*), max (?P<max>\S+)")
_CAP = re.compile(r"^(?P<n>\d+) sectors, multi (?P<m>\d+): (?P<lba>LBA48|LBA)(?P<rest>.*)$")
_AHCI = re.compile(r"^AHCI [0-9a-f.]+ (?P<slots>\d+) slots (?P<ports>\d+) ports (?P<g>[\d.]+) Gbps")
_IOERR = re.compile(r"I/O error, dev (?P<dev>\w+), sector (?P<sec>\d+) op 0x\d+:\((?P<op>\w+)\)")

# lines that start a construct and must parse
_MUST = {"cmd ": _CMD, "res ": _RES, "exception Emask": _EXC, "SATA link up": _LINK_UP,
         "SATA link down": _LINK_DOWN}


# Unicode categories no kernel log line holds (dmesg prints such bytes as \xNN): C0/C1
# controls (tab aside), format characters (U+202E turns text around), line and paragraph
# separators, surrogates, private use, unassigned.
_BAD_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}


def bad_char(text: str) -> str | None:
    """The first character of `text` a kernel log line cannot hold, or None."""
    for ch in text:
        if ch != "\t" and unicodedata.category(ch) in _BAD_CATEGORIES:
            return ch
    return None


def describe_char(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


def printable(text: str) -> str:
    """`text` with the characters bad_char() finds escaped, for file names in outputs."""
    return "".join(ascii(ch)[1:-1] if ch != "\t" and unicodedata.category(ch) in _BAD_CATEGORIES
                   else ch for ch in text)


def _short(digits: str) -> str:
    return digits if len(digits) <= 20 else f"{digits[:12]}...({len(digits)} digits)"


def _bounded(file: str, no: int, what: str, digits: str, lo: int, hi: int) -> int:
    """A decimal field of line `no`, refused outside [lo, hi] (before int(): Python refuses
    to convert more than 4,300 digits with a ValueError, and the scenario reader refuses
    what its keys cannot take)."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(hi)) or not lo <= int(digits) <= hi:
        raise DmesgError(f"{file}:{no}: {what} {_short(digits)} out of range {lo}..{hi}")
    return int(digits)


def _ident(file: str, no: int, what: str, value: str) -> str:
    """An IDENTIFY string (model, firmware): printable ASCII, as in the drive's words."""
    if not all(" " <= ch <= "~" for ch in value):
        raise DmesgError(f"{file}:{no}: {what}: {ascii(value)} is not printable ASCII "
                         "(IDENTIFY strings are)")
    return value


MAX_PORTS = 32              # an AHCI controller's (the scenario reader's limit)
MAX_SECTORS = (1 << 48) - 1
MAX_SECONDS = 10 ** 9       # a log's timestamp: seconds since boot (31 years)


def _lba(m) -> int:
    v = [int(m.group(k), 16) for k in ("l0", "l1", "l2", "h0", "h1", "h2")]
    lba = v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24 | v[4] << 32 | v[5] << 40
    return lba


def parse(text: str, file: str) -> Report:
    r = Report(file)
    exc: Exception_ | None = None
    cmd: Command | None = None
    boot_done_ports: set[int] = set()
    any_libata = False
    cont_addr = None
    # Lines end at "\n" only: str.splitlines() also splits at U+2028, U+0085, form feed...,
    # which a line may hold, and the line numbers would no longer be the file's.
    for no, raw in enumerate(text.split("\n"), 1):
        raw = raw.removesuffix("\r")
        pm = _PREFIX.match(raw)
        t = 0.0
        if pm and pm.group("t"):
            whole, frac = pm.group("t").split(".")
            t = _bounded(file, no, "time", whole, 0, MAX_SECONDS) + float("0." + frac)
        rest = pm.group("rest") if pm else raw
        io = _IOERR.search(rest)
        if io:
            sector = _bounded(file, no, "I/O error sector", io.group("sec"), 0, (1 << 64) - 1)
            r.io_errors.append((no, io.group("dev"), sector, io.group("op")))
            continue
        # cmd's "res" continuation line carries no address (libata prints both lines at once)
        if cont_addr and (c := re.match(r"^\s+(res .*)$", rest)):
            rest = f"{cont_addr}: {c.group(1)}"
        cont_addr = None
        m = _ATA.match(rest)
        if not m:
            continue
        if (ch := bad_char(rest)) is not None:
            raise DmesgError(f"{file}:{no}: control character {describe_char(ch)} in a libata line "
                             "(a kernel log has none: is the file mangled?)")
        any_libata = True
        if m.group("host") is not None:
            a = _AHCI.match(m.group("host"))
            if a:
                r.slots = _bounded(file, no, "AHCI slots", a.group("slots"), 1, 32)
                r.ports = _bounded(file, no, "AHCI ports", a.group("ports"), 1, MAX_PORTS)
                r.gen = {"1.5": 1, "3": 2, "6": 3}.get(a.group("g"), 3)
            continue
        if m.group("port").lstrip("0") == "":
            raise DmesgError(f"{file}:{no}: {m.group('addr')}: libata numbers ports from ata1")
        port = _bounded(file, no, "ataN port number", m.group("port"), 1, MAX_PORTS) - 1
        dev = int(m.group("dev")) if m.group("dev") is not None else None
        addr, msg = m.group("addr"), m.group("msg").strip()
        for start, rx in _MUST.items():
            if msg.startswith(start) and not rx.match(msg):
                raise DmesgError(f"{file}:{no}: malformed '{start.strip()}' line: {msg!r}")
        r.ports = max(r.ports, port + 1)
        r.lines.append((no, t, addr, msg))
        if msg.startswith("SATA max ") or msg.startswith("DUMMY"):
            continue
        if (u := _LINK_UP.match(msg)):
            d = r.disks.setdefault(port, Disk(port))
            if not d.gen:
                d.gen = GBPS.get(u.group("g"), 3)
            continue
        if _LINK_DOWN.match(msg):
            if port in boot_done_ports or any(e.port == port for e in r.exceptions):
                r.link_down.append((no, t, port))
            continue
        if (i := _IDENT.match(msg)):
            d = r.disks.setdefault(port, Disk(port))
            d.model = _ident(file, no, "model", i.group("model"))
            d.firmware = _ident(file, no, "firmware", i.group("fw"))
            d.ata_major = _bounded(file, no, "ATA major version", i.group("maj"), 0, 255)
            d.max_udma = UDMA.get(i.group("max"), d.max_udma)
            continue
        if (c := _CAP.match(msg)):
            d = r.disks.setdefault(port, Disk(port))
            d.sectors = _bounded(file, no, "sectors", c.group("n"), 0, MAX_SECTORS)
            d.multi = _bounded(file, no, "multi", c.group("m"), 0, 65535)
            d.lba48 = c.group("lba") == "LBA48"
            q = re.search(r"NCQ \(depth (\d+)(?:/(\d+))?\)", c.group("rest"))
            d.ncq = q is not None or "NCQ (not used)" in c.group("rest")
            if q:
                d.ncq_depth = _bounded(file, no, "NCQ depth", q.group(2) or q.group(1), 0, 65535)
            continue
        if msg.startswith("configured for "):
            d = r.disks.setdefault(port, Disk(port))
            if port not in boot_done_ports and not r.exceptions:
                boot_done_ports.add(port)
                r.boot_end = max(r.boot_end, t)
            d.configured = d.configured or msg[len("configured for "):]
            continue
        if msg.startswith("FORCE: "):
            r.force.append(f"{addr}: {msg}")
            continue
        if (e := _EXC.match(msg)):
            exc = Exception_(no, t, port, dev, int(e.group("em"), 16), int(e.group("sa"), 16),
                             int(e.group("se"), 16), int(e.group("ac"), 16), bool(e.group("fr")))
            r.exceptions.append(exc)
            cmd = None
            continue
        if exc is None or exc.port != port:
            continue
        if msg.startswith("failed command: "):
            cmd = Command(no, msg[len("failed command: "):])
            exc.commands.append(cmd)
            continue
        if (c := _CMD.match(msg)):
            cont_addr = addr
            if cmd is None:
                raise DmesgError(f"{file}:{no}: 'cmd' line without a 'failed command:' line before it")
            cmd.opcode = int(c.group("c"), 16)
            cmd.lba = _lba(c)
            cmd.ncq = " ncq " in c.group("rest") + " "
            cmd.write = c.group("rest").rstrip().endswith(" out")
            if cmd.ncq:
                cmd.sectors = int(c.group("f"), 16) | int(c.group("hf"), 16) << 8
                cmd.tag = (_bounded(file, no, "tag", c.group("tag"), 0, 31) if c.group("tag")
                           else int(c.group("n"), 16) >> 3)
            else:
                cmd.sectors = int(c.group("n"), 16) | int(c.group("hn"), 16) << 8
                cmd.tag = _bounded(file, no, "tag", c.group("tag"), 0, 31) if c.group("tag") else 0
            if cmd.opcode in (0xc8, 0xca, 0x20, 0x30, 0xc4, 0xc5) and not cmd.sectors:
                cmd.sectors = 256
            continue
        if (s := _RES.match(msg)):
            if cmd is None:
                raise DmesgError(f"{file}:{no}: 'res' line without a 'failed command:' line before it")
            cmd.res_status, cmd.res_error = int(s.group("s"), 16), int(s.group("e"), 16)
            cmd.res_lba = _lba(s)
            cmd.emask, cmd.emask_desc = int(s.group("em"), 16), s.group("desc") or ""
            continue
        if msg.startswith("status: {") and cmd is not None:
            cmd.status_bits = msg[len("status: {"):].rstrip("}").split()
            continue
        if msg.startswith("error: {") and cmd is not None:
            cmd.error_bits = msg[len("error: {"):].rstrip("}").split()
            continue
        if msg.startswith("irq_stat ") or msg.startswith("SError: {"):
            exc.desc.append(msg)
    if not any_libata:
        raise DmesgError(f"{file}:1: no libata lines (ataN: ...) in the report")
    for e in r.exceptions:
        for c in e.commands:
            if not c.emask and not c.res_status:
                raise DmesgError(f"{file}:{c.line}: 'failed command: {c.name}' has no 'res' line after it")
    return r
