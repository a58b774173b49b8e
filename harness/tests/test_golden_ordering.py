"""Comparing ports as separate sequences (harness/satasim/golden.py): the caller's choice
(--unordered-ports); a golden's `# ordering: unordered-ports` header does not loosen its own
comparison (issue 30 item 9), `# ordering: in-order` is the default spelled out."""

from satasim.golden import compare_run, main, read_golden
from synthetic_trace import rec, write_run


# Two ports resetting at the same moment: the golden has ata1 first, the run ata2 first.
A1 = [rec(10_000_000, "eh.reset", port=0, msg="hard resetting link", method="hard", try_=1),
      rec(311_000_000, "probe.configured", port=0, msg="configured for UDMA/133", dev=0)]
A2 = [rec(10_000_000, "eh.reset", port=1, msg="hard resetting link", method="hard", try_=1),
      rec(311_000_000, "probe.configured", port=1, msg="configured for UDMA/133", dev=0)]


def golden_with(tmp_path, header_line):
    rec_dir = write_run(tmp_path / "rec", "two", [A1[0], A2[0], A1[1], A2[1]])
    gdir = tmp_path / "golden"
    assert main(["record", str(rec_dir), "--golden-dir", str(gdir)]) == 0
    gp = gdir / "two.ahci.golden"
    if header_line:
        lines = gp.read_text().splitlines(keepends=True)
        lines.insert(2, header_line + "\n")
        gp.write_text("".join(lines))
    return gdir


def swapped_run(tmp_path):
    return write_run(tmp_path / "run", "two", [A2[0], A1[0], A2[1], A1[1]])


def test_swapped_ports_mismatch_without_the_setting(tmp_path):
    gdir = golden_with(tmp_path, None)
    c = compare_run(swapped_run(tmp_path), gdir)
    assert c is not None and not c.ok and c.diff


def test_swapped_ports_match_with_the_callers_setting(tmp_path, capsys):
    gdir = golden_with(tmp_path, None)
    run = swapped_run(tmp_path)
    c = compare_run(run, gdir, unordered_ports=True)
    assert c is not None and c.ok, c.diff
    assert main(["compare", str(run), "--golden-dir", str(gdir), "--unordered-ports"]) == 0
    assert "golden matches" in capsys.readouterr().out


def test_the_goldens_own_setting_is_a_header_mismatch(tmp_path, capsys):
    gdir = golden_with(tmp_path, "# ordering: unordered-ports")
    assert read_golden(gdir / "two.ahci.golden").header["ordering"] == "unordered-ports"
    run = swapped_run(tmp_path)
    assert main(["compare", str(run), "--golden-dir", str(gdir)]) == 1
    assert "two.ahci.golden:3: # ordering: 'unordered-ports', the run's: none" in capsys.readouterr().out


def test_the_setting_keeps_each_ports_order(tmp_path):
    gdir = golden_with(tmp_path, None)
    # ata1's own events out of order: still a mismatch
    run = write_run(tmp_path / "run", "two", [A1[1], A2[0], A1[0], A2[1]])
    c = compare_run(run, gdir, unordered_ports=True)
    assert not c.ok and c.diff[0] == "@@@ ata1 @@@"


def test_in_order_setting_is_the_default(tmp_path):
    gdir = golden_with(tmp_path, "# ordering: in-order")
    assert not compare_run(swapped_run(tmp_path), gdir).ok


def test_bad_ordering_header_exits_2(tmp_path, capsys):
    gdir = golden_with(tmp_path, "# ordering: sometimes")
    assert main(["compare", str(swapped_run(tmp_path)), "--golden-dir", str(gdir)]) == 2
    err = capsys.readouterr().err
    assert "two.ahci.golden" in err and "bad ordering header 'sometimes'" in err


def test_update_drops_the_setting(tmp_path):
    gdir = golden_with(tmp_path, "# ordering: unordered-ports")
    run = write_run(tmp_path / "run2", "two", [A2[0], A1[0], A2[1], A1[1],
                                               rec(400_000_000, "eh.reset", port=1, msg="hard resetting link",
                                                   method="hard", try_=2)])
    assert main(["update", str(run), "--golden-dir", str(gdir)]) == 0
    g = read_golden(gdir / "two.ahci.golden")
    assert "ordering" not in g.header and len(g.events) == 5
    assert compare_run(run, gdir).ok
