"""Profiles for the RTL backend's tests: the reference controller's profile copied elsewhere
with one change, and a stand-in top with only the ports a refusal needs."""

from satasim.results import ROOT

PROFILE = ROOT / "model" / "ahci_rtl" / "profile.yaml"


def profile_copy(path, old, new):
    """The reference profile outside its folder (paths made absolute), old replaced by new."""
    d = str(PROFILE.parent)
    text = (PROFILE.read_text().replace("  - rtl/", f"  - {d}/rtl/").replace("  - ../", f"  - {d}/../")
            .replace("[rtl, ../link/rtl]", f"[{d}/rtl, {d}/../link/rtl]"))
    assert old in text
    path.write_text(text.replace(old, new))
    return path


# The ports the shell's glue needs on every top (docs/rtl-controller.md, the signals; the
# optional groups are not here): a tiny top with all of them passes the shell's port check
# and reaches the compiler. One bit each: the check asks for the names, the compiler for widths.
SHELL_INPUTS = ["clk", "rst", "s_awaddr", "s_awvalid", "s_wdata", "s_wstrb", "s_wvalid", "s_bready", "s_araddr",
                "s_arvalid", "s_rready", "m_awready", "m_wready", "m_bresp", "m_bvalid", "m_arready", "m_rdata",
                "m_rresp", "m_rlast", "m_rvalid", "phy_rx_data", "phy_rx_isk", "phy_ready", "phy_gen",
                "phy_dev_present", "phy_cominit"]
SHELL_OUTPUTS = ["s_awready", "s_wready", "s_bresp", "s_bvalid", "s_arready", "s_rdata", "s_rresp", "s_rvalid",
                 "m_awaddr", "m_awlen", "m_awsize", "m_awburst", "m_awvalid", "m_wdata", "m_wstrb", "m_wlast",
                 "m_wvalid", "m_bready", "m_araddr", "m_arlen", "m_arsize", "m_arburst", "m_arvalid", "m_rready",
                 "phy_tx_data", "phy_tx_isk", "phy_comreset", "phy_comwake", "phy_offline", "phy_spd_limit"]


def tiny_dut(tmp_path, ports, interface, outputs=()):
    """A profile of a one-module top with only the input `ports` and the `outputs` (each
    "[msb:0] name" or "name", tied to 0; no DUT behind them): enough to be verilated (a
    second), never compiled."""
    decls = [f"input wire {p}" for p in ports] + [f"output wire {o}" for o in outputs]
    ties = "".join(f"assign {o.split()[-1]} = 0;\n" for o in outputs)
    (tmp_path / "tiny.v").write_text("module tiny (" + ", ".join(decls) + ");\n" + ties + "endmodule\n")
    p = tmp_path / "tiny.yaml"
    p.write_text("name: tiny\ntop: tiny\nfiles: [tiny.v]\ninterface:\n  ports: 1\n  clock_mhz: 150\n" +
                 "".join(f"  {k}: {v}\n" for k, v in interface.items()))
    return p
