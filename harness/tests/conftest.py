import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def write_scenario(tmp_path):
    """Writes a scenario file from (dedented) YAML text and returns its path."""

    def write(text, name="scenario.yaml"):
        path = tmp_path / "in" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    return write
