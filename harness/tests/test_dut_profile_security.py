"""A DUT profile is data a vendor hands over: nothing in it may run a command, and its files
must lie in its own folder or in satasim's RTL (docs/rtl-controller.md, what a profile may
say). Before: the verilator command was one string run by a shell, and a define, a parameter
or a flag with ';' or backticks ran commands; files: [/etc/passwd] was printed into build.log."""

import os
import shutil

import pytest

from rtl_profiles import tiny_dut
from satasim.results import ROOT, run

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None,
                                reason="verilator is not installed (tools/install_deps.sh): rtl backend skipped")

SCENARIO = ROOT / "scenarios" / "probe-1port.yaml"


def key_line(path, text):
    return next(i for i, l in enumerate(path.read_text().splitlines(), 1) if text in l)


def profile(tmp_path, extra, name="evil"):
    (tmp_path / "dut.v").write_text("module dut (input wire clk, input wire rst);\nendmodule\n")
    p = tmp_path / "profile.yaml"
    p.write_text(f"name: {name}\ntop: dut\nfiles: [dut.v]\ninterface: {{ports: 1, clock_mhz: 150}}\n" + extra)
    return p


@pytest.fixture
def cache(tmp_path, monkeypatch):
    c = tmp_path / "cache"
    monkeypatch.setenv("SATASIM_RTL_CACHE", str(c))
    return c


INJECTIONS = [
    ("defines", 'defines: {{PWN: "1;touch${{IFS}}{mark};exit${{IFS}}1;"}}\n', "defines.PWN"),
    ("parameters", "parameters: {{W: '`touch {mark}`'}}\n", "parameters.W"),
    ("parameters", "parameters: {{W: '$(touch {mark})'}}\n", "parameters.W"),
    ("verilator_flags", "verilator_flags: ['-Wno-fatal;touch${{IFS}}{mark};']\n", "verilator_flags[0]"),
    ("verilator_flags", "verilator_flags: [-O3, --x-assign, 'fast;touch${{IFS}}{mark}']\n", "verilator_flags[2]"),
    # options that read or write files, or hand text to another tool
    ("verilator_flags", "verilator_flags: [-f, /etc/passwd]\n", "verilator_flags[0]"),
    ("verilator_flags", "verilator_flags: [-CFLAGS, '-include /etc/passwd']\n", "verilator_flags[0]"),
    ("verilator_flags", "verilator_flags: ['--compiler=clang']\n", "verilator_flags[0]"),
    ("verilator_flags", "verilator_flags: ['+define+X=1']\n", "verilator_flags[0]"),
]


@pytest.mark.parametrize("section,extra,key", INJECTIONS, ids=[i[2] + str(n) for n, i in enumerate(INJECTIONS)])
def test_a_profile_value_never_runs_a_command(tmp_path, cache, section, extra, key):
    mark = tmp_path / "pwned"
    p = profile(tmp_path, extra.format(mark=mark))
    r = run([SCENARIO], tmp_path / "out", "--controller-rtl", str(p), timeout=300)
    assert not mark.exists(), "a profile value ran a command"
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{p}:{key_line(p, section)}: {key}: " in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    assert not cache.exists() or not any(cache.iterdir()), "a refused profile started a build"


@pytest.mark.parametrize("entry", ["/etc/passwd", "../outside.v"])
def test_files_outside_the_profiles_folder_and_satasims_rtl_are_refused(tmp_path, cache, entry):
    (tmp_path / "outside.v").write_text("module dut (input wire clk); endmodule\n")
    d = tmp_path / "vendor"
    d.mkdir()
    p = d / "p.yaml"
    p.write_text(f"name: p\ntop: dut\nfiles: ['{entry}']\ninterface: {{ports: 1}}\n")
    r = run([SCENARIO], tmp_path / "out", "--controller-rtl", str(p), timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{p}:3: files[0]: '{entry}' is outside the profile's folder" in r.stderr, r.stderr
    assert "root:" not in r.stdout + r.stderr
    # A symlink inside the folder that leads out is refused too (resolved first).
    (d / "link.v").symlink_to("/etc/passwd")
    p.write_text("name: p\ntop: dut\nfiles: [link.v]\ninterface: {ports: 1}\n")
    r = run([SCENARIO], tmp_path / "out", "--controller-rtl", str(p), timeout=300)
    assert r.returncode == 2 and f"{p}:3: files[0]: 'link.v' is outside" in r.stderr, r.stderr


def test_allowed_values_and_awkward_paths_reach_verilator_as_arguments(tmp_path, cache):
    # A folder with a space and a quote (refused before: the command was quoted for a shell),
    # Verilog constants of each form and allowed options: verilated, then refused at `top`
    # by the shell's own port check (the tiny top has no interrupt lines per port), which
    # shows that Verilator ran on exactly these arguments.
    d = tmp_path / "it's a dut"
    d.mkdir()
    p = tiny_dut(d, ["clk", "rst"], {"irq_per_port": "true"})
    p.write_text(p.read_text() + "defines: {A: 8'hFF, B: -3, C: '\"x.y\"', D: ''}\n"
                 "parameters: {}\nverilator_flags: [-O2, --x-assign, fast, -Wno-WIDTH, --timescale, 1ns/1ps]\n")
    r = run([SCENARIO], tmp_path / "out", "--controller-rtl", str(p), timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{p}:{key_line(p, 'irq_per_port')}: interface.irq_per_port: one interrupt line per port, but the " \
           "top module 'tiny' has no output irq_port" in r.stderr, r.stderr


def test_a_failed_build_leaves_no_temporary_folder(tmp_path, cache):
    p = profile(tmp_path, "", name="broken")
    (tmp_path / "dut.v").write_text("module dut (input wire clk;\nendmodule\n")  # a syntax error
    r = run([SCENARIO], tmp_path / "out", "--controller-rtl", str(p), timeout=300)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "verilating the DUT failed; see " in r.stdout + r.stderr, r.stdout + r.stderr
    left = sorted(x.name for x in cache.iterdir())
    assert not [x for x in left if ".tmp." in x], left
    logs = [x for x in cache.iterdir() if x.name.endswith(".failed.log")]
    assert len(logs) == 1 and "dut.v" in logs[0].read_text(), left
    assert str(logs[0]) in r.stdout + r.stderr


def test_profile_name_and_documents_are_bounded(tmp_path, cache):
    p = profile(tmp_path, "", name="n" * 10000)
    r = run([SCENARIO], tmp_path / "out", "--controller-rtl", str(p), timeout=300)
    assert r.returncode == 2 and f"{p}:1: name: letters, digits and _ only, at most 64" in r.stderr, r.stderr
    p = profile(tmp_path, "---\nname: other\n")
    r = run([SCENARIO], tmp_path / "out", "--controller-rtl", str(p), timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{p}:5: a second YAML document starts here: a DUT profile is one document" in r.stderr, r.stderr
    assert not cache.exists() or not any(cache.iterdir())
