"""The dword level's frame fast path (model/link/link_fast_path.h, issue 36) proven against
ticking every frame through the verilated link layers:

- lockstep (SATASIM_LINK_FASTPATH=lockstep): every frame phase the fast path could replay is
  replayed, rewound and ticked, and the two must agree on the clock count, every register of
  both link layers, the cable's dwords and the frame the receiver got, or the run fails.
  Run over the link scenarios and a sample of the rest (every controller, a PMP, NCQ,
  faults, hotplug); the whole tree passed in lockstep when this was written (the note on
  issue 36 gives the counts);
- the same scenarios with the fast path on and off give byte-identical traces, logs and
  results (wall time aside).
"""

import json
from pathlib import Path

import pytest

from satasim.results import ROOT, run

LINK = sorted((ROOT / "scenarios" / "link").glob("*.yaml"))
SAMPLE = [ROOT / "scenarios" / p for p in (
    "dma-rw-verify.yaml", "ncq-qd32-random.yaml", "lba48-max-transfer.yaml",
    "faults/hang-ncq-off.yaml", "faults/phy-flap.yaml", "faults/media-error-ncq.yaml",
    "pmp/pmp-ncq-fbs-ahci.yaml", "sil24/probe-and-io.yaml", "sff/piix-probe-and-io.yaml",
    "field/unplug-during-io.yaml")]


def _existing(paths):
    missing = [str(p) for p in paths if not p.exists()]
    assert not missing, f"scenarios renamed? {missing}"
    return paths


def _stats(path):
    total = {}
    for line in Path(path).read_text().splitlines():
        for k, v in json.loads(line).items():
            if k != "link":
                total[k] = total.get(k, 0) + v
    return total


def _outputs(out_dir):
    """Every output file of a run, result.json without its wall-time figures."""
    files = {}
    for p in sorted(Path(out_dir).rglob("*")):
        if not p.is_file() or p.name == "summary.json":
            continue
        rel = str(p.relative_to(out_dir))
        if p.name == "result.json":
            d = json.loads(p.read_text())
            d.pop("wall_time_s", None)
            d.pop("commands_per_wall_second", None)
            files[rel] = json.dumps(d, sort_keys=True)
        else:
            files[rel] = p.read_bytes().replace(str(out_dir).encode(), b"OUT")
    return files


@pytest.mark.parametrize("group", ["link", "sample"])
def test_lockstep_replays_equal_ticking(group, tmp_path, monkeypatch):
    paths = _existing(LINK if group == "link" else SAMPLE)
    monkeypatch.setenv("SATASIM_LINK_MODE", "dword")
    monkeypatch.setenv("SATASIM_LINK_FASTPATH", "lockstep")
    monkeypatch.setenv("SATASIM_LINK_FASTPATH_STATS", str(tmp_path / "stats.jsonl"))
    r = run(paths, tmp_path / "out", "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(paths)} passed, 0 failed" in r.stdout, r.stdout
    st = _stats(tmp_path / "stats.jsonl")
    # lockstep compared most frame phases with ticking (each compared one was also ticked)
    assert st["replayed"] == 0
    assert st["checked"] > 0.5 * st["ticked"], st


def test_fast_path_on_and_off_give_identical_outputs(tmp_path, monkeypatch, decisions_binary):
    # byte-identical outputs both ways: the release build where there is one (the lockstep
    # test above runs the fast path's replays under the sanitizers)
    paths = _existing(LINK[:3] + SAMPLE[:4] + SAMPLE[6:8])
    monkeypatch.setenv("SATASIM_LINK_MODE", "dword")
    outs = {}
    for mode in ("off", "on"):
        monkeypatch.setenv("SATASIM_LINK_FASTPATH", mode)
        monkeypatch.setenv("SATASIM_LINK_FASTPATH_STATS", str(tmp_path / f"{mode}.jsonl"))
        r = run(paths, tmp_path / mode, "--jobs", "2")
        assert r.returncode == 0, r.stdout + r.stderr
        outs[mode] = _outputs(tmp_path / mode)
    assert outs["on"].keys() == outs["off"].keys()
    differ = [k for k in outs["off"] if outs["off"][k] != outs["on"][k]]
    assert not differ, differ
    on, off = _stats(tmp_path / "on.jsonl"), _stats(tmp_path / "off.jsonl")
    assert off["replayed"] == 0 and on["replayed"] > on["ticked"], (on, off)
    assert on["clocks_replayed"] + on["clocks_ticked"] == off["clocks_ticked"]


def test_a_bad_mode_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SATASIM_LINK_MODE", "dword")
    monkeypatch.setenv("SATASIM_LINK_FASTPATH", "sometimes")
    r = run([ROOT / "scenarios" / "probe-2port.yaml"], tmp_path / "out")
    assert r.returncode != 0
    assert "SATASIM_LINK_FASTPATH=sometimes" in r.stdout + r.stderr
