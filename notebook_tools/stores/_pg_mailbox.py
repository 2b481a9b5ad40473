"""The PostgreSQL store's mailbox: `messages` and `calls` tables, NOTIFY on send and on reply.

Kept apart from `_postgres` so each module stays short; `PostgresStore` mixes it in. A send
takes a transaction-scoped advisory lock on its target before the insert draws an id, so the
ids of one target's messages are committed in the order they grow (a reader asking for "after
the last id I saw" never skips one committed late); it prunes old messages, inserts, and
`pg_notify`s the target in the same transaction. A reply notifies the message id. Waiters
listen through `_pg_listen` and fall back to polling while the listener is down.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ._mailbox import MESSAGE_LIFETIME, POLL_INTERVAL, Message
from ._pg_listen import MESSAGES, REPLIES, Listener
from ._pg_steps import Steps

if TYPE_CHECKING:
    from ._pg_pool import LoopResources

__all__ = ["MAILBOX_TABLES", "PgMailbox"]

_T = TypeVar("_T")

MAILBOX_TABLES = (
    "CREATE TABLE IF NOT EXISTS messages (id BIGSERIAL PRIMARY KEY, target TEXT NOT NULL, kind TEXT NOT NULL,"
    " body TEXT NOT NULL, reply TEXT, sent_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())",
    "CREATE INDEX IF NOT EXISTS messages_by_target ON messages (target, id)",
    "CREATE INDEX IF NOT EXISTS messages_by_age ON messages (sent_at)",
    "CREATE TABLE IF NOT EXISTS calls (tool_use_id TEXT PRIMARY KEY, agent_uuid TEXT NOT NULL,"
    " holder TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS calls_by_session ON calls (agent_uuid)",
)
_MAILBOX_LOCK = 0x6E746D62  # "ntmb": pg_advisory_xact_lock(_MAILBOX_LOCK, hashtext(target)) around a send
_PRUNE = (
    "DELETE FROM messages WHERE id IN (SELECT id FROM messages"
    f" WHERE sent_at < clock_timestamp() - interval '{MESSAGE_LIFETIME:g} seconds' FOR UPDATE SKIP LOCKED)"
)


def _send(target: str, kind: str, body: str) -> Steps[int]:
    yield ("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_MAILBOX_LOCK, target))
    yield (_PRUNE, ())
    row = (
        yield (
            "INSERT INTO messages (target, kind, body) VALUES (%s, %s, %s) RETURNING id",
            (target, kind, body),
        )
    ).first()
    yield ("SELECT pg_notify(%s, %s)", (MESSAGES, target))
    return int(row[0]) if row else 0


def _receive(target: str, after: int) -> Steps[list[Message]]:
    found = yield (
        "SELECT id, kind, body FROM messages WHERE target = %s AND id > %s ORDER BY id",
        (target, after),
    )
    return [(int(r[0]), str(r[1]), str(r[2])) for r in found.rows]


def _reply(message_id: int, body: str) -> Steps[None]:
    yield ("UPDATE messages SET reply = %s WHERE id = %s", (body, message_id))
    yield ("SELECT pg_notify(%s, %s)", (REPLIES, str(message_id)))


def _reply_of(message_id: int) -> Steps[str | None]:
    row = (yield ("SELECT reply FROM messages WHERE id = %s", (message_id,))).first()
    return None if row is None or row[0] is None else str(row[0])


def _hold_calls(ids: list[str], agent_uuid: str, holder: str) -> Steps[None]:
    yield (
        "INSERT INTO calls (tool_use_id, agent_uuid, holder) SELECT unnest(%s::text[]), %s, %s"
        " ON CONFLICT (tool_use_id) DO UPDATE SET agent_uuid = excluded.agent_uuid, holder = excluded.holder",
        (list(dict.fromkeys(ids)), agent_uuid, holder),  # (one row at most once per statement)
    )


def _call_holder(tool_use_id: str) -> Steps[tuple[str, str] | None]:
    row = (yield ("SELECT agent_uuid, holder FROM calls WHERE tool_use_id = %s", (tool_use_id,))).first()
    return None if row is None else (str(row[0]), str(row[1]))


def _drop_calls(ids: list[str]) -> Steps[None]:
    yield ("DELETE FROM calls WHERE tool_use_id = ANY(%s)", (list(ids),))


class PgMailbox:
    """Messages between workers, who holds which frontend call, and waits woken by NOTIFY."""

    if TYPE_CHECKING:
        _timeout: float

        def _do(self, make: Callable[[], Steps[_T]], *, atomic: bool = False) -> _T: ...
        async def _ado(self, make: Callable[[], Steps[_T]], *, atomic: bool = False) -> _T: ...
        async def _aconnect(self) -> Any: ...
        def _loop_resources(self) -> LoopResources: ...

    def send(self, target: str, kind: str, body: str) -> int:
        """Send a message to the worker named `target`; its id (messages older than 10 minutes go).

        A retry after a dropped connection may deliver it twice (the first commit may have landed).
        """
        return self._do(lambda: _send(target, kind, body), atomic=True)

    def receive(self, target: str, after: int = 0) -> list[Message]:
        """The messages to `target` with an id above `after`, oldest first."""
        return self._do(lambda: _receive(target, after))

    def reply(self, message_id: int, body: str) -> None:
        """Answer a message (nothing happens if it was pruned)."""
        self._do(lambda: _reply(message_id, body), atomic=True)

    def reply_of(self, message_id: int) -> str | None:
        """The answer to a message, or None."""
        return self._do(lambda: _reply_of(message_id))

    def hold_calls(self, ids: list[str], agent_uuid: str, holder: str) -> None:
        """Record that these open frontend calls are held by `holder`."""
        self._do(lambda: _hold_calls(ids, agent_uuid, holder))

    def call_holder(self, tool_use_id: str) -> tuple[str, str] | None:
        """(agent_uuid, holder) of an open frontend call, or None."""
        return self._do(lambda: _call_holder(tool_use_id))

    def drop_calls(self, ids: list[str]) -> None:
        """Forget these calls."""
        self._do(lambda: _drop_calls(ids))

    async def asend(self, target: str, kind: str, body: str) -> int:
        """`send`, without blocking the event loop."""
        return await self._ado(lambda: _send(target, kind, body), atomic=True)

    async def areceive(self, target: str, after: int = 0) -> list[Message]:
        """`receive`, without blocking the event loop."""
        return await self._ado(lambda: _receive(target, after))

    async def areply(self, message_id: int, body: str) -> None:
        """`reply`, without blocking the event loop."""
        await self._ado(lambda: _reply(message_id, body), atomic=True)

    async def areply_of(self, message_id: int) -> str | None:
        """`reply_of`, without blocking the event loop."""
        return await self._ado(lambda: _reply_of(message_id))

    async def ahold_calls(self, ids: list[str], agent_uuid: str, holder: str) -> None:
        """`hold_calls`, without blocking the event loop."""
        await self._ado(lambda: _hold_calls(ids, agent_uuid, holder))

    async def acall_holder(self, tool_use_id: str) -> tuple[str, str] | None:
        """`call_holder`, without blocking the event loop."""
        return await self._ado(lambda: _call_holder(tool_use_id))

    async def adrop_calls(self, ids: list[str]) -> None:
        """`drop_calls`, without blocking the event loop."""
        await self._ado(lambda: _drop_calls(ids))

    async def wait_messages(self, target: str, after: int, timeout: float) -> list[Message]:
        """The messages to `target` after `after`, as soon as there is one; [] after `timeout` seconds."""
        return await self._wait(MESSAGES, target, lambda: self.areceive(target, after), bool, timeout)

    async def wait_reply(self, message_id: int, timeout: float) -> str | None:
        """The answer to a message as soon as there is one; None after `timeout` seconds."""
        look = lambda: self.areply_of(message_id)  # noqa: E731
        return await self._wait(REPLIES, str(message_id), look, lambda reply: reply is not None, timeout)

    def _listener(self) -> Listener:
        """This event loop's LISTEN connection (made, not yet started, on first use)."""
        resources = self._loop_resources()
        if resources.listener is None:
            resources.listener = Listener(self._aconnect)
        return resources.listener

    async def _wait(
        self,
        channel: str,
        payload: str,
        look: Callable[[], Awaitable[_T]],
        found: Callable[[_T], bool],
        timeout: float,
    ) -> _T:
        """Look, then wait for a notification (or, while nobody listens, `POLL_INTERVAL`), and again."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        listener = self._listener()
        await listener.start(min(timeout, self._timeout))
        with listener.watch(channel, payload) as woken:
            while True:
                listening = listener.listening  # (before looking: a drop after it wakes the event)
                woken.clear()
                seen = await look()
                remaining = deadline - loop.time()
                if found(seen) or remaining <= 0:
                    return seen
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        woken.wait(), remaining if listening else min(POLL_INTERVAL, remaining)
                    )
