"""The EH decision oracle (harness/src/trace/eh_rules.h, docs/eh-rules.md) on hand-made
traces: for every rule one trace that breaks it (the rule is named) and the same trace with
the decision libata makes (no violation). `satasim eh-check` reads trace.jsonl files the
way the monitor sees a live run's records."""

import json
import os
import subprocess

import pytest

from satasim.results import binary


def rec(t_ms, ev, src="stack", port=0, link=None, dev=None, **f):
    r = {"t_ns": int(t_ms * 1_000_000), "seq": 0, "src": src, "ev": ev,
         "cls": "decision" if src == "stack" else "model", "lvl": "debug", "port": port}
    if link is not None:
        r["link"] = link
    if dev is not None:
        r["dev"] = dev
    r["f"] = {k: (hex(v) if k in HEX and isinstance(v, int) else v) for k, v in f.items()}
    return r


HEX = {"irq_stat", "serror", "emask", "action", "err_mask", "value", "ports", "limit", "sact", "serr"}


def eh_check(tmp_path, records, name="trace.jsonl"):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run([str(binary()), "eh-check", str(p)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    rules = [line.split(": ", 1)[1].split(" at ", 1)[0] for line in r.stdout.splitlines() if line.strip()]
    assert (r.returncode == 1) == bool(rules), r.stdout
    return rules


LINK_UP = dict(spd=3, speed="6.0 Gbps", sstatus=0x133, scontrol=0x300)

# rule -> (trace that breaks it, the same with libata's decision)
CASES = {
    "reset-after-freeze": (
        [rec(0, "probe.link_up", **LINK_UP),
         rec(10, "ahci.error_irq", irq_stat=0x400000, serror=0x10000, freeze=True),
         rec(20, "qc.issue", dev=0, tag=0, cmd=0x60, bytes=4096)],
        [rec(0, "probe.link_up", **LINK_UP),
         rec(10, "ahci.error_irq", irq_stat=0x400000, serror=0x10000, freeze=True),
         rec(11, "eh.reset", method="hard", **{"try": 1}),
         rec(20, "qc.issue", dev=0, tag=0, cmd=0x60, bytes=4096)],
    ),
    "interface-error-is-link-error": (
        # SiI3124 PORT_CMD_ERR 3 (error in data FIS) taken for a device error: no freeze
        [rec(10, "sil24.error_irq", cmd_err=3, freeze=False, irq_stat=0x20002, serror=0x400100),
         rec(10, "eh.exception", dev=0, emask=0x10, action=0x6, frozen=False,
             desc="irq_stat 0x00020002, error in data FIS", nr_failed=1)],
        [rec(10, "sil24.error_irq", cmd_err=3, freeze=True, irq_stat=0x20002, serror=0x400100),
         rec(10, "eh.exception", dev=0, emask=0x10, action=0x6, frozen=True,
             desc="irq_stat 0x00020002, error in data FIS", nr_failed=1)],
    ),
    "hba-error-decoded": (
        # PxIS.IFS read, the report does not say so
        [rec(10, "ahci.error_irq", irq_stat=0x8000000, serror=0x400100, freeze=True),
         rec(10, "eh.exception", dev=0, emask=0x10, action=0x6, frozen=True, desc="irq_stat 0x08000000", nr_failed=1),
         rec(10, "eh.reset", method="hard", **{"try": 1})],
        [rec(10, "ahci.error_irq", irq_stat=0x8000000, serror=0x400100, freeze=True),
         rec(10, "eh.exception", dev=0, emask=0x10, action=0x6, frozen=True,
             desc="irq_stat 0x08000000, interface fatal error", nr_failed=1),
         rec(10, "eh.reset", method="hard", **{"try": 1})],
    ),
    "ncq-culprit-is-failed-tag": (
        [rec(10, "disk.ncq_error", src="disk0", dev=0, cause="command failed", cmd=0x60, tag=9, error=0x40),
         rec(11, "eh.ncq_culprit", tag=10, stat=0x41, err=0x40)],
        [rec(10, "disk.ncq_error", src="disk0", dev=0, cause="command failed", cmd=0x60, tag=9, error=0x40),
         rec(11, "eh.ncq_culprit", tag=9, stat=0x41, err=0x40)],
    ),
    "spd-limit-lowers-speed": (
        # a 3.0 Gbps link "limited" to 3.0 Gbps
        [rec(0, "probe.link_up", spd=2, speed="3.0 Gbps", sstatus=0x123, scontrol=0x300),
         rec(10, "eh.spd_limit", limit=0x3, spd=2, speed="3.0 Gbps")],
        [rec(0, "probe.link_up", spd=2, speed="3.0 Gbps", sstatus=0x123, scontrol=0x300),
         rec(10, "eh.spd_limit", limit=0x1, spd=1, speed="1.5 Gbps")],
    ),
    "dev-tries-per-run": (
        # the second EH run starts with the tries the first one left
        [rec(10, "eh.exception", dev=0, emask=0x10, action=0xe, frozen=True, desc="", nr_failed=0),
         rec(11, "eh.recover_retry", errno=-5, tries=2),
         rec(20, "eh.exception", dev=0, emask=0x10, action=0xe, frozen=True, desc="", nr_failed=0),
         rec(21, "eh.recover_retry", errno=-5, tries=1)],
        [rec(10, "eh.exception", dev=0, emask=0x10, action=0xe, frozen=True, desc="", nr_failed=0),
         rec(11, "eh.recover_retry", errno=-5, tries=2),
         rec(12, "eh.recover_retry", errno=-5, tries=1),
         rec(20, "eh.exception", dev=0, emask=0x10, action=0xe, frozen=True, desc="", nr_failed=0),
         rec(21, "eh.recover_retry", errno=-5, tries=2)],
    ),
    "pmp-event-serror-cleared": (
        [rec(10, "pmp.read", src="pmp0", link=15, reg=32, value=0x2, ok=True),
         rec(10, "pmp.events", link=15, ports=0x2, tries_left=5),
         rec(11, "pmp.read", src="pmp0", link=1, reg=1, value=0x4010000, ok=True),
         rec(12, "pmp.write", src="pmp0", link=1, reg=2, value=0x301, ok=True)],
        [rec(10, "pmp.read", src="pmp0", link=15, reg=32, value=0x2, ok=True),
         rec(10, "pmp.events", link=15, ports=0x2, tries_left=5),
         rec(11, "pmp.read", src="pmp0", link=1, reg=1, value=0x4010000, ok=True),
         rec(11, "pmp.write", src="pmp0", link=1, reg=1, value=0x4010000, ok=True),
         rec(12, "pmp.write", src="pmp0", link=1, reg=2, value=0x301, ok=True)],
    ),
    "hotplug-debounce-timing": (
        [rec(632, "eh.exception", port=1, emask=0x10, action=0xe, frozen=True,
             desc="irq_stat 0x00000040, connection status changed", nr_failed=0),
         rec(632, "eh.reset", port=1, method="hard", **{"try": 1}),
         rec(933, "probe.link_up", port=1, **LINK_UP)],
        [rec(632, "eh.exception", port=1, emask=0x10, action=0xe, frozen=True,
             desc="irq_stat 0x00000040, connection status changed", nr_failed=0),
         rec(632, "eh.reset", port=1, method="hard", **{"try": 1}),
         rec(1333, "probe.link_up", port=1, **LINK_UP)],
    ),
    "pmp-phy-change-latches-n": (
        [rec(10, "pmp.port_phy", src="pmp0", link=2, ready=False, gen=0),
         rec(20, "pmp.read", src="pmp0", link=2, reg=1, value=0x0, ok=True)],
        [rec(10, "pmp.port_phy", src="pmp0", link=2, ready=False, gen=0),
         rec(20, "pmp.read", src="pmp0", link=2, reg=1, value=0x10000, ok=True)],
    ),
    "internal-cmd-refused-unfrozen": (
        # IDENTIFY refused (no tag) right after a reset that thawed the port
        [rec(10, "eh.reset", method="hard", **{"try": 1}),
         rec(11, "probe.link_up", **LINK_UP),
         rec(11, "probe.class", cls="ata"),
         rec(11, "probe.identify_failed", dev=0, err_mask=0x40, errno=-5, reason="I/O error")],
        # the same failure while the port is frozen (a timeout froze it) is libata's refusal
        [rec(10, "eh.reset", method="hard", **{"try": 1}),
         rec(11, "probe.link_up", **LINK_UP),
         rec(11, "probe.class", cls="ata"),
         rec(12, "qc.internal_timeout", dev=0, cmd=0xec, timeout_ms=5000),
         rec(12, "probe.identify_failed", dev=0, err_mask=0x40, errno=-5, reason="I/O error")],
    ),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_breaks_and_holds(tmp_path, rule):
    broken, kept = CASES[rule]
    assert eh_check(tmp_path, broken, "broken.jsonl") == [rule]
    assert eh_check(tmp_path, kept, "kept.jsonl") == []


def test_every_rule_has_a_case():
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run([str(binary()), "eh-check", "--rules"], capture_output=True, text=True, env=env)
    assert r.returncode == 0
    assert sorted(line.split()[0] for line in r.stdout.splitlines()) == sorted(CASES)


def test_more_cases(tmp_path):
    # a first failure after -ENODEV leaves one try; a negative count is never right
    base = [rec(10, "eh.exception", dev=0, emask=0x10, action=0xe, frozen=True, desc="", nr_failed=0)]
    assert eh_check(tmp_path, base + [rec(11, "eh.recover_retry", errno=-19, tries=1)]) == []
    assert eh_check(tmp_path, base + [rec(11, "eh.recover_retry", errno=-2, tries=-1)]) == ["dev-tries-per-run"]
    # a device not yet enabled (a probe) fails silently: its first "retrying" line may leave 1
    # (found by fuzz-smoke --seed 4: the boot probe's IDENTIFY failed twice)
    assert eh_check(tmp_path, base + [rec(11, "probe.identify_failed", dev=0, err_mask=0x100, errno=-5),
                                      rec(20, "probe.identify_failed", dev=0, err_mask=0x100, errno=-5),
                                      rec(20, "eh.revalidate_failed", dev=0, errno=-5),
                                      rec(20, "eh.recover_retry", errno=-5, tries=1)]) == []
    # the link comes up faster than the limit allows after the next reset
    assert eh_check(tmp_path, [rec(0, "probe.link_up", **LINK_UP),
                               rec(10, "eh.spd_limit", limit=0x3, spd=2, speed="3.0 Gbps"),
                               rec(11, "ahci.port_comreset", src="ahci0", **{"assert": True}),
                               rec(12, "probe.link_up", **LINK_UP)]) == ["spd-limit-lowers-speed"]
    # a log page 10h that could not be read blames nobody: nothing to compare
    assert eh_check(tmp_path, [rec(10, "disk.ncq_error", src="disk0", dev=0, cause="command failed", tag=9),
                               rec(11, "eh.ncq_log_failed", errno=-5, err_mask=0x1),
                               rec(20, "eh.ncq_culprit", tag=3)]) == []
    # a reset before the report discards the events EH had gathered (libata-eh.md 3.5 step 5)
    assert eh_check(tmp_path, [rec(10, "ahci.error_irq", irq_stat=0x8000000, serror=0, freeze=True),
                               rec(11, "eh.reset", method="hard", **{"try": 1}),
                               rec(20, "eh.exception", dev=0, emask=0x4, action=0x6, frozen=True, desc="",
                                   nr_failed=1)]) == []


def test_an_error_during_an_internal_command_belongs_to_no_report(tmp_path):
    # Found by the planted-bug campaigns (docs/fuzzing.md): a media error on an NCQ read,
    # then a CRC error on EH's READ LOG EXT (PxIS.IFS, the port frozen). The error reaches
    # the link's eh_info after the run took its snapshot; its report describes the media
    # error and the reset clears eh_info: libata never reports the bus error.
    def trace(tag):
        return [rec(10, "ahci.error_irq", irq_stat=0x40000008, serror=0, freeze=False),
                rec(11, "qc.issue", dev=0, tag=tag, cmd=0x2f, bytes=512),
                rec(12, "ahci.error_irq", irq_stat=0x8000000, serror=0x200100, freeze=True),
                rec(12, "qc.done", dev=0, tag=tag, cmd=0x2f, err_mask=0x100, status=0x40, error=0),
                rec(13, "eh.exception", dev=0, emask=0x1, sact=0x1, serr=0, action=0x6, frozen=True,
                    desc="irq_stat 0x40000008", nr_failed=1),
                rec(13, "eh.reset", method="hard", **{"try": 1})]
    assert eh_check(tmp_path, trace(32)) == []
    # the same on a normal command (tag 0): that report must carry the bus error
    assert eh_check(tmp_path, trace(0)) == ["interface-error-is-link-error", "hba-error-decoded"]


def test_a_malformed_trace_is_refused_naming_file_and_line(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps(rec(0, "probe.link_up", **LINK_UP)) + "\n{not json\n")
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run([str(binary()), "eh-check", str(p)], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and f"{p}:2: not a trace record" in r.stderr, r.stderr


def test_an_error_read_after_the_snapshot_belongs_to_no_report(tmp_path):
    # Issue 30 item 8 (6 false alarms in 5,000 fuzz runs): a TFES error starts EH, which takes
    # its snapshot of the link's eh_info (eh.snapshot) and stops the engine (a 1 ms poll); the
    # disk is pulled meanwhile, PxIS.PRCS is read into eh_info after the snapshot. The run's
    # report describes the TFES error only, the hardreset clears eh_info: libata never reports
    # the PHY change. An error read before the snapshot must be in the report.
    def trace(prcs_ms):
        return [rec(10, "ahci.error_irq", irq_stat=0x40000001, serror=0, freeze=False),
                rec(10, "eh.snapshot", emask=0, action=0, serr=0, run=1),
                rec(prcs_ms, "ahci.error_irq", irq_stat=0x400000, serror=0x10000, freeze=True),
                rec(11, "eh.exception", dev=0, emask=0, sact=0, serr=0, action=0x6, frozen=True,
                    desc="irq_stat 0x40000001", nr_failed=1),
                rec(11, "eh.reset", method="hard", **{"try": 1}),
                rec(12, "probe.link_down", sstatus=0, scontrol=0x300)]
    assert eh_check(tmp_path, trace(10.4)) == []
    # the same PHY change read before the snapshot: the report must say it
    t = trace(10)
    t[1], t[2] = t[2], t[1]
    assert eh_check(tmp_path, t) == ["hba-error-decoded"]


def test_an_error_after_the_snapshot_without_a_reset_is_the_next_reports(tmp_path):
    # read after the snapshot and not cleared by a reset, the error stays in eh_info: the next
    # EH run's snapshot takes it and that run's report must describe it
    first = [rec(10, "ahci.error_irq", irq_stat=0x40000001, serror=0, freeze=False),
             rec(10, "eh.snapshot", emask=0, action=0, serr=0, run=1),
             rec(10.4, "ahci.error_irq", irq_stat=0x10, serror=0, freeze=True),
             rec(11, "eh.exception", dev=0, emask=0, action=0x6, frozen=True, desc="irq_stat 0x40000001",
                 nr_failed=1),
             rec(12, "eh.snapshot", emask=0x2, action=0x6, serr=0, run=2)]
    said = [rec(12, "eh.exception", dev=0, emask=0x2, action=0x6, frozen=True,
                desc="irq_stat 0x00000010, unknown FIS", nr_failed=0)]
    unsaid = [rec(12, "eh.exception", dev=0, emask=0x2, action=0x6, frozen=True, desc="irq_stat 0x00000010",
                  nr_failed=0)]
    assert eh_check(tmp_path, first + said) == []
    assert eh_check(tmp_path, first + unsaid) == ["hba-error-decoded"]


def test_an_error_during_eh_is_dropped_when_the_eh_invocation_ends(tmp_path):
    # Found by a two-instance campaign on the clean build (SiI3124): the probe's EH run took
    # its snapshot; its IDENTIFY failed with PORT_CMD_ERR 3 (the freeze aborts the internal
    # command, so EH is not scheduled again); the run ended without EH pending, which zeroes
    # eh_info ("this run is complete, make sure EH info is clear"). A PHY change later starts
    # a new EH invocation (its snapshot says run 1): its report describes the PHY change only.
    def trace(run):
        return [rec(0, "eh.snapshot", emask=0, action=0x6, serr=0, run=1),
                rec(1, "probe.link_up", **LINK_UP),
                rec(2, "qc.issue", dev=0, tag=32, cmd=0xec, bytes=512),
                rec(3, "sil24.error_irq", irq_stat=0x20002, cmd_err=3, serror=0x200100, freeze=True),
                rec(3, "qc.done", dev=0, tag=32, cmd=0xec, err_mask=0x10, status=0x40, error=0),
                rec(4, "probe.identify_failed", dev=0, err_mask=0x10, errno=-5, reason="I/O error"),
                rec(4, "dev.disabled", dev=0),
                rec(10, "sil24.error_irq", irq_stat=0x100010, cmd_err=0, serror=0x10000, freeze=True),
                rec(10, "eh.snapshot", emask=0x10, action=0xe, serr=0x10000, run=run),
                rec(10, "eh.exception", emask=0x10, sact=0, serr=0x10000, action=0xe, frozen=True,
                    desc="irq_stat 0x00100010, PHY RDY changed", nr_failed=0),
                rec(10, "eh.reset", method="hard", **{"try": 1})]
    assert eh_check(tmp_path, trace(1)) == []
    # the same snapshot in a repeated run of that invocation (EH was pending again, eh_info
    # kept): the data FIS error is that report's and must be in it
    assert eh_check(tmp_path, trace(2)) == ["hba-error-decoded"]
