"""import-dmesg on logs of ATAPI drives (dmesg-corpus 29, 40, 55): the drive becomes a
devices[].atapi entry, not a disk, and each failed PACKET command the log shows becomes a
kind scsi step with the log's CDB and transfer, its failure a fault on the drive (docs/device.md
7); a CDB the drive model does not answer is named in a note at its line."""
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


def test_a_sata_atapi_bus_error_log_becomes_an_atapi_drive_its_read_and_a_flap(tmp_path):
    sc, notes, path = imported(tmp_path, 40)
    assert sc["devices"] == [{"port": 0, "atapi": {"disc_blocks": 65536}}], sc["devices"]
    assert sc["workload"] == [{"kind": "scsi", "device": 0, "barrier": True, "cdb": "28 00 00 00 05 61 00 00 40 00",
                               "data_in": 131072, "pio": True, "expect_status": "check_condition"}], sc["workload"]
    # Emask 0x10 with PHYRdyChg/DevExch in SError, frozen: the link dropped under the READ(10)
    assert sc["faults"] == [{"kind": "phy_flap", "port": 0, "on_cmd": {"opcode": 0x28}, "down": "1ms",
                             "noise": ["cominit", "decode"]}], sc["faults"]
    assert any(n.startswith("3: READ(10) on the ATAPI drive ata1.00: its failure (ATA bus error) is the link "
                            "dropping") for n in notes), notes
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c40" / "satasim.log").read_text()
    assert "Read(10) 28 00 00 00 05 61 00 00 40 00res" in log and "Emask 0x10 (ATA bus error)" in log


def test_a_lost_interrupt_on_get_configuration(tmp_path):
    sc, notes, path = imported(tmp_path, 55)
    assert any("atapi" in d for d in sc["devices"]), sc["devices"]
    assert [w["cdb"] for w in sc["workload"]] == ["46 00 00 00 00 00 00 00 20 00"], sc["workload"]
    # res 40/00:02 (DRDY, not busy) with a timeout: the drive was done, its interrupt lost
    assert sc["faults"] == [{"kind": "lost_irq", "port": 1, "on_cmd": {"opcode": 0x46}, "count": 1}], sc["faults"]
    assert any(n.startswith("5: GET CONFIGURATION on the ATAPI drive ata2.00: its failure (timeout) is a lost "
                            "interrupt") for n in notes), notes
    assert run([path], tmp_path / "out").returncode == 0


def test_a_pata_atapi_timeout_log_is_a_check_condition_with_a_lost_interrupt(tmp_path):
    sc, notes, path = imported(tmp_path, 29)
    # configured for PIO0: a drive without DMA whose fastest PIO mode is 0
    assert sc["devices"] == [{"port": 0, "atapi": {"disc_blocks": 65536, "dma": False, "pio": 0}}], sc["devices"]
    assert sc["workload"][0]["cdb"] == " ".join(["00"] * 12), sc["workload"]
    # res 51/24:03: the drive ended it with ERR, sense key 2 (NOT READY) and ABRT; then the timeout
    assert sc["faults"] == [{"kind": "check_condition", "port": 0, "on_cmd": {"opcode": 0}, "key": 2, "asc": 0x3a,
                             "abrt": True},
                            {"kind": "lost_irq", "port": 0, "on_cmd": {"opcode": 0}, "count": 1}], sc["faults"]
    assert any("TEST UNIT READY on the ATAPI drive ata5.00: its failure (timeout) is a lost interrupt after a "
               "CHECK CONDITION" in n for n in notes), notes
    assert run([path], tmp_path / "out").returncode == 0
    assert "ata1.00: ATAPI: SATASIM DVD-ROM, 1.00, max PIO0" in (tmp_path / "out" / "c29" / "satasim.log").read_text()
