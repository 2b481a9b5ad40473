"""Waiting on readiness in tests: the condition decides, a generous ceiling only ends a hung run.

A test waits for what it needs (the port answers, the process printed its ready line, a file is
complete, the screen shows a line); how long that takes is never the pass condition. On this
kind of machine a two-worker server that starts in 6.9 s alone took 30.4 s at a load average of 10,
so a 30 s guess failed. `CEILING` (seconds; `NT_TEST_CEILING` in the environment changes it) is
only a safety net: when it is reached, the failure says what was awaited and shows the log.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

CEILING = float(os.environ.get("NT_TEST_CEILING", "300"))
"""Seconds before one wait gives up: minutes, so only a hang reaches it (pytest-timeout, 900 s, ends a whole test)."""


def wait_until(
    check: Callable[[], T],
    what: str,
    *,
    ceiling: float | None = None,
    poll: float = 0.05,
    alive: Callable[[], bool] | None = None,
    log: Callable[[], str] | None = None,
) -> T:
    """`check()`'s first truthy value, polled every `poll` s.

    Fails at once when `alive()` turns false (the process it waits on died), or after the
    ceiling, with `what` and the tail of `log()`.
    """
    limit = CEILING if ceiling is None else ceiling
    started = time.monotonic()
    while True:
        value = check()
        if value:
            return value
        gone = alive is not None and not alive()
        if gone or time.monotonic() - started > limit:
            why = "the process exited" if gone else f"still not after {limit:.0f} s (the safety ceiling)"
            said = log() if log is not None else ""
            raise AssertionError(
                f"waiting for {what}: {why}" + (f"\n--- its log ---\n{said[-4000:]}" if said else "")
            )
        time.sleep(poll)


async def until_async(
    check: Callable[[], object], what: str, *, ceiling: float | None = None, poll: float = 0.005
) -> None:
    """`wait_until` for a coroutine: polls without blocking the loop."""
    limit = CEILING if ceiling is None else ceiling
    loop = asyncio.get_running_loop()
    started = loop.time()
    while not check():
        if loop.time() - started > limit:
            raise AssertionError(f"waiting for {what}: still not after {limit:.0f} s (the safety ceiling)")
        await asyncio.sleep(poll)
