"""The tool bench's run: one tool, by hand, as a stream of events ending with what the model would get.

`BenchRun(tool, arguments).events()` yields, in this order: `status_update` (connected, then
starting), `tool_event` tool_started (with the full arguments), any `tool_progress` / `tool_step` /
`tool_result_preview` the tool reports, then `tool_completed` or `tool_error` (with its
`error_type`), one `data` event (the final payload), and `end` — always, after an `error` event (a
failure of the run itself) or a cancel too. A tool that needs approval (`needs_approval`) runs only
once `approve` said yes: `approval_required` comes before `tool_started`, then `approved`, or
`denied` followed by `tool_error` and the denial the model would read (the tool never runs); a
`Blocked` call is refused the same way without asking. `ndjson()` gives the same as JSON lines. The result is
made by the agent's own `execute`, so the model-facing block is exactly what an agent would send.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pydantic_core

from .._exceptions import ToolDefinitionError, ToolFailure
from ..agent._tool_calls import Executed, execute, judge
from ..events._events import ToolProgress, ToolResultPreview, ToolStep
from ..session._state import ToolResult
from ..tools._tool import Tool
from ._cost import cost_estimate, count_tokens
from ._validation import validate_output

__all__ = ["Approver", "BenchRun"]

Event = dict[str, Any]
Approver = Callable[[dict[str, Any]], Awaitable[bool]]
"""Asked before a tool that needs approval runs, with {call_id, name, arguments}: True runs it."""
DENIED = "The user denied this call."
"""What the model reads for a denied call (the agent's own words)."""


def _event(kind: str, data: dict[str, Any]) -> Event:
    return {"event": kind, "data": data}


class BenchRun:
    """One run of a tool on the bench; iterate `events()` (once), `cancel()` from anywhere.

    Args:
        tool: A backend tool (a frontend tool is answered by a person, not run: the run fails).
        arguments: Its arguments (checked like the model's).
        max_result_chars: The agent's limit on the model's text.
        client, model: With an `anthropic.AsyncAnthropic` that has a key, tokens are counted exactly.
        approve: For a tool that needs approval: an async function that asks a person (True runs
            the tool), or True / False decided in code. None (the default) runs no such tool: the
            run fails saying so.
    """

    def __init__(
        self,
        tool: Tool,
        arguments: dict[str, Any],
        *,
        max_result_chars: int = 100_000,
        client: Any = None,
        model: str = "claude-sonnet-4-6",
        approve: Approver | bool | None = None,
    ) -> None:
        self.tool = tool
        self.approve = approve
        self.arguments = arguments
        self.call_id = f"toolu_bench_{uuid.uuid4().hex[:16]}"
        self.max_result_chars = max_result_chars
        self.client = client
        self.model = model
        self._task: asyncio.Task[Executed] | None = None
        self._asking: asyncio.Future[bool] | None = None
        self._cancelled = False

    def cancel(self) -> None:
        """Stop the run: the tool's task is cancelled and the stream ends saying so."""
        self._cancelled = True
        for running in (self._asking, self._task):
            if running is not None:
                running.cancel()

    def _tool_event(self, kind: str, message: str, data: dict[str, Any], *, spinner: bool) -> Event:
        return _event(
            "tool_event",
            {
                "type": kind,
                "call_id": self.call_id,
                "tool_name": self.tool.name,
                "timestamp": time.time(),
                "message": message,
                "show_spinner": spinner,
                "data": data,
            },
        )

    def _report(self, event: Any) -> Event:
        if isinstance(event, ToolProgress):
            share = "" if event.progress is None else f" ({event.progress:.0%})"
            data = {"progress": event.progress}
            return self._tool_event("tool_progress", (event.message or "working") + share, data, spinner=True)
        if isinstance(event, ToolStep):
            return self._tool_event("tool_step", event.step, dict(event.data), spinner=True)
        assert isinstance(event, ToolResultPreview)
        return self._tool_event(
            "tool_result_preview", "partial result", {"preview": event.preview}, spinner=True
        )

    async def events(self) -> AsyncIterator[Event]:
        """The run's events, `end` last whatever happens."""
        try:
            yield _event("status_update", {"status": "connected", "message": "Connected"})
            if self.tool.executor != "backend":
                raise ToolDefinitionError(
                    f"{self.tool.name!r} is a frontend tool: a person answers it, it does not run"
                )
            if not isinstance(self.arguments, dict):
                raise ToolDefinitionError("the arguments must be a JSON object")
            yield _event("status_update", {"status": "starting", "message": f"Starting {self.tool.name}"})
            refusal = None
            async for event in self._approval():
                if event["event"] == "data":
                    refusal = event
                yield event
            if refusal is None:
                async for event in self._run():
                    yield event
        except asyncio.CancelledError:
            self.cancel()
            yield _event("status_update", {"status": "cancelled", "message": "Cancelled"})
        except Exception as exc:  # the run failed, not the tool
            yield _event("error", {"message": f"{type(exc).__name__}: {exc}"})
        finally:
            if self._task is not None and not self._task.done():
                self._task.cancel()
        yield _event("end", {})

    async def _approval(self) -> AsyncIterator[Event]:
        """Nothing for a call that needs no approval; else the asking, and the refusal's payload if any."""
        if self.tool.input_errors(self.arguments):
            return  # the run reports the bad input, and the tool does not run: nothing to approve
        action, _, reason = await judge(self.tool, self.arguments, "interactive", [])
        if action == "run":
            return
        name, arguments = self.tool.name, self.arguments
        if action == "ask":
            if self.approve is None:
                raise ToolDefinitionError(
                    f"{name!r} needs approval: pass approve=True to approve it, "
                    "or an async function that asks a person"
                )
            data = {"arguments": arguments}
            yield self._tool_event("approval_required", f"{name} needs your approval", data, spinner=True)
            request = {"call_id": self.call_id, "name": name, "arguments": arguments}
            if isinstance(self.approve, bool):
                approved = self.approve
            else:
                self._asking = asyncio.ensure_future(self.approve(request))
                if self._cancelled:
                    self._asking.cancel()
                approved = await self._asking  # cancel() stops the asking: the run ends cancelled
            if approved is True:
                yield self._tool_event("approved", f"{name} approved", {}, spinner=False)
                return
            yield self._tool_event("denied", f"{name} denied: it was not run", {}, spinner=False)
            error_type, text = "denied", DENIED
        else:  # Blocked, or an approval rule that failed: never run, never asked
            error_type, text = "blocked", f"This call is not allowed: {reason}"
        failed: dict[str, Any] = {"error_type": error_type, "content": text}
        yield self._tool_event("tool_error", f"{name} was not run ({error_type})", failed, spinner=False)
        refused = ToolResult(tool_use_id=self.call_id, content=text, is_error=True)
        failure = ToolFailure(text, error_type=error_type)
        yield _event("data", await self._payload(Executed(refused, failure=failure), 0.0))

    async def _run(self) -> AsyncIterator[Event]:
        reports: asyncio.Queue[Any] = asyncio.Queue()
        started = time.perf_counter()
        yield self._tool_event(
            "tool_started", f"Running {self.tool.name}", {"arguments": self.arguments}, spinner=True
        )
        self._task = asyncio.ensure_future(
            execute(self.tool, self.call_id, self.arguments, self.max_result_chars, reports.put_nowait)
        )
        if self._cancelled:
            self._task.cancel()
        while True:
            getter = asyncio.ensure_future(reports.get())
            done, _ = await asyncio.wait({getter, self._task}, return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                yield self._report(getter.result())
                continue
            getter.cancel()
            break
        while not reports.empty():
            yield self._report(reports.get_nowait())
        if self._task.cancelled():
            yield _event(
                "status_update", {"status": "cancelled", "message": "Cancelled: the tool's task was stopped"}
            )
            return
        executed = self._task.result()
        duration_ms = round((time.perf_counter() - started) * 1000, 3)
        result, failure = executed.result, executed.failure
        if result.is_error:
            error_type = failure.error_type if failure else "tool_error"
            data = {"error_type": error_type, "content": result.content}
            yield self._tool_event(
                "tool_error", f"{self.tool.name} failed ({error_type})", data, spinner=False
            )
        else:
            yield self._tool_event(
                "tool_completed", f"{self.tool.name} finished", {"content": result.content}, spinner=False
            )
        yield _event("data", await self._payload(executed, duration_ms))

    async def _payload(self, executed: Executed, duration_ms: float) -> dict[str, Any]:
        result, failure = executed.result, executed.failure
        block = {
            "tool_use_id": self.call_id,
            "name": self.tool.name,
            "content": result.content,
            "is_error": result.is_error,
        }
        exact = None
        if self.client is not None:
            exact = await count_tokens(self.client, self.model, result.to_block(), self.tool.name)
        output = None if result.is_error else pydantic_core.to_jsonable_python(executed.value, fallback=str)
        error = None
        if result.is_error:
            text = result.content if isinstance(result.content, str) else json.dumps(result.content)
            error = {
                "error_type": failure.error_type if failure else "tool_error",
                "message": failure.message if failure else text,
                "suggested_action": failure.suggested_action if failure else None,
                "is_retryable": failure.is_retryable if failure else False,
            }
        return {
            "model_facing_result": block,
            "full_result": {
                "success": not result.is_error,
                "output": output,
                "error": error,
                "duration_ms": duration_ms,
                "usage": None,
                "child_usages": [],
            },
            "cost_estimate": cost_estimate(result.content, exact_tokens=exact),
            "output_schema": self.tool.output_schema,
            "validation": validate_output(self.tool, output)
            if not result.is_error
            else {"status": "skipped"},
        }

    async def ndjson(self) -> AsyncIterator[str]:
        """The events as NDJSON lines (`{"event": ..., "data": ...}` and a newline)."""
        async for event in self.events():
            yield json.dumps(event, default=str) + "\n"
