"""satasim import-dmesg: seven field reports written in libata's exact log formats (Linux 6.1;
harness/tests/fixtures/dmesg/) imported into scenarios, run, and diffed against the reports'
own decision lines. Each fixture checks what the importer inferred (topology, identity, the
fault that explains the errors, the workload that hit it) and how many of the report's
decision lines satasim reproduces: a change in either direction is a change of satasim's
behaviour or of the importer, to be looked at (and the number updated when it improves).
Malformed reports: file:line, exit 2, nothing written."""

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from satasim import run
from satasim.import_dmesg import diff, import_report, main as import_main
from satasim.results import binary

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "dmesg"

# fixture: (report decision lines, lines satasim matches today, what the scenario must hold)
ROUND_TRIP = {
    # the res line's Count 00 for an 8-sector read: a drive whose NCQ log keeps no count
    # (ncq_log_count: none, dmesg_rtf; 9 before)
    "ncq-media-error": (11, 10, {"faults": [{"kind": "media_error", "error": "unc", "lba": [1600, 1600]}],
                                "ops": [("read", 1600, "ncq")] + [("read", lba, "ncq") for lba in (0, 8, 16, 24, 32)]}),
    # issue 31: attach_read (NCQ goes off at the 4th timeout, as the report's, not the 2nd),
    # the requests at the report's times, the res line compared as the kernel prints it
    "timeouts-ncq-off-speed-down": (41, 32, {"faults": [{"kind": "hang", "repeat": 4}],
                                             "ops": [("read", 4096, "ncq")]}),
    "crc-storm-speed-limit": (50, 46, {"faults": [{"kind": "crc", "dir": "h2d", "repeat": 4}],
                                       "ops": [("write", 766693376, "ncq")]}),
    # the fixture reports the hotplug run with its exception, resets and "EH complete"; 6.1's
    # autopsy makes a run in which no command failed quiet (dmesg-corpus 03, a 6.x sata_mv
    # hotplug: link down, link up, configured, nothing else), so those 6 lines are not the
    # stack's any more (10 before issue 31)
    "unplug": (15, 9, {"faults": [{"kind": "unplug", "at": "76688ms"}], "ops": [], "absent_after": [2]}),
    # the whole log of a hung drive: the report's request at its time, the timeouts of the
    # commands issued with it (issue 31: 6 of 19 before)
    "hung-device": (19, 17, {"faults": [{"kind": "hang"}], "ops": [("write", 8192, "dma")]}),
    # the FLUSH CACHE EXT ABRT keeps the command's Device a0h ("res 51/04:00:.../a0"): d2h_regs: echo (9
    # before); the flush on its block-layer tag (libata prints it: 10 before)
    "flush-error": (11, 11, {"faults": [{"kind": "media_error", "error": "abrt"}], "ops": [("flush", None, None)]}),
    # SError 10B8B beside BadCRC: the crc fault carries the decoder's code error, so the
    # exception's SErr 0x280100 and the SError line match (without it: 10 of 14)
    "decode-error-ncq-read": (14, 13, {"faults": [{"kind": "crc", "dir": "d2h", "symbol": "code"}],
                                       "ops": [("read", 1192960, "ncq")]}),
}


def do_import(report, out):
    return import_main([str(report), "-o", str(out)])


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_import_run_diff(name, tmp_path):
    total, matched, want = ROUND_TRIP[name]
    scen = tmp_path / f"{name}.yaml"
    assert do_import(FIXTURES / f"{name}.txt", scen) == 0
    spec = yaml.safe_load(scen.read_text())
    # what the importer read from the report
    faults = spec["faults"] or []
    assert len(faults) == len(want["faults"]), faults
    for f, w in zip(faults, want["faults"]):
        for k, v in w.items():
            got = f["on_cmd"]["lba"] if k == "lba" else f.get(k)
            assert got == v, (k, f)
    ops = [(w["op"], w.get("lba"), w.get("mode")) for w in spec["workload"] or []]
    assert ops == want["ops"]
    if "absent_after" in want:
        assert spec["expect"]["absent_after"] == want["absent_after"]
    # run it and diff against the report
    r = run([scen], tmp_path / "out")
    assert r.returncode in (0, 1), r.stderr
    m, t, text = diff(scen.with_suffix(".expected"), tmp_path / "out" / name)
    assert t == total
    assert m == matched, f"{name}: satasim now matches {m} of {t} report lines (was {matched}):\n" + "\n".join(text)


def test_ncq_queue_comes_from_sact_and_tags(tmp_path):
    """The failed NCQ read keeps its tag (6: `cmd 60/08:30:...` carries it in the count field)
    and the other tags of `SAct 0x3f0` become reads issued with it, so the run's failed
    command line is the report's, word for word."""
    scen = tmp_path / "ncq-media-error.yaml"
    assert do_import(FIXTURES / "ncq-media-error.txt", scen) == 0
    work = yaml.safe_load(scen.read_text())["workload"]
    assert [(w["lba"], w["tag"]) for w in work] == [(1600, 6), (0, 4), (8, 5), (16, 7), (24, 8), (32, 9)]
    # issued together, at the report's time of the error (after its boot probe)
    assert len({w["delay"] for w in work}) == 1
    r = run([scen], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "ncq-media-error" / "satasim.log").read_text()
    assert "ata1.00: cmd 60/08:30:40:06:00/00:00:00:00:00/40 tag 6 ncq dma 4096 in" in log


def test_identity_and_topology_come_from_the_report(tmp_path):
    scen = tmp_path / "s.yaml"
    assert do_import(FIXTURES / "crc-storm-speed-limit.txt", scen) == 0
    spec = yaml.safe_load(scen.read_text())
    assert spec["controller"] == {"type": "ahci", "ports": 4, "slots": 32, "gen": 3}
    (d,) = spec["devices"]
    assert (d["port"], d["model"], d["firmware"], d["capacity"], d["multi"], d["ata_major"]) == \
        (2, "Samsung SSD 850 EVO 500GB", "EMT02B6Q", 976773168, 1, 9)
    exp = scen.with_suffix(".expected").read_text().splitlines()
    assert "ata3: limiting SATA link speed to 3.0 Gbps" in exp
    assert "ata3.00: res 40/00:88:00:d0:b2/00:00:2d:00:00/40 Emask 0x10 (ATA bus error)" in exp


def test_cli_entry_point(tmp_path):
    """satasim import-dmesg runs the importer (the simulator's subcommand)."""
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    p = subprocess.run([str(binary()), "import-dmesg", str(FIXTURES / "flush-error.txt"), "-o",
                        str(tmp_path / "f.yaml")], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "f.yaml").exists() and (tmp_path / "f.expected").exists()


MALFORMED = {
    "bad-cmd": ("[ 1.0] ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n"
                "[ 2.0] ata1.00: exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x0\n"
                "[ 2.0] ata1.00: failed command: READ FPDMA QUEUED\n"
                "[ 2.0] ata1.00: cmd 60/08:zz:00:00:00/00:00:00:00:00/40 tag 0 ncq dma 4096 in\n", 4, "malformed 'cmd'"),
    "bad-link-up": ("[ 1.0] ata1: SATA link up fast\n", 1, "malformed 'SATA link up'"),
    "not-libata": ("[ 1.0] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n", 1, "no libata lines"),
    "port-zero": ("[ 1.0] ata0: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n", 1, "from ata1"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_report_names_file_and_line(case, tmp_path, capsys):
    text, line, why = MALFORMED[case]
    rep = tmp_path / "r.txt"
    rep.write_text(text)
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 2
    err = capsys.readouterr().err
    assert f"{rep}:{line}:" in err and why in err, err
    assert not out.exists() and not out.with_suffix(".expected").exists()
    assert not list(tmp_path.glob(".s.*"))  # no temporary file left behind


# ------------------------------------------------ the output files (issue 30 item 2)

def leftovers(folder: Path) -> list[str]:
    """Temporary files the importer may have left (it writes .NAME.XXXX beside the target)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_output_onto_a_fifo_is_refused(tmp_path, capsys):
    out = tmp_path / "f.yaml"
    os.mkfifo(out)
    assert do_import(FIXTURES / "flush-error.txt", out) == 2
    err = capsys.readouterr().err
    assert f"{out}: not a regular file (a FIFO)" in err, err
    assert stat.S_ISFIFO(out.lstat().st_mode)            # left as it was
    assert not out.with_suffix(".expected").exists() and leftovers(tmp_path) == []


def test_output_onto_a_device_node_is_refused(tmp_path, capsys):
    """-o /dev/null as root replaced the node with a regular file. A node of our own in tmp
    (the null device's numbers), reached directly and through a symlink."""
    node = tmp_path / "null.yaml"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD")
    link = tmp_path / "link.yaml"
    link.symlink_to(node)
    for out in (node, link):
        assert do_import(FIXTURES / "flush-error.txt", out) == 2
        err = capsys.readouterr().err
        assert f"{out}: not a regular file (a character device)" in err, err
        assert stat.S_ISCHR(node.lstat().st_mode) and link.is_symlink()
        assert not out.with_suffix(".expected").exists()
    assert leftovers(tmp_path) == []


def test_a_refusal_writes_nothing(tmp_path, capsys):
    """The .expected target cannot be written (a folder is in its place): neither file is
    written, no temporary file is left."""
    out = tmp_path / "s.yaml"
    (tmp_path / "s.expected").mkdir()
    assert do_import(FIXTURES / "flush-error.txt", out) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 's.expected'}: not a regular file (a folder)" in err, err
    assert not out.exists() and leftovers(tmp_path) == []
    # the report itself is never an output
    rep = tmp_path / "r.yaml"
    rep.write_text((FIXTURES / "flush-error.txt").read_text())
    assert do_import(rep, rep) == 2
    assert "is the report itself" in capsys.readouterr().err
    assert rep.read_text() == (FIXTURES / "flush-error.txt").read_text()
    assert not rep.with_suffix(".expected").exists() and leftovers(tmp_path) == []


def test_written_files_have_the_usual_mode(tmp_path):
    """New files get 0666 less the umask (0644 under 022), as any tool's; a file replaced
    keeps its mode."""
    old = os.umask(0o022)
    try:
        out = tmp_path / "s.yaml"
        assert do_import(FIXTURES / "flush-error.txt", out) == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        assert stat.S_IMODE(out.with_suffix(".expected").stat().st_mode) == 0o644
        out.chmod(0o640)
        assert do_import(FIXTURES / "flush-error.txt", out) == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o640
        assert leftovers(tmp_path) == []
    finally:
        os.umask(old)


def test_a_failed_rename_puts_back_what_was_there(tmp_path, monkeypatch, capsys):
    """Both files are renamed into place at the end; if the second rename fails, the first
    file is put back as it was (here an earlier import's scenario)."""
    out = tmp_path / "s.yaml"
    out.write_text("# an earlier scenario\n")
    real_replace = os.replace

    def failing(src, dst):
        if str(dst).endswith(".expected"):
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    assert do_import(FIXTURES / "flush-error.txt", out) == 2
    assert f"{out.with_suffix('.expected')}: No space left on device" in capsys.readouterr().err
    assert out.read_text() == "# an earlier scenario\n"
    assert not out.with_suffix(".expected").exists() and leftovers(tmp_path) == []


# ------------------------------------------------------ bad input (issue 30 item 10)

UP = "ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n"
IDENT = ("[ 1.1] ata1.00: ATA-9: {model}, FW01, max UDMA/133\n"
         "[ 1.1] ata1.00: {sectors} sectors, multi 16: LBA48 NCQ (depth 32)\n"
         "[ 1.2] ata1.00: configured for UDMA/133\n")
NCQ_ERR = ("[ 2.0] ata1.00: exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x0\n"
           "[ 2.0] ata1.00: failed command: READ FPDMA QUEUED\n"
           "[ 2.0] ata1.00: cmd 60/08:00:00:00:00/00:00:00:00:00/40 tag {tag} ncq dma 4096 in\n"
           "         res 41/40:00:00:00:00/00:00:00:00:00/40 Emask 0x409 (media error) <F>\n"
           "[ 2.0] ata1.00: error: {{ UNC }}\n")
BIG = "1234567890" * 4   # 40 digits

# (report, line, what the message names): refused, exit 2, nothing written
BAD_INPUT = {
    "port-5000-digits": (f"[ 1.0] ata{'7' * 5000}: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n",
                         1, "ataN port number 777777777777...(5000 digits) out of range 1..32"),
    "port-beyond-32": ("[ 1.0] ata33: " + UP[len("ata1: "):], 1, "ataN port number 33 out of range 1..32"),
    "sectors-40-digits": ("[ 1.0] " + UP + IDENT.format(model="M", sectors=BIG), 3, "sectors"),
    "tag-40-digits": ("[ 1.0] " + UP + IDENT.format(model="M", sectors=1000) + NCQ_ERR.format(tag=BIG),
                      7, "tag"),
    "slots-40-digits": (f"[ 1.0] ahci 0000:00:1f.2: AHCI 0001.0301 {BIG} slots 1 ports 6 Gbps 0x1 impl\n"
                        "[ 1.0] " + UP, 1, "slots"),
    "time-400-digits": (f"[{'9' * 400}.0] " + UP, 1, "time"),
    "io-error-sector-5000-digits": ("[ 1.0] " + UP + f"[ 3.0] I/O error, dev sda, sector {'9' * 5000} op "
                                    "0x0:(READ) flags 0x0\n", 2, "sector"),
    "control-char-in-model": ("[ 1.0] " + UP + IDENT.format(model="Evil\x01Disk", sectors=1000), 2,
                              "control character U+0001"),
    "escape-in-model": ("[ 1.0] " + UP + IDENT.format(model="\x1b[31mRed", sectors=1000), 2,
                        "control character U+001B"),
    "right-to-left-override": ("[ 1.0] " + UP + IDENT.format(model="Disk\u202eevil", sectors=1000), 2,
                               "U+202E"),
    "line-separator-in-a-libata-line": ("[ 1.0] " + UP + IDENT.format(model="A\u2028ata1: EH complete",
                                                                         sectors=1000), 2, "U+2028"),
    "non-ascii-model": ("[ 1.0] " + UP + IDENT.format(model="Disk\u00e9", sectors=1000), 2,
                        "model: 'Disk\\xe9' is not printable ASCII"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_is_refused_naming_the_line(case, tmp_path, capsys):
    text, line, why = BAD_INPUT[case]
    rep = tmp_path / "r.txt"
    rep.write_text(text, encoding="utf-8")
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 2
    err = capsys.readouterr().err
    assert f"{rep}:{line}:" in err and why in err, err
    assert len(err) < 400, err            # a 5,000-digit number is not echoed back
    assert not out.exists() and not out.with_suffix(".expected").exists()
    assert leftovers(tmp_path) == []


def test_lines_are_split_at_newlines_only(tmp_path, capsys):
    """U+2028, U+0085, form feed: str.splitlines() split lines at them, so line numbers no
    longer matched the file's. Outside libata's lines they are just characters."""
    rep = tmp_path / "r.txt"
    rep.write_text("[ 0.5] usb 1-1: odd\u2028name\x85here\x0cand\u2029there\n"
                   "[ 1.0] ata1: SATA link up fast\n", encoding="utf-8")
    assert do_import(rep, tmp_path / "s.yaml") == 2
    err = capsys.readouterr().err
    assert f"{rep}:2: malformed 'SATA link up'" in err, err


def test_report_name_with_odd_characters_stays_out_of_the_outputs(tmp_path):
    """The report's file name goes into the scenario's comment and description and the
    .expected header: a newline in it must not make a YAML key or an expected line."""
    rep = tmp_path / "r\nata1: EH complete\x1b.txt"
    rep.write_text((FIXTURES / "flush-error.txt").read_text())
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    assert spec["name"] == "s" and "\n" not in spec["description"] and "\x1b" not in spec["description"]
    exp = out.with_suffix(".expected").read_text().splitlines()
    body = [ln for ln in exp if not ln.startswith("#")]
    assert do_import(FIXTURES / "flush-error.txt", tmp_path / "plain.yaml") == 0
    assert body == [ln for ln in (tmp_path / "plain.expected").read_text().splitlines()
                    if not ln.startswith("#")]
    assert all(ch.isprintable() for ln in exp for ch in ln), exp


def test_values_check_would_refuse_are_refused_or_clamped_at_import(tmp_path):
    """What the importer writes passes the scenario reader's ranges: a 2^48 sector count
    is refused at import, multi and NCQ depth are clamped (as before)."""
    rep = tmp_path / "r.txt"
    rep.write_text("[ 1.0] " + UP + IDENT.format(model="M", sectors=2 ** 48), encoding="utf-8")
    assert do_import(rep, tmp_path / "s.yaml") == 2
    rep.write_text("[ 1.0] " + UP + IDENT.format(model="M", sectors=2 ** 48 - 1).replace(
        "multi 16", "multi 3").replace("depth 32", "depth 99"), encoding="utf-8")
    assert do_import(rep, tmp_path / "s.yaml") == 0
    (d,) = yaml.safe_load((tmp_path / "s.yaml").read_text())["devices"]
    assert (d["capacity"], d["multi"], d["ncq_depth"]) == (2 ** 48 - 1, 16, 32)


# ------------------------------------------------ the forms users paste (issue 31 item 2)

# One report in each form a kernel log reaches a bug report in (each modelled on files of
# harness/tests/fixtures/dmesg-corpus/, named in the comment): every one reads as the same
# decision lines.
REPORT = ["ata1.00: exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x6 frozen",
          "ata1.00: failed command: READ FPDMA QUEUED",
          "ata1.00: cmd 60/08:00:00:08:00/00:00:00:00:00/40 tag 0 ncq dma 4096 in",
          "ata1.00: res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x4 (timeout)",
          "ata1.00: status: { DRDY }",
          "ata1: hard resetting link"]
EXC, FC, CMD, RES, ST, HR = (REPORT[0][9:], REPORT[1][9:], REPORT[2][9:], REPORT[3][9:], REPORT[4][9:],
                             REPORT[5][6:])
FORMS = {
    # 02, 57: dmesg stamps the res line too (and CRLF endings)
    "dmesg-stamped-res": f"[ 9.1] ata1.00: {EXC}\n[ 9.1] ata1.00: {FC}\n[ 9.1] ata1.00: {CMD}\n"
                         f"[ 9.1]          {RES}\n[ 9.1] ata1.00: {ST}\n[ 9.2] ata1: {HR}\n",
    "crlf": f"[ 9.1] ata1.00: {EXC}\r\n[ 9.1] ata1.00: {FC}\r\n[ 9.1] ata1.00: {CMD}\r\n"
            f"[ 9.1]          {RES}\r\n[ 9.1] ata1.00: {ST}\r\n[ 9.2] ata1: {HR}\r\n",
    # 10: the page lost the indentation; 03: util-linux dmesg, no stamp, indented
    "unindented-res": f"[ 9.1] ata1.00: {EXC}\n[ 9.1] ata1.00: {FC}\n[ 9.1] ata1.00: {CMD}\n"
                      f"[ 9.1] {RES}\n[ 9.1] ata1.00: {ST}\n[ 9.2] ata1: {HR}\n",
    # 05: dmesg -T, German day
    "dmesg-T": "".join(f"[Fr Aug 26 22:01:01 2022] {x}\n" for x in REPORT[:3]) +
               f"                          {RES}\n" +
               "".join(f"[Fr Aug 26 22:01:01 2022] {x}\n" for x in REPORT[4:]),
    # 09, 14: journalctl, res without a header; 32: the journal keeps both on one line
    "journalctl": "".join(f"Dec 26 08:58:49 nixos kernel: {x}\n" for x in REPORT[:3]) +
                  f"                                       {RES}\n" +
                  "".join(f"Dec 26 08:58:49 nixos kernel: {x}\n" for x in REPORT[4:]),
    "journal-one-line": f"Dec 10 18:58:49 kernel: ata1.00: {EXC}\nDec 10 18:58:49 kernel: ata1.00: {FC}\n"
                        f"Dec 10 18:58:49 kernel: ata1.00: {CMD} {RES}\n"
                        f"Dec 10 18:58:49 kernel: ata1.00: {ST}\nDec 10 18:58:49 kernel: ata1: {HR}\n",
    # 12: syslog with the kernel's stamp inside; 29: metalog "[kernel]"; 34: ISO time
    "syslog": "".join(f"Mar  7 08:24:28 bnibws03 kernel: [  375.143122] {x}\n" for x in REPORT[:3]) +
              f"Mar  7 08:24:28 bnibws03 kernel: [  375.143132]          {RES}\n" +
              "".join(f"Mar  7 08:24:28 bnibws03 kernel: [  375.143133] {x}\n" for x in REPORT[4:]),
    "metalog": "".join(f"Jan  4 10:34:35 [kernel] [155659.644533] {x}\n" for x in REPORT[:3]) +
               f"Jan  4 10:34:35 [kernel] [155659.644556]          {RES}\n" +
               "".join(f"Jan  4 10:34:35 [kernel] [155659.644565] {x}\n" for x in REPORT[4:]),
    "iso-time": "".join(f"12:15:14+11:00 kernel: {x}\n" for x in REPORT[:3]) + f"          {RES}\n" +
                "".join(f"12:15:14+11:00 kernel: {x}\n" for x in REPORT[4:]),
    # 50: rsyslog's #012 for the printk's embedded newline (and a mailer's wrap)
    "rsyslog-012": f"Jun  9 11:33:00 srv kernel: ata1.00: {EXC}\nJun  9 11:33:00 srv kernel: ata1.00: {FC}\n"
                   f"Jun  9 11:33:00 srv kernel: ata1.00: cmd\n{CMD[4:]}#012  {RES}\n"
                   f"Jun  9 11:33:00 srv kernel: ata1.00: {ST}\nJun  9 11:33:00 srv kernel: ata1: {HR}\n",
    # 37, 43: Gmail wrapped long lines (and double-spaced them); 13: a reader's ">>> "
    "mail-wrapped": f"[ 9.1] ata1.00: exception Emask 0x0 SAct 0x1 SErr 0x0 action\n0x6 frozen\n\n"
                    f"[ 9.1] ata1.00: {FC}\n\n[ 9.1] ata1.00: cmd 60/08:00:00:08:00/00:00:00:00:00/40 tag\n"
                    f"0 ncq dma 4096 in\n\n         res 40/00:00:00:00:00/00:00:00:00:00/00 Emask\n"
                    f"0x4 (timeout)\n\n[ 9.1] ata1.00: {ST}\n\n>>> [ 9.2] ata1: {HR}\n",
    # 04: printk levels; 26-28: "0×" typography
    "printk-levels": f"<3>ata1.00: {EXC}\n<3>ata1.00: {FC}\n<3>ata1.00: {CMD}\n         {RES}\n"
                     f"<3>ata1.00: {ST}\n<6>ata1: {HR}\n",
    "typography": (f"ata1.00: {EXC}\nata1.00: {FC}\nata1.00: {CMD}\n{RES}\nata1.00: {ST}\nata1: {HR}\n"
                   .replace("0x", "0\u00d7")),
    # 06, 31: a console with other lines between
    "console": f"[ 9.0] EXT4-fs (sda1): mounted filesystem\n[ 9.1] ata1.00: {EXC}\n[ 9.1] ata1.00: {FC}\n"
               f"[ 9.1] ata1.00: {CMD}\n[ 9.1]          {RES}\n[ 9.1] usb 1-1: new device\n"
               f"[ 9.1] ata1.00: {ST}\n[ 9.15] sd 0:0:0:0: [sda] tag#0 FAILED\n[ 9.2] ata1: {HR}\n",
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_reads_as_the_same_report(form, tmp_path):
    from satasim.dmesg_parse import parse
    from satasim.import_dmesg import expected_lines
    rep = parse(FORMS[form], "r.txt")
    assert expected_lines(rep) == REPORT, expected_lines(rep)
    (e,) = rep.exceptions
    (c,) = e.commands
    assert (c.opcode, c.lba, c.sectors, c.tag, c.ncq, c.emask) == (0x60, 0x800, 8, 0, True, 0x4)


def test_2_6_2x_report_has_no_failed_command_line():
    """2.6.2x printed no `failed command:` line and the data direction as `cdb 0x0 data 4096
    in` (dmesg-corpus 08, 24, 27); the LBA28 command's LBA bits 24-27 are in the device byte."""
    from satasim.dmesg_parse import parse
    rep = parse("ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x0\n"
                "ata1.00: cmd c8/00:08:8f:01:3c/00:00:00:00:00/e1 tag 0 cdb 0x0 data 4096 in\n"
                "res 51/40:00:8f:01:3c/00:00:00:00:00/01 Emask 0x9 (media error)\n"
                "ata1.00: status: { DRDY ERR }\nata1.00: error: { UNC }\n", "r.txt")
    (c,) = rep.exceptions[0].commands
    assert (c.name, c.opcode, c.lba, c.sectors, c.res_lba) == ("READ DMA", 0xc8, 0x13c018f, 8, 0x13c018f)
    assert c.error_bits == ["UNC"]


def test_a_missing_res_line_is_a_note_naming_the_line(tmp_path, capsys):
    """A cmd line whose res line the page lost (dmesg-corpus 41, 48) is read as the exception
    says (a timeout when frozen), with a note naming its line: imported, not refused."""
    rep = tmp_path / "r.txt"
    rep.write_text("[ 1.0] ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n"
                   "[ 2.0] ata1.00: exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x6 frozen\n"
                   "[ 2.0] ata1.00: failed command: READ FPDMA QUEUED\n"
                   "[ 2.0] ata1.00: cmd 60/08:00:00:08:00/00:00:00:00:00/40 tag 0 ncq dma 4096 in\n"
                   "[ 2.0] ata1.00: status: { DRDY }\n")
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    assert f"note: {rep}:3: 'failed command: READ FPDMA QUEUED' has no 'res' line after it: read as a timeout" \
        in capsys.readouterr().out
    (f,) = yaml.safe_load(out.read_text())["faults"]
    assert f["kind"] == "hang"


@pytest.mark.parametrize("text,ctype", [
    ("[ 1.0] scsi host7: ahci\n[ 1.1] ata8: SATA max UDMA/133 abar m2048@0xf7f12000 port 0xf7f12180 irq 41\n", "ahci"),
    ("[ 1.0] scsi6 : sata_sil24\n[ 1.1] ata7: SATA max UDMA/100 host m128@0xe5004000 port 0xe5000000 irq 16\n",
     "sil24"),
    ("[ 1.0] sata_sil 0000:01:00.0: version 2.4\n", "sil3112"),
    ("[ 1.0] ata_piix 0000:00:1f.1: version 2.10ac1\n", "piix"),
    ("[ 1.0] ata1: drained 65536 bytes to clear DRQ\n", "piix"),   # ata_sff's wording, no driver named
])
def test_controller_from_the_driver(text, ctype, tmp_path):
    """The controller model follows the driver of the report's ports (its SCSI host, its port
    description line, a driver line), not the first driver the log names."""
    rep = tmp_path / "r.txt"
    n = re.search(r"ata(\d+)", text)
    port = n.group(1) if n else "1"
    rep.write_text("[ 0.5] scsi host5: ata_generic\n" + text +
                   f"[ 2.0] ata{port}: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n"
                   f"[ 2.1] ata{port}.00: configured for UDMA/100\n")
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    assert spec["controller"]["type"] == ctype, spec["controller"]


def test_forced_modes_are_read_once_and_kept_to_what_satasim_models(tmp_path, capsys):
    """libata.force from the boot command line, read once (not again from its FORCE: lines),
    without values satasim does not model (atapi_dmadir), in the scenario's port numbers;
    nodma is modelled (the NODMA horkage, docs/hardware.md 10.7) and kept."""
    rep = tmp_path / "r.txt"
    rep.write_text("[ 0.0] Command line: BOOT_IMAGE=/vmlinuz ro libata.force=2.00:noncq,pio4,nodma,atapi_dmadir\n"
                   "[ 1.0] ahci 0000:00:13.0: AHCI 0001.0300 32 slots 2 ports 3 Gbps 0x2 impl SATA mode\n"
                   "[ 1.1] ata2: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n"
                   "[ 1.1] ata2.00: FORCE: horkage modified (noncq)\n"
                   "[ 1.1] ata2.00: FORCE: xfer_mask set to pio4\n"
                   "[ 1.2] ata2.00: configured for PIO4\n")
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    assert yaml.safe_load(out.read_text())["host"]["force"] == "2.00:noncq,2.00:pio4,2.00:nodma"
    assert "libata.force value 'atapi_dmadir': not modelled by satasim, left out" in capsys.readouterr().out


def test_devexch_on_an_empty_port_is_a_cominit_fault(tmp_path):
    """A connector the log knows no drive on that reports DevExch alone (COMINIT bursts,
    docs/hardware.md 2.7; dmesg-corpus 22, 4.15) becomes a `cominit` fault on a port with a
    `present: false` device, a minute after boot (the boot probe, a probe trial, was long
    before on the reporter's system); a doubled exception line (console and syslog copies,
    dmesg-corpus 04) is one event."""
    rep = tmp_path / "r.txt"
    ev = ("[ {t}] ata6: exception Emask 0x10 SAct 0x0 SErr 0x4000000 action 0xe frozen\n"
          "[ {t}] ata6: irq_stat 0x00000040, connection status changed\n"
          "[ {t}] ata6: SError: {{ DevExch }}\n"
          "[ {t}] ata6: hard resetting link\n"
          "[ {t}] ata6: SATA link down (SStatus 0 SControl 300)\n"
          "[ {t}] ata6: EH complete\n")
    rep.write_text(ev.format(t="100.0") + ev.format(t="101.0").replace(
        "[ 101.0] ata6: exception", "[ 101.0] ata6: exception Emask 0x10 SAct 0x0 SErr 0x4000000 action 0xe frozen\n"
        "[ 101.0] ata6: exception", 1))
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    assert spec["devices"] == [{"port": 5, "present": False, "capacity": 1953525168, "timing": {"kind": "ssd"}}]
    assert spec["faults"] == [{"kind": "cominit", "port": 5, "at": "61000ms"},
                              {"kind": "cominit", "port": 5, "at": "62000ms"}]


def test_an_unplug_carries_the_line_noise_its_serror_shows(tmp_path):
    """SErr 0x4090800 on a pull (Intel C620, dmesg-corpus 42): DevExch, 10B8B and HostInt
    besides PHYRdyChg, the unplug fault's noise."""
    rep = tmp_path / "r.txt"
    rep.write_text("[ 1.0] ata7: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n"
                   "[ 1.1] ata7.00: configured for UDMA/133\n"
                   "[ 9.0] ata7: exception Emask 0x50 SAct 0x0 SErr 0x4090800 action 0xe frozen\n"
                   "[ 9.0] ata7: irq_stat 0x00400040, connection status changed\n"
                   "[ 9.0] ata7: SError: { HostInt PHYRdyChg 10B8B DevExch }\n"
                   "[ 9.0] ata7: hard resetting link\n"
                   "[ 9.7] ata7: SATA link down (SStatus 0 SControl 300)\n"
                   "[ 9.7] ata7.00: disabled\n")
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    (f,) = yaml.safe_load(out.read_text())["faults"]
    assert (f["kind"], f["noise"]) == ("unplug", ["cominit", "decode", "internal"]), f


def test_a_drive_plugged_back_is_plugged_at_its_exception(tmp_path):
    """A pulled drive comes back (dmesg-corpus 42, 4.x): the plug's exception shows the OOB the
    PHY ran with it (RecovComm PHYRdyChg CommWake DevExch), and its hardreset brings the link
    up 2 s later after a speed limit. The drive was plugged at that exception (its COMINIT
    raised it), not at the link-up line; a plug exception that shows only DevExch (a COMINIT
    the PHY has not answered yet) still plugs at the link-up."""
    rep = tmp_path / "r.txt"
    head = ("[ 1.0] ata7: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n"
            "[ 1.1] ata7.00: configured for UDMA/133\n"
            "[ 9.0] ata7: exception Emask 0x10 SAct 0x0 SErr 0x4010000 action 0xe frozen\n"
            "[ 9.0] ata7: irq_stat 0x00400040, connection status changed\n"
            "[ 9.0] ata7: SError: { PHYRdyChg DevExch }\n"
            "[ 9.0] ata7: hard resetting link\n"
            "[ 9.7] ata7: SATA link down (SStatus 0 SControl 300)\n"
            "[ 9.7] ata7.00: disabled\n"
            "[ 9.7] ata7: EH complete\n"
            "[ 30.0] ata7: exception Emask 0x10 SAct 0x0 SErr {serr} action 0xe frozen\n"
            "[ 30.0] ata7: irq_stat 0x00000040, connection status changed\n"
            "[ 30.0] ata7: hard resetting link\n"
            "[ 32.0] ata7: SATA link up 1.5 Gbps (SStatus 113 SControl 310)\n"
            "[ 32.0] ata7.00: configured for UDMA/133\n"
            "[ 32.0] ata7: EH complete\n")
    out = tmp_path / "s.yaml"
    for serr, after_pull_ms in (("0x4050002", 21000), ("0x4000000", 23000)):
        rep.write_text(head.replace("{serr}", serr))
        assert do_import(rep, out) == 0
        faults = yaml.safe_load(out.read_text())["faults"]
        assert [f["kind"] for f in faults] == ["unplug", "plug"], faults
        pull, plug = (int(f["at"][:-2]) for f in faults)
        assert plug - pull == after_pull_ms, (serr, faults)


def test_a_drive_that_appears_on_an_empty_port_is_plugged(tmp_path):
    """The boot finds the port empty, then a connection exception whose SError shows the
    drive's OOB with the PHY (RecovComm PHYRdyChg CommWake DevExch, dmesg-corpus 06): a drive
    plugged at that exception (a `plug` fault on a `present: false` entry), not COMINIT
    noise on an empty connector (which reads DevExch alone)."""
    rep = tmp_path / "r.txt"
    rep.write_text("[ 21.4] ata1: SATA link down (SStatus 0 SControl 300)\n"
                   "[ 21.5] ata1: exception Emask 0x10 SAct 0x0 SErr 0x4050002 action 0xe frozen\n"
                   "[ 21.5] ata1: irq_stat 0x00400040, connection status changed\n"
                   "[ 21.5] ata1: SError: { RecovComm PHYRdyChg CommWake DevExch }\n"
                   "[ 21.5] ata1: hard resetting link\n")
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    assert [d.get("present") for d in spec["devices"]] == [False], spec["devices"]
    assert [f["kind"] for f in spec["faults"]] == ["plug"], spec["faults"]


def test_taskfile_faults_from_the_res_registers(tmp_path):
    """A DMA command that timed out on a taskfile channel with DRDY in its res line was done:
    its interrupt was lost (lost_irq, not a drive stuck busy); a 2.6.2x report's error bits
    come from its res line (no `error:` line then: 51/04 is ABRT); a 2.6.2x description in
    parentheses names the controller (BMDMA2: sata_sil)."""
    rep = tmp_path / "r.txt"
    rep.write_text("ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x6 frozen\n"
                   "ata1.00: failed command: READ DMA\n"
                   "ata1.00: cmd c8/00:08:00:00:00/00:00:00:00:00/e0 tag 0 dma 4096 in\n"
                   "         res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x4 (timeout)\n"
                   "ata1.00: status: { DRDY }\n"
                   "ata1: soft resetting link\n"
                   "ata1.00: configured for UDMA/100\n"
                   "ata1: EH complete\n")
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    assert spec["controller"]["type"] == "piix" and spec["faults"][0]["kind"] == "lost_irq", spec
    rep.write_text("ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x0\n"
                   "ata1.00: (BMDMA2 stat 0x696d0009)\n"
                   "ata1.00: cmd c8/00:08:b7:16:34/00:00:00:00:00/eb tag 0 cdb 0x0 data 4096 in\n"
                   "         res 51/04:00:be:16:34/00:00:12:00:00/eb Emask 0x1 (device error)\n"
                   "ata1.00: configured for UDMA/100\n"
                   "ata1: EH complete\n")
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    assert spec["controller"]["type"] == "sil3112", spec["controller"]
    (f,) = spec["faults"]
    assert (f["kind"], f["error"]) == ("media_error", "abrt"), f


def test_fan_out_links_name_a_port_multiplier(tmp_path):
    """SCR and link messages of ataN.02 and up are a PMP's fan-out links (a PATA slave is
    ataN.01 and has no SCRs): the port gets a PMP, not a taskfile channel (dmesg-corpus 38)."""
    rep = tmp_path / "r.txt"
    rep.write_text("ata7.00: failed to read SCR 1 (Emask=0x40)\n"
                   "ata7.01: failed to read SCR 1 (Emask=0x40)\n"
                   "ata7.02: failed to read SCR 1 (Emask=0x40)\n"
                   "ata7.00: exception Emask 0x100 SAct 0x200000 SErr 0x0 action 0x6 frozen\n"
                   "ata7.00: failed command: WRITE FPDMA QUEUED\n"
                   "ata7.00: cmd 61/0b:a8:da:66:d1/00:00:08:00:00/40 tag 21 ncq dma 5632 out\n"
                   "         res 40/00:00:01:4f:c2/00:00:00:00:00/00 Emask 0x4 (timeout)\n"
                   "ata7.00: status: { DRDY }\n")
    out = tmp_path / "s.yaml"
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    assert spec["controller"]["type"] == "ahci" and spec["pmps"][0]["port"] == 6, spec


CORPUS = Path(__file__).resolve().parent / "fixtures" / "dmesg-corpus"


def test_resets_that_fail_after_an_interface_error_hang_the_drive(tmp_path):
    """dmesg-corpus 39 (ASMedia, 4.x): an interface fatal error (BadCRC, 10B8B) on queued reads,
    then every reset of EH finds no drive answering ("softreset failed (1st FIS failed)" four
    times, the speed lowered before the last, "reset failed, giving up", "disable device").
    The CRC errors alone give a drive that answers the first COMRESET (25 of 34 lines, the
    device configured again); a hang behind them, fired inside EH's first COMRESET and held
    through every reset (EH gave up), gives the log's reset sequence and the disabled
    device. The run passes and matches 31 of the 34 decision lines (the other 3 are the
    res lines' Count byte, the drive's last Register FIS)."""
    out = tmp_path / "c39.yaml"
    assert do_import(next(CORPUS.glob("39-*.log")), out) == 0
    spec = yaml.safe_load(out.read_text())
    by_kind = {f["kind"]: f for f in spec["faults"]}
    assert set(by_kind) == {"crc", "hang"}, spec["faults"]
    reads = [w for w in spec["workload"] if w["op"] == "read"]
    issued = int(reads[0]["delay"][:-2])
    assert by_kind["hang"] == {"kind": "hang", "port": 7, "at": f"{issued + 50}ms", "comresets": 1000}
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr     # the run passes (the device is gone)
    matched, total, _ = diff(out.with_suffix(".expected"), tmp_path / "out" / "c39")
    assert (matched, total) == (31, 34)


def test_an_identify_timeout_at_revalidation_is_a_drive_that_hangs_on_it(tmp_path):
    """dmesg-corpus 48 (ahci, 4.x): after a host bus error on ata7 the first reset brings the
    link up, the revalidation's IDENTIFY times out ("qc timeout (cmd 0xec)", "failed to
    IDENTIFY (I/O error, err_mask=0x4)"), and the four resets after it fail ("softreset
    failed (1st FIS failed)", "reset failed, giving up"). An aborted IDENTIFY (identify_fail,
    err_mask 0x1) is not that drive: it answers every reset. A hang on the IDENTIFY, held
    through every reset, is: the run shows the log's five resets and its "reset failed,
    giving up" (8 of the 26 lines before, 11 then; ata8's half is an HBA internal error:
    test_a_frozen_exception_without_irq_stat_is_a_timeout). ata7's own error is "irq_stat
    0xffffffff, unknown FIS 00000000 ..., host bus" with Emask 0x32 action 0xe: libahci
    decoding a PxIS read that came back all ones (every bit: TFES, UFS, HBFS, IFS, PCS), its
    description cut at libata's 80 bytes. Before the hba_error fault a plain host bus error
    stood in (Emask 0x20 action 0x6, "irq_stat 0x20000000, host bus error": 21 of 26); now an
    hba_error with irq all_ones gives both lines (25 of 26). The log's first link-up of ata7
    already has SControl 310, a speed limit set before the excerpt (libata.force or an earlier
    speed-down, which the report cannot tell apart): host.force 7:1.5Gbps stands in, 26 of 26."""
    out = tmp_path / "c48.yaml"
    assert do_import(next(CORPUS.glob("48-*.log")), out) == 0
    sc = yaml.safe_load(out.read_text())
    assert sc["host"]["force"] == "7:1.5Gbps", sc["host"]
    faults = sc["faults"]
    assert [f["kind"] for f in faults] == ["hba_error", "hang", "hang", "hba_error"], faults
    assert faults[0] == {"kind": "hba_error", "port": 6, "on_cmd": {"op": "read", "lba": [2543360, 2543615]},
                         "error": "host_bus_fatal", "irq": "all_ones"}
    assert faults[1] == {"kind": "hang", "port": 6, "on_cmd": {"op": "identify"}, "comresets": 1000}
    run([out], tmp_path / "out")
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c48")
    assert (matched, total) == (26, 26), "\n".join(text)
    got = (tmp_path / "out" / "c48" / "satasim.log").read_text()
    assert "ata7: SATA link up 1.5 Gbps (SStatus 113 SControl 310)" in got
    assert "ata7.00: exception Emask 0x32 SAct 0x0 SErr 0x0 action 0xe frozen" in got
    assert "ata7.00: irq_stat 0xffffffff, unknown FIS 00000000 00000000 00000000 00000000, host bus" in got
    log = (tmp_path / "out" / "c48" / "satasim.log").read_text()
    assert "ata7.00: failed to IDENTIFY (I/O error, err_mask=0x4)" in log
    assert "ata7: reset failed, giving up" in log


def test_identify_timeouts_in_the_probe_are_a_drive_that_hangs_on_identify(tmp_path):
    """dmesg-corpus 45 (Marvell 88SE6121 ahci, 6.2): the boot probe's IDENTIFY of ata3 times
    out three times ("failed to IDENTIFY (I/O error, err_mask=0x4)"), libata resetting the
    link between them and lowering its speed to 1.5 Gbps before the last try. The drive
    answers every COMRESET and hangs on IDENTIFY: a hang on IDENTIFY from power-on, three
    times. The run shows the log's link-ups at 3.0 and 1.5 Gbps and the speed limit: all 7
    decision lines (3 before, the drive configured at once)."""
    out = tmp_path / "c45.yaml"
    assert do_import(next(CORPUS.glob("45-*.log")), out) == 0
    faults = yaml.safe_load(out.read_text())["faults"]
    assert faults == [{"kind": "hang", "port": 2, "on_cmd": {"op": "identify"}, "from_power_on": True,
                       "repeat": 3}], faults
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c45")
    assert (matched, total) == (7, 7), "\n".join(text)
    log = (tmp_path / "out" / "c45" / "satasim.log").read_text()
    assert log.count("ata3.00: failed to IDENTIFY (I/O error, err_mask=0x4)") == 3, log



def test_a_set_xfermode_failure_in_the_probe_is_a_drive_that_hangs_on_it(tmp_path):
    """dmesg-corpus 53 (ahci on an LX2160A, 6.x): the probe's READ LOG EXT times out ("qc
    timeout (cmd 0x2f)") and freezes the port, so the SET XFERMODE after it is refused
    ("failed to set xfermode (err_mask=0x40)", AC_ERR_SYSTEM); libata lowers the link speed on
    the device's last try but one and disables it on the last. The stack reads no log at
    probe: the importer hangs the drive on SET FEATURES (0xef) from power-on, three times
    (ATA_EH_DEV_TRIES, the log ends in "disabled"). Before: no fault, the drive configured at
    once, 1 of 12 lines. Now the run shows the speed limits (the link's, and the PIO mode's on
    the last try but one: libata-eh.c ata_eh_handle_dev_fail, "if (dev->pio_mode >
    XFER_PIO_0)", for a UDMA device too: 4 of 12 before the stack did that), the 3.0 Gbps
    link-up and the disabled device: 5 of 12. The last SET XFERMODE's timeout froze the port
    and left EH pending (libata's ata_do_link_abort, abort_sets_pending), so one more EH run
    resets the frozen port after the disable: the first of the seven link-ups after it, 6 of
    12 (not yet: the other six, each 480 ms after the last, and that run's quiet wording)."""
    out = tmp_path / "c53.yaml"
    assert do_import(next(CORPUS.glob("53-*.log")), out) == 0
    faults = yaml.safe_load(out.read_text())["faults"]
    assert faults == [{"kind": "hang", "port": 1, "on_cmd": {"opcode": 0xef}, "from_power_on": True,
                       "repeat": 3}], faults
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c53")
    assert (matched, total) == (6, 12), "\n".join(text)
    log = (tmp_path / "out" / "c53" / "satasim.log").read_text()
    assert log.count("ata2.00: failed to set xfermode (err_mask=0x4)") == 3, log
    assert "ata2: limiting SATA link speed to 3.0 Gbps" in log and "ata2.00: disabled" in log, log
    assert "ata2.00: limiting speed to UDMA/133:PIO3" in log, log


def test_phy_events_without_a_hotplug_mean_link_power_management(tmp_path):
    """dmesg-corpus 12 (TLP's SATA link power setting, ahci): NCQ writes time out, the
    exception's SError shows PHYRdyChg and CommWake and its action is 0x6, no hotplug. libata's
    autopsy takes SError.N as a hotplug (action 0xe) unless the link's LPM policy is above
    max_performance ("hotplug doesn't work w/ LPM", ata_eh_analyze_serror), and ahci then
    masks the PhyRdy interrupt: the bits are the link's wake-ups from Slumber, latched while
    nobody looked. The importer runs the port under med_power_with_dipm with a drive that
    takes HIPM/DIPM: the SError line and the exception's SErr match, 13 of 13 (11 before,
    SErr 0x0). A log whose PHY events came with a hotplug action (42) keeps LPM off."""
    out = tmp_path / "c12.yaml"
    _, _, notes = import_report(next(CORPUS.glob("12-*.log")), out)
    scen = yaml.safe_load(out.read_text())
    assert scen["host"]["lpm_policy"] == "med_power_with_dipm", scen["host"]
    assert scen["controller"]["lpm"] is True, scen["controller"]
    assert all(d["hipm"] and d["dipm"] for d in scen["devices"]), scen["devices"]
    assert any(n.startswith("1: SError's PHYRdyChg/DevExch with no hotplug") for n in notes), notes
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c12")
    assert (matched, total) == (13, 13), "\n".join(text)
    other = tmp_path / "c42.yaml"
    import_report(next(CORPUS.glob("42-*.log")), other)
    scen = yaml.safe_load(other.read_text())
    assert "lpm_policy" not in scen.get("host", {}) and "lpm" not in scen["controller"], scen


def test_a_timeout_with_commwake_and_no_interrupt_under_lpm_is_a_failed_wake_up(tmp_path):
    """dmesg-corpus 35 (6.11+, whose default policy med_power_with_dipm the report blames):
    "exception Emask 0x10 SAct 0x0 SErr 0xf0100 action 0x6 frozen", "SError: { UnrecovData
    PHYRdyChg PHYInt CommWake 10B8B }", no irq_stat line, the FLUSH's res "Emask 0x14 (ATA
    bus error)". ahci masks the PhyRdy interrupt under LPM (ahci_set_lpm), so nothing told
    libata the link was lost: the command timed out (AC_ERR_TIMEOUT) and the autopsy read the
    link's noise from SError (UnrecovData: AC_ERR_ATA_BUS). CommWake is the wake-up the
    command needed: the drive's PHY did not answer it (lpm_fail no_comwake) and garbled the
    line (noise decode: 10B8B; phy: PHYInt and UnrecovData). Before, a phy_flap on the command
    gave an interface fatal error (irq_stat 0x08000000, Emask 0x10) and SErr 0x440100. The
    flush keeps its block-layer tag (libata prints "tag 10" for it: a request like any other)."""
    out = tmp_path / "c35.yaml"
    _, _, notes = import_report(next(CORPUS.glob("35-*.log")), out)
    scen = yaml.safe_load(out.read_text())
    wake = [f for f in scen["faults"] if f["kind"] == "lpm_fail"]
    assert len(wake) == 1 and wake[0]["how"] == "no_comwake" and wake[0]["wakes"] == 1, scen["faults"]
    assert sorted(wake[0]["noise"]) == ["decode", "phy"], wake
    flush = next(w for w in scen["workload"] if w.get("op") == "flush")
    assert flush["tag"] == 10 and int(wake[0]["at"][:-2]) < int(flush["delay"][:-2]), (flush, wake)
    assert not any(f["kind"] == "phy_flap" for f in scen["faults"]), scen["faults"]
    assert any("did not answer the wake-up (lpm_fail)" in n for n in notes), notes
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c35" / "satasim.log").read_text()
    assert "ata1.00: exception Emask 0x10 SAct 0x0 SErr 0xf0100 action 0x6 frozen" in log, log
    assert "ata1: SError: { UnrecovData PHYRdyChg PHYInt CommWake 10B8B }" in log, log
    assert "ata1.00: cmd e7/00:00:00:00:00/00:00:00:00:00/a0 tag 10" in log, log
    assert "irq_stat" not in log, log
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c35")
    assert (matched, total) == (13, 17), "\n".join(text)


def test_an_internal_command_timeout_leaves_eh_pending(tmp_path):
    """dmesg-corpus 35 (6.11+, med_power_with_dipm): the revalidation's third IDENTIFY times
    out and EH disables the drive; then the link comes up once more with no "hard resetting
    link" before it. libata's ata_do_link_abort marks EH pending whatever it aborts
    (ata_eh_set_pending, 2.6.21 on), so the timed-out internal command asks for another EH
    run; that run (no failed command: quiet in 6.x) resets the frozen port. Before, the stack
    marked EH pending only when nothing was in flight, and under LPM (no PhyRdy interrupt to
    ask instead) the run ended at the disable: 9 of 17, the last link-up missing."""
    out = tmp_path / "c35.yaml"
    import_report(next(CORPUS.glob("35-*.log")), out)
    assert yaml.safe_load(out.read_text())["host"]["lpm_policy"] == "med_power_with_dipm"
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c35" / "satasim.log").read_text()
    after = log[log.index("ata1.00: disable device"):]
    assert "ata1: SATA link up 1.5 Gbps (SStatus 113 SControl 310)" in after, log
    assert "hard resetting link" not in after and "exception" not in after, log
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c35")
    assert (matched, total) == (13, 17), "\n".join(text)


def test_a_reset_puts_the_pio_mode_back_to_pio0(tmp_path):
    """dmesg-corpus 42 (4.x, a pulled drive): EH resets the empty link three times, the
    revalidation failing after each, and disables the drive; the log lowers no PIO mode.
    libata's ata_eh_reset sets every device's pio_mode to PIO0 before it resets (a reset
    puts the drive back in its default mode), so the last-chance PIO step of
    ata_eh_handle_dev_fail ("if (dev->pio_mode > XFER_PIO_0)") finds nothing to lower after
    a reset; the stack kept the mode of the last SET XFERMODE and printed "limiting speed to
    UDMA/133:PIO3" in each pull's run. (After a failed SET XFERMODE, with no reset between,
    it still lowers it: test_a_set_xfermode_failure_in_the_probe_is_a_drive_that_hangs_on_it.)"""
    out = tmp_path / "c42.yaml"
    import_report(next(CORPUS.glob("42-*.log")), out)
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c42" / "satasim.log").read_text()
    assert log.count("ata7.00: disabled") == 2, log
    assert "limiting speed to UDMA/133:PIO" not in log, log


def test_a_frozen_exception_without_irq_stat_is_a_timeout(tmp_path):
    """dmesg-corpus 48 (5.4 ahci, mail-wrapped: no res lines): ata8's READ DMA fails 32 s
    after ata7's error with "exception Emask 0x40 ... SErr 0x800 action 0x6 frozen" and no
    irq_stat line; EH's four resets fail and it gives up. ahci describes every error interrupt
    ("irq_stat 0x%08x", as this log's ata7 shows), so a frozen exception without one was no
    interrupt: the command timed out (the SCSI timer froze the port) and Emask 0x40 is what the
    autopsy read from SError.E. Before, the command was read as Emask 0x40 alone, "no fault
    kind for it", nothing injected and the run failed with ata8 still present: 11 of 26; then
    ata8's drive hung on that read through every COMRESET (21 of 26, the exception and SError
    lines differing: Emask 0x0, no HostInt). Now the HBA's internal error is the hba_error
    fault with irq none (SError.ERR.E latched, no PxIS bit: the engine stops and the read
    times out), and a drive hang armed as EH's first reset starts stands in for the port that
    executes nothing after it: 25 of 26, the run passes (26 with ata7's earlier speed limit:
    test_an_identify_timeout_at_revalidation_is_a_drive_that_hangs_on_it)."""
    out = tmp_path / "c48.yaml"
    _, _, notes = import_report(next(CORPUS.glob("48-*.log")), out)
    faults = yaml.safe_load(out.read_text())["faults"]
    assert {"kind": "hba_error", "port": 7, "on_cmd": {"op": "read", "lba": [4875264, 4875519]},
            "error": "internal", "irq": "none"} in faults, faults
    hang = next(f for f in faults if f["kind"] == "hang" and f["port"] == 7)
    assert hang["comresets"] == 1000 and "at" in hang, faults
    assert any(n.startswith("23: 'failed command: READ DMA' has no 'res' line after it: read as a timeout")
               for n in notes), notes
    assert any(n.startswith("20: the resets after the HBA's internal error failed") for n in notes), notes
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c48")
    assert (matched, total) == (26, 26), "\n".join(text)
    got = (tmp_path / "out" / "c48" / "satasim.log").read_text()
    assert "ata8.00: exception Emask 0x40 SAct 0x0 SErr 0x800 action 0x6 frozen" in got
    assert "ata8: SError: { HostInt }" in got

KILLABLE = r"""
import os, sys, time
sys.path.insert(0, {harness!r})
import satasim.import_dmesg as imp
stage = {stage!r}
if stage == "writing":          # the texts are written, nothing is named yet
    def pause(fd, dst):
        print("ready", flush=True)
        time.sleep(60)
    imp._link_fd = pause
else:                           # the scenario is in place, the .expected not yet
    real = os.replace
    def pause(src, dst):
        if str(dst).endswith(".expected"):
            print("ready", flush=True)
            time.sleep(60)
        return real(src, dst)
    os.replace = pause
sys.exit(imp.main([{report!r}, "-o", {out!r}]))
"""


@pytest.mark.parametrize("stage,sig", [("writing", "SIGKILL"), ("writing", "SIGTERM"),
                                       ("placing", "SIGTERM"), ("placing", "SIGHUP"), ("placing", "SIGINT")])
def test_a_killed_import_leaves_nothing_behind(stage, sig, tmp_path):
    """Issue 31: `satasim import-dmesg` never leaves a partial file. An import killed while
    it writes (the texts are in files that have no name yet: even SIGKILL leaves nothing) or
    stopped by SIGTERM/SIGHUP/SIGINT after its scenario is in place and before its .expected
    is: the folder is as it was (an earlier scenario there is put back), no temporary file is
    left, and the process ends by that signal."""
    import signal
    out = tmp_path / "s.yaml"
    out.write_text("# an earlier scenario\n")
    before = sorted(os.listdir(tmp_path))
    code = KILLABLE.format(harness=str(Path(__file__).resolve().parents[1]), stage=stage,
                           report=str(FIXTURES / "flush-error.txt"), out=str(out))
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "ready\n", p.stderr.read()
    signum = getattr(signal, sig)
    p.send_signal(signum)
    p.wait(timeout=30)
    assert p.returncode == -signum, (p.returncode, p.stderr.read())
    assert sorted(os.listdir(tmp_path)) == before, os.listdir(tmp_path)
    assert out.read_text() == "# an earlier scenario\n"
    assert leftovers(tmp_path) == []


def test_identify_timeouts_after_resets_that_work_hang_once_per_identify(tmp_path):
    """dmesg-corpus 35 (5.x, LPM): after a bus error on FLUSH CACHE every reset brings the link
    up ("SATA link up 3.0 Gbps", twice, then 1.5 Gbps after the speed limit) and each
    revalidation's IDENTIFY times out (5, 10, 30 s), then "disable device". The drive answers
    each COMRESET: a hang on IDENTIFY that a COMRESET ends, three times (not a drive that
    never answers a reset again, which would print "COMRESET failed"). 10 of the 17 lines
    (8 with a hang held through every reset); under LPM (the PhyRdy interrupt masked) the last
    link-up is EH's own run after the disable (the IDENTIFY timeout left EH pending)."""
    out = tmp_path / "c35.yaml"
    assert do_import(next(CORPUS.glob("35-*.log")), out) == 0
    faults = yaml.safe_load(out.read_text())["faults"]
    assert faults[-1] == {"kind": "hang", "port": 0, "on_cmd": {"op": "identify"}, "repeat": 3}, faults
    run([out], tmp_path / "out")
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c35")
    assert (matched, total) == (13, 17), "\n".join(text)
    log = (tmp_path / "out" / "c35" / "satasim.log").read_text()
    assert log.count("ata1.00: failed to IDENTIFY (I/O error, err_mask=0x4)") == 3
    assert "COMRESET failed" not in log


def test_the_era_of_the_wording_picks_the_profile(tmp_path):
    """The cmd line's wording names the kernel's era: 2.6.20-2.6.23's "tag 0 cdb 0x0 data
    4096 in" with no status lines (ata_eh_report's one printk; 2.6.24 added "status: { }"):
    libata-2.6.20 (dmesg corpus 08, 24); "ncq dma" (4.9 on) with "disabled" (until 5.16):
    libata-4.9 (41); the same cdb wording with status lines is 2.6.24 on: not libata-2.6.20."""
    rep, out = tmp_path / "r.txt", tmp_path / "s.yaml"
    rep.write_text("ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x0\n"
                   "ata1.00: cmd c8/00:08:b7:16:34/00:00:00:00:00/eb tag 0 cdb 0x0 data 4096 in\n"
                   "         res 51/04:00:be:16:34/00:00:12:00:00/eb Emask 0x1 (device error)\n"
                   "ata1.00: configured for UDMA/100\nata1: EH complete\n")
    assert do_import(rep, out) == 0
    assert yaml.safe_load(out.read_text())["host"] == {"eh_policy": "libata-2.6.20"}
    rep.write_text(rep.read_text().replace("ata1.00: configured", "ata1.00: status: { DRDY ERR }\n"
                                           "ata1.00: configured"))
    assert do_import(rep, out) == 0
    assert yaml.safe_load(out.read_text()).get("host", {}).get("eh_policy") != "libata-2.6.20"
    rep.write_text("ata8.00: exception Emask 0x0 SAct 0x40 SErr 0x0 action 0x6 frozen\n"
                   "ata8.00: failed command: READ FPDMA QUEUED\n"
                   "ata8.00: cmd 60/08:30:a8:36:e4/00:00:37:00:00/40 tag 6 ncq dma 4096 in\n"
                   "         res 40/00:00:00:00:00/00:00:00:00:00/40 Emask 0x4 (timeout)\n"
                   "ata8.00: status: { DRDY }\nata8: hard resetting link\n"
                   "ata8: COMRESET failed (errno=-16)\nata8: reset failed, giving up\n"
                   "ata8.00: disabled\nata8: EH complete\n")
    assert do_import(rep, out) == 0
    assert yaml.safe_load(out.read_text())["host"] == {"eh_policy": "libata-4.9"}


def test_a_users_non_data_command_is_an_ata_pass_through(tmp_path):
    """hdparm -B 254 on a drive without APM (dmesg corpus 24): SET FEATURES 05h, no data,
    aborted. It reached libata through the SCSI layer's ATA PASS-THROUGH; the step carries the
    cmd line's taskfile (SAT-4 ATA PASS-THROUGH(16): protocol 3, non-data) and expects the
    CHECK CONDITION an aborted command gives; no fault (the drive aborts it itself)."""
    rep, out = tmp_path / "r.txt", tmp_path / "s.yaml"
    rep.write_text("ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x0\n"
                   "ata1.00: cmd ef/05:fe:00:00:00/00:00:00:00:00/40 tag 0 cdb 0x0 data 0\n"
                   "res 51/04:fe:00:00:00/00:00:00:00:00/40 Emask 0x1 (device error)\n"
                   "ata1.00: configured for UDMA/133\nata1: EH complete\n")
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    (step,) = spec["workload"]
    assert step["kind"] == "scsi" and step["expect_status"] == "check_condition", step
    assert step["cdb"] == "85 06 00 00 05 00 fe 00 00 00 00 00 00 40 ef 00", step
    assert spec["faults"] == [], spec["faults"]


def test_a_speed_down_after_the_last_eh_run_is_one_more_failure(tmp_path):
    """libata prints "limiting speed to ..." in the autopsy of an EH run (ata_eh_speed_down,
    before its exception report): an excerpt whose last line is one, after the port's "EH
    complete", ends inside the next run: the command failed once more (dmesg corpus 01:
    a READ DMA whose interrupt is lost three times, the third speed-down the excerpt's end)."""
    rep, out = tmp_path / "r.txt", tmp_path / "s.yaml"
    run = ("ata1.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x6 frozen\n"
           "ata1.00: failed command: READ DMA\n"
           "ata1.00: cmd c8/00:08:00:00:00/00:00:00:00:00/e0 tag 0 dma 4096 in\n"
           "         res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x4 (timeout)\n"
           "ata1.00: status: { DRDY }\nata1: soft resetting link\n"
           "ata1.00: configured for UDMA/100\nata1: EH complete\n")
    rep.write_text(run + "ata1.00: limiting speed to UDMA/66:PIO4\n" + run)
    assert do_import(rep, out) == 0
    (f,) = yaml.safe_load(out.read_text())["faults"]
    assert (f["kind"], f["repeat"]) == ("lost_irq", 2), f
    rep.write_text(rep.read_text() + "ata1.00: limiting speed to UDMA/33:PIO4\n")
    assert do_import(rep, out) == 0
    (f,) = yaml.safe_load(out.read_text())["faults"]
    assert (f["kind"], f["repeat"]) == ("lost_irq", 3), f


def test_an_interface_error_cut_off_before_its_commands_is_planted_from_its_serror(tmp_path):
    """An excerpt that ends after an interface error's SError line (dmesg corpus 18): no
    failed command to go by. Handshk (SError DIAG.H, the device R_ERRed a FIS the host sent)
    is a write's Data FIS corrupted on its way out (crc h2d), BadCRC one coming in (d2h); the
    queue is the exception's SAct (the write at its lowest tag). An excerpt that goes on after
    the exception is not cut there: nothing is planted."""
    rep, out = tmp_path / "r.txt", tmp_path / "s.yaml"
    exc = ("[  100.000000] ata2.00: exception Emask 0x10 SAct 0x1000d7e0 SErr 0x400100 action 0x6 frozen\n"
           "[  100.000001] ata2.00: irq_stat 0x08000000, interface fatal error\n"
           "[  100.000002] ata2: SError: { UnrecovData Handshk }\n")
    rep.write_text("[   90.000000] ata2.00: configured for UDMA/133\n" + exc)
    assert do_import(rep, out) == 0
    spec = yaml.safe_load(out.read_text())
    (f,) = spec["faults"]
    assert (f["kind"], f["dir"], f["fis"], f["on_cmd"]["op"]) == ("crc", "h2d", "data", "write"), f
    tags = sorted(w["tag"] for w in spec["workload"])
    assert tags == [5, 6, 7, 8, 9, 10, 12, 14, 15, 28], tags
    (w,) = [w for w in spec["workload"] if w["op"] == "write"]
    assert w["tag"] == 5 and w["mode"] == "ncq", w
    rep.write_text(rep.read_text().replace("Handshk", "BadCRC").replace("0x400100", "0x200100"))
    assert do_import(rep, out) == 0
    (f,) = yaml.safe_load(out.read_text())["faults"]
    assert (f["dir"], f["on_cmd"]["op"]) == ("d2h", "read"), f
    rep.write_text("[   90.000000] ata2.00: configured for UDMA/133\n" + exc +
                   "[  100.000003] ata2: hard resetting link\n")
    assert do_import(rep, out) == 0
    assert not [f for f in yaml.safe_load(out.read_text())["faults"] or [] if f["kind"] == "crc"]

def test_res_leftovers_are_the_pass_through_commands_of_their_slots(tmp_path):
    """dmesg-corpus 32 (6.x, ahci): fifteen NCQ commands time out together; libata reads no
    result for a timeout, so each res line shows DRDY and what its slot kept (dmesg_rtf):
    tag 13 Count FFh (CHECK POWER MODE), 14 Count 01h (IDENTIFY DEVICE), 16 and 23 4Fh/C2h
    (SMART RETURN STATUS), 29 Count 01h with 4Fh/C2h (SMART READ DATA). The import issues
    each as an ATA PASS-THROUGH (16) on its tag before the report's requests, and the run's
    res lines are the report's (96 of 111 before; the rest is the retries' regrouping)."""
    out = tmp_path / "c32.yaml"
    assert do_import(next(CORPUS.glob("32-*.log")), out) == 0
    spec = yaml.safe_load(out.read_text())
    steps = {w["tag"]: w["cdb"] for w in spec["workload"] if w.get("kind") == "scsi"}
    assert steps == {
        13: "85 06 00 00 00 00 00 00 00 00 00 00 00 00 e5 00",
        14: "85 08 0e 00 00 00 01 00 00 00 00 00 00 00 ec 00",
        16: "85 06 00 00 da 00 00 00 00 00 4f 00 c2 00 b0 00",
        23: "85 06 00 00 da 00 00 00 00 00 4f 00 c2 00 b0 00",
        29: "85 08 0e 00 d0 00 01 00 00 00 4f 00 c2 00 b0 00",
    }, spec["workload"]
    assert spec["devices"][0]["smart"] == "good"
    run([out], tmp_path / "out")
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c32")
    assert (matched, total) == (101, 111), "\n".join(text)
    res = [ln for ln in text if " res " in ln and ln[0] in "+-"]
    assert not [ln for ln in res if not re.search(r"res 40/00:00:00:00:00/00:00:00:00:00/00|4f:c2|:ff:|:01:", ln)], res


def test_smart_enable_leaves_lba_low_01_in_its_slot(tmp_path):
    """dmesg-corpus 38 (4.18, ahci + 88SM9705 PMP): two NCQ writes time out on ata7.00, each
    res line "40/00:00:01:4f:c2/00:00:00:00:00/00": Count 00h, LBA low 01h, the SMART key --
    SMART ENABLE OPERATIONS (B0h/D8h), which smartmontools sends with LBA low 01h
    (atacmds.cpp: "case ENABLE: ... in.in_regs.lba_low = 1;"). The import issues it on both
    tags and the drive (smart: good) completes it with the registers as written (7 of 9
    before: no pass-through leaves these registers, and the model ABRTed ENABLE)."""
    out = tmp_path / "c38.yaml"
    assert do_import(next(CORPUS.glob("38-*.log")), out) == 0
    spec = yaml.safe_load(out.read_text())
    steps = {w["tag"]: w["cdb"] for w in spec["workload"] if w.get("kind") == "scsi"}
    assert steps == {t: "85 06 00 00 d8 00 00 00 01 00 4f 00 c2 00 b0 00" for t in (21, 26)}, spec["workload"]
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c38")
    assert (matched, total) == (9, 9), "\n".join(text)


def test_res_leftovers_no_command_leaves_are_noted(tmp_path):
    # a timeout's res registers that no pass-through command leaves (a failed command's
    # Register FIS the slot kept, dmesg-corpus 10) are noted with their line, not guessed
    log = tmp_path / "r.log"
    log.write_text(
        "[  10.000000] ata1.00: exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x6 frozen\n"
        "[  10.000000] ata1.00: failed command: READ FPDMA QUEUED\n"
        "[  10.000000] ata1.00: cmd 60/08:00:00:e1:59/00:00:a2:00:00/40 tag 0 ncq dma 4096 in\n"
        "[  10.000000]          res 40/00:10:d0:5d:a8/00:00:b2:00:00/40 Emask 0x4 (timeout)\n"
        "[  10.000000] ata1.00: status: { DRDY }\n"
        "[  10.000000] ata1: hard resetting link\n")
    out = tmp_path / "r.yaml"
    p = subprocess.run([sys.executable, "-m", "satasim.import_dmesg", str(log), "-o", str(out)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1])))
    assert p.returncode == 0, p.stderr
    # (line 3: the cmd message the res line continues)
    assert f"{log}:3: the res line's registers (left in tag 0 by an earlier command)" in p.stdout, p.stdout
    assert "kind: scsi" not in out.read_text()


def test_ncq_log_count_is_read_from_the_culprit_res_lines(tmp_path):
    """dmesg-corpus 11 (openzfs 1814): a 256-sector READ FPDMA QUEUED fails with UNC and the
    res line EH read from the NCQ log shows Count 00h/00h ("res 41/40:00:b1:4b:1c/00:00:..."),
    where a drive that logs the whole count shows 00h/01h: ncq_log_count: low_byte (15 of 18
    lines before, 17 now)."""
    out = tmp_path / "c11.yaml"
    assert do_import(next(CORPUS.glob("11-*.log")), out) == 0
    assert [d.get("ncq_log_count") for d in yaml.safe_load(out.read_text())["devices"]] == ["low_byte"]
    run([out], tmp_path / "out")
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c11")
    assert (matched, total) == (17, 18), "\n".join(text)


@pytest.mark.parametrize("log,key", [("26", "echo"), ("27", "lba_bits"), ("28", "echo"), ("31", "echo"), ("50", "echo"),
                                     ("10", None), ("11", None)])
def test_d2h_regs_is_read_from_the_res_lines(tmp_path, log, key):
    """What a drive's Register FISes carry besides Status/Error (docs/hardware.md 8.7): 28 and
    31's READ DMA fails with the command's own Count and Device ("cmd c8/00:08:40:28:1c/.../e0",
    "res 51/40:08:40:28:1c/.../e0"), 27's with Count 00h and LBA 27:24 alone ("/e1" -> "/01");
    26 and 50's failed queues show one of their commands' registers (the acceptance FIS). 10's
    timeouts show registers no command of the log has (the slot's history): no key."""
    out = tmp_path / f"c{log}.yaml"
    assert do_import(next(CORPUS.glob(f"{log}-*.log")), out) == 0
    assert [d.get("d2h_regs") for d in yaml.safe_load(out.read_text())["devices"]] == [key]



def _reset_times(trace: Path, port: int) -> list[float]:
    """The start of every EH reset of port, in seconds of simulated time."""
    out = []
    for line in trace.read_text().splitlines():
        ev = json.loads(line)
        if ev.get("ev") == "eh.reset" and ev.get("port") == port:
            out.append(ev["t_ns"] / 1e9)
    return out


def test_a_hotplug_interrupt_cuts_the_reset_cool_down_short(tmp_path):
    """libata's ata_eh_reset sleeps out ATA_EH_RESET_COOL_DOWN (5 s after the previous reset
    ended) with one schedule_timeout_uninterruptible() and does not sleep again for what is
    left; scsi_schedule_eh, which every EH scheduling calls, wakes the EH thread with
    wake_up_process(), so a PHY interrupt on the thawed port ends the cool-down and the reset
    starts then (4.x-6.x; 2.6.38 alike). dmesg-corpus 42 (a RHEL kernel, a pulled drive):
    the second and third reset come 1.35 and 1.94 s after the previous one ended, not 5 s.
    Here a drive is pulled and COMINIT bursts come 1.5 and 3.5 s later: each starts a reset
    at once, the third reset's revalidation failure disables the drive, all before the cool-
    down would have allowed the second reset. Before: resets 5 s apart, the second burst
    absorbed into the cool-down, the drive disabled 11 s after the pull."""
    scen = tmp_path / "cool.yaml"
    scen.write_text("""name: cool
seed: 1
controller: {type: ahci, ports: 1}
host: {eh_policy: libata-4.x}
devices:
  - {port: 0, capacity: 1000000}
workload: []
faults:
  - {kind: unplug, port: 0, at: 1000ms}
  - {kind: cominit, port: 0, at: 2500ms}
  - {kind: cominit, port: 0, at: 4500ms}
expect: {all_devices_found: false, io_errors_max: 0, absent_after: [0]}
""")
    r = run([scen], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    resets = _reset_times(tmp_path / "out" / "cool" / "trace.jsonl", 0)
    log = (tmp_path / "out" / "cool" / "satasim.log").read_text()
    pulled = [t for t in resets if t > 1.0]
    assert len(pulled) == 3, (resets, log)
    assert 2.5 <= pulled[1] < 3.0 and 4.5 <= pulled[2] < 5.0, (resets, log)
    assert log.count("exception Emask") == 1, log          # the bursts make no EH run of their own
    assert "ata1.00: disabled" in log and log.count("EH complete") == 1, log


def test_a_pulled_drives_early_resets_are_phy_events(tmp_path):
    """dmesg-corpus 42: each pull's EH run resets three times and disables the drive, the
    later resets 0.74-1.94 s after the previous one ended, sooner than libata's 5 s cool-down:
    a PHY event woke EH (test_a_hotplug_interrupt_cuts_the_reset_cool_down_short). The
    importer puts a cominit fault at each such reset (the pulled drive's connector), so the
    run ends when the log's did and the COMINIT bursts after it are EH runs of their own.
    Before: the first pull's run lasted 11 s and took in two of the four exceptions that
    follow it (42 of 60 lines)."""
    out = tmp_path / "c42.yaml"
    import_report(next(CORPUS.glob("42-*.log")), out)
    faults = yaml.safe_load(out.read_text())["faults"]
    assert {"kind": "cominit", "port": 6, "at": "89333ms"} in faults, faults
    assert {"kind": "cominit", "port": 6, "at": "92596ms"} in faults, faults
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c42" / "satasim.log").read_text()
    assert log.count("exception Emask") == 7, log          # as many EH runs as the log
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c42")
    # (51 before the cominit faults took CommWake, 55 before the flap's silent PHY read SStatus 0)
    assert (matched, total) == (56, 60), "\n".join(text)


def test_a_flapping_drives_silent_phy_reads_sstatus_0_and_is_back_by_the_reset_that_finds_it(tmp_path):
    """dmesg-corpus 42's flap: "hard resetting link" 194.522, "SATA link down (SStatus 0
    SControl 300)" 195.245 (0.72 s: libata's debounce returns after its duration on a steady
    DET 0; on DET 1 it waits out the deadline), the next reset 199.317 (4.80 s after the
    exception, inside the 5 s cool-down: the drive's COMINIT woke EH), link up 201.251 (the
    drive slow to answer). A host PHY reads DET 1 only after a COMINIT since its COMRESET
    (SATA 3.x 8.4; AHCI 1.3.1 3.3.10): the drive's PHY was silent. Before: the model read
    SStatus 1 (any drive on the cable), its reset took 2.2 s, and the importer had the signal
    back 0.5 s before the link-up line (down 6231ms), so with the shorter reset the cool-down
    ran out before the signal came back and a third reset found the link down again."""
    out = tmp_path / "c42.yaml"
    import_report(next(CORPUS.glob("42-*.log")), out)
    faults = yaml.safe_load(out.read_text())["faults"]
    flap = next(f for f in faults if f["kind"] == "phy_flap")
    assert flap["down"] == "4797ms", flap      # 199.316590 - 194.519970
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c42" / "satasim.log").read_text()
    run1 = log[log.index("exception Emask"):log.index("EH complete", log.index("exception Emask"))]
    assert run1.count("hard resetting link") == 2, run1
    assert "SATA link down (SStatus 0 SControl 300)" in run1, run1
    t = [float(m.group(1)) for m in re.finditer(r"\[\s*([\d.]+)\] ata7: (?:hard resetting|SATA link)", run1)]
    assert 0.5 < t[1] - t[0] < 1.0, run1       # the debounce on DET 0, not its 2 s deadline on DET 1
    assert abs((t[2] - t[0]) - 4.797) < 0.01, run1


def test_a_speed_down_of_a_link_found_down_follows_the_kernel_era(tmp_path):
    """sata_down_spd_limit with no current speed (a pulled drive's last chance: the link is
    down) forced 1.5 Gbps to 4.14 and does nothing from 4.15 (commit 2dc0b46b5ea3, found on a
    Lewisburg/C620 hotplug) to 6.1. dmesg-corpus 23 (RHEL 5/6) prints "limiting SATA link
    speed to 1.5 Gbps" after a reset found SStatus 0 -- libata-4.x's rule, no key; 42 (C620,
    RHEL, 2021) disables its drive after three link-down resets with no such line: the
    importer asks for host.spd_down_unknown: keep. Before: both printed "limiting SATA link
    speed to 3.0 Gbps" (6.2's rule) and the next reset SControl 320."""
    out23, out42 = tmp_path / "c23.yaml", tmp_path / "c42.yaml"
    import_report(next(CORPUS.glob("23-*.log")), out23)
    _, _, notes = import_report(next(CORPUS.glob("42-*.log")), out42)
    assert "spd_down_unknown" not in yaml.safe_load(out23.read_text())["host"]
    assert yaml.safe_load(out42.read_text())["host"]["spd_down_unknown"] == "keep"
    assert any("no speed-down at the last chance" in n for n in notes), notes
    r = run([out23, out42], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log23 = (tmp_path / "out" / "c23" / "satasim.log").read_text()
    assert "ata2: limiting SATA link speed to 1.5 Gbps" in log23, log23
    assert "SControl 310" in log23, log23
    log42 = (tmp_path / "out" / "c42" / "satasim.log").read_text()
    pull = log42[log42.index("exception Emask 0x50", log42.index("exception Emask 0x50") + 1):
                 log42.index("ata7.00: disabled")]
    assert "limiting SATA link speed" not in pull and "SControl 320" not in pull, log42


def test_an_empty_ports_first_exception_limited_at_once_had_two_probes_before(tmp_path):
    """dmesg-corpus 04 (a DevExch loop on a port with no drive the log knows, the excerpt
    starting at an "EH complete"): its first exception prints "limiting SATA link speed to
    1.5 Gbps" before the reset -- libata's probe trials (ata_eh_schedule_probe: more than two
    probes of the empty slot within a minute force 1.5 Gbps), so two probes of the same loop
    came before the excerpt. The importer puts two cominit faults in the minute before it;
    the run limits the link at the log's exception, the reset after it reads SControl 310,
    and the "EH complete" the excerpt starts with is the second one's. Before: 8 of 12, the
    first exception was the first trial and nothing was limited."""
    out = tmp_path / "c04.yaml"
    _, _, notes = import_report(next(CORPUS.glob("04-*.log")), out)
    faults = yaml.safe_load(out.read_text())["faults"]
    assert [f["at"] for f in faults if f["kind"] == "cominit"] == ["51000ms", "56000ms", "61000ms", "66000ms"], faults
    assert any("the third probe of the empty port within a minute" in n for n in notes), notes
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c04")
    assert (matched, total) == (10, 12), "\n".join(text)


def test_a_connectors_commwake_is_the_cominit_faults_noise(tmp_path):
    """dmesg-corpus 42 (a RHEL kernel on a C620, a drive pulled): after the pull the empty
    connector's exceptions read "SErr 0x4040000" -- "SError: { CommWake DevExch }": the bouncing
    contacts put COMWAKE-like bursts on the line beside the COMINIT ones (AHCI 1.3.1 3.3.12:
    DIAG.W, the PHY detected a COMWAKE; DIAG.X, a COMINIT). The cominit fault carries CommWake as
    `noise: [comwake]` (the AHCI port sets DIAG.W); before, the model latched DevExch alone
    ("SErr 0x4000000", "SError: { DevExch }") and 42 matched 51 of 60 lines, now 55."""
    out = tmp_path / "c42.yaml"
    import_report(next(CORPUS.glob("42-*.log")), out)
    faults = yaml.safe_load(out.read_text())["faults"]
    assert [f.get("noise") for f in faults if f["kind"] == "cominit"].count(["comwake"]) == 3, faults
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c42" / "satasim.log").read_text()
    assert log.count("ata7: exception Emask 0x10 SAct 0x0 SErr 0x4040000 action 0xe frozen") == 3, log
    assert log.count("ata7: SError: { CommWake DevExch }") == 3, log
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c42")
    assert (matched, total) == (56, 60), "\n".join(text)


def test_devexch_without_phyrdy_on_queued_commands_is_the_drives_cominit(tmp_path):
    """dmesg-corpus 15 (NixOS, 6.x, ahci): "exception Emask 0x10 SAct 0x3fc0 SErr 0x4040000 action
    0xe frozen", "irq_stat 0x00000040, connection status changed", "SError: { CommWake DevExch }",
    the queued writes failed with Emask 0x10: a COMINIT from the drive itself (PxIS.PCS, DIAG.X,
    AHCI 1.3.1 3.3.5/3.3.12) with no PhyRdy change, while it held commands -- the drive restarting.
    A cominit fault on the failed command (any trigger now, on a drive that is there) with the
    CommWake as noise; before, a phy_flap on the command (PHYRdyChg, "PHY RDY changed") matched 6 of
    11, now 9."""
    out = tmp_path / "c15.yaml"
    _, _, notes = import_report(next(CORPUS.glob("15-*.log")), out)
    faults = yaml.safe_load(out.read_text())["faults"]
    assert faults == [{"kind": "cominit", "port": 1, "on_cmd": {"op": "write", "lba": [136314880, 136314887]},
                       "noise": ["comwake"]}], faults
    assert any("the drive restarted itself" in n for n in notes), notes
    r = run([out], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "out" / "c15" / "satasim.log").read_text()
    assert "ata2: SError: { CommWake DevExch }" in log and "irq_stat 0x00000040, connection status changed" in log, log
    matched, total, text = diff(out.with_suffix(".expected"), tmp_path / "out" / "c15")
    assert (matched, total) == (9, 11), "\n".join(text)
