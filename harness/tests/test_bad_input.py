"""Malformed scenarios: a clear error naming file, line and key; exit 2; nothing written."""

import pytest

from satasim import run

GOOD_HEAD = """\
name: bad
seed: 1
controller: {type: ahci, ports: 4}
"""

CASES = {
    "unknown-top-key": (GOOD_HEAD + "devices:\n  - port: 0\nworklaod: []\n", 6, "worklaod"),
    "port-out-of-range": (GOOD_HEAD + "devices:\n  - port: 5\n", 5, "port"),
    "duplicate-port": (GOOD_HEAD + "devices:\n  - port: 1\n  - port: 1\n", 6, "port"),
    "wrong-type": (GOOD_HEAD + "devices:\n  - port: 0\n    ncq_depth: deep\n", 6, "ncq_depth"),
    "bad-size-unit": (
        GOOD_HEAD
        + "devices:\n  - port: 0\nworkload:\n  - device: 0\n    op: read\n    block: 4q\n",
        9,
        "block",
    ),
    "workload-on-empty-port": (
        GOOD_HEAD + "devices:\n  - port: 0\nworkload:\n  - device: 2\n    op: read\n",
        7,
        "device",
    ),
    "unknown-device-key": (GOOD_HEAD + "devices:\n  - port: 0\n    colour: red\n", 6, "colour"),
    "sil24-port-out-of-range": (
        "name: bad\ncontroller: {type: sil24, ports: 4}\ndevices:\n  - port: 4\n",
        4,
        "port",
    ),
    "sil24-too-many-ports": ("name: bad\ncontroller: {type: sil24, ports: 5}\n", 2, "controller.ports"),
    "sil24-slots": ("name: bad\ncontroller:\n  type: sil24\n  slots: 32\n", 4, "controller.slots"),
    "sil24-gen3": ("name: bad\ncontroller:\n  type: sil24\n  gen: 3\n", 4, "controller.gen"),
    "sil24-no-ncq": ("name: bad\ncontroller:\n  type: sil24\n  ncq: false\n", 4, "controller.ncq"),
    "ahci-pcix-key": (
        "name: bad\ncontroller:\n  type: ahci\n  pcix_irq_loss: true\n",
        4,
        "controller.pcix_irq_loss",
    ),
    "sil24-bad-ack-window": (
        "name: bad\ncontroller:\n  type: sil24\n  pcix_ack_window: 2\n",
        4,
        "controller.pcix_ack_window",
    ),
    "bad-irq-loss-fix": ("name: bad\nhost: {irq_loss_fix: maybe}\n", 2, "host.irq_loss_fix"),
    # the ICH's port map: piix only, ich5/ich6 only; device 1 only where a slave position exists
    "map-on-ahci": ("name: bad\ncontroller:\n  type: ahci\n  map: ich6\n", 4, "controller.map"),
    "map-bad-value": ("name: bad\ncontroller:\n  type: piix\n  map: ich7\n", 4, "controller.map"),
    "devno-without-map": (
        "name: bad\ncontroller: {type: piix}\ndevices:\n  - port: 0\n    devno: 1\n",
        5,
        "devices[0].devno",
    ),
    "devno-out-of-range": (
        "name: bad\ncontroller: {type: piix, map: ich6}\ndevices:\n  - port: 0\n    devno: 2\n",
        5,
        "devno",
    ),
    "duplicate-slave": (
        "name: bad\ncontroller: {type: piix, map: ich6}\ndevices:\n  - {port: 0, devno: 1}\n"
        "  - {port: 0, devno: 1}\n",
        5,
        "devno",
    ),
    "workload-on-empty-slave": (
        "name: bad\ncontroller: {type: piix, map: ich6}\ndevices:\n  - port: 0\nworkload:\n"
        "  - {device: 0, devno: 1, op: read}\n",
        6,
        "devno",
    ),
    "fault-devno-on-sil3112": (
        "name: bad\ncontroller: {type: sil3112}\ndevices:\n  - port: 0\nfaults:\n"
        "  - {kind: lost_irq, port: 0, devno: 1, after_cmds: 1}\n",
        6,
        "devno",
    ),
    "bad-controller-type": (
        "name: bad\ncontroller: {type: nvme, ports: 1}\ndevices:\n  - port: 0\n",
        2,
        "type",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_scenario_is_refused_with_location(case, write_scenario, tmp_path):
    text, line, key = CASES[case]
    path = write_scenario(text)
    out_dir = tmp_path / "out"
    result = run([path], out_dir)
    assert result.returncode == 2, result.stdout + result.stderr
    message = result.stderr
    assert f"{path}:{line}" in message, message
    assert key in message, message
    # Nothing half-written: no per-scenario folder.
    assert not (out_dir / "bad").exists()


def test_yaml_syntax_error_names_line(write_scenario, tmp_path):
    path = write_scenario("name: bad\ncontroller: {type: ahci, ports: 4\ndevices: []\n")
    result = run([path], tmp_path / "out")
    assert result.returncode == 2
    assert str(path) in result.stderr


def test_missing_file_is_an_error(tmp_path):
    result = run([tmp_path / "nope.yaml"], tmp_path / "out")
    assert result.returncode == 2
    assert "nope.yaml" in result.stderr
