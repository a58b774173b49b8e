"""import-dmesg on logs of ATAPI drives (dmesg-corpus 29, 40, 55): the drive becomes a
devices[].atapi entry, not a disk, and each failed PACKET command the log shows becomes a
kind scsi step with the log's CDB and transfer; a CDB the drive model does not answer and a
failure that cannot be injected on an ATAPI drive are named in a note at their line."""
from pathlib import Path

import yaml

from satasim import run
from satasim.dmesg_atapi import packet_cdb
from satasim.import_dmesg import import_report

CORPUS = Path(__file__).parent / "fixtures" / "dmesg-corpus"


def imported(tmp_path, n):
    log = next(CORPUS.glob(f"{n}-*.log"))
    scen, _exp, notes = import_report(log, tmp_path / f"c{n}.yaml")
    return yaml.safe_load(scen.read_text()), notes, scen


def test_the_cdb_of_a_packet_commands_message_in_both_wordings():
    # 4.x+: the SCSI layer's name and the CDB before "res" (corpus 40, a mailer's wrapped line)
    assert packet_cdb("cmd a0/00:00:00:00:fc/00:00:00:00:00/a0 tag 0 pio 131072 in\n"
                      "         Read(10) 28 00 00 00 05 61 00 00 40 00res\n50/00:03") == \
        [0x28, 0, 0, 0, 0x05, 0x61, 0, 0, 0x40, 0]
    # 2.6.2x-4.x: "cdb" and 16 bytes, cut to the drive's 12-byte packet (corpus 29)
    assert packet_cdb("cmd a0/00:00:00:00:00/00:00:00:00:00/a0 tag 0\n"
                      " cdb 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00\n res 51/24") == [0] * 12
    assert packet_cdb("cmd ca/00:08:00:00:00/00:00:00:00:00/e0 tag 0 dma 4096 out") is None


def test_a_sata_atapi_bus_error_log_becomes_an_atapi_drive_and_its_read(tmp_path):
    sc, notes, path = imported(tmp_path, 40)
    assert sc["devices"] == [{"port": 0, "atapi": {"disc_blocks": 65536}}], sc["devices"]
    assert sc["workload"] == [{"kind": "scsi", "device": 0, "barrier": True, "cdb": "28 00 00 00 05 61 00 00 40 00",
                               "data_in": 131072, "pio": True}], sc["workload"]
    assert any(n.startswith("3: READ(10) on the ATAPI drive ata1.00 runs clean") and "ATA bus error" in n
               for n in notes), notes
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr      # the read of 64 blocks checks against the disc


def test_an_unmodelled_cdb_is_named_not_sent(tmp_path):
    sc, notes, _ = imported(tmp_path, 55)
    assert any("atapi" in d for d in sc["devices"]), sc["devices"]
    assert not [w for w in sc["workload"] or [] if w.get("kind") == "scsi"], sc["workload"]
    assert any(n.startswith("5: CDB opcode 46h is not one the drive model answers") for n in notes), notes


def test_a_pata_atapi_timeout_log_sends_the_logged_test_unit_ready(tmp_path):
    sc, notes, path = imported(tmp_path, 29)
    assert sc["devices"] == [{"port": 0, "atapi": {"disc_blocks": 65536}}], sc["devices"]
    assert sc["workload"][0]["cdb"] == " ".join(["00"] * 12), sc["workload"]
    assert any("TEST UNIT READY on the ATAPI drive ata5.00 runs clean: its failure in the log (timeout)" in n
               for n in notes), notes
    assert run([path], tmp_path / "out").returncode == 0
