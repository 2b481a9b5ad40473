"""Running one backend call for the agent: the events a front end shows around it, and the live value kept.

`_tool_calls.execute` runs the tool and turns whatever happens into a result; this part tells every
front end that the call started and how it ended, and keeps the live value (a DataFrame, a figure)
for `agent.results`. The loop runs queued calls through it, and so does a run by hand. A queued
call's `nt.checkpoint()` is saved on the call in the session (a run by hand keeps none).
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..events._events import ToolCompleted, ToolErrorEvent, ToolStarted
from ..prompts import _in_call
from ..results import KeptResult, KeptResults
from ..session._result_content import preview_text
from ..session._state import QueuedCall, ToolResult
from ..tools import _checkpoint
from ..tools._tool import Tool
from ._settings import Settings
from ._tool_calls import execute, with_edit_note
from ._writer import SessionWriter

__all__ = ["CallRunner"]

MAX_APP_RESULT_CHARS = 1_000_000
"""An MCP app's result larger than this (as JSON) is not kept in the session: after a restart the app
gets the result's text, as the model read it."""
MAX_APP_RESULTS = 20
"""The newest app results a session keeps (older app cards get their text after a restart)."""


class CallRunner:
    """Runs backend calls of one agent's session.

    Args:
        writer: The session's writer (for its events).
        tools: Every tool the agent knows, live (a plugin injected later adds its own).
        results: Where live values are kept, by tool_use_id.
        settings: The agent's settings (`max_result_chars`).
    """

    def __init__(
        self, writer: SessionWriter, tools: dict[str, Tool], results: KeptResults, settings: Settings
    ) -> None:
        self.writer = writer
        self.tools = tools
        self.results = results
        self.settings = settings
        self.prompts: _in_call.InCallPrompts | None = None
        """Who a running tool can ask (`prompts.in_call_prompts()` in it); None: nobody."""

    async def execute(self, call: QueuedCall) -> ToolResult:
        """Run `call`'s tool; exceptions become error results, every front end sees it start and end."""
        found = self.tools[call.name]
        publish = self.writer.publish
        await publish(
            ToolStarted(tool_use_id=call.tool_use_id, name=call.name, input=call.input, executor="backend")
        )
        started = time.perf_counter()
        kept = _checkpoint.checkpointing(self._checkpoint(call))
        asking = _in_call.asking(self.prompts)
        try:
            executed = await execute(
                found, call.tool_use_id, call.input, self.settings.max_result_chars, self._emit
            )
        finally:
            _in_call.reset(asking)
            _checkpoint.reset(kept)
        result = executed.result
        if call.original_input is not None:
            result = with_edit_note(result, call.original_input, call.input)
        duration = time.perf_counter() - started
        if result.is_error:
            error = preview_text(result.content)
            await publish(ToolErrorEvent(tool_use_id=call.tool_use_id, name=call.name, error=error))
            return result
        if executed.shown is not None:
            self.results.keep(KeptResult(call.tool_use_id, call.name, executed.value, executed.shown))
            if executed.shown.kind == "mcp.app":  # its app shows the whole result again after a restart
                self._keep_app_result(call.tool_use_id, executed.shown.data)
        completed = ToolCompleted(
            tool_use_id=call.tool_use_id,
            name=call.name,
            result=result,
            duration=duration,
            shown=executed.shown,
        )
        await publish(completed)
        return result

    def _checkpoint(self, call: QueuedCall) -> _checkpoint.Checkpoint:
        """`call`'s checkpoint: what it saved before, and saving on the call in the session (when queued)."""
        writer = self.writer

        async def save(data: dict[str, Any] | None) -> None:
            state = writer.state
            calls = [
                q.model_copy(update={"checkpoint": data}) if q.tool_use_id == call.tool_use_id else q
                for q in state.queued_calls
            ]
            if calls != state.queued_calls:
                writer.save_and_adopt(state.model_copy(update={"queued_calls": calls}))

        queued = any(q.tool_use_id == call.tool_use_id for q in writer.state.queued_calls)
        return _checkpoint.Checkpoint(call.tool_use_id, call.checkpoint, save if queued else None)

    def _keep_app_result(self, tool_use_id: str, data: Any) -> None:
        result = data.get("result") if isinstance(data, dict) else None
        if isinstance(result, dict) and len(json.dumps(result)) <= MAX_APP_RESULT_CHARS:  # else: its text
            state = self.writer.state
            newest = list(state.app_results.items())[-(MAX_APP_RESULTS - 1) :]  # the oldest make room
            kept = {**dict(newest), tool_use_id: result}
            self.writer.save_and_adopt(state.model_copy(update={"app_results": kept}))

    def _emit(self, event: Any) -> None:
        """Publish a running tool's report (from the loop's thread)."""
        self.writer.announce(event)
