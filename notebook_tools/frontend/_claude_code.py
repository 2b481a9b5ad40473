"""`ClaudeCodeSession`: Claude Code driven by a front end as it drives our own agent, one turn at a time.

A front end (the chat, the terminal) holds a `FrontendSession`; this is that session for a
`ClaudeCode`: its permission cards open in the session's broker (so the front end's policies, views
and presence apply), its messages reach the front end as display events on the broker's bus, and
its turns run in a task the front end can stop. Stop interrupts the CLI (`client.interrupt()`): the
open cards close and their calls are denied, a running Bash is ended by the CLI, and the turn ends
with the CLI's own result; a CLI that does not end the turn within `STOP_GRACE` seconds is
disconnected (its process ended) and the next turn resumes its session in a new one.

An `ACPAgent` is driven the same way (it has the same surface): Stop is its `session/cancel`, after
which its open requests are answered "cancelled" and the agent ends the turn as "cancelled".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, NoReturn

from .._exceptions import ConfigurationError, WidgetError
from ..events._events import Interrupt, Status, UserInput
from ..external._acp import ACPAgent
from ..external._claude_code import ClaudeCode
from ..prompts._turn_task import close_unawaited
from ..session._state import RunResult
from ._session import FrontendSession

__all__ = ["STOP_GRACE", "ClaudeCodeSession"]

log = logging.getLogger("notebook_tools")

STOP_GRACE = 10.0
"""Seconds the CLI has to end a stopped turn before it is disconnected."""


class ClaudeCodeSession(FrontendSession):
    """A front end's session of a `ClaudeCode`: its cards in this broker, its turns run and stopped here.

    Args:
        claude: The Claude Code (or ACP agent) to drive; its cards move to this session's broker.
        **kwargs: As `FrontendSession` (files, no-front-end policy, approval_timeout, callbacks).
    """

    def __init__(self, claude: ClaudeCode | ACPAgent, **kwargs: Any) -> None:
        super().__init__(None, **kwargs)
        claude.ask_through(self.broker)
        if claude.approval_timeout is None:
            claude.approval_timeout = self.approval_timeout
        self.claude = claude
        self._stopping: set[asyncio.Task[None]] = set()

    @property
    def agent(self) -> NoReturn:
        raise WidgetError(
            "this chat drives Claude Code: it has no toolkit agent (retry, plugins, tools by hand)"
        )

    def say(self, text: str, **options: Any) -> Awaitable[RunResult]:
        """The person's message, as an action event; the turn to start or await."""
        if options:
            raise ConfigurationError(
                f"Claude Code and ACP agents take their options when made, not per message: {sorted(options)}"
            )
        self.broker.events.publish_nowait(UserInput(text=text, agent_uuid=self.claude.session_id or ""))
        return self._run(text)

    async def _run(self, text: str) -> RunResult:
        last: Any = None
        async for message in self.claude.stream(text):
            last = message
        return self._result(last)

    def _result(self, last: Any) -> RunResult:
        shown = self.claude.shown
        if self._stop_requested:
            reason = "stopped"
        elif last is None or getattr(last, "is_error", False):
            reason = "error"
        else:
            reason = getattr(last, "stop_reason", None) or "end_turn"
        return RunResult(
            stop_reason=reason,
            agent_uuid=self.claude.session_id or "",
            text=str(getattr(last, "result", None) or ""),
            usage=shown.usage,
        )

    def stop(self) -> None:
        """Stop the running turn: the open cards deny, the CLI is interrupted, the turn ends."""
        self.drop_app_messages()
        task = self._task
        if task is None or task.done() or self.detached or self._stop_requested:
            return
        self._stop_requested = True
        self.broker.events.publish_nowait(Interrupt(agent_uuid=self.claude.session_id or ""))
        stopping = asyncio.get_running_loop().create_task(self._interrupt(task))
        self._stopping.add(stopping)
        stopping.add_done_callback(self._stopping.discard)

    async def _interrupt(self, task: asyncio.Future[RunResult]) -> None:
        try:
            await asyncio.wait_for(self.claude.interrupt(), STOP_GRACE)
        except Exception as exc:  # the CLI did not take it: the turn is ended from our side below
            log.warning("notebook_tools: Claude Code did not take the interrupt: %r", exc)
        finished, _ = await asyncio.wait({task}, timeout=STOP_GRACE)
        if not finished and self._task is task:
            task.cancel()

    def detach(self) -> None:
        """The process is going away: the CLI's session stays as it is (a new kernel resumes it)."""
        self.detached = True

    async def turn(self, first: Awaitable[RunResult]) -> RunResult:
        """Await the turn; after a Stop, close what is still shown running and report it stopped."""
        self._stop_requested = False
        self.on_busy(True)
        self.idle.clear()
        try:
            result = await first
            if self._stop_requested:
                await self._closed_after_stop()
            return result
        except (asyncio.CancelledError, KeyboardInterrupt):
            if self.detached:
                raise
            close_unawaited(first)
            self.broker.cancel_open()
            await asyncio.shield(self._reset())  # the CLI's stream was cut mid-turn: start it afresh
            await self._closed_after_stop()
            task = asyncio.current_task()
            if not self._stop_requested or task is None:
                raise
            task.uncancel()
            return self._result(None)
        except Exception as exc:
            self.on_error(exc, False)
            raise
        finally:
            self._stop_requested = False
            self.idle.set()
            self.on_busy(False)

    async def _closed_after_stop(self) -> None:
        for event in self.claude.shown.stopped():
            await self.broker.events.publish(event)
        stopped = Status(state="stopped", detail="interrupted", agent_uuid=self.claude.session_id or "")
        await self.broker.events.publish(stopped)
        self.on_stopped()

    async def _reset(self) -> None:
        try:
            await self.claude.close()
        except Exception as exc:
            log.warning("notebook_tools: closing Claude Code after a cut turn failed: %r", exc)
