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
