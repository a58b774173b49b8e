"""Taskfile (SFF) and parallel ATA logs in the importer (issue 31): what a log's own lines say
about the kernel's wording era and the devices' transfer modes when they are all there is
(harness/satasim/dmesg_pata.py quiet_boot_configured, dmesg_sff.py). Each case is a few lines
in the kernel's format, the fact it carries quoted from the libata source it comes from."""

import re

import yaml

from satasim.dmesg_parse import parse
from satasim.dmesg_pata import quiet_boot_configured
from satasim import run
from satasim.import_dmesg import diff, import_report

# a 2.6.20 ata_piix boot (dmesg corpus 54, trimmed): a PATA disk's probe resets the channel
# with SRST only, and 2.6.20's ata_dev_set_mode prints "configured for" unconditionally
PATA_2620 = """\
[ 35.968478] ata_piix 0000:00:1f.1: version 2.10ac1
[ 35.968619] ata1: PATA max UDMA/100 cmd 0x000101f0 ctl 0x000103f6 bmdma 0x0001f000 irq 14
[ 35.968711] scsi0 : ata_piix
[ 36.130278] ata1.00: ATA-7: SAMSUNG SP2014N, VC100-33, max UDMA/100
[ 36.130286] ata1.00: 390721968 sectors, multi 16: LBA48
[ 36.138282] ata1.00: configured for UDMA/33
"""

# a SATA boot whose probe hardreset the link: every kernel prints "configured for" there
# (6.1: "if (!(ehc->i.flags & ATA_EHI_QUIET) || ehc->i.flags & ATA_EHI_DID_HARDRESET)")
SATA_BOOT = """\
[    1.830975] ata8: SATA link up 6.0 Gbps (SStatus 133 SControl 300)
[    1.830975] ata8.00: ATA-8: OCZ-SABER1000, 1.01, max UDMA/133
[    1.836358] ata8.00: configured for UDMA/133
"""

# an excerpt that starts inside an EH run (dmesg corpus 56): its "configured for" is the
# run's, followed by its "EH complete"; then a PIO READ SECTOR(S) that times out
PIO0_EXCERPT = """\
[  943.622132] ata1.00: configured for PIO0
[  943.623307] ata1: EH complete
[  975.526422] ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x6 frozen
[  975.526752] ata1.00: failed command: READ SECTOR(S)
[  975.526887] ata1.00: cmd 20/00:05:c8:b6:0b/00:00:00:00:00/e0 tag 0 pio 2560 in
[  975.526887]          res 40/00:01:00:00:00/00:00:00:00:00/e0 Emask 0x4 (timeout)
[  975.527197] ata1.00: status: { DRDY }
[  975.527767] ata1: soft resetting link
[  975.687402] ata1.00: configured for PIO0
"""


def scenario(tmp_path, text):
    log = tmp_path / "report.log"
    log.write_text(text)
    scen, _, notes = import_report(log, tmp_path / "s.yaml")
    return yaml.safe_load(scen.read_text()), notes


def test_a_quiet_boot_configured_line_is_read_as_the_2006_wording(tmp_path):
    assert quiet_boot_configured(parse(PATA_2620, "a.log").lines) == 6
    assert quiet_boot_configured(parse(SATA_BOOT, "b.log").lines) == 0       # a link line first
    assert quiet_boot_configured(parse(PIO0_EXCERPT, "c.log").lines) == 0    # an EH run's
    s, notes = scenario(tmp_path, PATA_2620)
    assert s["host"]["eh_policy"] == "libata-2006"
    assert any(re.match(r"6: 'configured for' from a boot probe", n) for n in notes), notes
    assert s["controller"]["type"] == "piix"
    # ata_piix is the log's driver: no stand-in note for its PATA ports
    assert not any("has no satasim model" in n for n in notes), notes


def test_a_pio_only_device_without_a_multiple_count(tmp_path):
    # libata-core.c ata_rwcmd_protocol: a device in PIO reads with READ MULTIPLE when
    # dev->multi_count is set ("index = dev->multi_count ? 0 : 8"), else READ SECTOR(S)
    s, notes = scenario(tmp_path, PIO0_EXCERPT)
    (dev,) = s["devices"]
    assert dev["multi"] == 0 and dev["pio"] == 0, dev
    assert s["host"]["dma"] == 0
    assert any(n.startswith("4: a PIO READ/WRITE SECTOR(S)") for n in notes), notes
    assert any(n.startswith("1: 'configured for PIO'") for n in notes), notes
    # a DMA log keeps its defaults
    s, _ = scenario(tmp_path, SATA_BOOT)
    assert "dma" not in (s.get("host") or {}) and "pio" not in s["devices"][0], s


def test_an_ich_slave_link_is_an_ich8_with_sidpr(tmp_path):
    # dmesg corpus 25: ata_piix with SIDPR (ICH8+) gives each device position its own link;
    # libata's ata_link_printk names the master link ataN.00 and the slave link ataN.01
    # ("if (sata_pmp_attached(link->ap) || link->ap->slave_link)"). Before wip17-hba the note
    # said "not modelled" and the scenario's ICH reset the channel as one link; now the part
    # is the ICH8 (part: ich8: SIDPR SCRs, the stack's slave link), and since a slave link's
    # exception report is quiet under 6.x's autopsy rule, the wording is libata-4.x's.
    log = ("[   21.616515] ata2.01: exception Emask 0x40 SAct 0x0 SErr 0x80800 action 0x0\n"
           "[   21.616519] ata2.01: SError: { HostInt 10B8B }\n"
           "[   21.616525] ata2.00: hard resetting link\n")
    s, notes = scenario(tmp_path, log)
    assert s["controller"]["type"] == "piix" and s["controller"]["part"] == "ich8", s["controller"]
    assert s["host"]["eh_policy"] == "libata-4.x", s.get("host")
    assert [n for n in notes if "slave link" in n] == [
        "2: 'ata2.01: SError: { HostInt 10B8B }': a link per device (ata_piix's SIDPR SCRs, libata's "
        "slave link): the ICH8's SATA function, part: ich8"], notes
    # a PATA log's device lines are no link lines
    _, notes = scenario(tmp_path, PATA_2620)
    assert not [n for n in notes if "slave link" in n], notes


def test_corpus_14_slave_link_timeout_resets_both_links(tmp_path):
    """dmesg corpus 14 (ata_piix, NixOS journal): a READ DMA EXT on the slave times out;
    libata reports it on the slave link ("ata5.01: exception Emask 0x0 ... action 0x0 frozen":
    the slave link's actions moved to the master link) and resets the master link, then the
    slave link ("ata5.00: hard resetting link", "ata5.01: hard resetting link"). Before the
    stack's slave link the channel was one link reset with SRST: 3 of 7 lines (action 0x6, no
    link lines); then 6 of 7. The res line "40/00:00:00:00:00/00:00:00:00:00/10" is the
    slot's leftover (a timeout fills no result, ata_qc_reinit resets Status and Error only):
    all zero but Device 10h, the DEV bit of a pass-through command to the slave, a STANDBY
    IMMEDIATE (dmesg_rtf): issued on tag 0 before the read, 7 of 7."""
    from pathlib import Path
    corpus = Path(__file__).resolve().parent / "fixtures" / "dmesg-corpus"
    out = tmp_path / "c14.yaml"
    import_report(next(corpus.glob("14-*.log")), out)
    s = yaml.safe_load(out.read_text())
    assert s["controller"]["part"] == "ich8" and s["host"]["eh_policy"] == "libata-4.x", s
    assert s["workload"][0] == {"kind": "scsi", "device": 0, "devno": 1, "tag": 0,
                                "cdb": "85 06 00 00 00 00 00 00 00 00 00 00 00 00 e0 00"}, s["workload"]
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c14")
    assert (matched, total) == (7, 7), "\n".join(text)
    got = (tmp_path / "out" / "c14" / "satasim.log").read_text()
    assert "ata1.01: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x0 frozen" in got
    assert "ata1.00: hard resetting link" in got and "ata1.01: hard resetting link" in got


def test_corpus_25_slave_link_line_noise_read_by_a_user_scan(tmp_path):
    """dmesg corpus 25 (ata_piix on an ICH8, 2.6.3x syslog): "ata2.01: exception Emask 0x40
    SAct 0x0 SErr 0x80800 action 0x0", "SError: { HostInt 10B8B }", then the master link's
    hard reset. No failed command and no PHY event: the slave port's PHY latched line noise
    (10b/8b decode errors, the receiver's internal error) with PhyRdy kept, which raises no
    interrupt on an ICH; an EH run something else started (the importer's stand-in: a user
    scan) read it through SIDPR, and the autopsy made ERR.E AC_ERR_SYSTEM and a reset moved
    to the master link. Before the line_noise fault the importer left it out ("link exception
    without a failed command: not reproduced"): 0 of 3."""
    from pathlib import Path
    corpus = Path(__file__).resolve().parent / "fixtures" / "dmesg-corpus"
    out = tmp_path / "c25.yaml"
    import_report(next(corpus.glob("25-*.log")), out)
    s = yaml.safe_load(out.read_text())
    assert s["faults"] == [{"kind": "line_noise", "port": 1, "devno": 1, "at": "990ms",
                            "noise": ["decode", "internal"]}], s["faults"]
    assert s["workload"] == [{"kind": "scan", "port": 1, "delay": "1000ms"}], s["workload"]
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c25")
    assert (matched, total) == (3, 3), "\n".join(text)
