"""Scenario files as the simulator reads them.

The simulator (yaml-cpp) keeps every scalar as the text written and converts it where a key
needs a number or a flag (harness/src/scenario/: as_uint, as_bool, ...). PyYAML's default
loaders follow YAML 1.1 instead and convert by the look of the text: an unquoted
`serial: 00001234` becomes the octal 668, `firmware: 1.10` the float 1.1, `on` True. Python
tools must not read a second dialect, so they load scenarios with ScenarioLoader (every
scalar a string, nulls None, no `<<` merge keys: as yaml-cpp) and convert with as_uint() and
as_bool() (the simulator's rules) where they need a number or a flag. ScenarioDumper writes
such a tree back so that it reads the same in both: the strings as written (unquoted where
YAML allows it), so yaml-cpp and PyYAML read back the text they would have read before.

Includes (harness/src/scenario/scenario_include.cpp): maps merge key by key, the including
file wins; other values are replaced whole; paths are relative to the including file. As in
the simulator, an included file must lie in the scenario's folder tree (its own folder, or
the nearest folder above it that holds INCLUDE_ROOT_MARKER), after symlinks and '..' are
resolved, be a regular file and be at most INCLUDE_MAX_BYTES long.
"""

import os
import stat

import re
from pathlib import Path

import yaml

MAX_DEPTH = 16
INCLUDE_MAX_BYTES = 1 << 20                   # scenario_include.h: kIncludeMaxBytes
INCLUDE_ROOT_MARKER = ".satasim-include-root"  # scenario_include.h: kIncludeRootMarker

_NULL = "tag:yaml.org,2002:null"
_STR = "tag:yaml.org,2002:str"


def _only_null(resolvers):
    return {first: [(tag, rx) for tag, rx in rs if tag == _NULL]
            for first, rs in resolvers.items()}


class ScenarioLoader(yaml.SafeLoader):
    """Every scalar a string except the nulls (`~`, `null`, `Null`, `NULL`, empty)."""


ScenarioLoader.yaml_implicit_resolvers = _only_null(yaml.SafeLoader.yaml_implicit_resolvers)
for _tag in ("bool", "int", "float", "timestamp"):   # explicit tags: the text, as yaml-cpp
    ScenarioLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", lambda loader, node: loader.construct_scalar(node))


class ScenarioDumper(yaml.SafeDumper):
    """Writes strings plain where YAML allows (a string that reads as null is quoted)."""


ScenarioDumper.yaml_implicit_resolvers = _only_null(yaml.SafeDumper.yaml_implicit_resolvers)
ScenarioDumper.add_representer(bool, lambda d, v: d.represent_scalar(_STR, "true" if v else "false"))
ScenarioDumper.add_representer(int, lambda d, v: d.represent_scalar(_STR, str(v)))


def load_yaml(text: str):
    """A scenario's YAML text, read as the simulator reads it (scalars stay strings)."""
    return yaml.load(text, Loader=ScenarioLoader)


def dump_yaml(spec) -> str:
    """YAML text of a scenario tree that the simulator reads back as the same values."""
    return yaml.dump(spec, Dumper=ScenarioDumper, sort_keys=False)


def as_uint(v) -> int:
    """A non-negative integer scalar as the simulator reads it: decimal, or 0x hex."""
    if isinstance(v, bool):
        raise ValueError(f"expected a non-negative integer, got {v!r}")
    if isinstance(v, int):
        return v
    s = str(v)
    if s[:2] in ("0x", "0X") and len(s) > 2:
        return int(s[2:], 16)
    if not re.fullmatch(r"[0-9]+", s):
        raise ValueError(f"expected a non-negative integer, got '{s}'")
    return int(s, 10)


def as_bool(v) -> bool:
    """A flag as the simulator reads it: true/yes/on, false/no/off (any case)."""
    if isinstance(v, bool):
        return v
    s = str(v).lower()
    if s in ("true", "yes", "on"):
        return True
    if s in ("false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, got '{v}'")


def load_scenario(path) -> dict:
    """The scenario at `path` with every include merged in, scalars as strings."""
    p = Path(path)
    return with_includes(load_yaml(p.read_text()) or {}, p, tree=include_tree_root(p))


def include_tree_root(scenario: Path) -> Path:
    """The folder tree a scenario's includes must stay in (the simulator's tree_root)."""
    own = scenario.absolute().parent.resolve()
    for d in [own, *own.parents]:
        if (d / INCLUDE_ROOT_MARKER).is_file():
            return d
    return own


def read_included(p: Path, tree: Path, name: str, from_file: Path) -> str:
    """The text of the included file p, refused (ValueError naming the including file and
    the include) outside the tree, when not a regular file or when too large; nothing of
    the file's text goes into the message."""
    def refuse(why):
        raise ValueError(f"{from_file}: include: {name}: {why}")

    canon = p.resolve()
    if not canon.parent.is_relative_to(tree):
        refuse(f"outside the scenario's folder tree {tree}")
    try:
        st = os.stat(canon)
    except OSError:
        refuse("cannot read the included file")
    if not stat.S_ISREG(st.st_mode):
        refuse("not a regular file (a device, FIFO, socket or folder cannot be included)")
    if st.st_size > INCLUDE_MAX_BYTES:
        refuse(f"too large ({st.st_size} bytes; an included file may have at most {INCLUDE_MAX_BYTES})")
    return canon.read_text()


def with_includes(spec, path: Path, depth=0, tree: Path | None = None):
    if not isinstance(spec, dict) or "include" not in spec or depth > MAX_DEPTH:
        return spec
    tree = tree or include_tree_root(path)
    inc = spec["include"]
    merged: dict = {}
    for name in inc if isinstance(inc, list) else [inc]:
        p = path.parent / str(name)
        text = read_included(p, tree, str(name), path)
        merged = _merge(merged, with_includes(load_yaml(text) or {}, p, depth + 1, tree))
    return _merge(merged, {k: v for k, v in spec.items() if k != "include"})


def _merge(base, top):
    if not (isinstance(base, dict) and isinstance(top, dict)):
        return top
    out = dict(base)
    for k, v in top.items():
        out[k] = _merge(out[k], v) if k in out else v
    return out
