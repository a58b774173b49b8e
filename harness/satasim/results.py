"""Running build/bin/satasim and reading what it writes (result.json, summary.json, traces)."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def binary() -> Path:
    """The simulator under test: $SATASIM_BIN, else the release build."""
    path = Path(os.environ.get("SATASIM_BIN", ROOT / "build" / "bin" / "satasim"))
    if not path.exists():
        raise FileNotFoundError(f"satasim binary not found at {path}: build it first")
    return path


@dataclass
class RunOutput:
    returncode: int
    stdout: str
    stderr: str
    out_dir: Path


def run(paths, out_dir, *args, timeout=900) -> RunOutput:
    """Runs `satasim run PATHS --out OUT_DIR ARGS` and captures its output."""
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    cmd = [str(binary()), "run", *[str(p) for p in paths], "--out", str(out_dir), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return RunOutput(proc.returncode, proc.stdout, proc.stderr, Path(out_dir))


def load_result(out_dir, name) -> dict:
    return json.loads((Path(out_dir) / name / "result.json").read_text())


def load_summary(out_dir) -> dict:
    return json.loads((Path(out_dir) / "summary.json").read_text())


def load_trace(out_dir, name) -> list[dict]:
    lines = (Path(out_dir) / name / "trace.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]
