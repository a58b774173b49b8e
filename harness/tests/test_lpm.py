"""Link power management end to end (scenarios/link/lpm-*.yaml; docs/hardware.md 2.8 and 5.10,
docs/device.md 4, docs/libata-eh.md 9): what the models did on the wire and in the registers,
asserted from the trace beyond the scenarios' own expect blocks (which only see the kernel
log): the policy EH configured, the PMREQ/PMACK exchanges, the Partial/Slumber entries and
wake-ups, SStatus.IPM, DIPM's SET FEATURES, the PhyRdy interrupt kept quiet, the wake-up
fault's EH decisions, and a scenario without a policy doing none of it."""

from pathlib import Path

import yaml

from satasim import load_result, load_trace, run

ROOT = Path(__file__).resolve().parents[2]
LINK = ROOT / "scenarios" / "link"


def run_link(stem, tmp_path, expect_pass=True):
    path = LINK / f"{stem}.yaml"
    name = yaml.safe_load(path.read_text())["name"]
    out = tmp_path / "out"
    result = run([path], out)
    res = load_result(out, name)
    if expect_pass:
        assert result.returncode == 0, result.stdout + result.stderr
        assert res["verdict"] == "pass", res.get("reasons")
        assert res["data_errors"] == 0
    return res, load_trace(out, name), (out / name / "satasim.log").read_text()


def evs(trace, name):
    return [r for r in trace if r.get("ev") == name]


def field(rec, key):
    return (rec.get("f") or {}).get(key)


def entries(trace):
    """The link's Partial/Slumber entries: the state named in each link.power 'PhyRdy off'."""
    return [r["msg"].rsplit(" ", 1)[1] for r in evs(trace, "link.power") if "PhyRdy off" in r.get("msg", "")]


def wakeups(trace):
    return [r for r in evs(trace, "link.power") if "wake-up" in r.get("msg", "")]


def test_min_power_slumbers_between_commands(tmp_path):
    res, trace, log = run_link("lpm-min-power", tmp_path)
    pol = evs(trace, "lpm.policy")
    assert [field(r, "policy") for r in pol] == ["min_power"], pol
    assert int(field(pol[0], "hints"), 0) == 0x2  # ATA_LPM_HIPM: the drive has word 76 bit 9
    ent = entries(trace)
    # every command of the qd-1 writes found the link in Slumber (ALPE with ASP): one entry
    # per idle port, all Slumber, and as many wake-ups, each the host's
    assert len(ent) >= 24 and set(ent) == {"slumber"}, ent
    assert len(wakeups(trace)) >= 24
    reqs = evs(trace, "link.pm_request")
    assert reqs and all("host PMREQ_S: PMACK" in r["msg"] for r in reqs), reqs[:3]
    # the HBA's side: IPM 6 then 1, DIAG.N each time, and no PhyRdy interrupt reached EH
    ipms = [field(r, "ipm") for r in evs(trace, "ahci.power")]
    assert set(ipms) == {6, 1}, set(ipms)
    assert not evs(trace, "ahci.error_irq")
    assert "PHY RDY changed" not in log
    # only the probe's reset: LPM's PhyRdy changes are no hotplug
    assert len(evs(trace, "eh.reset")) == 1


def test_medium_power_uses_partial_only(tmp_path):
    res, trace, log = run_link("lpm-medium-power", tmp_path)
    assert [field(r, "policy") for r in evs(trace, "lpm.policy")] == ["medium_power"]
    ent = entries(trace)
    assert len(ent) >= 24 and set(ent) == {"partial"}, ent
    assert {field(r, "ipm") for r in evs(trace, "ahci.power")} == {2, 1}
    assert len(evs(trace, "eh.reset")) == 1


def test_dipm_drive_asks_for_slumber(tmp_path):
    res, trace, log = run_link("lpm-dipm", tmp_path)
    assert [field(r, "policy") for r in evs(trace, "lpm.policy")] == ["med_power_with_dipm"]
    # DIPM off before the link is configured, on after (SET FEATURES 90h / 10h, count 03h)
    sf = [(field(r, "feature"), field(r, "value")) for r in evs(trace, "disk.set_features")]
    dipm = [x for x in sf if x[1] in ("0x3", 3)]
    assert [x[0] for x in dipm] == ["0x90", "0x10"], sf
    # no HIPM: ALPE stays off, the HBA never asks; the drive does, after its idle time
    assert not evs(trace, "ahci.alpm")
    dev_reqs = evs(trace, "disk.dipm")
    assert dev_reqs and field(dev_reqs[0], "result") == "pmack", dev_reqs
    assert entries(trace) and set(entries(trace)) == {"slumber"}
    assert all("device initiated" in r["msg"] for r in evs(trace, "link.power") if "PhyRdy off" in r["msg"])
    assert all(field(r, "ack") is True for r in evs(trace, "ahci.pm_request"))
    assert len(evs(trace, "eh.reset")) == 1


def test_nolpm_forces_max_performance(tmp_path):
    res, trace, log = run_link("lpm-nolpm", tmp_path)
    assert "ata1.00: FORCE: horkage modified (nolpm)" in log
    assert "ata1.00: LPM support broken, forcing max_power" in log
    assert [field(r, "policy") for r in evs(trace, "lpm.policy")] == ["max_performance"]
    assert not entries(trace)
    assert not evs(trace, "link.pm_request")


def test_wake_fail_is_recovered_by_eh(tmp_path):
    res, trace, log = run_link("lpm-wake-fail", tmp_path)
    failed = evs(trace, "link.wake_failed")
    assert len(failed) == 1, failed
    # the command waited for its timeout (30 s) with the PhyRdy interrupt masked: then EH
    t_fail = failed[0]["t_ns"]
    resets = [r for r in evs(trace, "eh.reset") if r["t_ns"] > t_fail]
    assert resets and resets[0]["t_ns"] - t_fail >= 29_000_000_000, resets[:1]
    # revalidation at max_performance, then min_power again
    pols = [field(r, "policy") for r in evs(trace, "lpm.policy")]
    assert pols == ["min_power", "max_performance", "min_power"], pols
    # and the link sleeps again afterwards
    assert any(r["t_ns"] > resets[0]["t_ns"] for r in evs(trace, "link.power") if "PhyRdy off" in r["msg"])


def test_lpm_disabled_after_set_lpm_fails_on_the_last_tries(tmp_path):
    res, trace, log = run_link("lpm-disabled", tmp_path)
    assert log.count("failed to disable DIPM, Emask 0x4") == 2
    assert len(evs(trace, "lpm.disabled")) == 1
    # the first failure (3 tries left) does not disable it, the second (2 left) does
    i_fail2 = log.index("failed to disable DIPM", log.index("failed to disable DIPM") + 1)
    assert log.index("disabling LPM on the link") > i_fail2
    # a plain timeout: LPM's PhyRdy change is no hotplug
    assert "PHY RDY changed" not in log
    t_dis = evs(trace, "lpm.disabled")[0]["t_ns"]
    # from then on EH configures nothing, and the link never leaves Active again
    assert not [r for r in evs(trace, "lpm.policy") if r["t_ns"] > t_dis]
    assert not [r for r in evs(trace, "link.power") if r["t_ns"] > t_dis and "PhyRdy off" in r["msg"]]


def test_pmnak_keeps_the_link_active(tmp_path):
    res, trace, log = run_link("lpm-pmnak", tmp_path)
    reqs = evs(trace, "link.pm_request")
    assert reqs and all("PMNAK" in r["msg"] for r in reqs)
    assert not entries(trace)
    assert {field(r, "result") for r in evs(trace, "ahci.alpm")} == {"pmnak"}


def test_no_policy_no_power_management(tmp_path):
    # a scenario without host.lpm_policy: nothing configured, no exchange, no IPM change
    _, trace, _ = run_link("gen3", tmp_path)
    assert not evs(trace, "lpm.policy")
    assert not evs(trace, "link.pm_request") and not evs(trace, "link.power")


def test_devsleep_under_min_power(tmp_path):
    """scenarios/link/lpm-devsleep (docs/hardware.md 5.11, docs/device.md 6.2): the stack read the
    drive's DEVSLP timing from log 30h (the directory, page 00h, page 08h), min_power programmed
    PxDEVSLP as libahci does (DITO 1000 ms, the drive's MDAT 16 and DETO 30) and enabled DevSleep;
    after the 1.5 s idle gap the HBA asserted DEVSLP 1000 ms after the last Slumber entry, the
    link went to DevSleep once, and the first read's wake-up waited the drive's 5 ms exit."""
    res, trace, log = run_link("lpm-devsleep", tmp_path)
    assert "Features: Dev-Sleep" in log
    prog = evs(trace, "ahci.devslp")
    # the drive's values from page 08h (16/30 ms), not libahci's fallbacks (10/20 ms)
    assert any(field(r, "dito_ms") == 1000 and field(r, "mdat_ms") == 16 and field(r, "deto_ms") == 30
               for r in prog), prog
    asserts = evs(trace, "ahci.devslp_assert")
    assert len(asserts) == 1 and field(asserts[0], "entered") is True, asserts
    into = [r for r in evs(trace, "link.power") if "DEVSLP" in r.get("msg", "")]
    assert len(into) == 1, into
    exits = [r for r in evs(trace, "link.devslp") if "wake-up" in r.get("msg", "")]
    assert len(exits) == 1 and "the drive's exit 5000 us" in exits[0]["msg"], exits
    # DEVSLP asserted DITO after the Slumber entry before it
    slumbers = [r for r in evs(trace, "link.power") if "PhyRdy off: slumber" in r.get("msg", "")]
    before = [r for r in slumbers if r["t_ns"] < into[0]["t_ns"]][-1]
    assert abs((into[0]["t_ns"] - before["t_ns"]) - 1_000_000_000) < 1_000_000, (before["t_ns"], into[0]["t_ns"])
