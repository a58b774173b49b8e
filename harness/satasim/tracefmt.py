"""Reading trace.jsonl and rendering its records the way the C++ trace sink does.

Shared by golden.py (golden traces), render.py (log and HTML report) and report.py.
Everything here mirrors harness/src/trace/trace_sink.cpp: change both together.
"""

from __future__ import annotations

import json
from pathlib import Path


class TraceError(Exception):
    """A trace or golden file that cannot be read: names the file and the line."""

    def __init__(self, path, line, what):
        self.path, self.line, self.what = str(path), line, what
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {what}")


REQUIRED_KEYS = ("t_ns", "seq", "src", "ev", "cls", "port", "f")
CLASSES = ("decision", "info", "cmd", "model")
# Log levels ("lvl"): a record's msg is a line of satasim.log exactly when its level is
# not debug (stack events: their SATA_LOG_* level; model records: debug; harness records:
# info, or err for a failure of the run; cont: the second line of the record before it, a
# libata printk of two lines). A trace written before the field existed has no
# "lvl": its records read as info.
LEVELS = ("err", "warn", "info", "debug", "cont")


def _check_record(rec, path, lineno):
    if not isinstance(rec, dict):
        raise TraceError(path, lineno, "record is not a JSON object")
    for k in REQUIRED_KEYS:
        if k not in rec:
            raise TraceError(path, lineno, f"record has no {k!r} key")
    if not isinstance(rec["t_ns"], int) or rec["t_ns"] < 0:
        raise TraceError(path, lineno, f"t_ns is not a non-negative integer: {rec['t_ns']!r}")
    if rec["cls"] not in CLASSES:
        raise TraceError(path, lineno, f"unknown cls {rec['cls']!r}")
    if "lvl" in rec and rec["lvl"] not in LEVELS:
        raise TraceError(path, lineno, f"unknown lvl {rec['lvl']!r}")
    if not isinstance(rec["f"], dict):
        raise TraceError(path, lineno, "f is not an object")
    for k in ("port", "link", "dev"):
        if k in rec and not isinstance(rec[k], int):
            raise TraceError(path, lineno, f"{k} is not an integer: {rec[k]!r}")


def iter_trace(path, prefilter=None):
    """Yields the records of a trace.jsonl. TraceError (file:line) on a corrupt line.

    prefilter(line_text) -> bool skips lines cheaply before JSON parsing (large traces)."""
    path = Path(path)
    try:
        fh = path.open("r", encoding="utf-8")
    except OSError as e:
        raise TraceError(path, 0, f"cannot read trace: {e.strerror}") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            if not line.endswith("\n"):
                # The sink ends every record with a newline: a run that died mid-record.
                raise TraceError(path, lineno, "truncated record (no newline at end of file)")
            if prefilter is not None and not prefilter(line):
                # Not parsed (speed), but at least shaped like a record.
                if not (line.startswith('{"t_ns":') and line.rstrip().endswith("}")):
                    raise TraceError(path, lineno, "not a trace record")
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise TraceError(path, lineno, f"bad JSON: {e.msg} (column {e.colno})") from None
            _check_record(rec, path, lineno)
            yield rec


def load_trace(path, prefilter=None) -> list[dict]:
    return list(iter_trace(path, prefilter))


def trace_path(arg) -> Path:
    """A trace.jsonl, or a scenario's output folder holding one."""
    p = Path(arg)
    return p / "trace.jsonl" if p.is_dir() else p


def log_time(t_ns: int) -> str:
    """'[    0.104173]' as TraceSink::log_time (seconds, microseconds truncated)."""
    return "[%5d.%06d]" % (t_ns // 1_000_000_000, (t_ns // 1000) % 1_000_000)


def ata_name(port: int, link: int = -1, dev: int = -1) -> str:
    """'ata1', 'ata1.00', 'ata1.15' (PMP link 15) as TraceSink::ata_name; '' when port < 0."""
    if port < 0:
        return ""
    if dev >= 0:
        return "ata%d.%02d" % (port + 1, (link if link >= 0 else 0) + dev)
    if link >= 0:
        return "ata%d.%02d" % (port + 1, link)
    return "ata%d" % (port + 1)


def address(rec: dict, host_name: str = "") -> str:
    """The record's address libata-style; host-wide records get the controller type."""
    name = ata_name(rec.get("port", -1), rec.get("link", -1), rec.get("dev", -1))
    # one of several hosts (controllers:) names itself: its driver and PCI address, one word
    # ("sata_sil24@0000:03:00.0": a golden's address column has no spaces)
    return name or str(rec.get("host", "")).replace(" ", "@") or host_name or "host"


def host_name(records) -> str:
    """Controller type from the run.start record (the log prefix of host-wide events)."""
    for rec in records:
        if rec.get("ev") == "run.start" and rec.get("src") == "harness":
            return str(rec["f"].get("controller", ""))
    return ""


def log_line(rec: dict, host: str) -> str | None:
    """The satasim.log line (with newline) the sink wrote for this record, or None."""
    msg = rec.get("msg")
    if not msg or rec.get("lvl", "info") == "debug":
        return None
    src = rec["src"]
    if src == "stack":
        # block-layer lines ("I/O error, dev sda, ...") have no device prefix, as in the kernel log
        if str(rec.get("ev", "")).startswith("blk."):
            who = ""
        else:
            who = (rec.get("host") or host) if rec.get("port", -1) < 0 else ata_name(rec["port"], rec.get("link", -1),
                                                                   rec.get("dev", -1))
            if rec.get("log_pmp_host") and rec.get("port", -1) >= 0:
                who = ata_name(rec["port"], 15, -1)   # a host link's line with a PMP attached
        if rec.get("lvl") == "cont":
            # a two-line printk's second line: no prefix, under the message (TraceSink::on_event)
            return " " * (len(log_time(rec["t_ns"])) + 1) + "         " + msg + "\n"
        return f"{log_time(rec['t_ns'])} " + (f"{who}: " if who else "") + msg + "\n"
    if src == "harness":
        return f"{log_time(rec['t_ns'])} satasim: {msg}\n"
    return None  # model records: trace only
