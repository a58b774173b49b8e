"""Golden traces: the reviewed EH-decision subset of a scenario's trace.

A golden holds, one line per event, what the stack decided (cls "decision" records: probe
results, resets, EH verdicts, speed-down, retries), what the fault engine injected and what
it did (model records `fault.*`) and any protocol violation a model saw (`*.violation`).
Commands, register traffic and the harness's own records are left out: they change with
every workload tweak, while the decisions are what a reviewer must sign off.

Line format (absolute simulated time, ms with ns precision; fields sorted by key):

     311.087313ms  ata1.00  probe.configured  configured for UDMA/133  {lba48=true mode=UDMA/133 ...}
     400.000000ms  ata1  fault:fault.inject  inject crc on ata1 (fault0, firing 1)  {firing=1 ...}

The event column is `src:ev` for records not from the stack. A message-less event shows
no message column. String values with spaces or other special characters are JSON quoted.

CLI (PYTHONPATH=harness python3 -m satasim.golden, or tools/golden):
  record OUT_DIR...   write goldens for runs that have none
  compare OUT_DIR...  semantic diff against the goldens; exit 0 match, 1 mismatch or
                      missing golden, 2 corrupt trace/golden
  update OUT_DIR...   rewrite goldens, print what changed

Timing is exact by default: SystemC runs are deterministic, so a decision's time must match
its golden to the nanosecond (a 300 ms change in a 30 s timeout is a changed decision).
How a golden is compared comes from the run and the command line, never from the golden
under test: its header must be the one `record` would write for the run (every key: a
`# link_mode:`, `# time_tolerance:` or `# ordering:` that differs is a mismatch, not a
looser comparison); --time-tolerance and --unordered-ports are the caller's to give.

Backend qemu runs (QEMU's AHCI in real time): their decisions are deterministic but their
timestamps are not, so they are compared on order and content only (their goldens say
`# time_tolerance: any`, as record writes it for that backend).

Link level: a golden records the scenario at its own link level (`# link_mode:`, from the
scenario's `link.mode` keys, default dword; never a SATASIM_LINK_MODE override, record
refuses such a run). A run at another level (SATASIM_LINK_MODE=fis on a dword scenario)
makes the same decisions at slightly different times (the FIS-level link computes frame
timing without ticking dwords: ns to ms apart), so it is compared in order and content and
within LINK_LEVEL_TOLERANCE (1% or 10 us) instead of exactly; the scenario's own level is
read from the run's scenario file (without it, times are compared exactly). Scenarios
adapted for another controller by satasim.controllers name their AHCI source in the
golden's `# file:` header.

Size: a golden holds at most MAX_GOLDEN_EVENTS events in MAX_GOLDEN_BYTES, lines of at most
MAX_LINE characters (the largest reviewed golden is about 0.1 MB, 877 events); a bigger one
is refused unread (file:line, exit 2), a run with more golden events is neither recorded nor
compared. Runs that differ in more events than DIFF_BUDGET allows to align are diffed
position by position (a full alignment is quadratic: 20,000 events took 114 s).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .controller_table import DEFAULT as DEFAULT_CONTROLLER
from .tracefmt import TraceError, address, iter_trace, log_time
from .scenario_file import load_scenario

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_DIR = ROOT / "golden"
SCENARIO_DIR = ROOT / "scenarios"
DEFAULT_EH_POLICY = "libata-modern"
FORMAT_VERSION = 1

# Bounds (issue 30 item 4: a 133 MB golden took 266 s and 1.8 GB to compare). The largest
# reviewed golden is 0.11 MB with 877 events and lines of at most 292 characters.
MAX_GOLDEN_BYTES = 2 << 20
MAX_GOLDEN_EVENTS = 10_000
MAX_LINE = 4096
# Events x events a diff may align (SequenceMatcher is quadratic: 2,000 x 2,000 about 1 s).
DIFF_BUDGET = 4_000_000

TITLE = "# satasim golden trace: EH decisions, fault injections, protocol violations"
COLUMNS = "sim time (absolute)  address  event (src:event for models)  message  {fields}"
REVIEW = "tools/golden compare OUT_DIR; re-record: tools/golden update OUT_DIR"
# Header keys in the order record writes them.
HEADER_KEYS = ("format", "scenario", "file", "controller", "topology", "eh_policy", "seed", "backend",
               "link_mode", "time_tolerance", "ordering", "events", "columns", "review")


# ---------------------------------------------------------------------------- events

@dataclass(frozen=True)
class Event:
    t_ns: int
    addr: str          # "ata1", "ata1.00", "ahci" (host-wide)
    ev: str            # "eh.reset", or "src:ev" for model records
    msg: str
    fields: tuple      # ((key, value), ...) sorted by key
    line: int = 0      # line in its golden (0 = from a trace)

    @property
    def key(self):
        """What must match exactly (time is compared with a tolerance)."""
        return (self.addr, self.ev, self.fields, self.msg)

    @property
    def port(self) -> str:
        """Port group for --unordered-ports: 'ata1' for ata1, ata1.00, ata1.15; host for others."""
        return self.addr.split(".")[0] if self.addr.startswith("ata") else "host"

    def fields_text(self) -> str:
        return "{" + " ".join(f"{k}={_render_value(v)}" for k, v in self.fields) + "}"

    def render(self) -> str:
        """The golden file line."""
        ms = self.t_ns // 1_000_000
        parts = [f"{ms:9d}.{self.t_ns % 1_000_000:06d}ms", self.addr, self.ev]
        if self.msg:
            parts.append(self.msg)
        parts.append(self.fields_text())
        return "  ".join(parts)

    def log_style(self) -> str:
        """The event in the log's wording, for diffs."""
        what = self.msg if self.msg else f"<{self.ev}>"
        return f"{log_time(self.t_ns)} {self.addr}: {what}  ({self.ev} {self.fields_text()})"


def is_golden_record(rec: dict) -> bool:
    if rec["cls"] == "decision":
        return True
    if rec["cls"] == "model":
        ev = rec["ev"]
        return ev.startswith("fault.") or ev.endswith(".violation")
    return False


def event_from_record(rec: dict, host: str) -> Event:
    ev = rec["ev"] if rec["src"] == "stack" else f"{rec['src']}:{rec['ev']}"
    fields = tuple(sorted((str(k), v) for k, v in rec["f"].items()))
    for k, v in fields:
        if isinstance(v, (dict, list)) or v is None:
            raise ValueError(f"field {k} has a non-scalar value")
    return Event(rec["t_ns"], address(rec, host), ev, rec.get("msg", "") or "", fields)


def events_from_trace(path) -> list[Event]:
    events, host = [], ""
    path = Path(path)
    for rec in iter_trace(path):   # every line parsed: a corrupt one is an error
        if rec["ev"] == "run.start" and rec["src"] == "harness":
            host = str(rec["f"].get("controller", ""))
            continue
        if is_golden_record(rec):
            try:
                events.append(event_from_record(rec, host))
            except ValueError as e:
                raise TraceError(path, 0, f"record seq {rec['seq']} ({rec['ev']}): {e}") from None
    return events


# ----------------------------------------------------------------- value rendering

_BARE = re.compile(r"^[A-Za-z0-9_.:/+\-]+$")
_INT = re.compile(r"^-?\d+$")


def _render_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    s = str(v)
    if _BARE.match(s) and not _INT.match(s) and s not in ("true", "false", "null") \
            and not _looks_float(s):
        return s
    return json.dumps(s, ensure_ascii=False)


def _looks_float(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _parse_fields(text: str):
    """'{a=1 b="x y" c=0x3}' -> tuple of (key, value); ValueError if malformed."""
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError("fields must be enclosed in {}")
    s, i, out = text[1:-1], 0, []
    dec = json.JSONDecoder()
    while i < len(s):
        if s[i] == " ":
            i += 1
            continue
        m = re.compile(r"([A-Za-z0-9_.\-]+)=").match(s, i)
        if not m:
            raise ValueError(f"expected key=value at {s[i:i + 20]!r}")
        key, i = m.group(1), m.end()
        if i < len(s) and s[i] == '"':
            val, i = dec.raw_decode(s, i)
        else:
            j = s.find(" ", i)
            j = len(s) if j < 0 else j
            tok, i = s[i:j], j
            if not tok:
                raise ValueError(f"empty value for {key}")
            if tok in ("true", "false"):
                val = tok == "true"
            elif _INT.match(tok):
                val = int(tok)
            elif _looks_float(tok):
                val = float(tok)
            else:
                val = tok
        if i < len(s) and s[i] != " ":
            raise ValueError(f"junk after value of {key}")
        out.append((key, val))
    keys = [k for k, _ in out]
    if keys != sorted(keys):
        raise ValueError("fields are not sorted by key")
    return tuple(out)


_LINE = re.compile(r"^\s*(\d+)\.(\d{6})ms  (\S+)  (\S+)  (.*)$")


def parse_line(line: str, lineno: int = 0) -> Event:
    m = _LINE.match(line)
    if not m:
        raise ValueError("expected '<ms>.<ns>ms  <address>  <event>  [<message>  ]{fields}'")
    t_ns = int(m.group(1)) * 1_000_000 + int(m.group(2))
    rest = m.group(5)
    # The fields block is the last "{...}"; a message may itself contain braces
    # ("status: { DRDY ERR }"), so try each candidate start from the left.
    if rest.startswith("{"):
        try:
            return Event(t_ns, m.group(3), m.group(4), "", _parse_fields(rest), lineno)
        except ValueError:
            pass
    err = None
    for pos in [p.start() for p in re.finditer(r"  \{", rest)]:
        try:
            fields = _parse_fields(rest[pos + 2:])
        except ValueError as e:
            err = e
            continue
        return Event(t_ns, m.group(3), m.group(4), rest[:pos], fields, lineno)
    raise ValueError(f"bad fields block: {err}" if err else "no fields block '{...}'")


# ------------------------------------------------------------------- golden files

@dataclass
class Golden:
    path: Path
    header: dict = field(default_factory=dict)        # key -> value
    header_line: dict = field(default_factory=dict)   # key -> its line
    events: list = field(default_factory=list)


def _golden_text(path: Path) -> str:
    """The golden's text, refused unread when over MAX_GOLDEN_BYTES (at the line where the
    limit is crossed) or not a regular file (a FIFO or /dev/zero would never end)."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise TraceError(path, 0, "not a regular file")
        with path.open("rb") as f:
            data = f.read(MAX_GOLDEN_BYTES + 1)
    except OSError as e:
        raise TraceError(path, 0, f"cannot read golden: {e.strerror}") from None
    if len(data) > MAX_GOLDEN_BYTES:
        line = data.count(b"\n", 0, MAX_GOLDEN_BYTES) + 1
        raise TraceError(path, line, f"golden of {max(st.st_size, len(data)):,} bytes, over the limit of "
                                     f"{MAX_GOLDEN_BYTES:,} (the largest reviewed golden is about "
                                     "0.1 MB): not compared")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TraceError(path, data.count(b"\n", 0, e.start) + 1, f"not UTF-8 text: {e.reason}") from None


def read_golden(path) -> Golden:
    """A golden file: its header (each key once, known keys only) and events. TraceError
    (file:line) for anything malformed, over the size bounds, or an `# events:` count that
    is not the number of event lines."""
    path = Path(path)
    g = Golden(path)
    # lines end at "\n" only: a message may hold U+2028 (str.splitlines would split there)
    for lineno, line in enumerate(_golden_text(path).split("\n"), 1):
        if len(line) > MAX_LINE:
            raise TraceError(path, lineno, f"line of {len(line):,} characters, over the limit of {MAX_LINE:,}")
        if not line.strip():
            continue
        if line.startswith("#"):
            if line == TITLE:
                continue
            m = re.match(r"^# ([a-z_]+): (.*)$", line)
            if not m:
                raise TraceError(path, lineno, f"not a header ('# key: value', or the title line): {line[:60]!r}")
            key = m.group(1)
            if key not in HEADER_KEYS:
                raise TraceError(path, lineno, f"unknown header {key!r} (known: {', '.join(HEADER_KEYS)})")
            if key in g.header:
                raise TraceError(path, lineno, f"second '# {key}:' header (first on line {g.header_line[key]})")
            g.header[key], g.header_line[key] = m.group(2), lineno
            continue
        if len(g.events) == MAX_GOLDEN_EVENTS:
            raise TraceError(path, lineno, f"more than {MAX_GOLDEN_EVENTS:,} events, over the limit")
        try:
            g.events.append(parse_line(line, lineno))
        except ValueError as e:
            raise TraceError(path, lineno, f"bad golden line: {e}") from None
    fmt = g.header.get("format")
    if fmt is not None and fmt != str(FORMAT_VERSION):
        raise TraceError(path, g.header_line["format"], f"golden format {fmt}, this tool reads {FORMAT_VERSION}")
    n = g.header.get("events")
    if n is not None and n != str(len(g.events)):
        raise TraceError(path, g.header_line["events"],
                         f"# events: {n}, but the golden has {len(g.events)} event lines")
    golden_tolerance(g)          # a malformed value is a corrupt golden, whatever the run
    golden_unordered_ports(g)
    return g


def run_header(info: dict, n_events: int) -> dict:
    """The header `record` writes for a run, key -> value: what a golden's header must be."""
    h = {"format": str(FORMAT_VERSION), "scenario": str(info["name"]), "file": str(info.get("file", "?")),
         "controller": str(info["controller"]), "topology": str(info.get("topology", "?")),
         "eh_policy": str(info.get("eh_policy", "?")), "seed": str(info.get("seed", "?")),
         "backend": str(info.get("backend", "systemc"))}
    if info.get("link_mode"):
        h["link_mode"] = info["link_mode"]
    if info.get("time_tolerance"):
        h["time_tolerance"] = info["time_tolerance"]
    h["events"] = str(n_events)
    h["columns"], h["review"] = COLUMNS, REVIEW
    return h


def render_golden(info: dict, events: list[Event]) -> str:
    head = [TITLE] + [f"# {k}: {v}" for k, v in run_header(info, len(events)).items()]
    return "\n".join(head + [e.render() for e in events]) + "\n"


# ----------------------------------------------------------------------- runs

def _scenario_spec(file: str):
    """The scenario YAML a run came from, includes merged (None if not found or yaml missing)."""
    if not file:
        return None
    for base in (Path.cwd(), ROOT):
        p = (base / file) if not Path(file).is_absolute() else Path(file)
        if p.exists():
            try:
                return load_scenario(p)
            except Exception:  # noqa: BLE001 - provenance only
                return None
    return None


def dut_name(trace_path) -> str | None:
    """The DUT a backend-rtl run ran on (its profile's name), from the run's rtl.dut record."""
    try:
        with open(trace_path, encoding="utf-8") as f:
            for line in f:
                if '"rtl.dut"' in line:
                    return str(json.loads(line).get("f", {}).get("name")) or None
    except (OSError, json.JSONDecodeError):
        return None
    return None


def run_info(run_dir) -> dict:
    """Provenance of one scenario run (its folder in OUT_DIR) from result.json + the YAML."""
    run_dir = Path(run_dir)
    rp = run_dir / "result.json"
    try:
        res = json.loads(rp.read_text())
    except OSError as e:
        raise TraceError(rp, 0, f"cannot read result: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise TraceError(rp, e.lineno, f"bad JSON: {e.msg}") from None
    ctrl = res.get("controller") or {}
    ctype = ctrl.get("type") if isinstance(ctrl, dict) else str(ctrl)
    if res.get("backend") == "rtl":   # the controller is the DUT: its goldens are its own
        ctype = dut_name(run_dir / "trace.jsonl") or ctype
    spec = _scenario_spec(res.get("file", ""))
    if "eh_policy" in res:   # not written by satasim yet: read from the scenario
        policy = res["eh_policy"]
    else:
        policy = ((spec or {}).get("host") or {}).get("eh_policy")
        policy = policy or f"{DEFAULT_EH_POLICY} (stack default)"
    ports = ctrl.get("ports", res.get("ports", "?")) if isinstance(ctrl, dict) else "?"
    if _several(res):   # several controllers in one host: the golden is named after all of them
        ctype = "+".join(str(c.get("type")) for c in res["controllers"])
    ndisks = len((spec or {}).get("devices", [])) if spec is not None else len(res.get("devices", []))
    file = res.get("file", "")
    adapted = re.search(r"satasim\.controllers: adapted for (\S+) from (\S+?)\)?$",
                        str((spec or {}).get("description", "")).strip())
    if adapted:   # an AHCI scenario rewritten for another controller: name its source
        return _with_file(res, run_dir, spec, ctype, ports, ndisks, policy,
                          f"{adapted.group(2)} (adapted: python3 -m satasim.controllers adapt "
                          f"--controller {adapted.group(1)})")
    # goldens name the scenario relative to the repository, whoever ran it and from where
    return _with_file(res, run_dir, spec, ctype, ports, ndisks, policy, _scenario_file(file))


def _several(res) -> bool:
    return isinstance(res.get("controllers"), list) and len(res["controllers"]) > 1


def _with_file(res, run_dir, spec, ctype, ports, ndisks, policy, file) -> dict:
    backend = res.get("backend", "systemc")
    hosts = (" + ".join(f"{c.get('type')}@{c.get('pci')} irq {c.get('irq')} {c.get('ports')}p"
                        for c in res["controllers"]) if _several(res) else f"{ctype} {ports}p")
    info = {
        "spec": spec,
        "name": res.get("name", run_dir.name),
        "file": file,
        "controller": ctype or DEFAULT_CONTROLLER,
        "topology": f"{hosts}, {ndisks} disk{'s' if ndisks != 1 else ''}",
        "eh_policy": policy,
        "seed": res.get("seed", "?"),
        "backend": backend,
        "verdict": res.get("verdict", "?"),
        "result": res,
        # the level the run's links ran at, and the scenario's own (None: not known)
        "run_link_mode": run_link_mode(res),
        "own_link_mode": scenario_link_mode(spec) if backend == "systemc" else None,
    }
    # what record writes and compare expects: a golden is at the scenario's own level
    if backend in UNTIMED_BACKENDS:
        info["time_tolerance"] = "any"   # deterministic decisions, wall-clock timing
    elif backend in DETERMINISTIC_BACKENDS:
        own = info["own_link_mode"]
        info["link_mode"] = own if own is not None else info["run_link_mode"]
    return info


def _scenario_file(file: str) -> str:
    """The run's scenario file as goldens name it: relative to the repository when inside it
    (found from the current folder or the repository's, as _scenario_spec finds it)."""
    if not file:
        return file
    for base in (Path.cwd(), ROOT):
        p = Path(file) if Path(file).is_absolute() else base / file
        if p.exists():
            try:
                return str(p.resolve().relative_to(ROOT.resolve()))
            except ValueError:
                return file
    return file


def run_dirs(args) -> list[Path]:
    """Scenario folders from arguments: a scenario's folder, or an OUT_DIR: the scenarios of
    its latest run (the ones its summary.json lists; folders an earlier run left in the same
    OUT_DIR are ignored, and said so on stderr), or every */result.json without a summary."""
    dirs = []
    for a in args:
        p = Path(a)
        if (p / "result.json").exists():
            dirs.append(p)
        elif (p / "summary.json").exists():
            dirs += _latest_run(p)
        elif p.is_dir():
            found = sorted(d for d in p.iterdir() if (d / "result.json").exists())
            if not found:
                raise TraceError(p, 0, "no scenario results here (no */result.json)")
            dirs += found
        else:
            raise TraceError(p, 0, "not a satasim output folder")
    return dirs


def _latest_run(out_dir: Path) -> list[Path]:
    sp = out_dir / "summary.json"
    try:
        summary = json.loads(sp.read_text())
    except OSError as e:
        raise TraceError(sp, 0, f"cannot read summary: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise TraceError(sp, e.lineno, f"bad JSON: {e.msg}") from None
    entries = summary.get("scenarios") if isinstance(summary, dict) else None
    if not isinstance(entries, list):
        raise TraceError(sp, 0, "no 'scenarios' list")
    dirs = []
    for i, s in enumerate(entries):
        rel = s.get("result") if isinstance(s, dict) else None
        if not isinstance(rel, str) or not rel:
            raise TraceError(sp, 0, f"scenarios[{i}]: no 'result' path")
        d = (out_dir / rel).parent
        if not (d / "result.json").exists():
            raise TraceError(d / "result.json", 0, f"listed in {sp} but missing")
        dirs.append(d)
    stale = sorted(d.name for d in out_dir.iterdir()
                   if (d / "result.json").exists() and d not in dirs)
    if stale:
        print(f"{out_dir}: ignoring {len(stale)} folder(s) from an earlier run, not in "
              f"summary.json: {', '.join(stale)}", file=sys.stderr)
    return dirs


def golden_path(golden_dir, name, controller) -> Path:
    return Path(golden_dir) / f"{name}.{controller}.golden"


# -------------------------------------------------------------------- comparing

@dataclass(frozen=True)
class Tolerance:
    """How far a run's timestamp may be from its golden's. The default is exact."""
    rel: float = 0.0         # fraction of the later timestamp
    abs_ns: int = 0          # ns
    any: bool = False        # timestamps ignored: order and content only

    def allows(self, a: int, b: int) -> bool:
        return self.any or abs(a - b) <= max(self.abs_ns, self.rel * max(a, b))

    def widest(self, other: "Tolerance") -> "Tolerance":
        if self.any or other.any:
            return ANY_TIME
        return Tolerance(max(self.rel, other.rel), max(self.abs_ns, other.abs_ns))

    def __str__(self):
        if self.any:
            return "any"
        if not self.rel and not self.abs_ns:
            return "exact"
        return f"{self.rel * 100:g}% or {self.abs_ns / 1000:g}us"


EXACT = Tolerance()
ANY_TIME = Tolerance(0.0, 0, True)
# A run at another link level than its golden's: same decisions, times ns to ms apart.
LINK_LEVEL_TOLERANCE = Tolerance(0.01, 10_000)
# Backends whose timestamps are wall-clock driven: goldens record `time_tolerance: any`.
UNTIMED_BACKENDS = {"qemu"}
# Same scenario and seed, same trace: the SystemC models, and a DUT's RTL behind the shell
# (verilated, clocked by simulated time, AXI backpressure seeded from the scenario seed).
# An RTL run's golden is named after the DUT (<scenario>.<DUT name>.golden, link_mode rtl).
DETERMINISTIC_BACKENDS = {"systemc", "rtl"}


_TIME_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def parse_tolerance(text: str) -> Tolerance:
    """'0' (exact, the default), '1%,10us', '5%', '50us', 'any' (ignore). Parts not given are 0."""
    if text.strip() == "any":
        return ANY_TIME
    rel, abs_ns = 0.0, 0
    for part in filter(None, (p.strip() for p in text.split(","))):
        if part == "0":
            continue
        if part.endswith("%"):
            rel = float(part[:-1]) / 100
            continue
        m = re.match(r"^(\d+(?:\.\d+)?)(ns|us|ms|s)$", part)
        if not m:
            raise argparse.ArgumentTypeError(
                f"bad tolerance {part!r}: use a percentage (1%) and/or a time (10us, 1ms)")
        abs_ns = int(float(m.group(1)) * _TIME_UNITS[m.group(2)])
    return Tolerance(rel, abs_ns)


@dataclass
class Comparison:
    name: str
    golden: str
    trace: str
    diff: list        # lines
    ok: bool
    note: str = ""    # how times were compared, when not exactly at the golden's level


def _ms(t_ns: int) -> str:
    return f"{t_ns // 1_000_000}.{t_ns % 1_000_000:06d}ms"


def _delta(dt_ns: int) -> str:
    """+93 ns, -3.173 us, +300.000000 ms: a time difference, readable at any size."""
    if abs(dt_ns) < 1_000:
        return f"{dt_ns:+d} ns"
    if abs(dt_ns) < 1_000_000:
        return f"{dt_ns / 1e3:+.3f} us"
    return f"{dt_ns / 1e6:+.6f} ms"


def _pair(a: Event, b: Event, tol: Tolerance):
    if tol.allows(a.t_ns, b.t_ns):
        return ("=", a, b, "")
    note = f"time {_delta(b.t_ns - a.t_ns)} (golden {_ms(a.t_ns)}, run " \
           f"{_ms(b.t_ns)}), beyond tolerance {tol}"
    return ("t", a, b, note)


def _diff_sequences(exp: list[Event], got: list[Event], tol: Tolerance, context=3):
    """Unified-style diff lines in the log's wording; [] when equal within tolerance.
    The common head and tail are matched in one pass; the rest is aligned by difflib when
    that fits DIFF_BUDGET, else compared position by position (and said so)."""
    head = 0
    while head < min(len(exp), len(got)) and exp[head].key == got[head].key:
        head += 1
    tail = 0
    while tail < min(len(exp), len(got)) - head and exp[-1 - tail].key == got[-1 - tail].key:
        tail += 1
    a, b = exp[head:len(exp) - tail], got[head:len(got) - tail]
    ops = [_pair(x, y, tol) for x, y in zip(exp[:head], got[:head])]
    cut = ""
    if len(a) * len(b) <= DIFF_BUDGET:
        sm = difflib.SequenceMatcher(None, [e.key for e in a], [e.key for e in b], autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                ops += [_pair(x, y, tol) for x, y in zip(a[i1:i2], b[j1:j2])]
            else:
                ops += [("-", x, None, "") for x in a[i1:i2]] + [("+", None, y, "") for y in b[j1:j2]]
    else:
        line = a[0].line if a and a[0].line else 0
        cut = (f"(golden and run differ in {len(a):,} and {len(b):,} events from golden line {line} "
               f"on: more than a diff aligns in bounded time; compared position by position)")
        for i in range(max(len(a), len(b))):
            x, y = (a[i] if i < len(a) else None), (b[i] if i < len(b) else None)
            if x is not None and y is not None and x.key == y.key:
                ops.append(_pair(x, y, tol))
                continue
            if x is not None:
                ops.append(("-", x, None, ""))
            if y is not None:
                ops.append(("+", None, y, ""))
    ops += [_pair(x, y, tol) for x, y in zip(exp[len(exp) - tail:], got[len(got) - tail:])]
    bad = [i for i, op in enumerate(ops) if op[0] != "="]
    if not bad:
        return []
    hunks = []   # [lo, hi) ranges of ops with `context` unchanged events around changes
    for i in bad:
        lo, hi = max(0, i - context), min(len(ops), i + context + 1)
        if hunks and lo <= hunks[-1][1]:
            hunks[-1][1] = hi
        else:
            hunks.append([lo, hi])
    out = [cut] if cut else []
    for lo, hi in hunks:
        gl = next((op[1].line for op in ops[lo:hi] if op[1] is not None and op[1].line), 0)
        out.append(f"@@ golden line {gl} @@" if gl else "@@ @@")
        for tag, a, b, note in ops[lo:hi]:
            if tag == "=":
                out.append(f"  {a.log_style()}")
            elif tag == "-":
                out.append(f"- {a.log_style()}")
            elif tag == "+":
                out.append(f"+ {b.log_style()}")
            else:
                out.append(f"- {a.log_style()}")
                out.append(f"+ {b.log_style()}   <- {note}")
    return out


def compare_events(exp: list[Event], got: list[Event], tol: Tolerance,
                   unordered_ports=False) -> list[str]:
    if not unordered_ports:
        return _diff_sequences(exp, got, tol)
    groups = sorted({e.port for e in exp} | {e.port for e in got})
    out = []
    for g in groups:
        d = _diff_sequences([e for e in exp if e.port == g], [e for e in got if e.port == g], tol)
        if d:
            out.append(f"@@@ {g} @@@")
            out += d
    return out


def golden_tolerance(g: Golden) -> Tolerance | None:
    """The tolerance a golden's header names (None: none). Only read to refuse a malformed
    value: the comparison takes the run's (run_tolerance)."""
    text = g.header.get("time_tolerance")
    if text is None:
        return None
    try:
        return parse_tolerance(text)
    except argparse.ArgumentTypeError as e:
        raise TraceError(g.path, g.header_line.get("time_tolerance", 0), f"bad time_tolerance header: {e}") from None


# `# ordering:` header values. Record writes none (in order, the default); compare takes
# --unordered-ports from its caller only, so `unordered-ports` in a golden is a header
# mismatch and any other value a corrupt golden.
ORDERINGS = ("in-order", "unordered-ports")


def golden_unordered_ports(g: Golden) -> bool:
    """True if the golden's header asks for per-port comparison."""
    text = g.header.get("ordering")
    if text is None:
        return False
    if text.strip() not in ORDERINGS:
        raise TraceError(g.path, g.header_line.get("ordering", 0), f"bad ordering header {text.strip()!r} "
                                    f"(expected one of: {', '.join(ORDERINGS)})")
    return text.strip() == "unordered-ports"


def run_link_mode(res: dict) -> str:
    """The link level a run used, from result.json's links: 'dword', 'fis', 'dword+fis'
    (per-device levels), '' (no link: QEMU, or a run that reports none)."""
    links = res.get("links") or []
    return "+".join(sorted({str(l["mode"]) for l in links if isinstance(l, dict) and "mode" in l}))


def scenario_link_mode(spec) -> str | None:
    """The scenario's own link level (its link.mode keys, default dword), as run_link_mode
    spells it; None if the scenario is not known. SATASIM_LINK_MODE overrides it in a run."""
    if not isinstance(spec, dict) or (spec.get("backend") or "systemc") != "systemc":
        return None
    top = (spec.get("link") or {}).get("mode") or "dword"
    devs = [d for d in spec.get("devices") or [] if isinstance(d, dict)]
    return "+".join(sorted({((d.get("link") or {}).get("mode") or top) for d in devs}))


def run_tolerance(info: dict) -> tuple[Tolerance, str]:
    """How a run's times are compared, from the run alone: any for a wall-clock backend;
    within LINK_LEVEL_TOLERANCE for a run at another link level than its scenario's own
    (SATASIM_LINK_MODE; the scenario file says which is its own), else exactly. The note
    says why when not exactly at the golden's level."""
    if info["backend"] in UNTIMED_BACKENDS:
        return ANY_TIME, ""
    own, rlevel = info.get("own_link_mode"), info.get("run_link_mode")
    if own and rlevel and own != rlevel:
        return LINK_LEVEL_TOLERANCE, (f"run at link level {rlevel}, golden recorded at {own}: "
                                      f"times compared within {LINK_LEVEL_TOLERANCE}")
    return EXACT, ""


def header_problems(g: Golden, info: dict, n_events: int) -> list[str]:
    """Where the golden's header is not the one record would write for this run (file:line
    each). A golden says nothing about how it is compared: a header that would loosen the
    comparison is a difference like any other."""
    want = run_header(info, n_events)
    out = []
    for key in HEADER_KEYS:
        have, w = g.header.get(key), want.get(key)
        if key == "ordering" and have == "in-order":
            have = None   # the default, spelled out
        if have == w:
            continue
        where = f"{g.path}:{g.header_line[key]}" if key in g.header_line else str(g.path)
        if have is None:
            out.append(f"{where}: # {key}: missing, the run's: {w!r}")
            continue
        hint = {"time_tolerance": " (a golden does not set its tolerance: give --time-tolerance)",
                "ordering": " (a golden does not set its ordering: give --unordered-ports)",
                "link_mode": ("" if info["backend"] != "systemc"
                              else " (the scenario's own link level)" if info.get("own_link_mode") is not None
                              else " (the run's: its scenario file is not readable, so the scenario's "
                                   "own level is not known)")}.get(key, "")
        out.append(f"{where}: # {key}: {have!r}, the run's: {'none' if w is None else repr(w)}{hint}")
    return out


def compare_run(run_dir, golden_dir=GOLDEN_DIR, tol=None, unordered_ports=False):
    """Compares one scenario run with its golden. None if it has no golden.
    tol None: the run's tolerance (run_tolerance); ports are compared separately only if
    unordered_ports. The golden's header must be the run's (header_problems)."""
    info = run_info(run_dir)
    gp = golden_path(golden_dir, info["name"], info["controller"])
    if not gp.exists():
        return None
    g = read_golden(gp)
    tp = Path(run_dir) / "trace.jsonl"
    if g.header.get("backend", "systemc") != info["backend"]:
        return Comparison(info["name"], str(gp), str(tp),
                          [f"backend: golden {g.header.get('backend', 'systemc')}, run {info['backend']}"],
                          False)
    note = ""
    if tol is None:
        tol, note = run_tolerance(info)
    got = events_from_trace(tp)
    if len(got) > MAX_GOLDEN_EVENTS:
        return Comparison(info["name"], str(gp), str(tp),
                          [f"{tp}: the run has {len(got):,} golden events, over the limit of "
                           f"{MAX_GOLDEN_EVENTS:,} a golden may hold: not compared"], False, note)
    diff = header_problems(g, info, len(got)) + compare_events(g.events, got, tol, unordered_ports)
    return Comparison(info["name"], str(gp), str(tp), diff, not diff, note)


def format_comparison(c: Comparison) -> str:
    head = [f"--- {c.golden}", f"+++ {c.trace}"] + ([f"({c.note})"] if c.note else [])
    return "\n".join(head + c.diff) + "\n"


# --------------------------------------------------------------------------- CLI

def _too_big(events: list[Event], text: str) -> str:
    """Why a golden of these events would be refused when read ('' if it would not)."""
    if len(events) > MAX_GOLDEN_EVENTS:
        return f"{len(events):,} golden events, over the limit of {MAX_GOLDEN_EVENTS:,}"
    if len(text.encode("utf-8")) > MAX_GOLDEN_BYTES:
        return f"{len(text.encode('utf-8')):,} bytes, over the limit of {MAX_GOLDEN_BYTES:,}"
    longest = max(map(len, text.split("\n")))
    if longest > MAX_LINE:
        return f"a line of {longest:,} characters, over the limit of {MAX_LINE:,}"
    return ""


def _cmd_record(args, update=False) -> int:
    status = 0
    gdir = Path(args.golden_dir)
    gdir.mkdir(parents=True, exist_ok=True)
    for d in run_dirs(args.out_dirs):
        info = run_info(d)   # its header: the link level, a wall-clock backend's tolerance
        if info["backend"] not in DETERMINISTIC_BACKENDS | UNTIMED_BACKENDS:
            print(f"{info['name']}: skipped, backend {info['backend']} is not deterministic")
            continue
        own, rlevel = info["own_link_mode"], info["run_link_mode"]
        if own is not None and rlevel and own != rlevel:
            print(f"{info['name']}: not recorded, the run's link level is "
                  f"{rlevel} but the scenario's own is {own} (SATASIM_LINK_MODE "
                  f"set?): a golden records the scenario at its own level; rerun without it")
            status = 1
            continue
        if info["verdict"] != "pass" and not args.allow_fail:
            print(f"{info['name']}: not recorded, the run failed ({info['verdict']}: "
                  f"{'; '.join(info['result'].get('reasons', []))}); --allow-fail records it anyway")
            status = 1
            continue
        events = events_from_trace(d / "trace.jsonl")
        text = render_golden(info, events)
        if (why := _too_big(events, text)):
            print(f"{info['name']}: not recorded, the run has {why} (a golden is the reviewed "
                  f"decision subset: shorten the scenario)")
            status = 1
            continue
        gp = golden_path(gdir, info["name"], info["controller"])
        if gp.exists() and not update:
            print(f"{info['name']}: {gp} exists, left as is (use update to rewrite it)")
            continue
        if gp.exists():
            try:
                old = read_golden(gp)
            except TraceError as e:   # update is how a corrupt golden is mended
                print(f"--- {gp} (old, unreadable: {e.what})\n+++ {gp} (new, from {d / 'trace.jsonl'})")
            else:
                tol, _ = run_tolerance(info)
                diff = compare_events(old.events, events, tol)
                if not diff and not header_problems(old, info, len(events)):
                    print(f"{info['name']}: {gp} unchanged")
                    continue
                print(f"--- {gp} (old)\n+++ {gp} (new, from {d / 'trace.jsonl'})")
                print("\n".join(diff) if diff else "(events unchanged, header rewritten)")
        else:
            print(f"{info['name']}: new golden {gp} ({len(events)} events)")
        gp.write_text(text, encoding="utf-8")
    return status


def _cmd_compare(args) -> int:
    status, n = 0, 0
    for d in run_dirs(args.out_dirs):
        info = run_info(d)
        c = compare_run(d, args.golden_dir, args.time_tolerance, args.unordered_ports)
        if c is None:
            if args.skip_missing:
                continue
            gp = golden_path(args.golden_dir, info["name"], info["controller"])
            print(f"{info['name']}: MISSING golden {gp} (record it: tools/golden record {d})")
            status = 1
            continue
        n += 1
        if c.ok:
            print(f"{c.name}: golden matches ({c.golden}{'; ' + c.note if c.note else ''})")
        else:
            print(f"{c.name}: golden MISMATCH")
            sys.stdout.write(format_comparison(c))
            status = 1
    if args.skip_missing and n == 0:
        print("no run has a golden")
    return status


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.golden",
                                 description="Record, compare and update golden traces.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name, hlp in (("record", "write goldens for runs that have none"),
                      ("compare", "compare runs with their goldens"),
                      ("update", "rewrite goldens from runs and print the diff")):
        p = sub.add_parser(name, help=hlp)
        p.add_argument("out_dirs", nargs="+", metavar="OUT_DIR",
                       help="satasim --out folder, or one scenario's folder in it")
        p.add_argument("--golden-dir", default=str(GOLDEN_DIR))
        if name == "compare":
            p.add_argument("--time-tolerance", type=parse_tolerance, default=None,
                           help="default: the run's (exact; a QEMU run: any; a run at another "
                                "link level than its scenario's own: within 1%%,10us), never "
                                "the golden's header; '1%%,10us': a timestamp matches if within "
                                "the larger of the two; '0' = exact; 'any' = order and content only")
            p.add_argument("--unordered-ports", action="store_true",
                           help="compare each port's events as its own sequence")
            p.add_argument("--skip-missing", action="store_true",
                           help="ignore runs without a golden (default: a failure)")
        else:
            p.add_argument("--allow-fail", action="store_true",
                           help="also record runs whose verdict is not pass")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "compare":
            return _cmd_compare(args)
        return _cmd_record(args, update=args.cmd == "update")
    except TraceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
