"""Synthetic trace records and run folders for the golden, render and ordering tests."""

import json
from pathlib import Path


def rec(t_ns, ev, cls="decision", port=0, src="stack", dev=-1, link=-1, msg="", lvl=None, **f):
    """One trace record as the simulator writes it (fields named try_/cls_ lose the '_')."""
    r = {"t_ns": t_ns, "seq": 0, "src": src, "ev": ev, "cls": cls, "port": port}
    if lvl is not None:
        r["lvl"] = lvl
    if link != -1:
        r["link"] = link
    if dev != -1:
        r["dev"] = dev
    r["f"] = f
    if msg:
        r["msg"] = msg
    return r


def fix_keys(r):
    # Python keywords / clashes in rec(): try_ -> try, cls_ -> cls
    r["f"] = {k.rstrip("_"): v for k, v in r["f"].items()}
    return r


def write_run(out_dir, name, records, controller="ahci", verdict="pass", scenario_file="",
              backend="systemc"):
    """A run folder (trace.jsonl after a run.start record, result.json) as `satasim run` leaves it."""
    d = Path(out_dir) / name
    d.mkdir(parents=True, exist_ok=True)
    head = rec(0, "run.start", cls="info", port=-1, src="harness", scenario=name, seed=1,
               controller=controller, ports=4, disks=1)
    recs = [head] + [fix_keys(dict(r)) for r in records]
    for i, r in enumerate(recs):
        r["seq"] = i
    (d / "trace.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs))
    (d / "result.json").write_text(json.dumps({
        "name": name, "file": scenario_file, "seed": 1, "backend": backend,
        "verdict": verdict, "reasons": [] if verdict == "pass" else ["boom"],
        "controller": {"type": controller, "ports": 4}, "devices": []}))
    return d
