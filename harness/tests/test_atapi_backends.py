"""An ATAPI drive (devices[].atapi) on a backend that cannot attach one is refused by name,
never run with a disk in its place (the packet and tray steps would then test nothing). The
refusal comes from the backend's rules, before QEMU starts, so QEMU need not be installed."""
import re

from satasim import run
from satasim.results import ROOT


def test_qemu_backend_refuses_an_atapi_drive(tmp_path):
    r = run([ROOT / "scenarios" / "atapi" / "atapi-pio.yaml"], tmp_path, "--backend", "qemu")
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"atapi-pio\.yaml:1: backend qemu: the QEMU backend cannot model devices\[port 0\]\.atapi: "
                     r"this backend attaches no ide-cd", r.stdout + r.stderr), r.stdout + r.stderr


def test_skip_refused_skips_every_atapi_scenario_on_qemu(tmp_path):
    ahci = [ROOT / "scenarios" / "atapi" / f"atapi-{n}.yaml" for n in ("pio", "dma", "tray", "media-change")]
    r = run(ahci, tmp_path, "--backend", "qemu", "--skip-refused")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 passed, 0 failed, 4 skipped" in r.stdout, r.stdout
    assert len(re.findall(r"SKIP\s+atapi-\S+\s+.*cannot model devices\[port 0\]\.atapi", r.stdout)) == 4, r.stdout
