"""`FrontendSession`: an agent, the broker of its prompts and the driver of its turns, for one front end.

The widget, the terminal and the server's held runs each hold one. It opens an agent's prompts in
one place (`_open_pause`: on the agent's pause events, or from the saved state after a restart),
and takes answers along one path, every call pointing down:

    front end -> broker.answer (checked, by id) -> the session awaits broker.next_answer
              -> agent.accept (checked and saved) -> broker.settle (or .reopen) -> agent.continue_turn

Stop closes every open call; a shutdown (the process is going away) leaves the session as saved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from typing_extensions import Unpack

from .._exceptions import AgentBusyError, ToolResultError, WidgetError
from ..agent._agent import Agent
from ..api._options import OptionArgs
from ..events._bus import EventBus
from ..events._events import Interrupt, ManualToolInvoke, Status, UserInput
from ..mcp._app_host import MCPAppHost
from ..mcp._elicitation import MCPElicitation
from ..mcp._sampling import MCPSampling
from ..mcp._sign_in import MCPSignIn
from ..prompts._broker import DEFAULT_FALLBACK, NoFrontendPolicy, PromptBroker
from ..prompts._clock import Clock
from ..prompts._files import FileInbox
from ..prompts._in_call import InCallPrompts
from ..prompts._turn_task import close_unawaited, log_task_error, stop_on_sigint
from ..prompts._waiting import NO_FRONTEND_GRACE, LateWindow
from ..session._state import PendingFrontendTool, RunResult, ToolResult
from ..tools._approvals import ApprovalDecision, PendingApproval
from ._app_turns import AppTurns
from ._restart import AfterRestart

__all__ = ["FrontendSession"]

Take = Callable[[ToolResult], Awaitable[None]]


class FrontendSession(AfterRestart, AppTurns):
    """One agent's turns, one at a time, with its prompts answered through a broker.

    Args:
        agent: The agent to drive; None for prompts without an agent (`nt.ask`).
        files: Uploads and workspace picks for file prompts.
        on_no_frontend, fallback_message, max_retries, no_frontend_grace: The broker's no-frontend
            policy (see `nt.Chat`).
        approval_timeout: Seconds an approval card waits before the call is denied (None, the
            default: until the person answers).
        ask_timeout: Seconds a question a running call asks (an MCP server's elicitation or, without
            `approval_timeout`, sampling; a consent card) waits before it closes unanswered (None, the
            default: until answered or stopped). An MCP sign-in card keeps no timeout.
        clock: The broker's time source (a `FakeClock` in tests).
        on_event: The front end's display: called with every event of the agent, first.
        on_busy, on_stopped, on_error: Called with True/False when a turn starts/ends; after Stop closed
            the open calls; with the exception that ended a turn and whether `agent.retry()` can carry on.
    """

    def __init__(
        self,
        agent: Agent | None,
        *,
        files: FileInbox | None = None,
        on_no_frontend: NoFrontendPolicy = "wait",
        fallback_message: str = DEFAULT_FALLBACK,
        max_retries: int = 4,
        no_frontend_grace: float | None = NO_FRONTEND_GRACE,
        approval_timeout: float | None = None,
        ask_timeout: float | None = None,
        clock: Clock | None = None,
        on_event: Callable[[Any], None] | None = None,
        on_busy: Callable[[bool], None] | None = None,
        on_stopped: Callable[[], None] | None = None,
        on_error: Callable[[BaseException, bool], None] | None = None,
    ) -> None:
        self._agent = agent
        self.broker = PromptBroker(
            agent.tools if agent is not None else {},
            events=agent.events if agent is not None else EventBus(),
            files=files,
            on_no_frontend=on_no_frontend,
            fallback_message=fallback_message,
            max_retries=max_retries,
            session=(lambda: agent.agent_uuid) if agent is not None else None,
            no_frontend_grace=no_frontend_grace,
            clock=clock,
        )
        if agent is not None:  # its MCP servers' elicitation and sampling requests become our prompts
            asked = approval_timeout if approval_timeout is not None else ask_timeout
            sample = MCPSampling(agent, self.broker, timeout=asked)
            elicit = MCPElicitation(self.broker, timeout=ask_timeout)
            done, sign_in = elicit.completed, MCPSignIn(self.broker)
            agent.set_mcp_handlers(elicit=elicit, sample=sample, completed=done, authorize=sign_in)
            agent.runner.prompts = InCallPrompts(self.broker, timeout=ask_timeout)  # e.g. consent cards
            self.apps: MCPAppHost | None = MCPAppHost(agent, self.broker, self._app_message)
        else:
            self.apps = None
        self.approval_timeout = approval_timeout
        self.on_event = on_event or (lambda event: None)
        self.on_busy = on_busy or (lambda busy: None)
        self.on_stopped = on_stopped or (lambda: None)
        self.on_error = on_error or (lambda exc, retryable: None)
        self.detached = False
        self._task: asyncio.Future[RunResult] | None = None
        self._accepting: asyncio.Lock | None = None
        self._stop_requested = False
        self.close = self.broker.events.subscribe(self._on_event)
        """Stop following the agent's events (the session's front end is gone)."""

    @property
    def agent(self) -> Agent:
        """The agent driven (a session for prompts only has none)."""
        if self._agent is None:
            raise WidgetError("this widget has no agent; it only shows prompts")
        return self._agent

    task = property(lambda self: self._task, doc="The current (or last background) turn's task.")

    @property
    def running(self) -> bool:
        """Whether a turn is under way."""
        return self.task is not None and not self.task.done()

    # -- prompts: opened in one place ---------------------------------------------------------------

    def _on_event(self, event: Any) -> None:
        self.on_event(event)  # the front end shows the event first, then its prompts open
        kind = getattr(event, "type", "")
        if kind == "awaiting_frontend_tools":  # also when the agent is driven from code
            self._open_pause(event.pending, [])
        elif kind == "approval_required" and self._agent is not None:
            asked = [p for p in self._agent.state.pending_approvals if p.tool_use_id == event.tool_use_id]
            self._open_pause([], asked)

    def _open_pause(self, frontend: list[PendingFrontendTool], approvals: list[PendingApproval]) -> None:
        """Open the prompts of a pause (an open prompt of the same call gets the given timeout start)."""
        self.broker.open(frontend)
        self.broker.open(self._approval_calls(approvals), kind="approval")

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
        self._open_pause(state.pending_frontend_tools, state.pending_approvals)

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

    # -- answers: one path down to the agent --------------------------------------------------------

    async def collect(self, pending: list[PendingFrontendTool], take: Take | None = None) -> None:
        """Wait for the open prompts' answers, handing each to the agent as it arrives.

        One past its timeout still takes an answer while another of the pause waits.
        """
        await self.broker.wait_for_frontend(pending)
        late = LateWindow(call.tool_use_id for call in pending)
        await asyncio.gather(*(self._settle(call, take or self.accept, late) for call in pending))

    async def _settle(self, call: PendingFrontendTool, take: Take, late: LateWindow) -> None:
        while True:
            taken = await self.broker.next_answer(call, late)
            try:
                await take(taken.result)
            except ToolResultError as exc:  # e.g. over max_result_chars, or an edit into a Blocked zone
                self.broker.reopen(call.tool_use_id, getattr(exc, "reason", str(exc)))
                continue
            self.broker.settle(call.tool_use_id, taken)
            late.done(call.tool_use_id)
            return

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

    async def _decide(self, result: ToolResult) -> None:
        """An approval card's answer, as the agent's decision."""
        if result.is_error:  # skipped, timed out, nobody there: the call is not run
            reason = str(result.content)
            decision = ApprovalDecision(tool_use_id=result.tool_use_id, approved=False, reason=reason)
        else:
            decision = ApprovalDecision.model_validate_json(str(result.content))
        await self.accept(decision)

    # -- turns --------------------------------------------------------------------------------------

    def start(self, first: Awaitable[RunResult]) -> asyncio.Task[RunResult]:
        """Run a turn as a background task on the running loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            close_unawaited(first)
            raise WidgetError(
                "a background turn needs a running event loop (e.g. a Jupyter kernel)"
            ) from None
        if self.running:
            close_unawaited(first)
            raise AgentBusyError("a turn is already running in this chat")
        task = loop.create_task(self.turn(first))
        task.add_done_callback(log_task_error)
        self._task = task
        return task

    async def in_this_task(self, first: Awaitable[RunResult]) -> RunResult:
        """Run a turn in the calling task (an awaiting cell), so Stop and SIGINT can cancel it."""
        if self.running:
            close_unawaited(first)
            raise AgentBusyError("a turn is already running in this chat")
        self._task = asyncio.current_task()
        restore = stop_on_sigint(asyncio.get_running_loop(), self.stop)
        try:
            return await self.turn(first)
        finally:
            restore()
            self._task = None

    def say(self, text: str, **options: Unpack[OptionArgs]) -> Awaitable[RunResult]:
        """The person's message, as an action event; the turn to start or await (bad options raise)."""
        agent = self.agent
        agent.check_options(agent.settings.options.merged(**options))  # refused before it is shown
        agent.events.publish_nowait(UserInput(text=text, agent_uuid=agent.agent_uuid))
        return agent.run(text, **options)

    async def run_tool(self, name: str, arguments: dict[str, Any], request_id: str = "") -> ToolResult:
        """Run a tool by hand (an action event too); the model hears of it with the next message."""
        agent = self.agent
        agent.events.publish_nowait(
            ManualToolInvoke(name=name, input=arguments, request_id=request_id, agent_uuid=agent.agent_uuid)
        )
        return await agent.run_manual(name, arguments)

    def stop(self) -> None:
        """Stop the running turn at once: streaming, a running tool, open prompts."""
        self.drop_app_messages()
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
        self.idle.clear()
        try:
            result = await first
            while result.stop_reason in ("awaiting_frontend_tools", "awaiting_approval"):
                if result.stop_reason == "awaiting_approval":
                    await self.collect(self._approval_calls(result.pending_approvals), self._decide)
                else:
                    await self.collect(result.pending_frontend_tools)
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
            self.idle.set()
            self.on_busy(False)
