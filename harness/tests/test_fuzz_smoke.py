"""The fuzz input format and a short fuzz run (fixed seeds, seconds; docs/fuzzing.md):
every byte string decodes to a scenario the reader accepts, the suite's scenarios encode
as seeds, seeded random inputs run through decoder, persistent runner and oracles without
a finding, and a finding (here: the step watchdog) is written as a replayable scenario.
libFuzzer mode: the libFuzzer entry point under LLVM's libFuzzer engine (build-san's
satasim_fuzz_libfuzzer_smoke) runs a fixed-seed campaign of N inputs without a finding, and
stops at an input with one."""

import os
import subprocess
from pathlib import Path

from satasim.results import binary

ROOT = Path(__file__).resolve().parents[2]


def _sim(*args, timeout=600):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return subprocess.run([str(binary()), *[str(a) for a in args]], capture_output=True, text=True, env=env,
                          timeout=timeout)



def _run_without_findings(tmp_path, inputs, wanted):
    """Runs the inputs through `fuzz-run --fis`: every one without a finding, and each of
    `wanted` in the decoded scenarios (the inputs reached what they were made for). Returns
    the output folder and the decoded scenarios' text."""
    out = tmp_path / "out"
    r = _sim("fuzz-run", "--fis", "--out", out, *inputs)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert f"inputs {len(inputs)}, with findings 0" in r.stdout, r.stdout[-3000:]
    text = "".join(p.read_text() for p in out.glob("*/scenario.yaml"))
    for what in wanted:
        assert what in text, what
    return out, text


def test_every_input_decodes_to_a_scenario_the_reader_accepts():
    # 1500 random inputs (a few seconds under ASan); a longer format check runs on demand:
    # build/bin/satasim fuzz-smoke --decode-only --seed N --count 100000
    r = _sim("fuzz-smoke", "--decode-only", "--seed", "7", "--count", "1500")
    assert r.returncode == 0, r.stdout[-4000:]
    assert "format check: 1500 inputs, 0 failed" in r.stdout


def test_the_empty_input_and_one_byte_decode():
    for data in (b"", b"\xff", bytes(range(256)) * 4):
        p = Path("/dev/shm" if Path("/dev/shm").is_dir() else "/tmp") / f"satasim-fuzz-test-{os.getpid()}.bin"
        p.write_bytes(data)
        try:
            r = _sim("fuzz-decode", p)
        finally:
            p.unlink()
        assert r.returncode == 0 and r.stdout.count("name: fuzz-") == 1, r.stderr


def test_parameters_at_their_maximum_decode_to_a_scenario_the_reader_accepts(tmp_path):
    """All bytes 0xff (every parameter at its top), and the AFL++ input where a plug
    fault's capacity, 1 + 0xffffffff, wrapped to 0 sectors, which the reader refused."""
    ff = tmp_path / "ff.bin"
    ff.write_bytes(b"\xff" * 600)
    for p in (ff, ROOT / "harness" / "tests" / "fixtures" / "fuzz" / "plug-capacity-wrap.bin"):
        yaml = _sim("fuzz-decode", p, "--fis")
        assert yaml.returncode == 0, yaml.stderr
        sc = tmp_path / (p.stem + ".yaml")
        sc.write_text(yaml.stdout)
        r = _sim("check", sc)
        assert r.returncode == 0, r.stdout + r.stderr


def test_suite_scenarios_encode_as_seeds(tmp_path):
    encoded = 0
    for yaml in ["pmp/pmp-5port-ahci.yaml", "faults/media-error-ncq.yaml", "sil24/probe-and-io.yaml",
                 "faults/hotswap-new-serial.yaml", "pmp/pmp-ctrl-hang.yaml", "sil24/crc-d2h-data-disparity.yaml"]:
        out = tmp_path / (Path(yaml).stem + ".bin")
        r = _sim("fuzz-encode", ROOT / "scenarios" / yaml, out)
        assert r.returncode == 0, r.stderr
        d = _sim("fuzz-decode", out)
        assert d.returncode == 0
        back = tmp_path / (Path(yaml).stem + ".yaml")
        back.write_text(d.stdout)
        assert _sim("check", back).returncode == 0
        encoded += 1
        if yaml.startswith("pmp/pmp-5port"):
            # the topology survives: a 5-port PMP on port 0 with disks on 0, 2, 4, a direct disk on 1
            assert "- {port: 0, ports: 5, product: sii3726" in d.stdout
            for place in ("port: 0, pmp_port: 0,", "port: 0, pmp_port: 2,", "port: 0, pmp_port: 4,", "port: 1, serial"):
                assert place in d.stdout
        if yaml.startswith("faults/media-error"):
            assert "kind: media_error" in d.stdout and "mode: ncq" in d.stdout
            # the row's parameters survive: op (the trigger's, not given), count, the default left as is
            assert "error: unc, op: read, count: 1, cleared_by_write: true}" in d.stdout, d.stdout
        if yaml.startswith("faults/hotswap"):
            # a plug's new identity is the format's, its capacity and blank media kept
            assert 'model: "SATASIM FUZZ PLUG", serial: "FUZZPLUG1", capacity: 4194304, blank_media: true}' in d.stdout
        if yaml.startswith("sil24/crc"):
            # the decoder's flag survives (the crc byte's bits 4-5)
            assert "dword: 5, mask: 0x1010000, burst: 1, symbol: disparity}" in d.stdout, d.stdout
    assert encoded == 6


FIXTURES = ROOT / "harness" / "tests" / "fixtures" / "fuzz"


def test_inputs_saved_before_format_version_2_decode_as_they_did():
    """Inputs saved by campaigns before version 2 of the format (bytes 6-7 anything but its
    marker: 0x00 0x00, 0xff 0xff, random) decode to the YAML the decoder of that time gave
    (fixtures/fuzz/decoded/, recorded with it), byte for byte: among them a random input whose
    workload counts and every_cmds bytes have the bits version 2 reads set."""
    bins = sorted(FIXTURES.glob("*.bin"))
    assert len(bins) >= 3
    for b in bins:
        got = _sim("fuzz-decode", b, "--fis")
        assert got.returncode == 0, got.stderr
        assert got.stdout.split("\n", 1)[1] == (FIXTURES / "decoded" / (b.stem + ".yaml")).read_text(), b.name


def test_a_fault_counting_beyond_a_short_schedule_keeps_its_long_schedule(tmp_path):
    """scenarios/faults/hang-ncq-off.yaml (the ground truth of NCQ_OFF_ONE_EARLY): its hang
    every 300 NCQ commands and its 2000 reads survive as a seed (format version 2); the same
    bytes without the version marker read as version 1; a seed whose faults fire within a
    short schedule stays version 1 with its schedule cut, as before."""
    out = tmp_path / "hang.bin"
    r = _sim("fuzz-encode", ROOT / "scenarios" / "faults" / "hang-ncq-off.yaml", out, "--fis")
    assert r.returncode == 0, r.stderr
    assert "every_cmds" not in r.stderr and ".count" not in r.stderr, r.stderr
    b = out.read_bytes()
    assert b[6:8] == bytes([2, 0xFD])
    d = _sim("fuzz-decode", out).stdout
    assert "on_cmd: {op: ncq}, repeat: 4, every_cmds: 300" in d, d
    assert "qd: 32, count: 2000, mode: auto" in d, d
    v1 = tmp_path / "v1.bin"
    v1.write_bytes(b[:6] + bytes(2) + b[8:])
    d1 = _sim("fuzz-decode", v1).stdout
    assert "every_cmds: 44" in d1 and "count: 16," in d1, d1  # 299 % 64 + 1, 1999 % 32 + 1
    short = tmp_path / "media.bin"
    r = _sim("fuzz-encode", ROOT / "scenarios" / "faults" / "media-error-ncq.yaml", short)
    assert "workload[0].count: at most 32 requests (short schedules)" in r.stderr, r.stderr
    assert short.read_bytes()[6:8] == bytes(2)


def test_short_fuzz_run_finds_nothing():
    r = _sim("fuzz-smoke", "--seed", "1", "--count", "40", "--fis")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "inputs 40, with findings 0" in r.stdout


def test_a_livelock_is_a_finding_written_as_a_replayable_scenario(tmp_path):
    # A step budget far below what an input needs: the watchdog stops it as a finding.
    inp = tmp_path / "in.bin"
    inp.write_bytes(bytes([0x40, 0, 1, 0, 1, 0, 0, 0, 1]) + bytes(19) + bytes([0, 0x01, 7, 7, 1, 0, 20]))
    r = _sim("fuzz-run", "--max-steps", "50", "--findings", tmp_path / "found", inp)
    assert r.returncode == 1
    assert "FINDING watchdog-steps" in r.stdout, r.stdout
    (bucket,) = [d for d in (tmp_path / "found").iterdir() if d.name.startswith("watchdog-steps-")]
    (yaml,) = list(bucket.glob("*.yaml"))
    assert "# oracle: watchdog-steps" in yaml.read_text()
    assert _sim("check", yaml).returncode == 0
    # the same input within the default budget runs to its end without a finding
    ok = _sim("fuzz-run", inp)
    assert ok.returncode == 0 and " ok\n" in ok.stdout, ok.stdout


def test_a_slow_fault_past_the_command_timeout_is_not_a_hang():
    """AFL++ input: a 62.7 s slow fault on every command of 81 requests; EH's 30 s timeouts
    and retries take 2.6 h of simulated time, past the decoder's old 1 h limit (reported
    as a hang, yet the stack did what libata does)."""
    r = _sim("fuzz-run", "--fis", ROOT / "harness" / "tests" / "fixtures" / "fuzz" / "slow-fault-past-timeout.bin")
    assert r.returncode == 0 and "FINDING" not in r.stdout, r.stdout[-2000:]


LIBFUZZER_RUNS = 300


def _libfuzzer(tmp_path, *args, env_extra=None, timeout=300):
    """build-san's libFuzzer target (harness/CMakeLists.txt) with a fresh corpus folder."""
    exe = Path(binary()).parent / "satasim_fuzz_libfuzzer_smoke"
    assert exe.exists(), (f"{exe} missing: the tree builds it when libFuzzer's engine is installed "
                          "(libclang-rt-dev, tools/install_deps.sh)")
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1", **(env_extra or {}))
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0")
    return subprocess.run([str(exe), str(corpus), *args, "-detect_leaks=0", f"-artifact_prefix={tmp_path}/",
                           "-timeout=60"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=timeout)


def test_libfuzzer_mode_runs_a_seeded_campaign_without_a_finding(tmp_path):
    """libFuzzer from an empty corpus, fixed seed, N inputs (mutated from what the run's log
    lines told it was new) through decoder, runner and oracles: all N run, none is a finding."""
    # -len_control=0: inputs of up to 300 bytes from the start (several disks, workloads, faults)
    r = _libfuzzer(tmp_path, "-seed=1", f"-runs={LIBFUZZER_RUNS}", "-max_len=300", "-len_control=0")
    assert r.returncode == 0, r.stderr[-4000:]
    assert f"Done {LIBFUZZER_RUNS} runs" in r.stderr, r.stderr[-2000:]
    assert "satasim fuzz finding" not in r.stderr and not list(tmp_path.glob("crash-*"))
    # the log-line feedback reaches the engine: inputs that gave new kinds of lines were kept
    assert len(list((tmp_path / "corpus").iterdir())) > 1, r.stderr[-2000:]


def test_libfuzzer_mode_stops_at_a_finding(tmp_path):
    """The same campaign with a step watchdog no input passes: the first input is a finding,
    the target aborts, libFuzzer saves it as a crash and fails."""
    r = _libfuzzer(tmp_path, "-seed=1", "-runs=20", env_extra={"SATASIM_FUZZ_MAX_STEPS": "50"})
    assert r.returncode != 0
    assert "satasim fuzz finding: watchdog-steps" in r.stderr, r.stderr[-2000:]
    assert "deadly signal" in r.stderr and len(list(tmp_path.glob("crash-*"))) == 1


def test_version_3_inputs_run_without_a_finding_and_reach_what_it_adds(tmp_path):
    """A campaign's first inputs in format version 3 (marker 03 fc, docs/fuzzing.md): 16 seeded
    random inputs, short schedules, each with one of the four fault kinds version 3 adds in
    its first slot (AHCI for host_bus_error) and every other one with an ATAPI drive on port 0,
    run through decoder, persistent runner and oracles: no finding, and between them the
    decoded scenarios carry every kind and key version 3 adds."""
    import random
    r = random.Random(1537)
    ins = []
    for i in range(16):
        b = bytearray(r.randrange(256) for _ in range(320))
        b[6], b[7] = 3, 0xFC
        b[0] &= ~0x01 if i % 4 == 0 else 0xFF          # host_bus_error on an AHCI host
        b[0] = (b[0] & ~0x06) | 0x02                    # two ports
        b[4], b[5] = 4, 1 + r.randrange(3)              # four workloads, faults
        b[8] = 3 if i % 2 else 1                        # port 0: an ATAPI drive or a disk
        b[13] = 1                                       # port 1: a disk
        for w in range(4):                              # short schedules
            b[28 + 16 * w + 5], b[28 + 16 * w + 6] = r.randrange(16), 0
            b[218 + w] = (b[218 + w] & ~0x03) | (1 + (w + i) % 2)  # trim or scsi
        b[92] = 11 + i % 4                              # host_bus_error, cominit, power_loss, bad_fis
        for d in range(2):                              # disk records: trim, ncq_trim, smart, 512e
            b[234 + 8 * d + 4] |= 0x05
            b[234 + 8 * d + 5] = (b[234 + 8 * d + 5] & ~0x07) | 0x03
        p = tmp_path / f"in{i:02d}.bin"
        p.write_bytes(b)
        ins.append(p)
    out, text = _run_without_findings(tmp_path, ins, ("kind: host_bus_error", "kind: cominit", "kind: power_loss",
                                                      "kind: bad_fis", "op: trim", "kind: scsi", "atapi:",
                                                      "trim: ", "ncq_trim: true", "physical_sector: 4096"))
    # the PACKET table's commands: 12-byte CDBs of its opcodes, as kind: scsi steps on the ATAPI
    # drive (the reader reads `kind: packet` into the same step)
    import re
    assert re.search(r'kind: scsi, device: 0, cdb: "(00|12|25|28|03|4a|5a)( [0-9a-f]{2}){11}"', text)
    logs = "".join(p.read_text() for p in out.glob("*/satasim.log"))
    assert "ATAPI:" in logs and "SCSI " in logs


def test_link_power_management_keys_survive_as_a_version_4_seed(tmp_path):
    """scenarios/link/lpm-wake-fail and lpm-dipm as seeds (docs/fuzzing.md, version 4): the host's
    policy, the controller's LPM, the drive's HIPM/DIPM and the lpm_fail fault with its
    parameters are carried (marker 04 fb, nothing of them lost); the same bytes read as version
    3 have none of them; a scenario without those keys keeps version 3's marker."""
    out = tmp_path / "wake.bin"
    r = _sim("fuzz-encode", ROOT / "scenarios" / "link" / "lpm-wake-fail.yaml", out)
    assert r.returncode == 0, r.stderr
    lost = [line.split("not expressed: ", 1)[-1] for line in r.stderr.splitlines()]
    assert not [x for x in lost if "lpm" in x or "hipm" in x], r.stderr
    b = out.read_bytes()
    assert b[6:8] == bytes([4, 0xFB])
    d = _sim("fuzz-decode", out).stdout
    assert "controller: {type: ahci, ports: 1, ncq: true, fbs: false, lpm: true}" in d, d
    assert "lpm_policy: min_power" in d and "hipm: true" in d, d
    assert "kind: lpm_fail" in d and "how: no_comwake, wakes: 1}" in d, d
    v3 = tmp_path / "v3.bin"
    v3.write_bytes(b[:6] + bytes([3, 0xFC]) + b[8:])
    d3 = _sim("fuzz-decode", v3).stdout
    assert "lpm" not in d3 and "hipm" not in d3, d3
    dipm = tmp_path / "dipm.bin"
    r = _sim("fuzz-encode", ROOT / "scenarios" / "link" / "lpm-dipm.yaml", dipm)
    lost = [line.split("not expressed: ", 1)[-1] for line in r.stderr.splitlines()]
    assert r.returncode == 0 and not [x for x in lost if "lpm" in x or "dipm" in x], r.stderr
    assert "dipm: true" in _sim("fuzz-decode", dipm).stdout
    plain = tmp_path / "plain.bin"
    assert _sim("fuzz-encode", ROOT / "scenarios" / "sat" / "smart-return-status.yaml", plain).returncode == 0
    assert plain.read_bytes()[6:8] == bytes([3, 0xFC])


def test_version_4_inputs_run_without_a_finding_and_reach_link_power_management(tmp_path):
    """Twelve seeded random version-4 inputs (AHCI with CAP.SALP, every other one with DevSleep,
    every policy in turn, HIPM, DIPM and DevSleep drives, an lpm_fail in the first fault slot, short schedules) through decoder, runner and
    oracles: no finding, and the runs set the policies and meet the fault."""
    import random
    r = random.Random(3705)
    ins = []
    for i in range(12):
        b = bytearray(r.randrange(256) for _ in range(320))
        b[6], b[7] = 4, 0xFB
        b[0] = (b[0] & ~0x07) | 0x02                    # AHCI, two ports
        b[4], b[5] = 2, 1 + r.randrange(2)
        b[8], b[13] = 1, 1                              # two disks
        for w in range(4):                              # short io schedules
            b[28 + 16 * w + 5], b[28 + 16 * w + 6] = r.randrange(16), 0
            b[218 + w] &= ~0x03
        b[222] = (1 + i % 5) << 1 | 0x10 | (0x20 if i % 2 else 0)  # a policy, controller lpm, devsleep
        for d in range(2):
            b[234 + 8 * d] &= ~0x80                     # present
            b[234 + 8 * d + 7] = 1 + (i + d) % 3 | 4    # hipm, dipm or both; devsleep
        b[92] = 15                                      # lpm_fail
        p = tmp_path / f"in{i:02d}.bin"
        p.write_bytes(b)
        ins.append(p)
    out, _ = _run_without_findings(tmp_path, ins, ("kind: lpm_fail", "lpm: true", "devsleep: true", "hipm: true",
                                                   "dipm: true", "lpm_policy: min_power",
                                                   "lpm_policy: medium_power", "lpm_policy: med_power_with_dipm"))
    traces = "".join(p.read_text() for p in out.glob("*/trace.jsonl"))
    assert '"lpm.policy"' in traces


def test_a_noise_flag_after_the_format_is_lost_not_widened(tmp_path):
    """`noise: phy` came after the format (its field holds three flags: cominit, decode,
    internal): encoding an unplug with [decode, phy] keeps decode and says phy is lost. Before,
    the encoder clamped the flag set's value 10 to the field's top, 7, and the seed decoded as
    [cominit, decode, internal]: noise the scenario never had."""
    scen = tmp_path / "noise.yaml"
    scen.write_text("name: noise\ncontroller: {type: ahci, ports: 1}\ndevices:\n  - {port: 0}\n"
                    "workload:\n  - {device: 0, op: read, count: 4}\n"
                    "faults:\n  - {kind: unplug, port: 0, at: 5ms, noise: [decode, phy]}\n")
    out = tmp_path / "noise.bin"
    r = _sim("fuzz-encode", scen, out)
    assert r.returncode == 0, r.stderr
    assert "faults[0].noise: phy is not in the format" in r.stderr, r.stderr
    d = _sim("fuzz-decode", out).stdout
    assert "noise: [decode]}" in d, d


def test_version_5_carries_faults_on_atapi_drives(tmp_path):
    """scenarios/atapi/atapi-fault-check-condition as a seed (docs/fuzzing.md, version 5): its
    two check_condition faults on the ATAPI drive are carried, with their sense key, ASC and
    ASCQ (marker 05 fa); before version 5 they were lost ("a fault on an ATAPI drive"). The same
    bytes read as version 4 index the disks only: there are none, so no fault. A version-4
    input whose kind byte is 16 still reads as crc (16 mod 16), as before; as version 5 it is
    check_condition (16 mod 17), on a disk: dropped. The decoded seed runs without a finding."""
    out = tmp_path / "cc.bin"
    r = _sim("fuzz-encode", ROOT / "scenarios" / "atapi" / "atapi-fault-check-condition.yaml", out)
    assert r.returncode == 0, r.stderr
    assert "a fault on an ATAPI drive" not in r.stderr and "key" not in r.stderr, r.stderr
    b = out.read_bytes()
    assert b[6:8] == bytes([5, 0xFA]), b[:8]
    d = _sim("fuzz-decode", out).stdout
    assert "kind: check_condition, id: fault0, port: 0" in d and "key: 0x3, asc: 0x11, ascq: 0x0}" in d, d
    assert "key: 0x2, asc: 0x4, ascq: 0x1}" in d, d
    v4 = tmp_path / "v4.bin"
    v4.write_bytes(b[:6] + bytes([4, 0xFB]) + b[8:])
    assert "faults:" not in _sim("fuzz-decode", v4).stdout
    run = _sim("fuzz-run", out)
    assert run.returncode == 0 and " ok" in run.stdout, run.stdout + run.stderr
    # a version-4 seed's first fault kind byte set to 16
    wake = tmp_path / "wake.bin"
    assert _sim("fuzz-encode", ROOT / "scenarios" / "link" / "lpm-wake-fail.yaml", wake).returncode == 0
    w = bytearray(wake.read_bytes())
    assert w[6:8] == bytes([4, 0xFB])
    w[92] = 16
    wake.write_bytes(bytes(w))
    d4 = _sim("fuzz-decode", wake).stdout
    assert "kind: crc" in d4, d4
    w[6:8] = bytes([5, 0xFA])
    wake.write_bytes(bytes(w))
    assert "faults:" not in _sim("fuzz-decode", wake).stdout


def test_a_stray_status_while_a_write_is_out_is_not_a_data_finding(tmp_path):
    """A drive's unsolicited Register D2H FIS (bad_fis unsolicited_d2h) sent while the host's
    WRITE DMA EXT is out is, to the HBA, that write's completion before its data moved
    (docs/device.md 1: no host can tell): the write is acknowledged, the next one's data
    lands where the drive still writes, and the read-back differs. `satasim run` reports the
    data mismatch (the data check is right); the fuzz oracles do not make it a finding (a
    version-5 input found it: "data mismatch on port 0 (disk0), lba 0 ... found the data of
    lba 2048"), as they do not for a drive replaced by a blank one."""
    scen = tmp_path / "stray.yaml"
    scen.write_text("name: stray-d2h\ncontroller: {type: ahci, ports: 1}\nlink: {mode: fis}\ndevices:\n"
                    "  - {port: 0, capacity: 4096, lba48: true, ncq: false, write_cache: false, timing: {kind: hdd}}\n"
                    "workload:\n  - {device: 0, op: read, pattern: sequential, block: 185, region: {start: 0, "
                    "length: 4096}, prefill: true, qd: 7, count: 32}\n"
                    "faults:\n  - {kind: bad_fis, port: 0, on_cmd: {op: write}, fis: unsolicited_d2h}\n")
    r = _sim("run", scen, "--out", tmp_path / "out")
    assert r.returncode == 1 and "data mismatch on port 0 (disk0), lba 0" in r.stdout, r.stdout + r.stderr
    out = tmp_path / "stray.bin"
    assert _sim("fuzz-encode", scen, out).returncode == 0
    run = _sim("fuzz-run", out)
    assert run.returncode == 0 and run.stdout.splitlines()[0].endswith(" ok"), run.stdout + run.stderr
    # the same with a fault that moves no status: still no finding, and the data reads back
    scen.write_text(scen.read_text().replace("unsolicited_d2h", "unknown_type"))
    assert _sim("run", scen, "--out", tmp_path / "out2").returncode == 0


def test_version_5_carries_4kn_drives(tmp_path):
    """scenarios/sector-4kn as a seed: its 4Kn drives (logical_sector 4096, docs/device.md 4.1)
    are version 5's disk-record bit (byte 7 bit 3; before, lost: the fuzzer never made a 4Kn
    drive); the decoded seed's drives say `logical_sector: 4096` and it runs without a finding.
    The same bytes read as version 4 have 512-byte drives."""
    out = tmp_path / "4kn.bin"
    r = _sim("fuzz-encode", ROOT / "scenarios" / "sector-4kn.yaml", out)
    assert r.returncode == 0 and "logical_sector" not in r.stderr, r.stderr
    b = out.read_bytes()
    assert b[6:8] == bytes([5, 0xFA]), b[:8]
    d = _sim("fuzz-decode", out).stdout
    assert d.count("logical_sector: 4096") == 2, d
    run = _sim("fuzz-run", out)
    assert run.returncode == 0 and run.stdout.splitlines()[0].endswith(" ok"), run.stdout + run.stderr
    v4 = tmp_path / "v4.bin"
    v4.write_bytes(b[:6] + bytes([4, 0xFB]) + b[8:])
    assert "logical_sector" not in _sim("fuzz-decode", v4).stdout


def test_version_5_carries_this_sessions_kinds(tmp_path):
    """scenarios/faults/hba-error as a seed: its four hba_error faults (error and irq in the
    kind's bytes) are version 5's (before, "hba_error is not in the fuzz input format yet"),
    and line_noise is v5's last kind (its noise never empty); the decoded seed runs without a
    finding."""
    out = tmp_path / "hba.bin"
    r = _sim("fuzz-encode", ROOT / "scenarios" / "faults" / "hba-error.yaml", out)
    assert r.returncode == 0 and "hba_error" not in r.stderr and "faults[" not in r.stderr, r.stderr
    assert out.read_bytes()[6:8] == bytes([5, 0xFA])
    d = _sim("fuzz-decode", out).stdout
    for error, irq in (("host_bus_data", "raised"), ("internal", "raised"), ("internal", "none"),
                       ("host_bus_fatal", "all_ones")):
        assert f"error: {error}, irq: {irq}}}" in d, d
    run = _sim("fuzz-run", out)
    assert run.returncode == 0 and run.stdout.splitlines()[0].endswith(" ok"), run.stdout + run.stderr
    scen = tmp_path / "ln.yaml"
    scen.write_text("name: ln\ncontroller: {type: ahci, ports: 1}\ndevices:\n  - {port: 0}\n"
                    "workload:\n  - {device: 0, op: read, count: 4}\n"
                    "faults:\n  - {kind: line_noise, port: 0, at: 5ms, noise: [decode, comwake]}\n")
    ln = tmp_path / "ln.bin"
    r = _sim("fuzz-encode", scen, ln)
    assert r.returncode == 0 and "faults[" not in r.stderr, r.stderr
    assert "kind: line_noise, id: fault0, port: 0, at: 5ms, noise: [decode, comwake]}" in _sim("fuzz-decode", ln).stdout
