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

from satasim.controller_table import GLUE_MATCHES, KERNEL_DRIVERS, SFF, kernel_driver_of, port_desc_driver
from satasim.dmesg_pmp import pmp_ids

# The prefixes a kernel line gets on its way to a bug report, stripped in this order (each
# optional): a mail quote ("> ", a reader's ">>> "), printk's "<3>" level, a syslog/journal
# header (date or ISO time, host, "kernel:" / "[kernel]"; metalog and syslog-ng keep no tag),
# dmesg -T's "[Fr Aug 26 22:01:01 2022]" and the kernel's own "[   12.345678]".
_QUOTE = re.compile(r"^(?:>+ ?)+")
_LEVEL = re.compile(r"^<\d>")
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_SYSLOG = re.compile(
    r"^(?:(?:" + _MONTH + r"\s+\d{1,2}\s+(?P<hms>\d{2}:\d{2}:\d{2})(?P<ms>\.\d+)?"
    r"|\d{4}-\d{2}-\d{2}[T ](?P<iso>\d{2}:\d{2}:\d{2})(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|(?P<hmz>\d{2}:\d{2}:\d{2})(?:[+-]\d{2}:\d{2}))\s+"
    r"(?:(?P<host>[^\s:\[\]]+)\s+(?=kernel:|\[kernel\]|ata\d|res\b))?(?:kernel:|\[kernel\])?"
    r"|kernel:)\s*")
_DMESG_T = re.compile(r"^\[[A-Za-z]{2,3}\.? [A-Za-z]{3}\.?\s+\d{1,2} (?P<hms>\d{2}:\d{2}:\d{2}) \d{4}\]")
_UPTIME = re.compile(r"^\[\s*(?P<t>\d+\.\d+)\]")
# A line that starts a kernel message of its own even without a header (the bare form): an
# ataN address, a driver's "name 0000:00:1f.2:" or any "subsystem:" / "name[pid]:" word.
_STARTS = re.compile(r"^(?:ata\d+(?:\.\d+)?: |[\w.-]+ [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: |"
                     r"[A-Za-z][\w./-]*(?:\[\d+\])?: |sd \d+:\d+:\d+:\d+: |scsi\d* )")
# A libata driver's host line: a modelled controller's driver (or its platform glue, e.g.
# ahci_sunxi or imx_ahci: the controller table's kernel_driver and kernel_glue_match) or any
# other SATA / PATA driver.
_DRIVERS = "|".join(
    [rf"{re.escape(g)}[\w-]*|\w+_{re.escape(g)}\w*" for g in GLUE_MATCHES] + [r"sata_\w+", r"pata_\w+"]
    + [re.escape(d) for d in KERNEL_DRIVERS if not d.startswith("sata_") and not any(g in d for g in GLUE_MATCHES)]
    + ["ata_generic"])
_ATA = re.compile(rf"^(?P<drv>{_DRIVERS}) (?P<pci>\S+): (?P<host>.*)$"
                  r"|^(?P<addr>ata(?P<port>\d+)(?:\.(?P<dev>\d{2}))?): (?P<msg>.*)$")


@dataclass
class Message:
    """One kernel message as the kernel printed it: its first line in the file, its time in
    seconds (0 when the form has none), its text without prefixes, with the lines a mailer
    wrapped or the kernel continued (cmd/res) joined back."""
    line: int
    t: float
    text: str
    notes: list[str] = field(default_factory=list)


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
    prot: str = ""          # the cmd line's protocol: "ncq", "dma", "pio", "" (none printed)
    nodata: bool = False    # the cmd line moves no data ("tag 0" alone, "nodata", 2.6.2x "data 0")
    tf: tuple[int, ...] = ()  # the cmd line's taskfile: command, feature, count, lbal, lbam, lbah,
    #                           hob feature, hob count, hob lbal, hob lbam, hob lbah, device
    has_res: bool = False
    res_status: int = 0
    res_error: int = 0
    res_lba: int = 0
    # the res line's other registers, as printed: count, LBA low/mid/high, hob feature, hob
    # count, hob LBA low/mid/high, device (what a slot's earlier result may have left there)
    res_regs: tuple[int, ...] = ()
    res_line: int = 0       # the line of the message the res part is in (its cmd line's, continued)
    emask: int = 0
    emask_desc: str = ""
    error_bits: list[str] = field(default_factory=list)
    status_bits: list[str] = field(default_factory=list)


@dataclass
class Exception_:
    line: int
    t: float
    port: int              # 0-based controller port
    dev: int | None        # None: a link-level exception ("ataN: exception"); else ataN.DD's DD
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
    dev: int = 0            # ataN.DD's DD: 0, a PATA/ICH slave's 1, a PMP fan-out port
    model: str = ""
    firmware: str = ""
    ata_major: int = 8
    max_udma: int = 6
    sectors: int = 0
    multi: int = 16
    lba48: bool = True
    ncq: bool = True
    ncq_depth: int = 32
    gen: int = 0            # first link speed seen (its own link's, behind a PMP)
    own_gen: bool = False   # gen is from its own link (ataN.DD), not the port's host link
    configured: str = ""
    atapi: bool = False
    identified: bool = False   # an ATA-N identity line: else only known by its address
    boot: bool = False         # attached at the report's boot probe (its `configured for` before any error)
    max_lba: int = 0           # the highest sector a command of the report touches
    # a device is there: it was identified, configured, failed a command, was disabled or
    # detached; or its link's last state in the log is up (a link that only ever went down
    # or was reset is an empty connector)
    evidence: bool = False
    link_up: bool = False       # its own link (ataN.DD: behind a PMP) last seen up
    port_link_up: bool = False  # the port's link (ataN:) last seen up


@dataclass
class Report:
    file: str
    ports: int = 0
    slots: int = 32
    gen: int = 3
    driver: str = ""        # the low-level driver the log names (ahci, sata_sil24, ata_piix, ...)
    host_drivers: list[str] = field(default_factory=list)   # of "drv 0000:00:1f.2: ..." lines
    port_driver: dict[int, str] = field(default_factory=dict)  # 0-based port -> its driver
    pata: bool = False      # "ataN: PATA max ..." ports
    sss: bool = False       # ahci's "SSS flag set, parallel bus scan disabled"
    disks: dict[tuple[int, int], Disk] = field(default_factory=dict)
    pmps: dict[int, int] = field(default_factory=dict)  # host port -> fan-out ports
    pmp_ids: dict[int, tuple[int, tuple[int, int]]] = field(default_factory=dict)  # port -> (line, GSCR[0] ids)
    exceptions: list[Exception_] = field(default_factory=list)
    # (line, t, address, message): every libata line of the report, in order
    lines: list[tuple[int, float, str, str]] = field(default_factory=list)
    io_errors: list[tuple[int, str, int, str]] = field(default_factory=list)  # line, dev, sector, op
    force: list[str] = field(default_factory=list)  # FORCE: lines, as "ata2: FORCE: ..."
    cmdline_force: str = ""  # libata.force= of a "Command line:" line
    cmdline_line: int = 0
    kernel: str = ""        # the "Linux version X.Y.Z" line's version
    kernel_line: int = 0
    boot_end: float = 0.0   # time of the last boot-probe line (first `configured for` round)
    link_down: list[tuple[int, float, int]] = field(default_factory=list)  # line, t, port
    notes: list[str] = field(default_factory=list)   # "LINE: what was read with a doubt"


GBPS = {"1.5": 1, "3.0": 2, "6.0": 3}
UDMA = {"UDMA/16": 0, "UDMA/25": 1, "UDMA/33": 2, "UDMA/44": 3, "UDMA/66": 4, "UDMA/100": 5,
        "UDMA/133": 6, "UDMA7": 7}

# the taskfile of a cmd/res line: FIRST/feature:nsect:lbal:lbam:lbah/hob x5/device
_TF = (r"(?P<f>[0-9a-f]{2}):(?P<n>[0-9a-f]{2}):(?P<l0>[0-9a-f]{2}):(?P<l1>[0-9a-f]{2}):(?P<l2>[0-9a-f]{2})/"
       r"(?P<hf>[0-9a-f]{2}):(?P<hn>[0-9a-f]{2}):(?P<h0>[0-9a-f]{2}):(?P<h1>[0-9a-f]{2}):(?P<h2>[0-9a-f]{2})/"
       r"(?P<d>[0-9a-f]{2})")
_CMD = re.compile(r"^cmd (?P<c>[0-9a-f]{2})/" + _TF + r"(?: tag (?P<tag>\d+))?(?P<rest>.*)$")
# what follows the tag: " ncq dma 4096 in" (6.x), " ncq 4096 in" (3.x-5.x), " dma 4096 out",
# " pio 512 in", or 2.6.2x's " cdb 0x0 data 4096 in"
_DATA = re.compile(r"^ (?:(?P<prot>ncq dma|ncq|dma|pio|nodata)|cdb 0x[0-9a-f]+ data) (?P<n>\d+) (?P<dir>in|out)\b")
# res: status/error (the feature position holds the error register)
_RES = re.compile(r"^res (?P<s>[0-9a-f]{2})/" + _TF.replace("(?P<f>", "(?P<e>") +
                  r" Emask (?P<em>0x[0-9a-f]+)(?: \((?P<desc>[^)]*)\))?")
_EXC = re.compile(r"^exception Emask (?P<em>0x[0-9a-f]+) SAct (?P<sa>0x[0-9a-f]+) SErr (?P<se>0x[0-9a-f]+)"
                  r" action (?P<ac>0x[0-9a-f]+)(?P<fr> frozen)?")
# SStatus/SControl are printed with %X
_LINK_UP = re.compile(r"^SATA link up (?P<g>[\d.]+) Gbps \(SStatus [0-9A-Fa-f]+ SControl [0-9A-Fa-f]+\)$")
_LINK_DOWN = re.compile(r"^SATA link down \(SStatus [0-9A-Fa-f]+ SControl [0-9A-Fa-f]+\)$")
_IDENT = re.compile(r"^(?:ATA|ATAPI)-(?P<maj>\d+): (?P<model>.*), (?P<fw>[^,]*), max (?P<max>\S+)")
_CAP = re.compile(r"^(?P<n>\d+) sectors, multi (?P<m>\d+): (?P<lba>LBA48|LBA)(?P<rest>.*)$")
_AHCI = re.compile(r"^AHCI [0-9a-f.]+ (?P<slots>\d+) slots (?P<ports>\d+) ports (?P<g>[\d.]+) Gbps")
# "op 0x0:(READ) flags 0x80700" since 4.x; older kernels print the sector only
_IOERR = re.compile(r"I/O error,? dev (?P<dev>\w+), sector (?P<sec>\d+)(?: op 0x[0-9a-f]+:\((?P<op>\w+)\))?")

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


# the "res" part of a cmd message: after the cmd's taskfile (and an ATAPI command's CDB text,
# which may run into it: "... 40 00res 50/00:03:...")
_RES_AT = re.compile(r"(?:(?<=\s)|(?<=[0-9a-f])|^)res\s*(?=[0-9a-f]{2}/[0-9a-f]{2}:)")
_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}


def _hms(text: str) -> float:
    h, m, sec = (int(x) for x in text.split(":"))
    return h * 3600 + m * 60 + sec


def _strip(file: str, no: int, piece: str) -> tuple[str, bool, float | None, float | None, list[str]]:
    """(body, had a header, uptime, wall-clock seconds of day, notes) of one physical line."""
    s = piece.lstrip()
    header, up, wall, notes = False, None, None, []
    if (m := _QUOTE.match(s)):
        notes.append(f"{no}: a quote marker {m.group(0).strip()!r} before the line (ignored)")
        s = s[m.end():].lstrip()
    if (m := _LEVEL.match(s)):
        s, header = s[m.end():], True
    if (m := _SYSLOG.match(s)):
        header = True
        hms = m.group("hms") or m.group("iso") or m.group("hmz")
        if hms:
            wall = _hms(hms) + float(m.group("ms") or 0)
        s = s[m.end():]
    if (m := _DMESG_T.match(s)):
        header, wall = True, _hms(m.group("hms"))
        s = s[m.end():]
        s = s[1:] if s.startswith(" ") else s
    if (m := _UPTIME.match(s)):
        header = True
        whole, frac = m.group("t").split(".")
        up = _bounded(file, no, "time", whole, 0, MAX_SECONDS) + float("0." + frac)
        s = s[m.end():]
        s = s[1:] if s.startswith(" ") else s     # dmesg's one space after the stamp
    return s, header, up, wall, notes


def messages(text: str, file: str) -> list[Message]:
    """The kernel messages of a report in any of the forms users paste: dmesg (also -T),
    journalctl, syslog/kern.log/metalog lines, a serial console with other lines between,
    CRLF endings, rsyslog's #012 for an embedded newline, lines a mailer wrapped or quoted,
    printk levels. A line without a header of its own that does not start a message (an
    indented "res ..." of libata's two-line report, the tail of a wrapped line) continues
    the message before it; a timestamped line whose text is indented does too (dmesg stamps
    each line of a multi-line message)."""
    out: list[Message] = []
    wall0, last_wall, day = None, None, 0.0
    # Lines end at "\n" only: str.splitlines() also splits at U+2028, U+0085, form feed...,
    # which a line may hold, and the line numbers would no longer be the file's.
    for no, raw in enumerate(text.split("\n"), 1):
        raw = raw.removesuffix("\r")
        # rsyslog escapes control characters: #012 a newline, #011 a tab
        for piece in raw.replace("#011", "\t").split("#012"):
            # "0×1": a typographer's multiplication sign for the x of 0x (only between a
            # 0 and a hex digit)
            piece = re.sub(r"(?<=\b0)\u00d7(?=[0-9a-fA-F])", "x", piece).replace("\u00a0", " ")
            body, header, up, wall, notes = _strip(file, no, piece)
            if not body.strip():
                continue            # blank lines: double-spaced pastes
            t = up
            if t is None and wall is not None:
                if last_wall is not None and wall + day < last_wall - 43200:
                    day += 86400    # past midnight
                last_wall = wall + day
                wall0 = last_wall if wall0 is None else wall0
                t = last_wall - wall0
            lead = body[:1].isspace()
            text_ = body.strip()
            prev = out[-1] if out else None
            is_res = bool(re.match(r"res\s*[0-9a-f]{2}/", text_)) and prev is not None and \
                re.search(r"^ata\d+(?:\.\d\d)?: cmd(?: |$)", prev.text) is not None
            cont = prev is not None and (is_res or (not _STARTS.match(text_) and (not header or lead)))
            if cont:
                prev.text = prev.text.rstrip() + " " + text_
                prev.notes.extend(notes)
            else:
                out.append(Message(no, t if t is not None else (prev.t if prev else 0.0), text_, notes))
    return out


def _cmd_name(opcode: int) -> str:
    return {0x25: "READ DMA EXT", 0xc8: "READ DMA", 0x35: "WRITE DMA EXT", 0xca: "WRITE DMA",
            0x60: "READ FPDMA QUEUED", 0x61: "WRITE FPDMA QUEUED", 0xe7: "FLUSH CACHE",
            0xea: "FLUSH CACHE EXT", 0x20: "READ SECTOR(S)", 0x30: "WRITE SECTOR(S)",
            0x24: "READ SECTOR(S) EXT", 0x34: "WRITE SECTOR(S) EXT", 0xc4: "READ MULTIPLE",
            0xc5: "WRITE MULTIPLE", 0x29: "READ MULTIPLE EXT", 0x39: "WRITE MULTIPLE EXT",
            0xef: "SET FEATURES", 0xa0: "PACKET", 0xec: "IDENTIFY DEVICE"}.get(opcode, f"0x{opcode:02x}")


LBA28 = {0xc8, 0xca, 0x20, 0x30, 0xc4, 0xc5, 0x40, 0x42, 0x70}   # LBA bits 24-27 in the device register


def _driver(name: str) -> str:
    """The libata LLD a name in the log stands for (a platform glue, ahci_sunxi, is its LLD:
    the controller table's kernel_glue_match)."""
    return kernel_driver_of(name)


def parse(text: str, file: str) -> Report:
    r = Report(file)
    exc: Exception_ | None = None
    cmd: Command | None = None
    boot_done: set[tuple[int, int]] = set()
    any_libata = False
    last_dev: dict[int, int] = {}      # port -> the device of its last per-device line
    for msg in messages(text, file):
        no, t, body = msg.line, msg.t, msg.text
        r.notes.extend(msg.notes)
        io = _IOERR.search(body)
        if io:
            sector = _bounded(file, no, "I/O error sector", io.group("sec"), 0, (1 << 64) - 1)
            r.io_errors.append((no, io.group("dev"), sector, io.group("op") or ""))
            continue
        if (kv := re.match(r"^Linux version (\d+\.\d+[\w.+~-]*)", body)):
            r.kernel, r.kernel_line = kv.group(1), no
            continue
        if body.startswith("Command line:") and (f := re.search(r"\blibata\.force=(\S+)", body)):
            r.cmdline_force, r.cmdline_line = f.group(1), no
            continue
        if (h := re.match(r"^scsi ?(?:host)?(?P<n>\d+) ?: (?P<d>[\w-]+)\s*$", body)):
            # libata registers one SCSI host per port, in port order: hostN is usually ataN+1
            if len(h.group("n")) < 4:
                r.port_driver.setdefault(int(h.group("n")), _driver(h.group("d")))
            continue
        m = _ATA.match(body)
        if not m:
            continue
        if (ch := bad_char(body)) is not None:
            raise DmesgError(f"{file}:{no}: control character {describe_char(ch)} in a libata line "
                             "(a kernel log has none: is the file mangled?)")
        any_libata = True
        if m.group("host") is not None:
            r.driver = r.driver or _driver(m.group("drv"))
            r.host_drivers.append(_driver(m.group("drv")))
            hb = m.group("host")
            a = _AHCI.match(hb)
            if a:
                r.slots = _bounded(file, no, "AHCI slots", a.group("slots"), 1, 32)
                r.ports = max(r.ports, _bounded(file, no, "AHCI ports", a.group("ports"), 1, MAX_PORTS))
                r.gen = {"1.5": 1, "3": 2, "6": 3}.get(a.group("g"), 3)
            if "SSS flag set" in hb:
                r.sss = True
            continue
        if m.group("port").lstrip("0") == "":
            raise DmesgError(f"{file}:{no}: {m.group('addr')}: libata numbers ports from ata1")
        port = _bounded(file, no, "ataN port number", m.group("port"), 1, MAX_PORTS) - 1
        dev = int(m.group("dev")) if m.group("dev") is not None else None
        addr, msg_ = m.group("addr"), " ".join(m.group("msg").split())
        # libata's two-line report, joined: "cmd ... in res 40/..." (a journal keeps it on one
        # line; a dmesg line or a mailer's wrap was joined above)
        parts = [msg_]
        if msg_.startswith("cmd") and (rs := _RES_AT.search(msg_)):
            head = msg_[:rs.start()].strip()
            parts = [head, "res " + msg_[rs.end():].strip()]
        for msg_ in parts:
            exc, cmd = _one(r, file, no, t, port, dev, addr, msg_, exc, cmd, boot_done, last_dev)
    if not any_libata:
        raise DmesgError(f"{file}:1: no libata lines (ataN: ...) in the report")
    # A driver that describes its error interrupts (ahci, sata_sil24: "irq_stat 0x...") left no
    # description on a frozen exception that no interrupt raised: a command timed out, and the
    # exception's Emask is what the autopsy read from SError (0x40: SError.E, HostInt;
    # dmesg-corpus 48's ata8)
    irq_desc = any(d.startswith("irq_stat") for e in r.exceptions for d in e.desc)
    for e in r.exceptions:
        timed_out = e.frozen and (not e.emask or irq_desc and not any(d.startswith("irq_stat") for d in e.desc))
        for c in e.commands:
            if not c.has_res:
                how = "a timeout" if timed_out else f"Emask 0x{e.emask:x} of the exception"
                if timed_out and e.emask:
                    how += f" (a frozen exception with no irq_stat: no interrupt; Emask 0x{e.emask:x} from SError)"
                r.notes.append(f"{c.line}: 'failed command: {c.name}' has no 'res' line after it: "
                               f"read as {how}")
                c.emask = (e.emask | 0x4) if timed_out else e.emask
                c.emask_desc = "timeout" if timed_out else c.emask_desc
    return r


def _one(r: Report, file, no, t, port, dev, addr, msg, exc, cmd, boot_done, last_dev):
    """One libata message of `addr` into the report; returns the open exception and command."""
    for start, rx in _MUST.items():
        if msg.startswith(start) and not rx.match(msg):
            raise DmesgError(f"{file}:{no}: malformed '{start.strip()}' line: {msg!r}")
    r.ports = max(r.ports, port + 1)
    r.lines.append((no, t, addr, msg))
    key = (port, dev if dev is not None else 0)
    if dev == 15 or msg.startswith("Port Multiplier"):
        if (pm := re.match(r"^Port Multiplier .*?, (\d+) ports", msg)):
            r.pmps[port] = _bounded(file, no, "PMP ports", pm.group(1), 1, 15)
            if (ids := pmp_ids(msg)):
                r.pmp_ids[port] = (no, ids)
        else:
            r.pmps.setdefault(port, 0)
        return exc, cmd
    if dev is not None and (dev >= 2 or dev == 1 and port in r.pmps) and \
            re.match(r"^(failed to read SCR|SATA link (up|down) |hard resetting link)", msg):
        # a link of its own behind the port: a PMP fan-out link (a PATA/ICH slave shares its
        # master's link and has no SCRs: libata names only fan-out links ataN.DD in link
        # messages, ata_link_printk with sata_pmp_attached())
        r.pmps.setdefault(port, 0)
    if dev is not None:
        d = r.disks.setdefault(key, Disk(port, key[1]))
        last_dev[port] = key[1]
        if not (msg.startswith(("hard resetting link", "soft resetting link", "SATA link", "limiting SATA",
                                "failed to resume link", "failed to read SCR", "link is slow",
                                "COMRESET failed", "softreset failed", "link offline", "failed to IDENTIFY",
                                "qc timeout"))) and not (port in r.pmps and dev < 15 and msg.startswith("exception ")):
            # (behind a PMP kernels before 6.1 report every link of a frozen port, an empty
            # one too: "ata1.04: exception Emask 0x100 ... frozen" is no drive, dmesg corpus 52;
            # a failed command after it is)
            d.evidence = True
    if msg.startswith("SATA max ") or msg.startswith("PATA max ") or msg.startswith("DUMMY"):
        # the port's own description names its kind: ahci's "abar m2048@", sata_sil24's
        # "host m128@... port", a taskfile port's "cmd 0x1f0 ctl 0x3f6 bmdma"
        # (the controller table's log_port_desc of each driver)
        if msg.startswith("PATA max "):
            r.pata = True
            r.port_driver[port] = r.port_driver.get(port) or "pata"
        elif (drv := port_desc_driver(msg)) == SFF:
            r.port_driver.setdefault(port, SFF)
        elif drv:
            r.port_driver[port] = drv
        return exc, cmd
    if (u := _LINK_UP.match(msg)):
        d = r.disks.setdefault(key, Disk(port, key[1]))
        if not d.gen or (dev is not None and not d.own_gen):
            # behind a PMP the host link's speed (ataN:, before the attach line names the PMP)
            # is not the drive's: its fan-out link's first one is (dmesg corpus 46: a 3.0 Gbps
            # drive behind a JMB575 on a 6.0 Gbps host link)
            d.gen = GBPS.get(u.group("g"), 3)
            d.own_gen = dev is not None
        if dev is None:
            d.port_link_up = True
        else:
            d.link_up = True
        return exc, cmd
    if _LINK_DOWN.match(msg):
        if key in r.disks:
            if dev is None:
                r.disks[key].port_link_up = False
            else:
                r.disks[key].link_up = False
        if key in boot_done or any(e.port == port for e in r.exceptions):
            r.link_down.append((no, t, port))
        return exc, cmd
    if (i := _IDENT.match(msg)):
        d.model = _ident(file, no, "model", i.group("model"))
        d.firmware = _ident(file, no, "firmware", i.group("fw"))
        d.ata_major = _bounded(file, no, "ATA major version", i.group("maj"), 0, 255)
        d.max_udma = UDMA.get(i.group("max"), d.max_udma)
        d.identified = True
        return exc, cmd
    if msg.startswith("ATAPI"):
        d.atapi = True
        return exc, cmd
    if (c := _CAP.match(msg)):
        d.sectors = _bounded(file, no, "sectors", c.group("n"), 0, MAX_SECTORS)
        d.multi = _bounded(file, no, "multi", c.group("m"), 0, 65535)
        d.lba48 = c.group("lba") == "LBA48"
        q = re.search(r"NCQ \(depth (\d+)(?:/(\d+))?\)", c.group("rest"))
        d.ncq = q is not None or "NCQ (not used)" in c.group("rest")
        if q:
            d.ncq_depth = _bounded(file, no, "NCQ depth", q.group(2) or q.group(1), 0, 65535)
        return exc, cmd
    if msg.startswith("configured for "):
        if key not in boot_done and not any(e.port == port for e in r.exceptions):
            boot_done.add(key)
            if d.identified:
                d.boot = True
            r.boot_end = max(r.boot_end, t)
        d.configured = d.configured or msg[len("configured for "):]
        return exc, cmd
    if msg.startswith("FORCE: "):
        r.force.append(f"{addr}: {msg}")
        return exc, cmd
    if (e := _EXC.match(msg)):
        exc = Exception_(no, t, port, dev, int(e.group("em"), 16), int(e.group("sa"), 16),
                         int(e.group("se"), 16), int(e.group("ac"), 16), bool(e.group("fr")))
        r.exceptions.append(exc)
        return exc, None
    if exc is None or exc.port != port:
        if not (msg.startswith("failed command: ") or _CMD.match(msg) or _RES.match(msg)):
            return exc, cmd
        # the excerpt starts inside a report (its exception line was cut off)
        exc = Exception_(no, t, port, dev, 0, 0, 0, 0, False)
        r.exceptions.append(exc)
        r.notes.append(f"{no}: a failed command with no 'exception' line before it: "
                       "read as an exception of its own")
        cmd = None
    if msg.startswith("failed command: "):
        cmd = Command(no, msg[len("failed command: "):])
        exc.commands.append(cmd)
        return exc, cmd
    if (c := _CMD.match(msg)):
        if cmd is None or cmd.opcode or cmd.has_res:
            # 2.6.2x prints no 'failed command:' line: the cmd line starts the block
            cmd = Command(no, _cmd_name(int(c.group("c"), 16)))
            exc.commands.append(cmd)
        cmd.opcode = int(c.group("c"), 16)
        cmd.lba = _lba(c)
        if cmd.opcode in LBA28:
            cmd.lba = (cmd.lba & 0xffffff) | (int(c.group("d"), 16) & 0xf) << 24
        data = _DATA.match(c.group("rest"))
        cmd.prot = ("ncq" if data.group("prot").startswith("ncq") else data.group("prot")) \
            if data and data.group("prot") else ""
        cmd.ncq = cmd.prot == "ncq" or cmd.opcode in (0x60, 0x61)
        cmd.write = bool(data) and data.group("dir") == "out"
        cmd.nodata = bool(re.match(r"^(?: nodata \d+| cdb 0x[0-9a-f]+ data 0)?\s*$", c.group("rest")))
        cmd.tf = tuple(int(c.group(k), 16) for k in ("c", "f", "n", "l0", "l1", "l2", "hf", "hn", "h0", "h1",
                                                     "h2", "d"))
        if cmd.ncq:
            cmd.sectors = int(c.group("f"), 16) | int(c.group("hf"), 16) << 8
            cmd.tag = (_bounded(file, no, "tag", c.group("tag"), 0, 31) if c.group("tag")
                       else int(c.group("n"), 16) >> 3)
        else:
            cmd.sectors = int(c.group("n"), 16) | int(c.group("hn"), 16) << 8
            cmd.tag = _bounded(file, no, "tag", c.group("tag"), 0, 31) if c.group("tag") else 0
        if not cmd.sectors and cmd.opcode in (0xc8, 0xca, 0x20, 0x30, 0xc4, 0xc5):
            cmd.sectors = 256
        elif not cmd.sectors and cmd.opcode in (0x25, 0x35, 0x24, 0x34, 0x29, 0x39, 0x60, 0x61):
            cmd.sectors = 65536
        if dev is not None and cmd.sectors and cmd.opcode not in (0xef, 0xa0, 0xec, 0xe7, 0xea):
            d.max_lba = max(d.max_lba, cmd.lba + cmd.sectors)
        return exc, cmd
    if (s := _RES.match(msg)):
        if cmd is None:
            raise DmesgError(f"{file}:{no}: 'res' line without a 'failed command:' line before it")
        cmd.has_res = True
        cmd.res_line = no
        cmd.res_status, cmd.res_error = int(s.group("s"), 16), int(s.group("e"), 16)
        cmd.res_lba = _lba(s)
        cmd.res_regs = tuple(int(s.group(k), 16) for k in ("n", "l0", "l1", "l2", "hf", "hn", "h0", "h1", "h2", "d"))
        if cmd.opcode in LBA28:
            cmd.res_lba = (cmd.res_lba & 0xffffff) | (int(s.group("d"), 16) & 0xf) << 24
        cmd.emask, cmd.emask_desc = int(s.group("em"), 16), s.group("desc") or ""
        return exc, cmd
    if msg.startswith("status: {") and cmd is not None:
        cmd.status_bits = msg[len("status: {"):].rstrip("}").split()
        return exc, cmd
    if msg.startswith("error: {") and cmd is not None:
        cmd.error_bits = msg[len("error: {"):].rstrip("}").split()
        return exc, cmd
    if msg.startswith("irq_stat ") or msg.startswith("SError: {") or msg.startswith("BMDMA"):
        exc.desc.append(msg)
    elif msg.startswith("(") and msg.endswith(")") and cmd is None:
        exc.desc.append(msg[1:-1])      # 2.6.2x: "(BMDMA2 stat 0x...)", the description in parentheses
    return exc, cmd
