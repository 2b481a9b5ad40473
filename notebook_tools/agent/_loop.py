"""The agent's loop: run queued calls, pause where a person must answer, request while the user has the turn.

Every change goes through `_transitions`; this module only does the I/O around them: requests,
running tools, and the events that tell front ends what happened.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import anthropic

from ..api._stream import stream_message
from ..events._events import (
    ApprovalRequired,
    AwaitingFrontendTools,
    Status,
    TextDelta,
    ToolCompleted,
    ToolErrorEvent,
    ToolsetChanged,
    ToolStarted,
    UsageEvent,
)
from ..results import KeptResult
from ..session import _transitions as tr
from ..session._result_content import preview_text
from ..session._state import PendingFrontendTool, QueuedCall, RunResult, ToolResult
from ..tools._toolset_changes import Route
from ..tools._toolset_state import ToolsetState
from ._tool_calls import execute, plan_call, spread_timeouts, with_edit_note
from ._toolset_control import PluginControl

__all__ = ["Loop"]

_CACHE = {"type": "ephemeral"}


class Loop(PluginControl):
    """The request -> reply -> tools -> results cycle of one agent."""

    _last_stop_reason: str = "end_turn"

    async def _drive(self) -> RunResult:
        """Run queued calls, pause for a person where one must answer, request while the user has the turn."""
        await self._publish(Status(state="running"))
        requests = 0
        while True:
            while self.state.queued_calls:
                call = self.state.queued_calls[0]
                if self._interrupted:
                    raise asyncio.CancelledError("interrupted")
                await self._record(await self._execute(call), call.name)
            state = self.state
            if state.pending_approvals:
                for approval in state.pending_approvals:
                    await self._publish(
                        ApprovalRequired(
                            tool_use_id=approval.tool_use_id, name=approval.name, input=approval.input
                        )
                    )
                await self._publish(Status(state="awaiting_approval"))
                return self._result("awaiting_approval")
            if state.pending_frontend_tools:
                await self._publish(AwaitingFrontendTools(pending=list(state.pending_frontend_tools)))
                await self._publish(Status(state="awaiting_frontend_tools"))
                return self._result("awaiting_frontend_tools")
            last = state.messages[-1] if state.messages else None
            if last is None or last["role"] == "assistant":
                return await self._finish(self._last_stop_reason)
            if requests == self.max_turns:
                return await self._finish("max_turns")
            requests += 1
            if not await self._reply(await self._request()):
                return await self._finish(self._last_stop_reason)  # an empty reply: nothing to add

    async def _reply(self, message: anthropic.types.Message) -> bool:
        """Plan every call of the model's reply, then add the reply and the plans in one transition."""
        content = [b.model_dump(mode="json", exclude_none=True) for b in message.content]
        content = [{k: v for k, v in b.items() if k != "parsed_output"} for b in content]
        self._last_stop_reason = message.stop_reason or "end_turn"
        truncated = message.stop_reason == "max_tokens"
        plans, audits = [], []
        changes: list[ToolsetChanged] = []
        asked = toolset = self.state.toolset
        for block in (b for b in content if b["type"] == "tool_use"):
            route = self.toolset.route(asked, toolset, block["name"])
            if route.kind == "tool" or truncated:
                plan, audit = await plan_call(
                    block, self.tools, self.approval_mode, self.state.approvals, truncated=truncated
                )
            else:
                plan, toolset, change = self._container_call(block["id"], route, toolset)
                audit = None
                if change is not None:
                    changes.append(change)
            plans.append(plan)
            if audit is not None:
                audits.append((block, *audit))
        plans = spread_timeouts(plans, self.tools)
        before = len(self.state.messages)
        await self._commit(
            tr.add_assistant_reply(tr.set_toolset(self.state, toolset), content, plans, message.usage)
        )
        await self._publish(UsageEvent(usage=self.state.usage))
        if len(self.state.messages) == before:
            return False
        for change in changes:
            await self._publish(change)
        for block, decision, reason in audits:
            self._audit(block["id"], block["name"], block.get("input", {}), decision, reason)
        for plan in plans:
            if isinstance(plan, ToolResult) and plan.is_error:  # a container's answer is no error
                name = next(b["name"] for b in content if b.get("id") == plan.tool_use_id)
                error = ToolErrorEvent(tool_use_id=plan.tool_use_id, name=name, error=str(plan.content))
                await self._publish(error)
            elif isinstance(plan, PendingFrontendTool):
                event = ToolStarted(
                    tool_use_id=plan.tool_use_id, name=plan.name, input=plan.input, executor="frontend"
                )
                await self._publish(event)
        return True

    def _container_call(
        self, tool_use_id: str, route: Route, toolset: ToolsetState
    ) -> tuple[ToolResult, ToolsetState, ToolsetChanged | None]:
        """A call of a plugin or skill container (answered here, at once), or of an unavailable tool.

        Its result, the tool set after it, and the change to announce (None when nothing changed).
        """
        if route.kind == "unavailable":
            return ToolResult(tool_use_id=tool_use_id, content=route.text, is_error=True), toolset, None
        assert route.plugin is not None
        if route.skill is not None:
            after, text, tools = self.toolset.activate(toolset, route.plugin, route.skill)
            kind, name = "skill_activated", route.skill.name
        else:
            after, text, tools = self.toolset.expand(toolset, route.plugin)
            kind, name = "expanded", route.plugin.name
        change = ToolsetChanged(change=kind, names=[name], by="model", tool_use_id=tool_use_id, tools=tools)
        return ToolResult(tool_use_id=tool_use_id, content=text), after, change if after != toolset else None

    async def _execute(self, call: QueuedCall) -> ToolResult:
        found = self.tools[call.name]
        await self._publish(
            ToolStarted(tool_use_id=call.tool_use_id, name=call.name, input=call.input, executor="backend")
        )
        started = time.perf_counter()
        executed = await execute(found, call.tool_use_id, call.input, self.max_result_chars, self._emit)
        result = executed.result
        if call.original_input is not None:
            result = with_edit_note(result, call.original_input, call.input)
        duration = time.perf_counter() - started
        if result.is_error:
            await self._publish(
                ToolErrorEvent(
                    tool_use_id=call.tool_use_id, name=call.name, error=preview_text(result.content)
                )
            )
        else:
            if executed.shown is not None:
                self.results.keep(KeptResult(call.tool_use_id, call.name, executed.value, executed.shown))
            completed = ToolCompleted(
                tool_use_id=call.tool_use_id,
                name=call.name,
                result=result,
                duration=duration,
                shown=executed.shown,
            )
            await self._publish(completed)
        return result

    def _emit(self, event: Any) -> None:
        """Publish a running tool's report (from the loop's thread)."""
        event.agent_uuid = self.agent_uuid
        self.events.publish_nowait(event)

    async def _request(self) -> anthropic.types.Message:
        async def on_text(text: str) -> None:
            await self._publish(TextDelta(text=text, request=self._requests))

        async def on_retry(detail: str) -> None:
            self._requests += 1
            await self._publish(Status(state="retrying", detail=detail))

        self._requests += 1
        return await stream_message(
            self.client,
            self._params(),
            on_text=on_text,
            on_retry=on_retry,
            stopped=lambda: self._interrupted,
            retries=self.stream_retries,
            delay=self.retry_delay,
        )

    def _params(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": self.state.messages,
        }
        # Two system blocks: what never changes, then what the tool set adds; a change of the second
        # keeps the first (and the tools before it) cached.
        system = [{"type": "text", "text": self.system, "cache_control": _CACHE}] if self.system else []
        if extra := self.toolset.instructions(self.state.toolset):
            system.append({"type": "text", "text": extra, "cache_control": _CACHE})
        if system:
            params["system"] = system
        tools = self.tool_definitions()
        if tools:
            tools[-1]["cache_control"] = _CACHE  # one breakpoint caches every tool definition
            params["tools"] = tools
        return params

    async def _finish(self, stop_reason: str) -> RunResult:
        await self._publish(Status(state="idle", detail=stop_reason))
        return self._result(stop_reason)

    def _result(self, stop_reason: str) -> RunResult:
        text = ""
        for message in reversed(self.state.messages):
            if message["role"] == "assistant":
                text = "".join(b.get("text", "") for b in message["content"] if b["type"] == "text")
                break
        return RunResult.model_validate(
            {
                "stop_reason": stop_reason,
                "agent_uuid": self.agent_uuid,
                "pending_frontend_tools": self.state.pending_frontend_tools,
                "pending_approvals": self.state.pending_approvals,
                "text": text,
                "usage": self.state.usage,
            }
        )
