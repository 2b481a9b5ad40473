"""The agent's loop: run queued calls, pause where a person must answer, request while the user has the turn.

Every change goes through `_transitions`; this module only does the I/O around them: requests,
running tools, and the events that tell front ends what happened.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic

from ..api._stream import stream_message
from ..events._events import (
    ApprovalRequired,
    AwaitingFrontendTools,
    Status,
    TextDelta,
    ToolErrorEvent,
    ToolsetChanged,
    ToolStarted,
    UsageEvent,
)
from ..session import _transitions as tr
from ..session._state import PendingFrontendTool, RunResult, ToolResult
from ..tools._toolset_changes import Route
from ..tools._toolset_state import ToolsetState
from ._call_runner import CallRunner
from ._settings import Settings
from ._tool_calls import plan_call
from ._toolset_control import ToolsetControl
from ._writer import SessionWriter

__all__ = ["Loop"]

_CACHE = {"type": "ephemeral"}


class Loop:
    """The request -> reply -> tools -> results cycle of one agent.

    Args:
        writer: The session's writer.
        settings: The agent's settings (client, model, limits, approval mode).
        control: The agent's tool-set control (what each request offers, container calls).
        runner: Runs backend calls.
    """

    def __init__(
        self, writer: SessionWriter, settings: Settings, control: ToolsetControl, runner: CallRunner
    ) -> None:
        self.writer = writer
        self.settings = settings
        self.control = control
        self.runner = runner
        self.last_stop_reason = "end_turn"
        self.requests = 0
        """Requests made (retries included): the `request` number of each text delta."""

    async def drive(self) -> RunResult:
        """Run queued calls, pause for a person where one must answer, request while the user has the turn."""
        writer = self.writer
        await writer.publish(Status(state="running"))
        requests = 0
        while True:
            while writer.state.queued_calls:
                call = writer.state.queued_calls[0]
                if writer.interrupted:
                    raise asyncio.CancelledError("interrupted")
                await self.control.record(await self.runner.execute(call), call.name)
            state = writer.state
            if state.pending_approvals:
                for approval in state.pending_approvals:
                    await writer.publish(
                        ApprovalRequired(
                            tool_use_id=approval.tool_use_id, name=approval.name, input=approval.input
                        )
                    )
                await writer.publish(Status(state="awaiting_approval"))
                return self.result("awaiting_approval")
            if state.pending_frontend_tools:
                await writer.publish(AwaitingFrontendTools(pending=list(state.pending_frontend_tools)))
                await writer.publish(Status(state="awaiting_frontend_tools"))
                return self.result("awaiting_frontend_tools")
            last = state.messages[-1] if state.messages else None
            if last is None or last["role"] == "assistant":
                return await self._finish(self.last_stop_reason)
            if requests == self.settings.max_turns:
                return await self._finish("max_turns")
            requests += 1
            if not await self._reply(await self._request()):
                return await self._finish(self.last_stop_reason)  # an empty reply: nothing to add

    async def _reply(self, message: anthropic.types.Message) -> bool:
        """Plan every call of the model's reply, then add the reply and the plans in one transition."""
        content = [b.model_dump(mode="json", exclude_none=True) for b in message.content]
        content = [{k: v for k, v in b.items() if k != "parsed_output"} for b in content]
        writer, tools = self.writer, self.control.tools
        self.last_stop_reason = message.stop_reason or "end_turn"
        truncated = message.stop_reason == "max_tokens"
        plans, audits = [], []
        changes: list[ToolsetChanged] = []
        asked = toolset = writer.state.toolset
        for block in (b for b in content if b["type"] == "tool_use"):
            route = self.control.toolset.route(asked, toolset, block["name"])
            if route.kind == "tool" or truncated:
                mode = self.settings.approval_mode
                plan, audit = await plan_call(block, tools, mode, writer.state.approvals, truncated=truncated)
            else:
                plan, toolset, change = self._container_call(block["id"], route, toolset)
                audit = None
                if change is not None:
                    changes.append(change)
            plans.append(plan)
            if audit is not None:
                audits.append((block, *audit))
        before = len(writer.state.messages)
        await writer.commit(
            tr.add_assistant_reply(tr.set_toolset(writer.state, toolset), content, plans, message.usage)
        )
        await writer.publish(UsageEvent(usage=writer.state.usage))
        if len(writer.state.messages) == before:
            return False
        for change in changes:
            await writer.publish(change)
        for block, decision, reason in audits:
            writer.audit(block["id"], block["name"], block.get("input", {}), decision, reason)
        for plan in plans:
            if isinstance(plan, ToolResult) and plan.is_error:  # a container's answer is no error
                name = next(b["name"] for b in content if b.get("id") == plan.tool_use_id)
                error = ToolErrorEvent(tool_use_id=plan.tool_use_id, name=name, error=str(plan.content))
                await writer.publish(error)
            elif isinstance(plan, PendingFrontendTool):
                event = ToolStarted(
                    tool_use_id=plan.tool_use_id, name=plan.name, input=plan.input, executor="frontend"
                )
                await writer.publish(event)
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
            after, text, tools = self.control.toolset.activate(toolset, route.plugin, route.skill)
            kind, name = "skill_activated", route.skill.name
        else:
            after, text, tools = self.control.toolset.expand(toolset, route.plugin)
            kind, name = "expanded", route.plugin.name
        change = ToolsetChanged(change=kind, names=[name], by="model", tool_use_id=tool_use_id, tools=tools)
        return ToolResult(tool_use_id=tool_use_id, content=text), after, change if after != toolset else None

    async def _request(self) -> anthropic.types.Message:
        writer, settings = self.writer, self.settings

        async def on_text(text: str) -> None:
            await writer.publish(TextDelta(text=text, request=self.requests))

        async def on_retry(detail: str) -> None:
            self.requests += 1
            await writer.publish(Status(state="retrying", detail=detail))

        self.requests += 1
        return await stream_message(
            settings.client,
            self.params(),
            on_text=on_text,
            on_retry=on_retry,
            stopped=lambda: writer.interrupted,
            retries=settings.stream_retries,
            delay=settings.retry_delay,
        )

    def params(self) -> dict[str, Any]:
        """The body of the next request (without `stream`)."""
        settings, state = self.settings, self.writer.state
        params: dict[str, Any] = {
            "model": settings.model,
            "max_tokens": settings.max_tokens,
            "messages": state.messages,
        }
        # Two system blocks: what never changes, then what the tool set adds; a change of the second
        # keeps the first (and the tools before it) cached.
        system = []
        if settings.system:
            system.append({"type": "text", "text": settings.system, "cache_control": _CACHE})
        if extra := self.control.toolset.instructions(state.toolset):
            system.append({"type": "text", "text": extra, "cache_control": _CACHE})
        if system:
            params["system"] = system
        tools = self.control.tool_definitions()
        if tools:
            tools[-1]["cache_control"] = _CACHE  # one breakpoint caches every tool definition
            params["tools"] = tools
        return params

    async def _finish(self, stop_reason: str) -> RunResult:
        await self.writer.publish(Status(state="idle", detail=stop_reason))
        return self.result(stop_reason)

    def result(self, stop_reason: str) -> RunResult:
        """The `RunResult` of the session as it stands, ended (or paused) for `stop_reason`."""
        state = self.writer.state
        text = ""
        for message in reversed(state.messages):
            if message["role"] == "assistant":
                text = "".join(b.get("text", "") for b in message["content"] if b["type"] == "text")
                break
        return RunResult.model_validate(
            {
                "stop_reason": stop_reason,
                "agent_uuid": state.agent_uuid,
                "pending_frontend_tools": state.pending_frontend_tools,
                "pending_approvals": state.pending_approvals,
                "text": text,
                "usage": state.usage,
            }
        )
