"""The session: `AgentState` and the pure transitions over it.

    _state           AgentState, ToolResult, pending calls, usage, RunResult (JSON round-trip exact)
    _transitions     every change of a session, each leaving it valid or raising: the one owner of
                     "every tool_use gets one tool_result"
    _checks          what a resume or an answer must be to be taken (exact ids, types, sizes)
    _result_content  a tool's value as `tool_result` content, truncated and previewed

No I/O here: the agent saves and publishes around these functions.
"""
