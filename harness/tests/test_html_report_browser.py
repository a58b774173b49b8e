"""The HTML pages in a real browser (issue 34): headless Chromium (Debian's chromium) opens
a failed fault scenario's report, a PMP scenario's report and the suite index; each loads
without a JavaScript error and shows its parts. Without Chromium the test fails with one
line naming the package (tools/install_deps.sh installs it), it is never skipped."""

import html
import json
import re
import shutil

import pytest

from satasim.htmlreport import browser
from satasim.results import MissingTool
from report_runs import FAULT, PMP, make_suite


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    browser.chromium()          # MissingTool: one line, the package named
    return make_suite(tmp_path_factory.mktemp("html-suite") / "out")


def loaded(path):
    """The page, loaded with its self-test (report.js works the controls: the probe button,
    the log's level and device filters, the index's verdict filter)."""
    page = browser.load(path, selftest=True)
    assert page.errors == 0, f"{path}: JavaScript errors: {page.error_text}"
    assert page.ready and page.selftest, f"{path}: report.js did not finish"
    return page


def did(page) -> dict:
    return dict(x.split("=", 1) for x in page.selftest.split())


def drawn_lanes(dom):
    """The lane titles plotly drew (SVG text of the subplot titles)."""
    return re.findall(r'<text[^>]*>(ata\d+(?:\.\d+)?(?::| \()[^<]*)</text>', dom)


def test_fault_report_in_chromium(suite):
    page = loaded(suite / FAULT / "report.html")
    dom = page.dom
    assert 'class="main-svg"' in dom                                 # plotly drew the timeline
    failure = dom.split('id="failure"', 1)[1].split("</section>", 1)[0]
    reasons = json.loads((suite / FAULT / "result.json").read_text())["reasons"]
    assert "Why the run failed" in failure and reasons
    for reason in reasons:
        assert html.escape(reason, quote=False) in failure
    assert dom.index('id="failure"') < dom.index('id="timeline"')
    assert 'id="golden-diff"' in dom
    assert [t.split(":")[0] for t in drawn_lanes(dom)] == ["ata1.00"]
    assert re.search(r'<span class="count">×\d{3}</span>', dom)      # the -ENODEV lines folded
    assert 'id="probe-toggle"' in dom and 'id="f-port"' in dom and 'id="f-lvl"' in dom
    d = did(page)
    x0, x1 = (float(v) for v in d["probe"].split(">"))
    assert x0 != x1                                                   # the probe button moved the axis
    assert 0 < int(d["err"]) < int(d["warn"]) <= int(d["all"])        # the level filter filters


def test_pmp_report_in_chromium(suite):
    page = loaded(suite / PMP / "report.html")
    dom = page.dom
    d = did(page)
    assert 0 < int(d["ata1.02"]) < int(d["all"]) and 0 < int(d["ata1.00"]) < int(d["all"])   # per disk
    lanes = drawn_lanes(dom)
    devices = [t.split(":")[0] for t in lanes if ": peak" in t]
    assert devices == ["ata1.00", "ata1.01", "ata1.02"]             # a lane per disk behind the PMP
    assert any(t.startswith("ata1 (port / PMP)") for t in lanes)
    assert 'id="failure"' not in dom
    dev_opts = re.findall(r"<option>([^<]+)</option>", dom.split('id="f-dev"', 1)[1].split("</select>", 1)[0])
    assert {"ata1.00", "ata1.01", "ata1.02"} <= set(dev_opts)


def test_suite_index_in_chromium(suite):
    page = loaded(suite / "index.html")
    dom = page.dom
    assert did(page) == {"rows": "2", "failed": "1"}                 # the verdict filter
    plot = dom.split('id="index-plot"', 1)[1]
    assert 'class="main-svg"' in plot.split("</section>", 1)[0]      # simulated vs wall time
    for name in (FAULT, PMP):
        assert f'href="{name}/report.html"' in dom
    rows = dom.split('id="scenarios"', 1)[1].split("</table>", 1)[0]
    assert rows.count('data-verdict="fail"') == 1 and rows.count('data-verdict="pass"') == 1
    assert "FAIL" in rows and "ahci" in rows
    assert 'id="failure"' in dom


def test_the_check_sees_a_broken_page(suite, tmp_path):
    """The same check on a page whose script throws, and on one whose plotly.js is missing."""
    broken = tmp_path / "broken.html"
    text = (suite / PMP / "report.html").read_text()
    broken.write_text(text.replace("</body>", "<script>notAFunction();</script></body>"))
    (tmp_path / "sub").mkdir()
    shutil.copy(suite / PMP / "report.html", tmp_path / "sub" / "report.html")   # ../plotly.js absent
    for page, what in ((broken, "notAFunction"), (tmp_path / "sub" / "report.html", "plotly")):
        p = browser.load(page)
        assert p.errors >= 1 and what in p.error_text, (page, p.errors, p.error_text)


def test_without_chromium_the_test_fails_naming_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingTool) as e:
        browser.chromium()
    assert str(e.value) == "chromium is not installed (Debian package chromium; bash tools/install_deps.sh installs it)"
