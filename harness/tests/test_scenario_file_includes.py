"""The Python tools resolve a scenario's includes by the simulator's rules (issue 17 item 4):
inside the scenario's folder tree only, regular files only, at most 1 MiB; a refusal names
the including file and the include and echoes none of the included file's text. The same
inputs through `satasim check` are refused too (test_bad_input_hardening.py)."""

import os
from pathlib import Path

import pytest

from satasim.scenario_file import INCLUDE_ROOT_MARKER, load_scenario

ROOT = Path(__file__).resolve().parents[2]


def scenario(tmp_path, include, folder="s"):
    d = tmp_path / folder
    d.mkdir(parents=True, exist_ok=True)
    p = d / "s.yaml"
    p.write_text(f"name: s\ninclude: {include}\ncontroller: {{type: ahci, ports: 1}}\n")
    return p


def test_a_file_outside_the_tree_is_refused_without_its_text(tmp_path):
    secret = tmp_path / "secret" / "shadow.yaml"
    secret.parent.mkdir()
    secret.write_text("daemon: '*:19000:0:99999:7:::'\n")
    p = scenario(tmp_path, "../secret/shadow.yaml")
    with pytest.raises(ValueError) as e:
        load_scenario(p)
    assert "outside the scenario's folder tree" in str(e.value)
    assert str(p) in str(e.value) and "../secret/shadow.yaml" in str(e.value)
    assert "19000" not in str(e.value)


def test_a_symlink_out_of_the_tree_is_refused(tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("seed: 7\n")
    p = scenario(tmp_path, "link.yaml")
    os.symlink(outside, p.parent / "link.yaml")
    with pytest.raises(ValueError, match="outside the scenario's folder tree"):
        load_scenario(p)


@pytest.mark.parametrize("special", ["fifo", "dev"])
def test_a_device_or_fifo_is_refused_unread(tmp_path, special):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / INCLUDE_ROOT_MARKER).write_text("")
    if special == "fifo":
        os.mkfifo(tmp_path / "s" / "f.yaml")
        p = scenario(tmp_path, "f.yaml")
    else:
        os.symlink("/dev/zero", tmp_path / "s" / "z.yaml")  # resolves to /dev: outside
        p = scenario(tmp_path, "z.yaml")
    with pytest.raises(ValueError, match="not a regular file|outside the scenario's folder tree"):
        load_scenario(p)


def test_too_large_is_refused(tmp_path):
    p = scenario(tmp_path, "big.yaml")
    (p.parent / "big.yaml").write_text("seed: 1\n" + "#" * (1 << 20) + "\n")
    with pytest.raises(ValueError, match="too large"):
        load_scenario(p)


def test_the_marker_widens_the_tree_as_in_the_repository():
    # scenarios/field/*.yaml include ../common/...: allowed by scenarios/.satasim-include-root
    spec = load_scenario(ROOT / "scenarios" / "field" / "ncq-error-recovery.yaml")
    assert spec["controller"]["type"] == "ahci"
    assert "include" not in spec
