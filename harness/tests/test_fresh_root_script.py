"""tools/fresh_root.sh (issue 34): the script that runs the README's two commands in a bare
Debian 12 root. The whole check takes tens of minutes and is run by hand before a stop that
changes dependencies; here its refusals, which must happen before anything is made or
mounted."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "fresh_root.sh"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def test_an_unknown_argument_is_a_usage_error_naming_it(tmp_path):
    r = run("everything", "--root", str(tmp_path / "r"))
    assert r.returncode == 2
    assert "unknown argument 'everything'" in r.stderr and "usage: tools/fresh_root.sh" in r.stderr
    assert not (tmp_path / "r").exists()


def test_the_root_must_be_an_absolute_folder_other_than_slash(tmp_path):
    for bad in ("/", "relative/root"):
        r = run("main", "--root", bad)
        assert r.returncode == 2, (bad, r.stdout, r.stderr)
        assert "--root must be an absolute path other than /" in r.stderr


def test_help_names_both_commands():
    r = run("--help")
    assert r.returncode == 0
    assert "tools/fresh_root.sh [main|test|both]" in r.stdout and "run_suite.sh" in r.stdout
