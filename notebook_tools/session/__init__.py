"""The session: `AgentState` and the pure transitions over it.

`AgentState` is a whole conversation with its pauses (`PendingFrontendTool`, `QueuedCall`,
`FrontendAck`, `SetAside` turns), token `Usage` and tool-set state, and round-trips through JSON
exactly; a run ends in a `RunResult` with its `StopReason`; a call's outcome is a `ToolResult`.
Every change of a session leaves it valid or raises: `check_invariant` is the one owner of
"every tool_use gets one tool_result". No I/O here: the agent saves and publishes around it.
"""

from ._state import (
    AgentState,
    FrontendAck,
    PendingFrontendTool,
    QueuedCall,
    RunResult,
    SetAside,
    StopReason,
    ToolResult,
    Usage,
)
from ._transitions import check_invariant

__all__ = [
    "AgentState",
    "FrontendAck",
    "PendingFrontendTool",
    "QueuedCall",
    "RunResult",
    "SetAside",
    "StopReason",
    "ToolResult",
    "Usage",
    "check_invariant",
]
