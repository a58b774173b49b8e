"""satasim from Python: run a scenario given as a file or a dict, with overrides, and get a
result object (docs/python.md).

    import satasim
    r = satasim.run_scenario("scenarios/probe-2port.yaml", overrides={"controller.type": "sil24"})
    assert r.passed, r.reasons
    for d in r.eh_decisions:
        print(d["t_ns"], d["ev"], d.get("msg", ""))

The simulator is $SATASIM_BIN, else this checkout's build/bin/satasim (tools/build.sh).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .results import binary


class ScenarioRefused(ValueError):
    """The simulator refused the scenario (exit 2): malformed, or not for this backend. The
    message is the simulator's: file:line: key: what is wrong."""


@dataclass
class Result:
    """What one run left: its verdict and reasons, what the stack found, per-workload counts,
    and where its files are."""
    name: str
    verdict: str
    reasons: list
    raw: dict = field(repr=False)          # result.json as written (docs/formats.md)
    out_dir: Path = field(repr=False)       # the run's own folder (OUT/<name>)
    stdout: str = field(default="", repr=False)
    stderr: str = field(default="", repr=False)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def devices(self) -> list:
        return self.raw.get("devices", [])

    @property
    def devices_after(self) -> list:
        return self.raw.get("devices_after", [])

    @property
    def workloads(self) -> list:
        return self.raw.get("workloads", [])

    @property
    def io_errors(self) -> int:
        return int(self.raw.get("io_errors", 0))

    @property
    def data_errors(self) -> int:
        return int(self.raw.get("data_errors", 0))

    @property
    def trace_path(self) -> Path:
        return self.out_dir / "trace.jsonl"

    @property
    def log_path(self) -> Path:
        return self.out_dir / "satasim.log"

    @property
    def result_path(self) -> Path:
        return self.out_dir / "result.json"

    @property
    def waveform_path(self) -> Path | None:
        for name in ("waveform.vcd", "waveform.partial.vcd"):
            if (self.out_dir / name).exists():
                return self.out_dir / name
        return None

    def trace(self) -> list[dict]:
        """Every trace record, in order (docs/formats.md)."""
        with self.trace_path.open() as f:
            return [json.loads(line) for line in f if line.strip()]

    @property
    def eh_decisions(self) -> list[dict]:
        """The EH decision records (class decision, events eh.*): what a golden holds."""
        return [r for r in self.trace() if r.get("cls") == "decision" and r.get("ev", "").startswith("eh.")]

    def compare_golden(self, golden_dir="golden"):
        """The run against its golden in golden_dir (satasim.golden.compare_run): None if it
        has none, else a comparison whose .ok says whether it matched."""
        from .golden import compare_run
        return compare_run(self.out_dir, Path(golden_dir), None)


def _yaml_value(v) -> str:
    """A Python value as the YAML text of one --set value."""
    if isinstance(v, str):
        return v
    return yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("...").strip()


_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def run_scenario(scenario, *, overrides: dict | None = None, seed: int | None = None, out_dir=None,
                 backend: str | None = None, link: str | None = None, args=(), timeout: float = 900) -> Result:
    """Runs one scenario and returns its Result.

    scenario: a scenario file (str or Path), or a dict of the file's keys (scenarios/README.md),
      written to OUT/<name>.yaml first; `include:` is relative to that file.
    overrides: {key path: value} set after the file is read (satasim run --set), e.g.
      {"controller.type": "sil24", "devices[0].timing.kind": "hdd"}.
    seed, backend ("systemc", "qemu"), link ("fis" or "dword": SATASIM_LINK_MODE): more settings.
    out_dir: where the run's folder goes (default: a new temporary folder, kept).
    Raises ScenarioRefused (exit 2) with the simulator's message.
    """
    out = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix="satasim-"))
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(scenario, dict):
        name = str(scenario.get("name") or "scenario")
        if not _NAME.match(name):
            raise ScenarioRefused(f"name: {name!r} is not a usable scenario name (letters, digits, '-', '_', '.')")
        path = out / f"{name}.yaml"
        path.write_text(yaml.safe_dump(scenario, sort_keys=False))
    elif isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
    else:
        raise TypeError(f"scenario: a file path or a dict, got {type(scenario).__name__}")
    cmd = [str(binary()), "run", str(path), "--out", str(out), "--jobs", "1", *map(str, args)]
    for k, v in (overrides or {}).items():
        cmd += ["--set", f"{k}={_yaml_value(v)}"]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if backend:
        cmd += ["--backend", backend]
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    if link:
        env["SATASIM_LINK_MODE"] = link
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode == 2:
        raise ScenarioRefused(proc.stderr.strip() or proc.stdout.strip())
    summary_path = out / "summary.json"
    if not summary_path.exists():
        raise RuntimeError(f"satasim run wrote no summary (exit {proc.returncode}): {proc.stderr.strip()}")
    entry = json.loads(summary_path.read_text())["scenarios"][0]
    run_dir = out / entry["name"]
    raw = json.loads((run_dir / "result.json").read_text())
    return Result(raw["name"], raw["verdict"], list(raw.get("reasons") or []), raw, run_dir, proc.stdout, proc.stderr)
