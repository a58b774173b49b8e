import os
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest

from satasim.results import MissingTool, binary, use_rtl_cache

ROOT = Path(__file__).resolve().parents[2]


def pytest_configure(config):
    # One simulator run per distinct scenario input for the whole session (satasim.run_shared):
    # made by the main process before the xdist workers start, so they inherit it.
    if not hasattr(config, "workerinput") and "SATASIM_TEST_RUN_CACHE" not in os.environ:
        config._satasim_run_cache = tempfile.mkdtemp(prefix="satasim-test-runs-")
        os.environ["SATASIM_TEST_RUN_CACHE"] = config._satasim_run_cache


def pytest_unconfigure(config):
    d = getattr(config, "_satasim_run_cache", None)
    if d:
        shutil.rmtree(d, ignore_errors=True)
        os.environ.pop("SATASIM_TEST_RUN_CACHE", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # A program that is not installed: its one-line message instead of the traceback down
    # to subprocess's Popen (191 lines with the cause on the last, issue 30 item 13).
    outcome = yield
    if call.excinfo is not None and call.excinfo.errisinstance(MissingTool):
        outcome.get_result().longrepr = f"{item.nodeid}: {call.excinfo.value}"


@pytest.fixture(scope="module")
def rtl_env():
    """The RTL tests' DUT build cache (satasim.results.use_rtl_cache)."""
    return use_rtl_cache()


@pytest.fixture
def decisions_binary(monkeypatch):
    """For a test that checks what the stack and hardware decide rather than memory safety:
    the release build where the test command has just built one ($SATASIM_RELEASE_BIN,
    tools/test_all.sh), a third of the sanitized binary's CPU time. Every scenario such a
    test runs also runs under the sanitizers elsewhere (the suites, the backends' own tests)."""
    release = os.environ.get("SATASIM_RELEASE_BIN")
    if release:
        monkeypatch.setenv("SATASIM_BIN", release)
    return binary()


@pytest.fixture
def rtl_decisions(rtl_env, decisions_binary):
    """rtl_env's DUT build cache (the sanitized tree's: one DUT build serves both binaries,
    the shared object does not depend on them), with decisions_binary's simulator."""
    return rtl_env


@pytest.fixture
def write_scenario(tmp_path):
    """Writes a scenario file from (dedented) YAML text and returns its path."""

    def write(text, name="scenario.yaml"):
        path = tmp_path / "in" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    return write
