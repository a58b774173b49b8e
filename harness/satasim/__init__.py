"""Python side of the satasim harness: run the simulator, read its results and traces."""

from .results import RunOutput, load_result, load_summary, load_trace, run, run_shared

__all__ = ["RunOutput", "load_result", "load_summary", "load_trace", "run", "run_shared"]
