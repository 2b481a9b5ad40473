"""The agent: request -> message -> run tools -> append results -> next, with pauses.

`Agent` is the public API: a facade over parts built by composition, each handed the one writer of
the session (state, store and bus: saved, then published) and readable and testable alone. A tool
learns the call it runs in from `current_tool_use_id()`; `DEFAULT_MODEL` is the model an agent asks
for unless told otherwise. Nothing here imports a front end; front ends drive the agent through
`frontend.FrontendSession`.
"""

from ._agent import DEFAULT_MODEL, Agent
from ._tool_calls import current_tool_use_id

__all__ = ["DEFAULT_MODEL", "Agent", "current_tool_use_id"]
