"""The README's test command on a fresh Debian 12 machine (issue 30 item 13): tools/install_deps.sh
installs every program the tests and tools run (test_readme_tutorial runs git, which it did
not install: 954 passed, 1 failed), and a program that is missing all the same fails its test
with one line naming it and its package, not a 191-line traceback whose cause is on the last."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def packages(*args) -> set[str]:
    """The packages tools/install_deps.sh installs with ARGS, as it computes them (bash)."""
    script = (ROOT / "tools" / "install_deps.sh").read_text()
    head = script[:script.index("missing=(")]   # the list, before anything is installed
    p = subprocess.run(["bash", "-c", head + '\nprintf "%s\\n" "${PACKAGES[@]}"', "install_deps", *args],
                       capture_output=True, text=True, check=True)
    return set(p.stdout.split())


# What the tests and tools run beyond the simulator and Python, and the package with it.
# need_tool(NAME, PACKAGE) calls in harness/ must name one of these (checked below).
RUN_BY_TESTS = {"git": "git", "bash": "bash", "verilator": "verilator", "yosys": "yosys",
                "qemu-system-x86_64": "qemu-system-x86", "ctest": "cmake", "cmake": "cmake",
                "ninja": "ninja-build"}
RUN_BY_TOOLS = {"lcov": "lcov", "genhtml": "lcov", "gcov": "build-essential",
                "/usr/bin/time": "time"}
RUN_BY_FUZZ_TOOLS = {"afl-fuzz": "afl++", "clang": "clang", "ccache": "ccache"}


def test_install_deps_installs_what_the_tests_and_tools_run():
    base = packages()
    missing = sorted({pkg for pkg in {**RUN_BY_TESTS, **RUN_BY_TOOLS}.values()} - base - {"bash"})
    assert not missing, f"tools/install_deps.sh does not install {missing}"
    fuzz = packages("--fuzz")
    assert not sorted(set(RUN_BY_FUZZ_TOOLS.values()) - fuzz)


def test_every_need_tool_call_names_an_installed_package():
    base = packages()
    calls = []
    for p in sorted((ROOT / "harness").rglob("*.py")):
        for m in re.finditer(r"need_tool\(\s*\"([^\"]+)\",\s*\"([^\"]+)\"", p.read_text()):
            calls.append((p.name, m.group(1), m.group(2)))
    assert any(name == "git" for _, name, _ in calls), calls
    bad = [c for c in calls if c[2] not in base and c[2] != "bash"]
    assert not bad, bad


def test_a_missing_program_fails_its_test_in_one_line(tmp_path):
    """The README tutorial's test on a PATH without git: one line says what is missing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for prog in ("bash",):
        (bin_dir / prog).symlink_to(f"/usr/bin/{prog}")
    (bin_dir / "python3").symlink_to(sys.executable)
    env = dict(os.environ, PATH=str(bin_dir))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                        "harness/tests/test_readme_tutorial.py::test_readme_tutorial_keeps_the_suite_green"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "git is not installed (Debian package git; bash tools/install_deps.sh installs it)" in out, out
    assert "Traceback" not in out and "FileNotFoundError" not in out, out
    failure = out[out.index("___ test_readme_tutorial_keeps_the_suite_green ___"):out.index("short test summary")]
    assert len(failure.strip().splitlines()) <= 3, failure
