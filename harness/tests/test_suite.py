"""The default scenario suite: every scenario passes, and what it found matches its topology."""

from pathlib import Path

import pytest

from satasim import load_result, load_trace, run_shared
from satasim.scenario_file import as_bool, as_uint, load_scenario

ROOT = Path(__file__).resolve().parents[2]
# The default suite: scenarios/, the fault, link, field-bug and port-multiplier scenarios
# (tools/run_suite.sh runs the same).
SCENARIOS = [p for d in ("", "faults", "link", "field", "pmp") for p in sorted((ROOT / "scenarios" / d).glob("*.yaml"))
             if p.name != "testplan.yaml"]


def unprovoked(spec) -> bool:
    """The scenario injects no fault and configures no erratum: a clean run is due."""
    ctl = spec.get("controller") or {}
    host = spec.get("host") or {}
    return (not spec.get("faults") and not as_bool(ctl.get("pcix_irq_loss", False))
            and as_bool(host.get("irq_loss_fix", True))
            and not any(d.get("errata") for d in spec.get("devices", [])))


def test_suite_is_not_empty():
    assert len(SCENARIOS) >= 8


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_passes(path, tmp_path):
    # Includes merged (the devices may come from a shared fragment); scalars as the simulator
    # reads them (strings), converted here where compared with result.json's numbers.
    spec = load_scenario(path)
    name = spec.get("name", path.stem)
    result = run_shared([path], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", res.get("reasons")
    assert res["data_errors"] == 0

    # Independently of the scenario's own expect block: the stack found exactly the
    # configured disks, on the configured ports, with the configured identity.
    # Disks are keyed by (host port, fan-out port behind a port multiplier or -1).
    found = {(dev["port"], dev.get("pmp_port", -1)): dev for dev in res["devices"]}
    # (a disk that starts unplugged, present: false, is not there at probe)
    configured = {(as_uint(dev["port"]), int(dev.get("pmp_port", -1))): dev for dev in spec.get("devices", [])
                  if as_bool(dev.get("present", True))}
    # (a field scenario reproducing a drive the probe misses says so: all_devices_found false;
    # the stack may then find fewer disks, never others)
    if as_bool((spec.get("expect") or {}).get("all_devices_found", True)) is False:
        configured = {p: d for p, d in configured.items() if p in found}
    assert sorted(found) == sorted(configured)
    for port, dev in configured.items():
        if "model" in dev:
            assert found[port]["model"] == dev["model"]
        if "serial" in dev:
            assert found[port]["serial"] == dev["serial"]

    # Without a fault or an erratum nothing may go wrong: no command times out and EH never
    # handles an error (a scenario's own expectations need not bound EH, so a hidden
    # timeout would otherwise pass; the fuzz oracle unprovoked-eh states the same rule).
    if unprovoked(spec):
        trace = load_trace(tmp_path, name)
        bad = [r for r in trace if r["ev"] in ("qc.timeout", "eh.exception", "eh.fast_drain_timeout")]
        assert not bad, f"{len(bad)} error events without a fault, first: {bad[0]}"

    # Every workload ran to completion (under faults, refused submits end requests too).
    for wl, done in zip(spec.get("workload", []), res["workloads"]):
        assert done["finished"], done
        if "count" in wl and not spec.get("faults"):
            assert done["completed"] == as_uint(wl["count"]), done
