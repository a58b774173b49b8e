"""The persistent fuzz runner resets everything between inputs: 50 different decoded inputs
run one after another in one process give, each, the byte-identical trace and log of the
same input run alone in a fresh process. And a decoded input's YAML, replayed with
`satasim run`, gives the trace the in-process runner wrote (findings are replayable): the
runner runs the decoded scenario itself, which is the scenario read back from its YAML."""

import os
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor

from satasim.results import binary

N = 50


def _env():
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return env


def _fuzz_run(inputs, out, *extra):
    cmd = [str(binary()), "fuzz-run", "--out", str(out), *extra, *[str(p) for p in inputs]]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=600)


def _inputs(tmp_path):
    """50 byte strings with distinct decodings: every topology, workload and fault kind
    of the format shows up among them (asserted below). The last 16 are version 3 inputs
    (docs/fuzzing.md) with short schedules and one of its fault kinds each: ATAPI drives,
    power losses, trims and SCSI commands between resets too."""
    rng = random.Random(14)
    paths = []
    for i in range(N):
        data = bytearray(rng.randrange(256) for _ in range(rng.randrange(150, 330)))
        if i >= N - 16:
            data += bytes(330 - len(data))
            data[6], data[7] = 3, 0xFC
            data[0] &= 0xFE if i % 4 == 0 else 0xFF  # host_bus_error acts on AHCI only
            data[5] = 1 + data[5] % 3
            data[92] = 11 + i % 4
            for w in range(4):  # short schedules
                data[28 + 16 * w + 5], data[28 + 16 * w + 6] = data[28 + 16 * w + 5] % 16, 0
        p = tmp_path / f"in{i:02}.bin"
        p.write_bytes(data)
        paths.append(p)
    return paths


def test_fifty_inputs_in_one_process_match_fresh_processes(tmp_path):
    inputs = _inputs(tmp_path)
    together = _fuzz_run(inputs, tmp_path / "together", "--fis")
    assert together.returncode in (0, 1), together.stderr[-3000:]

    def alone(i):
        return _fuzz_run([inputs[i]], tmp_path / f"alone{i:02}", "--fis")

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        runs = list(pool.map(alone, range(N)))
    names, yamls = set(), []
    for i, r in enumerate(runs):
        assert r.returncode in (0, 1), r.stderr[-3000:]
        for f in ("trace.jsonl", "satasim.log"):
            a = (tmp_path / "together" / str(i) / f).read_bytes()
            b = (tmp_path / f"alone{i:02}" / "0" / f).read_bytes()
            assert a, f"input {i}: empty {f}"
            assert a == b, f"input {i} ({inputs[i].name}): {f} differs between the persistent and a fresh process"
        yaml = (tmp_path / "together" / str(i) / "scenario.yaml").read_text()
        names.add(yaml.split("\n", 1)[0])
        yamls.append(yaml)
    assert len(names) == N, "the inputs decode to different scenarios"
    text = "\n".join(yamls)
    # what the 50 runs exercise between resets
    assert text.count("type: sil24") >= 5 and text.count("type: ahci") >= 5
    assert text.count("pmps:") >= 5
    for kind in ("crc", "lost_irq", "unplug", "plug", "media_error", "hang", "identify_fail", "phy_flap",
                 "link_degrade", "pmp_hang"):
        assert f"kind: {kind}," in text, f"no {kind} fault among the inputs"
    assert "mode: ncq" in text and "op: mix" in text and "op: flush" in text
    for kind in ("host_bus_error", "cominit", "power_loss", "bad_fis"):
        assert f"kind: {kind}," in text, f"no {kind} fault among the inputs"


def test_decoded_yaml_replays_the_same_trace(tmp_path):
    inputs = _inputs(tmp_path)[:3]
    r = _fuzz_run(inputs, tmp_path / "fuzz", "--fis")
    assert r.returncode in (0, 1), r.stderr[-3000:]
    for i in range(len(inputs)):
        yaml = tmp_path / "fuzz" / str(i) / "scenario.yaml"
        name = yaml.read_text().split("\n", 1)[0].split(": ", 1)[1]
        run = subprocess.run([str(binary()), "run", str(yaml), "--out", str(tmp_path / "replay")],
                             capture_output=True, text=True, env=_env(), timeout=600)
        assert run.returncode in (0, 1), run.stdout + run.stderr
        for f in ("trace.jsonl", "satasim.log"):
            assert (tmp_path / "replay" / name / f).read_bytes() == (tmp_path / "fuzz" / str(i) / f).read_bytes(), (
                f"{name}: `satasim run` of the decoded YAML writes another {f} than the fuzz runner")


def test_decoded_scenario_runs_as_its_yaml(tmp_path, decisions_binary):
    """The runner runs the decoded scenario without reading its YAML back (a fifth of a
    campaign's time went there): the 50 inputs give the same traces and logs both ways.
    Equal outputs, so the release build where there is one (the test above runs the same
    inputs under the sanitizers)."""
    inputs = _inputs(tmp_path)
    direct = _fuzz_run(inputs, tmp_path / "direct", "--fis")
    via = _fuzz_run(inputs, tmp_path / "via", "--fis", "--via-yaml")
    assert direct.returncode in (0, 1) and via.returncode in (0, 1), direct.stderr[-2000:] + via.stderr[-2000:]
    assert direct.stdout == via.stdout
    # the targets' way (no trace files, no records formatted): the same verdict, steps and
    # simulated time per input as with the files written
    bare = subprocess.run([str(binary()), "fuzz-run", "--fis", *[str(p) for p in inputs]], capture_output=True,
                          text=True, env=_env(), timeout=600)
    assert bare.returncode == direct.returncode, bare.stderr[-2000:]
    assert bare.stdout == direct.stdout
    assert " steps " in bare.stdout and len(bare.stdout.splitlines()) >= N + 1
    for i in range(N):
        for f in ("trace.jsonl", "satasim.log"):
            assert (tmp_path / "direct" / str(i) / f).read_bytes() == (tmp_path / "via" / str(i) / f).read_bytes(), (
                f"input {i}: {f} differs between the decoded scenario and the one read back from its YAML")
