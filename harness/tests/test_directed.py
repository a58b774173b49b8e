"""Directed low-level steps (scenario `steps:`) and `include:`: register-level tests without
the stack, their failures (verdict fail, reason with the step's file:line and the actual
value), their validation errors, and scenario includes."""

from pathlib import Path

import pytest
import yaml

from satasim import load_result, load_trace, run

ROOT = Path(__file__).resolve().parents[2]
DIRECTED = sorted((ROOT / "scenarios" / "directed").glob("*.yaml"))

HEAD = """\
name: d
controller: {type: ahci, ports: 2}
devices: [{port: 0, capacity: 1g, timing: {kind: ssd}}]
steps:
"""


def test_directed_scenarios_exist():
    assert len(DIRECTED) >= 4


@pytest.mark.parametrize("path", DIRECTED, ids=lambda p: p.stem)
def test_directed_scenario_passes(path, tmp_path):
    spec = yaml.safe_load(path.read_text())
    name = spec.get("name", path.stem)
    result = run([path], tmp_path)
    res = load_result(tmp_path, name)
    assert result.returncode == 0 and res["verdict"] == "pass", res.get("reasons")
    # No stack ran: nothing probed, no command from a driver.
    assert res["devices"] == [] and res["commands"] == 0
    trace = load_trace(tmp_path, name)
    steps = [r for r in trace if r["ev"] == "step"]
    assert len(steps) >= len([s for s in spec["steps"] if "delay" not in s])
    assert not any(r["src"] == "stack" for r in trace)


def _run(write_scenario, tmp_path, steps_text, head=HEAD):
    path = write_scenario(head + steps_text)
    result = run([path], tmp_path / "out")
    return path, result


def _line_of(path, needle):
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)


def test_failed_mmio_read_names_step_line_and_actual_value(write_scenario, tmp_path):
    path, result = _run(write_scenario, tmp_path, """\
  - mmio_read: {offset: 0x10, expect: 0x00010301}
  - mmio_read: {offset: 0x10, expect: 0x00010300}   # VS is 1.3.1: fails
  - mmio_read: {offset: 0x0c, expect: 0x3, mask: 0x1}
  - mmio_read: {offset: 0x0c, expect: 0x0, mask: 0x2}   # PI bit 1 is set: fails
""")
    assert result.returncode == 1, result.stdout + result.stderr
    res = load_result(tmp_path / "out", "d")
    assert res["verdict"] == "fail"
    reasons = res["reasons"]
    assert len(reasons) == 2, reasons
    l1 = _line_of(path, "0x00010300")
    l2 = _line_of(path, "mask: 0x2")
    assert reasons[0].startswith(f"{path}:{l1}: steps[1] mmio_read"), reasons
    assert "reads 0x00010301, expected 0x00010300" in reasons[0]
    assert reasons[1].startswith(f"{path}:{l2}: steps[3]"), reasons
    assert "reads 0x00000003" in reasons[1] and "mask 0x00000002" in reasons[1]
    log = (tmp_path / "out" / "d" / "satasim.log").read_text()
    assert f"FAILED {path}:{l1}" in log


def test_wait_irq_and_poll_timeouts_fail(write_scenario, tmp_path):
    path, result = _run(write_scenario, tmp_path, """\
  - wait_irq: {timeout: 2ms}
  - poll: {offset: 0x1a8, mask: 0xf, value: 3, timeout: 100us}
""")
    res = load_result(tmp_path / "out", "d")
    assert res["verdict"] == "fail"
    assert any("interrupt line not asserted within 2000000 ns" in r for r in res["reasons"]), res["reasons"]
    assert any(r.startswith(f"{path}:{_line_of(path, 'poll:')}") and "still reads 0x00000000" in r
               for r in res["reasons"]), res["reasons"]
    assert res["sim_time_ns"] >= 2_100_000


def test_memory_alloc_write_expect(write_scenario, tmp_path):
    path, result = _run(write_scenario, tmp_path, """\
  - alloc: {name: buf, size: 64, align: 4096}
  - mem_write: {addr: "${buf}+4", dwords: [0x11223344, "${buf}"]}
  - mem_expect: {addr: {alloc: buf, offset: 4}, bytes: [0x44, 0x33, 0x22, 0x11]}
  - mem_expect: {addr: "${buf}+8", dwords: ["${buf}"]}
  - mem_expect: {addr: "${buf}+4", dwords: [0x11000044], mask: 0xff0000ff}
  - mem_expect: {addr: "${buf}", bytes: [0, 0, 0, 0, 0x45]}      # fails at byte 4
""")
    res = load_result(tmp_path / "out", "d")
    assert res["verdict"] == "fail"
    assert len(res["reasons"]) == 1, res["reasons"]
    assert res["reasons"][0].startswith(f"{path}:{_line_of(path, 'fails at byte 4')}: steps[5] mem_expect")
    assert "(byte 4): got [00 00 00 00 44], expected [00 00 00 00 45]" in res["reasons"][0]


def test_device_fis_updates_task_file_and_interrupts(write_scenario, tmp_path):
    # FIS receive on, interrupts on: an error D2H FIS from the device lands in PxTFD,
    # raises PxIS.TFES|DHRS and the interrupt line.
    path, result = _run(write_scenario, tmp_path, """\
  - alloc: {name: rfis, size: 256, align: 256}
  - poll: {offset: 0x128, mask: 0xf, value: 3, timeout: 100ms}
  - poll: {offset: 0x120, mask: 0x80, value: 0, timeout: 1s}
  - mmio_write: {offset: 0x108, value: "${rfis}"}
  - mmio_write: {offset: 0x118, value: 0x16}
  - mmio_write: {offset: 0x130, value: 0xffffffff}
  - mmio_write: {offset: 0x110, value: 0xffffffff}
  - mmio_write: {offset: 0x114, value: 0x40000001}
  - mmio_write: {offset: 0x04, value: 0x80000002}
  - device_fis: {port: 0, fis: {type: reg_d2h, status: 0x51, error: 0x04}}
  - wait_irq: {timeout: 1ms}
  - mmio_read: {offset: 0x120, expect: 0x0451, mask: 0xffff}
  - mmio_read: {offset: 0x110, expect: 0x40000001, mask: 0x40000001}
  - mem_expect: {addr: "${rfis}+0x40", bytes: [0x34, 0x40, 0x51, 0x04]}
  - expect_trace: {ev: step, fields: {kind: device_fis}}
  - expect_trace: {ev: run.hang, absent: true}
""")
    res = load_result(tmp_path / "out", "d")
    assert res["verdict"] == "pass", res["reasons"]


def test_inject_step_fires_a_fault(write_scenario, tmp_path):
    path, result = _run(write_scenario, tmp_path, """\
  - poll: {offset: 0x128, mask: 0xf, value: 3, timeout: 100ms}
  - inject: {kind: unplug, port: 0, id: pull}
  - poll: {offset: 0x128, mask: 0xf, value: 0, timeout: 1ms}
  - expect_trace: {ev: fault.inject, src: fault, fields: {id: pull, kind: unplug}}
  - expect_trace: {ev: fault.inject, fields: {id: nosuch}}   # fails
""")
    res = load_result(tmp_path / "out", "d")
    assert res["verdict"] == "fail"
    assert res["faults"] == [{"id": "pull", "kind": "unplug", "port": 0, "fired": 1}] or \
        res["faults"][0]["fired"] == 1, res["faults"]
    assert len(res["reasons"]) == 1, res["reasons"]
    assert res["reasons"][0].startswith(f"{path}:{_line_of(path, 'nosuch')}: steps[4] expect_trace")


def test_injected_fault_that_never_fires_fails(write_scenario, tmp_path):
    path, result = _run(write_scenario, tmp_path, """\
  - inject: {kind: hang, port: 0, after_cmds: 5}
  - delay: 1ms
""")
    res = load_result(tmp_path / "out", "d")
    assert res["verdict"] == "fail"
    assert any("never fired" in r for r in res["reasons"]), res["reasons"]


BAD = {
    "two-keys": ("  - {mmio_read: {offset: 0}, delay: 1us}\n", 5, "steps[0]"),
    "unknown-step": ("  - mmio_peek: {offset: 0}\n", 5, "steps[0].mmio_peek"),
    "unknown-step-key": ("  - mmio_read: {offset: 0, expected: 1}\n", 5, "steps[0].mmio_read.expected"),
    "unaligned-offset": ("  - mmio_read: {offset: 0x2}\n", 5, "steps[0].mmio_read.offset"),
    "mask-without-expect": ("  - mmio_read: {offset: 0, mask: 1}\n", 5, "steps[0].mmio_read.mask"),
    "write-missing-value": ("  - mmio_write: {offset: 0}\n", 5, "steps[0].mmio_write"),
    "poll-no-timeout": ("  - poll: {offset: 0, value: 1}\n", 5, "steps[0].poll.timeout"),
    "wait-irq-bad-time": ("  - wait_irq: {timeout: 5}\n", 5, "steps[0].wait_irq.timeout"),
    "delay-bad": ("  - delay: soon\n", 5, "steps[0].delay"),
    "unknown-alloc": ("  - mem_write: {addr: '${nope}', bytes: [1]}\n", 5, "steps[0].mem_write.addr"),
    "alloc-twice": ("  - alloc: {name: a, size: 8}\n  - alloc: {name: a, size: 8}\n", 6, "steps[1].alloc.name"),
    "alloc-align": ("  - alloc: {name: a, size: 8, align: 3}\n", 5, "steps[0].alloc.align"),
    "mem-two-forms": ("  - alloc: {name: a, size: 8}\n  - mem_write: {addr: '${a}', bytes: [1], dwords: [2]}\n",
                      6, "steps[1].mem_write"),
    "byte-range": ("  - mem_write: {addr: 0x10000000, bytes: [256]}\n", 5, "steps[0].mem_write.bytes[0]"),
    "fis-empty-port": ("  - device_fis: {port: 1, fis: {type: reg_d2h}}\n", 5, "steps[0].device_fis.port"),
    "fis-bad-type": ("  - device_fis: {port: 0, fis: {type: data}}\n", 5, "steps[0].device_fis.fis.type"),
    "fis-bad-key": ("  - device_fis: {port: 0, fis: {type: sdb, lba: 1}}\n", 5, "steps[0].device_fis.fis.lba"),
    "inject-bad-kind": ("  - inject: {kind: fire, port: 0}\n", 5, "steps[0].inject.kind"),
    "inject-power-on": ("  - inject: {kind: hang, port: 0, at: 1ms, from_power_on: true}\n", 5,
                        "steps[0].inject.from_power_on"),
    "trace-no-ev": ("  - expect_trace: {src: fault}\n", 5, "steps[0].expect_trace.ev"),
    "empty-steps": ("  []\n", 5, "steps"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_step_is_refused_with_location(case, write_scenario, tmp_path):
    text, line, key = BAD[case]
    path = write_scenario(HEAD + text)
    result = run([path], tmp_path / "out")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{path}:{line}: {key}" in result.stderr, result.stderr
    assert not (tmp_path / "out" / "d").exists()


BAD_TOP = {
    "workload-with-steps": (HEAD + "  - delay: 1us\nworkload: [{device: 0, op: read, count: 1}]\n", 6, "workload"),
    "faults-with-steps": (HEAD + "  - delay: 1us\nfaults: [{kind: hang, port: 0, at: 1ms}]\n", 6, "faults"),
    "stack-true-with-steps": (HEAD.replace("steps:", "host: {stack: true}\nsteps:") + "  - delay: 1us\n", 4,
                              "host.stack"),
    "stack-false-without-steps": ("name: d\nhost: {stack: false}\n", 2, "host.stack"),
    "expect-devices-with-steps": (HEAD + "  - delay: 1us\nexpect:\n  devices: [{port: 0}]\n", 7, "expect.devices"),
    # steps run on QEMU (test_directed_backends.py), but not one that needs the device's side of the link
    "qemu-device-fis-step": ("name: d\nbackend: qemu\ncontroller: {ports: 1}\ndevices: [{port: 0, capacity: 1g}]\n"
                             "steps:\n  - delay: 1us\n  - device_fis: {port: 0, fis: {type: reg_d2h}}\n", 7,
                             "backend qemu: the QEMU backend cannot model steps[1] device_fis: QEMU's disks are ide-hd"),
}


@pytest.mark.parametrize("case", sorted(BAD_TOP))
def test_steps_conflicts_are_refused(case, write_scenario, tmp_path):
    text, line, key = BAD_TOP[case]
    path = write_scenario(text)
    result = run([path], tmp_path / "out")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{path}:{line}: {key}" in result.stderr, result.stderr


# ---------------------------------------------------------------------------------------
# include

def test_include_merges_maps_deep_and_replaces_lists(write_scenario, tmp_path):
    write_scenario("""\
        controller: {type: ahci, ports: 4, gen: 2}
        host: {eh_policy: libata-2006}
        devices:
          - {port: 0, capacity: 1g, timing: {kind: ssd}}
          - {port: 1, capacity: 1g, timing: {kind: ssd}}
        expect:
          log_contains: ["ata2: SATA link up 3.0 Gbps"]
        """, name="common/topo.yaml")
    path = write_scenario("""\
        name: inc
        include: [common/topo.yaml]
        controller: {ports: 2}
        devices:
          - {port: 1, serial: ONLYONE, capacity: 1g, timing: {kind: ssd}}
        workload: [{device: 1, op: read, count: 10, region: {start: 0, length: 1m}}]
        expect:
          empty_ports: [0]
        """)
    result = run([path], tmp_path / "out")
    res = load_result(tmp_path / "out", "inc")
    assert result.returncode == 0 and res["verdict"] == "pass", res["reasons"]
    assert res["controller"]["ports"] == 2 if isinstance(res.get("controller"), dict) else True
    assert [d["serial"] for d in res["devices"]] == ["ONLYONE"]
    assert res["devices"][0]["link_gen"] == 2
    log = (tmp_path / "out" / "inc" / "satasim.log").read_text()
    assert "ata2: SATA link up 3.0 Gbps" in log


def test_error_in_included_file_names_that_file(write_scenario, tmp_path):
    inc = write_scenario("controller:\n  type: ahci\n  ports: 40\n", name="common/bad.yaml")
    path = write_scenario("name: inc\ninclude: common/bad.yaml\ndevices: []\n")
    result = run([path], tmp_path / "out")
    assert result.returncode == 2
    assert f"{inc}:3: controller.ports" in result.stderr, result.stderr


def test_error_in_including_file_over_an_include_names_the_including_file(write_scenario, tmp_path):
    write_scenario("controller: {type: ahci, ports: 2}\n", name="common/ok.yaml")
    path = write_scenario("name: inc\ninclude: common/ok.yaml\ncontroller:\n  gen: 9\n")
    result = run([path], tmp_path / "out")
    assert result.returncode == 2
    assert f"{path}:4: controller.gen" in result.stderr, result.stderr


def test_include_cycle_and_missing_file_are_refused(write_scenario, tmp_path):
    a = write_scenario("include: b.yaml\nseed: 1\n", name="common/a.yaml")
    write_scenario("include: a.yaml\n", name="common/b.yaml")
    path = write_scenario("name: inc\ninclude: [common/a.yaml]\n")
    result = run([path], tmp_path / "out")
    assert result.returncode == 2
    assert "include cycle" in result.stderr and "common/a.yaml" in result.stderr, result.stderr
    path2 = write_scenario("name: inc\ninclude:\n  - common/nope.yaml\n", name="s2.yaml")
    result = run([path2], tmp_path / "out2")
    assert result.returncode == 2
    assert f"{path2}:3: include[0]: cannot read the included file" in result.stderr, result.stderr
    assert a.exists()


def test_yaml_error_in_included_file_names_it(write_scenario, tmp_path):
    inc = write_scenario("controller: {type: ahci\nseed: 2\n", name="common/broken.yaml")
    path = write_scenario("name: inc\ninclude: common/broken.yaml\n")
    result = run([path], tmp_path / "out")
    assert result.returncode == 2
    assert str(inc) in result.stderr and "YAML" in result.stderr, result.stderr
