"""Quirks as data (docs/rtl-controller.md, quirks): a second profile of the reference AHCI
controller, model/ahci_rtl/profile-min.yaml, verilated with parameters that take features
away (CAP.NCS = 0: one slot, CAP.SNCQ = 0, CAP.S64A = 0, CAP.ISS = Gen1) and declaring the
same quirks. The stack's AHCI driver gets them through ata_host_config; the suite skips, with
the reason, what needs a feature the DUT lacks. One short run (one DUT build per build tree,
cached next to the simulator binary, shared with the profile copies below). And the offsets of
quirks.onchip_cmd_area (model/ahci_rtl/profile-onchip.yaml), checked before anything is built:
the suite runs on that DUT on demand only (tools/run_rtl_suite.sh), its own build."""

import json
import shutil

import pytest

from satasim.results import ROOT, load_result, run

PROFILE = ROOT / "model" / "ahci_rtl" / "profile-min.yaml"

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None,
                                reason="verilator is not installed (tools/install_deps.sh): rtl backend skipped")


def outside_its_folder(profile):
    """A reference profile's text with its paths made absolute (to be written elsewhere)."""
    d = str(profile.parent)
    return (profile.read_text().replace("  - rtl/", f"  - {d}/rtl/").replace("  - ../", f"  - {d}/../")
            .replace("[rtl, ../link/rtl]", f"[{d}/rtl, {d}/../link/rtl]"))


def test_min_profile_runs_what_it_has_and_skips_the_rest_with_the_reason(tmp_path, rtl_decisions):
    runs, skipped, probe = "flush.yaml", "ncq-qd32-random.yaml", ROOT / "scenarios" / "probe-1port.yaml"
    r = run([ROOT / "scenarios" / runs, ROOT / "scenarios" / skipped, probe], tmp_path, "--controller-rtl",
            str(PROFILE), "--skip-refused", "--jobs", "1", "--wall-limit", "120")
    assert r.returncode == 0, r.stdout + r.stderr
    # skipped before anything ran, naming the scenario's line and the missing feature
    scen = ROOT / "scenarios" / skipped
    lines = scen.read_text().splitlines()
    line = next(i for i, l in enumerate(lines, 1) if i > lines.index("workload:") + 1 and l.startswith("  - "))
    assert (f"{scen}:{line}: backend rtl: the RTL backend cannot model workload[0] mode ncq: the DUT has no NCQ "
            "(CAP.SNCQ; quirks.no_ncq)") in r.stdout, r.stdout
    # an expected log line is named at its own line in the list, not at the file's first
    up = "ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)"
    up_line = next(i for i, l in enumerate(probe.read_text().splitlines(), 1) if up in l)
    assert (f'{probe}:{up_line}: backend rtl: the RTL backend cannot model expect.log_contains "{up}": '
            "the DUT's PHY runs Gen1 only (quirks.only_gen)") in r.stdout, r.stdout
    assert "SKIP  ncq-qd32-random" in r.stdout and "1 passed, 0 failed, 2 skipped" in r.stdout, r.stdout
    assert not (tmp_path / "ncq-qd32-random").exists()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["skipped"] == 2, summary
    assert [s["name"] for s in summary["skipped_scenarios"]] == ["ncq-qd32-random", "probe-1port"], summary

    res = load_result(tmp_path, "flush")
    assert res["verdict"] == "pass" and res["backend"] == "rtl", res
    assert res["axi_violations"] == 0 and res["data_errors"] == 0 and res["io_errors"] == 0, res
    log = (tmp_path / "flush" / "satasim.log").read_text()
    # the DUT's CAP as the driver reads it: one slot, Gen1, no ncq / 64bit flags
    assert "AHCI 0001.0301 1 slots 1 ports 1.5 Gbps 0x1 impl SATA mode" in log, log
    assert "flags: sntf clo only pio\n" in log, log
    # quirks.only_gen 1 reached the driver: SControl.SPD programmed to Gen1 at the first
    # hardreset (the reference profile leaves it 0: "SControl 300")
    assert "ata1: controller PHY runs 1.5 Gbps only, no speed-down" in log, log
    assert "SATA link up 1.5 Gbps (SStatus 113 SControl 310)" in log, log
    # an NCQ drive on a host without NCQ: libata's "NCQ (depth 0/32)"
    assert "LBA48 NCQ (depth 0/32)" in log, log


def test_min_profile_quirk_the_dut_cap_contradicts_names_the_key(tmp_path, rtl_env):
    # quirks.only_gen 2 on a DUT whose CAP.ISS is Gen1: no driver could honour it. The
    # quirks are not part of the build's key, so this reuses the cached DUT.
    text = outside_its_folder(PROFILE)
    assert "  only_gen: 1\n" in text
    bad = tmp_path / "p.yaml"
    bad.write_text(text.replace("  only_gen: 1\n", "  only_gen: 2\n"))
    line = next(i for i, l in enumerate(bad.read_text().splitlines(), 1) if l.strip().startswith("only_gen:"))
    r = run([ROOT / "scenarios" / "flush.yaml"], tmp_path / "out", "--controller-rtl", str(bad))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{bad}:{line}: quirks.only_gen: Gen2, but the DUT's CAP (0x" in r.stderr, r.stderr
    assert "has ISS = Gen1" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


ONCHIP = ROOT / "model" / "ahci_rtl" / "profile-onchip.yaml"
ONCHIP_KEYS = "  onchip_cmd_area:\n    command_list: 0x1000  # port 0's, byte offset in the register window\n    fis_area: 0x1400\n"


@pytest.mark.parametrize("old,new,key,why", [
    ("command_list: 0x1000", "command_list: 0x1002", "quirks.onchip_cmd_area.command_list",
     "0x1002 is not dword aligned"),
    ("command_list: 0x1000", "command_list: 0x100", "quirks.onchip_cmd_area.command_list",
     "0x100 is inside the register map (0..0x17f with 1 port)"),
    ("fis_area: 0x1400", "fis_area: 0x1200", "quirks.onchip_cmd_area.fis_area",
     "port 0's command list (0x1000) overlaps port 0's FIS area (0x1200)"),
    ("reg_addr_width: 13", "reg_addr_width: 12", "quirks.onchip_cmd_area.command_list",
     "port 0's command list ends at 0x1400, beyond the register window (interface.reg_addr_width 12: 0x1000 bytes)"),
    ("fis_area: 0x1400", "fis_area: -4", "quirks.onchip_cmd_area.fis_area", "expected a non-negative integer"),
    ("fis_area: 0x1400", "fis_area: 0x1400\n    clb: 0", "quirks.onchip_cmd_area.clb", "unknown key"),
    (ONCHIP_KEYS + "    port_stride: 0x800    # port n's areas n * 800h further up\n", "  onchip_cmd_area: true\n",
     "quirks.onchip_cmd_area", "say where the areas are"),
    ("    fis_area: 0x1400\n", "", "quirks.onchip_cmd_area.fis_area", "missing"),
])
def test_onchip_area_malformed_is_refused_at_its_key(old, new, key, why, tmp_path, rtl_env):
    # The profile is read before anything is built: no DUT build here.
    text = outside_its_folder(ONCHIP)
    assert old in text
    bad = tmp_path / "p.yaml"
    bad.write_text(text.replace(old, new, 1))
    leaf = key.split(".")[-1] + ":"
    lines = bad.read_text().splitlines()
    line = next((i for i, l in enumerate(lines, 1) if l.strip().startswith(leaf)),
                next(i for i, l in enumerate(lines, 1) if l.strip().startswith("onchip_cmd_area:")))
    r = run([ROOT / "scenarios" / "flush.yaml"], tmp_path / "out", "--controller-rtl", str(bad))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{bad}:{line}: {key}: " in r.stderr and why in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
