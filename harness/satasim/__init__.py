"""Python side of the satasim harness: run scenarios (satasim.run_scenario: a file or a dict,
with overrides, to a Result), read results and traces, compare goldens (docs/python.md)."""

from .api import Result, ScenarioRefused, run_scenario
from .results import RunOutput, load_result, load_summary, load_trace, run, run_shared

__version__ = "0.3.0"

__all__ = ["Result", "RunOutput", "ScenarioRefused", "load_result", "load_summary", "load_trace", "run",
           "run_scenario", "run_shared"]
