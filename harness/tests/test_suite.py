"""The default scenario suite: every scenario passes, and what it found matches its topology."""

from pathlib import Path

import pytest

from satasim import load_result, run
from satasim.scenario_file import as_bool, as_uint, load_scenario

ROOT = Path(__file__).resolve().parents[2]
# The default suite: scenarios/, the fault, link, field-bug and port-multiplier scenarios
# (tools/run_suite.sh runs the same).
SCENARIOS = [p for d in ("", "faults", "link", "field", "pmp") for p in sorted((ROOT / "scenarios" / d).glob("*.yaml"))
             if p.name != "testplan.yaml"]


def test_suite_is_not_empty():
    assert len(SCENARIOS) >= 8


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_passes(path, tmp_path):
    # Includes merged (the devices may come from a shared fragment); scalars as the simulator
    # reads them (strings), converted here where compared with result.json's numbers.
    spec = load_scenario(path)
    name = spec.get("name", path.stem)
    result = run([path], tmp_path)
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

    # Every workload ran to completion (under faults, refused submits end requests too).
    for wl, done in zip(spec.get("workload", []), res["workloads"]):
        assert done["finished"], done
        if "count" in wl and not spec.get("faults"):
            assert done["completed"] == as_uint(wl["count"]), done
