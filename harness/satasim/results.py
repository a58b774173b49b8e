"""Running build/bin/satasim and reading what it writes (result.json, summary.json, traces)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class MissingTool(FileNotFoundError):
    """A program the harness or a test runs is not there. Its message is the whole story (one
    line: which program, which package); harness/tests/conftest.py reports it without a
    traceback."""


def need_tool(name: str, package: str) -> str:
    """The path of program `name`, or MissingTool naming the Debian package that has it
    (tools/install_deps.sh installs every package named here: test_install_deps checks)."""
    path = shutil.which(name)
    if path is None:
        raise MissingTool(f"{name} is not installed (Debian package {package}; "
                          "bash tools/install_deps.sh installs it)")
    return path


def binary() -> Path:
    """The simulator under test: $SATASIM_BIN, else the release build."""
    path = Path(os.environ.get("SATASIM_BIN", ROOT / "build" / "bin" / "satasim"))
    if not path.exists():
        raise MissingTool(f"satasim binary not found at {path}: build it first "
                          "(bash tools/build.sh build, or set SATASIM_BIN)")
    return path


def use_rtl_cache() -> Path:
    """The DUT build cache next to the simulator binary (one per build tree), made the one
    this process's runs use (SATASIM_RTL_CACHE): every RTL test shares one DUT build."""
    cache = binary().resolve().parent.parent / "rtl-cache"
    os.environ["SATASIM_RTL_CACHE"] = str(cache)
    return cache


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


def _scenario_identity(path: Path) -> dict:
    """What a scenario file means to the simulator: its parsed content, its name, and the
    folder its includes resolve from (only when it has any). Two files with this in common
    run alike wherever they were written, whatever their YAML layout."""
    import yaml   # the harness's readers need it anyway; kept local to the one user here

    try:
        spec = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError):
        return {"unreadable": str(path.resolve())}   # never shared: the run reports it
    ident = {"spec": spec, "stem": path.stem}
    if isinstance(spec, dict) and "include" in spec:
        ident["folder"] = str(path.resolve().parent)
    return ident


def _run_key(paths, args) -> str:
    exe = binary().resolve()
    st = exe.stat()
    ident = {
        "binary": [str(exe), st.st_mtime_ns, st.st_size],
        "scenarios": [_scenario_identity(Path(p)) for p in paths],
        # the path as given: the trace's header and result.json name it, so two copies of
        # one scenario (a test's adapted copy, the suite's file) are two runs (a golden test
        # handed the copy's run saw its temporary path in `# file:`)
        "paths": [str(p) for p in paths],
        "args": [str(a) for a in args],
        # what the simulator reads from the environment (SATASIM_LINK_MODE, ...); where
        # caches live changes no result
        "env": sorted((k, v) for k, v in os.environ.items()
                      if k.startswith("SATASIM_") and k not in ("SATASIM_RTL_CACHE", "SATASIM_TEST_RUN_CACHE")),
    }
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:24]


def made_once(root: Path, key: str, make) -> Path:
    """The folder root/key, made by make(folder) once for everyone who asks for it (a test
    session's parallel workers): the first asker makes it in a temporary folder renamed into
    place, the others wait on its lock and take the result."""
    root.mkdir(parents=True, exist_ok=True)
    done = root / key
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            tmp = root / f"{key}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            make(tmp)
            tmp.rename(done)
    return done


def run_shared(paths, out_dir, *args, timeout=900) -> RunOutput:
    """`run`, but one simulator run per distinct input in a test session: several tests
    check the same scenario on the same controller (the suite's checks, the controller
    table's, the fault reactions', its golden), and each gets its own copy of that one
    run's output folder. The cache is $SATASIM_TEST_RUN_CACHE (harness/tests/conftest.py
    sets it per session); without it this is `run`. Only for deterministic runs of valid
    scenarios: a test that compares two runs (determinism) must call `run` twice."""
    cache = os.environ.get("SATASIM_TEST_RUN_CACHE")
    if not cache:
        return run(paths, out_dir, *args, timeout=timeout)

    def make(tmp: Path):
        r = run(paths, tmp / "out", *args, timeout=timeout)
        (tmp / "process.json").write_text(json.dumps(
            {"returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr}))

    done = made_once(Path(cache), _run_key(paths, args), make)
    proc = json.loads((done / "process.json").read_text())
    if (done / "out").exists():
        shutil.copytree(done / "out", out_dir, dirs_exist_ok=True)
    return RunOutput(proc["returncode"], proc["stdout"], proc["stderr"], Path(out_dir))


def load_result(out_dir, name) -> dict:
    return json.loads((Path(out_dir) / name / "result.json").read_text())


def load_summary(out_dir) -> dict:
    return json.loads((Path(out_dir) / "summary.json").read_text())


def load_trace(out_dir, name) -> list[dict]:
    lines = (Path(out_dir) / name / "trace.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]
