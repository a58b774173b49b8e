"""A user's checkout is anywhere (issue 30 item 12): the documentation and the tools name no
absolute path of the machine they were written on (`flock /work/build.lock ...` failed on
other machines with "flock: cannot open lock file", exit 66; tools/bench_cost.py defaulted to
/work/main/build/bin/satasim). The build lock is optional: $SATASIM_BUILD_LOCK, else the
checkout's build.lock when there is one."""

import fcntl
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# An absolute path into a home, a build machine's work folder or a user's checkout.
MACHINE_PATH = re.compile(r"(?<![\w.~$}-])/(?:work|home|root|Users|srv)(?:/|\b)")


def shipped_text_files():
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    files += sorted(p for p in (ROOT / "tools").iterdir() if p.is_file())
    files += sorted((ROOT / "model" / "ahci_rtl" / "scripts").iterdir())
    return files


def test_no_machine_paths_in_docs_and_tools():
    found = []
    for p in shipped_text_files():
        for no, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
            if MACHINE_PATH.search(line):
                found.append(f"{p.relative_to(ROOT)}:{no}: {line.strip()[:100]}")
    assert not found, "absolute machine paths:\n" + "\n".join(found)


def test_flock_lines_in_docs_name_a_lock_in_the_checkout():
    """Every documented `flock LOCK cmd` runs from any checkout: a relative lock file."""
    bad = []
    for p in shipped_text_files():
        for no, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
            for m in re.finditer(r"\bflock\s+(\S+)", line):
                if m.group(1).startswith("/"):
                    bad.append(f"{p.relative_to(ROOT)}:{no}: {line.strip()}")
    assert not bad, bad


def load_tool(name):
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), str(ROOT / "tools" / name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_the_fuzz_tools_lock_is_optional_and_relative(tmp_path, monkeypatch):
    monkeypatch.delenv("SATASIM_HOLDS_BUILD_LOCK", raising=False)
    monkeypatch.delenv("SATASIM_BUILD_LOCK", raising=False)
    fuzz = load_tool("fuzz")
    in_checkout = ROOT / "build.lock"
    cmd = ["tools/build.sh", "build-fuzz-afl"]
    if in_checkout.exists():
        assert fuzz.locked(cmd) == ["flock", str(in_checkout), *cmd]
    else:   # no lock: the command runs as it is
        assert fuzz.locked(cmd) == cmd
    lock = tmp_path / "my.lock"
    monkeypatch.setenv("SATASIM_BUILD_LOCK", str(lock))
    assert fuzz.locked(cmd) == ["flock", str(lock), *cmd]
    # ccache shares hits between checkouts by paths relative to the checkout, not to /work
    assert fuzz.fuzz_env()["CCACHE_BASEDIR"] == str(ROOT) or "CCACHE_BASEDIR" in os.environ


def test_fuzz_bench_holds_the_lock_it_is_given(tmp_path, monkeypatch):
    lock = tmp_path / "my.lock"
    monkeypatch.setenv("SATASIM_BUILD_LOCK", str(lock))
    bench = load_tool("fuzz_bench")
    with bench.build_lock():
        assert bench.ENV.get("SATASIM_HOLDS_BUILD_LOCK") == "1"
        with open(lock) as other:   # another open file cannot take it meanwhile
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = False
            except BlockingIOError:
                held = True
        assert held
    assert "SATASIM_HOLDS_BUILD_LOCK" not in bench.ENV


def test_bench_cost_has_no_machine_default(tmp_path):
    """The baseline is the caller's to name: without --base (or --load-base) a one-line
    refusal, not a run of /work/main/build/bin/satasim."""
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_cost.py"), "--only", "whole-disk-reads"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "--base" in p.stderr and "Traceback" not in p.stderr, p.stderr
