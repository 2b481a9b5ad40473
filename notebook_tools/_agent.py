"""The agent loop: request -> message -> run tools -> append results -> next, with pauses.

When the model calls a frontend tool the loop runs the same turn's backend tools,
holds their results in the state, saves it, and returns
`stop_reason="awaiting_frontend_tools"`. `resume` takes exactly the pending
answers, puts every result of that turn into ONE user message, and goes on. The
history sent to the API is valid at every return: each `tool_use` gets exactly
one `tool_result` in the next user message.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import anthropic
import httpx2
import pydantic
from anthropic.lib.tools import ToolError

from ._approvals import (
    ApprovalDecision,
    ApprovalMode,
    AuditRecord,
    Blocked,
    PendingApproval,
    RememberedApproval,
)
from ._checks import check_decisions, check_results
from ._events import (
    ApprovalRequired,
    AwaitingFrontendTools,
    EventBus,
    MessageEvent,
    Status,
    TextDelta,
    ToolCompleted,
    ToolErrorEvent,
    ToolStarted,
    UsageEvent,
    _Event,
)
from ._exceptions import (
    AgentBusyError,
    InvalidToolResultError,
    SessionNotFoundError,
    ToolDefinitionError,
)
from ._results import preview_text, to_result_content, truncate_content
from ._state import AgentState, PendingFrontendTool, RunResult, ToolResult
from ._store import InMemoryStore, SessionStore
from ._tools import Tool, tool

__all__ = ["DEFAULT_MODEL", "Agent"]

log = logging.getLogger("notebook_tools")

DEFAULT_MODEL = os.environ.get("NOTEBOOK_TOOLS_MODEL", "claude-sonnet-4-6")
_CACHE = {"type": "ephemeral"}
# Errors raised while a response streams (the SDK retries only before the stream starts).
_STREAM_ERRORS = (httpx2.TransportError, anthropic.APIConnectionError)


class Agent:
    """Runs Claude with backend and frontend tools, pausing when a person must answer.

    Args:
        client: Any `anthropic.AsyncAnthropic`; by default one built from the
            environment (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL).
        model: The model name.
        system: The system prompt (cached with `cache_control`).
        tools: Backend tools (`@tool` functions, or plain functions to wrap).
        frontend_tools: Schema-only tools a person answers.
        store: Where sessions are saved at every pause and turn end (in memory by default).
        max_turns: Most API requests one `run`/`resume` call makes.
        max_tokens: `max_tokens` of each request.
        max_result_chars: Largest text a tool result may carry: a frontend answer over
            it is refused, a backend result is truncated with a notice.
        stream_retries: How often a response dropped mid-stream is requested again.
        retry_delay: Seconds before the first such retry (doubled each time).
        approval_mode: For calls whose tool `needs_approval`: "interactive" pauses with
            stop_reason "awaiting_approval"; "approve_all" and "auto_deny" decide alone.
            `Blocked` calls are refused in every mode.
    """

    def __init__(
        self,
        client: anthropic.AsyncAnthropic | None = None,
        *,
        model: str = DEFAULT_MODEL,
        system: str | None = None,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        frontend_tools: Sequence[Tool | Callable[..., Any]] = (),
        store: SessionStore | None = None,
        max_turns: int = 25,
        max_tokens: int = 4096,
        max_result_chars: int = 100_000,
        stream_retries: int = 2,
        retry_delay: float = 0.5,
        approval_mode: ApprovalMode = "interactive",
    ) -> None:
        if approval_mode not in ("interactive", "approve_all", "auto_deny"):
            raise ValueError(
                f"approval_mode must be interactive, approve_all or auto_deny, not {approval_mode!r}"
            )
        self.approval_mode: ApprovalMode = approval_mode
        self.client = client if client is not None else anthropic.AsyncAnthropic()
        self.model = model
        self.system = system
        self.store: SessionStore = store if store is not None else InMemoryStore()
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self.max_result_chars = max_result_chars
        self.stream_retries = stream_retries
        self.retry_delay = retry_delay
        self.events = EventBus()
        self.state = AgentState()
        self.tools: dict[str, Tool] = {}
        for item in tools:
            self._add_tool(item if isinstance(item, Tool) else tool(item), "backend")
        for item in frontend_tools:
            self._add_tool(item if isinstance(item, Tool) else tool(executor="frontend")(item), "frontend")
        self._busy = False
        self._interrupted = False
        self._requests = 0

    def __repr__(self) -> str:
        return f"Agent(model={self.model!r}, agent_uuid={self.agent_uuid!r}, status={self.state.status!r})"

    def _add_tool(self, item: Tool, executor: str) -> None:
        if item.executor != executor:
            where = "tools" if executor == "backend" else "frontend_tools"
            raise ToolDefinitionError(f"{item.name!r} is a {item.executor} tool but was given in {where}=")
        if item.name in self.tools:
            raise ToolDefinitionError(f"two tools are named {item.name!r}")
        self.tools[item.name] = item

    @property
    def agent_uuid(self) -> str:
        """The id of the session this agent holds."""
        return self.state.agent_uuid

    @property
    def pending_frontend_tools(self) -> list[PendingFrontendTool]:
        """Frontend calls waiting for answers."""
        return list(self.state.pending_frontend_tools)

    # -- public API -------------------------------------------------------------------------

    def load(self, agent_uuid: str) -> AgentState:
        """Switch this agent to a saved session."""
        if self._busy:
            raise AgentBusyError("cannot switch sessions while the agent is running")
        state = self.store.load(agent_uuid)
        if state is None:
            raise SessionNotFoundError(agent_uuid)
        self.state = state
        return state

    def new_session(self) -> str:
        """Start a fresh, empty session; returns its agent_uuid."""
        if self._busy:
            raise AgentBusyError("cannot start a session while the agent is running")
        self.state = AgentState()
        return self.agent_uuid

    async def run(self, prompt: str | Iterable[dict[str, Any]]) -> RunResult:
        """Send a user message and run the loop until the turn ends or pauses."""
        _warm_up_jsonschema()
        with self._running():
            if self.state.pending_frontend_tools or self.state.pending_approvals:
                ids = ", ".join(
                    [p.tool_use_id for p in self.state.pending_frontend_tools]
                    + [p.tool_use_id for p in self.state.pending_approvals]
                )
                raise AgentBusyError(f"tool calls are pending ({ids}); answer them with resume()")
            blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
            if self.state.manual_notes:  # tell the model what the person ran by hand
                blocks = [{"type": "text", "text": "\n".join(self.state.manual_notes)}, *blocks]
                self.state.manual_notes = []
            last = self.state.messages[-1] if self.state.messages else None
            if last is not None and last["role"] == "user":
                # The previous request failed after this message was added: extend it, keep roles alternating.
                content = last["content"]
                last["content"] = (
                    [{"type": "text", "text": content}] if isinstance(content, str) else content
                ) + blocks
                await self._publish(MessageEvent(index=len(self.state.messages) - 1, message=last))
            else:
                await self._append({"role": "user", "content": blocks})
            return await self._loop()

    async def resume(
        self,
        tool_results: Iterable[ToolResult | ApprovalDecision | Mapping[str, Any]],
        agent_uuid: str | None = None,
    ) -> RunResult:
        """Answer every pending frontend call (or decide every pending approval) and run on.

        Raises:
            ToolResultIdsError: the ids are not exactly the pending set; nothing changed.
            InvalidToolResultError: a result has the wrong type, size or shape; nothing changed.
            SessionNotFoundError: `agent_uuid` is not in the store.
        """
        with self._running():
            state = self.state
            if agent_uuid is not None and agent_uuid != state.agent_uuid:
                state = self.store.load(agent_uuid) or _raise(SessionNotFoundError(agent_uuid))
            if state.pending_approvals:
                decisions = check_decisions(state, tool_results, self.tools)
                self.state = state
                return await self._decide(decisions)
            given = check_results(state, tool_results, self.tools, self.max_result_chars)  # type: ignore[arg-type]
            self.state = state
            results = [*state.held_results, *given]
            names = {p.tool_use_id: p for p in state.pending_frontend_tools}
            state.pending_frontend_tools = []
            state.held_results = []
            for result in given:
                pending = names[result.tool_use_id]
                await self._publish(
                    ToolCompleted(
                        tool_use_id=result.tool_use_id,
                        name=pending.name,
                        result=result,
                        duration=time.time() - pending.requested_at,
                    )
                )
            await self._append(state.tool_results_message(results))
            return await self._loop()

    def paused_result(self) -> RunResult:
        """The `RunResult` of the current pause (to wait for its answers again, e.g. after a restart)."""
        if not self.state.pending_frontend_tools:
            raise AgentBusyError("the session is not paused on frontend tools")
        return self._result("awaiting_frontend_tools")

    def interrupt(self) -> None:
        """Stop the running call as soon as possible (streaming stops at the next event)."""
        if self._busy:
            self._interrupted = True

    def cancel_pending(self, reason: str = "Interrupted by the user before answering.") -> list[ToolResult]:
        """Answer every pending call (frontend or approval) with an error result, without calling the API.

        The history stays valid (it ends with the user's tool results) and the next
        `run` adds its message to that same user turn.
        """
        if self._busy:
            raise AgentBusyError("the agent is running; stop it first")
        state = self.state
        waiting = [p.tool_use_id for p in [*state.pending_frontend_tools, *state.deferred_frontend_tools]]
        waiting += [p.tool_use_id for p in state.pending_approvals]
        if not waiting:
            return []
        given = [ToolResult(tool_use_id=i, content=reason, is_error=True) for i in waiting]
        state.messages.append(state.tool_results_message([*state.held_results, *given]))
        state.pending_frontend_tools = []
        state.pending_approvals = []
        state.deferred_frontend_tools = []
        state.held_results = []
        self._save()
        return given

    async def retry(self) -> RunResult:
        """Request again after a request failed (the history ends with the user's message)."""
        with self._running():
            if self.state.pending_frontend_tools or not self.state.messages:
                raise AgentBusyError("nothing to retry: the session is paused or empty")
            if self.state.messages[-1]["role"] != "user":
                raise AgentBusyError("nothing to retry: the last turn completed")
            return await self._loop()

    # -- the loop ----------------------------------------------------------------------------

    def _running(self) -> _BusyGuard:
        return _BusyGuard(self)

    async def _loop(self) -> RunResult:
        await self._publish(Status(state="running"))
        try:
            for _ in range(self.max_turns):
                message = await self._request()
                self.state.usage.add(message.usage)
                content = [b.model_dump(mode="json", exclude_none=True) for b in message.content]
                content = [{k: v for k, v in b.items() if k != "parsed_output"} for b in content]
                await self._append({"role": "assistant", "content": content})
                await self._publish(UsageEvent(usage=self.state.usage))
                tool_uses = [b for b in content if b["type"] == "tool_use"]
                if not tool_uses:
                    return await self._finish(message.stop_reason or "end_turn")
                results = await self._run_tools(tool_uses)
                paused = await self._pause_if_waiting(results)
                if paused is not None:
                    return paused
                await self._append({"role": "user", "content": [r.to_block() for r in results]})
            return await self._finish("max_turns")
        except BaseException as exc:
            self._save()
            await self._publish(Status(state="error", detail=f"{type(exc).__name__}: {exc}"))
            raise

    async def _pause_if_waiting(self, results: list[ToolResult]) -> RunResult | None:
        """Pause on pending approvals first (their turn's frontend calls wait), then on frontend calls."""
        state = self.state
        if state.pending_approvals:
            state.deferred_frontend_tools += state.pending_frontend_tools
            state.pending_frontend_tools = []
            state.held_results = results
            self._save()
            for approval in state.pending_approvals:
                await self._publish(
                    ApprovalRequired(
                        tool_use_id=approval.tool_use_id, name=approval.name, input=approval.input
                    )
                )
            await self._publish(Status(state="awaiting_approval"))
            return self._result("awaiting_approval")
        if state.pending_frontend_tools:
            state.held_results = results
            self._save()
            await self._publish(AwaitingFrontendTools(pending=list(state.pending_frontend_tools)))
            await self._publish(Status(state="awaiting_frontend_tools"))
            return self._result("awaiting_frontend_tools")
        return None

    async def _decide(self, decisions: list[ApprovalDecision]) -> RunResult:
        """Apply approval decisions: run what was approved, tell the model what was denied or edited."""
        state = self.state
        pending = {p.tool_use_id: p for p in state.pending_approvals}
        state.pending_approvals = []
        results = list(state.held_results)
        state.held_results = []
        frontend = list(state.deferred_frontend_tools)
        state.deferred_frontend_tools = []
        for decision in decisions:
            call = pending[decision.tool_use_id]
            found = self.tools[call.name]
            if decision.remember is not None:
                remembered = call.input if decision.remember == "arguments" else None
                state.approvals.append(RememberedApproval(tool=call.name, input=remembered))
            if not decision.approved:
                self._audit(call.tool_use_id, call.name, call.input, "denied", decision.reason)
                reason = f" Reason: {decision.reason}" if decision.reason else ""
                results.append(
                    await self._tool_error(call.tool_use_id, call.name, f"The user denied this call.{reason}")
                )
                continue
            arguments = decision.edited_input if decision.edited_input is not None else call.input
            edited = decision.edited_input is not None and decision.edited_input != call.input
            self._audit(
                call.tool_use_id, call.name, arguments, "edited" if edited else "approved", decision.reason
            )
            await self._publish(
                ToolStarted(
                    tool_use_id=call.tool_use_id, name=call.name, input=arguments, executor=found.executor
                )
            )
            if found.executor == "frontend":
                frontend.append(
                    PendingFrontendTool(
                        tool_use_id=call.tool_use_id, name=call.name, input=arguments, timeout=found.timeout
                    )
                )
                continue
            result = await self._execute(found, call.tool_use_id, arguments)
            if edited:
                result = _with_edit_note(result, call.input, arguments)
            results.append(result)
        state.pending_frontend_tools = frontend
        paused = await self._pause_if_waiting(results)
        if paused is not None:
            return paused
        await self._append(state.tool_results_message(results))
        return await self._loop()

    def _audit(
        self, tool_use_id: str, name: str, arguments: dict[str, Any], decision: Any, reason: str = ""
    ) -> None:
        self.store.append_audit(
            AuditRecord(
                agent_uuid=self.agent_uuid,
                tool_use_id=tool_use_id,
                tool=name,
                arguments=arguments,
                decision=decision,
                reason=reason,
            )
        )

    async def run_manual(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run a tool by hand (mode "manual" or "both"); the model hears of it with the next message."""
        with self._running():
            found = self.tools.get(name)
            if found is None or found.mode == "llm":
                manual = ", ".join(t.name for t in self.tools.values() if t.mode != "llm") or "none"
                raise ToolDefinitionError(f"{name!r} cannot be run by hand; tools that can: {manual}")
            if found.executor == "frontend":
                raise ToolDefinitionError(f"{name!r} is a frontend tool: it is answered by a person, not run")
            errors = found.input_errors(arguments)
            if errors:
                raise InvalidToolResultError(name, "invalid arguments: " + "; ".join(errors))
            tool_use_id = f"manual_{uuid.uuid4().hex[:12]}"
            await self._publish(
                ToolStarted(tool_use_id=tool_use_id, name=name, input=arguments, executor="backend")
            )
            result = await self._execute(found, tool_use_id, arguments)
            shown = json.dumps(arguments, default=str)
            outcome = "failed" if result.is_error else "returned"
            summary = preview_text(result.content)
            self.state.manual_notes.append(
                f"[The user ran the tool `{name}` by hand with {shown}; it {outcome}: {summary}]"
            )
            self._save()
            return result

    async def _finish(self, stop_reason: str) -> RunResult:
        self._save()
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

    def _params(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": self.state.messages,
        }
        if self.system:
            params["system"] = [{"type": "text", "text": self.system, "cache_control": _CACHE}]
        tools = [t.to_dict() for t in self.tools.values() if t.mode != "manual"]
        if tools:
            tools[-1]["cache_control"] = _CACHE  # one breakpoint caches every tool definition
            params["tools"] = tools
        return params

    async def _request(self) -> anthropic.types.Message:
        params = self._params()
        for attempt in range(self.stream_retries + 1):
            self._requests += 1
            started = False
            try:
                async with self.client.messages.stream(**params) as stream:
                    started = True
                    async for event in stream:
                        if self._interrupted:  # checked per event: a fast stream may never yield to a cancel
                            raise asyncio.CancelledError("interrupted")
                        if event.type == "text":
                            await self._publish(TextDelta(text=event.text, request=self._requests))
                    return await stream.get_final_message()
            except _STREAM_ERRORS as exc:
                # Before the stream starts the SDK has already retried; a drop mid-stream is ours to retry.
                if not started or attempt == self.stream_retries:
                    raise
                detail = f"the response was cut off ({exc}); requesting it again"
                await self._publish(Status(state="retrying", detail=detail))
                await asyncio.sleep(self.retry_delay * 2**attempt)
        raise AssertionError("unreachable")

    async def _run_tools(self, tool_uses: list[dict[str, Any]]) -> list[ToolResult]:
        """Run the backend calls of one message in order; queue its frontend calls as pending."""
        results: list[ToolResult] = []
        try:
            for block in tool_uses:
                if self._interrupted:
                    raise asyncio.CancelledError("interrupted")
                result = await self._run_tool(block)
                if result is not None:
                    results.append(result)
        except BaseException:
            # Interrupted (KeyboardInterrupt, cancel): every call still gets its one result.
            done = {r.tool_use_id for r in results}
            self.state.pending_frontend_tools = []
            results += [
                ToolResult(
                    tool_use_id=b["id"],
                    content="Interrupted by the user before this call finished.",
                    is_error=True,
                )
                for b in tool_uses
                if b["id"] not in done
            ]
            self.state.messages.append({"role": "user", "content": [r.to_block() for r in results]})
            raise
        return results

    async def _run_tool(self, block: dict[str, Any]) -> ToolResult | None:
        tool_use_id, name, arguments = block["id"], block["name"], block.get("input", {})
        found = self.tools.get(name)
        if found is None or found.mode == "manual":
            known = ", ".join(t.name for t in self.tools.values() if t.mode != "manual") or "none"
            return await self._tool_error(
                tool_use_id, name, f"Unknown tool {name!r}. Available tools: {known}."
            )
        errors = found.input_errors(arguments)
        if errors:
            return await self._tool_error(
                tool_use_id,
                name,
                f"Invalid input for tool {name!r}: " + "; ".join(errors) + ". Fix the input and call again.",
            )
        verdict = await found.needs_approval_for(arguments)
        if isinstance(verdict, Blocked):
            self._audit(tool_use_id, name, arguments, "blocked", verdict.reason)
            return await self._tool_error(tool_use_id, name, f"This call is not allowed: {verdict.reason}")
        if verdict:
            remembered = any(rule.covers(name, arguments) for rule in self.state.approvals)
            if self.approval_mode == "auto_deny":
                self._audit(tool_use_id, name, arguments, "auto_denied", "approval_mode='auto_deny'")
                return await self._tool_error(
                    tool_use_id, name, "This call needs approval, and approvals are switched off (denied)."
                )
            if self.approval_mode == "approve_all" or remembered:
                reason = "remembered for this session" if remembered else "approval_mode='approve_all'"
                self._audit(tool_use_id, name, arguments, "auto_approved", reason)
            else:
                self.state.pending_approvals.append(
                    PendingApproval(
                        tool_use_id=tool_use_id, name=name, input=arguments, description=found.description
                    )
                )
                return None
        executor = found.executor
        await self._publish(
            ToolStarted(tool_use_id=tool_use_id, name=name, input=arguments, executor=executor)
        )
        if executor == "frontend":
            self.state.pending_frontend_tools.append(
                PendingFrontendTool(
                    tool_use_id=tool_use_id, name=name, input=arguments, timeout=found.timeout
                )
            )
            return None
        return await self._execute(found, tool_use_id, arguments)

    async def _execute(self, found: Tool, tool_use_id: str, arguments: dict[str, Any]) -> ToolResult:
        """Run a backend tool; exceptions become error results the model can act on."""
        name = found.name
        started = time.perf_counter()
        try:
            value = await found.invoke(arguments)
        except pydantic.ValidationError as exc:
            details = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors()
            )
            return await self._tool_error(tool_use_id, name, f"Invalid input for tool {name!r}: {details}.")
        except ToolError as exc:
            blocks: Any = exc.content if isinstance(exc.content, str) else list(exc.content)
            result = ToolResult(tool_use_id=tool_use_id, content=blocks, is_error=True)
        except Exception as exc:
            log.info("tool %s raised", name, exc_info=True)
            return await self._tool_error(
                tool_use_id, name, f"Tool {name!r} failed: {type(exc).__name__}: {exc}"
            )
        else:
            content = truncate_content(to_result_content(value), self.max_result_chars)
            result = ToolResult(tool_use_id=tool_use_id, content=content)
        duration = time.perf_counter() - started
        await self._publish(
            ToolCompleted(tool_use_id=tool_use_id, name=name, result=result, duration=duration)
        )
        return result

    async def _tool_error(self, tool_use_id: str, name: str, message: str) -> ToolResult:
        await self._publish(ToolErrorEvent(tool_use_id=tool_use_id, name=name, error=message))
        return ToolResult(tool_use_id=tool_use_id, content=message, is_error=True)

    async def _append(self, message: dict[str, Any]) -> None:
        self.state.messages.append(message)
        await self._publish(MessageEvent(index=len(self.state.messages) - 1, message=message))

    def _save(self) -> None:
        self.state.updated_at = time.time()
        self.store.save(self.state)

    async def _publish(self, event: _Event) -> None:
        event.agent_uuid = self.agent_uuid
        await self.events.publish(event)


class _BusyGuard:
    """Refuses re-entry: one run/resume/retry at a time per agent."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def __enter__(self) -> None:
        if self.agent._busy:
            raise AgentBusyError("the agent is already running; wait for the current call to return")
        self.agent._busy = True
        self.agent._interrupted = False

    def __exit__(self, *exc: object) -> None:
        self.agent._busy = False


def _raise(exc: BaseException) -> Any:
    raise exc


def _with_edit_note(result: ToolResult, original: dict[str, Any], edited: dict[str, Any]) -> ToolResult:
    """State both argument sets, so the model is not misled about what ran."""
    note = (
        "The user edited the arguments before approving. "
        f"You asked for {json.dumps(original, default=str)}; it ran with {json.dumps(edited, default=str)}."
    )
    content: Any = (
        f"{note}\nResult: {result.content}"
        if isinstance(result.content, str)
        else [{"type": "text", "text": note}, *result.content]
    )
    return ToolResult(tool_use_id=result.tool_use_id, content=content, is_error=result.is_error)


def _warm_up_jsonschema() -> None:
    """Import jsonschema in a thread while the first request waits on the network.

    It is imported lazily (see `_tools._validator`) because importing it takes about 1.5 s where
    Jupyter has installed its optional format checkers; this overlaps that with the API's latency.
    """
    if "jsonschema" not in sys.modules:
        threading.Thread(target=importlib.import_module, args=("jsonschema",), daemon=True).start()
