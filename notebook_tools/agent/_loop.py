"""The agent's loop: run queued calls, pause where a person must answer, request while the user has the turn.

Every change goes through `_transitions`; this module only does the I/O around them: requests,
running tools, and the events that tell front ends what happened.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import jiter

from ..api._prices import context_window, cost_of
from ..api._stream import INVALID_INPUTS, StreamHandlers, stream_message
from ..events._events import (
    ApprovalRequired,
    AssistantBlock,
    AwaitingFrontendTools,
    Status,
    TextDelta,
    ThinkingDelta,
    ToolErrorEvent,
    ToolInputDelta,
    ToolsetChanged,
    ToolStarted,
    UsageEvent,
)
from ..mcp._listing import MCPTools
from ..session import _transitions as tr
from ..session._state import PendingFrontendTool, RunResult, ToolResult
from ..session._turns import set_aside_turn
from ..tools._toolset import Route
from ..tools._toolset_state import ToolsetState
from ._call_runner import CallRunner
from ._notices import MAX_PAUSES, advice_for, notice_for
from ._request import request_body
from ._settings import Settings
from ._tool_calls import CUT_AFTER_CALL, INVALID_ARGUMENTS, TRUNCATED_CALL, plan_call
from ._toolset_control import ToolsetControl
from ._writer import SessionWriter

__all__ = ["Loop"]

_EARLY = ("refusal", "max_tokens", "model_context_window_exceeded")
"""Stop reasons that end the turn even when the history ends with a user message."""


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
        self.last_stop_details: dict[str, Any] | None = None
        self.requests = 0
        """Requests made (retries included): the `request` number of each text delta."""
        self.mcp: MCPTools | None = None
        """The agent's MCP servers' plugins (None without servers): listed before a turn's first request."""

    async def prepare(self) -> None:
        """List the MCP servers' tools (a call of a server that could not start is ended)."""
        if self.mcp is not None and self.mcp.servers:
            await self.mcp.ready()
            self.control.end_calls_of_missing_tools(listed=True)

    async def drive(self) -> RunResult:
        """Run queued calls, pause for a person where one must answer, request while the user has the turn.

        A paused server-tool turn (`pause_turn`) is continued by itself, without a user message, up to
        `MAX_PAUSES` times; a refusal, a cut-off reply or a full window ends the turn with a notice.
        """
        await self.prepare()
        writer = self.writer
        await writer.publish(Status(state="running"))
        requests = pauses = 0
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
            paused = last is not None and last["role"] == "assistant" and state.continuation == "pause_turn"
            if last is None or (last["role"] == "assistant" and not paused):
                # Nothing was requested (a finished session carried on): it simply ended.
                return await self._finish(self.last_stop_reason if requests else "end_turn")
            if paused and pauses == MAX_PAUSES:
                return await self._finish("pause_turn")
            if requests == self.settings.max_turns:
                return await self._finish("max_turns")
            requests += 1
            pauses += paused
            ended = await self._reply(await self._request())
            if ended is not None:
                return await self._finish(ended)

    async def _reply(self, message: dict[str, Any]) -> str | None:
        """Plan every call of the model's reply, then add the reply and the plans in one transition.

        Returns the stop reason when the turn ends here (an empty reply, a refusal, a cut-off reply).
        """
        # A thinking block cut off before its signature cannot be sent back (the API checks signatures).
        content = [b for b in message.get("content", []) if b.get("type") != "thinking" or b.get("signature")]
        writer, tools = self.writer, self.control.tools
        stop_reason = str(message.get("stop_reason") or "end_turn")
        self.last_stop_reason = stop_reason
        self.last_stop_details = message.get("stop_details")
        usage = message.get("usage") or {}
        cost = cost_of(usage, str(message.get("model") or self.settings.model)) if usage else None
        if stop_reason == "refusal":
            # The refused turn is set aside (its usage counted first), so the next message is valid.
            await writer.commit(tr.add_assistant_reply(writer.state, [], [], usage, cost=cost))
            await writer.commit(set_aside_turn(writer.state, content, stop_reason, self.last_stop_details))
            await self._publish_usage()
            return stop_reason
        if stop_reason == "pause_turn" and any(b["type"] == "tool_use" for b in content):
            stop_reason = "tool_use"  # the client's calls come first: the pause ends with their results
        truncated = stop_reason in ("max_tokens", "model_context_window_exceeded")
        invalid = message.get(INVALID_INPUTS) or {}
        plans, audits = [], []
        changes: list[ToolsetChanged] = []
        asked = toolset = writer.state.toolset
        for block in (b for b in content if b["type"] == "tool_use"):
            route = self.control.toolset.route(asked, toolset, block["name"])
            reason = _not_run(block["id"], invalid, truncated)
            if route.kind == "tool" or reason is not None:
                mode = self.settings.approval_mode
                plan, audit = await plan_call(block, tools, mode, writer.state.approvals, not_run=reason)
            else:
                plan, toolset, change = self._container_call(block["id"], route, toolset)
                audit = None
                if change is not None:
                    changes.append(change)
            plans.append(plan)
            if audit is not None:
                audits.append((block, *audit))
        before = writer.state.messages
        reply = tr.add_assistant_reply(
            tr.set_toolset(writer.state, toolset), content, plans, usage, cost=cost, stop_reason=stop_reason
        )
        await writer.commit(reply)
        await self._publish_usage()
        after = writer.state.messages
        if len(after) == len(before) and (not before or after[-1] is before[-1]):
            return stop_reason  # an empty reply: nothing to add
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
        return stop_reason if truncated else None

    async def _publish_usage(self) -> None:
        state = self.writer.state
        event = UsageEvent(
            usage=state.usage,
            turn=state.turn_usage,
            context_tokens=state.context_tokens,
            context_window=context_window(self.settings.model),
        )
        await self.writer.publish(event)

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

    async def _request(self) -> dict[str, Any]:
        if self.mcp is not None:
            await self.mcp.settle()  # a list_changed during the last calls is offered from this request
        writer, settings = self.writer, self.settings
        request = self.requests + 1

        async def on_text(index: int, text: str) -> None:
            await writer.publish(TextDelta(text=text, request=request, index=index))

        async def on_thinking(index: int, text: str) -> None:
            await writer.publish(ThinkingDelta(text=text, request=request, index=index))

        async def on_block(index: int, block: dict[str, Any]) -> None:
            await writer.publish(AssistantBlock(request=request, index=index, block=block))

        shown_at: dict[str, float] = {}  # a call whose arguments show as they stream: when they last did

        async def on_input(index: int, block: dict[str, Any], so_far: str) -> None:
            name, call_id = str(block.get("name", "")), str(block.get("id", ""))
            tool = self.control.tools.get(name)
            now = time.monotonic()
            if tool is None or "mcp_app" not in tool.display or now - shown_at.get(call_id, 0.0) < 0.1:
                return  # only an app's card shows them live, at most ten times a second
            shown_at[call_id] = now
            try:
                partial = jiter.from_json(so_far.encode(), partial_mode="trailing-strings")
            except ValueError:
                return
            if isinstance(partial, dict):
                await writer.publish(ToolInputDelta(tool_use_id=call_id, name=name, input=partial))

        async def on_retry(detail: str) -> None:
            nonlocal request
            self.requests += 1
            request = self.requests
            await writer.publish(Status(state="retrying", detail=detail))

        self.requests += 1
        params, betas = request_body(settings, self.control, writer.state)
        handlers = StreamHandlers(
            on_text=on_text,
            on_thinking=on_thinking,
            on_block=on_block,
            on_retry=on_retry,
            stopped=lambda: writer.interrupted,
            on_input=on_input,
        )
        return await stream_message(
            settings.client,
            params,
            handlers,
            betas=betas,
            retries=settings.stream_retries,
            delay=settings.retry_delay,
        )

    def params(self) -> dict[str, Any]:
        """The body of the next request (without `stream`)."""
        return request_body(self.settings, self.control, self.writer.state)[0]

    async def _finish(self, stop_reason: str) -> RunResult:
        notice = notice_for(stop_reason, self.last_stop_details, self.settings.max_tokens)
        if notice is not None:
            await self.writer.publish(notice)
        await self.writer.publish(Status(state="idle", detail=stop_reason))
        return self.result(stop_reason)

    def result(self, stop_reason: str) -> RunResult:
        """The `RunResult` of the session as it stands, ended (or paused) for `stop_reason`."""
        state = self.writer.state
        text = thinking = ""
        start = state.turn_start if state.turn_start is not None else 0
        turn = [m for m in state.messages[start:] if m["role"] == "assistant"]
        if turn:
            text = "".join(b.get("text", "") for b in turn[-1]["content"] if b["type"] == "text")
        # The turn's thinking, before each tool call too (thinking that came back summarized).
        blocks = [b for m in turn for b in m["content"] if b["type"] == "thinking" and b.get("thinking")]
        thinking = "\n\n".join(b["thinking"] for b in blocks)
        details = self.last_stop_details if stop_reason == self.last_stop_reason else None
        return RunResult.model_validate(
            {
                "stop_reason": stop_reason,
                "agent_uuid": state.agent_uuid,
                "pending_frontend_tools": state.pending_frontend_tools,
                "pending_approvals": state.pending_approvals,
                "text": text,
                "thinking": thinking,
                "usage": state.usage,
                "turn_usage": state.turn_usage,
                "stop_details": details,
                "advice": advice_for(stop_reason, details, self.settings.max_tokens),
            }
        )


def _not_run(tool_use_id: str, invalid: dict[str, str], truncated: bool) -> str | None:
    """Why a call of the reply is answered at once instead of run (None: it runs)."""
    if tool_use_id in invalid:
        return TRUNCATED_CALL if truncated else INVALID_ARGUMENTS.format(repr(invalid[tool_use_id][:200]))
    return CUT_AFTER_CALL if truncated else None
