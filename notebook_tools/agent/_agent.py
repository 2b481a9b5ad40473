"""The agent: request -> message -> run tools -> append results -> next, with pauses.

A thin facade over `_transitions`: it makes the requests, runs the tools, saves
and publishes events, and every change to the session goes through one pure
transition that leaves it valid or raises. The state is saved (compare-and-set
on its revision) BEFORE the agent adopts it, so the store and the agent never
disagree and of two writers of one pause exactly one wins.

When the model calls a frontend tool the loop runs the same reply's backend calls,
holds their results, saves, and returns `stop_reason="awaiting_frontend_tools"`.
A Stop or cancel at any await point closes every open call with an "interrupted"
result, so the history stays one the API accepts and the next message carries on.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

import anthropic

from .._exceptions import (
    AgentBusyError,
    ConfigurationError,
    SessionNotFoundError,
    ToolDefinitionError,
    ToolResultError,
)
from ..events._bus import EventBus
from ..events._events import Status
from ..results import KeptResults
from ..session import _transitions as tr
from ..session._state import AgentState, PendingFrontendTool, RunResult, ToolResult
from ..stores._store import InMemoryStore, SessionStore
from ..tools._approvals import ApprovalDecision, ApprovalMode
from ..tools._plugins import Plugin
from ..tools._schemas import warm_up_validator
from ..tools._tool import Tool, tool
from ..tools._toolset import Toolset
from ._answering import Answering
from ._loop import Loop
from ._manual_runs import ManualRuns
from ._writer import Busy, closed_calls

__all__ = ["DEFAULT_MODEL", "Agent"]

DEFAULT_MODEL = os.environ.get("NOTEBOOK_TOOLS_MODEL", "claude-sonnet-4-6")


class Agent(Loop, Answering, ManualRuns):
    """Runs Claude with backend and frontend tools, pausing when a person must answer.

    Args:
        client: Any `anthropic.AsyncAnthropic`; by default one built from the
            environment (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL).
        model: The model name.
        system: The system prompt (cached with `cache_control`).
        tools: Backend tools (`@tool` functions, or plain functions to wrap).
        frontend_tools: Schema-only tools a person answers.
        store: Where sessions are saved at every change (in memory by default).
        max_turns: Most API requests one `run`/`resume` call makes.
        max_tokens: `max_tokens` of each request.
        max_result_chars: Largest text a tool result may carry: a frontend answer over
            it is refused, a backend result is truncated with a notice.
        stream_retries: How often a response cut off mid-stream is requested again.
        retry_delay: Seconds before the first such retry (doubled each time).
        approval_mode: For calls whose tool `needs_approval`: "interactive" pauses with
            stop_reason "awaiting_approval"; "approve_all" and "auto_deny" decide alone.
            `Blocked` calls are refused in every mode.
        plugins: Groups of tools in every session from its start (`nt.Plugin`); a collapsed one is a
            single container tool until the model calls it.
        available_plugins: Plugins known by name but not offered until a tool result injects them.
        collapse_frontend_tools: Put every frontend tool of `frontend_tools=` in one collapsed
            plugin, "frontend_tools".
        frontend_instructions: Join the system prompt while frontend tools are offered.
        hidden_tools: Tools not offered until a tool result shows them.
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
        plugins: Sequence[Plugin] = (),
        available_plugins: Sequence[Plugin] = (),
        collapse_frontend_tools: bool = False,
        frontend_instructions: str | None = None,
        hidden_tools: Sequence[str] = (),
    ) -> None:
        if approval_mode not in ("interactive", "approve_all", "auto_deny"):
            raise ConfigurationError(
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
        loose = [self._checked(t if isinstance(t, Tool) else tool(t), "backend") for t in tools]
        loose += [
            self._checked(t if isinstance(t, Tool) else tool(executor="frontend")(t), "frontend")
            for t in frontend_tools
        ]
        self.toolset = Toolset(
            loose,
            plugins,
            available_plugins,
            collapse_frontend_tools=collapse_frontend_tools,
            frontend_instructions=frontend_instructions,
            hidden_tools=hidden_tools,
        )
        self.tools: dict[str, Tool] = self.toolset.tools
        """Every tool the agent knows, in plugins or not (a plugin injected later adds its own)."""
        self.results = KeptResults()
        """What tools returned, live (a DataFrame, a figure), by tool_use_id: `agent.results[id].value`."""
        self._busy = False
        self._interrupted = False
        self._detached = False
        self._requests = 0

    def __repr__(self) -> str:
        return f"Agent(model={self.model!r}, agent_uuid={self.agent_uuid!r}, status={self.state.status!r})"

    @staticmethod
    def _checked(item: Tool, executor: str) -> Tool:
        if item.executor != executor:
            where = "tools" if executor == "backend" else "frontend_tools"
            raise ToolDefinitionError(f"{item.name!r} is a {item.executor} tool but was given in {where}=")
        return item

    @property
    def pending_frontend_tools(self) -> list[PendingFrontendTool]:
        """Frontend calls waiting for answers."""
        return list(self.state.pending_frontend_tools)

    # -- sessions ----------------------------------------------------------------------------

    def load(self, agent_uuid: str) -> AgentState:
        """Switch this agent to a saved session (also: reload it after a `StaleSessionError`)."""
        if self._busy:
            raise AgentBusyError("cannot switch sessions while the agent is running")
        state = self.store.load(agent_uuid)
        if state is None:
            raise SessionNotFoundError(agent_uuid)
        self.state = tr.check_invariant(state)
        self.results.clear()  # live values of another session
        self._end_calls_of_missing_tools()
        return self.state

    def new_session(self) -> str:
        """Start a fresh, empty session; returns its agent_uuid."""
        if self._busy:
            raise AgentBusyError("cannot start a session while the agent is running")
        self.state = AgentState()
        self.results.clear()
        return self.agent_uuid

    def detach(self) -> None:
        """The process is going away (a kernel shutdown or restart): leave the session as saved.

        From now on a cancelled call does not close the open calls as "interrupted": a paused
        session stays paused in the store, exactly as after a crash, and resumes elsewhere.
        """
        self._detached = True

    # -- turns -------------------------------------------------------------------------------

    async def run(self, prompt: str | Iterable[dict[str, Any]], *, expand: Iterable[str] = ()) -> RunResult:
        """Send a user message and run the loop until the turn ends or pauses.

        Args:
            prompt: The message (text, or Messages API content blocks).
            expand: Plugins to expand before the first request (they stay expanded).
        """
        warm_up_validator()
        blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)

        async def body() -> RunResult:
            state, changes = self._pre_expand(self.state, expand)
            await self._commit(tr.add_user_message(state, blocks))
            for change in changes:
                await self._publish(change)
            return await self._drive()

        return await self._guarded(body)

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
            StaleSessionError: another writer resumed this pause first; nothing changed.
        """
        items = list(tool_results)
        previous = self.state
        if agent_uuid is not None and agent_uuid != self.agent_uuid:
            self.load(agent_uuid)

        async def body() -> RunResult:
            try:
                await self._apply(items, complete=True)
            except ToolResultError:
                self.state = previous  # a refused resume does not even switch sessions
                raise
            return await self._drive()

        return await self._guarded(body)

    async def accept(self, tool_results: Iterable[ToolResult | ApprovalDecision | Mapping[str, Any]]) -> None:
        """Take answers (or decisions) for SOME of the pending calls and save them; run nothing.

        A front end calls this as each answer arrives, so a restart asks only what is still
        open; when the last one is in, `continue_turn()` carries on.

        Raises:
            ToolResultIdsError, InvalidToolResultError: as for `resume`; nothing changed.
        """
        items = list(tool_results)
        with Busy(self):
            await self._apply(items, complete=False)

    async def continue_turn(self) -> RunResult:
        """Carry on from where the session stands.

        After a request that failed (the history ends with the user's message), after answers
        given with `accept`, or after a restart while backend calls were running (they run
        again: at-least-once). A session paused on unanswered calls returns its pause again.
        """
        return await self._guarded(self._drive)

    async def retry(self) -> RunResult:
        """Request again after a request failed (the history ends with the user's message)."""
        last = self.state.messages[-1] if self.state.messages else None
        if last is None or (last["role"] != "user" and not self.state.queued_calls):
            raise AgentBusyError("nothing to retry: the last turn completed")
        return await self.continue_turn()

    def paused_result(self) -> RunResult:
        """The `RunResult` of the current pause (to wait for its answers again, e.g. after a restart)."""
        if self.state.status not in ("awaiting_frontend_tools", "awaiting_approval"):
            raise AgentBusyError("the session is not paused on frontend tools or approvals")
        return self._result(self.state.status)

    def interrupt(self) -> None:
        """Stop the running call as soon as possible (streaming stops at the next event)."""
        if self._busy:
            self._interrupted = True

    def cancel_pending(self, reason: str = tr.INTERRUPTED_ANSWER) -> list[ToolResult]:
        """Close every open call (frontend, approval, or not yet run) with an error result; no request.

        The history stays valid (it ends with the user's tool results) and the next
        `run` adds its message to that same user turn.
        """
        if self._busy:
            raise AgentBusyError("the agent is running; stop it first")
        before = {r.tool_use_id for r in self.state.held_results}
        closed = tr.interrupt(self.state, unanswered=reason, running=reason)
        if closed is self.state:
            return []
        previous = self.state
        self._save_and_adopt(closed)
        for event in closed_calls(previous, closed):
            self.events.publish_nowait(event)
        blocks = closed.messages[-1]["content"]
        return [
            ToolResult(tool_use_id=b["tool_use_id"], content=b["content"], is_error=True)
            for b in blocks
            if b.get("type") == "tool_result" and b["tool_use_id"] not in before and b.get("is_error")
        ]

    # -- the loop ----------------------------------------------------------------------------

    async def _guarded(self, body: Callable[[], Awaitable[RunResult]]) -> RunResult:
        """Run `body` as the one call of this agent; a Stop or cancel closes every open call."""
        with Busy(self):
            try:
                return await body()
            except (asyncio.CancelledError, KeyboardInterrupt):
                if not self._detached:
                    previous = self.state
                    closed = tr.interrupt(previous)
                    if closed is not previous:
                        await self._commit(closed)
                        for event in closed_calls(previous, closed):
                            await self._publish(event)
                    await self._publish(Status(state="stopped", detail="interrupted"))
                raise
            except ToolResultError:
                raise  # refused before anything changed: nothing to report
            except BaseException as exc:
                await self._publish(Status(state="error", detail=f"{type(exc).__name__}: {exc}"))
                raise
