"""How long a prompt waits: for its answer, its author's timeout, or a front end that is gone.

A person-answered prompt has no timeout unless its author gave one, and a person with the
notebook open may take an hour. What ends a wait nobody can finish is a separate rule: once no
front end has counted as attached (seen within the broker's `frontend_ttl`) for `grace`
seconds, the prompt gets the no-frontend fallback, so a notebook run headless (nbval,
nbconvert, a closed tab) never waits forever. A timed-out prompt of a pause that still waits
for other answers stays answerable until the pause is done (`LateWindow`). Nothing here imports
Jupyter.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal

from .._exceptions import NoFrontendError
from ..session._state import PendingFrontendTool
from ._clock import Clock

__all__ = ["NO_FRONTEND_GRACE", "LateWindow", "before_waiting", "first_of", "until_answer"]

NO_FRONTEND_GRACE = 60.0
"""Seconds a prompt waits with no front end attached before the no-frontend fallback ends it."""

Outcome = Literal["answer", "timeout", "nobody"]


async def before_waiting(
    policy: str, attached: Callable[[], bool], pending: list[PendingFrontendTool], max_retries: int
) -> None:
    """The no-frontend policy when prompts open: "fail" raises `NoFrontendError`, "retry" backs off."""
    if attached() or policy not in ("fail", "retry"):
        return
    if policy == "fail":
        names = ", ".join(sorted({c.name for c in pending}))
        raise NoFrontendError(
            f"No front end is attached, so nobody can answer {names}. Show the chat (end a cell "
            "with `chat`), then `await chat.continue_turn()`; or use on_no_frontend='wait' or "
            "'fallback'."
        )
    for attempt in range(max_retries):
        if attached():
            break
        await asyncio.sleep(0.5 * 2**attempt)


async def first_of(future: asyncio.Future[Any], other: Awaitable[Any]) -> None:
    """Wait until `future` is done or `other` finishes (`other` is cancelled if it has not)."""
    waiter = asyncio.ensure_future(other)
    try:
        await asyncio.wait({future, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()


async def until_answer(
    future: asyncio.Future[Any],
    clock: Clock,
    *,
    opened: float,
    deadline: float | None,
    last_seen: Callable[[], float],
    ttl: float,
    grace: float | None,
) -> Outcome:
    """Wait for `future` (an answer), the `deadline` (on `clock.time()`), or nobody there for `grace` s.

    `opened` is when the prompt opened (on `clock.time()`); `last_seen()` is when a front end was
    last seen (`clock.monotonic()`, -inf for never), and one counts as attached for `ttl` seconds
    after that. The grace counts from the later of the two.
    """
    started = clock.monotonic() - max(0.0, clock.time() - opened)  # when it opened, on the monotonic clock
    while not future.done():
        delays: list[float] = []
        if deadline is not None:
            left = deadline - clock.time()
            if left <= 0:
                return "timeout"
            delays.append(left)
        now = clock.monotonic()
        gone_at = last_seen() + ttl  # when the last front end stops counting as attached
        if now < gone_at:
            delays.append(gone_at - now)
        elif grace is not None:
            left = max(gone_at, started) + grace - now
            if left <= 0:
                return "nobody"
            delays.append(left)
        finite = [d for d in delays if math.isfinite(d)]
        if finite:
            await first_of(future, clock.sleep(min(finite)))
        else:
            await asyncio.wait({future})
    return "answer"


class LateWindow:
    """The calls of one pause: while any of them still waits, a timed-out one may be answered late.

    The turn moves on (the model is told what happened) only when every call of the pause is
    answered or past its timeout; until then a late answer still counts.
    """

    def __init__(self, tool_use_ids: Iterable[str]) -> None:
        self._open = set(tool_use_ids)
        self.closed = asyncio.Event()
        """Set once no call of the pause waits any more: a timed-out call's timeout then stands."""
        if not self._open:
            self.closed.set()

    def done(self, tool_use_id: str) -> None:
        """This call no longer holds the pause open (answered, or past its timeout)."""
        self._open.discard(tool_use_id)
        if not self._open:
            self.closed.set()
