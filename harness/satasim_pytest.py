"""The satasim pytest plugin (entry point `pytest11: satasim`, installed by tools/install_deps.sh;
docs/python.md). A module of its own beside the satasim package, which it imports only when
a scenario runs: pytest loads plugins before it reads a project's `pythonpath`, and a plugin
that imported satasim then would pin every checkout to the installed one's package.

Scenarios as test items: with `--satasim-scenarios PATH` (repeatable) or the ini option
`satasim_scenarios`, every scenario file under those paths becomes a test item, one per
point of its matrix, named after it; the item passes when the run's verdict is pass. Each
item carries markers from its scenario (controller_<type>, backend_<name>, link_<level>,
fault_<kind>, slow) and its result, log and trace paths as JUnit properties
(`--junitxml`). For plain test functions, the `satasim_run` fixture runs a scenario given
as a dict or a file into the test's temporary folder and returns a satasim.Result.
Without those options the plugin collects nothing: a project that has it installed runs its
own tests as before.
"""

from __future__ import annotations

import itertools
import json
import re
import tempfile
from pathlib import Path

import pytest
import yaml


# The markers an item can get; registered so that `-m` and --strict-markers know them.
# The controllers: the simulator's descriptor table as the satasim package keeps it (read as
# a file, not imported: see above).
CONTROLLERS = tuple(r["name"] for r in json.loads(
    (Path(__file__).parent / "satasim" / "controller_table.json").read_text(encoding="utf-8"))["controllers"])
BACKENDS = ("systemc", "qemu", "rtl")
LINKS = ("dword", "fis")
# A scenario whose time limit is longer than this (simulated seconds) is marked slow.
SLOW_TIME_LIMIT_S = 60


def pytest_addoption(parser):
    group = parser.getgroup("satasim", "satasim scenarios as tests")
    group.addoption("--satasim-scenarios", action="append", default=[], metavar="PATH",
                    help="collect the scenario files under PATH (a file or a folder, recursive) as tests")
    group.addoption("--satasim-out", metavar="DIR", default=None,
                    help="where the scenario items' runs go (default: pytest's temporary folders)")
    parser.addini("satasim_scenarios", type="pathlist", default=[],
                  help="scenario files or folders collected as tests (as --satasim-scenarios)")


def pytest_configure(config):
    for c in CONTROLLERS:
        config.addinivalue_line("markers", f"controller_{c}: a satasim scenario on the {c} controller model")
    for b in BACKENDS:
        config.addinivalue_line("markers", f"backend_{b}: a satasim scenario on the {b} backend")
    for lvl in LINKS:
        config.addinivalue_line("markers", f"link_{lvl}: a satasim scenario at the {lvl} link level")
    config.addinivalue_line("markers", "slow: a satasim scenario with a long simulated time limit")
    config.addinivalue_line("markers", "fault: a satasim scenario that injects faults (also fault_<kind>)")


def _roots(config) -> list[Path]:
    roots = [Path(p) for p in config.getoption("satasim_scenarios")]
    roots += [Path(p) for p in config.getini("satasim_scenarios")]
    return [r.resolve() for r in roots]


def _is_scenario(path: Path, data) -> bool:
    return (isinstance(data, dict) and path.name != "testplan.yaml"
            and ("controller" in data or "devices" in data or "include" in data or "steps" in data))


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".yaml":
        return None
    roots = _roots(parent.config)
    here = file_path.resolve()
    if not any(here == r or r in here.parents for r in roots):
        return None
    return ScenarioFile.from_parent(parent, path=file_path)


def _points(matrix) -> list[dict]:
    """The matrix's points as {key path: value}, the first axis slowest (as satasim run)."""
    if not isinstance(matrix, dict) or not matrix:
        return [{}]
    axes = [(k, v if isinstance(v, list) else [v]) for k, v in matrix.items()]
    return [dict(zip([k for k, _ in axes], combo)) for combo in itertools.product(*[v for _, v in axes])]


def _suffix(point: dict) -> str:
    def clean(v):
        text = v if isinstance(v, str) else yaml.safe_dump(v, default_flow_style=True).strip()
        return re.sub(r"[^A-Za-z0-9_-]", "", text) or "x"
    return ".".join(clean(v) for v in point.values())


def _marks(data: dict, point: dict) -> list:
    def get(path, default=None):
        if path in point:
            return point[path]
        node = data
        for key in path.split("."):
            if not isinstance(node, dict) or key not in node:
                return default
            node = node[key]
        return node
    marks = [getattr(pytest.mark, f"controller_{get('controller.type', 'ahci')}"),
             getattr(pytest.mark, f"backend_{get('backend', 'systemc')}")]
    link = get("link.mode")
    if link in LINKS:
        marks.append(getattr(pytest.mark, f"link_{link}"))
    faults = data.get("faults") or []
    if faults:
        marks.append(pytest.mark.fault)
        for f in faults:
            if isinstance(f, dict) and isinstance(f.get("kind"), str):
                marks.append(getattr(pytest.mark, f"fault_{f['kind']}"))
    limit = str(get("time_limit", ""))
    m = re.match(r"^(\d+)s$", limit)
    if m and int(m.group(1)) > SLOW_TIME_LIMIT_S:
        marks.append(pytest.mark.slow)
    return marks


class ScenarioFile(pytest.File):
    def collect(self):
        try:
            data = yaml.safe_load(self.path.read_text())
        except yaml.YAMLError:
            data = {"controller": None}   # malformed: one item, which the simulator refuses
        if not _is_scenario(self.path, data):
            return
        base = str(data.get("name") or self.path.stem)
        for point in _points(data.get("matrix")):
            name = f"{base}.{_suffix(point)}" if point else base
            item = ScenarioItem.from_parent(self, name=name, point=point)
            for mark in _marks(data, point):
                item.add_marker(mark)
            yield item


class ScenarioFailed(Exception):
    pass


class ScenarioItem(pytest.Item):
    def __init__(self, *, point, **kw):
        super().__init__(**kw)
        self.point = point

    def runtest(self):
        out = self.config.getoption("satasim_out")
        if out:
            out_dir = Path(out) / self.name
        else:  # pytest's own temporary folders (basetemp), as tmp_path uses them
            factory = getattr(self.config, "_tmp_path_factory", None)
            out_dir = Path(factory.mktemp(self.name[:40])) if factory else Path(tempfile.mkdtemp(prefix="satasim-"))
        overrides = dict(self.point)
        if self.point:
            overrides["name"] = self.name
        from satasim.api import ScenarioRefused, run_scenario

        try:
            r = run_scenario(self.path, overrides=overrides, out_dir=out_dir)
        except ScenarioRefused as e:
            raise ScenarioFailed(f"refused: {e}") from None
        for key, value in (("result", r.result_path), ("log", r.log_path), ("trace", r.trace_path),
                           ("waveform", r.waveform_path or ""), ("verdict", r.verdict)):
            self.user_properties.append((f"satasim_{key}", str(value)))
        if not r.passed:
            raise ScenarioFailed("\n".join(r.reasons) or r.verdict)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ScenarioFailed):
            return f"{self.path}: {self.name}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"satasim scenario {self.name}"


@pytest.fixture
def satasim_run(tmp_path):
    """Runs a scenario (a dict or a file) into this test's temporary folder: the same
    arguments as satasim.run_scenario, returns its Result."""
    counter = itertools.count()

    def run(scenario, **kw):
        from satasim.api import run_scenario

        kw.setdefault("out_dir", tmp_path / f"run{next(counter)}")
        return run_scenario(scenario, **kw)

    return run

