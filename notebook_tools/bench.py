"""The tool bench's machinery under its first name: `notebook_tools.toolbench` is the package now.

from notebook_tools.bench import BenchRun   # still works; same objects as notebook_tools.toolbench
"""

from .toolbench import CHARS_PER_TOKEN, BenchRun, cost_estimate, count_tokens, prices, validate_output

__all__ = ["CHARS_PER_TOKEN", "BenchRun", "cost_estimate", "count_tokens", "prices", "validate_output"]
