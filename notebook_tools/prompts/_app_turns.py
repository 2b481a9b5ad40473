"""A chat's turns and its MCP apps: a message an app sent (the person allowed it), and waiting for all.

An app's message is the person's own once they allow it: it starts a turn when the running one has
ended. `settled` waits for the chat to be quiet: no turn running, no app request being answered, no
turn an app's message started (a notebook cell awaits it before the next one talks to the chat).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from ..session._state import RunResult
from ._mcp_apps import MCPAppHost

__all__ = ["AppTurns"]


class AppTurns:
    """The app part of `FrontendSession` (its `task`, `running`, `start`, `say` and `on_error`)."""

    apps: MCPAppHost | None
    on_error: Callable[[BaseException, bool], None]

    @property
    def task(self) -> asyncio.Future[RunResult] | None:
        raise NotImplementedError

    @property
    def running(self) -> bool:
        raise NotImplementedError

    def start(self, first: Awaitable[RunResult]) -> asyncio.Task[RunResult]:
        raise NotImplementedError

    def say(self, text: str) -> Awaitable[RunResult]:
        raise NotImplementedError

    async def settled(self) -> None:
        """Wait until no turn runs and the MCP apps ask nothing (a message an app sent had its turn)."""
        while True:
            work = {w for w in (self.apps.busy if self.apps else ()) if not w.done()}
            if self.task is not None and self.running and self.task is not asyncio.current_task():
                work.add(self.task)
            if not work:
                return
            await asyncio.wait(work)

    def _app_message(self, text: str) -> asyncio.Task[None]:
        """An MCP app's message the person allowed: sent as theirs (a turn started meanwhile: after it)."""

        async def after_turns() -> None:
            while self.task is not None and self.running:
                with contextlib.suppress(BaseException):
                    await asyncio.shield(self.task)
            try:
                turn = self.start(self.say(text))
            except Exception as exc:  # (a chat without a loop, options refused): the chat says so
                self.on_error(exc, False)
                return
            with contextlib.suppress(BaseException):
                await asyncio.shield(turn)  # `settled` waits for the turn too

        return asyncio.get_running_loop().create_task(after_turns())
