"""NCQ at depth 32: the queue really fills, the drive's completion order policy shows in the
order the stack completes tags, and every byte read back is what was written."""

import pytest

from satasim import load_result, load_trace, run

SCENARIO = """\
name: ncq-{order}
seed: 5
controller: {{type: ahci, ports: 1, slots: 32}}
devices:
  - port: 0
    ncq_order: {order}
    timing: {{kind: hdd, rpm: 7200, seek: 4ms}}
workload:
  - device: 0
    op: write
    pattern: random
    block: 4k
    qd: 32
    count: 200
    mode: ncq
    region: {{start: 0, length: 4m}}
  - device: 0
    barrier: true
    op: read
    pattern: random
    block: 4k
    qd: 32
    count: 400
    mode: ncq
    region: {{start: 0, length: 4m}}
"""

NCQ_OPCODES = {"0x60", "0x61"}


def ncq_commands(trace):
    """(issue time, completion time) of each NCQ command in issue order, and the peak
    number outstanding."""
    cmds, outstanding, peak = [], {}, 0
    for rec in trace:
        if rec["ev"] not in ("qc.issue", "qc.done") or rec["f"].get("cmd") not in NCQ_OPCODES:
            continue
        tag = rec["f"]["tag"]
        if rec["ev"] == "qc.issue":
            assert tag not in outstanding, f"tag {tag} issued twice"
            outstanding[tag] = len(cmds)
            cmds.append([rec["t_ns"], None])
            peak = max(peak, len(outstanding))
        else:
            cmds[outstanding.pop(tag)][1] = rec["t_ns"]
    return cmds, peak


def overtakes(cmds):
    """Commands that finished strictly before a command issued strictly earlier. Commands
    issued at the same instant may reach the drive in any order (the HBA picks among the
    PxCI bits), and tags reported by one SDB FIS finish together: neither is an overtake."""
    count, latest_done_before = 0, -1
    group_issue, group_latest = None, -1
    for issued, done in cmds:
        if issued != group_issue:
            latest_done_before = max(latest_done_before, group_latest)
            group_issue, group_latest = issued, -1
        if done < latest_done_before:
            count += 1
        group_latest = max(group_latest, done)
    return count


@pytest.mark.parametrize("order", ["in_order", "reverse", "random"])
def test_ncq_depth_and_completion_order(order, write_scenario, tmp_path):
    path = write_scenario(SCENARIO.format(order=order), name=f"{order}.yaml")
    result = run([path], tmp_path, "--trace-cmds", "on")
    assert result.returncode == 0, result.stdout + result.stderr
    name = f"ncq-{order}"
    res = load_result(tmp_path, name)
    assert res["verdict"] == "pass", res["reasons"]
    assert res["data_errors"] == 0
    # min(device 32, host 32): libata-modern gives EH's internal command a tag of its own
    assert res["devices"][0]["ncq_depth"] == 32
    assert sum(w["reads"] for w in res["workloads"]) == 400

    cmds, peak = ncq_commands(load_trace(tmp_path, name))
    assert len(cmds) == 600 and all(done is not None for _, done in cmds)
    assert peak == 32  # all 32 tags queued at once
    if order == "in_order":
        assert overtakes(cmds) == 0
    else:
        # Out of order: a good share of commands overtake one issued before them.
        assert overtakes(cmds) > len(cmds) // 10
