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
        assert "Accellera" not in r.stdout + r.stderr and "Copyright (c)" not in r.stdout + r.stderr, (args, r.stdout[:300])
    assert (tmp_path / "out" / "probe-1port" / "result.json").is_file()


def sim(*args):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return subprocess.run([str(binary()), *map(str, args)], capture_output=True, text=True, env=env, timeout=300)


def test_version_and_help_per_command():
    # Before: "--version" was an unknown command (46 lines of usage) and "run --help" an
    # unknown option.
    r = sim("--version")
    assert r.returncode == 0 and r.stderr == "", r
    assert r.stdout.startswith("satasim ") and "result format 1" in r.stdout and "trace format 1" in r.stdout
    assert len(r.stdout.splitlines()) == 1
    for cmd, words in [("run", ["--out DIR", "--jobs", "--wall-limit", "--controller-rtl", "--vcd FILE"]),
                       ("check", ["paths"]), ("check-profile", ["profiles"]), ("eh-check", ["--rules"])]:
        r = sim(cmd, "--help")
        assert r.returncode == 0, (cmd, r.stderr)
        assert f"Usage: satasim {cmd}" in r.stdout and all(w in r.stdout for w in words), (cmd, r.stdout)


def test_usage_errors_are_one_message_and_exit_2(tmp_path):
    for args, said in [(["run", ROOT / "scenarios" / "probe-1port.yaml", "--jobs", "0"], "--jobs"),
                       (["run", ROOT / "scenarios" / "probe-1port.yaml", "--bogus"], "--bogus"),
                       (["run"], "paths is required"),
                       (["run", ROOT / "scenarios" / "probe-1port.yaml", "--trace-cmds", "maybe"], "--trace-cmds"),
                       (["run", ROOT / "scenarios" / "probe-1port.yaml", "--backend", "vmware"], "vmware"),
                       (["frobnicate"], "frobnicate")]:
        r = sim(*args, "--out", tmp_path / "out") if args[0] == "run" else sim(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert lines[0].startswith("satasim: ") and said in lines[0], (args, r.stderr)
        assert len(lines) <= 2, r.stderr
    assert not (tmp_path / "out").exists()


def test_the_version_is_in_the_result_the_summary_and_the_trace(tmp_path):
    import json
    version = sim("--version").stdout.split()[1]
    r = sim("run", ROOT / "scenarios" / "probe-1port.yaml", "--out", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads((tmp_path / "probe-1port" / "result.json").read_text())
    summary = json.loads((tmp_path / "summary.json").read_text())
    first = json.loads((tmp_path / "probe-1port" / "trace.jsonl").read_text().splitlines()[0])
    assert (result["result_format"], result["satasim_version"]) == (1, version)
    assert (summary["result_format"], summary["satasim_version"]) == (1, version)
    assert first["ev"] == "run.start" and first["f"]["trace_format"] == 1 and first["f"]["satasim_version"] == version


def test_a_misspelt_key_or_value_gets_a_suggestion(tmp_path):
    for text, said in [("name: x\ncontroller: {type: ahci, ports: 1}\ndevics: []\n",
                        ":3: devics: unknown key (did you mean 'devices'?) (expected one of: "),
                       ("name: x\ncontroller: {type: ahci, prots: 1}\n",
                        ":2: controller.prots: unknown key (did you mean 'ports'?)"),
                       ("name: x\ncontroller: {type: sil42, ports: 1}\n",
                        ":2: controller.type: unknown value 'sil42' (did you mean 'sil24'?)"),
                       ("name: x\ncontroller: {type: ahci}\ndevices: [{port: 0, timing: {kind: sssd}}]\n",
                        "unknown value 'sssd' (did you mean 'ssd'?)")]:
        p = tmp_path / "s.yaml"
        p.write_text(text)
        r = sim("check", p)
        assert r.returncode == 2 and said in r.stderr, (text, r.stderr)
    # nothing near, or two as near (sdd: ssd and hdd): no guess
    p.write_text("name: x\ncontroller: {type: ahci}\ndevices: [{port: 0, timing: {kind: sdd}}]\n")
    r = sim("check", p)
    assert r.returncode == 2 and "did you mean" not in r.stderr, r.stderr
    p.write_text("name: x\nzzzzzzzz: 1\n")
    r = sim("check", p)
    assert r.returncode == 2 and "did you mean" not in r.stderr, r.stderr
