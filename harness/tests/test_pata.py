"""The PIIX3/PIIX4 IDE function with parallel ATA drives (docs/hardware.md 10): the timing
registers as ata_piix programs them, the speed-down ladder of a parallel cable (and none to
PIO on a SATA one), libata.force nodma per device, libata.dma=0, and the importer's part from
a log's "PATA max" line."""

from pathlib import Path

import pytest
import yaml

from satasim import load_result, load_trace, run
from satasim.dmesg_pata import pata_part
from satasim.import_dmesg import main as import_main

ROOT = Path(__file__).resolve().parents[2]
PATA = ROOT / "scenarios" / "pata"


def _run(tmp_path, name, path=None):
    result = run([path or PATA / f"{name}.yaml"], tmp_path)
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", (res.get("reasons"), result.stdout + result.stderr)
    assert res["data_errors"] == 0 and res["io_errors"] == 0
    return res, load_trace(tmp_path, name)


def _timings(trace, ev):
    return [(e["port"], e["f"]) for e in trace if e["ev"] == ev]


def test_piix4_timing_registers_as_ata_piix_programs_them(tmp_path):
    """PIO4 on every drive: IDETIM ISP 10b (3 clocks) and RTC 11b (1 clock), TIME, IE and PPE
    (0x0007 per device nibble) with the decode enable (bit 15); the slave's ISP/RTC in SIDETIM
    (primary slave bits 3:0 = 1011b) with SITRE (bit 14) in IDETIM; then UDMA2 on each: CT 10b
    in UDMATIM (4 bits per device, primary master, primary slave, secondary master) and the
    device's UDMACTL bit. Each write is read back from the model's registers, so the values
    are the hardware's, not the driver's intent. Every reset first times both devices of the
    channel for PIO0 (libata's ata_eh_reset calls ->set_piomode for each after setting pio_mode
    to PIO0), the slave's programming setting SITRE, which stays: the masters' PIO4 reads
    0xe307 (as libata's piix_set_timings, which sets SITRE for either device, leaves it)."""
    _, trace = _run(tmp_path, "piix4-master-slave")
    pio = _timings(trace, "piix.timing")
    assert pio[:4] == [(0, {"devno": 0, "pio": 0, "idetim": "0x8000", "sidetim": "0x0"}),
                       (0, {"devno": 1, "pio": 0, "idetim": "0xc000", "sidetim": "0x0"}),
                       (1, {"devno": 0, "pio": 0, "idetim": "0x8000", "sidetim": "0x0"}),
                       (1, {"devno": 1, "pio": 0, "idetim": "0xc000", "sidetim": "0x0"})], pio
    assert (0, {"devno": 0, "pio": 4, "idetim": "0xe307", "sidetim": "0x0"}) in pio
    assert (0, {"devno": 1, "pio": 4, "idetim": "0xe377", "sidetim": "0xb"}) in pio
    assert (1, {"devno": 0, "pio": 4, "idetim": "0xe307", "sidetim": "0x0"}) in pio
    udma = _timings(trace, "piix.udma_timing")
    final = udma[-1][1]
    assert final["udmatim"] == "0x222" and final["udmactl"] == "0x7", udma
    assert all(f["udma"] == 2 for _, f in udma)       # the PIIX4's UDMA2 mask: UDMA/33


def test_piix3_mwdma_speed_down_ladder_to_pio4(tmp_path):
    """libata's ladder on a parallel cable: MWDMA2, then ATA_DNXFER_DMA (MWDMA1:PIO4), then the
    40-wire step that changes nothing on MWDMA, then the PIO fallback that a SATA cable never
    gets. MWDMA1 is timed as PIO3 (ISP 10b, RTC 01b: IDETIM 0xe107, SITRE left set by the
    resets' PIO0 timing of the slave slot), and the PIIX3 never touches UDMA (no UDMACTL)."""
    _, trace = _run(tmp_path, "piix3-mwdma-lost-irq-speed-down")
    limits = [e["msg"] for e in trace if e["ev"] == "eh.xfer_limit"]
    assert limits == ["limiting speed to MWDMA1:PIO4", "limiting speed to PIO4"]
    modes = [e["f"]["mode"] for e in trace if e["ev"] == "probe.configured"]
    assert modes[0] == "MWDMA2" and modes[-1] == "PIO4"
    assert modes.index("MWDMA1") < modes.index("PIO4")
    assert sum(1 for e in trace if e["ev"] == "eh.exception") == 11
    assert (0, {"devno": 0, "pio": 3, "idetim": "0xe107", "sidetim": "0x0"}) in _timings(trace, "piix.timing")
    assert not _timings(trace, "piix.udma_timing")


def test_force_nodma_is_per_device(tmp_path):
    """1.00:nodma: the master's NODMA horkage (one FORCE line, the blacklist warning at each
    mode setting), PIO for its requests, UDMA for the slave's."""
    res, trace = _run(tmp_path, "piix4-force-nodma")
    nodma = [(e["port"], e.get("dev")) for e in trace if e["ev"] == "probe.nodma"]
    assert nodma and set(nodma) == {(0, 0)}
    assert [(e["port"], e.get("dev")) for e in trace if e["ev"] == "force.horkage"] == [(0, 0)]
    udma = _timings(trace, "piix.udma_timing")
    assert udma and all(f["devno"] == 1 for _, f in udma)
    assert {d["name"]: d["xfer"] for d in res["devices"]} == {"ata1.00": "PIO4", "ata1.01": "UDMA/33"}


def test_libata_dma_0_sets_pio_silently(tmp_path):
    res, trace = _run(tmp_path, "piix4-libata-dma-0")
    assert {d["xfer"] for d in res["devices"]} == {"PIO4"}
    assert not [e for e in trace if e["ev"] in ("probe.nodma", "force.horkage", "piix.udma_timing")]


def test_sata_piix_keeps_dma_when_the_verdict_asks_for_pio(tmp_path):
    """The same 11 lost interrupts on the ICH's SATA function (a SATA cable): the DMA step
    happens (UDMA/133 -> UDMA/100), the PIO fallback never does (libata: 'slowing down to PIO
    is meaningless for SATA ATA devices')."""
    spec = yaml.safe_load((PATA / "piix3-mwdma-lost-irq-speed-down.yaml").read_text())
    spec["name"] = "sata-no-pio-fallback"
    spec["controller"] = {"type": "piix"}
    spec["devices"][0]["udma"] = 6
    spec["expect"] = {"io_errors": 0}
    path = tmp_path / "sata-no-pio-fallback.yaml"
    path.write_text(yaml.safe_dump(spec))
    _, trace = _run(tmp_path / "out", "sata-no-pio-fallback", path)
    limits = [e["msg"] for e in trace if e["ev"] == "eh.xfer_limit"]
    assert limits and all(":PIO4" in m for m in limits), limits
    assert [e["f"]["mode"] for e in trace if e["ev"] == "probe.configured"][-1] != "PIO4"


@pytest.mark.parametrize("line,part,noted", [
    ("ata1: PATA max MWDMA2 cmd 0x1f0 ctl 0x3f6 bmdma 0xc000 irq 14", "piix3", False),
    ("ata1: PATA max UDMA/33 cmd 0x1f0 ctl 0x3f6 bmdma 0xc000 irq 14", "piix4", False),
    ("ata1: PATA max UDMA/100 cmd 0x000101f0 ctl 0x000103f6 bmdma 0x0001f000 irq 14", "piix4", True),
])
def test_importer_part_from_the_port_line(line, part, noted, tmp_path):
    """ata_piix's PATA port line names the part by its mask: MWDMA2 a PIIX3, UDMA/33 a PIIX4;
    the ICH's IDE function (UDMA/66 and up) is not modelled: a PIIX4 stands in, with a note."""
    addr, msg = line.split(": ", 1)
    got, why = pata_part([(3, 1.0, addr, msg)])
    assert got == part and bool(why) == noted and (not why or why.startswith("3: "))
    rep = tmp_path / "r.txt"
    rep.write_text("[ 1.0] ata_piix 0000:00:07.1: version 2.13\n"
                   f"[ 1.1] {line}\n"
                   "[ 1.2] ata1.00: ATA-6: ST340016A, 3.10, max UDMA/100\n"
                   "[ 1.3] ata1.00: 78165360 sectors, multi 16: LBA48\n"
                   "[ 1.4] ata1.01: ATA-5: ST320011A, 3.06, max UDMA/100\n"
                   "[ 1.5] ata1.01: 39102336 sectors, multi 16: LBA\n")
    out = tmp_path / "s.yaml"
    assert import_main([str(rep), "-o", str(out)]) == 0
    spec = yaml.safe_load(out.read_text())
    assert spec["controller"]["type"] == "piix" and spec["controller"]["part"] == part
    assert "map" not in spec["controller"]
    assert {(d["port"], d.get("devno", 0)) for d in spec["devices"]} == {(0, 0), (0, 1)}
