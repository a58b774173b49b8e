"""Backend rtl: the stack and scenarios on the reference AHCI controller RTL
(model/ahci_rtl/profile.yaml) inside the DUT shell. The DUT is verilated once per build
tree (cache next to the simulator binary). Here: the profile and refusal rules; the scenarios
that run on the DUT in the test command (clean I/O and EH, each compared with the SystemC
model) are test_rtl_differential.py's, the rest of the suite runs on demand
(docs/rtl-controller.md)."""

import os
import shutil

import pytest

from rtl_profiles import PROFILE, SHELL_INPUTS, SHELL_OUTPUTS, profile_copy, tiny_dut
from satasim.results import ROOT, load_result, run

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None,
                                reason="verilator is not installed (tools/install_deps.sh): rtl backend skipped")


def test_malformed_profile_names_file_line_and_key(tmp_path, rtl_env):
    bad = profile_copy(tmp_path / "p.yaml", "data_width: 64", "data_width: 48")
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(bad))
    assert r.returncode == 2, r.stdout + r.stderr
    line = next(i for i, l in enumerate(bad.read_text().splitlines(), 1) if "data_width" in l)
    assert f"{bad}:{line}: interface.data_width:" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    q = profile_copy(tmp_path / "q.yaml", "rtl/ahci_port.v", "rtl/nope.v")
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(q))
    assert r.returncode == 2 and "files[1]: no such file" in r.stderr, r.stderr
    # A 16-bit PHY moves its words on the PHY's clocks; a clock offset needs the DUT's own
    # receive clock: both refused at their keys without interface.phy_clocks.
    w = profile_copy(tmp_path / "w.yaml", "  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_width: 16")
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(w))
    line = next(i for i, l in enumerate(w.read_text().splitlines(), 1) if "phy_width" in l)
    assert r.returncode == 2 and f"{w}:{line}: interface.phy_width:" in r.stderr, r.stderr
    assert "interface.phy_clocks: true" in r.stderr, r.stderr
    o = profile_copy(tmp_path / "o.yaml", "\naxi:", "\nphy:\n  rx_ppm: -350\naxi:")
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(o))
    line = next(i for i, l in enumerate(o.read_text().splitlines(), 1) if "rx_ppm" in l)
    assert r.returncode == 2 and f"{o}:{line}: phy.rx_ppm:" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("old,new,key,why", [
    # the optional PHY pin groups: known names, each once
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_pins: [elecidle, wakeup]", "interface.phy_pins[1]",
     "unknown value 'wakeup' (expected one of: elecidle, comwake_det, rate, reset, refclk)"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_pins: [rate, reset, rate]", "interface.phy_pins[2]",
     "'rate' is named twice"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_sideband_width: 33", "interface.phy_sideband_width",
     "33 is out of range (0..32)"),
    # the shell's PHY settings only for pins the top has, values that fit
    ("\naxi:", "\nphy:\n  rate_ack_clocks: 64\naxi:", "phy.rate_ack_clocks",
     "the shell drives this only on a top with the 'rate' pins"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_pins: [reset]\nphy:\n  reset_done_clocks: 0",
     "phy.reset_done_clocks", "0 is out of range (1..1048576)"),
    ("\naxi:", "\nphy:\n  sideband_status: 1\naxi:", "phy.sideband_status",
     "the top has no sideband: set interface.phy_sideband_width (1..32)"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_sideband_width: 8\nphy:\n  sideband_status: 0x1ff",
     "phy.sideband_status", "0x1ff does not fit the 8-bit sideband"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_sideband_width: 8\nphy:\n  sideband_status: [1, 2]",
     "phy.sideband_status", "2 values for 1 port (one value, or one per port)"),
    # receive clocks: one offset per port, SSC within SATA's figures and on the DUT's own clocks
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_clocks: true\nphy:\n  rx_ppm: [350, -350]",
     "phy.rx_ppm", "2 offsets for 1 port (one offset, or one per port)"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_clocks: true\nphy:\n  rx_ppm: [1200]",
     "phy.rx_ppm[0]", "expected an integer from -1000 to 1000 (ppm), got '1200'"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_clocks: true\nphy:\n  ssc:\n    spread_ppm: 6000",
     "phy.ssc.spread_ppm", "6000 is out of range (0..5000)"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_clocks: true\nphy:\n  ssc:\n    freq_hz: 40000",
     "phy.ssc.freq_hz", "40000 is out of range (30000..33000)"),
    ("\naxi:", "\nphy:\n  ssc: {spread_ppm: 5000}\naxi:", "phy.ssc",
     "spread-spectrum receive clocks need the DUT's own receive clock: interface.phy_clocks: true"),
    # the PHY's reference clock: on the PHY's own clocks, at a frequency its PLL can multiply
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_pins: [refclk]", "interface.phy_pins[0]",
     "the PHY derives its parallel clocks from the reference clock: say interface.phy_clocks: true"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_clocks: true\n  phy_pins: [refclk]\nphy:\n  refclk_mhz: 110",
     "phy.refclk_mhz", "the PHY's PLL makes the 6000 Mbps line rate (interface.clock_mhz x 40) as an integer "
     "multiple of its reference clock, and 6000 / 110 is not an integer"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_clocks: true\n  phy_pins: [refclk]", "interface.phy_pins",
     "the 'refclk' pin needs its frequency: phy.refclk_mhz (a divisor of the line rate, interface.clock_mhz x 40)"),
    ("  idle_cycles: 4096", "  idle_cycles: 4096\n  phy_clocks: true\nphy:\n  refclk_mhz: 150",
     "phy.refclk_mhz", "the shell drives this only on a top with the 'refclk' pins"),
])
def test_bad_phy_pin_settings_name_file_line_and_key(old, new, key, why, tmp_path, rtl_env):
    # Refused while the profile is read: nothing is built or run.
    bad = profile_copy(tmp_path / "p.yaml", old, new)
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(bad))
    assert r.returncode == 2, r.stdout + r.stderr
    leaf = key.split(".")[-1].split("[")[0]
    # the key's line (an element of a flow list: the list's)
    lines = [i for i, l in enumerate(bad.read_text().splitlines(), 1) if leaf + ":" in l]
    assert f"{bad}:{lines[-1]}: {key}: {why}" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_scenarios_the_dut_lacks_are_refused_with_the_reason(tmp_path, rtl_env):
    r = run([ROOT / "scenarios" / "probe-2port.yaml"], tmp_path, "--controller-rtl", str(PROFILE))
    assert r.returncode != 0
    assert "the DUT has 1 port" in r.stdout + r.stderr, r.stdout + r.stderr


def test_more_ports_than_the_dut_has_are_refused_at_the_key(tmp_path, rtl_env):
    # controller.ports 2 with the one disk on port 0: the expectations assume a second,
    # empty port (empty_ports: [1]) that the 1-port DUT (CAP.NP = 0) does not have.
    scen = ROOT / "scenarios" / "faults" / "hotswap-new-serial.yaml"
    line = next(i for i, l in enumerate(scen.read_text().splitlines(), 1) if "ports: 2" in l)
    r = run([scen], tmp_path / "out", "--controller-rtl", str(PROFILE))
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"{scen}:{line}: backend rtl: the RTL backend cannot model controller.ports 2: the DUT has 1 port "
            "(its profile's interface.ports, CAP.NP + 1)") in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    # Without the key the type's default (4 ports) is no statement: the stack drives the
    # DUT's one port and the scenario runs.
    own = tmp_path / "noports.yaml"
    text = (ROOT / "scenarios" / "probe-1port.yaml").read_text()
    assert "controller: {type: ahci, ports: 1}\n" in text
    own.write_text(text.replace("controller: {type: ahci, ports: 1}\n", ""))
    r = run([own], tmp_path / "out2", "--controller-rtl", str(PROFILE))
    assert r.returncode == 0, r.stdout + r.stderr
    assert load_result(tmp_path / "out2", "probe-1port")["verdict"] == "pass"


@pytest.mark.parametrize("scenario,reason", [
    ("pmp/pmp-ncq-cbs-ahci.yaml", "cannot model pmps: the DUT has no port-multiplier support"),
    # (directed steps run on the DUT: test_directed_backends.py)
])
def test_keys_the_dut_cannot_take_are_refused_under_controller_rtl(scenario, reason, tmp_path, rtl_env):
    # The scenario names no backend: --controller-rtl chooses it after parsing, and the
    # keys the parser would have refused must still be refused (they once ran and failed).
    r = run([ROOT / "scenarios" / scenario], tmp_path / "out", "--controller-rtl", str(PROFILE))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "backend rtl: the RTL backend " + reason in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def key_line(path, key):
    return next(i for i, l in enumerate(path.read_text().splitlines(), 1) if key in l)


def test_bus_clock_frequencies_refused_at_their_keys(tmp_path, rtl_env):
    # A separate register or DMA clock (docs/rtl-controller.md, clocks) takes clock_mhz's
    # range, 10..1000 MHz: zero and negative figures are refused at the key, nothing run.
    for key, value, why in [("reg_clock_mhz", "0", "0 is out of range (10..1000)"),
                            ("dma_clock_mhz", "-150", "expected a non-negative integer, got '-150'")]:
        p = profile_copy(tmp_path / f"{key}.yaml", "  idle_cycles: 4096", f"  idle_cycles: 4096\n  {key}: {value}")
        r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(p))
        assert r.returncode == 2, r.stdout + r.stderr
        assert f"{p}:{key_line(p, key)}: interface.{key}: {why}" in r.stderr, r.stderr
        assert not (tmp_path / "out").exists()


def test_bus_clocks_the_top_lacks_are_refused_at_their_keys(tmp_path, rtl_env):
    # The profile gives a register clock; the top has reg_clk but no reg_rst (each bus
    # clock comes with its own reset), or no dma_clk at all: refused at the key once
    # verilated, before the shell's glue would fail to compile against the model.
    p = tiny_dut(tmp_path, ["clk", "rst", "reg_clk"], {"reg_clock_mhz": 50})
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(p))
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"{p}:{key_line(p, 'reg_clock_mhz')}: interface.reg_clock_mhz: a separate register slave clock, "
            "but the top module 'tiny' has no input reg_rst") in r.stderr, r.stderr
    p = tiny_dut(tmp_path, ["clk", "rst", "reg_clk", "reg_rst"], {"reg_clock_mhz": 50, "dma_clock_mhz": 100})
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(p))
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"{p}:{key_line(p, 'dma_clock_mhz')}: interface.dma_clock_mhz: a separate DMA master clock, "
            "but the top module 'tiny' has no input dma_clk") in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_a_shared_object_built_without_the_profiles_bus_clock_is_refused(tmp_path, rtl_env, monkeypatch):
    # A DUT object whose ABI says it has no reg_clk while the profile gives one (an object
    # made elsewhere: the build key has the bus clocks, so satasim's own builds agree). The
    # object comes from a stand-in glue (SATASIM_RTL_SHELL_DIR) around the tiny top: the
    # real ABI, every field the profile's but reg_clock.
    shell = tmp_path / "shell"
    (shell / "shell").mkdir(parents=True)
    (shell / "dut_abi.h").write_text((ROOT / "harness" / "src" / "backend" / "rtl" / "dut_abi.h").read_text())
    (shell / "shell" / "dut_glue.cpp").write_text("""
extern "C" {
#include "dut_abi.h"
}
namespace {
void *create(const char *) { return nullptr; }
void destroy(void *) {}
void tick(void *, satasim_dut_pins *) {}
const satasim_dut_api kApi = {SATASIM_DUT_ABI_VERSION, SATASIM_DUT_PORTS, SATASIM_DUT_DW, SATASIM_DUT_AW,
                              SATASIM_DUT_PHY_W, SATASIM_DUT_PHY_CLOCKS, SATASIM_DUT_RAW, SATASIM_DUT_PHY_PINS,
                              SATASIM_DUT_PHY_SBW, !SATASIM_DUT_REG_CLOCK, SATASIM_DUT_DMA_CLOCK, SATASIM_DUT_IRQ_LEVEL,
                              SATASIM_DUT_RX_ERR_BYTE, create, destroy, tick};
}
extern "C" __attribute__((visibility("default"))) const satasim_dut_api *satasim_dut_api_v1() { return &kApi; }
""")
    monkeypatch.setenv("SATASIM_RTL_SHELL_DIR", str(shell))
    monkeypatch.setenv("SATASIM_RTL_CACHE", str(tmp_path / "cache"))
    p = tiny_dut(tmp_path, [*SHELL_INPUTS, "reg_clk", "reg_rst"], {"reg_clock_mhz": 50}, SHELL_OUTPUTS)
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(p))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{p}:{key_line(p, 'reg_clock_mhz')}: interface.reg_clock_mhz: '" in r.stderr, r.stderr
    assert "dut.so' was built without reg_clk; the profile gives it" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    # The same object (irq_per_port is not in the build key) for a profile that wants one
    # interrupt line per port, which the object says its top lacks: refused when loaded.
    p = tiny_dut(tmp_path, [*SHELL_INPUTS, "reg_clk", "reg_rst"], {"reg_clock_mhz": 50, "irq_per_port": "true"},
                 SHELL_OUTPUTS)
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(p))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "cached build" in r.stdout + r.stderr, r.stdout + r.stderr
    assert (f"{p}:{key_line(p, 'irq_per_port')}: interface.irq_per_port: one interrupt line per port, but the "
            "top module 'tiny' has no output irq_port") in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_tool_versions_are_asked_once_per_installation(tmp_path, rtl_env, monkeypatch):
    # The build key holds the tools' versions; `verilator --version` is asked once and kept
    # in the build cache under the tools' path, size and time, not asked on every run.
    real = shutil.which("verilator")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "verilator.log"
    wrapper = bindir / "verilator"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    monkeypatch.setenv("SATASIM_RTL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SATASIM_RTL_TOOL_VERSIONS", raising=False)
    p = tiny_dut(tmp_path, ["clk", "rst"], {})
    asked = []
    for n in range(2):
        # the tiny top lacks the shell's ports (refused once verilated): the key, versions and all, is made first
        r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / f"out{n}", "--controller-rtl", str(p))
        assert r.returncode == 2 and "lacks the shell's ports" in r.stderr, r.stdout + r.stderr
        asked.append(log.read_text().splitlines().count("--version"))
    assert asked == [1, 1], asked
    cached = list((tmp_path / "cache").glob("tool-versions-*"))
    assert len(cached) == 1 and "Verilator" in cached[0].read_text(), cached
    # the tool replaced (a new modification time): asked again
    os.utime(wrapper, (1_000_000_000, 1_000_000_000))
    run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out2", "--controller-rtl", str(p))
    assert log.read_text().splitlines().count("--version") == 2


def test_a_top_lacking_shell_ports_is_refused_naming_them_before_anything_is_compiled(tmp_path, monkeypatch):
    # A vendor's top with two of the shell's ports missing (a read-ready of each bus, say):
    # before, the build compiled the Verilator runtime and failed in the glue with a compiler
    # error per use of each port; now refused at `top` once verilated, naming both.
    ins = [x for x in SHELL_INPUTS if x != "s_rready"]
    outs = [x for x in SHELL_OUTPUTS if x != "m_rready"]
    p = tiny_dut(tmp_path, ins, {"phy_pins": "[elecidle]"}, outs)
    monkeypatch.setenv("SATASIM_RTL_CACHE", str(tmp_path / "cache"))
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(p))
    assert r.returncode == 2, r.stdout + r.stderr
    line = next(i for i, l in enumerate(p.read_text().splitlines(), 1) if l.startswith("top:"))
    assert (f"{p}:{line}: top: the top module 'tiny' lacks the shell's ports s_rready, m_rready, "
            "phy_tx_elecidle, phy_rx_elecidle (docs/rtl-controller.md, the signals)") in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    # nothing was handed to the compiler: no build log in the cache names a c++ command
    logs = [f.read_text() for f in (tmp_path / "cache").rglob("*.log")]
    assert not any("\n$ c++" in x or x.startswith("$ c++") for x in logs), logs
