"""The EH policy oracle (harness/src/trace/eh_policy_rules.h, docs/eh-rules.md "Policy rules") on
hand-made traces: per rule and profile, one trace whose decision libata would not make (the rule
is named) and the same trace with libata's decision (no violation); then the planted policy
defects (tools/planted_bugs.txt) against their ground-truth scenarios in the test command's build:
the clean build passes them, which the oracle's false-positive check needs."""

import json
import os
import subprocess

import pytest

from satasim.results import binary

HEX = {"emask", "action", "err_mask", "eflags", "verdict", "limit", "xfer_mask"}


def rec(t_ms, ev, src="stack", port=0, link=None, dev=None, **f):
    r = {"t_ns": int(t_ms * 1_000_000), "seq": 0, "src": src, "ev": ev,
         "cls": "decision" if src == "stack" else "info", "lvl": "debug", "port": port}
    if link is not None:
        r["link"] = link
    if dev is not None:
        r["dev"] = dev
    r["f"] = {k.rstrip("_"): (hex(v) if k in HEX and isinstance(v, int) else v) for k, v in f.items()}
    return r


def head(policy="libata-modern", hardreset=True):
    return [rec(0, "run.start", src="harness", port=-1, controller="ahci", scenario="x"),
            rec(0, "eh.policy", port=-1, name=policy, hardreset=hardreset),
            rec(1, "probe.link_up", spd=3, speed="6.0 Gbps", sstatus=0x133, scontrol=0x300),
            rec(2, "probe.configured", dev=0, mode="UDMA/133", xfer=0x46, ncq=True)]


def eh_check(tmp_path, records, name="trace.jsonl"):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run([str(binary()), "eh-check", str(p)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    return [line.split(": ", 1)[1].split(" at ", 1)[0] for line in r.stdout.splitlines() if line.strip()]


def bus_errors(n, verdict_at, t0=100, gap=1000, verdict=0x2, cat=1):
    """n bus errors on I/O (Emask 0x10) one `gap` ms apart; the verdict after error number
    verdict_at (1-based; None: never)."""
    out = []
    for i in range(1, n + 1):
        v = verdict if i == verdict_at else 0
        out.append(rec(t0 + i * gap, "eh.ering", dev=0, category=cat, eflags=0x1, err_mask=0x10, verdict=v))
    return out


SPD = rec(0, "eh.spd_limit", limit=0x3, spd=2, speed="3.0 Gbps")


def at(r, t_ms):
    return dict(r, t_ns=int(t_ms * 1_000_000))


# rule -> (trace that breaks it, the same with libata's decision)
CASES = {
    "ering-category": (
        head() + [rec(10, "eh.ering", dev=0, category=2, eflags=0x1, err_mask=0x10, verdict=0)],
        head() + [rec(10, "eh.ering", dev=0, category=1, eflags=0x1, err_mask=0x10, verdict=0)],
    ),
    # 4.x rule 5: more than 3 bus errors in 10 minutes -> SPEED_DOWN; one error late
    "speed-down-verdict": (
        head() + bus_errors(5, 5) + [at(SPD, 5100)],
        head() + bus_errors(4, 4) + [at(SPD, 4100)],
    ),
    # the link runs at 6.0 Gbps: a lower link speed comes before a transfer-mode step
    "speed-down-action": (
        head() + bus_errors(4, 4) + [rec(4100, "eh.xfer_limit", dev=0, xfer_mask=0x3f01f)],
        head() + bus_errors(4, 4) + [at(SPD, 4100)],
    ),
    "reset-method": (
        head() + [rec(10, "eh.exception", dev=0, emask=0x10, action=0x6, frozen=True, desc="", nr_failed=1),
                  rec(11, "eh.reset", method="soft", try_=1)],
        head() + [rec(10, "eh.exception", dev=0, emask=0x10, action=0x6, frozen=True, desc="", nr_failed=1),
                  rec(11, "eh.reset", method="hard", try_=1)],
    ),
    # attempt 1's deadline is 10 s: failing after 1 s it waits 9 s more
    "reset-deadline": (
        head() + [rec(10, "eh.reset", method="hard", try_=1), rec(1010, "eh.reset_failed", errno=-16, retry_s=5)],
        head() + [rec(10, "eh.reset", method="hard", try_=1), rec(1010, "eh.reset_failed", errno=-16, retry_s=9)],
    ),
    "retry-worth": (
        head() + [rec(10, "eh.retry", dev=0, tag=3, cmd=0x60, emask=0x9, retry=1, max=5)],
        head() + [rec(10, "eh.qc_fail", dev=0, tag=3, cmd=0x60, emask=0x9, retries=0, reason="not retryable")],
    ),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_breaks_and_holds(tmp_path, rule):
    broken, kept = CASES[rule]
    assert eh_check(tmp_path, broken, "broken.jsonl") == [rule]
    assert eh_check(tmp_path, kept, "kept.jsonl") == []


def test_every_policy_rule_has_a_case():
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    r = subprocess.run([str(binary()), "eh-check", "--policy-rules"], capture_output=True, text=True, env=env)
    assert r.returncode == 0
    assert sorted(line.split()[0] for line in r.stdout.splitlines()) == sorted(CASES)


H2006 = head("libata-2006")
# an ATAPI drive on a link whose speed the trace shows (AHCI at 1.5 Gbps: no lower speed),
# configured for UDMA/100; three dubious timeouts (no transfer verified), each SPEED_DOWN |
# FALLBACK_TO_PIO | KEEP_ERRORS from the second on: UDMA/66, then UDMA/33, then the third
ATAPI_HEAD = [rec(0, "run.start", src="harness", port=-1, controller="ahci", scenario="x"),
              rec(0, "eh.policy", port=-1, name="libata-modern", hardreset=True),
              rec(1, "probe.link_up", spd=1, speed="1.5 Gbps", sstatus=0x113, scontrol=0x300),
              rec(1, "probe.class", cls="atapi"),
              rec(2, "probe.configured", dev=0, mode="UDMA/100", xfer=0x45, ncq=False)]
DISK_HEAD = [dict(r, f=dict(r["f"], cls="ata")) if r["ev"] == "probe.class" else r for r in ATAPI_HEAD]
DUBIOUS_STEPS = [rec(100, "eh.ering", dev=0, category=6, eflags=0x2, err_mask=0x4, verdict=0),
                 rec(1100, "eh.ering", dev=0, category=6, eflags=0x2, err_mask=0x4, verdict=0xf),
                 rec(1100, "eh.xfer_limit", dev=0, xfer_mask=0x1f39f),
                 rec(2100, "eh.ering", dev=0, category=6, eflags=0x2, err_mask=0x4, verdict=0xf),
                 rec(2100, "eh.xfer_limit", dev=0, xfer_mask=0x739f),
                 rec(3100, "eh.ering", dev=0, category=6, eflags=0x2, err_mask=0x4, verdict=0xf)]


@pytest.mark.parametrize("name,trace,want", [
    # 2006: more than 3 bus/timeout errors in 15 minutes; the verdict keeps the errors
    ("2006 fourth bus error", H2006 + bus_errors(4, 4, verdict=0xa) + [at(SPD, 4100)], []),
    ("2006 one error early", H2006 + bus_errors(3, 3, verdict=0xa) + [at(SPD, 3100)], ["speed-down-verdict"]),
    ("2006 errors kept: fifth again", H2006 + bus_errors(4, 4, verdict=0xa) + [at(SPD, 4100)] +
     [rec(4500, "probe.link_up", spd=1, speed="1.5 Gbps", sstatus=0x113, scontrol=0x310),
      rec(5100, "eh.ering", dev=0, category=1, eflags=0x1, err_mask=0x10, verdict=0xa),
      rec(5100, "eh.xfer_limit", dev=0, xfer_mask=0x3f01f)], []),
    # 2006's window is 15 minutes: 4 errors 4 minutes apart are within it (4.x's 10 are not)
    ("2006 window 15 min", H2006 + bus_errors(4, 4, gap=240_000, verdict=0xa) + [at(SPD, 960_200)], []),
    ("4.x window 10 min", head() + bus_errors(4, None, gap=240_000), []),
    ("4.x 4 in 10 min", head() + bus_errors(4, 4, gap=150_000) + [at(SPD, 600_200)], []),
    # 2006 has no NCQ-off verdict
    ("2006 no ncq off", H2006 + [rec(10, "eh.ering", dev=0, category=2, eflags=0x1, err_mask=0x4, verdict=0x1),
                                 rec(10, "eh.ncq_off", dev=0)], ["speed-down-verdict", "speed-down-action"]),
    # 4.x rule 4: more than 3 timeouts in 10 minutes -> NCQ off (and rule 5: speed down); NCQ
    # in use: NCQ off is the one action
    ("4.x ncq off first", head() + [rec(100 + i, "eh.ering", dev=0, category=2, eflags=0x1, err_mask=0x4,
                                        verdict=0x3 if i == 3 else 0) for i in range(4)] +
     [rec(103, "eh.ncq_off", dev=0)], []),
    ("4.x ncq off skipped", head() + [rec(100 + i, "eh.ering", dev=0, category=2, eflags=0x1, err_mask=0x4,
                                          verdict=0x3 if i == 3 else 0) for i in range(4)] +
     [at(SPD, 103)], ["speed-down-action"]),
    # the ring is cleared after an action: the next bus error starts the count afresh
    ("4.x cleared after action", head() + bus_errors(4, 4) + [at(SPD, 4100)] + bus_errors(3, None, t0=5000), []),
    ("4.x not cleared", head() + bus_errors(4, 4) + [at(SPD, 4100)] +
     [rec(5100, "eh.ering", dev=0, category=1, eflags=0x1, err_mask=0x10, verdict=0x2),
      at(SPD, 5100)], ["speed-down-verdict"]),
    # 2006 reset choice: "some reset" is a softreset, a pending speed limit needs a hardreset
    ("2006 soft for some reset", H2006 + [rec(10, "eh.exception", dev=0, emask=0x10, action=0x6, frozen=True,
                                              desc="", nr_failed=1), rec(11, "eh.reset", method="soft", try_=1)], []),
    ("2006 hard for some reset", H2006 + [rec(10, "eh.exception", dev=0, emask=0x10, action=0x6, frozen=True,
                                              desc="", nr_failed=1), rec(11, "eh.reset", method="hard", try_=1)],
     ["reset-method"]),
    ("2006 soft with a speed change", H2006 + [at(SPD, 9), rec(11, "eh.reset", method="soft", try_=1)],
     ["reset-method"]),
    # a hardreset applies the limit to SControl.SPD even when the link does not come up after
    # it (libata's sata_link_hardreset and sil24_hardreset call sata_set_spd first): the next
    # EH round's first reset may be a softreset again (found by a two-instance campaign on the
    # clean build: a PMP that no reset revived, SiI3124, libata-2006)
    ("2006 soft after the limit's hardreset", H2006 + [at(SPD, 9), rec(11, "eh.reset", method="hard", try_=3),
                                                       rec(13, "eh.reset", method="soft", try_=3),
                                                       rec(20, "eh.softreset_failed", errno=-16, reason="timeout"),
                                                       rec(20, "pmp.recover_retry", link=15, errno=-16,
                                                           tries_left=4),
                                                       rec(21, "eh.reset", method="soft", try_=1)], []),
    ("2006 pause 5 s", H2006 + [rec(10, "eh.reset", method="soft", try_=1),
                                rec(1010, "eh.reset_failed", errno=-16, retry_s=9)], ["reset-deadline"]),
    ("later attempt soft", head() + [rec(10, "eh.reset", method="hard", try_=1),
                                     rec(20, "eh.reset_failed", errno=-16, retry_s=10),
                                     rec(10010, "eh.reset", method="soft", try_=2)], ["reset-method"]),
    ("no hardreset in the driver", head(hardreset=False) + [rec(10, "eh.reset", method="soft", try_=1),
                                                            rec(20, "eh.reset_failed", errno=-16, retry_s=10),
                                                            rec(10010, "eh.reset", method="soft", try_=2)], []),
    ("follow-up softreset", head() + [rec(10, "eh.reset", method="hard", try_=1),
                                      rec(20, "eh.reset", method="soft", try_=1)], []),
    ("fifth attempt", head() + [rec(10, "eh.reset", method="hard", try_=5)], ["reset-deadline"]),
    # 2006 does not retry an invalid address either; 4.x does (file-system I/O)
    ("2006 invalid retried", H2006 + [rec(10, "eh.retry", dev=0, tag=1, cmd=0x60, emask=0x81, retry=1, max=5)],
     ["retry-worth"]),
    ("4.x invalid retried", head() + [rec(10, "eh.retry", dev=0, tag=1, cmd=0x60, emask=0x81, retry=1, max=5)], []),
    ("4.x bus error not retried", head() + [rec(10, "eh.qc_fail", dev=0, tag=1, cmd=0x60, emask=0x10, retries=0,
                                                reason="not retryable")], ["retry-worth"]),
    ("exhausted early", head() + [rec(10, "eh.qc_fail", dev=0, tag=1, cmd=0x60, emask=0x10, retries=3,
                                      reason="retries exhausted")], ["retry-worth"]),
    # FALLBACK_TO_PIO after two transfer-mode steps: an ATAPI device (libata: "Consider it only
    # for PATA and SATAPI"; scenarios/atapi/atapi-fault-speed-down-piix.yaml), not a SATA disk
    ("atapi falls back to PIO", ATAPI_HEAD + DUBIOUS_STEPS + [rec(3100, "eh.xfer_limit", dev=0, xfer_mask=0x1f)], []),
    ("sata disk falls back to PIO", DISK_HEAD + DUBIOUS_STEPS + [rec(3100, "eh.xfer_limit", dev=0, xfer_mask=0x1f)],
     ["speed-down-action", "speed-down-action"]),   # (no action allowed; not the DMA step)
    # in PIO, a SPEED_DOWN steps the PIO mode (ATA_DNXFER_PIO), not a DMA mode
    ("atapi PIO step", ATAPI_HEAD + DUBIOUS_STEPS + [rec(3100, "eh.xfer_limit", dev=0, xfer_mask=0x1f),
                                                      rec(4100, "eh.ering", dev=0, category=6, eflags=0x2,
                                                          err_mask=0x4, verdict=0xf),
                                                      rec(4100, "eh.xfer_limit", dev=0, xfer_mask=0xf)], []),
    ("atapi PIO step by two", ATAPI_HEAD + DUBIOUS_STEPS + [rec(3100, "eh.xfer_limit", dev=0, xfer_mask=0x1f),
                                                             rec(4100, "eh.ering", dev=0, category=6, eflags=0x2,
                                                                 err_mask=0x4, verdict=0xf),
                                                             rec(4100, "eh.xfer_limit", dev=0, xfer_mask=0x7)],
     ["speed-down-action"]),
])
def test_more_cases(tmp_path, name, trace, want):
    assert eh_check(tmp_path, trace) == want, name
