"""Messages never pass a scenario's bytes to the terminal raw; unusable output folders and
traces whose time goes backwards are refused up front (issue 30, item 11)."""

import json
import os
import subprocess

from satasim.results import ROOT, binary


def satasim(*args):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return subprocess.run([str(binary()), *map(str, args)], capture_output=True, env=env, timeout=300)


def test_messages_escape_what_a_terminal_would_act_on(tmp_path):
    cases = {
        # an unknown key with each kind of byte in its name
        "bad-utf8": (b"name: x\nk\xff\xfey: 1\n", "k\\xff\\xfey"),
        "rlo": ("name: x\nev\u202eil: 1\n".encode(), "ev\\u202eil"),
        "nel": ("name: x\n\"a\u0085b\": 1\n".encode(), "a\\u0085b"),
        "nul": (b'name: x\n"a\\0b": 1\n', "a\\x00b"),
        "ls": ("name: x\n\"a\u2028b\": 1\n".encode(), "a\\u2028b"),
        "esc": (b'name: x\n"a\\eb": 1\n', "a\\x1bb"),
    }
    for name, (text, shown) in cases.items():
        p = tmp_path / f"{name}.yaml"
        p.write_bytes(text)
        r = satasim("check", p)
        assert r.returncode == 2, (name, r.stdout, r.stderr)
        err = r.stderr.decode("utf-8")  # valid UTF-8 whatever the input was
        line = err.splitlines()[0]
        assert line.startswith(f"{p}:2: ") and shown in line and "unknown key" in line, (name, line)
        for raw in ["\u202e", "\u0085", "\u2028", "\x00", "\x1b"]:
            assert raw not in err, (name, repr(err))


def test_an_unusable_output_folder_is_refused_before_anything_runs(tmp_path):
    scen = ROOT / "scenarios" / "probe-1port.yaml"
    for out in ["/proc/self", "/proc/self/new"]:
        r = satasim("run", scen, "--out", out)
        assert r.returncode == 2, (out, r.stdout, r.stderr)
        err = r.stderr.decode()
        assert err.startswith(f"satasim: --out {out}: cannot "), err
        assert b"without a result" not in r.stdout + r.stderr
    f = tmp_path / "file"
    f.write_text("x")
    r = satasim("run", scen, "--out", f)
    assert r.returncode == 2 and r.stderr.decode().startswith(f"satasim: --out {f}: cannot create it"), r.stderr


def test_eh_check_refuses_a_trace_whose_time_goes_backwards(tmp_path):
    good = tmp_path / "trace.jsonl"
    recs = [{"t_ns": 100, "ev": "eh_start", "port": 1}, {"t_ns": 50, "ev": "eh_end", "port": 1}]
    good.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs))
    r = satasim("eh-check", good)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert f"{good}:2: t_ns: 50 is earlier than the record before it (100)" in r.stderr.decode(), r.stderr
