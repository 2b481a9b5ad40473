"""Who runs a session: a lease its worker holds and renews while a run goes on.

A run takes its session's lease in the store before it starts and renews it every third of the
lease time; it gives it back when it ends. So a second request finds the session busy (409,
naming the route that stops it) while the run's worker lives, and once that worker died (a
SIGKILL, a crash, a machine gone) the lease lapses within the lease time and any worker may carry
the session on: `stranded` tells it the run never ended. A Stop asked of another worker is a flag
on the lease, seen at the next renewal; a lease taken over by another worker (this one stalled
past the lease time) ends this run at once, since its saves would be refused anyway.

A store without leases (a `SessionStore` of your own) serves one run per session as before: the
compare-and-set on revisions still refuses the second writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..session._state import AgentState
from ._http import HTTPRefusal

__all__ = ["BUSY", "DEFAULT_LEASE", "WORKER_LOST", "Leases", "load_state", "stranded"]

DEFAULT_LEASE = 10.0
"""Seconds a run's lease lasts without renewal: how soon a session whose worker died is recovered."""
WORKER_LOST = "Interrupted: the server process running this call stopped before it finished."
"""What the model is told of a call that was running when its worker died (the session was recovered)."""
BUSY = (
    "a run is in progress on this thread, so nothing was changed; wait for it to end, or stop it with "
    'POST /agui/stop {"threadId"} (POST /agent/stop {"agent_uuid"} on the reference routes)'
)


def stranded(state: AgentState, lease: Any) -> bool:
    """Whether `state` is a run that never ended: its worker died (its lease lapsed, never given back)."""
    if lease is not None and lease.live:
        return False
    unfinished = (
        bool(state.messages) and state.messages[-1]["role"] == "user" and not state.pending_frontend_tools
    )
    return bool(state.queued_calls) or (lease is not None and unfinished and not state.pending_approvals)


class Leases:
    """This worker's leases on the store (when the store has them).

    Args:
        store: The shared store.
        seconds: How long a lease lasts without renewal.
    """

    def __init__(self, store: Any, seconds: float = DEFAULT_LEASE) -> None:
        self.store = store
        self.seconds = seconds
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.enabled = all(
            hasattr(store, name) for name in ("claim", "renew", "release", "lease", "request_stop")
        )

    async def lease(self, agent_uuid: str) -> Any:
        """The session's lease (live or lapsed), or None."""
        if not self.enabled:
            return None
        return await _call(self.store, "lease", agent_uuid)

    @contextlib.asynccontextmanager
    async def held(
        self, agent_uuid: str, on_stop: Callable[[], None], on_lost: Callable[[], None]
    ) -> AsyncIterator[None]:
        """Hold the session's lease while the block runs, renewing it; 409 when another worker holds it.

        `on_stop` is called when another worker asked for a Stop, `on_lost` when the lease was lost.
        """
        if not self.enabled:
            yield
            return
        other = await _call(self.store, "claim", agent_uuid, self.holder, self.seconds)
        if other is not None:
            raise HTTPRefusal(409, BUSY)
        task = asyncio.get_running_loop().create_task(self._renew(agent_uuid, on_stop, on_lost))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            with contextlib.suppress(Exception):  # a lapsed lease is as good as released
                await _call(self.store, "release", agent_uuid, self.holder)

    async def _renew(self, agent_uuid: str, on_stop: Callable[[], None], on_lost: Callable[[], None]) -> None:
        stopped = False
        while True:
            await asyncio.sleep(self.seconds / 3)
            try:
                said = await _call(self.store, "renew", agent_uuid, self.holder, self.seconds)
            except Exception:  # the store is unreachable: try again (the lease may lapse meanwhile)
                continue
            if said == "lost":
                on_lost()
                return
            if said == "stop" and not stopped:
                stopped = True
                on_stop()

    async def request_stop(self, agent_uuid: str) -> bool:
        """Ask the worker holding the session's run to stop it; False when no run holds it."""
        if not self.enabled:
            return False
        return bool(await _call(self.store, "request_stop", agent_uuid))


async def load_state(store: Any, agent_uuid: str) -> AgentState | None:
    """The saved session, without blocking the event loop when the store has an async twin."""
    found: AgentState | None = await _call(store, "load", agent_uuid)
    return found


async def _call(store: Any, name: str, *args: Any) -> Any:
    """The store's async twin of `name` when it has one, else the sync method in a thread."""
    twin = getattr(store, f"a{name}", None)
    if twin is not None:
        return await twin(*args)
    return await asyncio.to_thread(getattr(store, name), *args)
