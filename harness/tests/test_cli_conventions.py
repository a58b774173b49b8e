"""The command line as its users' tools expect it (issue 34, CLI conventions)."""

import os
import subprocess

from satasim.results import ROOT, binary


def test_no_systemc_banner_ever(tmp_path):
    # libsystemc's main() printed its banner before sc_main() could set the variable that
    # silences it: on --help, on an unknown command and on every run of a user who had not
    # exported SYSTEMC_DISABLE_COPYRIGHT_MESSAGE.
    env = {k: v for k, v in os.environ.items() if k != "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"}
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    for args in (["--help"], ["no-such-command"], ["check", ROOT / "scenarios" / "probe-1port.yaml"],
                 ["run", ROOT / "scenarios" / "probe-1port.yaml", "--out", tmp_path / "out"]):
        r = subprocess.run([str(binary()), *map(str, args)], capture_output=True, text=True, env=env, timeout=300)
        assert "SystemC" not in r.stdout + r.stderr and "Copyright" not in r.stdout + r.stderr, (args, r.stdout[:300])
    assert (tmp_path / "out" / "probe-1port" / "result.json").is_file()
