"""Port-multiplier parts as the field logs show them (issue 31, docs/hardware.md 7.6): each
modelled part (`pmps[].product`) answers its GSCRs as the real one does, libata's attach line
names it, fan-out links are configured no faster than the host link, the JMB394's empty
ports read SControl 0, and the importer picks the part from a log's attach line."""

from pathlib import Path

import pytest

from satasim import run
from satasim.dmesg_pmp import pmp_ids, pmp_product
from satasim.import_dmesg import import_report, run_lines

CORPUS = Path(__file__).resolve().parent / "fixtures" / "dmesg-corpus"

SCEN = """\
name: part
seed: 1
controller: {{type: ahci, ports: 1, gen: {gen}}}
pmps:
  - {{port: 0, ports: 2, product: {product}}}
devices:
  - {{port: 0, pmp_port: 0, gen: 2}}
"""


def lines_of(product, gen, write_scenario, tmp_path):
    path = write_scenario(SCEN.format(product=product, gen=gen), name=f"{product}.yaml")
    out = tmp_path / f"out-{product}"
    result = run([path], out)
    assert result.returncode == 0, result.stdout + result.stderr
    log = (out / "part" / "satasim.log").read_text()
    return log, run_lines(out / "part")


# (product, host controller gen) -> the attach line (libata's "feat <GSCR[96]>/<GSCR[64]>"
# wording aside: see PARTS_FEAT), the host link, the fan-out links' SControl
PARTS = {
    # the JMB575 of dmesg corpus 46: a 6.0 Gbps host link, fan-out SPD 3
    "jmb575": (3, "0x197b:0x5755 r0, 2 ports", "ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)", "330"),
    # the SiI5744 of log 21 and the SiI3726 of 51/52 behind a 3.0 Gbps link: SPD 2
    "sii5744": (3, "0x1095:0x5744 r33, 2 ports", "ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)", "320"),
    "sii3726": (2, "0x1095:0x3726 r1, 2 ports", "ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)", "320"),
}


@pytest.mark.parametrize("product", sorted(PARTS))
def test_part_attach_and_fanout_speed(product, write_scenario, tmp_path):
    gen, ids, host, spd = PARTS[product]
    log, lines = lines_of(product, gen, write_scenario, tmp_path)
    spec = "1.2" if product.startswith("jmb") else "1.1"
    assert f"ata1.15: Port Multiplier {spec}, {ids}" in log
    assert host in lines
    # libata's __sata_set_spd_needed: SPD = the host link's generation on every fan-out COMRESET
    assert f"ata1.00: SATA link up 3.0 Gbps (SStatus 123 SControl {spd})" in lines
    assert f"ata1.01: SATA link down (SStatus 0 SControl {spd})" in lines


def test_jmb394_empty_port_reads_scontrol_zero(write_scenario, tmp_path):
    """Log 07: the JMB394's empty ports read SControl 0, so libata's resume gives up after
    five tries (200 ms apart) and the link is reported down with SControl 0; the port with
    a drive reads what was written."""
    log, lines = lines_of("jmb394", 3, write_scenario, tmp_path)
    assert "ata1.15: Port Multiplier 1.2, 0x197b:0x0325 r0, 2 ports" in log
    assert "ata1.00: SATA link up 3.0 Gbps (SStatus 123 SControl 320)" in lines
    assert "ata1.01: SATA link down (SStatus 0 SControl 0)" in lines
    assert "ata1.01: failed to resume link (SControl 0)" in log


@pytest.mark.parametrize("line, product", [
    ("Port Multiplier 1.1, 0x1095:0x3726 r23, 6 ports, feat 0x1/0x9", "sii3726"),   # 51, 52
    ("Port Multiplier 1.1, 0x1095:0x5744 r33, 2 ports, feat 0x1/0x9", "sii5744"),   # 21
    ("Port Multiplier 1.2, 0x197b:0x0325 r0, 5 ports, feat 0x5/0xf", "jmb394"),     # 07
    ("Port Multiplier 1.2, 0x197b:0x5755 r0, 5 ports, feat 0x5/0xf", "jmb575"),     # 46
])
def test_attach_line_names_the_part(line, product):
    assert pmp_product(pmp_ids(line)) == (product, "")


def test_unmodelled_part_is_said():
    name, why = pmp_product(pmp_ids("Port Multiplier 1.2, 0x11ab:0x4140 r1, 5 ports, feat 0x5/0xf"))
    assert name == "" and "0x11ab:0x4140 is not a modelled part" in why
    assert pmp_ids("SATA link up 3.0 Gbps (SStatus 123 SControl 300)") is None


def test_import_picks_the_part_from_the_log(tmp_path):
    log = next(CORPUS.glob("46-*.log"))
    scen, _, _ = import_report(log, tmp_path / "c46.yaml")
    assert "  - {port: 5, ports: 5, product: jmb575}" in Path(scen).read_text()


def test_a_sata_mv_host_without_its_driver_line_is_imported_with_a_note(tmp_path):
    # dmesg corpus 17 (a Buffalo TS-XEL: sata_mv + a 4-port PMP) names no driver; its host
    # link prints "SControl F300", sata_mv's (corpus 03's sata_mv reads F310). No Marvell
    # model: ahci stands in, and the note names the line that gave the host away
    log = next(CORPUS.glob("17-*.log"))
    scen, _, notes = import_report(log, tmp_path / "c17.yaml")
    text = scen.read_text()
    assert "controller: {type: ahci" in text and "pmps:" in text, text
    mv = [n for n in notes if "sata_mv" in n]
    assert len(mv) == 1 and mv[0].startswith("3: 'SControl F...'"), notes
    # a log with no Marvell sign keeps the silent default
    plain = tmp_path / "plain.log"
    plain.write_text("[    1.0] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n"
                     "[    1.1] ata1.00: ATA-8: X, 1, max UDMA/133\n[    1.2] ata1.00: configured for UDMA/133\n")
    _, _, notes = import_report(plain, tmp_path / "plain.yaml")
    assert not [n for n in notes if "sata_mv" in n], notes


def test_the_links_one_eh_run_reports_fail_together(tmp_path):
    # libata's ata_eh_report prints one block per link (ata_eh_link_report), so the PMP DMA
    # CS errata run of dmesg corpus 52 reports ata1.00, .01 and .02 milliseconds apart; their
    # READ DMA EXTs failed together, in flight at once (the errata needs three busy links).
    # The import issues them together; the second run's (10 minutes later) stays apart.
    log = next(CORPUS.glob("52-*.log"))
    scen, _, _ = import_report(log, tmp_path / "c52.yaml")
    import re
    reqs = [(int(m.group(1)), int(m.group(2))) for m in
            re.finditer(r"kind: request, device: 0, pmp_port: (\d+), .*delay: (\d+)ms", scen.read_text())]
    # issued in the order of their tags (2.6.35's ata_qc_new takes the lowest free tag):
    # ata1.02's tag 0, ata1.00's 1, ata1.01's 2; the second run's lone command had tag 1, so
    # a read of ata1.00 holds tag 0 (test_a_lone_command_on_tag_1_had_tag_0_held_by_another_link)
    assert [p for p, _ in reqs] == [2, 0, 1, 0, 1], reqs
    assert reqs[0][1] == reqs[1][1] == reqs[2][1], reqs
    assert reqs[3][1] == reqs[4][1] > reqs[0][1] + 500_000, reqs


def test_a_lone_command_on_tag_1_had_tag_0_held_by_another_link(tmp_path):
    # dmesg corpus 52 (2.6.35, md raid10 over a SiI3726): the ICRC error ten minutes after the
    # errata run reports one failed READ DMA EXT on "tag 1". Before 3.13 ata_qc_new gave a
    # command the lowest free bit of the port's qc_allocated, shared by all its links, so tag 0
    # was busy with other I/O: the import issues a read of another fan-out drive just before
    # it, which completes without error, and the run reports the log's tag (main's import:
    # "tag 0")
    log = next(CORPUS.glob("52-*.log"))
    scen, expected, notes = import_report(log, tmp_path / "c52.yaml")
    work = scen.read_text().split("workload:")[1].split("faults:")[0].splitlines()
    lone = [ln for ln in work if "delay: 578854ms" in ln]
    assert len(lone) == 2 and "pmp_port: 0, op: read" in lone[0] and "sectors: 8," in lone[0], lone
    assert "pmp_port: 1, op: read, lba: 266112000" in lone[1], lone
    assert any(n.startswith("50: tag(s) 0 below") for n in notes), notes
    out = tmp_path / "out"
    result = run([scen], out)
    assert result.returncode == 0, result.stdout + result.stderr
    log_text = (out / "c52" / "satasim.log").read_text()
    assert "ata1.01: cmd 25/00:00:00:8c:dc/00:04:0f:00:00/e0 tag 1 dma 524288 in" in log_text
    # the read that held tag 0 failed nothing: no report of ata1.00 in that run
    assert log_text.count("ata1.00: failed command") == 1, log_text
    # the errata run's three tags are unchanged
    assert "ata1.02: cmd 25/00:c0:62:83:58/00:02:05:00:00/e0 tag 0 dma 360448 in" in log_text


def test_idle_fan_out_links_reported_mean_a_kernel_before_6_1(tmp_path):
    # dmesg corpus 52 (2.6.35) reports the idle links of its frozen port (line 27 "ata1.03: exception
    # Emask 0x100 SAct 0x0 SErr 0x0 action 0x6 frozen", no failed command); 6.1's autopsy
    # makes such a link quiet ("if (nr_quiet == nr_failed) ehc->i.flags |= ATA_EHI_QUIET;")
    log = next(CORPUS.glob("52-*.log"))
    scen, _, notes = import_report(log, tmp_path / "c52.yaml")
    assert "host: {eh_policy: libata-4.x}" in scen.read_text()
    assert any(n.startswith("27: the wording of kernels before 6.x") for n in notes), notes
    # a PMP log whose links all had failed commands keeps the default
    log = next(CORPUS.glob("46-*.log"))
    scen, _, _ = import_report(log, tmp_path / "c46.yaml")
    assert "eh_policy" not in scen.read_text()


SEMB_SCEN = """\
name: semb
seed: 1
controller: {{type: {ctl}, ports: 1, gen: 2}}
pmps:
  - {{port: 0, ports: 6, product: sii3726}}
devices:
  - {{port: 0, pmp_port: 0}}
"""


@pytest.mark.parametrize("ctl", ["ahci", "sil24"])
def test_sii3726_config_port_is_reset_like_a_link_and_left_unattached(ctl, write_scenario, tmp_path):
    # dmesg corpus 52 (2.6.35) and 51 (2.6.28): the SiI3726's port 5 is its enclosure bridge
    # (SEMB); libata's sata_pmp_quirks gives it NO_SRST | ASSUME_SEMB, so its link is hard
    # reset and reported, up at 1.5 Gbps, and nothing is attached (no IDENTIFY, no "configured")
    path = write_scenario(SEMB_SCEN.format(ctl=ctl), name=f"semb-{ctl}.yaml")
    out = tmp_path / f"out-{ctl}"
    result = run([path], out)
    assert result.returncode == 0, result.stdout + result.stderr
    log = (out / "semb" / "satasim.log").read_text()
    assert "ata1.05: hard resetting link" in log
    assert "ata1.05: SATA link up 1.5 Gbps (SStatus 113 SControl 320)" in log
    assert "ata1.05: configured for" not in log and "ata1.05: ATA-" not in log
    assert "config port, ignoring" not in log
    assert "ata1.00: configured for UDMA/" in log


def test_import_puts_no_disk_on_the_config_port(tmp_path):
    # 52's excerpt reports the config port's link ("ata1.05: SATA link up 1.5 Gbps") and its
    # idle link's exception, never a drive there: the part's bridge, not a disk; the PMP keeps
    # its six ports
    log = next(CORPUS.glob("52-*.log"))
    scen, _, _ = import_report(log, tmp_path / "c52.yaml")
    text = scen.read_text()
    assert "  - {port: 0, ports: 6}" in text, text
    devices = text.split("devices:")[1].split("workload:")[0]
    assert "pmp_port: 5" not in devices, text
    # nor on port 4, whose link only ever went down: its "exception Emask 0x100 ... frozen"
    # is 2.6.35 reporting every link of the frozen port, not a drive
    assert "pmp_port: 4" not in devices, text


def test_a_pscr_read_the_pmp_aborts_is_a_pmp_reg_abort_fault(tmp_path):
    # dmesg corpus 51 (2.6.28): "ata7.05: failed to read SCR 1 (Emask=0x1)" in every recovery
    # (Emask 0x1: the PMP answered ABRT; the "SCR 0 (Emask=0x40)" after it is the frozen port)
    log = next(CORPUS.glob("51-*.log"))
    scen, _, _ = import_report(log, tmp_path / "c51.yaml")
    faults = [ln for ln in scen.read_text().splitlines() if "kind: pmp_reg_abort" in ln]
    assert faults == ["  - {kind: pmp_reg_abort, port: 0, pscr_port: 5, reg: 1, at: 1ms, from_power_on: true}"], faults


def test_a_drive_behind_a_pmp_gets_its_fan_out_links_speed(tmp_path):
    # dmesg corpus 46: "ata6: SATA link up 6.0 Gbps" (the host link, before the attach line)
    # then "ata6.00: SATA link up 3.0 Gbps": the drive is a 3.0 Gbps one; the host link's
    # speed is the JMB575's
    log = next(CORPUS.glob("46-*.log"))
    scen, _, _ = import_report(log, tmp_path / "c46.yaml")
    disk = next(ln for ln in scen.read_text().splitlines() if "pmp_port: 0," in ln)
    assert "gen: 2" in disk, disk


def _import_and_run(n, tmp_path):
    from satasim.import_dmesg import diff
    log = next(CORPUS.glob(f"{n:02d}-*.log"))
    scen, _, notes = import_report(log, tmp_path / f"c{n:02d}.yaml")
    result = run([scen], tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = run_lines(tmp_path / "out" / f"c{n:02d}")
    matched, total, text = diff(scen.with_suffix(".expected"), tmp_path / "out" / f"c{n:02d}")
    return scen.read_text(), notes, lines, (matched, total, text)


def test_a_user_scan_of_empty_ports_is_reported_before_6_1(tmp_path):
    # dmesg corpus 21 (post-2.6.37): at 161 s of uptime "ata2: hard resetting link", "ata2:
    # SATA link down (SStatus 0 SControl 300)", "ata2: EH complete", the same on ata5: EH runs
    # with no exception, one reset each -- a user scan (libata's ata_scsi_user_scan asks only
    # ATA_EH_RESET and a probe). Kernels before the autopsy's "if (nr_quiet == nr_failed)
    # ehc->i.flags |= ATA_EHI_QUIET;" (not in 4.0) print such a run; 6.1 does not. The
    # import scans those ports at the log's times with the libata-4.x wording (7 of 12
    # before: the scenario had no scan and the 6.1 profile)
    text, notes, lines, (matched, total, diff_text) = _import_and_run(21, tmp_path)
    assert "host: {eh_policy: libata-4.x}" in text
    assert "  - {kind: scan, port: 1, delay: 1000ms}" in text
    assert "  - {kind: scan, port: 4, delay: 6239ms}" in text
    assert any(n.startswith("2: ata2: an EH run with no exception") for n in notes), notes
    for port in (2, 5):
        assert [ln for ln in lines if ln.startswith(f"ata{port}:")][-3:] == [
            f"ata{port}: hard resetting link", f"ata{port}: SATA link down (SStatus 0 SControl 300)",
            f"ata{port}: EH complete"], lines
    assert (matched, total) == (11, 12), "\n".join(diff_text)


def test_a_recovery_cut_off_before_its_exception_is_no_user_scan(tmp_path):
    # dmesg corpus 16 (5.15): four resets of ata1, a speed limit, "disabled", "EH complete":
    # a recovery whose exception is before the excerpt; a user scan resets once
    log = next(CORPUS.glob("16-*.log"))
    scen, _, _ = import_report(log, tmp_path / "c16.yaml")
    assert "kind: scan" not in scen.read_text()


def test_fan_out_links_limited_at_attach_are_the_third_probe_within_a_minute(tmp_path):
    # dmesg corpus 07 (4.4): right after the JMB394's attach line its four empty links print
    # "limiting SATA link speed to 1.5 Gbps" before any reset: libata's probe trials
    # (ata_eh_schedule_probe: "if (trials > ATA_EH_PROBE_TRIALS) sata_down_spd_limit(link,
    # 1)"), so two probes of those links came before, within the minute, before the excerpt.
    # The import asks them with two user scans of the port (8 of 12 before). The log has no
    # wording of its era (4.4), so the 6.1 profile runs: its scans are quiet, the third
    # probe's "hard resetting link" lines are not printed (9 of 12; libata-4.x would print them)
    text, notes, lines, (matched, total, diff_text) = _import_and_run(7, tmp_path)
    assert text.count("  - {kind: scan, port: 1, barrier: true}") == 2, text
    for p in range(1, 5):
        assert f"ata2.0{p}: limiting SATA link speed to 1.5 Gbps" in lines, lines
    assert "ata2.00: limiting SATA link speed to 1.5 Gbps" not in lines, lines
    assert (matched, total) == (9, 12), "\n".join(diff_text)


def test_sii3726_fan_out_ports_1_to_3_read_scontrol_300_after_a_pmp_reset(tmp_path):
    # dmesg corpus 51 (2.6.28) and 52 (2.6.35), two SiI3726 units: after the attach and after
    # each PMP reset port 0 reads the SControl 320 libata writes (the host link's 3.0 Gbps,
    # __sata_set_spd_needed) and ports 1-3 read 300; the empty port 4 and the bridge on
    # port 5 read 320; 52's later reset of port 1 alone reads 320 (docs/hardware.md 7.6:
    # the part, PmpConfig::sctl_spd_cleared_after_reset). Before: 39 of 48 and 42 of 53,
    # every port read 320.
    (tmp_path / "51").mkdir()
    (tmp_path / "52").mkdir()
    _, _, lines, (matched, total, diff_text) = _import_and_run(51, tmp_path / "51")
    ups = [ln for ln in lines if "SATA link up 3.0 Gbps (SStatus 123 SControl" in ln and ".1" not in ln[:8]]
    assert "ata1.00: SATA link up 3.0 Gbps (SStatus 123 SControl 320)" in ups, lines
    for port in (1, 2, 3):
        mine = [ln for ln in ups if ln.startswith(f"ata1.0{port}:")]
        assert mine and all(ln.endswith("SControl 300)") for ln in mine), lines
    assert "ata1.04: SATA link down (SStatus 0 SControl 320)" in lines
    assert (matched, total) == (48, 48), "\n".join(diff_text)
    _, _, lines, (matched, total, diff_text) = _import_and_run(52, tmp_path / "52")
    port1 = [ln for ln in lines if ln.startswith("ata1.01: SATA link up")]
    assert port1[-2:] == ["ata1.01: SATA link up 3.0 Gbps (SStatus 123 SControl 300)",
                          "ata1.01: SATA link up 3.0 Gbps (SStatus 123 SControl 320)"], lines
    assert "ata1.05: SATA link up 1.5 Gbps (SStatus 113 SControl 320)" in lines
    assert (matched, total) == (46, 53), "\n".join(diff_text)


def test_a_report_cut_at_the_top_is_the_same_commands_earlier_failure(tmp_path):
    # dmesg corpus 17 starts inside a report: "ata1.00: status: { DRDY ERR }", "error: { ABRT }",
    # its EH, then a whole report of READ DMA LBA 2 with the same status and error. libata
    # retries a failed read that is no media error (ata_eh_worth_retry; SCSI's 5 retries), so
    # the cut report is that command's earlier failure: its fault fires twice (main's import:
    # count 1, one report in the run, 8 of 23 lines), and the retry after the second succeeds
    log = next(CORPUS.glob("17-*.log"))
    scen, _, notes = import_report(log, tmp_path / "c17.yaml")
    text = scen.read_text()
    assert "{kind: media_error, port: 0, pmp_port: 0, on_cmd: {op: read, lba: [2, 3]}, error: abrt, count: 2}" in text, text
    assert any(n.startswith("10: the excerpt starts inside an earlier report of ata1.00") for n in notes), notes
    out = tmp_path / "out"
    result = run([scen], out)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = run_lines(out / "c17")
    assert lines.count("ata1.00: cmd c8/00:02:02:00:00/00:00:00:00:00/e0 tag 14 dma 1024 in") == 2, lines
    assert lines.count("ata1.00: error: { ABRT }") == 2, lines
    # a cut tail that is not the next report's (another error) is no earlier failure of it
    other = tmp_path / "17-other.log"
    other.write_text(log.read_text().replace("error: { ABRT }", "error: { IDNF }", 1))
    scen, _, notes = import_report(other, tmp_path / "c17b.yaml")
    assert "error: abrt, count: 1}" in scen.read_text()
    assert not any("starts inside an earlier report" in n for n in notes), notes
