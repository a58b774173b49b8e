"""Hostile and odd scenario input (issue 17 items 4-6): `include:` confined to the scenario's
folder tree, regular files of bounded size, no file contents in messages; the names the
runner writes into the output folder reserved; scenario text echoed with control characters
escaped; backend refusals with a line; a second YAML document and too deep nesting refused
by name. Each malformed input: exit 2, file:line: key, nothing written."""

import os
import subprocess

import pytest

from satasim.results import binary

GOOD_HEAD = """\
name: bad
seed: 1
controller: {type: ahci, ports: 4}
"""

# A quick valid scenario (a small disk, a few commands).
QUICK = """\
name: quick
seed: 1
controller: {type: ahci, ports: 1}
devices: [{port: 0, capacity: 16m, timing: {kind: ssd}}]
workload:
  - {device: 0, op: write, block: 8, count: 4, region: {start: 0, length: 1m}}
"""


def sim(args, timeout=60):
    """`satasim ARGS` -> (exit code, stdout, stderr as text); a hang is a failure."""
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    try:
        p = subprocess.run([str(binary()), *map(str, args)], capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"satasim {' '.join(map(str, args))} did not finish in {timeout} s")
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def refused(scenarios, tmp_path, timeout=60):
    """Runs the scenarios; asserts exit 2 and nothing written; returns stderr."""
    out = tmp_path / "out"
    rc, so, se = sim(["run", *scenarios, "--out", out], timeout)
    assert rc == 2, so + se
    assert not out.exists() or not any(out.iterdir()), sorted(p.name for p in out.iterdir())
    return se


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


SECRET = "root:$6$SECRETHASH$abcdef:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"

# ---------------------------------------------------------------------------------------
# Item 4: include


def test_include_outside_the_tree_is_refused_without_its_contents(tmp_path):
    write(tmp_path / "secret" / "shadow", SECRET)
    scen = write(tmp_path / "in" / "s.yaml", "name: bad\ninclude: ../secret/shadow\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:2: include: " in err, err
    assert "outside the scenario's folder tree" in err, err
    assert "SECRETHASH" not in err and "daemon" not in err, err


def test_include_of_an_absolute_system_file_is_refused(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml", "name: bad\ninclude: /etc/passwd\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:2: include: /etc/passwd: outside the scenario's folder tree" in err, err
    assert "root:" not in err, err


def test_include_through_a_symlink_out_of_the_tree_is_refused(tmp_path):
    write(tmp_path / "secret" / "frag.yaml", "daemon:*:19000:0:99999:7:::\nseed: 3\n")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "frag.yaml").symlink_to(tmp_path / "secret" / "frag.yaml")
    scen = write(tmp_path / "in" / "s.yaml", "name: bad\ninclude: [frag.yaml]\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:2: include[0]: " in err and "outside the scenario's folder tree" in err, err
    assert "daemon" not in err, err


def test_include_of_dev_zero_is_a_clear_error(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml", GOOD_HEAD + "include: /dev/zero\n")
    err = refused([scen], tmp_path, timeout=60)
    assert f"{scen}:4: include: /dev/zero: " in err, err
    assert "bad_alloc" not in err, err


def test_include_of_a_fifo_is_a_clear_error(tmp_path):
    (tmp_path / "in").mkdir()
    os.mkfifo(tmp_path / "in" / "pipe.yaml")
    scen = write(tmp_path / "in" / "s.yaml", GOOD_HEAD + "include: pipe.yaml\n")
    err = refused([scen], tmp_path, timeout=20)
    assert f"{scen}:4: include: " in err and "not a regular file" in err, err


def test_include_of_a_folder_is_a_clear_error(tmp_path):
    (tmp_path / "in" / "sub").mkdir(parents=True)
    scen = write(tmp_path / "in" / "s.yaml", GOOD_HEAD + "include: sub\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:4: include: " in err and "not a regular file" in err, err


def test_include_of_a_too_large_file_is_refused(tmp_path):
    # valid YAML (a comment line repeated), just over 1 MiB
    write(tmp_path / "in" / "big.yaml", ("# " + "x" * 1022 + "\n") * 1025 + "seed: 2\n")
    scen = write(tmp_path / "in" / "s.yaml", GOOD_HEAD + "include: big.yaml\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:4: include: " in err and "too large" in err, err


def test_include_inside_the_tree_still_works(tmp_path):
    # below the scenario's folder; and ../ up to a folder marked as the tree's root
    write(tmp_path / "in" / "common" / "topo.yaml", "controller: {type: ahci, ports: 2}\n")
    scen = write(tmp_path / "in" / "s.yaml", "name: ok\ninclude: common/topo.yaml\n")
    rc, so, se = sim(["check", scen])
    assert rc == 0 and "2 ports" in so, so + se
    tree = tmp_path / "tree"
    write(tree / ".satasim-include-root", "")
    write(tree / "common" / "topo.yaml", "controller: {type: ahci, ports: 3}\n")
    field = write(tree / "field" / "s.yaml", "name: ok2\ninclude: ../common/topo.yaml\n")
    rc, so, se = sim(["check", field])
    assert rc == 0 and "3 ports" in so, so + se


def test_include_up_without_a_root_marker_is_refused(tmp_path):
    write(tmp_path / "tree" / "common" / "topo.yaml", "controller: {type: ahci, ports: 3}\n")
    scen = write(tmp_path / "tree" / "field" / "s.yaml", "name: bad\ninclude: ../common/topo.yaml\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:2: include: " in err and "outside the scenario's folder tree" in err, err


# ---------------------------------------------------------------------------------------
# Item 5: names the runner writes


@pytest.mark.parametrize("name", ["summary.json", "junit.xml"])
def test_reserved_scenario_names_are_refused(name, tmp_path):
    quick = write(tmp_path / "in" / "quick.yaml", QUICK)
    scen = write(tmp_path / "in" / "s.yaml", f"seed: 1\nname: {name}\n" + QUICK.split("\n", 2)[2])
    err = refused([quick, scen], tmp_path)
    assert f"{scen}:2: name: '{name}' is reserved" in err, err


def test_dot_and_slash_names_stay_refused(tmp_path):
    for i, name in enumerate([".summary.json.tmp", "a/b", ".."]):
        scen = write(tmp_path / "in" / f"s{i}.yaml", f'name: "{name}"\n')
        err = refused([scen], tmp_path)
        assert f"{scen}:1: name: " in err, err


# ---------------------------------------------------------------------------------------
# Item 6: what a scenario's text does to messages


def test_nul_in_a_name_is_shown_escaped(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml", 'name: "x\\0y"\n')
    err = refused([scen], tmp_path)
    assert f"{scen}:1: name: 'x\\x00y' is not a usable scenario name" in err, repr(err)


def test_control_characters_are_never_echoed_raw(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml",
                 GOOD_HEAD + 'devices:\n  - port: 0\n    ncq_depth: "\\e[2J\\ttab\\nnl\\x7f"\n')
    err = refused([scen], tmp_path)
    assert f"{scen}:6: devices[0].ncq_depth: " in err, repr(err)
    assert "\\x1b[2J\\ttab\\nnl\\x7f" in err, repr(err)
    assert not any(c in err.rstrip("\n") for c in "\x1b\t\x7f\x00"), repr(err)
    assert err.count("\n") == 1, repr(err)


def test_control_characters_in_an_unknown_key_are_escaped(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml", GOOD_HEAD + '"bad\\rkey": 1\n')
    err = refused([scen], tmp_path)
    assert f"{scen}:4: bad\\rkey: unknown key" in err, repr(err)


def test_backend_refusal_names_the_line(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml",
                 "name: bad\nseed: 1\nbackend: qemu\ncontroller: {type: sil24, ports: 1}\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:3: backend qemu: the QEMU backend cannot model controller.type sil24" in err, err


def test_a_second_yaml_document_is_refused(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml", GOOD_HEAD + "devices:\n  - port: 0\n---\nworkload: []\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:6: a second YAML document starts here" in err, err


def test_a_second_yaml_document_in_an_included_file_is_refused(tmp_path):
    frag = write(tmp_path / "in" / "frag.yaml", "seed: 2\n---\nseed: 3\n")
    scen = write(tmp_path / "in" / "s.yaml", GOOD_HEAD + "include: frag.yaml\n")
    err = refused([scen], tmp_path)
    assert f"{frag}:2: a second YAML document starts here" in err, err


def test_a_leading_document_marker_is_still_one_document(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml", "---\n# a comment\nname: ok\ncontroller: {type: ahci, ports: 2}\n...\n")
    rc, so, se = sim(["check", scen])
    assert rc == 0 and "2 ports" in so, so + se


@pytest.mark.parametrize("depth", [499, 1000])
def test_too_deep_nesting_says_so(depth, tmp_path):
    scen = write(tmp_path / "in" / "s.yaml", "name: bad\ndescription: " + "[" * depth + "]" * depth + "\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:2: YAML nested too deeply (limit 499 levels of lists and mappings)" in err, err


def test_nesting_within_the_limit_is_read(tmp_path):
    scen = write(tmp_path / "in" / "s.yaml", "name: bad\ndescription: " + "[" * 498 + "]" * 498 + "\n")
    err = refused([scen], tmp_path)
    assert f"{scen}:2: description: expected a string, got a list" in err, err
