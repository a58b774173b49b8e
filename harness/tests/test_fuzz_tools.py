"""The fuzz campaign tools on a fresh machine (issue 33, items 1, 2, 7): what `tools/fuzz build`
configures without ccache, which simulator triage and seeds use, what install_deps installs for
campaigns, and which unit-test programs tools/coverage builds. Plain Python and short commands:
no build, no campaign (docs/fuzzing.md has the measured end-to-end run)."""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_tool(name):
    """A tools/ script (no .py suffix) as a module."""
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), str(ROOT / "tools" / name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


@pytest.fixture
def fuzz():
    return load_tool("fuzz")


def test_build_uses_ccache_only_when_installed(fuzz, monkeypatch):
    real = fuzz.shutil.which
    monkeypatch.setattr(fuzz.shutil, "which", lambda c: None if c == "ccache" else real(c))
    assert fuzz.launcher_opts() == []
    monkeypatch.setattr(fuzz.shutil, "which", lambda c: "/usr/bin/ccache" if c == "ccache" else real(c))
    assert "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" in fuzz.launcher_opts()


def test_every_tree_builds_the_plain_simulator(fuzz):
    # the campaign encodes seeds and triage replays with the fuzzed tree's own satasim
    for engine, (tree, _cc, _cxx, targets) in fuzz.TREES.items():
        assert "satasim" in targets, engine


def test_replays_use_the_fuzzed_tree(fuzz, monkeypatch, tmp_path):
    monkeypatch.setattr(fuzz, "ROOT", tmp_path)
    for tree in ("build-san", "build", "build-fuzz-afl", "build-fuzz-libfuzzer"):
        (tmp_path / tree / "bin").mkdir(parents=True)
        (tmp_path / tree / "bin" / "satasim").write_text("")
    other = tmp_path / "elsewhere-satasim"
    other.write_text("")
    monkeypatch.setenv("SATASIM_BIN", str(other))
    assert fuzz.satasim_bin(None, "afl") == tmp_path / "build-fuzz-afl/bin/satasim"
    assert fuzz.satasim_bin(None, "libfuzzer") == tmp_path / "build-fuzz-libfuzzer/bin/satasim"
    assert fuzz.satasim_bin(str(other), "afl") == other  # --satasim wins
    (tmp_path / "build-fuzz-afl/bin/satasim").unlink()
    assert fuzz.satasim_bin(None, "afl") == other  # no fuzzed tree: SATASIM_BIN, then build-san
    monkeypatch.delenv("SATASIM_BIN")
    assert fuzz.satasim_bin(None, "afl") == tmp_path / "build-san/bin/satasim"


def test_install_deps_fuzz_brings_afl_and_ccache():
    pk = subprocess.run(["bash", str(ROOT / "tools/install_deps.sh"), "--fuzz", "--list"], capture_output=True,
                        text=True, check=True).stdout.split()
    assert "afl++" in pk and "ccache" in pk
    base = subprocess.run(["bash", str(ROOT / "tools/install_deps.sh"), "--list"], capture_output=True, text=True,
                          check=True).stdout.split()
    assert "afl++" not in base and "ccache" not in base and "cmake" in base
    bad = subprocess.run(["bash", str(ROOT / "tools/install_deps.sh"), "--bogus"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--bogus" in bad.stderr


def test_coverage_builds_every_ctest_program():
    """tools/coverage builds what ctest runs (every test but the RTL testbenches), read from a
    configured tree: the two tests its old hand-written list missed are in it."""
    # the tree the test command configured (configuring is all it takes: nothing built)
    tree = Path(os.environ.get("SATASIM_BIN", ROOT / "build-san/bin/satasim")).resolve().parents[1]
    if not (tree / "CTestTestfile.cmake").exists():
        pytest.skip(f"{tree} is not a configured build tree")
    r = subprocess.run([sys.executable, str(ROOT / "tools/coverage"), "--ctest-targets", str(tree)],
                       capture_output=True, text=True, check=True)
    targets = set(r.stdout.split())
    assert {"phy_pins_test", "irq_lines_test", "stack_unit_tests", "harness_scenario_test"} <= targets


def test_sync_imports_counts_each_direction(fuzz, tmp_path):
    """tools/fuzz campaign --jobs N reports what each AFL++ instance imported from each other
    (queue entries named sync:<other>), from the sync folder alone."""
    sync = tmp_path / "sync"
    names = {"main": ["id:000000,time:0,execs:0,orig:a.bin", "id:000007,sync:sec1,src:000003",
                      "id:000008,sync:sec1,src:000005,+cov"],
             "sec1": ["id:000000,time:0,execs:0,orig:a.bin", "id:000004,src:000000,time:9,op:havoc,rep:2,+cov",
                      "id:000005,sync:main,src:000000"],
             "sec2": ["id:000000,time:0,execs:0,orig:a.bin"]}
    for inst, entries in names.items():
        (sync / inst / "queue").mkdir(parents=True)
        for e in entries:
            (sync / inst / "queue" / e).write_bytes(b"x")
    (sync / "main" / "queue" / ".state").mkdir()
    imp = fuzz.sync_imports(sync)
    assert imp == {"main": {"sec1": 2, "sec2": 0}, "sec1": {"main": 1, "sec2": 0}, "sec2": {"main": 0, "sec1": 0}}
    assert fuzz.imports_line(imp).startswith("main <- sec1: 2, main <- sec2: 0, sec1 <- main: 1")
    assert fuzz.sync_imports(tmp_path / "none") == {}
