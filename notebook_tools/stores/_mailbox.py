"""A mailbox between server workers: a Stop or an ack reaches whichever worker holds the run.

Several worker processes serve one store; a request may land on any of them, but a run (and
the frontend tool calls it waits on) lives in the worker that holds its lease. So a worker
`send`s a message to the holder by name, the holder `receive`s it (or awaits `wait_messages`),
acts, and `reply`s; the sender awaits `wait_reply`. Which worker holds an open frontend call is
recorded with `hold_calls`, looked up with `call_holder`, and forgotten with `drop_calls`.

Messages carry ids that only grow, in the order they were committed for each target, so a
worker reads "everything after the last id I saw". They are kept `MESSAGE_LIFETIME` seconds
(pruned when another is sent). PostgreSQL wakes waiters with LISTEN/NOTIFY (`_pg_listen`);
SQLite and the in-memory store are polled every `POLL_INTERVAL` seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["MESSAGE_LIFETIME", "POLL_INTERVAL", "Mailbox", "Message", "poll"]

_T = TypeVar("_T")

Message = tuple[int, str, str]
"""A message as received: (id, kind, body)."""

MESSAGE_LIFETIME = 600.0
"""Seconds a message (and its reply) is kept; older ones are removed when another is sent."""

POLL_INTERVAL = 0.05
"""Seconds between two looks of a waiter that is not woken by the database."""


async def poll(look: Callable[[], Awaitable[_T]], found: Callable[[_T], bool], timeout: float) -> _T:
    """Call `look` every `POLL_INTERVAL` seconds until `found` says yes or `timeout` passed; the last look."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        seen = await look()
        remaining = deadline - loop.time()
        if found(seen) or remaining <= 0:
            return seen
        await asyncio.sleep(min(POLL_INTERVAL, remaining))


@runtime_checkable
class Mailbox(Protocol):
    """A store that carries messages between workers (all three of notebook_tools' stores do).

    Every method has an async twin (`asend`, `areceive`, ...); the waits are async only.
    """

    def send(self, target: str, kind: str, body: str) -> int:
        """Send a message to the worker named `target`; its id."""

    def receive(self, target: str, after: int = 0) -> list[Message]:
        """The messages to `target` with an id above `after`, oldest first."""

    def reply(self, message_id: int, body: str) -> None:
        """Answer a message (a later reply replaces it; nothing happens if it was pruned)."""

    def reply_of(self, message_id: int) -> str | None:
        """The answer to a message, or None while there is none."""

    def hold_calls(self, ids: list[str], agent_uuid: str, holder: str) -> None:
        """Record that these open frontend calls of the session are held by `holder`."""

    def call_holder(self, tool_use_id: str) -> tuple[str, str] | None:
        """(agent_uuid, holder) of an open frontend call, or None."""

    def drop_calls(self, ids: list[str]) -> None:
        """Forget these calls (answered, or given up)."""

    async def asend(self, target: str, kind: str, body: str) -> int:
        """`send`, without blocking the event loop."""

    async def areceive(self, target: str, after: int = 0) -> list[Message]:
        """`receive`, without blocking the event loop."""

    async def areply(self, message_id: int, body: str) -> None:
        """`reply`, without blocking the event loop."""

    async def areply_of(self, message_id: int) -> str | None:
        """`reply_of`, without blocking the event loop."""

    async def ahold_calls(self, ids: list[str], agent_uuid: str, holder: str) -> None:
        """`hold_calls`, without blocking the event loop."""

    async def acall_holder(self, tool_use_id: str) -> tuple[str, str] | None:
        """`call_holder`, without blocking the event loop."""

    async def adrop_calls(self, ids: list[str]) -> None:
        """`drop_calls`, without blocking the event loop."""

    async def wait_messages(self, target: str, after: int, timeout: float) -> list[Message]:
        """The messages to `target` after `after`, as soon as there is one; [] after `timeout` seconds."""

    async def wait_reply(self, message_id: int, timeout: float) -> str | None:
        """The answer to a message as soon as there is one; None after `timeout` seconds."""
