"""One LISTEN connection per store and event loop, waking every waiter of the process.

A worker waiting for a message (a Stop, an ack) or for a reply would otherwise poll the
database. With PostgreSQL a send or a reply does `pg_notify` in the same transaction, so the
notification goes out when (and only if) the row is committed; this module's `Listener` holds
one dedicated connection that LISTENs to both channels and wakes the waiters registered for a
target or a message id. The waiters then read the rows themselves: a notification only says
"look again".

If the connection drops, the listener connects again (backing off up to 2 s) and then wakes
every waiter, since what was sent meanwhile was never announced; while it is down, `listening`
is False and waiters poll instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from .._exceptions import StoreError

with contextlib.suppress(ImportError):  # optional: PostgresStore() says so before anything here runs
    import psycopg

__all__ = ["MESSAGES", "REPLIES", "Listener"]

MESSAGES = "nt_messages"
"""The channel a send notifies; the payload is the target."""
REPLIES = "nt_replies"
"""The channel a reply notifies; the payload is the message id."""

log = logging.getLogger("notebook_tools")


class Listener:
    """LISTENs on `MESSAGES` and `REPLIES` and wakes the waiters of a (channel, payload).

    Args:
        connect: Opens a new autocommit connection (raises StoreError when it cannot).
    """

    def __init__(self, connect: Callable[[], Awaitable[psycopg.AsyncConnection[Any]]]) -> None:
        self._connect = connect
        self._waiters: dict[tuple[str, str], set[asyncio.Event]] = {}
        self._attempted = asyncio.Event()  # the first attempt to listen ended, either way
        self._task: asyncio.Task[None] | None = None
        self.listening = False
        """Whether a LISTEN connection is up (when not, waiters poll)."""
        self.connections = 0
        """How many times it connected (1, plus one per connection lost and made again)."""
        self.backend_pid: int | None = None
        """The server process of the current LISTEN connection."""

    async def start(self, timeout: float) -> None:
        """Listen (if not yet), waiting up to `timeout` seconds for the first attempt to connect."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._listen(), name="notebook_tools-listen")
        if not self._attempted.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._attempted.wait(), timeout)

    @contextlib.contextmanager
    def watch(self, channel: str, payload: str) -> Iterator[asyncio.Event]:
        """An event set whenever `channel` is notified with `payload` (or the listener reconnected)."""
        key, event = (channel, payload), asyncio.Event()
        self._waiters.setdefault(key, set()).add(event)
        try:
            yield event
        finally:
            events = self._waiters.get(key)
            if events is not None:
                events.discard(event)
                if not events:
                    del self._waiters[key]

    def _wake(self, key: tuple[str, str]) -> None:
        for event in self._waiters.get(key, ()):
            event.set()

    def _wake_all(self) -> None:
        for events in self._waiters.values():
            for event in events:
                event.set()

    async def _listen(self) -> None:
        delay = 0.05
        while True:
            try:
                conn = await self._connect()
            except StoreError as exc:
                self._attempted.set()
                log.warning("cannot LISTEN for messages (trying again in %.2f s): %s", delay, exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            try:
                await conn.execute(f"LISTEN {MESSAGES}")
                await conn.execute(f"LISTEN {REPLIES}")
                self.backend_pid = conn.info.backend_pid
                self.connections += 1
                self.listening, delay = True, 0.05
                self._attempted.set()
                self._wake_all()  # what was sent while nobody listened was never announced: look again
                async for note in conn.notifies():
                    self._wake((note.channel, note.payload))
            except psycopg.Error as exc:
                log.warning("the LISTEN connection dropped; connecting again: %s", exc)
            finally:
                self.listening = False
                self._wake_all()  # waiters poll until it is back
                with contextlib.suppress(psycopg.Error):
                    await conn.close()

    async def aclose(self) -> None:
        """Stop listening and close the connection."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
