"""The broker's time source: when prompts open, how long they wait, when a front end was last seen.

`Clock` is real time. `FakeClock` is real time plus an offset a test moves by hand
(`clock.advance(3600)`): time keeps flowing, and a jump wakes every sleeper whose time has
come, as Playwright's `page.clock.fast_forward` does for a browser. A kernel test can so let an
hour pass in a second on both sides. Nothing here imports Jupyter.
"""

from __future__ import annotations

import asyncio
import time

from .._exceptions import ConfigurationError

__all__ = ["Clock", "FakeClock"]


class Clock:
    """Real time."""

    def time(self) -> float:
        """Seconds since the epoch (prompts' `requested_at` and their deadlines)."""
        return time.time()

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (when front ends were seen)."""
        return time.monotonic()

    def stamp(self, wall: float) -> float:
        """A time `time.time()` gave just now (e.g. an agent's `requested_at`), on this clock."""
        return wall

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` of this clock's time."""
        await asyncio.sleep(max(seconds, 0.0))


class FakeClock(Clock):
    """Real time moved forward by hand: `advance(seconds)` jumps, and time flows on from there.

    Call `advance` on the event loop's thread (a notebook cell, a test's coroutine).
    """

    def __init__(self) -> None:
        self.offset = 0.0
        """How far this clock is ahead of real time, in seconds."""
        self._wakers: set[asyncio.Future[None]] = set()

    def time(self) -> float:
        return time.time() + self.offset

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def stamp(self, wall: float) -> float:
        return wall + self.offset

    def advance(self, seconds: float) -> None:
        """Jump `seconds` ahead; every sleeper whose time has come wakes up."""
        if seconds < 0:
            raise ConfigurationError(f"a clock only moves forward, not by {seconds} s")
        self.offset += seconds
        for waker in list(self._wakers):
            _wake(waker)

    async def sleep(self, seconds: float) -> None:
        until = self.monotonic() + seconds
        loop = asyncio.get_running_loop()
        while (left := until - self.monotonic()) > 0:
            waker: asyncio.Future[None] = loop.create_future()
            self._wakers.add(waker)
            handle = loop.call_later(left, _wake, waker)
            try:
                await waker
            finally:
                handle.cancel()
                self._wakers.discard(waker)


def _wake(waker: asyncio.Future[None]) -> None:
    if not waker.done():
        waker.set_result(None)
