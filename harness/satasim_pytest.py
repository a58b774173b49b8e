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

Spread over machines (docs/python.md "Many machines"): pytest-xdist runs the items on execnet
gateways (`-d --tx 2*popen --tx ssh=host//python=python3 ...`); `--satasim-summary FILE` makes
the controlling process write one summary of every scenario item (verdict, reasons, the trace's
SHA-256, the worker that ran it), whichever machine ran it; `--satasim-shard K/N` keeps the K-th
of N shares of the scenario items for a CI matrix job, and `python3 -m satasim.distributed
merge` joins the shards' summaries and JUnit files into one of each.
"""

from __future__ import annotations

import hashlib
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
    group.addoption("--satasim-summary", metavar="FILE", default=None,
                    help="write one JSON summary of every scenario item here (on the controlling process "
                         "of a distributed run: the items of every machine)")
    group.addoption("--satasim-shard", metavar="K/N", default=None,
                    help="keep the K-th of N shares of the scenario items (the i-th item, in collection "
                         "order from 0, is in share i mod N + 1), for CI matrix jobs")
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
    shard = config.getoption("satasim_shard")
    if shard is not None:
        config._satasim_shard = _parse_shard(shard)
    if config.getoption("satasim_summary") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(SummaryWriter(Path(config.getoption("satasim_summary"))),
                                      "satasim-summary")


def _parse_shard(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise pytest.UsageError(f"--satasim-shard: expected K/N with 1 <= K <= N, got '{text}'")
    return int(m.group(1)), int(m.group(2))


def pytest_collection_modifyitems(config, items):
    shard = getattr(config, "_satasim_shard", None)
    if shard is None:
        return
    k, n = shard
    keep, drop = [], []
    index = 0
    for item in items:
        if isinstance(item, ScenarioItem):
            (keep if index % n == k - 1 else drop).append(item)
            index += 1
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


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


def _sha256(path: Path) -> str:
    """The trace's digest: a run's trace is the same bytes on every machine (same scenario
    and seed), so two runs' digests say whether they decided the same."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


class SummaryWriter:
    """On the controlling process: every scenario item's outcome and properties, as the
    reports reach it (from this process or from xdist's workers), written at the end."""

    def __init__(self, path: Path):
        self.path = path
        self.items: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        # a scenario item's run phase (its file is a .yaml); a refused scenario has no properties
        if report.when != "call" or not report.nodeid.split("::")[0].endswith(".yaml"):
            return
        props = dict(report.user_properties)
        node = getattr(report, "node", None)  # xdist: the worker's controller, with its gateway
        self.items[report.nodeid] = {
            "nodeid": report.nodeid,
            "outcome": report.outcome,
            "verdict": props.get("satasim_verdict", "refused"),
            "reasons": (json.loads(props["satasim_reasons"]) if "satasim_reasons" in props
                        else [report.longreprtext] if report.failed else []),
            "trace_sha256": props.get("satasim_trace_sha256", ""),
            "worker": getattr(getattr(node, "gateway", None), "id", None) or "local",
        }

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        from satasim.distributed import write_summary  # noqa: PLC0415 (lazy, see the module doc)

        write_summary(self.path, list(self.items.values()))


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
            # the summary's reasons name files relative to this worker's folder, so that a
            # refusal reads the same whichever machine (and folder) ran it
            here = str(Path.cwd()) + "/"
            self.user_properties.append(("satasim_verdict", "refused"))
            self.user_properties.append(("satasim_reasons", json.dumps([str(e).replace(here, "")])))
            raise ScenarioFailed(f"refused: {e}") from None
        for key, value in (("result", r.result_path), ("log", r.log_path), ("trace", r.trace_path),
                           ("waveform", r.waveform_path or ""), ("verdict", r.verdict),
                           ("trace_sha256", _sha256(r.trace_path)), ("reasons", json.dumps(r.reasons))):
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

