"""Async twins of a synchronous store's methods, for a server's event loop.

The server saves and renews from its event loop, where a call that waits (for SQLite's write
lock, for the disk) would stall every other request. The SQLite store's twins run the sync
method in a worker thread (`asyncio.to_thread`), under the store's own lock as always; the
in-memory store's twins call it directly (it never waits). Same meaning, same compare-and-set:
the twin IS the sync method. (PostgreSQL's twins are native: `_pg_pool`.)

The mailbox's waits (`wait_messages`, `wait_reply`) poll every `POLL_INTERVAL` seconds: neither
store can tell another process that a row arrived.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, ParamSpec, TypeVar

from ._leases import Lease, Renewal
from ._mailbox import Message, poll

if TYPE_CHECKING:
    from ..session._state import AgentState

__all__ = ["OffloadedTwins"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


class OffloadedTwins:
    """`asave`, `aload`, `aclaim`, ...: each runs its sync method in a thread (or at once, if `_direct`)."""

    _direct: ClassVar[bool] = False
    """Call the sync methods on the event loop itself (a store that never waits: the in-memory one)."""

    if TYPE_CHECKING:

        def save(self, state: AgentState) -> None: ...
        def load(self, agent_uuid: str) -> AgentState | None: ...
        def claim(self, agent_uuid: str, holder: str, ttl: float) -> Lease | None: ...
        def renew(self, agent_uuid: str, holder: str, ttl: float) -> Renewal: ...
        def release(self, agent_uuid: str, holder: str) -> None: ...
        def lease(self, agent_uuid: str) -> Lease | None: ...
        def request_stop(self, agent_uuid: str) -> bool: ...
        def send(self, target: str, kind: str, body: str) -> int: ...
        def receive(self, target: str, after: int = 0) -> list[Message]: ...
        def reply(self, message_id: int, body: str) -> None: ...
        def reply_of(self, message_id: int) -> str | None: ...
        def hold_calls(self, ids: list[str], agent_uuid: str, holder: str) -> None: ...
        def call_holder(self, tool_use_id: str) -> tuple[str, str] | None: ...
        def drop_calls(self, ids: list[str]) -> None: ...

    async def _offload(self, method: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        if self._direct:
            return method(*args, **kwargs)
        return await asyncio.to_thread(method, *args, **kwargs)

    async def asave(self, state: AgentState) -> None:
        """`save`, without blocking the event loop: compare-and-set, then `state.revision` bumped.

        Raises:
            StaleSessionError: another writer saved the session first; nothing changed.
        """
        await self._offload(self.save, state)

    async def aload(self, agent_uuid: str) -> AgentState | None:
        """`load`, without blocking the event loop."""
        return await self._offload(self.load, agent_uuid)

    async def aclaim(self, agent_uuid: str, holder: str, ttl: float) -> Lease | None:
        """`claim`, without blocking the event loop."""
        return await self._offload(self.claim, agent_uuid, holder, ttl)

    async def arenew(self, agent_uuid: str, holder: str, ttl: float) -> Renewal:
        """`renew`, without blocking the event loop."""
        return await self._offload(self.renew, agent_uuid, holder, ttl)

    async def arelease(self, agent_uuid: str, holder: str) -> None:
        """`release`, without blocking the event loop."""
        await self._offload(self.release, agent_uuid, holder)

    async def alease(self, agent_uuid: str) -> Lease | None:
        """`lease`, without blocking the event loop."""
        return await self._offload(self.lease, agent_uuid)

    async def arequest_stop(self, agent_uuid: str) -> bool:
        """`request_stop`, without blocking the event loop."""
        return await self._offload(self.request_stop, agent_uuid)

    async def asend(self, target: str, kind: str, body: str) -> int:
        """`send`, without blocking the event loop."""
        return await self._offload(self.send, target, kind, body)

    async def areceive(self, target: str, after: int = 0) -> list[Message]:
        """`receive`, without blocking the event loop."""
        return await self._offload(self.receive, target, after)

    async def areply(self, message_id: int, body: str) -> None:
        """`reply`, without blocking the event loop."""
        await self._offload(self.reply, message_id, body)

    async def areply_of(self, message_id: int) -> str | None:
        """`reply_of`, without blocking the event loop."""
        return await self._offload(self.reply_of, message_id)

    async def ahold_calls(self, ids: list[str], agent_uuid: str, holder: str) -> None:
        """`hold_calls`, without blocking the event loop."""
        await self._offload(self.hold_calls, ids, agent_uuid, holder)

    async def acall_holder(self, tool_use_id: str) -> tuple[str, str] | None:
        """`call_holder`, without blocking the event loop."""
        return await self._offload(self.call_holder, tool_use_id)

    async def adrop_calls(self, ids: list[str]) -> None:
        """`drop_calls`, without blocking the event loop."""
        await self._offload(self.drop_calls, ids)

    async def wait_messages(self, target: str, after: int, timeout: float) -> list[Message]:
        """The messages to `target` after `after`, as soon as there is one; [] after `timeout` seconds."""
        return await poll(lambda: self.areceive(target, after), bool, timeout)

    async def wait_reply(self, message_id: int, timeout: float) -> str | None:
        """The answer to a message as soon as there is one; None after `timeout` seconds."""
        return await poll(lambda: self.areply_of(message_id), lambda reply: reply is not None, timeout)

    async def aclose(self) -> None:
        """`close` (when the store has one), without blocking the event loop."""
        close = getattr(self, "close", None)
        if close is not None:
            await self._offload(close)
