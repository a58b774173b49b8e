"""HTML pages of satasim runs (issue 34, "A report worth opening"): a run's report with an
interactive timeline (plotly, one lane per device), the failure and golden diff at the top
and the filterable, folded log; a suite's index. Templates: jinja2 (templates/).

  python3 -m satasim.render html OUT/SCENARIO -o report.html     # one run, one file
  python3 -m satasim.report OUT --html OUT/index.html            # the suite: index + reports

browser.py opens the pages in headless Chromium (the test, the screenshots in docs/images/).
"""

from .pages import render_index, render_run, write_suite  # noqa: F401
