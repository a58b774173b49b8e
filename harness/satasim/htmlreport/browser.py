"""The pages in a real browser: Debian's Chromium, headless (the test and the screenshots).

  python3 -m satasim.htmlreport.browser check PAGE.html...       # loads, errors, key elements
  python3 -m satasim.htmlreport.browser screenshot PAGE.html OUT.png [--size 1280,900]

check() loads a page with --dump-dom (the DOM after the load event and the page's scripts)
and reads what the page itself recorded: its first script counts every error (a script's,
a resource's that did not load, a rejected promise, console.error) in <html
data-js-errors>, and report.js sets <body data-ready="1"> when it has drawn everything.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from ..results import MissingTool, need_tool


def chromium() -> str:
    """Debian's Chromium, or MissingTool naming its package (a test fails in one line)."""
    return need_tool("chromium", "chromium")


def _run(args, timeout):
    with tempfile.TemporaryDirectory(prefix="satasim-chromium-") as prof:
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--no-default-browser-check", "--disable-extensions",
               "--allow-file-access-from-files", f"--user-data-dir={prof}",
               "--virtual-time-budget=5000", *args]
        env = dict(os.environ, HOME=prof)
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


@dataclass
class Page:
    path: str
    dom: str
    errors: int
    error_text: str
    ready: bool
    selftest: str = ""      # what report.js's #selftest did (load(..., selftest=True))

    def count(self, selector_re: str) -> int:
        return len(re.findall(selector_re, self.dom))


class _Attrs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.html, self.body = {}, {}

    def handle_starttag(self, tag, attrs):
        if tag == "html" and not self.html:
            self.html = dict(attrs)
        elif tag == "body" and not self.body:
            self.body = dict(attrs)


def load(path, selftest=False, timeout=90) -> Page:
    """The page's DOM after load, its error count and whether report.js finished. selftest:
    the page works its controls (the probe button, the log's and the table's filters) and
    says what they did."""
    url = Path(path).resolve().as_uri() + ("#selftest" if selftest else "")
    p = _run(["--dump-dom", url], timeout)
    if p.returncode != 0 or "<html" not in p.stdout:
        raise RuntimeError(f"chromium --dump-dom {path} failed (exit {p.returncode}): "
                           + (p.stderr.strip().splitlines() or ["no output"])[-1])
    dom = p.stdout
    a = _Attrs()
    head_end = dom.find("</head>")
    body = re.search(r"<body\b[^>]*>", dom[head_end:]) if head_end >= 0 else None
    a.feed(dom[:dom.index(">", dom.index("<html")) + 1] + (body.group(0) if body else ""))
    return Page(str(path), p.stdout, int(a.html.get("data-js-errors") or 0),
                a.html.get("data-js-error-list") or "", a.body.get("data-ready") == "1",
                a.body.get("data-selftest") or "")


def screenshot(path, png, size=(1280, 900), scale=1.0, timeout=90) -> Path:
    """A PNG of the page's top size[0] x size[1] CSS pixels, scaled by scale."""
    url = Path(path).resolve().as_uri()
    png = Path(png).resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    p = _run([f"--screenshot={png}", f"--window-size={size[0]},{size[1]}",
              f"--force-device-scale-factor={scale}", "--hide-scrollbars", url], timeout)
    if p.returncode != 0 or not png.exists():
        raise RuntimeError(f"chromium --screenshot {path} failed (exit {p.returncode}): "
                           + (p.stderr.strip().splitlines() or ["no output"])[-1])
    return png


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m satasim.htmlreport.browser")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="load pages in headless Chromium: JavaScript errors, drawn")
    c.add_argument("pages", nargs="+")
    s = sub.add_parser("screenshot", help="a PNG of a page")
    s.add_argument("page")
    s.add_argument("png")
    s.add_argument("--size", default="1280,900", help="window WIDTH,HEIGHT")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "check":
            bad = 0
            for p in args.pages:
                pg = load(p)
                ok = pg.ready and not pg.errors
                bad += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {p}: {pg.errors} JavaScript errors"
                      + (f" ({pg.error_text})" if pg.errors else "") + ("" if pg.ready else ", not drawn"))
            return 1 if bad else 0
        w, h = (int(x) for x in args.size.split(","))
        print(f"wrote {screenshot(args.page, args.png, (w, h))}")
        return 0
    except (MissingTool, RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
