"""EH behind a port multiplier on AHCI must keep the host port's engine and the disks' NCQ
tags consistent (issue 17 items 1 and 2), whatever the seed, the drop length or the
switching mode.

A PHY drop on one fan-out link makes the PMP send an asynchronous notification. libata only
schedules EH then (sata_async_notification); EH's fast drain lets the commands in flight
finish and times out, after 3 s without progress, the ones that cannot (their disk lost its
link): those fail with a timeout and the port is frozen, so EH resets before it issues a
command of its own. The two defects this guards against:
- EH issued a command with PxCMD.ST clear (the model's ci_while_stopped), because the
  notification aborted the commands and the engine could not restart over a BSY the lost
  command FIS left in PxTFD;
- EH reissued another disk's aborted command with a tag that disk still had outstanding
  (the disk model's ncq_tag_in_use).
Each run must pass with no protocol violation seen by any model, every request ended, and
every byte read back equal to what was written."""

import copy
from pathlib import Path

import pytest
import yaml

from satasim import load_result, load_trace, run

ROOT = Path(__file__).resolve().parents[2]
ENGINE_STOPPED = ROOT / "scenarios" / "pmp" / "pmp-fanout-flap-engine-stopped.yaml"
TAG_REUSE = ROOT / "scenarios" / "pmp" / "pmp-fanout-flap-tag-reuse.yaml"


def variant(path, tmp_path, label, *, seed=None, fault=None, fbs=False):
    spec = yaml.safe_load(path.read_text())
    spec = copy.deepcopy(spec)
    spec["name"] = f"{spec['name']}-{label}"
    spec.pop("expect", None)  # the scenario's own expectations hold for its own seed only
    if seed is not None:
        spec["seed"] = seed
    if fault:
        spec["faults"][0].update(fault)
    if fbs:
        spec["controller"]["fbs"] = True
        spec["pmps"][0]["fbs"] = True
    src = tmp_path / f"{spec['name']}.yaml"
    src.write_text(yaml.safe_dump(spec, sort_keys=False))
    return spec, src


def check_clean_run(spec, src, tmp_path):
    name = spec["name"]
    out = tmp_path / "out"
    result = run([src], out)
    trace = load_trace(out, name)
    res = load_result(out, name)
    violations = [r for r in trace if r["ev"].endswith(".violation")]
    assert not violations, f"{name}: protocol violations: " + "; ".join(
        f"{r['src']} {r['f'].get('rule')} at {r['t_ns']} ns" for r in violations)
    assert result.returncode == 0, f"{name}: {result.stdout}{result.stderr}"
    assert res["verdict"] == "pass", res["reasons"]
    assert res["data_errors"] == 0
    # the fault fired, and every request of every workload ended
    assert any(r["ev"] == "fault.inject" for r in trace)
    done = {r["f"]["workload"]: r["f"] for r in trace if r["ev"] == "workload.done"}
    assert sorted(done) == list(range(len(spec["workload"])))
    for i, w in enumerate(spec["workload"]):
        assert done[i]["completed"] + done[i]["errors"] == w["count"], (i, done[i])
    return trace


@pytest.mark.parametrize("fbs", [False, True], ids=["cbs", "fbs"])
@pytest.mark.parametrize("down", ["100us", "1ms", "20ms"])
@pytest.mark.parametrize("seed", [1, 2, 7])
def test_fanout_flap_never_issues_to_a_stopped_engine(seed, down, fbs, tmp_path):
    spec, src = variant(ENGINE_STOPPED, tmp_path, f"s{seed}-{down}-{'fbs' if fbs else 'cbs'}",
                        seed=seed, fault={"down": down}, fbs=fbs)
    check_clean_run(spec, src, tmp_path)


@pytest.mark.parametrize("at", ["838us", "1200us", "2500us"])
@pytest.mark.parametrize("seed", [1, 3])
def test_fanout_flap_never_reuses_an_outstanding_tag(seed, at, tmp_path):
    spec, src = variant(TAG_REUSE, tmp_path, f"s{seed}-{at}", seed=seed, fault={"at": at})
    check_clean_run(spec, src, tmp_path)


def test_notification_lets_the_other_disks_commands_finish(tmp_path):
    """The scenario's own seed: the disk on port 0 keeps its write (no retry of it, no PMP
    reset); only link 2 is reset."""
    spec = yaml.safe_load(TAG_REUSE.read_text())
    out = tmp_path / "out"
    assert run([TAG_REUSE], out).returncode == 0
    trace = load_trace(out, spec["name"])
    t_fault = next(r["t_ns"] for r in trace if r["ev"] == "fault.inject")
    after = [r for r in trace if r["t_ns"] >= t_fault]
    assert not [r for r in after if r["ev"] == "eh.qc_retry"]
    resets = [r for r in after if r["ev"] == "eh.reset"]
    assert resets and all(r.get("link") == 2 for r in resets), resets


def test_stuck_commands_time_out_after_the_fast_drain_interval(tmp_path):
    """The scenario's own seed: 3 s after the notification the commands of the link that
    went down fail with a timeout, the port is frozen, and the PMP is reset first."""
    spec = yaml.safe_load(ENGINE_STOPPED.read_text())
    out = tmp_path / "out"
    assert run([ENGINE_STOPPED], out).returncode == 0
    trace = load_trace(out, spec["name"])
    t_fault = next(r["t_ns"] for r in trace if r["ev"] == "fault.inject")
    drain = next(r for r in trace if r["ev"] == "eh.fast_drain_timeout")
    assert 3_000_000_000 <= drain["t_ns"] - t_fault < 3_001_000_000
    exc = next(r for r in trace if r["ev"] == "eh.exception" and r["t_ns"] >= drain["t_ns"])
    assert exc["f"]["frozen"] is True
    first_reset = next(r for r in trace if r["ev"] == "eh.reset" and r["t_ns"] >= drain["t_ns"])
    assert "link" not in first_reset or first_reset["link"] in (-1, 15), first_reset
