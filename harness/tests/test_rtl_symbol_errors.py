"""Backend rtl: the PHY's receive symbol error inputs (docs/rtl-controller.md, PHY). A top
takes per-byte code and disparity error flags (phy_rx_codeerr, phy_rx_disperr: W/8 bits per
port, like phy_rx_isk), or one flag per port (phy_rx_err), or none; the glue finds which.
One the shell would misread is refused once verilated, before anything is compiled, at the
profile's `top` key. That the flags reach the reference controller with the corrupted word
(SError.B in the EH report, the SystemC model's decisions) is test_rtl_differential's
link/crc-d2h-data-decode-error run."""

import shutil

import pytest

from rtl_profiles import tiny_dut
from satasim.results import ROOT, run

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None,
                                reason="verilator is not installed (tools/install_deps.sh): rtl backend skipped")

# inputs of a one-port, 32-bit PHY top -> what the refusal says
CASES = {
    "code-only": (["[3:0] phy_rx_codeerr"],
                  "has only one of phy_rx_codeerr and phy_rx_disperr: a PHY's decoder flags both kinds of "
                  "symbol error, so the top takes both or neither"),
    "narrow": (["phy_rx_codeerr", "phy_rx_disperr"],
               "has phy_rx_codeerr, but not as an input of 4 bits (one per byte of each port's PHY word)"),
    "word-flag-wide": (["[1:0] phy_rx_err"], "has phy_rx_err, but not as an input of 1 bits (one per port)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_inputs_the_shell_would_misread_are_refused_at_top(case, tmp_path, rtl_env):
    inputs, why = CASES[case]
    p = tiny_dut(tmp_path, ["clk", "rst", *inputs], {"phy_width": 32})
    line = next(i for i, l in enumerate(p.read_text().splitlines(), 1) if l.startswith("top:"))
    r = run([ROOT / "scenarios" / "probe-1port.yaml"], tmp_path / "out", "--controller-rtl", str(p))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{p}:{line}: top: the top module 'tiny' {why} (docs/rtl-controller.md, PHY)" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
