"""A golden's header is checked against the run, never trusted (issue 30 item 9), and a golden
is bounded in size (item 4).

The file under test may not set how it is compared: the tolerance comes from the run (its
backend, and a run at another link level than its scenario's own, known from the scenario
file) or the command line; `# link_mode: x` used to loosen exact nanoseconds to 1 % / 10 us,
`# time_tolerance:` and `# ordering:` to whatever they said. Every other header (`# events`,
`# seed`, `# scenario`, ...) must say what `record` would write for this run."""

import json
import time
from pathlib import Path

import pytest

from satasim.golden import MAX_GOLDEN_BYTES, MAX_GOLDEN_EVENTS, compare_run, main, read_golden
from synthetic_trace import rec, write_run

MS = 1_000_000


def boot(port=0, dt=0):
    return [rec(10 * MS, "eh.reset", port=port, msg="hard resetting link", method="hard", try_=1),
            rec(311 * MS, "probe.link_up", port=port, msg="SATA link up 6.0 Gbps (SStatus 133 SControl 300)",
                spd=3),
            rec(311_087_313 + dt, "probe.configured", port=port, dev=0, msg="configured for UDMA/133",
                mode="UDMA/133")]


def run_of(tmp_path, where, records, modes=("dword",), scenario=True, **kw):
    """A synthetic run of scenario `s` (its file written beside it unless scenario=False)."""
    scen = ""
    if scenario:
        p = tmp_path / "s.yaml"
        if not p.exists():
            p.write_text("name: s\nseed: 1\ncontroller: {type: ahci, ports: 4}\ndevices: [{port: 0}]\n")
        scen = str(p)
    d = write_run(tmp_path / where, "s", records, scenario_file=scen, **kw)
    rp = d / "result.json"
    res = json.loads(rp.read_text())
    res["links"] = [{"port": i, "mode": m, "dword_cycles": 0} for i, m in enumerate(modes)]
    rp.write_text(json.dumps(res))
    return d


def golden_of(tmp_path, records=None, **kw):
    d = run_of(tmp_path, "rec", records or boot(), **kw)
    gdir = tmp_path / "golden"
    assert main(["record", str(d), "--golden-dir", str(gdir)]) == 0
    return gdir, gdir / "s.ahci.golden"


def edit_header(gp, key, value):
    """Sets (or with value None removes) header `key`; a new key goes after `# backend:`."""
    lines = gp.read_text().splitlines(keepends=True)
    at = [i for i, ln in enumerate(lines) if ln.startswith(f"# {key}:")]
    if at:
        if value is None:
            del lines[at[0]]
        else:
            lines[at[0]] = f"# {key}: {value}\n"
    else:
        i = next(i for i, ln in enumerate(lines) if ln.startswith("# backend:"))
        lines.insert(i + 1, f"# {key}: {value}\n")
    gp.write_text("".join(lines))
    return next((i + 1 for i, ln in enumerate(gp.read_text().splitlines()) if ln.startswith(f"# {key}:")), 0)


# ------------------------------------------------------------ the tolerance is the run's

def test_link_mode_header_does_not_loosen_the_comparison(tmp_path, capsys):
    gdir, gp = golden_of(tmp_path)
    line = edit_header(gp, "link_mode", "x")
    late = run_of(tmp_path, "late", boot(dt=5_000))          # 5 us: inside 1 % / 10 us
    assert main(["compare", str(late), "--golden-dir", str(gdir)]) == 1
    out = capsys.readouterr().out
    assert "golden MISMATCH" in out
    assert f"{gp}:{line}: # link_mode: 'x', the run's: 'dword'" in out, out
    assert "beyond tolerance exact" in out and "times compared within" not in out


def test_link_mode_header_without_the_scenario_file(tmp_path, capsys):
    """Without the scenario file the scenario's own level is unknown: a run at another level
    than the golden's header is compared exactly, not within the link-level tolerance."""
    gdir, gp = golden_of(tmp_path, scenario=False, modes=("fis",))
    assert "# link_mode: fis\n" in gp.read_text()
    d = run_of(tmp_path, "dw", boot(dt=93), scenario=False, modes=("dword",))
    assert main(["compare", str(d), "--golden-dir", str(gdir)]) == 1
    out = capsys.readouterr().out
    assert f"{gp}:10: # link_mode: 'fis', the run's: 'dword'" in out, out
    assert "beyond tolerance exact" in out


def test_a_run_at_the_other_level_keeps_the_link_level_tolerance(tmp_path, capsys):
    """What the tolerance is for: the scenario says dword, the run was at fis
    (SATASIM_LINK_MODE), the golden at the scenario's own level."""
    gdir, gp = golden_of(tmp_path)
    f = run_of(tmp_path, "fis", boot(dt=5_000), modes=("fis",))
    assert main(["compare", str(f), "--golden-dir", str(gdir)]) == 0
    assert "run at link level fis, golden recorded at dword" in capsys.readouterr().out


def test_time_tolerance_header_does_not_loosen_a_systemc_golden(tmp_path, capsys):
    gdir, gp = golden_of(tmp_path)
    line = edit_header(gp, "time_tolerance", "1s")
    late = run_of(tmp_path, "late", boot(dt=300 * MS))
    assert main(["compare", str(late), "--golden-dir", str(gdir)]) == 1
    out = capsys.readouterr().out
    assert f"{gp}:{line}: # time_tolerance: '1s', the run's: none" in out, out
    assert "beyond tolerance exact" in out
    # the caller may still ask for one on the command line
    edit_header(gp, "time_tolerance", None)
    assert main(["compare", str(late), "--golden-dir", str(gdir), "--time-tolerance", "1s"]) == 0


def test_qemu_tolerance_comes_from_the_backend(tmp_path, capsys):
    gdir, gp = golden_of(tmp_path, backend="qemu", modes=())
    assert "# time_tolerance: any" in gp.read_text()
    late = run_of(tmp_path, "late", boot(dt=900 * MS), backend="qemu", modes=())
    assert main(["compare", str(late), "--golden-dir", str(gdir)]) == 0
    # an edited header neither tightens nor loosens it: it is a mismatch
    line = edit_header(gp, "time_tolerance", "5%")
    capsys.readouterr()
    assert main(["compare", str(late), "--golden-dir", str(gdir)]) == 1
    assert f"{gp}:{line}: # time_tolerance: '5%', the run's: 'any'" in capsys.readouterr().out


def test_ordering_header_does_not_loosen_the_comparison(tmp_path, capsys):
    a = boot(0) + boot(1)
    gdir, gp = golden_of(tmp_path, sorted(a, key=lambda r: (r["t_ns"], r["port"])))
    line = edit_header(gp, "ordering", "unordered-ports")
    swapped = run_of(tmp_path, "sw", sorted(a, key=lambda r: (r["t_ns"], -r["port"])))
    assert main(["compare", str(swapped), "--golden-dir", str(gdir)]) == 1
    out = capsys.readouterr().out
    assert f"{gp}:{line}: # ordering: 'unordered-ports', the run's: none" in out, out
    assert "--unordered-ports" in out
    edit_header(gp, "ordering", None)
    assert main(["compare", str(swapped), "--golden-dir", str(gdir), "--unordered-ports"]) == 0


# ------------------------------------------------------------- every header is checked

@pytest.mark.parametrize("key,value,run", [
    ("seed", "7", "'1'"),
    ("scenario", "other", "'s'"),
    ("controller", "sil24", "'ahci'"),
    ("topology", "ahci 8p, 9 disks", "'ahci 4p, 1 disk'"),
    ("eh_policy", "libata-2006", "'libata-modern (stack default)'"),
    ("file", "scenarios/elsewhere.yaml", "s.yaml"),
    ("columns", "whatever", "'sim time"),
    ("review", "none", "'tools/golden"),
])
def test_every_header_must_be_the_runs(key, value, run, tmp_path, capsys):
    gdir, gp = golden_of(tmp_path)
    d = tmp_path / "rec" / "s"
    assert main(["compare", str(d), "--golden-dir", str(gdir)]) == 0
    line = edit_header(gp, key, value)
    capsys.readouterr()
    assert main(["compare", str(d), "--golden-dir", str(gdir)]) == 1
    out = capsys.readouterr().out
    assert f"{gp}:{line}: # {key}: {value!r}, the run's: " in out and run in out, out


def test_a_missing_header_is_a_mismatch(tmp_path, capsys):
    gdir, gp = golden_of(tmp_path)
    edit_header(gp, "seed", None)
    assert main(["compare", str(tmp_path / "rec" / "s"), "--golden-dir", str(gdir)]) == 1
    assert f"{gp}: # seed: missing, the run's: '1'" in capsys.readouterr().out


def test_events_header_must_count_the_goldens_lines(tmp_path, capsys):
    """`# events:` is checked against the golden's own lines (a truncated or padded golden)
    and against the run."""
    gdir, gp = golden_of(tmp_path)
    line = edit_header(gp, "events", "999")
    assert main(["compare", str(tmp_path / "rec" / "s"), "--golden-dir", str(gdir)]) == 2
    assert f"{gp}:{line}: # events: 999, but the golden has 3 event lines" in capsys.readouterr().err
    # a golden that holds what it says, of a run with one event more
    edit_header(gp, "events", "3")
    more = run_of(tmp_path, "more", boot() + [rec(400 * MS, "eh.reset", msg="hard resetting link",
                                                  method="hard", try_=1)])
    assert main(["compare", str(more), "--golden-dir", str(gdir)]) == 1
    assert f"{gp}:{line}: # events: '3', the run's: '4'" in capsys.readouterr().out


@pytest.mark.parametrize("bad,why", [
    ("# link-mode: fis", "not a header"),
    ("# note: reviewed by me", "unknown header 'note'"),
    ("# seed: 1", "second '# seed:' header (first on line 8)"),
])
def test_malformed_header_lines_are_corrupt(bad, why, tmp_path, capsys):
    gdir, gp = golden_of(tmp_path)
    lines = gp.read_text().splitlines(keepends=True)
    lines.insert(12, bad + "\n")
    gp.write_text("".join(lines))
    assert main(["compare", str(tmp_path / "rec" / "s"), "--golden-dir", str(gdir)]) == 2
    assert f"{gp}:13: {why}" in capsys.readouterr().err


def test_update_writes_the_runs_header(tmp_path, capsys):
    """update rewrites a golden with the run's header: an edited one does not survive."""
    gdir, gp = golden_of(tmp_path)
    edit_header(gp, "time_tolerance", "50us")
    edit_header(gp, "link_mode", "x")
    assert main(["update", str(tmp_path / "rec" / "s"), "--golden-dir", str(gdir)]) == 0
    text = gp.read_text()
    assert "time_tolerance" not in text and "# link_mode: dword\n" in text
    assert main(["compare", str(tmp_path / "rec" / "s"), "--golden-dir", str(gdir)]) == 0


# ------------------------------------------------------------------ size (item 4)

def test_a_huge_golden_is_refused_before_it_is_read(tmp_path, capsys):
    """A 133 MB golden took 266 s and 1.8 GB to compare. Over the limit: refused with
    file:line (the line where the limit is crossed), quickly, whatever the run."""
    gdir, gp = golden_of(tmp_path)
    head = gp.read_text()
    one = head.splitlines()[-1] + "\n"
    n = (MAX_GOLDEN_BYTES // len(one)) + 10
    gp.write_text(head.replace("# events: 3\n", f"# events: {3 + n}\n") + one * n)   # consistent
    head = head.replace("# events: 3\n", f"# events: {3 + n}\n")
    size = gp.stat().st_size
    t0 = time.monotonic()
    assert main(["compare", str(tmp_path / "rec" / "s"), "--golden-dir", str(gdir)]) == 2
    took = time.monotonic() - t0
    err = capsys.readouterr().err
    limit_line = len(head.splitlines()) + (MAX_GOLDEN_BYTES - len(head.encode())) // len(one) + 1
    assert f"{gp}:{limit_line}: golden of {size:,} bytes, over the limit of {MAX_GOLDEN_BYTES:,}" in err, err
    assert took < 5, took


def test_too_many_events_or_too_long_a_line_is_refused(tmp_path, capsys):
    gdir, gp = golden_of(tmp_path)
    text = gp.read_text()
    gp.write_text(text + "x" * 5000 + "\n")
    assert main(["compare", str(tmp_path / "rec" / "s"), "--golden-dir", str(gdir)]) == 2
    n = len(text.splitlines()) + 1
    assert f"{gp}:{n}: line of 5,000 characters, over the limit of 4,096" in capsys.readouterr().err
    # a run with more golden events than a golden may hold is neither recorded nor diffed
    many = [rec(10 * MS + i, "eh.reset", msg="hard resetting link", method="hard", try_=1)
            for i in range(MAX_GOLDEN_EVENTS + 1)]
    d = run_of(tmp_path, "many", many)
    assert main(["record", str(d), "--golden-dir", str(tmp_path / "g2")]) == 1
    assert f"{MAX_GOLDEN_EVENTS + 1:,} golden events, over the limit of {MAX_GOLDEN_EVENTS:,}" in \
        capsys.readouterr().out
    assert not (tmp_path / "g2" / "s.ahci.golden").exists()
    gp.write_text(text)
    t0 = time.monotonic()
    assert main(["compare", str(d), "--golden-dir", str(gdir)]) == 1
    assert f"{MAX_GOLDEN_EVENTS + 1:,} golden events, over the limit" in capsys.readouterr().out
    assert time.monotonic() - t0 < 30


def test_a_diff_of_two_long_sequences_is_bounded(tmp_path, capsys):
    """A golden at the event limit against a run that differs in every other event: the
    alignment is quadratic (20,000 events took 114 s, 10,000 about 30 s); past the diff
    budget the rest is compared position by position, and the diff says so."""
    n = MAX_GOLDEN_EVENTS
    evs = [rec(10 * MS + i * 1000, "eh.reset", port=i % 4, msg="hard resetting link", method="hard", try_=i)
           for i in range(n)]
    gdir, gp = golden_of(tmp_path, evs)
    other = [dict(r, f=dict(r["f"], try_=r["f"]["try_"] + i % 2)) for i, r in enumerate(evs)]
    d = run_of(tmp_path, "other", other)
    capsys.readouterr()
    t0 = time.monotonic()
    assert main(["compare", str(d), "--golden-dir", str(gdir)]) == 1
    took = time.monotonic() - t0
    out = capsys.readouterr().out
    assert (f"(golden and run differ in {n - 1:,} and {n - 1:,} events from golden line 15 on: "
            "more than a diff aligns in bounded time; compared position by position)") in out
    assert "- [    0.010001] ata2: hard resetting link  (eh.reset {method=hard try=1})" in out
    assert "+ [    0.010001] ata2: hard resetting link  (eh.reset {method=hard try=2})" in out
    assert took < 10, took
