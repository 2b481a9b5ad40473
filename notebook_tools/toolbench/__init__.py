"""The tool bench's machinery: run one tool by hand as a stream of events, and what it would cost.

    from notebook_tools.toolbench import BenchRun

    async for event in BenchRun(my_tool, {"url": "https://example.org"}).events():
        print(event["event"], event["data"])

The widget `nt.ToolBench` shows the same stream; `ndjson()` serves it to a web page or a log.

`CHARS_PER_TOKEN` is the ratio the offline token estimate uses (about 3.5 characters per token).
"""

from ._cost import CHARS_PER_TOKEN, cost_estimate, count_tokens, prices
from ._runner import BenchRun
from ._validation import validate_output

__all__ = ["CHARS_PER_TOKEN", "BenchRun", "cost_estimate", "count_tokens", "prices", "validate_output"]
