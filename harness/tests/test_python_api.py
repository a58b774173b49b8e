"""satasim as a Python package and a pytest plugin (issue 34): `import satasim` without
PYTHONPATH after the README's setup, satasim.run_scenario on a file or a dict with overrides,
scenario files collected as test items with markers and JUnit properties, and the
satasim_run fixture in a plain test function."""

import os
import subprocess
import textwrap
import xml.etree.ElementTree as ET

import pytest

import satasim
from satasim.results import ROOT, binary

PY = "/usr/bin/python3"


def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    env["SATASIM_BIN"] = str(binary())
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return env


def test_import_without_pythonpath(tmp_path):
    r = subprocess.run([PY, "-c", "import satasim, sys; print(satasim.__file__); print(satasim.__version__)"],
                       capture_output=True, text=True, cwd=tmp_path, env=clean_env())
    assert r.returncode == 0, r.stderr
    path, version = r.stdout.split()
    assert path == str(ROOT / "harness" / "satasim" / "__init__.py"), "tools/install_python.sh names another checkout"
    assert version == subprocess.run([str(binary()), "--version"], capture_output=True, text=True).stdout.split()[1]


def test_run_a_dict_with_overrides(tmp_path):
    spec = {"name": "api-dict", "controller": {"type": "ahci", "ports": 1},
            "devices": [{"port": 0, "capacity": "1g", "timing": {"kind": "ssd"}}],
            "workload": [{"device": 0, "op": "write", "block": 8, "qd": 4, "count": 40, "verify": True}],
            "faults": [{"kind": "crc", "port": 0, "dir": "d2h", "fis": "reg_d2h", "after_cmds": 10}]}
    r = satasim.run_scenario(spec, overrides={"controller.type": "sil24"}, seed=9, out_dir=tmp_path / "o")
    assert r.passed, r.reasons
    assert r.raw["controller"]["type"] == "sil24" and r.raw["seed"] == 9
    assert r.devices[0]["port"] == 0 and r.workloads[0]["completed"] == 40 and r.data_errors == 0
    assert any(d["ev"] == "eh.reset" for d in r.eh_decisions)     # the CRC error made EH reset the link
    assert r.trace()[0]["ev"] == "run.start" and r.log_path.read_text().startswith("[")
    with pytest.raises(satasim.ScenarioRefused, match=r"\(--set controller.ports=99\):1: controller.ports"):
        satasim.run_scenario(ROOT / "scenarios" / "probe-1port.yaml", overrides={"controller.ports": 99},
                             out_dir=tmp_path / "bad")


def test_the_pytest_plugin_collects_scenarios_and_serves_test_functions(tmp_path):
    scen = tmp_path / "scen"
    scen.mkdir()
    (scen / "pair.yaml").write_text(textwrap.dedent("""\
        name: pair
        controller: {type: ahci, ports: 1}
        devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
        workload: [{device: 0, op: write, block: 8, count: 20, verify: true}]
        expect: {io_errors: 0}
        matrix: {controller.type: [ahci, sil24]}
        """))
    (scen / "wrong.yaml").write_text(textwrap.dedent("""\
        name: wrong
        controller: {type: ahci, ports: 1}
        devices: [{port: 0, timing: {kind: ssd}}]
        expect: {devices: [{port: 0, gen: 1}]}
        """))
    (tmp_path / "test_mine.py").write_text(textwrap.dedent("""\
        def test_mine(satasim_run):
            r = satasim_run({"name": "mine", "controller": {"type": "piix", "ports": 2},
                             "devices": [{"port": 0, "capacity": "1g"}]})
            assert r.passed and r.raw["controller"]["type"] == "piix", r.reasons
        """))
    junit = tmp_path / "j.xml"
    r = subprocess.run([PY, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--satasim-scenarios", "scen",
                        f"--junitxml={junit}", "scen", "test_mine.py"],
                       capture_output=True, text=True, cwd=tmp_path, env=clean_env(), timeout=600)
    assert "1 failed, 3 passed" in r.stdout, r.stdout + r.stderr
    assert "wrong: port 0: link gen is 3, expected 1" in r.stdout, r.stdout
    cases = {tc.get("name"): tc for tc in ET.parse(junit).getroot().iter("testcase")}
    assert set(cases) == {"pair.ahci", "pair.sil24", "wrong", "test_mine"}, set(cases)
    props = {p.get("name"): p.get("value") for p in cases["pair.sil24"].iter("property")}
    assert props["satasim_verdict"] == "pass" and props["satasim_result"].endswith("pair.sil24/result.json")
    assert os.path.exists(props["satasim_trace"])
    # the markers select by controller
    r = subprocess.run([PY, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--satasim-scenarios", "scen",
                        "-m", "controller_sil24", "scen"], capture_output=True, text=True, cwd=tmp_path,
                       env=clean_env(), timeout=600)
    assert "1 passed, 2 deselected" in r.stdout, r.stdout + r.stderr
