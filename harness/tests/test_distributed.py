"""Regressions spread over machines (issue 34): the pytest plugin's scenario items run on
pytest-xdist's execnet gateways (two local popen workers; a popen and a socket gateway whose
worker runs in another folder, the scenarios rsynced there, as on another machine) and in CI
shards (`--satasim-shard K/N`, joined by `python3 -m satasim.distributed merge`); each gives
the same summary (outcome, verdict, reasons, trace SHA-256 per item; a refusal's reason names
its file relative to the worker's folder) and the same JUnit test
cases as one process running them all."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from satasim.distributed import same_runs
from satasim.results import binary

ROOT = Path(__file__).resolve().parents[2]
PY = "/usr/bin/python3"


def env() -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    e["PYTHONPATH"] = str(ROOT / "harness")
    e["SATASIM_BIN"] = str(binary())
    e.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return e


@pytest.fixture
def scenarios(tmp_path) -> Path:
    scen = tmp_path / "scen"
    scen.mkdir()
    for i in (1, 2, 3):
        (scen / f"rw{i}.yaml").write_text(textwrap.dedent(f"""\
            name: rw{i}
            seed: {i}
            controller: {{type: ahci, ports: 1}}
            devices: [{{port: 0, capacity: 1g, timing: {{kind: ssd}}}}]
            workload: [{{device: 0, op: write, block: 8, count: 12, verify: true}}]
            expect: {{io_errors: 0}}
            faults: [{{kind: crc, port: 0, dir: h2d, fis: data, after_cmds: 5}}]
            matrix: {{controller.type: [ahci, sil24]}}
            """))
    (scen / "wrong.yaml").write_text(textwrap.dedent("""\
        name: wrong
        controller: {type: ahci, ports: 1}
        devices: [{port: 0, timing: {kind: ssd}}]
        expect: {devices: [{port: 0, gen: 1}]}
        """))
    # refused by the reader: its reason names a file, which must read the same on every worker
    (scen / "refused.yaml").write_text("name: refused\ninclude: ../missing/fragment.yaml\n")
    return tmp_path


def pytest_run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    # options as one word each (--opt=value): xdist checks every argument that names an
    # existing path against its rsync roots
    r = subprocess.run([PY, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--satasim-scenarios=scen",
                        str(cwd / "scen"), *args], capture_output=True, text=True, cwd=cwd, env=env(), timeout=600)
    assert "2 failed, 6 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    return r


def cases(junit: Path) -> set:
    return {(c.get("classname"), c.get("name")) for c in ET.parse(junit).getroot().iter("testcase")}


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gateways_and_shards_give_the_one_machine_result(scenarios):
    d = scenarios
    pytest_run(d, f"--satasim-summary={d / 'one.json'}", f"--junitxml={d / 'one.xml'}")
    one = load(d / "one.json")
    assert one["total"] == {"runs": 8, "passed": 6, "failed": 2, "skipped": 0}
    assert one["workers"] == {"local": 8}
    refused = [r for r in one["runs"] if r["nodeid"].endswith("::refused")][0]
    assert refused["verdict"] == "refused" and refused["reasons"][0].startswith("scen/refused.yaml:2: include"), refused
    wrong = [r for r in one["runs"] if r["nodeid"].endswith("::wrong")][0]
    assert wrong["verdict"] == "fail" and "port 0: link gen is 3, expected 1" in wrong["reasons"][0]
    assert all(len(r["trace_sha256"]) == 64 for r in one["runs"] if r["verdict"] != "refused")

    # two popen workers
    pytest_run(d, "-d", f"--tx=2*popen//python={PY}", f"--satasim-summary={d / 'popen.json'}",
               f"--junitxml={d / 'popen.xml'}")
    popen = load(d / "popen.json")
    assert same_runs(one, popen), (one, popen)
    assert set(popen["workers"]) == {"gw0", "gw1"} and min(popen["workers"].values()) >= 1
    assert cases(d / "popen.xml") == cases(d / "one.xml")

    # a socket gateway: an execnet socket server in a folder of its own, as on another machine
    remote = d / "remote"
    remote.mkdir()
    port = free_port()
    server = Path(__import__("execnet").__file__).parent / "script" / "socketserver.py"
    srv = subprocess.Popen([PY, str(server), f"127.0.0.1:{port}"], cwd=remote, env=env(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):  # until it listens
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        pytest_run(d, "-d", f"--tx=popen//python={PY}", f"--tx=socket=127.0.0.1:{port}//chdir={remote}",
                   f"--rsyncdir={d / 'scen'}", f"--satasim-summary={d / 'socket.json'}",
                   f"--junitxml={d / 'socket.xml'}")
    finally:
        srv.kill()
        srv.wait()
    sock = load(d / "socket.json")
    assert same_runs(one, sock), (one, sock)
    assert sorted(sock["workers"]) == ["gw0", "gw1"] and min(sock["workers"].values()) >= 1
    assert (remote / "scen" / "rw1.yaml").exists(), "the socket worker did not get the scenarios"
    assert cases(d / "socket.xml") == cases(d / "one.xml")

    # CI shards, joined
    for k in (1, 2):
        r = subprocess.run([PY, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--satasim-scenarios=scen",
                            str(d / "scen"), f"--satasim-shard={k}/2", f"--satasim-summary={d / f'shard{k}.json'}",
                            f"--junitxml={d / f'shard{k}.xml'}"], capture_output=True, text=True, cwd=d, env=env(),
                           timeout=600)
        assert "deselected" in r.stdout, r.stdout + r.stderr
    parts = [load(d / f"shard{k}.json")["total"]["runs"] for k in (1, 2)]
    assert parts == [4, 4], parts
    r = subprocess.run([PY, "-m", "satasim.distributed", "merge", "--summary", str(d / "merged.json"),
                        "--junit", str(d / "merged.xml"), str(d / "shard1.json"), str(d / "shard2.json"),
                        str(d / "shard1.xml"), str(d / "shard2.xml")], capture_output=True, text=True, env=env())
    assert r.returncode == 0, r.stderr
    assert "8 runs from 2 parts: 6 passed, 2 failed, 0 skipped" in r.stdout
    assert same_runs(one, load(d / "merged.json"))
    assert cases(d / "merged.xml") == cases(d / "one.xml")
    suite = ET.parse(d / "merged.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("8", "2")

    # overlapping parts are refused, naming the item
    r = subprocess.run([PY, "-m", "satasim.distributed", "merge", "--summary", str(d / "x.json"),
                        str(d / "shard1.json"), str(d / "one.json")], capture_output=True, text=True, env=env())
    assert r.returncode == 2 and "is also in" in r.stderr and not (d / "x.json").exists(), r.stderr


def test_a_bad_shard_is_a_usage_error(tmp_path):
    (tmp_path / "scen").mkdir()
    r = subprocess.run([PY, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--satasim-scenarios=scen",
                        "--satasim-shard=3/2", "scen"], capture_output=True, text=True, cwd=tmp_path, env=env(),
                       timeout=120)
    assert r.returncode == 4 and "--satasim-shard: expected K/N with 1 <= K <= N, got '3/2'" in r.stderr, r.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
