"""The scenario and DUT-profile readers bound their cost on any input: each input class that
once made `check` or `run` spin or grow without bound (a stray ',' that yaml-cpp's LoadAll
turned into endless empty documents, a 60 MB file, 5,000 levels of nesting, a FIFO, aliases of
aliases) is refused at once at file:line, and a seeded fuzz of each reader alone holds every
input under a time and memory limit."""

import os
import random
import resource
import signal
import subprocess
import time

import pytest

from satasim.results import ROOT, binary

TIME_LIMIT = 20          # seconds per input (the sanitized binary starts in well under 1 s)
MEMORY_LIMIT_MB = 1024   # peak resident memory per input


def satasim(*args, timeout=TIME_LIMIT):
    """Runs satasim ARGS; returns (exit code, stdout, stderr, seconds, peak RSS in MiB). An
    input that runs past the time limit is killed and reported as exit code None."""
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    t0 = time.monotonic()
    p = subprocess.Popen([str(binary()), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out.decode(errors="replace"), err.decode(errors="replace"), timeout, 0
    # The largest peak of all children waited for so far: if this one's passed the limit,
    # so does this figure.
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), time.monotonic() - t0, rss


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def refused(tmp_path, path, where, *, run_too=True):
    for cmd in (["check", path], ["run", path, "--out", tmp_path / "out"])[: 2 if run_too else 1]:
        rc, out, err, secs, _ = satasim(*cmd)
        assert rc == 2, (cmd, rc, out[-2000:], err[-2000:])
        assert where in err, err[-2000:]
        assert secs < TIME_LIMIT
    assert not (tmp_path / "out").exists()
    return err


def test_a_stray_comma_is_refused_at_once(tmp_path):
    # Before: yaml-cpp's LoadAll never returned (1.5 GB in 10 s); --wall-limit did not help.
    for text in [",", ",\n", "name: x\n---\n,\n", "  ,\nname: x\n"]:
        p = write(tmp_path / "in" / "comma.yaml", text)
        err = refused(tmp_path, p, f"{p}:")
        assert "YAML" in err, err
    main = write(tmp_path / "in" / "main.yaml", "include: frag.yaml\nname: x\n")
    write(tmp_path / "in" / "frag.yaml", ",")
    refused(tmp_path, main, f"{tmp_path / 'in' / 'frag.yaml'}:1: YAML syntax error: content outside the document")


def test_sizes_depth_aliases_and_special_files_are_bounded(tmp_path):
    # A 60 MB description (before: 38 s and 392 MB) is refused unread past the bound.
    p = write(tmp_path / "in" / "big.yaml", "name: big\ndescription: " + "x" * (60 << 20) + "\n")
    refused(tmp_path, p, f"{p}:1: too large ({p.stat().st_size} bytes; a scenario file may have at most 4194304 bytes)")
    # 5,000 levels of flow lists, 1,500 of block mappings (before: "YAML syntax error: bad file").
    for name, text in [("flow", "name: deep\nx: " + "[" * 5000 + "]" * 5000 + "\n"),
                       ("block", "name: deep\n" + "".join(" " * i + f"k{i}:\n" for i in range(1500)))]:
        p = write(tmp_path / "in" / f"{name}.yaml", text)
        err = refused(tmp_path, p, f"{p}:")
        assert "nested too deeply (limit 499 levels" in err, (name, err[-500:])
    # Aliases of aliases: 9 lines that name 10^9 values to any reader walking the tree.
    bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [*a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}]\n"
        for i in range(1, 9))
    p = write(tmp_path / "in" / "bomb.yaml", "name: bomb\n" + bomb)
    refused(tmp_path, p, f"{p}:1: YAML holds more than 1048576 values with its aliases expanded")
    # A FIFO without a writer (before: the open waited forever).
    fifo = tmp_path / "in" / "fifo.yaml"
    os.mkfifo(fifo)
    refused(tmp_path, fifo, f"{fifo}:1: not a regular file", run_too=False)


# --- the seeded fuzz of each reader alone -------------------------------------------------

TOKENS = [",", "[", "]", "{", "}", ":", ": ", "- ", "? ", "&a ", "*a", "!tag ", "!!binary ", "|", ">", "'", '"',
          "%YAML 1.2\n", "---\n", "...\n", "\t", "\0", "\xff", "\u2028", "\u202e", "<<: *a\n", "#", "\\", "\r",
          "\n  ", "\n- ", "0x", "-1", "1e999", "99999999999999999999999999", "~", "null", "&a [*a]", ".inf"]


def mutate(rng, text):
    """One input from a seed text: up to 4 token insertions, span deletions, duplications,
    truncations and nesting blow-ups."""
    b = text
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(b))
        op = rng.randrange(6)
        if op == 0:
            b = b[:at] + rng.choice(TOKENS) + b[at:]
        elif op == 1:
            b = b[:at] + b[at + rng.randint(1, 200):]
        elif op == 2:
            span = b[at:at + rng.randint(1, 400)]
            b = b[:at] + span * rng.randint(2, 50) + b[at:]
        elif op == 3:
            b = b[:at]
        elif op == 4:
            n = rng.randint(100, 3000)
            b = b[:at] + rng.choice(["[" * n, "{a: " * n, "- " * n]) + b[at:]
        else:
            b = b[:at] + bytes([rng.randrange(256)]).decode("latin-1") + b[at:]
    return b.encode("utf-8", errors="surrogateescape")


def fuzz_reader(tmp_path, seeds, command, count, seed, prepare=lambda path, text: text):
    rng = random.Random(seed)
    worst_secs = worst_rss = 0
    for i in range(count):
        src = rng.choice(seeds)
        p = write(tmp_path / "fuzz" / src.parent.name / f"in{i}.yaml", mutate(rng, prepare(src, src.read_text())))
        rc, out, err, secs, rss = satasim(*command(p))
        assert rc is not None, f"input {i} from {src} ran past {TIME_LIMIT} s: {p}"
        assert rc in (0, 1, 2), f"input {i} from {src}: exit {rc} (a crash?)\n{err[-3000:]}"
        assert rss < MEMORY_LIMIT_MB, f"input {i} from {src}: {rss:.0f} MiB"
        if rc == 2:
            # a refusal names the file and a line, on one line, with nothing raw in it
            first = err.strip().splitlines()[0]
            assert str(p) in first and all(c >= " " or c == "\t" for c in first), first
        worst_secs, worst_rss = max(worst_secs, secs), max(worst_rss, rss)
        p.unlink()
    return worst_secs, worst_rss


def test_fuzz_the_scenario_reader_alone(tmp_path):
    seeds = [p for p in sorted((ROOT / "scenarios").rglob("*.yaml")) if "user" not in p.parts]
    assert len(seeds) > 100
    secs, rss = fuzz_reader(tmp_path, seeds, lambda p: ["check", p], count=150, seed=30)
    print(f"scenario reader: 150 inputs, slowest {secs:.2f} s, peak {rss:.0f} MiB")


def test_fuzz_the_dut_profile_reader_alone(tmp_path):
    seeds = sorted((ROOT / "model" / "ahci_rtl").glob("profile*.yaml"))
    assert len(seeds) >= 10
    # the mutated profiles sit in another folder: their files are named absolutely (inside
    # satasim's RTL, so allowed) for the reader to get past them to the rest
    def absolute_files(path, text):
        d = path.parent
        return (text.replace("  - rtl/", f"  - {d}/rtl/").replace("  - adapters/", f"  - {d}/adapters/")
                .replace("  - ../", f"  - {d}/../").replace("[rtl, ../link/rtl]", f"[{d}/rtl, {d}/../link/rtl]"))

    secs, rss = fuzz_reader(tmp_path, seeds, lambda p: ["check-profile", p], count=100, seed=31,
                            prepare=absolute_files)
    print(f"DUT profile reader: 100 inputs, slowest {secs:.2f} s, peak {rss:.0f} MiB")
