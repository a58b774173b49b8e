"""The controller rewrite: an AHCI scenario run on another controller model.

One adapter for everything that runs a scenario written for AHCI on the SiI3124 (the
parametrised controller suite, the fault suite, the sil24 goldens, the main job): the
scenario's controller block becomes the target controller (keeping its port count) and
the expectations that legitimately differ per controller are rewritten, never dropped.

What differs on a SiI3124 (as Linux's sata_sil24 drives it):
  * 3.0 Gbps PHY: links negotiate down to Gen2; a speed-down therefore goes 3.0 -> 1.5 Gbps
    (AHCI: 6.0 -> 3.0), and the "limiting SATA link speed to" line follows;
  * UDMA/100 host mask (ATA_UDMA5);
  * NCQ depth 31 (31 slots, all for NCQ: "depth 31/32"; AHCI 32 under libata-modern, whose
    internal commands borrow slot 0, 31 under libata-2006, which keeps tag 31 for them);
  * its reset path leaves SControl 0.

What differs on an ICH/PIIX in IDE mode (as Linux's ata_piix drives it):
  * two channels, 3.0 Gbps PHY, UDMA/133, no NCQ (as the SiI3112 above);
  * no SCRs: EH resets with SRST only and nothing reads the link: expected link
    generations become 0 (the report's "unknown"), and an expected
    "ataN: SATA link up ..." or "ataN.00: configured for ..." line becomes "ataN.00: ATA-" (the
    IDENTIFY line: a device answered; the boot probe's softreset is quiet about the mode);

What differs on a SiI3112 (a taskfile controller, as Linux's sata_sil drives it):
  * two channels, 1.5 Gbps PHY (links negotiate down to Gen1), UDMA/100 host mask;
  * no NCQ, one command at a time: a workload asking for NCQ runs as DMA (`mode: ncq` ->
    `dma`, the NCQ request that the scenario expects to be refused keeps its verdict),
    probe expectations say `ncq: false`, and the capacity line says "NCQ (depth 0/32)";
  * not adaptable: scenarios about NCQ itself (their point is queueing), more than two
    ports, port multipliers (a taskfile channel cannot address one), and the fault suite
    (written around AHCI/SiI3124 error reporting; the taskfile faults have their own
    scenarios).

CLI (PYTHONPATH=harness):
  python3 -m satasim.controllers adapt --controller sil24 --out DIR SCENARIO_OR_DIR...
writes the adapted scenarios to DIR under their own file names (scenario names unchanged).

Scenarios are read and written as the simulator reads them (satasim.scenario_file: every
scalar kept as written, so `serial: 00001234` stays 00001234); adapt() converts the few
values it computes with (gen, ncq_depth) by the simulator's rules.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import sys
from pathlib import Path

import yaml

from .controller_table import DEFAULT, REFERENCE, TABLE
from .results import made_once
from .scenario_file import as_uint, dump_yaml, load_yaml

ROOT = Path(__file__).resolve().parents[2]

# Default scenarios that are AHCI-specific by nature, with the reason. Empty today: every
# default and fault scenario is controller-neutral.
AHCI_ONLY: dict[str, str] = {
    # "name": "reason",
    "pmp-media-error-ncq": "with three fan-out links busy, any command error on a SiI3124 is its 'PMP DMA "
                           "CS errata' (the whole port frozen and reset, every link's commands retried), so "
                           "'the other disks are not touched' does not hold there; scenarios/pmp/"
                           "pmp-dma-cs-errata-sil24.yaml is that case on the SiI3124",
}
GEN_SPEED = {1: "1.5 Gbps", 2: "3.0 Gbps", 3: "6.0 Gbps"}
UDMA_NAMES = {5: "UDMA/100", 6: "UDMA/133"}

# The simulator's controller descriptor table (satasim.controller_table) gives every fact
# below: no controller is named here. REFERENCE is the controller the suites are written for.

# Fault kinds the reference controller takes that ctl does not (the scenario reader refuses
# them there): AHCI_FAULT_KINDS is the reference's own (no other row takes them).
def _missing_fault_kinds(ctl: str) -> set[str]:
    return set(TABLE[REFERENCE]["fault_kinds"]).difference(TABLE[ctl]["fault_kinds"])


AHCI_FAULT_KINDS = set(TABLE[REFERENCE]["fault_kinds"]).difference(
    *(r["fault_kinds"] for n, r in TABLE.items() if n != REFERENCE))


def _controller(name: str) -> dict:
    """The adaptation's view of a controller, from its table row: the capabilities (max_gen,
    max_udma, ncq_depth, channels, SCRs), the controller block an adapted scenario gets (the
    type and the reference's keys it keeps, adapt_keeps) and the log lines rewritten
    (adapt_log)."""
    r = TABLE[name]
    t = dict(max_gen=r["max_gen"], max_udma=r["max_udma"], ncq_depth=r["ncq_depth"],
             model_src=r["model_instance"], reference=r["reference"], keeps=r["adapt_keeps"],
             log=[tuple(x) for x in r["adapt_log"]])
    if r["ncq"] == "never":
        t["ncq"] = False
    if r["taskfile"]:  # one command at a time on a fixed pair of channels
        t["max_ports"] = r["max_ports"]
    if not r["scr"]:
        t["no_scr"] = True
    return t


CONTROLLERS = {name: _controller(name) for name in TABLE}

# Scenarios whose point is NCQ (queueing order, queued timing): nothing to run on a
# controller without it.
NCQ_SCENARIOS = {"ncq-qd32-random", "ncq-qd32-reverse", "ssd-timing", "hdd-timing"}

_SPEED_DOWN = re.compile(r"limiting SATA link speed to (\d\.\d) Gbps")
_GEN_OF_SPEED = {v.split()[0]: k for k, v in GEN_SPEED.items()}
ADAPTED_MARK = "satasim.controllers: adapted for {ctl} from {src}"


class AdaptError(Exception):
    pass


def _sub_all(line, table):
    for pat, rep in table:
        line = re.sub(pat, rep, line)
    return line


def _port(d):
    """A device's or expectation's host port (None if not given), as a number."""
    return as_uint(d["port"]) if d.get("port") is not None else None


def adapt(spec: dict, ctl: str) -> dict:
    """The scenario rewritten for controller ctl (a new dict; spec itself for the reference controller)."""
    t = CONTROLLERS[ctl]
    if t["reference"]:
        return spec
    spec = copy.deepcopy(spec)
    given = dict(spec.get("controller") or {})
    given.setdefault("ports", TABLE[REFERENCE]["default_ports"])
    spec["controller"] = {"type": ctl, **{k: given[k] for k in t["keeps"] if k in given}}
    exp = spec.get("expect") or {}
    max_gen, max_udma = t["max_gen"], t["max_udma"]

    if t.get("no_scr"):
        # No link line without SCRs, and a boot probe without hardreset is quiet about the
        # mode (the core's rule, libata's: "configured for" only unless quiet or after a
        # hardreset): "ataN: SATA link up ..." and "ataN.00: configured for ..." (a device
        # answered there) become the IDENTIFY line "ataN.00: ATA-"; devices[] keeps the mode.
        if "log_contains" in exp:
            exp["log_contains"] = [re.sub(r"^(ata\d+)(\.00)?: (SATA link up|configured for) .*$", r"\1.00: ATA-", l)
                                   for l in exp["log_contains"]]
    if not t.get("ncq", True):
        # No NCQ: what asked for it runs as DMA, one command at a time.
        for w in spec.get("workload", []):
            if str(w.get("mode", "")) == "ncq" and "expect_submit" not in w:
                w["mode"] = "dma"
        for key in ("devices", "devices_after"):
            for d in exp.get(key, []):
                if "ncq" in d:
                    d["ncq"] = False
                d.pop("ncq_depth", None)

    # Probe expectations: capped at the controller's limits. Without SCRs the stack cannot
    # read the link speed: the report's link generation is 0 (unknown).
    for d in exp.get("devices", []):
        if "gen" in d:
            d["gen"] = 0 if t.get("no_scr") else min(as_uint(d["gen"]), max_gen)
        if d.get("xfer") == UDMA_NAMES[6]:
            d["xfer"] = UDMA_NAMES[max_udma]
        if "ncq_depth" in d:
            d["ncq_depth"] = min(as_uint(d["ncq_depth"]), t["ncq_depth"])

    # A speed-down the stack decides ("limiting SATA link speed to X") steps down from where
    # the link is on this controller, not from where it was on AHCI: the same number of
    # steps below the controller's (capped) link speed.
    configured = {_port(d): as_uint(d.get("gen", 3)) for d in spec.get("devices", [])}
    single = next(iter(configured.values())) if len(configured) == 1 else None

    def lowered(gen_after, cfg):
        return max(1, min(cfg, max_gen) - (min(cfg, 3) - gen_after))

    log_table = []
    for key in ("log_contains", "log_not_contains"):
        for line in exp.get(key, []):
            for m in _SPEED_DOWN.finditer(line):
                g = _GEN_OF_SPEED[m.group(1)]
                cfgs = [configured.get(_port(d), 3) for d in exp.get("devices_after", [])
                        if "gen" in d and d["gen"] != "probe" and as_uint(d["gen"]) == g] or ([single] if single else [])
                if cfgs:
                    log_table.append((re.escape(m.group(0)),
                                      "limiting SATA link speed to %s" % GEN_SPEED[lowered(g, cfgs[0])]))
    speed_down = bool(log_table)
    log_table += t["log"]
    for d in exp.get("devices_after", []):
        if d.get("gen") == "probe":
            pass  # the probe's own speed on this controller: nothing to rewrite
        elif "gen" in d and t.get("no_scr"):
            d["gen"] = 0
        elif "gen" in d:
            cfg = configured.get(_port(d), 3)
            gen = as_uint(d["gen"])
            if speed_down and gen < min(cfg, 3):
                d["gen"] = lowered(gen, cfg)
            else:
                d["gen"] = min(gen, max_gen)
        if d.get("xfer") == UDMA_NAMES[6]:
            d["xfer"] = UDMA_NAMES[max_udma]
        if "ncq_depth" in d:
            d["ncq_depth"] = min(as_uint(d["ncq_depth"]), t["ncq_depth"])
    # The speed-down line first (its 3.0 must not be confused with a link-up line's).
    for key in ("log_contains", "log_not_contains"):
        if key in exp:
            exp[key] = [_sub_all(line, log_table) for line in exp[key]]
    return spec


SCENARIO_KEYS = ("name", "controller", "devices", "workload")


def is_scenario(spec) -> bool:
    """A scenario file (not another YAML in a scenario folder, e.g. the testplan)."""
    return isinstance(spec, dict) and any(k in spec for k in SCENARIO_KEYS)


def adaptable(spec: dict, ctl: str) -> str | None:
    """None if the scenario can be adapted for ctl, else why not."""
    if not isinstance(spec, dict):
        return "not a scenario mapping"
    if spec.get("backend", "systemc") != "systemc":
        return f"backend {spec['backend']}: only SystemC scenarios run on other controller models"
    have = (spec.get("controller") or {}).get("type", DEFAULT)
    if have != REFERENCE:
        return f"written for controller {have}, not {REFERENCE}"
    name = spec.get("name")
    t = CONTROLLERS[ctl]
    if not t["reference"] and name in AHCI_ONLY:
        return f"AHCI-only: {AHCI_ONLY[name]}"
    if not t["reference"]:
        kinds = {f.get("kind") for f in spec.get("faults") or [] if isinstance(f, dict)}
        if kinds & _missing_fault_kinds(ctl):
            return f"fault {sorted(kinds & _missing_fault_kinds(ctl))[0]}: acts on an AHCI port's DMA engine"
    if not t.get("ncq", True) and name in NCQ_SCENARIOS:
        return f"about NCQ: {ctl} has none"
    ports = [as_uint(d["port"]) for d in spec.get("devices", []) if d.get("port") is not None]
    if "max_ports" in t and ports and max(ports) >= t["max_ports"]:
        return f"uses port {max(ports)}: {ctl} has {t['max_ports']} channels"
    if "max_ports" in t and spec.get("pmps"):
        return f"port multipliers: a {ctl} channel cannot address one"
    if not t.get("ncq", True) and spec.get("faults"):
        return f"injected faults: the fault suite is not adapted for {ctl} (taskfile faults are its own scenarios)"
    return None


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _is_scenario_file(path: Path) -> bool:
    try:
        return is_scenario(load_yaml(path.read_text()))
    except (OSError, yaml.YAMLError):
        return True     # let adapt_file report it


def _why_not(path: Path, ctl: str) -> str | None:
    try:
        return adaptable(load_yaml(path.read_text()), ctl)
    except (OSError, yaml.YAMLError):
        return None     # let adapt_file report it


def adapt_file(src: Path, ctl: str) -> dict:
    """The adapted scenario of one file (AdaptError if it cannot run on ctl)."""
    try:
        spec = load_yaml(src.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise AdaptError(f"{src}: {e}") from None
    why = adaptable(spec, ctl)
    if why:
        raise AdaptError(f"{src}: {why}")
    spec = adapt(spec, ctl)
    spec.setdefault("name", src.stem)
    if not CONTROLLERS[ctl]["reference"]:
        mark = ADAPTED_MARK.format(ctl=ctl, src=_rel(src))
        desc = str(spec.get("description", "")).strip()
        spec["description"] = f"{desc} ({mark})" if desc else f"({mark})"
    return spec


def adapted_source(description: str) -> tuple[str, str] | None:
    """(controller, source file) if a description carries the adapter's mark."""
    m = re.search(r"satasim\.controllers: adapted for (\S+) from (\S+?)\)?$", description or "")
    return (m.group(1), m.group(2)) if m else None


def write_adapted(sources, ctl: str, out_dir, skipped: list | None = None) -> list[Path]:
    """Adapts scenario files and folders (their *.yaml) into out_dir; returns the new paths.
    skipped: gets {"file", "why"} for each scenario of a folder left out."""
    files = []
    for s in sources:
        p = Path(s)
        if p.is_dir():
            found = [f for f in sorted(p.glob("*.yaml")) if _is_scenario_file(f)]
            if not found:
                raise AdaptError(f"{p}: no *.yaml scenarios here")
            # A folder's scenarios that cannot run on ctl are left out, and said so (a file
            # named on its own is refused instead).
            for f in found:
                why = _why_not(f, ctl)
                if why:
                    print(f"{f}: skipped: {why}", file=sys.stderr)
                    if skipped is not None:
                        skipped.append({"file": str(f), "why": why})
                else:
                    files.append(f)
        elif p.is_file():
            files.append(p)
        else:
            raise AdaptError(f"{p}: no such scenario file or folder")
    out_dir = Path(out_dir)
    seen: dict[str, Path] = {}
    names: dict[str, Path] = {}
    specs = []
    for f in files:
        spec = adapt_file(f, ctl)
        if f.name in seen:
            raise AdaptError(f"{f}: same file name as {seen[f.name]} (both would be {out_dir / f.name})")
        if spec["name"] in names:
            raise AdaptError(f"{f}: same scenario name {spec['name']} as {names[spec['name']]}")
        seen[f.name], names[spec["name"]] = f, f
        specs.append((f, spec))
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for f, spec in specs:
        dst = out_dir / f.name
        dst.write_text(dump_yaml(spec))
        written.append(dst)
    return written


def write_adapted_shared(path, ctl: str, out_dir) -> Path:
    """write_adapted for one scenario file, in a test session: the adapted copy is written
    once, at one path, for every test that runs it ($SATASIM_TEST_RUN_CACHE/adapted/), so the
    suite's, the controller table's, the fault tests' and the golden's runs of it are one
    run (satasim.run_shared keys a run by its input's content and path: a copy per test's
    temporary folder made each of them a run of its own). Without a session, out_dir."""
    cache = os.environ.get("SATASIM_TEST_RUN_CACHE")
    if not cache:
        return write_adapted([path], ctl, out_dir)[0]
    src = Path(path).resolve()
    key = hashlib.sha256(f"{ctl}\0{src}\0{src.read_bytes().hex()}".encode()).hexdigest()[:24]
    return made_once(Path(cache) / "adapted", key, lambda tmp: write_adapted([src], ctl, tmp)) / src.name


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.controllers",
                                 description="Rewrite AHCI scenarios for another controller model.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("adapt", help="write adapted scenario files")
    p.add_argument("--controller", required=True, choices=sorted(CONTROLLERS))
    p.add_argument("--out", required=True, help="folder for the adapted scenario files")
    p.add_argument("--skipped-out", metavar="FILE",
                   help="write the scenarios left out, with why, as JSON (satasim.report --suite reads it)")
    p.add_argument("sources", nargs="+", metavar="SCENARIO_OR_DIR")
    args = ap.parse_args(argv)
    skipped: list = []
    try:
        written = write_adapted(args.sources, args.controller, args.out, skipped)
    except AdaptError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.skipped_out:
        Path(args.skipped_out).write_text(json.dumps(skipped, indent=1) + "\n")
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
