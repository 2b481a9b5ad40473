"""Whether a request's client is gone, asked by another request: a client that aborts and asks again at once.

A client that aborts a run (the official AG-UI client's `abortRun`) and sends its next message at
once may be heard before the aborted run's stream noticed the closed connection: the new request
would find the thread busy and be refused, and the aborted run would end only later. Each guarded
endpoint records how to ask whether its own client is still there (`watching`); a run keeps its
request's (`asker`), so a request that finds the thread busy asks the running run's client
(`left`) and, when it is gone, stops that run as its stream would have, then goes on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar

from starlette.requests import Request

__all__ = ["Asker", "asker", "left", "watching"]

Asker = Callable[[], Awaitable[bool]]
"""Answers whether a request's client has gone (its connection closed)."""

_ASKER: ContextVar[Asker | None] = ContextVar("notebook_tools_client_left", default=None)


@contextlib.contextmanager
def watching(request: Request) -> Iterator[None]:
    """While answering `request`: a run started here keeps how to ask whether its client left."""
    token = _ASKER.set(request.is_disconnected)
    try:
        yield
    finally:
        _ASKER.reset(token)  # (a caller that runs apps in its own task keeps no request of ours)


def asker() -> Asker | None:
    """How to ask whether the client of the request being answered has gone (None outside one)."""
    return _ASKER.get()


async def left(ask: Asker | None) -> bool:
    """Whether the client `ask` belongs to has gone; False when it cannot be told."""
    if ask is None:
        return False
    try:
        return await ask()
    except Exception:  # (a server that cannot say: the run is treated as its client's still)
        return False
