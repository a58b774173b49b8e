"""The dmesg corpus (issue 31): 58 real kernel logs from public bug reports
(harness/tests/fixtures/dmesg-corpus/, MANIFEST.yaml). Each is imported with
`satasim import-dmesg`, the scenarios are run (in parallel, each under a wall limit), and
each run is diffed against its log's decision lines. Prints the table of matched/total
decision lines per log and overall, and writes it to corpus-table.txt in the test's tmp dir.

What is held: every log imports, or is refused with a reason naming its line (never a
traceback); every scenario the importer writes is one satasim accepts; and the overall match
ratio does not fall below FLOOR (raised as the importer and the stack improve; measured, not
wished for). Run alone: `python3 harness/tests/test_dmesg_corpus.py [OUT_DIR]`.

Measured: before any importer work 36 logs were refused, 6 scenarios were malformed and the 16
that ran matched 49 of 218 lines; now 0 refused, 555 of 935 lines (59.4 %). What still differs,
and why (by log number):
  - port multipliers whose hardware satasim does not model: 51, 52 (SiI3124/3132 errata, config
    port SCR failures), 38 (Marvell 88SE9235), 17 (PMP reset after RecovComm/ABRT), 07, 21, 46
    (JMB/SiI5744 PMPs, Gen3 host link, SControl 330). After a PMP attaches libata names host
    link lines ataN.15; satasim keeps ataN outside the EH report.
  - hotplug SError/irq_stat detail of real HBAs (DevExch/HostInt/10B8B with PHYRdyChg, irq_stat
    0x00400040) and DevExch storms on empty ports: 04, 06, 22, 23, 30, 42, 58. satasim's PHY
    events set PHYRdyChg only.
  - result taskfile leftovers in res lines (SMART 4f:c2, 00:ff, device a0) and drive variance
    (11, 57: Count 15:8; 09: status 51).
  - ATAPI (29, 40, 54, 55) and PATA pata_*/piix slave (01, 14, 25, 27, 28, 54-56): not modelled;
    ata_sff/BMDMA wording belongs to the SFF work.
  - IDENTIFY / SET XFERMODE timeouts and speed-down at revalidation (35, 45, 53), softreset
    "1st FIS failed" and "host bus error"/unknown FIS (48), retried NCQ commands that time out
    again (32).
  - 2.6.2x report format (08, 24, 26-28) and era wording between the profiles (41)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from satasim.dmesg_parse import DmesgError  # noqa: E402
from satasim.import_dmesg import diff, import_report  # noqa: E402
from satasim.results import binary  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "fixtures" / "dmesg-corpus"
# overall matched/total decision lines the corpus must keep (measured; raise it, never lower it
# without saying why in the commit)
FLOOR = 0.59
WALL_LIMIT = 20          # seconds of wall time per scenario (a run that takes longer is cut)
JOBS = 2


@dataclass
class Entry:
    log: str
    status: str = ""            # imported | refused | crashed | malformed | ran
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    matched: int = 0
    total: int = 0
    verdict: str = ""           # the run's verdict (PASS/FAIL/...), or why there is none


def _env():
    return dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1",
                ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "detect_leaks=0:detect_stack_use_after_return=0"))


def run_corpus(work: Path) -> list[Entry]:
    scen_dir, out_dir = work / "scenarios", work / "out"
    scen_dir.mkdir(parents=True, exist_ok=True)
    entries = []
    for log in sorted(CORPUS.glob("*.log")):
        e = Entry(log.name)
        entries.append(e)
        name = "c" + log.name[:2]
        try:
            _, _, e.notes = import_report(log, scen_dir / f"{name}.yaml")
            e.status = "imported"
        except DmesgError as err:
            e.status, e.reason = "refused", str(err)
        except Exception:   # the importer must never crash on a real log
            e.status, e.reason = "crashed", traceback.format_exc()
    # a scenario satasim refuses is the importer's bug: found one by one (a malformed one in
    # a folder run would refuse the whole run)
    runnable = []
    for e in entries:
        if e.status != "imported":
            continue
        path = scen_dir / f"c{e.log[:2]}.yaml"
        p = subprocess.run([str(binary()), "check", str(path)], capture_output=True, text=True, env=_env())
        if p.returncode == 2:
            e.status, e.reason = "malformed", (p.stdout + p.stderr).strip()
            path.rename(path.with_suffix(".refused"))
        else:
            runnable.append(e)
    if runnable:
        subprocess.run([str(binary()), "run", str(scen_dir), "--jobs", str(JOBS), "--wall-limit",
                        str(WALL_LIMIT), "--trace-cmds", "off", "--out", str(out_dir)],
                       capture_output=True, text=True, env=_env())
    for e in runnable:
        name = f"c{e.log[:2]}"
        exp = scen_dir / f"{name}.expected"
        e.total = sum(1 for ln in exp.read_text().splitlines() if ln and not ln.startswith("#"))
        run_dir = out_dir / name
        if not (run_dir / "satasim.log").exists():
            e.status, e.verdict = "ran", "no log"
            continue
        e.status = "ran"
        e.matched, e.total, _ = diff(exp, run_dir)
        res = run_dir / "result.json"
        if res.exists():
            import json
            r = json.loads(res.read_text())
            e.verdict = r.get("verdict", "?")
            if e.verdict != "pass":
                e.verdict += ": " + "; ".join(r.get("reasons", []))[:120]
        else:
            e.verdict = "no result"
    return entries


def table(entries: list[Entry]) -> str:
    rows = [f"{'log':<64} {'matched':>7} {'total':>5}  status"]
    for e in entries:
        what = e.status if e.status != "ran" else (e.verdict or "")
        if e.status in ("refused", "crashed", "malformed"):
            what += ": " + e.reason.strip().splitlines()[-1][:110]
        rows.append(f"{e.log[:64]:<64} {e.matched:>7} {e.total:>5}  {what}")
    m, t = sum(e.matched for e in entries), sum(e.total for e in entries)
    refused = sum(e.status == "refused" for e in entries)
    rows.append(f"overall: matched {m} of {t} decision lines ({100 * m / t if t else 0:.1f} %); "
                f"{len(entries)} logs, {refused} refused")
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    work = tmp_path_factory.mktemp("dmesg-corpus")
    entries = run_corpus(work)
    text = table(entries)
    (work / "corpus-table.txt").write_text(text)
    print("\n" + text + f"(table: {work / 'corpus-table.txt'})")
    return entries


def test_every_log_imports_or_is_refused_naming_its_line(corpus):
    for e in corpus:
        assert e.status != "crashed", f"{e.log}: the importer crashed:\n{e.reason}"
        if e.status == "refused":
            assert re.search(rf"{re.escape(e.log)}:\d+: ", e.reason), f"{e.log}: {e.reason}"


def test_every_imported_scenario_is_one_satasim_accepts(corpus):
    bad = [f"{e.log}: {e.reason}" for e in corpus if e.status == "malformed"]
    assert not bad, "\n".join(bad)


def test_overall_match_ratio(corpus):
    m, t = sum(e.matched for e in corpus), sum(e.total for e in corpus)
    assert t and m / t >= FLOOR, table(corpus)


ROOT = Path(__file__).resolve().parents[2]
README_SECTION = "## A field report, end to end"


def test_readme_field_report_workflow(tmp_path):
    """The README's field-report walk-through, followed literally (in tmp, with the binary
    under test): import a corpus log, run it, diff it; the last line is what it says."""
    text = (ROOT / "README.md").read_text()
    start = text.index(README_SECTION)
    section = text[start:text.index("\n## ", start + len(README_SECTION))]
    block = [ln[4:] for ln in section.splitlines() if ln.startswith("    ") and not ln.startswith("    #")]
    assert any("import-dmesg diff" in ln for ln in block), block
    claimed = re.search(r"#   (matched \d+ of \d+ report decision lines)", section).group(1)
    script = "\n".join(["set -e"] + [ln.replace("build/bin/satasim", str(binary()))
                                      .replace("log=harness/", f"log={ROOT}/harness/") for ln in block])
    p = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, env=_env())
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == claimed, p.stdout


if __name__ == "__main__":
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="dmesg-corpus-"))
    ents = run_corpus(work)
    text = table(ents)
    (work / "corpus-table.txt").write_text(text)
    print(text + f"(table and runs: {work})")
