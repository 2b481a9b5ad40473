"""Acks and Stops that reach the run on whichever worker holds it: messages through the shared store.

A held run's frontend calls live in one worker's memory (its prompt broker). When an ack for one
of them reaches another worker, that worker finds the holder in the store (`call_holder`), sends it
the ack as a message and answers with the holder's reply; a Stop for a run held elsewhere goes the
same way, to the lease's holder. Each worker listens for its messages while it runs anything:
PostgreSQL wakes it at once (LISTEN/NOTIFY), SQLite and the in-memory store are polled every 50 ms.
So no sticky sessions are needed. A call's holder stays on record after its run ended, so a repeated
or late ack posted anywhere gets the answer the holder gives it (ignored, expired) while that worker
lives. A store without a mailbox serves one worker, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from ._acks import SETTLE_SECONDS, AckBody, AckRegistry

__all__ = ["Mailbox"]

_METHODS = ("asend", "areply", "wait_messages", "wait_reply", "ahold_calls", "acall_holder")
_LISTEN = 30.0
"""Seconds one wait for messages lasts before it is renewed."""
_STOP_REPLY = 5.0
"""Seconds to wait for the holder of a run to say it stopped it."""


class Mailbox:
    """This worker's messages with the others: forwarding acks and Stops, and answering them.

    Args:
        store: The shared store.
        holder: This worker's name (its leases' holder).
        acks: This worker's open frontend calls.
        stop_here: Stops the run this worker holds on a session; whether it had one.
    """

    def __init__(self, store: Any, holder: str, acks: AckRegistry, stop_here: Callable[[str], bool]) -> None:
        self.store = store
        self.holder = holder
        self.acks = acks
        self.stop_here = stop_here
        self.enabled = all(hasattr(store, name) for name in _METHODS)
        self._listening: asyncio.Task[None] | None = None

    def listen(self) -> None:
        """Answer this worker's messages from now on (once started, it listens until `close`)."""
        if self.enabled and (self._listening is None or self._listening.done()):
            self._listening = asyncio.get_running_loop().create_task(self._listen())

    async def close(self) -> None:
        """Stop listening."""
        task, self._listening = self._listening, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def hold(self, ids: list[str], agent_uuid: str) -> None:
        """These frontend calls' acks are for this worker."""
        if self.enabled:
            self.listen()
            await self.store.ahold_calls(ids, agent_uuid, self.holder)

    async def forward_ack(self, body: AckBody) -> tuple[int, dict[str, Any]] | None:
        """The holder's answer to an ack for a call another worker holds; None when no worker holds it."""
        if not self.enabled:
            return None
        found = await self.store.acall_holder(body.toolCallId)
        if found is None or found[1] == self.holder:
            return None
        said = await self._ask(found[1], "ack", body.model_dump_json(), SETTLE_SECONDS + 5)
        if said is None:
            reason = f"the worker holding tool call {body.toolCallId!r} did not answer (it may have stopped)"
            return 410, {"ok": False, "reason": reason}
        status, answer = json.loads(said)
        return int(status), dict(answer)

    async def forward_stop(self, agent_uuid: str, holder: str) -> bool:
        """Ask `holder` to stop its run on the session; whether it had one."""
        if not self.enabled or holder == self.holder:
            return False
        return await self._ask(holder, "stop", agent_uuid, _STOP_REPLY) == "true"

    async def _ask(self, target: str, kind: str, body: str, timeout: float) -> str | None:
        message_id = await self.store.asend(target, kind, body)
        reply: str | None = await self.store.wait_reply(message_id, timeout)
        return reply

    async def _listen(self) -> None:
        after = 0
        while True:
            try:
                messages = await self.store.wait_messages(self.holder, after, _LISTEN)
            except Exception:  # the store is unreachable for a moment: try again
                await asyncio.sleep(1.0)
                continue
            for message_id, kind, body in messages:
                after = max(after, message_id)
                asyncio.get_running_loop().create_task(self._answer(message_id, kind, body))

    async def _answer(self, message_id: int, kind: str, body: str) -> None:
        with contextlib.suppress(Exception):  # a malformed message gets no reply: its sender times out
            reply: Callable[[], Awaitable[str]]
            if kind == "ack":
                reply = lambda: self._ack(body)  # noqa: E731
            elif kind == "stop":
                reply = lambda: _stopped(self.stop_here(body))  # noqa: E731
            else:
                return
            await self.store.areply(message_id, await reply())

    async def _ack(self, body: str) -> str:
        status, answer = await self.acks.ack(AckBody.model_validate_json(body))
        return json.dumps([status, answer])


async def _stopped(had_run: bool) -> str:
    return "true" if had_run else "false"
