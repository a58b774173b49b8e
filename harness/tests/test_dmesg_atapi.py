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
    # res 50/00:03: the Count of a status phase (CoD, I/O) the cut READ(10) never reached, the
    # Register FIS a good command before it left in the port's received-FIS area
    assert sc["workload"] == [{"kind": "scsi", "device": 0, "barrier": True, "cdb": " ".join(["00"] * 12)},
                              {"kind": "scsi", "device": 0, "barrier": True, "cdb": "28 00 00 00 05 61 00 00 40 00",
                               "data_in": 131072, "pio": True, "expect_status": "check_condition"}], sc["workload"]
    assert any(n.startswith("3: the res line's Count 03 (CoD and I/O: a status phase)") for n in notes), notes
    # Emask 0x10 with PHYRdyChg/DevExch in SError, frozen: the link dropped under the READ(10)
    assert sc["faults"] == [{"kind": "phy_flap", "port": 0, "on_cmd": {"opcode": 0x28}, "down": "1ms",
                             "noise": ["cominit", "decode"]}], sc["faults"]
    assert any(n.startswith("3: READ(10) on the ATAPI drive ata1.00: its failure (ATA bus error) is the link "
                            "dropping") for n in notes), notes
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c40" / "satasim.log").read_text()
    assert "Read(10) 28 00 00 00 05 61 00 00 40 00res 50/00:03:00:00:00/00:00:00:00:00/a0 Emask 0x10 (ATA bus " \
        "error)" in log, log


def test_a_lost_interrupt_on_get_configuration(tmp_path):
    sc, notes, path = imported(tmp_path, 55)
    assert any("atapi" in d for d in sc["devices"]), sc["devices"]
    assert [w["cdb"] for w in sc["workload"]] == ["46 00 00 00 00 00 00 00 20 00"], sc["workload"]
    # "a0/01:00:00:20:00 ... dma 16416 in": byte count 32 (the request) in a transfer that
    # libata's 16 KiB drain buffer follows (ATAPI_MAX_DRAIN)
    assert (sc["workload"][0]["data_in"], sc["workload"][0]["byte_count"]) == (16416, 32), sc["workload"]
    # res 40/00:02 (DRDY, not busy) with a timeout: the drive was done, its interrupt lost
    assert sc["faults"] == [{"kind": "lost_irq", "port": 1, "on_cmd": {"opcode": 0x46}, "count": 1}], sc["faults"]
    assert any(n.startswith("5: GET CONFIGURATION on the ATAPI drive ata2.00: its failure (timeout) is a lost "
                            "interrupt") for n in notes), notes
    assert run([path], tmp_path / "out").returncode == 0
    assert "ata2.00: cmd a0/01:00:00:20:00/00:00:00:00:00/a0 tag 0 dma 16416 in\n" in \
        (tmp_path / "out" / "c55" / "satasim.log").read_text()


def test_a_pata_atapi_timeout_log_is_a_check_condition_whose_request_sense_hangs(tmp_path):
    sc, notes, path = imported(tmp_path, 29)
    # configured for PIO0: a drive without DMA whose fastest PIO mode is 0
    assert sc["devices"] == [{"port": 0, "atapi": {"disc_blocks": 65536, "dma": False, "pio": 0}}], sc["devices"]
    assert sc["workload"][0]["cdb"] == " ".join(["00"] * 12), sc["workload"]
    # res 51/24:03: the TEST UNIT READY ended with ERR, sense key 2 (NOT READY) and ABRT, its own
    # status phase (Count 03); "qc timeout (cmd 0xa0)" before the report is EH's REQUEST SENSE
    # (an internal PACKET command) timing out, which froze the port and made it Emask 0x5
    assert sc["faults"] == [{"kind": "check_condition", "port": 0, "on_cmd": {"opcode": 0}, "key": 2, "asc": 0x3a,
                             "abrt": True},
                            {"kind": "hang", "port": 0, "on_cmd": {"opcode": 0x03}}], sc["faults"]
    assert any("TEST UNIT READY on the ATAPI drive ata5.00: its failure (timeout) is a CHECK CONDITION whose "
               "REQUEST SENSE timed out (line 1" in n for n in notes), notes
    assert run([path], tmp_path / "out").returncode == 0
    log = (tmp_path / "out" / "c29" / "satasim.log").read_text()
    assert "ata1.00: ATAPI: SATASIM DVD-ROM, 1.00, max PIO0" in log
    assert "ata1.00: qc timeout (cmd 0xa0)" in log and "lost interrupt" not in log, log
    assert "ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x6 frozen" in log, log
    assert "res 51/24:03:00:00:00/00:00:00:00:00/a0 Emask 0x5 (timeout)" in log, log
    assert "ata1.00: status: { DRDY ERR }" in log, log
