"""The planted-bug list (tools/planted_bugs.txt), read in one place for every tool that
uses it (tools/planted_bugs_check, tools/fuzz_bench)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "tools" / "planted_bugs.txt"


def read_list(prog: str) -> list[tuple[str, str, list[tuple[Path, str | None]]]]:
    """[(name, file, [(scenario path, controller or None)])], in file order. A malformed
    line stops `prog` with its file and line (exit status 2)."""
    def die(msg):
        print(f"{prog}: {msg}", file=sys.stderr)
        sys.exit(2)

    out = []
    for n, line in enumerate(LIST.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split()
        if len(cols) < 3:
            die(f"{LIST}:{n}: want NAME FILE SCENARIO..., got {line!r}")
        name, src, scen = cols[0], cols[1], []
        if not (ROOT / src).is_file():
            die(f"{LIST}:{n}: no file {src}")
        if f"SATASIM_PLANT_{name}" not in (ROOT / src).read_text():
            die(f"{LIST}:{n}: {src} has no SATASIM_PLANT_{name}")
        for s in cols[2:]:
            path, _, ctl = s.partition("@")
            if not (ROOT / path).is_file():
                die(f"{LIST}:{n}: no scenario {path}")
            scen.append((ROOT / path, ctl or None))
        out.append((name, src, scen))
    return out
