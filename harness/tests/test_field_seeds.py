"""Field scenarios must show their symptom with any seed, not only with their own.

scenarios/field/sil24-pcix-lost-irq.yaml (issue 17 item 7): a SiI3124 on PCI-X without the
IRQ_WOC workaround loses completion interrupts. Under NCQ load every lost one is reported
by the next completion's interrupt (its slot-status read shows the slot done), so nothing
is visible; a command times out only when its interrupt is lost with nothing completing
after it. The timeout's lost-interrupt check then finds it complete and finishes it: the
field symptom. The seed changes the NCQ completion order and the mix of commands, so the
scenario must make such a command happen whatever the seed does."""

from collections import Counter
from pathlib import Path

import pytest
import yaml

from satasim import load_result, load_trace, run

ROOT = Path(__file__).resolve().parents[2]
PCIX_LOST_IRQ = ROOT / "scenarios" / "field" / "sil24-pcix-lost-irq.yaml"
SYMPTOM = "ata1: lost interrupt: 1 command(s) had completed"
TIMEOUT_NS = 30_000_000_000  # the command timeout of a data command (30 s)
SEEDS = list(range(1, 16)) + [3124]  # 3124: the scenario's own seed


def with_seed(path, seed, tmp_path):
    spec = yaml.safe_load(path.read_text())
    spec["seed"] = seed
    src = tmp_path / f"{path.stem}-seed{seed}.yaml"
    src.write_text(yaml.safe_dump(spec, sort_keys=False))
    return spec, src


@pytest.mark.parametrize("seed", SEEDS)
def test_sil24_pcix_lost_irq_holds_across_seeds(seed, tmp_path, decisions_binary):
    # a symptom across seeds: decisions, so the release build where there is one (the
    # scenario's own seed runs under the sanitizers in test_suite)
    spec, src = with_seed(PCIX_LOST_IRQ, seed, tmp_path)
    name = spec["name"]
    out = tmp_path / "out"
    result = run([src], out)
    log = (out / name / "satasim.log").read_text()
    trace = load_trace(out, name)
    res = load_result(out, name)
    ev = Counter(r["ev"] for r in trace)

    # the symptom: the erratum swallowed completion interrupts, and a command was found
    # complete by the timeout's lost-interrupt check
    assert SYMPTOM in log, f"seed {seed}: no lost-interrupt recovery; {ev['sil24.irq_lost']} " \
                           f"interrupts lost, log:\n{log}"
    assert ev["sil24.irq_lost"] >= 1
    assert ev["eh.lost_interrupt"] >= 1
    assert "Applying completion IRQ loss on PCI-X errata fix" not in log

    # the recovery path: the command's own timeout (30 s after its issue) found it done;
    # it completed without error, with no EH (no timeout verdict, no reset beyond the boot
    # probe's hard and soft reset, no exception)
    issued = {}
    done_at = {}
    for r in trace:
        if r["ev"] == "qc.issue":
            issued[r["f"]["tag"]] = r["t_ns"]
        elif r["ev"] == "qc.done":
            done_at[r["f"]["tag"]] = (r["t_ns"], r["f"]["err_mask"])
        elif r["ev"] == "eh.lost_interrupt":
            tag = r["f"]["tag"]
            assert r["t_ns"] - issued[tag] == TIMEOUT_NS, r
            assert done_at.get(tag) == (r["t_ns"], "0x0"), r
    assert ev["qc.timeout"] == 0
    assert ev["eh.reset"] == 2
    assert "exception Emask" not in log

    # and the run is the field report's "then the disk recovers": every command done,
    # nothing failed, the data verified
    assert result.returncode == 0, result.stdout + result.stderr
    assert res["verdict"] == "pass", res.get("reasons")
    assert res["io_errors"] == 0 and res["data_errors"] == 0
    assert res["commands"] == sum(w["count"] for w in spec["workload"])
