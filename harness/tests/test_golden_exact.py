"""Goldens compare exactly (issue 17 item 9): SystemC runs are deterministic, so a decision's
time must match its golden to the nanosecond unless the golden's own header says otherwise;
a golden records its scenario at the scenario's own link level and holds at the other level
in order and content, within the link-level tolerance."""

import json
import os
from pathlib import Path

import pytest

from satasim import run
from satasim.golden import GOLDEN_DIR, compare_run, main, read_golden
from satasim.scenario_file import load_scenario
from synthetic_trace import rec, write_run
from test_golden import GOLDENS, _run_source, _scenarios, _split

S = 1_000_000_000
MS = 1_000_000


def timeout_run(t_timeout=30 * S + 10 * MS):
    """A boot, a command that times out after the 30 s EH timeout, and the reset that follows."""
    return [
        rec(10 * MS, "eh.reset", port=0, msg="hard resetting link", method="hard", try_=1),
        rec(311 * MS, "probe.link_up", port=0, msg="SATA link up 6.0 Gbps (SStatus 133 SControl 300)",
            sstatus="0x133", scontrol="0x300", spd=3, speed="6.0 Gbps"),
        rec(311_087_313, "probe.configured", port=0, dev=0, msg="configured for UDMA/133",
            mode="UDMA/133", xfer="0x46"),
        rec(t_timeout, "eh.exception", port=0, dev=0,
            msg="exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x6 frozen", emask="0x0",
            action="0x6", frozen=True),
        rec(t_timeout, "eh.reset", port=0, msg="hard resetting link", method="hard", try_=1),
    ]


def with_links(run_dir, *modes):
    """Gives a synthetic run's result.json the per-port link levels satasim reports."""
    rp = Path(run_dir) / "result.json"
    res = json.loads(rp.read_text())
    res["links"] = [{"port": i, "mode": m, "dword_cycles": 0} for i, m in enumerate(modes)]
    rp.write_text(json.dumps(res))
    return run_dir


def record(tmp_path, records, modes=("dword",), scenario_file=""):
    d = with_links(write_run(tmp_path / "rec", "s", records, scenario_file=scenario_file), *modes)
    gdir = tmp_path / "golden"
    assert main(["record", str(d), "--golden-dir", str(gdir)]) == 0
    return gdir


def test_default_is_exact_a_300ms_longer_timeout_fails(tmp_path, capsys):
    gdir = record(tmp_path, timeout_run())
    same = with_links(write_run(tmp_path / "same", "s", timeout_run()), "dword")
    assert main(["compare", str(same), "--golden-dir", str(gdir)]) == 0
    # the timeout fires 300 ms later: 1 % of 30 s, which a 1 % tolerance let through
    late = with_links(write_run(tmp_path / "late", "s", timeout_run(30 * S + 310 * MS)), "dword")
    capsys.readouterr()
    assert main(["compare", str(late), "--golden-dir", str(gdir)]) == 1
    out = capsys.readouterr().out
    assert "s: golden MISMATCH" in out
    # the diff stays in libata's wording, the note gives the exact difference
    assert ("+ [   30.310000] ata1.00: exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x6 frozen"
            in out)
    assert ("<- time +300.000000 ms (golden 30010.000000ms, run 30310.000000ms), beyond "
            "tolerance exact") in out
    # 1 ns is a difference too
    ns = with_links(write_run(tmp_path / "ns", "s", timeout_run(30 * S + 10 * MS + 1)), "dword")
    assert main(["compare", str(ns), "--golden-dir", str(gdir)]) == 1
    assert "<- time +1 ns (golden 30010.000000ms, run 30010.000001ms)" in capsys.readouterr().out


def test_golden_header_tolerance_is_not_trusted_and_update_drops_it(tmp_path, capsys):
    """A tolerance is the run's or the caller's, never the golden's (issue 30 item 9): a
    `# time_tolerance:` a SystemC golden gives itself is a header mismatch, and update
    rewrites the golden with the run's header."""
    gdir = record(tmp_path, timeout_run())
    gp = gdir / "s.ahci.golden"
    gp.write_text(gp.read_text().replace("# backend: systemc",
                                         "# backend: systemc\n# time_tolerance: 50us"))
    near = with_links(write_run(tmp_path / "near", "s", timeout_run(30 * S + 10 * MS + 40_000)),
                      "dword")
    assert main(["compare", str(near), "--golden-dir", str(gdir)]) == 1
    assert "# time_tolerance: '50us', the run's: none" in capsys.readouterr().out
    assert main(["update", str(near), "--golden-dir", str(gdir)]) == 0
    text = gp.read_text()
    assert "time_tolerance" not in text and "30010.040000ms" in text
    # the caller's tolerance on the command line still applies
    far = with_links(write_run(tmp_path / "far", "s", timeout_run(30 * S + 10 * MS + 60_000)),
                     "dword")
    assert main(["compare", str(far), "--golden-dir", str(gdir)]) == 1
    assert main(["compare", str(far), "--golden-dir", str(gdir), "--time-tolerance", "50us"]) == 0


def test_golden_records_its_link_level_and_holds_at_the_other(tmp_path, capsys):
    # the scenario file tells the run's own level (dword) from an override (SATASIM_LINK_MODE)
    scen = tmp_path / "s.yaml"
    scen.write_text("name: s\ncontroller: {type: ahci, ports: 2}\ndevices: [{port: 0}, {port: 1}]\n")
    gdir = record(tmp_path, timeout_run(), modes=("dword", "dword"), scenario_file=str(scen))
    assert "# link_mode: dword\n" in (gdir / "s.ahci.golden").read_text()
    shifted = timeout_run(30 * S + 10 * MS + 93)

    def run(where, records, *modes):
        return with_links(write_run(tmp_path / where, "s", records, scenario_file=str(scen)), *modes)

    # the same level: exact
    d = run("dw", shifted, "dword", "dword")
    assert main(["compare", str(d), "--golden-dir", str(gdir)]) == 1
    # the FIS level gives the same decisions some ns to ms apart: the link-level tolerance
    f = run("fis", shifted, "fis", "fis")
    capsys.readouterr()
    assert main(["compare", str(f), "--golden-dir", str(gdir)]) == 0
    assert ("run at link level fis, golden recorded at dword: times compared within "
            "1% or 10us") in capsys.readouterr().out
    # ... but not beyond it, and never other decisions
    far = run("far", timeout_run(30 * S + 400 * MS), "fis", "fis")
    assert main(["compare", str(far), "--golden-dir", str(gdir)]) == 1
    other = [dict(r, msg="hard resetting link", f={"method": "soft", "try": 1})
             if r["ev"] == "eh.reset" and r["t_ns"] > S else r for r in timeout_run()]
    o = run("other", other, "fis", "fis")
    assert main(["compare", str(o), "--golden-dir", str(gdir)]) == 1


def test_record_refuses_a_run_at_another_level_than_the_scenarios_own(tmp_path, capsys):
    scen = tmp_path / "s.yaml"
    scen.write_text("name: s\ncontroller: {type: ahci, ports: 1}\ndevices: [{port: 0}]\n")
    d = with_links(write_run(tmp_path / "rec", "s", timeout_run(), scenario_file=str(scen)), "fis")
    gdir = tmp_path / "golden"
    assert main(["record", str(d), "--golden-dir", str(gdir)]) == 1
    assert "link level is fis but the scenario's own is dword" in capsys.readouterr().out
    assert not (gdir / "s.ahci.golden").exists()
    # a scenario whose own level is fis records at fis
    scen.write_text("name: s\ncontroller: {type: ahci, ports: 1}\nlink: {mode: fis}\n"
                    "devices: [{port: 0}]\n")
    assert main(["record", str(d), "--golden-dir", str(gdir)]) == 0
    assert "# link_mode: fis\n" in (gdir / "s.ahci.golden").read_text()


def own_link_level(spec) -> str:
    """A scenario's link level without SATASIM_LINK_MODE (docs: scenarios/README.md `link`):
    each device's link.mode, else the scenario's, else dword; 'dword+fis' if they differ."""
    top = (spec.get("link") or {}).get("mode", "dword")
    return "+".join(sorted({(d.get("link") or {}).get("mode", top) for d in spec["devices"]}))


SYSTEMC_GOLDENS = [g for g in GOLDENS if read_golden(g).header.get("backend", "systemc") == "systemc"]


def test_every_systemc_golden_names_its_scenarios_own_link_level():
    table = _scenarios()
    wrong = []
    for gp in SYSTEMC_GOLDENS:
        src = table.get(_split(gp))
        if src is None:
            continue   # test_golden.py: test_every_golden_has_its_scenario
        own = own_link_level(load_scenario(src.path))
        got = read_golden(gp).header.get("link_mode")
        if got != own:
            wrong.append(f"{gp.name}: link_mode {got}, scenario's own {own}")
    assert not wrong, wrong


@pytest.mark.parametrize("golden", SYSTEMC_GOLDENS, ids=lambda g: g.name)
def test_golden_holds_at_the_fis_level(golden, tmp_path, monkeypatch):
    """tools/trace_snapshot.sh and users run every scenario with SATASIM_LINK_MODE=fis too:
    the golden (recorded at the scenario's own level, compared exactly there by
    test_golden.py) must give the same decisions at the FIS level.

    This check is about what the FIS level decides, and test_golden.py runs the same
    scenarios under the sanitizers already: where the test command names the release build
    it has just built ($SATASIM_RELEASE_BIN, tools/test_all.sh), these runs use it, a third
    of the sanitized binary's CPU time, and so also prove the release build gives every
    golden."""
    src = _scenarios().get(_split(golden))
    if src is None:
        pytest.fail(f"{golden}: no scenario")
    own_fis = read_golden(golden).header.get("link_mode") == "fis"
    if not own_fis:
        monkeypatch.setenv("SATASIM_LINK_MODE", "fis")
        release = os.environ.get("SATASIM_RELEASE_BIN")
        if release and src.backend == "systemc":
            monkeypatch.setenv("SATASIM_BIN", release)
    # else the scenario's own run is at the FIS level already: test_golden.py's run (shared)
    name = _split(golden)[0]
    result = _run_source(src, name, tmp_path)
    assert (tmp_path / name / "result.json").exists(), result.stdout + result.stderr
    # Several controllers probe side by side (libata's asynchronous port probe): their ports'
    # EH contexts wake at the same instants, and the order of two ports' records at one
    # instant is the SystemC scheduler's, which a different link level's event history can
    # change. Each port's own sequence must still be the golden's.
    several_hosts = "+" in read_golden(golden).header.get("controller", "")
    c = compare_run(tmp_path / name, GOLDEN_DIR, unordered_ports=several_hosts)
    assert c is not None
    assert c.ok, "golden mismatch at the FIS level:\n" + "\n".join(c.diff)
    if not own_fis:
        assert "run at link level fis" in getattr(c, "note", "")
