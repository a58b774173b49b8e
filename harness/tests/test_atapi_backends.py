"""An ATAPI drive (devices[].atapi) on the QEMU backend is an ide-cd on a disc image the
harness writes (test_qemu_atapi_differential.py runs it); what QEMU cannot take is refused
by name before QEMU starts, so these tests need no QEMU."""
import re

from satasim import run
from satasim.results import ROOT


def test_qemu_backend_refuses_a_disc_too_large_for_its_image(tmp_path):
    r = run([ROOT / "scenarios" / "atapi" / "atapi-pio.yaml"], tmp_path, "--backend", "qemu",
            "--set", "devices[0].atapi.disc_blocks=65537")
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"atapi-pio\.yaml:1: backend qemu: the QEMU backend cannot model "
                     r"devices\[port 0\]\.atapi\.disc_blocks 65537: the harness writes the disc as an image "
                     r"file for QEMU's ide-cd: at most 65536 blocks", r.stdout + r.stderr), r.stdout + r.stderr


def test_qemu_backend_refuses_a_changed_disc_too_large_at_its_step(tmp_path):
    sc = tmp_path / "big-change.yaml"
    sc.write_text("name: big-change\ncontroller: {type: ahci, ports: 1}\n"
                  "devices:\n  - port: 0\n    atapi: {disc_blocks: 4096}\n"
                  "workload:\n  - {kind: tray, device: 0, action: change, disc_seed: 2, disc_blocks: 70000}\n")
    r = run([sc], tmp_path / "out", "--backend", "qemu")
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"big-change\.yaml:7: backend qemu: .*workload\[0\] tray change disc_blocks 70000",
                     r.stdout + r.stderr), r.stdout + r.stderr


def test_qemu_backend_refuses_a_fixed_transfer_mode(tmp_path):
    r = run([ROOT / "scenarios" / "atapi" / "atapi-pio.yaml"], tmp_path, "--backend", "qemu",
            "--set", "devices[0].atapi.udma=2")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "devices[port 0].atapi.dma/udma/pio: QEMU's ide-cd transfer-mode list is fixed" in r.stdout + r.stderr


def test_skip_refused_skips_the_atapi_scenarios_of_other_controllers_on_qemu(tmp_path):
    other = [ROOT / "scenarios" / "atapi" / f"atapi-pio-{c}.yaml" for c in ("sil24", "piix", "sil3112")]
    r = run(other, tmp_path, "--backend", "qemu", "--skip-refused")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 passed, 0 failed, 3 skipped" in r.stdout, r.stdout
    assert not re.search(r"cannot model devices\[port 0\]\.atapi", r.stdout), r.stdout
