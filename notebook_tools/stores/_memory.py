"""The in-memory store's leases, mailbox and async twins: dicts under the store's lock.

Kept apart from `_store` (which holds the protocol and the sessions' rows) so each stays short;
`InMemoryStore` mixes it in. The rules are `_leases`' and `_mailbox`'s; this module only keeps
the rows, and judges expiry and age by the store's clock. The async twins (`_twins`) call the
sync methods directly: nothing here ever waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._leases import Lease, LeaseRow, Renewal, claim_row, lease_of, renew_row
from ._mailbox import MESSAGE_LIFETIME, Message
from ._twins import OffloadedTwins

__all__ = ["MemoryExtras"]


class MemoryExtras(OffloadedTwins):
    """Leases kept in a dict (`claim`, `renew`, `release`, `lease`, `request_stop`), and async twins."""

    _direct = True
    _last_message = 0  # the id of the newest message sent (ids never repeat, pruned or not)

    if TYPE_CHECKING:
        _lock: threading.Lock
        _clock: Callable[[], float]
        _leases: dict[str, LeaseRow]
        _messages: dict[int, list[Any]]  # id -> [target, kind, body, reply, sent_at], oldest first
        _calls: dict[str, tuple[str, str]]  # tool_use_id -> (agent_uuid, holder)

    def claim(self, agent_uuid: str, holder: str, ttl: float) -> Lease | None:
        """Take the session's lease for `ttl` seconds if nobody holds a live one (or `holder` does).

        Returns:
            None when taken; else the live lease of the other holder (nothing changed).
        """
        with self._lock:
            other, row = claim_row(self._leases.get(agent_uuid), holder, ttl, self._clock())
            self._leases[agent_uuid] = row
        return other

    def renew(self, agent_uuid: str, holder: str, ttl: float) -> Renewal:
        """Extend our lease: "held", "stop" (a Stop was requested; still extended) or "lost"."""
        with self._lock:
            said, row = renew_row(self._leases.get(agent_uuid), holder, ttl, self._clock())
            if row is not None:
                self._leases[agent_uuid] = row
        return said

    def release(self, agent_uuid: str, holder: str) -> None:
        """Give our lease back (another holder's is left alone)."""
        with self._lock:
            row = self._leases.get(agent_uuid)
            if row is not None and row[0] == holder:
                del self._leases[agent_uuid]

    def lease(self, agent_uuid: str) -> Lease | None:
        """The session's lease, live or lapsed, or None."""
        with self._lock:
            row = self._leases.get(agent_uuid)
            return None if row is None else lease_of(row, self._clock())

    def request_stop(self, agent_uuid: str) -> bool:
        """Flag the live lease so its holder stops the run; False when none is live."""
        with self._lock:
            row = self._leases.get(agent_uuid)
            if row is None or row[1] <= self._clock():
                return False
            self._leases[agent_uuid] = (row[0], row[1], True)
            return True

    def send(self, target: str, kind: str, body: str) -> int:
        """Send a message to the worker named `target`; its id."""
        with self._lock:
            now = self._clock()
            for old in [i for i, m in self._messages.items() if m[4] < now - MESSAGE_LIFETIME]:
                del self._messages[old]
            message_id = self._last_message = self._last_message + 1
            self._messages[message_id] = [target, kind, body, None, now]
        return message_id

    def receive(self, target: str, after: int = 0) -> list[Message]:
        """The messages to `target` with an id above `after`, oldest first."""
        with self._lock:
            return [(i, m[1], m[2]) for i, m in self._messages.items() if i > after and m[0] == target]

    def reply(self, message_id: int, body: str) -> None:
        """Answer a message (nothing happens if it was pruned)."""
        with self._lock:
            if message_id in self._messages:
                self._messages[message_id][3] = body

    def reply_of(self, message_id: int) -> str | None:
        """The answer to a message, or None."""
        with self._lock:
            message = self._messages.get(message_id)
            return None if message is None else message[3]

    def hold_calls(self, ids: list[str], agent_uuid: str, holder: str) -> None:
        """Record that these open frontend calls are held by `holder`."""
        with self._lock:
            self._calls.update(dict.fromkeys(ids, (agent_uuid, holder)))

    def call_holder(self, tool_use_id: str) -> tuple[str, str] | None:
        """(agent_uuid, holder) of an open frontend call, or None."""
        with self._lock:
            return self._calls.get(tool_use_id)

    def drop_calls(self, ids: list[str]) -> None:
        """Forget these calls."""
        with self._lock:
            for tool_use_id in ids:
                self._calls.pop(tool_use_id, None)
