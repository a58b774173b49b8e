#!/usr/bin/python3
"""Remakes the HTML report screenshots in docs/images/ (README, docs/trace-tools.md): a
failed fault scenario's report, a PMP scenario's report and the suite index, from fresh
runs of the simulator ($SATASIM_BIN, else build/bin/satasim) made the way the browser test
makes them (harness/tests/report_runs.py), shot by headless Chromium.

  /usr/bin/python3 tools/report_screenshots.py [--out DIR]
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "harness"), str(ROOT / "harness" / "tests")]

from satasim.htmlreport import browser  # noqa: E402
from report_runs import FAULT, PMP, make_suite  # noqa: E402

SHOTS = (  # page, file, window (CSS px), scale
    (f"{FAULT}/report.html", "report-fault.png", (1280, 1900)),
    (f"{PMP}/report.html", "report-pmp.png", (1280, 1900)),
    ("index.html", "suite-index.png", (1280, 1500)),
)
SCALE = 0.7


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "images"))
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="satasim-shots-"))
    try:
        # the index over more than the two: the default suite's top level and its faults
        extra = [p for p in sorted((ROOT / "scenarios").glob("*.yaml")) if p.name != "testplan.yaml"]
        extra += sorted(p for p in (ROOT / "scenarios" / "faults").glob("*.yaml") if p.name != "unplug-ncq-qd32.yaml")
        suite = make_suite(work / "out", extra)
        for page, name, size in SHOTS:
            pg = browser.load(suite / page)
            if pg.errors or not pg.ready:
                print(f"error: {page}: {pg.errors} JavaScript errors {pg.error_text}", file=sys.stderr)
                return 1
            png = browser.screenshot(suite / page, Path(args.out) / name, size, scale=SCALE)
            print(f"wrote {png} ({png.stat().st_size // 1024} KiB)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
