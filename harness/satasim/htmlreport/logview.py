"""The log of a run for the HTML report: satasim.log's lines (as tracefmt.log_line writes
them) with who said each (port, device) and its level, repeated lines folded.

Folding: a line, or a block of up to MAX_BLOCK lines, that repeats right after itself with
only its numbers changed (LBAs, tags, times, hex values) is shown once with "×N" and the
rest behind a disclosure (issue 34: 902 near-identical -ENODEV lines, the 32 "failed
command" blocks of one EH run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..tracefmt import ata_name, log_line

MAX_BLOCK = 4
_NUM = re.compile(r"0x[0-9a-fA-F]+|[0-9a-fA-F]{2}(?=[/:])|\d+")
_TIME = re.compile(r"^\[\s*\d+\.\d+\] ")
LEVEL_ORDER = ("err", "warn", "info")


@dataclass
class Entry:
    t_ns: int
    text: str          # the log line(s), newline-free; a "cont" record adds a second line
    port: str          # "ata1", "host", "satasim"
    dev: str           # "ata1.00", "" (port- or host-wide)
    level: str         # err, warn, info
    shape: str = ""


@dataclass
class Group:
    entries: list                       # the first block (what is shown)
    count: int = 1                      # how many times the block occurs in a row
    rest: list = field(default_factory=list)   # the later repetitions' entries

    @property
    def level(self) -> str:
        lv = [e.level for e in self.entries + self.rest]
        return next((x for x in LEVEL_ORDER if x in lv), "info")


def _shape(e: Entry) -> str:
    return e.port + "|" + e.dev + "|" + _NUM.sub("#", _TIME.sub("", e.text))


def entries(records, host="") -> list[Entry]:
    out: list[Entry] = []
    for rec in records:
        if rec["src"] == "harness" and rec["ev"] == "run.start":
            host = str(rec["f"].get("log_prefix", rec["f"].get("controller", "")))
        line = log_line(rec, host)
        if line is None:
            continue
        if rec.get("lvl") == "cont" and out:
            out[-1].text += "\n" + line.rstrip("\n")
            continue
        port = rec.get("port", -1)
        if rec["src"] == "harness":
            pname = ata_name(port) if port >= 0 else "satasim"
        else:
            pname = ata_name(port) if port >= 0 else "host"
        dev = ""
        if port >= 0 and (rec.get("dev", -1) >= 0 or rec.get("link", -1) >= 0):
            dev = ata_name(port, rec.get("link", -1), rec.get("dev", -1))
        lvl = rec.get("lvl", "info")
        out.append(Entry(rec["t_ns"], line.rstrip("\n"), pname, dev, lvl if lvl in LEVEL_ORDER else "info"))
    for e in out:
        e.shape = _shape(e)
    return out


def fold(items: list[Entry], max_block=MAX_BLOCK) -> list[Group]:
    """Consecutive repetitions of a block of 1..max_block entries (same shape) folded."""
    shapes = [e.shape for e in items]
    groups, i, n = [], 0, len(items)
    while i < n:
        best_k, best_r = 1, 1
        for k in range(1, max_block + 1):
            if i + 2 * k > n:
                break
            block = shapes[i:i + k]
            r = 1
            while i + (r + 1) * k <= n and shapes[i + r * k:i + (r + 1) * k] == block:
                r += 1
            if r > 1 and r * k > best_r * best_k:
                best_k, best_r = k, r
        if best_r > 1:
            groups.append(Group(items[i:i + best_k], best_r, items[i + best_k:i + best_r * best_k]))
            i += best_r * best_k
        else:
            groups.append(Group([items[i]]))
            i += 1
    return groups


def fold_texts(texts) -> list[Group]:
    """Lines of text (a failed run's reasons: one per I/O error) folded as the log is."""
    items = []
    for t in texts:
        e = Entry(0, str(t), "", "", "err")
        e.shape = _NUM.sub("#", e.text)
        items.append(e)
    return fold(items, max_block=1)


def facets(items: list[Entry]) -> dict:
    """The filter choices: ports, devices, levels present."""
    ports = sorted({e.port for e in items}, key=lambda p: (not p.startswith("ata"), len(p), p))
    devs = sorted({e.dev for e in items if e.dev})
    levels = [lv for lv in LEVEL_ORDER if any(e.level == lv for e in items)]
    return {"ports": ports, "devices": devs, "levels": levels}
