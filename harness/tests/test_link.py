"""The SATA link (scenarios/link/): speed negotiation at Gen1/Gen2/Gen3 and under
host.spd_limit, and CRC errors from a flipped dword on the cycle-level link in both
directions, asserted from the trace beyond the scenarios' own expect blocks. The scenario
keys link.mode and host.spd_limit are validated like every other key."""

from pathlib import Path

import pytest
import yaml

from satasim import load_result, load_trace, run

ROOT = Path(__file__).resolve().parents[2]
LINK = ROOT / "scenarios" / "link"

SERR_ERR_T = 1 << 8    # transient data integrity error
SERR_DIAG_C = 1 << 21  # CRC error
SERR_DIAG_H = 1 << 22  # handshake error (R_ERR received for a transmitted frame)
ATA_ICRC, ATA_ABRT = 0x80, 0x04


def run_link(stem, tmp_path, **env):
    path = LINK / f"{stem}.yaml"
    name = yaml.safe_load(path.read_text())["name"]
    out = tmp_path / "out"
    result = run([path], out)
    assert result.returncode == 0, result.stdout + result.stderr
    res = load_result(out, name)
    assert res["verdict"] == "pass", res.get("reasons")
    assert res["data_errors"] == 0
    return res, load_trace(out, name), (out / name / "satasim.log").read_text()


def field(rec, key):
    """A trace record's field (top level or under 'f')."""
    if key in rec:
        return rec[key]
    return (rec.get("f") or {}).get(key)


def as_int(v):
    return int(v, 0) if isinstance(v, str) else int(v)


def link_up(trace, ev="probe.link_up"):
    """The stack's link-up decisions (probe.link_up) or the models' (link.up)."""
    return [r for r in trace if r.get("ev") == ev]


@pytest.mark.parametrize("stem,gen,sstatus,scontrol", [
    ("gen1-drive", 1, 0x113, 0x300),
    ("gen2-controller", 2, 0x123, 0x300),
    ("gen3", 3, 0x133, 0x300),
    ("spd-limit-gen1", 1, 0x113, 0x310),
])
def test_link_speed(stem, gen, sstatus, scontrol, tmp_path):
    res, trace, log = run_link(stem, tmp_path)
    ups = link_up(trace)
    assert ups, "no link-up record"
    # the models agree: the negotiation the stack's hardreset started ended at that generation
    # (the power-on link-up before it runs at the fastest common rate: SControl.SPD is 0 then)
    for up in ups:
        before = [r for r in link_up(trace, "link.up") if r["seq"] < up["seq"] and r["port"] == up["port"]]
        assert before and field(before[-1], "gen") == gen, before
    for r in ups:
        assert as_int(field(r, "sstatus")) == sstatus, r
        assert as_int(field(r, "scontrol")) == scontrol, r
        assert as_int(field(r, "spd")) == gen, r
    assert all(d["link_gen"] == gen for d in res["devices"]), res["devices"]
    speed = {1: "1.5", 2: "3.0", 3: "6.0"}[gen]
    assert f"SATA link up {speed} Gbps (SStatus {sstatus:X} SControl {scontrol:X})" in log


def test_links_run_in_the_selected_mode(tmp_path, monkeypatch):
    monkeypatch.delenv("SATASIM_LINK_MODE", raising=False)  # it would override both keys
    # gen3: port 0 at dword level (scenario link.mode), port 1 at FIS level (device override)
    res, _, _ = run_link("gen3", tmp_path)
    links = {lk["port"]: lk for lk in res.get("links", [])}
    assert {p: lk["mode"] for p, lk in links.items()} == {0: "dword", 1: "fis"}, res.get("links")
    # the dword link really ticked its frames, the FIS-level one never ticks
    assert links[0]["dword_cycles"] > 200 * 1000 and links[1]["dword_cycles"] == 0, links


def test_environment_overrides_the_scenario_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("SATASIM_LINK_MODE", "fis")
    res, _, _ = run_link("gen1-drive", tmp_path)
    assert [(lk["mode"], lk["dword_cycles"]) for lk in res["links"]] == [("fis", 0)]


def fault_fired(trace):
    fired = [r for r in trace if r.get("ev") == "fault.inject" and field(r, "kind") == "crc"]
    assert len(fired) == 1, "the crc fault did not fire exactly once"
    inj = [r for r in trace if r.get("ev") == "link.inject"]
    assert len(inj) == 1, "the link did not flip a dword"  # dword level: the RTL saw it
    return fired[0]


def error_irq_serror(trace):
    irqs = [r for r in trace if r.get("ev") == "ahci.error_irq"]
    assert len(irqs) == 1, irqs
    return as_int(field(irqs[0], "serror"))


def test_crc_h2d_data_device_answers_icrc_abrt(tmp_path):
    res, trace, log = run_link("crc-h2d-data", tmp_path)
    f = fault_fired(trace)
    # the drive's link answered R_ERR; the drive ended that command with ICRC|ABRT
    errs = [r for r in trace if r.get("ev") == "disk.error"]
    assert len(errs) == 1, errs
    e = errs[0]
    assert as_int(field(e, "cmd")) == as_int(field(f, "cmd_opcode")) == 0xCA, e
    assert as_int(field(e, "status")) == 0x51, e
    assert as_int(field(e, "error")) == ATA_ICRC | ATA_ABRT, e
    # the host saw R_ERR for its own frame: SError.H (Handshk) with ERR.T, no CRC error of its own
    serr = error_irq_serror(trace)
    assert serr & SERR_DIAG_H and serr & SERR_ERR_T, hex(serr)
    assert not serr & SERR_DIAG_C, hex(serr)
    assert "SError: { UnrecovData Handshk }" in log and "(ATA bus error)" in log
    # EH retried the write: no I/O error, every sector verified
    assert [(w["finished"], w["completed"], w["errors"]) for w in res["workloads"]] == [(True, 40, 0)]


def test_crc_d2h_data_sets_serror_crc(tmp_path):
    res, trace, log = run_link("crc-d2h-data", tmp_path)
    fault_fired(trace)
    serr = error_irq_serror(trace)
    assert serr & SERR_DIAG_C and serr & SERR_ERR_T, hex(serr)
    assert not serr & SERR_DIAG_H, hex(serr)
    assert "SError: { UnrecovData BadCRC }" in log and "(ATA bus error)" in log
    # the host answered the data FIS with R_ERR: the drive ends that read with ICRC|ABRT
    # (error 84h), as real drives report it (dmesg corpus 52: "res 51/84:..."), and with
    # nothing else
    errs = [r for r in trace if r.get("ev") == "disk.error"]
    assert errs and all(r["f"]["error"] == "0x84" for r in errs), errs
    for r in trace:
        if r.get("ev") == "qc.done" and field(r, "error") is not None:
            assert not as_int(field(r, "error")) & ATA_ICRC, r
    assert [(w["finished"], w["completed"], w["errors"]) for w in res["workloads"]] == [(True, 40, 0)]


def _write(tmp_path, text):
    p = tmp_path / "in" / "bad.yaml"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


HEAD = "name: bad\ncontroller: {type: ahci, ports: 1}\n"


@pytest.mark.parametrize("text,line,key", [
    (HEAD + "link: {mode: cycle}\n", 3, "link.mode"),
    (HEAD + "link: {speed: 3}\n", 3, "link.speed"),
    (HEAD + "link: {}\n", 3, "link.mode"),
    (HEAD + "host: {spd_limit: 4}\n", 3, "host.spd_limit"),
    (HEAD + "host: {spd_limit: 0}\n", 3, "host.spd_limit"),
    (HEAD + "devices:\n  - port: 0\n    link: {mode: slow}\n", 5, "devices[0].link.mode"),
    ("name: bad\nbackend: qemu\ncontroller: {type: ahci, ports: 1, gen: 1}\nlink: {mode: fis}\n", 4, "link"),
])
def test_bad_link_keys_are_refused(text, line, key, tmp_path):
    path = _write(tmp_path, text)
    result = run([path], tmp_path / "out")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{path}:{line}" in result.stderr, result.stderr
    assert key in result.stderr, result.stderr
