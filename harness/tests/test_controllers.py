"""Every controller-neutral default scenario, run on each controller model.

The scenario's controller block is rewritten to the controller under test (keeping its
port count); expectations that legitimately differ between controllers are adjusted by the
per-controller table below, never dropped. Beyond the scenario's own expect block, the test
checks independently: pass, data verified, exactly the configured disks found with their
identity, every counted workload completed, and that the run really was on that model.
"""

import re
from pathlib import Path

import pytest
import yaml

from satasim import load_result, load_trace, run

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))

# Default scenarios that are AHCI-specific by nature, with the reason. Empty today: every
# default scenario is controller-neutral.
AHCI_ONLY = {
    # "name": "reason",
}

# What legitimately differs per controller. ahci: the scenarios as written (NCQ depth 31:
# one of the 32 tags is kept for internal commands). sil24 (as Linux's sata_sil24): 3.0 Gbps PHY
# (links negotiate down to Gen2), UDMA/100 host mask (ATA_UDMA5), NCQ depth 30 (31 slots,
# one kept for internal commands: "depth 30/32"), and its reset path leaves SControl 0.
CONTROLLERS = {
    "ahci": {"block": None, "max_gen": 3, "ncq_depth": 31, "model_src": "ahci0"},
    "sil24": {
        "block": lambda ports: {"type": "sil24", "ports": ports},
        "max_gen": 2,
        "max_udma": 5,
        "ncq_depth": 30,
        "log": [
            (r"SATA link up 6\.0 Gbps", "SATA link up 3.0 Gbps"),
            (r"\(SStatus 1(\d)3 SControl 300\)", lambda m: "(SStatus 1%d3 SControl 0)" % min(int(m.group(1)), 2)),
            (r"UDMA/133", "UDMA/100"),
            (r"depth 32/32", "depth 30/32"),
        ],
        "model_src": "sil24_0",
    },
}

UDMA_NAMES = {5: "UDMA/100", 6: "UDMA/133"}


def adapt(spec, ctl):
    """The scenario rewritten for controller ctl (a new dict)."""
    t = CONTROLLERS[ctl]
    if t["block"] is None:
        return spec
    spec = yaml.safe_load(yaml.safe_dump(spec))  # deep copy
    ports = spec.get("controller", {}).get("ports", 4)
    spec["controller"] = t["block"](ports)
    exp = spec.get("expect", {})
    for d in exp.get("devices", []):
        if "gen" in d:
            d["gen"] = min(d["gen"], t["max_gen"])
        if d.get("xfer") == UDMA_NAMES[6]:
            d["xfer"] = UDMA_NAMES[t["max_udma"]]
        if "ncq_depth" in d:
            d["ncq_depth"] = min(d["ncq_depth"], t["ncq_depth"])
    for key in ("log_contains", "log_not_contains"):
        lines = exp.get(key, [])
        for i, line in enumerate(lines):
            for pat, rep in t["log"]:
                line = re.sub(pat, rep, line)
            lines[i] = line
    return spec


def params():
    for ctl in CONTROLLERS:
        for path in SCENARIOS:
            marks = []
            if ctl != "ahci" and path.stem in AHCI_ONLY:
                marks.append(pytest.mark.skip(reason=AHCI_ONLY[path.stem]))
            yield pytest.param(ctl, path, id=f"{ctl}-{path.stem}", marks=marks)


def test_scenarios_exist():
    assert len(SCENARIOS) >= 8


@pytest.mark.parametrize("ctl,path", list(params()))
def test_scenario_on_controller(ctl, path, tmp_path):
    t = CONTROLLERS[ctl]
    spec = adapt(yaml.safe_load(path.read_text()), ctl)
    name = spec.get("name", path.stem)
    spec["name"] = name
    src = tmp_path / "in" / path.name
    src.parent.mkdir()
    src.write_text(yaml.safe_dump(spec, sort_keys=False))
    out = tmp_path / "out"
    result = run([src], out)
    res = load_result(out, name)
    assert res["verdict"] == "pass", res.get("reasons")
    assert result.returncode == 0, result.stdout + result.stderr
    assert res["data_errors"] == 0
    assert res["io_errors"] == 0
    assert res["controller"]["type"] == ctl

    found = {dev["port"]: dev for dev in res["devices"]}
    configured = {dev["port"]: dev for dev in spec.get("devices", [])}
    assert sorted(found) == sorted(configured)
    for port, dev in configured.items():
        f = found[port]
        for key in ("model", "serial", "firmware"):
            if key in dev:
                assert f[key] == dev[key]
        assert f["link_gen"] == min(dev.get("gen", 3), t["max_gen"])
        if f["ncq"]:
            assert f["ncq_depth"] == min(dev.get("ncq_depth", 32), t["ncq_depth"])
    for wl, done in zip(spec.get("workload", []), res["workloads"]):
        if "count" in wl:
            assert done["completed"] == wl["count"], done

    # The run was on this controller's model: its model records are in the trace.
    assert any(e["src"] == t["model_src"] for e in load_trace(out, name))
