"""Commands on an ATAPI drive are kind scsi steps (Linux's route through the SCSI layer);
kind packet is an alias read into the same step. The drive's own keys (pio, byte_count,
verify) are refused on a disk by name, a wrong sense or a wrong disc block fails the run."""
import json
import re

from satasim import run

DRIVE = "devices:\n  - port: 0\n    atapi: {disc_blocks: 4096, disc_seed: 9}\n"
HEAD = "controller: {type: ahci, ports: 1}\n"


def scenario(tmp_path, name, body, devices=DRIVE):
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"name: {name}\nseed: 1\n{HEAD}{devices}workload:\n{body}")
    return p


def results(out, name):
    recs = [json.loads(x) for x in (out / name / "trace.jsonl").read_text().splitlines()]
    return [r["f"] for r in recs if r["ev"] in ("scsi.result", "packet.verify")]


def test_a_disk_refuses_the_drives_own_keys_by_name(tmp_path):
    p = scenario(tmp_path, "disk-pio", "  - {kind: scsi, device: 0, cdb: \"00 00 00 00 00 00\", pio: true}\n",
                 devices="devices:\n  - port: 0\n")
    r = run([p], tmp_path / "out")
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"disk-pio\.yaml:7: .*pio: only for an ATAPI drive", r.stdout + r.stderr), r.stdout + r.stderr


def test_packet_alias_and_scsi_step_are_the_same_command(tmp_path):
    body = ("  - {kind: packet, device: 0, pio: true, byte_count: 2048, cdb: [0x28, 0, 0, 0, 0, 5, 0, 0, 2, 0], "
            "len: 4096}\n"
            "  - {kind: scsi, device: 0, barrier: true, pio: true, byte_count: 2048, "
            "cdb: \"28 00 00 00 00 05 00 00 02 00\", data_in: 4096}\n")
    r = run([scenario(tmp_path, "alias", body)], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    res = results(tmp_path / "out", "alias")
    a = [x for x in res if x.get("workload") == 0]
    b = [x for x in res if x.get("workload") == 1]
    strip = lambda xs: [{k: v for k, v in x.items() if k != "workload"} for x in xs]
    assert strip(a) == strip(b) and len(a) == 2, res           # scsi.result + packet.verify each
    assert {"lba": 5, "blocks": 2, "bad": 0} in strip(a), a
    # PIO under a 2048-byte limit: the drive moved 2 DRQ blocks (the model's record)
    recs = [json.loads(x) for x in (tmp_path / "out" / "alias" / "trace.jsonl").read_text().splitlines()]
    pio = [x["f"] for x in recs if x["ev"] == "atapi.pio"]
    assert len(pio) == 2 and all(x["drq_blocks"] == 2 for x in pio), pio


def test_a_wrong_sense_key_fails_the_step(tmp_path):
    body = ("  - {kind: tray, device: 0, action: open}\n"
            "  - {kind: scsi, device: 0, barrier: true, cdb: \"00 00 00 00 00 00\", expect_sense_key: [2, 0x3a, 1]}\n")
    r = run([scenario(tmp_path, "wrong-sense", body)], tmp_path / "out")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "sense 2/3a/00, expected 2/3a/01" in r.stdout, r.stdout
