"""Trace tools: the libata-style log and a self-contained HTML report from a trace.jsonl.

  python3 -m satasim.render log TRACE_OR_RUN_DIR            # == satasim.log
  python3 -m satasim.render html TRACE_OR_RUN_DIR -o report.html [--golden-dir DIR | --no-golden]

The HTML report (satasim.htmlreport, docs/trace-tools.md): the failure's reasons and the
golden diff at the top, an interactive timeline (plotly) with one lane per device, the log
filterable by port, device and level with repeated lines folded.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .tracefmt import TraceError, iter_trace, log_line, trace_path


def render_log(path) -> str:
    """satasim.log as the trace sink wrote it, from trace.jsonl alone."""
    host, out = "", []
    for rec in iter_trace(path):
        if rec["src"] == "harness" and rec["ev"] == "run.start":
            host = str(rec["f"].get("log_prefix", rec["f"].get("controller", "")))
        line = log_line(rec, host)
        if line is not None:
            out.append(line)
    return "".join(out)


def render_html(path, title=None, golden_dir="default", plotly=None) -> str:
    """The run's HTML report (satasim.htmlreport): one self-contained file."""
    from .htmlreport import render_run
    return render_run(path, title=title, golden_dir=golden_dir, plotly=plotly)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.render",
                                 description="Render a trace.jsonl as a log or an HTML report.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("log", help="the libata-style log (equals satasim.log)")
    p.add_argument("trace", metavar="TRACE_OR_RUN_DIR")
    p = sub.add_parser("html", help="self-contained HTML report: interactive timeline, failure, golden diff, log")
    p.add_argument("trace", metavar="TRACE_OR_RUN_DIR")
    p.add_argument("-o", "--output", default="report.html")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--golden-dir", metavar="DIR", help="compare with the golden in DIR (default: the checkout's golden/)")
    g.add_argument("--no-golden", action="store_true", help="no golden comparison")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "log":
            sys.stdout.write(render_log(trace_path(args.trace)))
        else:
            gd = None if args.no_golden else (args.golden_dir or "default")
            Path(args.output).write_text(render_html(args.trace, golden_dir=gd), encoding="utf-8")
            print(f"wrote {args.output}")
    except TraceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
