"""A scenario file as the simulator reads it: its `include:` files merged under it
(harness/src/scenario/scenario_include.cpp: maps merge key by key, the including file wins; other
values are replaced whole; paths are relative to the including file)."""

from pathlib import Path

MAX_DEPTH = 16


def load_scenario(path) -> dict:
    """The scenario at `path` (YAML) with every include merged in."""
    import yaml
    p = Path(path)
    return with_includes(yaml.safe_load(p.read_text()) or {}, p)


def with_includes(spec, path: Path, depth=0):
    if not isinstance(spec, dict) or "include" not in spec or depth > MAX_DEPTH:
        return spec
    import yaml
    inc = spec["include"]
    merged: dict = {}
    for name in inc if isinstance(inc, list) else [inc]:
        p = path.parent / str(name)
        merged = _merge(merged, with_includes(yaml.safe_load(p.read_text()) or {}, p, depth + 1))
    return _merge(merged, {k: v for k, v in spec.items() if k != "include"})


def _merge(base, top):
    if not (isinstance(base, dict) and isinstance(top, dict)):
        return top
    out = dict(base)
    for k, v in top.items():
        out[k] = _merge(out[k], v) if k in out else v
    return out
