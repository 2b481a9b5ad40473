"""A chat's turns and its MCP apps: a message an app sent (the person allowed it), and waiting for all.

An app's message is the person's own once they allow it: it starts a turn when the running one has
ended. `settled` waits for the chat to be quiet: no turn running, no app request being answered, no
turn an app's message started (a notebook cell awaits it before the next one talks to the chat).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from ..mcp._app_host import MCPAppHost
from ..session._state import RunResult

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

    @property
    def idle(self) -> asyncio.Event:
        """Set while no turn runs (`turn` clears it and sets it again, whatever task runs the turn)."""
        event: asyncio.Event | None = self.__dict__.get("_idle")
        if event is None:
            event = self.__dict__["_idle"] = asyncio.Event()
            event.set()
        return event

    @property
    def app_messages(self) -> set[asyncio.Task[None]]:
        """Allowed app messages waiting for their turn (or in it): Stop drops them."""
        found: set[asyncio.Task[None]] = self.__dict__.setdefault("_app_messages", set())
        return found

    async def settled(self, timeout: float | None = None) -> None:
        """Wait until no turn runs and the MCP apps ask nothing (a message an app sent had its turn).

        Raises:
            TimeoutError: still busy after `timeout` seconds (an app that keeps asking, a card unanswered).
        """

        async def quiet() -> None:
            while True:
                work = {w for w in (self.apps.busy if self.apps else ()) if not w.done()}
                waiting = None if self.idle.is_set() else asyncio.ensure_future(self.idle.wait())
                if waiting is not None:
                    work.add(waiting)
                if not work:
                    return
                try:
                    await asyncio.wait(work)
                finally:
                    if waiting is not None:
                        waiting.cancel()

        await asyncio.wait_for(quiet(), timeout)

    def drop_app_messages(self) -> None:
        """Stop: allowed app messages not sent yet are dropped (the person stopped the chat)."""
        for task in list(self.app_messages):
            task.cancel()

    def _app_message(self, text: str) -> asyncio.Task[None]:
        """An MCP app's message the person allowed: sent as theirs once no turn runs."""

        async def after_turns() -> None:
            while not self.idle.is_set():
                await self.idle.wait()
            try:
                turn = self.start(self.say(text))
            except Exception as exc:  # (a chat without a loop, options refused): the chat says so
                self.on_error(exc, False)
                return
            await asyncio.wait({turn})  # `settled` waits for the turn too (its own errors are shown)

        task = asyncio.get_running_loop().create_task(after_turns())
        self.app_messages.add(task)
        task.add_done_callback(self.app_messages.discard)
        return task
