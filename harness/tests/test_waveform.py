"""VCD waveform output: the `waveform` scenario key and `satasim run --vcd*` (vcd_writer.h)."""

import os
import re
import subprocess
from pathlib import Path

import pytest

from satasim import run
from satasim.results import need_tool

# Primitive codes of the `prim` signals (model/wave/wave_probe.h, scenarios/README.md).
X_RDY, R_RDY, SOF, EOF, R_OK, SYNC = 0x05, 0x06, 0x07, 0x08, 0x0A, 0x04

DMA = """\
name: {name}
seed: 3
controller: {{type: {ctl}, ports: 2}}
devices: [{{port: 0, capacity: 1g, timing: {{kind: ssd}}}}]
workload: [{{device: 0, op: write, count: 4, block: 8, mode: dma, region: {{start: 0, length: 1m}}}}]
{extra}
"""


def scenario(write_scenario, name="wave", ctl="ahci", extra="waveform: {signals: [all]}"):
    return write_scenario(DMA.format(name=name, ctl=ctl, extra=extra), name=name + ".yaml")


def read_vcd(path):
    """A small VCD reader: ({full name: (code, width)}, {code: [(t, value, n)]}, [timestamps]);
    n numbers the value changes in file order (order within one timestamp)."""
    decls, scope, changes, times = {}, [], {}, []
    lines = path.read_text().splitlines()
    i = 0
    while True:
        tok = lines[i].split()
        i += 1
        if tok[0] == "$scope":
            scope.append(tok[2])
        elif tok[0] == "$upscope":
            scope.pop()
        elif tok[0] == "$var":
            assert tok[1] == "wire" and tok[-1] == "$end", tok
            decls[".".join(scope + [tok[4]])] = (tok[3], int(tok[2]))
        elif tok[0] == "$enddefinitions":
            break
    assert not scope, "unbalanced $scope/$upscope"
    t = None
    n = 0
    for line in lines[i:]:
        if line in ("$dumpvars", "$end"):
            continue
        if line.startswith("#"):
            t = int(line[1:])
            times.append(t)
        elif line.startswith("b"):
            bits, code = line[1:].split()
            changes.setdefault(code, []).append((t, int(bits, 2), n))
        else:
            assert line[0] in "01", line
            changes.setdefault(line[1:], []).append((t, int(line[0]), n))
        n += 1
    return decls, changes, times


def ordered(vcd, name):
    """(t, value, n) of every change of a signal."""
    decls, changes, _ = vcd
    return changes.get(decls[name][0], [])


def series(vcd, name):
    return [(t, v) for t, v, _ in ordered(vcd, name)]


def bit_cycles(ser):
    """(set, clear, bit) of every register bit that goes 1 and then 0, in order of the
    clear; set and clear are the (t, value, n) of those changes."""
    prev = 0
    set_at, out = {}, []
    for c in ser:
        v = c[1]
        for b in range(32):
            m = 1 << b
            if v & m and not prev & m:
                set_at[b] = c
            elif prev & m and not v & m and b in set_at:
                out.append((set_at.pop(b), c, b))
        prev = v
    return out


def first_bit_cycle(ser):
    cycles = bit_cycles(ser)
    return cycles[0] if cycles else None


@pytest.fixture(scope="module")
def ahci_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("wave")
    path = base / "in" / "wave.yaml"
    path.parent.mkdir()
    path.write_text(DMA.format(name="wave", ctl="ahci", extra="waveform: {signals: [all]}"))
    r = run([path], base / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    vcd = base / "out" / "wave" / "waveform.vcd"
    return path, vcd, read_vcd(vcd)


def test_header_declares_the_signals(ahci_run):
    _, vcd, (decls, _, _) = ahci_run
    text = vcd.read_text()
    assert "$timescale 1 ps $end" in text
    for p in (0, 1):
        for reg in ("PxIS", "PxCI", "PxSACT"):
            assert decls[f"ahci0.port{p}.{reg}"][1] == 32
    assert decls["ahci0.irq"][1] == 1
    assert decls["link0.phy_rdy"][1] == 1 and decls["link0.gen"][1] == 2
    for d in ("h2d", "d2h"):
        assert decls[f"link0.{d}.prim"][1] == 8
        assert decls[f"link0.{d}.frame"][1] == 1
        assert decls[f"link0.{d}.fis"][1] == 8
    assert "link1.phy_rdy" not in decls  # port 1 has no disk, hence no link
    codes = [c for c, _ in decls.values()]
    assert len(set(codes)) == len(codes)


def test_timestamps_increase(ahci_run):
    _, _, (_, changes, times) = ahci_run
    assert len(times) > 100
    assert all(a < b for a, b in zip(times, times[1:]))
    assert all(t is not None for ch in changes.values() for t, _, _ in ch)


def test_link_comes_up(ahci_run):
    _, _, vcd = ahci_run
    assert (series(vcd, "link0.phy_rdy")[1:2] or [None])[0][1] == 1
    assert 3 in [v for _, v in series(vcd, "link0.gen")]


def test_command_bit_sets_and_clears_and_irq_comes_with_completion(ahci_run):
    _, _, vcd = ahci_run
    ci = series(vcd, "ahci0.port0.PxCI")
    cycle = first_bit_cycle(ordered(vcd, "ahci0.port0.PxCI"))
    assert cycle, ci[:20]
    c_set, c_clr, _ = cycle
    assert c_set[0] < c_clr[0]
    # A non-queued command completes with a D2H Register FIS: the HBA clears the PxCI bit,
    # sets PxIS.DHRS and raises the interrupt at that same simulated time; the handler
    # clears it at that time too, so the IRQ is a zero-width pulse after the PxCI change
    # within that timestamp. It never rises while the command is still in PxCI at a later
    # time, and not before the command was issued.
    irq = ordered(vcd, "ahci0.irq")
    rises = [r for r in irq if r[1] == 1 and c_set[2] < r[2]]
    assert rises, irq[:20]
    assert rises[0][0] == c_clr[0], (c_set, c_clr, irq[:20])
    fall = next(r for r in irq if r[1] == 0 and r[2] > rises[0][2])
    assert fall[0] >= rises[0][0]
    # Every command of the workload: at least 4 more set/clear cycles on the port.
    sets = sum(1 for (a, b) in zip([(0, 0)] + ci, ci) if b[1] & ~a[1])
    assert sets >= 4


def test_dword_primitives_and_fis_boundaries(ahci_run):
    _, _, vcd = ahci_run
    h2d, d2h = series(vcd, "link0.h2d.prim"), series(vcd, "link0.d2h.prim")
    for code in (X_RDY, SOF, EOF, SYNC):
        assert code in [v for _, v in h2d], code
    for code in (R_RDY, R_OK):
        assert code in [v for _, v in d2h], code
    # One host frame: X_RDY, then the device's R_RDY, SOF, EOF, then the device's R_OK.
    t_x = next(t for t, v in h2d if v == X_RDY)
    t_r = next(t for t, v in d2h if v == R_RDY and t > t_x)
    t_sof = next(t for t, v in h2d if v == SOF and t > t_r)
    t_eof = next(t for t, v in h2d if v == EOF and t > t_sof)
    t_ok = next(t for t, v in d2h if v == R_OK and t > t_eof)
    assert t_x < t_r < t_sof < t_eof < t_ok
    # The frame signal brackets SOF..EOF, with the FIS type (27h: Register H2D) inside.
    frame = series(vcd, "link0.h2d.frame")
    assert (t_sof, 1) in frame and (t_eof, 0) in frame
    assert dict(series(vcd, "link0.h2d.fis")).get(t_sof) == 0x27
    for d in ("h2d", "d2h"):
        fr = series(vcd, f"link0.{d}.frame")[1:]  # after the initial value
        assert fr and [v for _, v in fr[:2]] == [1, 0]  # SOF before EOF
        assert all(a[1] != b[1] and a[0] < b[0] for a, b in zip(fr, fr[1:]))


def test_same_scenario_gives_the_same_bytes(ahci_run, tmp_path):
    path, vcd, _ = ahci_run
    r = run([path], tmp_path / "again")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "again" / "wave" / "waveform.vcd").read_bytes() == vcd.read_bytes()


def test_no_waveform_unless_asked(write_scenario, tmp_path):
    path = scenario(write_scenario, name="plain", extra="")
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (tmp_path / "out" / "plain" / "waveform.vcd").exists()
    assert not list((tmp_path / "out" / "plain").glob(".*"))
    # --vcd-signals / --vcd-ports alone switch it on, into the scenario's folder
    r = run([path], tmp_path / "out2", "--vcd-signals", "phy")
    assert r.returncode == 0, r.stdout + r.stderr
    decls, _, _ = read_vcd(tmp_path / "out2" / "plain" / "waveform.vcd")
    assert sorted(decls) == ["link0.gen", "link0.phy_rdy"]


def test_cli_vcd_file_with_chosen_signals_and_ports(write_scenario, tmp_path):
    path = scenario(write_scenario, name="cli", extra="")
    vcd = tmp_path / "cli.vcd"
    r = run([path], tmp_path / "out", "--vcd", str(vcd), "--vcd-signals", "irq,regs", "--vcd-ports", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    decls, _, _ = read_vcd(vcd)
    assert sorted(decls) == ["ahci0.irq", "ahci0.port0.PxCI", "ahci0.port0.PxIS", "ahci0.port0.PxSACT"]
    assert not (tmp_path / "out" / "cli" / "waveform.vcd").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".cli.vcd")]  # no temp file left


def test_fis_level_link_has_boundaries_but_no_primitives(write_scenario, tmp_path):
    path = scenario(write_scenario, name="fislink",
                    extra="link: {mode: fis}\nwaveform: {signals: [prims, fis]}")
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    vcd = read_vcd(tmp_path / "out" / "fislink" / "waveform.vcd")
    decls = vcd[0]
    assert sorted(decls) == ["link0.d2h.fis", "link0.d2h.frame", "link0.h2d.fis", "link0.h2d.frame"]
    fr = series(vcd, "link0.h2d.frame")[1:]  # after the initial value
    assert len(fr) >= 8 and fr[0][1] == 1 and fr[1][1] == 0 and fr[0][0] < fr[1][0]
    assert 0x27 in [v for _, v in series(vcd, "link0.h2d.fis")]
    assert 0x34 in [v for _, v in series(vcd, "link0.d2h.fis")]  # Register D2H


def test_sil24_slot_status(write_scenario, tmp_path):
    path = scenario(write_scenario, name="s24", ctl="sil24", extra="waveform: {signals: [irq, regs]}")
    r = run([path], tmp_path / "out")
    assert r.returncode == 0, r.stdout + r.stderr
    vcd = read_vcd(tmp_path / "out" / "s24" / "waveform.vcd")
    assert {"sil24_0.irq", "sil24_0.port0.slot_stat", "sil24_0.port0.irq_stat",
            "sil24_0.port3.slot_stat"} <= set(vcd[0])
    cycles = bit_cycles(ordered(vcd, "sil24_0.port0.slot_stat"))
    assert len(cycles) >= 4
    cycle = cycles[-1]  # the last write (the driver polls its first commands with the IRQ masked)
    assert cycle[0][0] < cycle[1][0]
    rises = [r for r in ordered(vcd, "sil24_0.irq") if r[1] == 1 and r[2] > cycle[0][2]]
    assert rises and rises[0][0] == cycle[1][0]  # the completion interrupt with the slot's clear


BAD = {
    "unknown-group": ("waveform: {signals: [irq, wires]}", "waveform.signals[1]", "unknown signal group 'wires'"),
    "unknown-key": ("waveform: {signals: [irq], colour: red}", "waveform.colour", "unknown key"),
    "empty-signals": ("waveform: {signals: []}", "waveform.signals", "empty list"),
    "port-range": ("waveform:\n  ports: [0, 2]", "waveform.ports[1]", "port 2 does not exist"),
    "wrong-type": ("waveform: [irq]", "waveform", "expected a mapping"),
    "not-a-bool": ("waveform: sometimes", "waveform", ""),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_waveform_key_is_refused(case, write_scenario, tmp_path):
    extra, key, why = BAD[case]
    path = scenario(write_scenario, name="bad", extra=extra)
    line = 6 + (1 if case == "port-range" else 0)  # the waveform key is the scenario's line 6
    r = run([path], tmp_path / "out")
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(re.escape(f"{path}:{line}: {key}"), r.stderr), r.stderr
    assert why in r.stderr
    assert not (tmp_path / "out" / "bad").exists()


def test_waveform_on_qemu_backend_is_refused(write_scenario, tmp_path):
    path = write_scenario("name: q\nbackend: qemu\ncontroller: {type: ahci, ports: 1}\n"
                          "devices: [{port: 0}]\nwaveform: {signals: [irq]}\n", name="q.yaml")
    r = run([path], tmp_path / "out")
    assert r.returncode == 2 and f"{path}:5: waveform: only for backend: systemc" in r.stderr, r.stderr


@pytest.mark.parametrize("args,why", [
    (["--vcd-signals", "irq,bogus"], "--vcd-signals: unknown signal group 'bogus'"),
    (["--vcd-ports", "0,0"], "--vcd-ports: port 0 is listed twice"),
    (["--vcd", "/nonexistent-dir/x.vcd"], "no such folder"),
])
def test_bad_vcd_options_exit_2(args, why, write_scenario, tmp_path):
    path = scenario(write_scenario, name="opt", extra="")
    r = run([path], tmp_path / "out", *args)
    assert r.returncode == 2 and why in r.stderr, r.stderr
    assert not (tmp_path / "out" / "opt").exists()


def test_vcd_file_needs_exactly_one_scenario(write_scenario, tmp_path):
    a = scenario(write_scenario, name="a", extra="")
    b = scenario(write_scenario, name="b", extra="")
    r = run([a, b], tmp_path / "out", "--vcd", str(tmp_path / "x.vcd"))
    assert r.returncode == 2 and "exactly one scenario" in r.stderr, r.stderr
    assert not (tmp_path / "x.vcd").exists() and not (tmp_path / "out").exists()


def test_nothing_on_the_wire_after_the_cable_is_pulled(write_scenario, tmp_path):
    """A cable pulled during NCQ traffic: from PhyRdy's fall on, neither side sends a
    primitive and no frame is open. (A pull in the middle of a frame the dword link had
    ticked ahead is model/tests/wave_probe_test.cpp's
    phy_drop_mid_frame_cuts_what_the_burst_reported_ahead.)"""
    extra = """\
workload:
  - {device: 0, op: read, pattern: random, block: 64, qd: 32, count: 400, mode: ncq, prefill: false,
     region: {start: 0, length: 16m}}
faults: [{kind: unplug, port: 0, at: 2ms}]
waveform: {signals: [phy, prims, fis]}
"""
    text = DMA.format(name="pulled", ctl="ahci", extra="").replace(
        "workload: [{device: 0, op: write, count: 4, block: 8, mode: dma, region: {start: 0, length: 1m}}]\n", extra)
    path = write_scenario(text, name="pulled.yaml")
    r = run([path], tmp_path / "out")
    assert (tmp_path / "out" / "pulled" / "result.json").exists(), r.stdout + r.stderr
    vcd = read_vcd(tmp_path / "out" / "pulled" / "waveform.vcd")
    falls = [t for t, v in series(vcd, "link0.phy_rdy") if v == 0]
    assert falls, "the link never went down"
    t_down = falls[-1]
    for name in ("link0.h2d.prim", "link0.d2h.prim", "link0.h2d.frame", "link0.d2h.frame"):
        ser = series(vcd, name)
        assert not [c for c in ser if c[0] > t_down], (name, [c for c in ser if c[0] > t_down][:5])
        held = [v for t, v in ser if t <= t_down]
        assert held and held[-1] == 0, (name, ser[-3:])  # none / no frame from PhyRdy's fall


# ----------------------------------------------------- GTKWave save file, FST (issue 34)

def read_gtkw(path):
    """[(flags, filter line or None, signal or "-group")] and the [key] "value" header lines."""
    head, traces, flags, filt = {}, [], None, None
    for line in path.read_text().splitlines():
        if line.startswith("[*]") or not line:
            continue
        if line.startswith("["):
            k, _, v = line.partition("] ")
            head[k[1:]] = v.strip('"')
        elif line.startswith("@"):
            flags, filt = int(line[1:], 16), None
        elif line.startswith("^"):
            filt = line
        else:
            traces.append((flags, filt, line))
    return head, traces


GRP_BEGIN, GRP_END, FTRANSLATED = 0x800000, 0x1000000, 0x2000


def test_gtkwave_save_file_groups_and_decodes(ahci_run):
    """waveform.gtkw beside waveform.vcd: every signal once, in a group per signal group and
    port; prim and fis signals through translate filters written beside it."""
    _, vcd, (decls, _, _) = ahci_run
    gtkw = vcd.with_suffix(".gtkw")
    head, traces = read_gtkw(gtkw)
    assert head["dumpfile"] == str(vcd.resolve())            # the final folder, not the run's temporary one
    assert head["savefile"] == str(gtkw.resolve())
    want = {n + (f"[{w - 1}:0]" if w > 1 else "") for n, (_, w) in decls.items()}
    sigs = [t for t in traces if not t[2].startswith("-")]
    assert sorted(s for _, _, s in sigs) == sorted(want)
    open_group, groups = None, []
    for flags, _, name in traces:
        if flags & GRP_BEGIN:
            assert open_group is None
            open_group = name[1:]
            groups.append(open_group)
        elif flags & GRP_END:
            assert name[1:] == open_group
            open_group = None
        else:
            assert open_group is not None, name                 # every signal in a group
    assert open_group is None
    assert groups[0] == "irq" and {"port0 prims", "port0 fis", "port0 regs", "port1 regs"} <= set(groups)
    prims = vcd.parent / "waveform.prims.txt"
    fis = vcd.parent / "waveform.fis.txt"
    for flags, filt, name in sigs:
        if name.endswith(".prim[7:0]"):
            assert flags & FTRANSLATED and filt == f"^1 {prims.resolve()}"
        elif name.endswith(".fis[7:0]"):
            assert flags & FTRANSLATED and filt == f"^2 {fis.resolve()}"
        else:
            assert not flags & FTRANSLATED and filt is None
    ROOT = Path(__file__).resolve().parents[2]
    assert prims.read_text() == (ROOT / "model" / "wave" / "gtkwave_prims.txt").read_text()
    assert fis.read_text() == (ROOT / "model" / "wave" / "gtkwave_fis.txt").read_text()
    table = dict(line.split(" ", 1) for line in prims.read_text().splitlines())
    assert (table["05"], table["07"], table["0A"]) == ("X_RDY", "SOF", "R_OK")
    table = dict(line.split(" ", 1) for line in fis.read_text().splitlines())
    assert (table["27"], table["34"], table["A1"]) == ("Reg_H2D", "Reg_D2H", "Set_Device_Bits")


def test_fst_is_the_same_waveform_smaller(ahci_run, tmp_path):
    """--vcd FILE.fst: vcd2fst's FST, which fst2vcd turns back into the VCD's changes."""
    need_tool("vcd2fst", "gtkwave")
    fst2vcd = need_tool("fst2vcd", "gtkwave")
    path, vcd, want = ahci_run
    fst = tmp_path / "w.fst"
    r = run([path], tmp_path / "out", "--vcd", str(fst))
    assert r.returncode == 0, r.stdout + r.stderr
    data = fst.read_bytes()
    assert not data.startswith(b"$") and len(data) * 4 < vcd.stat().st_size   # 14 KB of VCD: 1.7 KB
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".w.fst")]   # no temporary left
    head, _ = read_gtkw(tmp_path / "w.gtkw")
    assert head["dumpfile"] == str(fst)
    back = subprocess.run([fst2vcd, str(fst)], capture_output=True, text=True, check=True).stdout
    (tmp_path / "back.vcd").write_text("\n".join(ln for ln in back.splitlines() if ln.strip()) + "\n")
    got = read_vcd(tmp_path / "back.vcd")
    assert sorted(got[0]) == sorted(want[0])
    for name in want[0]:
        assert series(got, name) == series(want, name), name


def test_fst_without_vcd2fst_is_refused_naming_the_package(write_scenario, tmp_path):
    path = scenario(write_scenario, name="nofst", extra="")
    env_path = os.environ["PATH"]
    try:
        os.environ["PATH"] = str(tmp_path)          # no vcd2fst (satasim itself runs by its path)
        r = run([path], tmp_path / "out", "--vcd", str(tmp_path / "w.fst"))
    finally:
        os.environ["PATH"] = env_path
    assert r.returncode == 2, r.stdout + r.stderr
    assert "an FST waveform needs vcd2fst (Debian package gtkwave" in r.stderr
    assert not (tmp_path / "w.fst").exists()
