"""Running a tool by hand: the person runs it, the transcript shows it, the model hears of it next time."""

from __future__ import annotations

import json
import uuid
from typing import Any

from .._exceptions import InvalidToolResultError, ToolDefinitionError
from ..session import _transitions as tr
from ..session._result_content import preview_text
from ..session._state import QueuedCall, ToolResult
from ._call_runner import CallRunner
from ._toolset_control import ToolsetControl
from ._writer import SessionWriter

__all__ = ["ManualRuns"]


class ManualRuns:
    """Tools run by hand.

    Args:
        writer: The session's writer.
        control: The agent's tool-set control (tools, and the changes a result may carry).
        runner: Runs the call, as the loop runs the model's.
    """

    def __init__(self, writer: SessionWriter, control: ToolsetControl, runner: CallRunner) -> None:
        self.writer = writer
        self.control = control
        self.runner = runner

    async def run(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run a tool by hand (mode "manual" or "both"); the model hears of it with the next message."""
        writer, control, tools = self.writer, self.control, self.control.tools
        with writer.exclusive():
            found = tools.get(name)
            if found is None or found.mode == "llm":
                manual = ", ".join(t.name for t in tools.values() if t.mode != "llm") or "none"
                raise ToolDefinitionError(f"{name!r} cannot be run by hand; tools that can: {manual}")
            if found.executor == "frontend":
                raise ToolDefinitionError(f"{name!r} is a frontend tool: it is answered by a person, not run")
            errors = found.input_errors(arguments)
            if errors:
                raise InvalidToolResultError(name, "invalid arguments: " + "; ".join(errors))
            tool_use_id = f"manual_{uuid.uuid4().hex[:12]}"
            result = await self.runner.execute(
                QueuedCall(tool_use_id=tool_use_id, name=name, input=arguments)
            )
            result = control.hooked(result, name)
            result, toolset, changes = control.augmented(writer.state.toolset, result, strict=False)
            outcome = "failed" if result.is_error else "returned"
            note = (
                f"{tr.MANUAL_NOTE_PREFIX}`{name}` by hand with {json.dumps(arguments, default=str)}; "
                f"it {outcome}: {preview_text(result.content)}]"
            )
            await writer.commit(tr.add_manual_note(tr.set_toolset(writer.state, toolset), note))
            for change in changes:
                await writer.publish(change)
            return result
