"""Driving an agent's turns for a front end: prompts, answers as they arrive, Stop and shutdown.

A turn runs until it ends: while it is paused, the prompts open through the broker,
each answer is handed to `Agent.accept` (checked and saved) as it arrives, and the
turn carries on when all are in. Stop closes every open call; a shutdown (the
process is going away) leaves the session as saved. The widget and the terminal
both drive their turns with this; neither re-implements any of it.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .._exceptions import AgentBusyError, WidgetError
from ..agent._agent import Agent
from ..events._events import Interrupt, ManualToolInvoke, Status, UserInput
from ..session._state import PendingFrontendTool, RunResult, ToolResult
from ..tools._approvals import ApprovalDecision, PendingApproval
from ._broker import PromptBroker

__all__ = ["TurnDriver"]

log = logging.getLogger("notebook_tools")
SIGINT_GRACE = 0.5
"""Seconds between SIGINT and the Stop it causes (a restart's shutdown request comes in between)."""


class TurnDriver:
    """One agent's turns, one at a time, answered through a broker.

    Args:
        agent: The agent to drive.
        broker: Its prompts (the broker's events should be the agent's bus).
        approval_timeout: Seconds an approval card waits before the call is denied (None: no limit).
        on_busy: Called with True when a turn starts and False when it ends.
        on_stopped: Called after Stop closed the turn's open calls.
        on_error: Called with the exception that ended a turn, and whether `agent.retry()` can carry on.
    """

    def __init__(
        self,
        agent: Agent,
        broker: PromptBroker,
        *,
        approval_timeout: float | None = 300.0,
        on_busy: Callable[[bool], None] | None = None,
        on_stopped: Callable[[], None] | None = None,
        on_error: Callable[[BaseException, bool], None] | None = None,
    ) -> None:
        self.agent = agent
        self.broker = broker
        broker.session = lambda: agent.agent_uuid
        self.approval_timeout = approval_timeout
        self.on_busy = on_busy or (lambda busy: None)
        self.on_stopped = on_stopped or (lambda: None)
        self.on_error = on_error or (lambda exc, retryable: None)
        self.detached = False
        self._task: asyncio.Future[RunResult] | None = None
        self._accepting: asyncio.Lock | None = None
        self._stop_requested = False

    @property
    def task(self) -> asyncio.Future[RunResult] | None:
        """The current (or last background) turn's task."""
        return self._task

    @property
    def running(self) -> bool:
        """Whether a turn is under way."""
        return self._task is not None and not self._task.done()

    def start(self, first: Awaitable[RunResult]) -> asyncio.Task[RunResult]:
        """Run a turn as a background task on the running loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            _close(first)
            raise WidgetError(
                "a background turn needs a running event loop (e.g. a Jupyter kernel)"
            ) from None
        if self.running:
            _close(first)
            raise AgentBusyError("a turn is already running in this chat")
        task = loop.create_task(self.turn(first))
        task.add_done_callback(_log_task_error)
        self._task = task
        return task

    async def in_this_task(self, first: Awaitable[RunResult]) -> RunResult:
        """Run a turn in the calling task (an awaiting cell), so Stop and SIGINT can cancel it."""
        if self.running:
            _close(first)
            raise AgentBusyError("a turn is already running in this chat")
        self._task = asyncio.current_task()
        restore = _stop_on_sigint(asyncio.get_running_loop(), self.stop)
        try:
            return await self.turn(first)
        finally:
            restore()
            self._task = None

    def say(self, text: str) -> Awaitable[RunResult]:
        """The person's message, as an action event; returns the turn to start or await."""
        self.agent.events.publish_nowait(UserInput(text=text, agent_uuid=self.agent.agent_uuid))
        return self.agent.run(text)

    async def run_tool(self, name: str, arguments: dict[str, Any], request_id: str = "") -> ToolResult:
        """Run a tool by hand (an action event too); the model hears of it with the next message."""
        self.agent.events.publish_nowait(
            ManualToolInvoke(
                name=name, input=arguments, request_id=request_id, agent_uuid=self.agent.agent_uuid
            )
        )
        return await self.agent.run_manual(name, arguments)

    def stop(self) -> None:
        """Stop the running turn at once: streaming, a running tool, open prompts."""
        if not self.running or self.detached or self._stop_requested:  # shutting down is not a Stop
            return
        self.agent.events.publish_nowait(Interrupt(agent_uuid=self.agent.agent_uuid))
        self.agent.interrupt()
        self._stop_requested = True
        task = self._task
        assert task is not None
        if asyncio.current_task() is task:
            # Called from inside the turn (an event handler): a cancel now would stay pending after the
            # turn ends (Python 3.11's uncancel() does not clear it), so cancel once it is suspended.
            asyncio.get_running_loop().call_soon(self._cancel_if_stopping, task)
        else:
            task.cancel()

    def _cancel_if_stopping(self, task: asyncio.Future[Any] | None) -> None:
        if self._stop_requested and task is not None and self._task is task and not task.done():
            task.cancel()

    def detach(self) -> None:
        """The process is going away: from now on a cancelled turn leaves the session as saved."""
        self.detached = True
        self.agent.detach()

    async def turn(self, first: Awaitable[RunResult]) -> RunResult:
        """Await `first`, then answer its pauses through the broker until the turn ends."""
        agent = self.agent
        self._stop_requested = False
        self.on_busy(True)
        try:
            result = await first
            while result.stop_reason in ("awaiting_frontend_tools", "awaiting_approval"):
                if result.stop_reason == "awaiting_approval":
                    await self._collect_approvals(result.pending_approvals)
                else:
                    await self.broker.collect(result.pending_frontend_tools, accept=self.accept)
                result = await agent.continue_turn()
            return result
        except (asyncio.CancelledError, KeyboardInterrupt):  # Stop, interrupt(), SIGINT
            if self.detached:  # shutting down: the session stays as saved (paused) in the store
                raise
            self.broker.cancel_open()
            if agent.cancel_pending():  # the agent was not running: its pause is closed here
                await agent.events.publish(Status(state="stopped", detail="interrupted"))
            self.on_stopped()
            task = asyncio.current_task()
            if not self._stop_requested or task is None:
                raise
            # Our own Stop (the button, interrupt(), SIGINT while awaiting): the turn ends normally as
            # "stopped", so an awaiting cell shows a result, not a CancelledError traceback.
            task.uncancel()
            return RunResult(stop_reason="stopped", agent_uuid=agent.agent_uuid, usage=agent.state.usage)
        except Exception as exc:
            last = agent.state.messages[-1] if agent.state.messages else None
            status = agent.state.status  # retry() carries on after a failed request or with queued calls
            self.on_error(
                exc, status == "running" or (status == "idle" and last is not None and last["role"] == "user")
            )
            raise
        finally:
            self._stop_requested = False
            self.on_busy(False)

    async def accept(self, answer: ToolResult | ApprovalDecision) -> None:
        """Hand one answer to the agent, which checks and saves it (a restart then asks only the rest)."""
        if self._accepting is None:
            self._accepting = asyncio.Lock()
        async with self._accepting:
            while True:
                try:
                    await self.agent.accept([answer])
                    return
                except AgentBusyError:  # a tool run by hand is under way: the answer waits for it
                    await asyncio.sleep(0.05)

    async def _collect_approvals(self, pending: list[PendingApproval]) -> None:
        """Approval cards are prompts too: same answers path, timeouts and no-frontend policies."""

        async def accept(result: ToolResult) -> None:
            if result.is_error:  # skipped, timed out, nobody there: the call is not run
                reason = str(result.content)
                decision = ApprovalDecision(tool_use_id=result.tool_use_id, approved=False, reason=reason)
            else:
                decision = ApprovalDecision.model_validate_json(str(result.content))
            await self.accept(decision)

        await self.broker.collect(self._approval_calls(pending), kind="approval", accept=accept)

    def _approval_calls(self, pending: list[PendingApproval]) -> list[PendingFrontendTool]:
        return [
            PendingFrontendTool(
                tool_use_id=p.tool_use_id,
                name=p.name,
                input=p.input,
                timeout=self.approval_timeout,
                requested_at=p.requested_at,
            )
            for p in pending
        ]

    # -- after a restart --------------------------------------------------------------------------

    def restore_prompts(self) -> None:
        """Prompts of the session's open turn: answered ones as answered, open ones pending."""
        state = self.agent.state
        last = state.messages[-1] if state.messages else {}
        content = last.get("content") if last.get("role") == "assistant" else None
        calls = {b["id"]: b for b in content or [] if isinstance(b, dict) and b.get("type") == "tool_use"}
        for result in state.held_results:
            block = calls[result.tool_use_id]
            found = self.agent.tools.get(block["name"])
            if found is not None and found.executor == "frontend":
                self.broker.close_answered(result.tool_use_id, block["name"], block["input"], result)
        self.broker.open(state.pending_frontend_tools)
        self.broker.open(self._approval_calls(state.pending_approvals), kind="approval")

    async def paused(self, *, fresh_timeouts: bool = False) -> RunResult:
        """The current pause as a `RunResult` (with timeouts starting now, after a restart)."""
        result = self.agent.paused_result()
        if not fresh_timeouts:
            return result
        now = time.time()
        frontend = [p.model_copy(update={"requested_at": now}) for p in result.pending_frontend_tools]
        approvals = [p.model_copy(update={"requested_at": now}) for p in result.pending_approvals]
        return result.model_copy(update={"pending_frontend_tools": frontend, "pending_approvals": approvals})

    def carry_on(self) -> asyncio.Task[RunResult] | None:
        """After a restart: wait for the open prompts, or run again the calls that were running."""
        status = self.agent.state.status
        if status == "idle":
            return None
        first = self.agent.continue_turn() if status == "running" else self.paused(fresh_timeouts=True)
        return self.start(first)


def _stop_on_sigint(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> Callable[[], None]:
    """Make SIGINT (a kernel's ■ button, Ctrl+C) stop an awaiting turn; returns the undo.

    Measured on ipykernel 7.4: SIGINT does not interrupt a cell that sits in `await`, so while a
    turn awaits, the loop itself handles SIGINT by stopping the turn; the previous handler
    (KeyboardInterrupt for synchronous code) comes back when the turn ends.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    later: list[asyncio.TimerHandle] = []

    def on_sigint() -> None:
        # JupyterLab's restart sends SIGINT just before its shutdown request: wait a moment, so a
        # restart is seen as one (the chat detaches) and not taken for a Stop.
        later.append(loop.call_later(SIGINT_GRACE, stop))

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # not on Unix, or not the main thread's loop
        return lambda: None

    def restore() -> None:
        for handle in later:
            handle.cancel()
        loop.remove_signal_handler(signal.SIGINT)
        if previous is not None:  # None: a handler not set from Python, left as remove_signal_handler left it
            signal.signal(signal.SIGINT, previous)

    return restore


def _close(awaitable: Awaitable[Any]) -> None:
    if asyncio.iscoroutine(awaitable):
        awaitable.close()  # never awaited: close it so Python does not warn


def _log_task_error(task: asyncio.Task[RunResult]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("notebook_tools: background turn failed", exc_info=task.exception())
