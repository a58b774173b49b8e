"""The ATAPI differential: scenarios/atapi on the SystemC drive model (model/atapi) and on
QEMU's ide-cd (the QEMU backend attaches one on a disc image the harness writes from the
scenario's disc data, and moves its tray through QMP), compared step by step.

Each workload step of an ATAPI scenario leaves its records in trace.jsonl: `scsi.result` (a
`kind: scsi` step, or its alias `kind: packet`: the SAM status, the sense bytes EH read with
REQUEST SENSE as the SCSI layer got them, the first 64 data bytes), `packet.verify` (a READ's
blocks checked against the disc in the drive) or `tray.event` (whether the tray event
happened). What is compared per step: status, sense (key/ASC/ASCQ, byte 0, the other bytes),
data (for a READ the verified block count and the bad ones, else the data bytes) and the
tray event's outcome.
Timing is not compared: QEMU runs in real time.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from .results import ROOT

ATAPI_SCENARIOS = ROOT / "scenarios" / "atapi"


def qemu_scenarios() -> list[Path]:
    """The ATAPI scenarios QEMU can run: those on a controller whose row lists the QEMU
    backend (its one AHCI; satasim.controller_table), without faults (QEMU's ide-cd has no
    fault injection: the atapi-fault-* scenarios are the satasim models' own, checked by their
    goldens)."""
    from satasim.controller_table import DEFAULT, TABLE
    out = []
    for p in sorted(ATAPI_SCENARIOS.glob("*.yaml")):
        doc = yaml.safe_load(p.read_text())
        ctl = (doc.get("controller") or {}).get("type", DEFAULT)
        if "qemu" in TABLE[ctl]["backends"] and not doc.get("faults"):
            out.append(p)
    return out


def sense_fields(hex_sense: str) -> dict:
    """A scsi step's sense bytes as compared: the key/ASC/ASCQ (fixed or descriptor format),
    the first byte (response code and VALID), and the other bytes with those fields blanked
    (so one difference is reported once, under its own name)."""
    b = [int(x, 16) for x in hex_sense.split()] if hex_sense else []
    if not b:
        return {"sense": None, "sense_byte0": None, "sense_rest": None}
    if (b[0] & 0x7f) >= 0x72 and len(b) >= 4:
        key, pos = (b[1] & 0xf, b[2], b[3]), (0, 1, 2, 3)
    elif len(b) >= 14:
        key, pos = (b[2] & 0xf, b[12], b[13]), (0, 2, 12, 13)
    else:
        key, pos = (0, 0, 0), (0,)
    rest = " ".join("--" if i in pos else f"{x:02x}" for i, x in enumerate(b))
    return {"sense": f"{key[0]:x}/{key[1]:02x}/{key[2]:02x}", "sense_byte0": f"{b[0]:02x}", "sense_rest": rest}


@dataclass(frozen=True)
class Step:
    kind: str            # packet | scsi | tray
    what: str            # the CDB (or the tray action), for messages
    fields: tuple        # ((name, value), ...): what is compared

    def get(self, name):
        return dict(self.fields).get(name)


def steps(run_dir) -> dict[int, Step]:
    """The steps of one run, by workload index, from its trace.jsonl."""
    out: dict[int, dict] = {}
    kinds: dict[int, str] = {}
    for line in (Path(run_dir) / "trace.jsonl").read_text().splitlines():
        r = json.loads(line)
        ev, f = r.get("ev"), r.get("f", {})
        if "workload" not in f:
            continue
        w = int(f["workload"])
        if ev == "workload.start":
            kinds[w] = f["kind"]
        elif ev == "packet.verify":
            out.setdefault(w, {})["data"] = f"{f['blocks']} blocks from lba {f['lba']}, {f['bad']} bad"
        elif ev == "scsi.result":
            d = out.setdefault(w, {})
            d.update({"what": "SCSI " + f["cdb"], "status": f["status"], "rc": f["rc"], **sense_fields(f["sense"])})
            d.setdefault("data", f["data"] or None)
        elif ev == "tray.event":
            out[w] = {"what": "tray " + f["action"], "done": f["done"]}
    return {w: Step(kinds.get(w, "?"), d.pop("what", ""), tuple(sorted(d.items()))) for w, d in out.items()}


@dataclass(frozen=True)
class StepDifference:
    scenario: str
    step: int
    what: str        # the step's CDB / tray action
    field: str       # status | sense | data | done | rc | step
    systemc: object
    qemu: object

    def __str__(self):
        return (f"{self.scenario} workload[{self.step}] ({self.what}): {self.field}: "
                f"systemc={self.systemc!r} qemu={self.qemu!r}")


def compare_steps(name: str, sys_dir, qemu_dir) -> tuple[int, list[StepDifference]]:
    """(steps compared, differences) of one scenario's two runs."""
    a, b = steps(Path(sys_dir) / name), steps(Path(qemu_dir) / name)
    diffs = []
    for w in sorted(set(a) | set(b)):
        if w not in a or w not in b:
            diffs.append(StepDifference(name, w, (a.get(w) or b.get(w)).what, "step",
                                        "ran" if w in a else None, "ran" if w in b else None))
            continue
        x, y = a[w], b[w]
        for field in sorted(set(dict(x.fields)) | set(dict(y.fields))):
            if x.get(field) != y.get(field):
                diffs.append(StepDifference(name, w, x.what, field, x.get(field), y.get(field)))
    return len(set(a) & set(b)), diffs


def matches(entry: dict, d: StepDifference) -> bool:
    """Whether a known-difference entry (scenario glob, step or None for any, a field or a
    list of them, the systemc and qemu values: a missing value matches any) describes this
    difference."""
    if not fnmatch.fnmatchcase(d.scenario, entry["scenario"]):
        return False
    if entry.get("step") is not None and entry["step"] != d.step:
        return False
    fields = entry["field"] if isinstance(entry["field"], list) else [entry["field"]]
    if d.field not in fields:
        return False
    for side in ("systemc", "qemu"):
        if side in entry and entry[side] != getattr(d, side):
            return False
    return True
