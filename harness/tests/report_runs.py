"""Runs the HTML report tests share (test_html_report.py, test_html_report_browser.py): a
fault scenario made to fail (its expectation tightened, its seed changed, so its golden
differs too), a PMP scenario, and the suite index over both (satasim.report --html)."""

import subprocess
import sys
from pathlib import Path

from satasim import run_shared

ROOT = Path(__file__).resolve().parents[2]
FAULT = "fault-unplug-ncq-qd32"          # 902 -ENODEV lines after the unplug: folded
PMP = "pmp-unplug-one-disk"              # three disks behind a PMP: a lane each


def failing_fault_scenario(folder: Path) -> Path:
    text = (ROOT / "scenarios" / "faults" / "unplug-ncq-qd32.yaml").read_text()
    assert "seed: 13\n" in text and "  io_errors_min: 32\n" in text
    text = text.replace("seed: 13\n", "seed: 14\n").replace("  io_errors_min: 32\n",
                                                            "  io_errors_min: 32\n  io_errors_max: 40\n")
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "unplug-ncq-qd32.yaml"
    p.write_text(text)
    return p


def make_suite(out: Path, extra=()) -> Path:
    """OUT with both runs (and the scenarios extra), summary.json, index.html and a
    report.html per run."""
    sc = failing_fault_scenario(out.parent / "scenarios")
    r = run_shared([sc, ROOT / "scenarios" / "pmp" / "pmp-unplug-one-disk.yaml", *extra], out, "--jobs", "2")
    assert r.returncode == 1, r.stdout + r.stderr            # the fault run fails, as made to
    p = subprocess.run([sys.executable, "-m", "satasim.report", str(out), "--golden-dir", str(ROOT / "golden"),
                        "--html", str(out / "index.html")], capture_output=True, text=True, cwd=ROOT / "harness")
    assert p.returncode == 1 and "HTML: " in p.stdout, p.stdout + p.stderr
    return out
