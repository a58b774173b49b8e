"""Every controller-neutral default scenario, run on each controller model.

The scenario's controller block is rewritten to the controller under test (keeping its
port count); expectations that legitimately differ between controllers are adjusted by the
shared adapter (satasim.controllers), never dropped. Beyond the scenario's own expect block, the test
checks independently: pass, data verified, exactly the configured disks found with their
identity, every counted workload completed, and that the run really was on that model.
"""

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from satasim import load_result, load_trace, run, run_shared
from satasim.results import binary
from satasim.controllers import (AHCI_FAULT_KINDS, AHCI_ONLY, CONTROLLERS, adapt, adaptable, is_scenario,
                                 main as adapt_main, write_adapted, write_adapted_shared)

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [p for p in sorted((ROOT / "scenarios").glob("*.yaml"))
             if is_scenario(yaml.safe_load(p.read_text()))]   # not the testplan

# The controller table and the rewrite live in satasim.controllers (shared with
# test_faults.py, the sil24 goldens and the main job).


def params():
    for ctl in CONTROLLERS:
        for path in SCENARIOS:
            marks = []
            why = adaptable(yaml.safe_load(path.read_text()), ctl)
            if why:
                marks.append(pytest.mark.skip(reason=why))
            yield pytest.param(ctl, path, id=f"{ctl}-{path.stem}", marks=marks)


def test_scenarios_exist():
    assert len(SCENARIOS) >= 8


@pytest.mark.parametrize("ctl,path", list(params()))
def test_scenario_on_controller(ctl, path, tmp_path):
    t = CONTROLLERS[ctl]
    # adapted by the adapter the goldens use, so that this run and the golden's are one run
    # (satasim.run_shared)
    src = write_adapted_shared(path, ctl, tmp_path / "in")
    spec = yaml.safe_load(src.read_text())
    name = spec["name"]
    out = tmp_path / "out"
    result = run_shared([src], out)
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
        # without SCRs the stack cannot read the link speed (0: unknown)
        assert f["link_gen"] == (0 if t.get("no_scr") else min(dev.get("gen", 3), t["max_gen"]))
        if f["ncq"]:
            assert f["ncq_depth"] == min(dev.get("ncq_depth", 32), t["ncq_depth"])
    for wl, done in zip(spec.get("workload", []), res["workloads"]):
        if "count" in wl:
            assert done["completed"] == wl["count"], done

    # The run was on this controller's model: its model records are in the trace.
    assert any(e["src"] == t["model_src"] for e in load_trace(out, name))


# ---- the shared adapter and its CLI


def test_adapt_cli_writes_every_scenario_under_its_own_name(tmp_path, capsys):
    out = tmp_path / "sil24"
    assert adapt_main(["adapt", "--controller", "sil24", "--out", str(out),
                       str(ROOT / "scenarios"), str(ROOT / "scenarios" / "faults")]) == 0
    faults = [p for p in sorted((ROOT / "scenarios" / "faults").glob("*.yaml"))
              if adaptable(yaml.safe_load(p.read_text()), "sil24") is None]
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in SCENARIOS + faults)
    for src in SCENARIOS + faults:
        orig = yaml.safe_load(src.read_text())
        got = yaml.safe_load((out / src.name).read_text())
        assert got["name"] == orig["name"]
        assert got["controller"] == {"type": "sil24", "ports": (orig.get("controller") or {}).get("ports", 4)}
        assert f"adapted for sil24 from {src.relative_to(ROOT)}" in got["description"]
        assert got.get("faults") == orig.get("faults")
        assert got.get("workload") == orig.get("workload")
        assert got.get("devices") == orig.get("devices")


def test_adapt_speed_down_steps_from_the_sil24_link():
    spec = yaml.safe_load((ROOT / "scenarios" / "faults" / "crc-ncq-speed-down.yaml").read_text())
    got = adapt(spec, "sil24")
    assert got["expect"]["devices_after"][0]["gen"] == 1
    assert "limiting SATA link speed to 1.5 Gbps" in got["expect"]["log_contains"]
    assert spec["expect"]["devices_after"][0]["gen"] == 2          # the input is untouched
    # a degraded link (no speed-down decision) only caps
    deg = adapt(yaml.safe_load((ROOT / "scenarios" / "faults" / "link-degrade.yaml").read_text()), "sil24")
    assert deg["expect"]["devices_after"][0]["gen"] == 1
    media = adapt(yaml.safe_load((ROOT / "scenarios" / "faults" / "media-error-ncq.yaml").read_text()), "sil24")
    assert media["expect"]["devices_after"][0]["gen"] == 2


def test_adapt_cli_refuses_what_cannot_run_on_sil24(tmp_path, capsys):
    out = tmp_path / "o"
    assert adapt_main(["adapt", "--controller", "sil24", "--out", str(out),
                       str(ROOT / "scenarios" / "qemu-errors" / "read-write-flush-errors.yaml")]) == 2
    assert "backend qemu" in capsys.readouterr().err
    assert adapt_main(["adapt", "--controller", "sil24", "--out", str(out),
                       str(ROOT / "scenarios" / "sil24" / "probe-and-io.yaml")]) == 2
    assert "written for controller sil24" in capsys.readouterr().err
    # two inputs that would overwrite each other
    assert adapt_main(["adapt", "--controller", "sil24", "--out", str(out),
                       str(ROOT / "scenarios" / "dma-rw-verify.yaml"),
                       str(ROOT / "scenarios" / "dma-rw-verify.yaml")]) == 2
    assert "same file name" in capsys.readouterr().err
    assert not out.exists()


def test_adapt_keeps_scalars_as_the_simulator_reads_them(tmp_path):
    # YAML 1.1 (PyYAML's default) reads an unquoted 00001234 as the octal 668 and 1.10 as the
    # float 1.1; the simulator (yaml-cpp, every scalar a string until a key converts it) reads
    # the text. The adapter must read and write what the simulator reads.
    from satasim.scenario_file import load_yaml
    src = tmp_path / "in" / "identity.yaml"
    src.parent.mkdir()
    src.write_text("name: identity-as-written\n"
                   "controller: {type: ahci, ports: 1}\n"
                   "devices:\n"
                   "  - {port: 0, capacity: 1g, serial: 00001234, firmware: 1.10, model: 0777}\n"
                   "expect:\n"
                   "  devices:\n"
                   "    - {port: 0, serial: 00001234, firmware: 1.10}\n")
    out = tmp_path / "sil24"
    assert adapt_main(["adapt", "--controller", "sil24", "--out", str(out), str(src)]) == 0
    got = load_yaml((out / "identity.yaml").read_text())
    assert got["controller"]["type"] == "sil24"
    assert got["devices"][0]["serial"] == "00001234"
    assert got["devices"][0]["firmware"] == "1.10"
    assert got["devices"][0]["model"] == "0777"
    assert got["expect"]["devices"][0] == {"port": "0", "serial": "00001234", "firmware": "1.10"}

    result = run([out / "identity.yaml"], tmp_path / "runs")
    res = load_result(tmp_path / "runs", "identity-as-written")
    assert result.returncode == 0 and res["verdict"] == "pass", res.get("reasons")
    assert res["controller"]["type"] == "sil24"
    assert [(d["serial"], d["firmware"], d["model"]) for d in res["devices"]] == [("00001234", "1.10", "0777")]


def test_controller_table_json_is_current():
    # satasim.controllers takes max_gen, ncq_depth, the channels and the AHCI-only fault kinds
    # from this copy of the simulator's descriptor table (issue 35): regenerate it with
    # `satasim controllers --json > harness/satasim/controller_table.json`.
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    r = subprocess.run([str(binary()), "controllers", "--json"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (ROOT / "harness" / "satasim" / "controller_table.json").read_text(encoding="utf-8")
    assert AHCI_FAULT_KINDS == {"host_bus_error", "hba_error"}


def test_python_tools_name_no_controller():
    # Issue 35: the Python tools take every per-controller fact from the descriptor table
    # (satasim.controller_table), so no code there holds a controller's name as a value to
    # compare or key on (docstrings and prose in longer strings aside).
    import ast
    from satasim.controller_table import TABLE
    names = set(TABLE)
    found = []
    for path in sorted((ROOT / "harness" / "satasim").glob("*.py")) + sorted((ROOT / "tools").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found, "controller names in the Python tools:\n" + "\n".join(found)


def test_controller_table_module_reads_the_rows():
    # What the importer and the adapter ask of the table, against the rows' own facts.
    from satasim import controller_table as ct
    assert ct.DEFAULT == ct.ROWS[0]["name"] and ct.TABLE[ct.REFERENCE]["reference"]
    assert ct.REFERENCE not in ct.adapt_targets() and ct.adapt_targets()
    for r in ct.ROWS:
        assert ct.by_kernel_driver(r["kernel_driver"]) is r
    assert ct.by_kernel_driver("sata_mv") is None and ct.by_kernel_driver("") is None
    for role in ("taskfile", "pata", "slave", "no_scr", "unknown_driver", "default"):
        name, _ = ct.stand_in(role, "x")
        assert role in ct.TABLE[name]["stands_in"]
