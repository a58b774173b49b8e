"""Controller-neutral expectations (issue 32, item 4): `devices_after gen: probe` (the speed
the probe negotiated, not a pinned Gen3) and `expect.serror` (the SError bits AHCI requires
of an error beside those it leaves to the HBA, e.g. ERR.T). Each is shown to pass on the
SystemC model where the controller behaves as expected and to fail where it does not, and
malformed keys are refused at their line."""

from pathlib import Path

import pytest
import yaml

from satasim import load_result, run

ROOT = Path(__file__).resolve().parents[2]


def copy_scenario(tmp_path, rel, edit):
    """scenarios/REL with its expect block changed by edit(dict); returns (path, name)."""
    doc = yaml.safe_load((ROOT / "scenarios" / rel).read_text())
    edit(doc["expect"])
    path = tmp_path / "in" / Path(rel).name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path, doc["name"]


def verdict(tmp_path, path, name):
    out = tmp_path / "out"
    r = run([path], out)
    res = load_result(out, name)
    return r, res


def test_crc_scenario_passes_with_its_must_and_may_bits(tmp_path):
    path, name = copy_scenario(tmp_path, "link/crc-h2d-data.yaml", lambda e: None)
    r, res = verdict(tmp_path, path, name)
    assert r.returncode == 0 and res["verdict"] == "pass", res.get("reasons")


@pytest.mark.parametrize("serror,why", [
    # ERR.T is set by the SystemC model: not allowed here, so no report fits
    ({"port": 0, "must": ["Handshk"]}, "none outside 0x400000"),
    # a bit the model does not set for an R_ERR'd frame
    ({"port": 0, "must": ["Handshk", "BadCRC"], "may": ["UnrecovData"]}, "bits 0x600000 set"),
])
def test_serror_fails_on_a_missing_must_or_an_unlisted_bit(tmp_path, serror, why):
    path, name = copy_scenario(tmp_path, "link/crc-h2d-data.yaml", lambda e: e.update(serror=[serror]))
    r, res = verdict(tmp_path, path, name)
    assert r.returncode != 0 and res["verdict"] == "fail"
    msg = [x for x in res["reasons"] if "SError report" in x]
    assert msg and why in msg[0] and "0x400100" in msg[0], res["reasons"]


def test_gen_probe_fails_after_an_eh_speed_down(tmp_path):
    # EH lowers the link from 6.0 to 3.0 Gbps: the end state is not the probe's speed
    def edit(e):
        e["devices_after"] = [{"port": 0, "gen": "probe", "ncq": True}]
    path, name = copy_scenario(tmp_path, "faults/crc-ncq-speed-down.yaml", edit)
    r, res = verdict(tmp_path, path, name)
    assert r.returncode != 0 and res["verdict"] == "fail"
    assert any("link gen (the probe's) is 2, expected 3" in x for x in res["reasons"]), \
        res["reasons"]


def test_gen_probe_passes_where_the_speed_holds(tmp_path):
    path, name = copy_scenario(tmp_path, "faults/identify-fail-after-flap.yaml", lambda e: None)
    r, res = verdict(tmp_path, path, name)
    assert r.returncode == 0 and res["verdict"] == "pass", res.get("reasons")


@pytest.mark.parametrize("expect,line_key,why", [
    ({"serror": [{"port": 0, "must": ["Handshake"]}]}, "- Handshake", "is no SError bit libata names"),
    ({"serror": [{"port": 0, "must": ["Handshk"], "may": ["Handshk"]}]}, "- Handshk", "both in must and in may"),
    ({"serror": [{"port": 0, "must": ["Handshk", "BadCRC", "Handshk"]}]}, "- Handshk", "named twice"),
    ({"serror": [{"port": 0, "may": ["UnrecovData"]}]}, "- port: 0", "must names at least one bit"),
    ({"serror": [{"port": 3, "must": ["Handshk"]}]}, "port: 3", "port 3"),
    ({"devices": [{"port": 0, "gen": "probe"}]}, "gen: probe", "belongs in devices_after"),
])
def test_malformed_keys_are_refused_at_their_line(tmp_path, write_scenario, expect, line_key, why):
    text = ("name: bad\ncontroller: {type: ahci, ports: 1}\n"
            "devices:\n  - {port: 0, capacity: 1g}\n" + yaml.safe_dump({"expect": expect}, sort_keys=False))
    path = write_scenario(text)
    r = run([path], tmp_path / "out")
    assert r.returncode != 0
    lines = path.read_text().splitlines()
    want = [i + 1 for i, l in enumerate(lines) if line_key in l][-1]  # the offending (last) one
    assert f"{path.name}:{want}:" in r.stderr, (want, text, r.stderr)
    assert why in r.stderr, r.stderr
