"""The task a turn runs in: SIGINT while it awaits, a first step never awaited, a background failure.

Measured on ipykernel 7.4: SIGINT does not interrupt a cell that sits in `await`, so while a turn
awaits, the loop itself handles SIGINT by stopping the turn; the previous handler comes back after.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from ..session._state import RunResult

__all__ = ["SIGINT_GRACE", "close_unawaited", "done", "log_task_error", "stop_on_sigint"]

log = logging.getLogger("notebook_tools")

SIGINT_GRACE = 0.5
"""Seconds between SIGINT and the Stop it causes (a restart's shutdown request comes in between)."""


def stop_on_sigint(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> Callable[[], None]:
    """Make SIGINT (a kernel's ■ button, Ctrl+C) stop an awaiting turn; returns the undo.

    Measured on ipykernel 7.4: SIGINT does not interrupt a cell that sits in `await`, so while a
    turn awaits, the loop itself handles SIGINT by stopping the turn; the previous handler
    (KeyboardInterrupt for synchronous code) comes back when the turn ends.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    later: list[asyncio.TimerHandle] = []

    def on_sigint() -> None:
        # JupyterLab's restart sends SIGINT just before its shutdown request: wait a moment, so a
        # restart is seen as one (the chat detaches) and not taken for a Stop.
        later.append(loop.call_later(SIGINT_GRACE, stop))

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # not on Unix, or not the main thread's loop
        return lambda: None

    def restore() -> None:
        for handle in later:
            handle.cancel()
        loop.remove_signal_handler(signal.SIGINT)
        if previous is not None:  # None: a handler not set from Python, left as remove_signal_handler left it
            signal.signal(signal.SIGINT, previous)

    return restore


async def done(result: RunResult) -> RunResult:
    """A turn's first step that is already done (a pause restored from the store)."""
    return result


def close_unawaited(awaitable: Awaitable[Any]) -> None:
    """Close a turn's first step that will never be awaited (the turn was refused)."""
    if asyncio.iscoroutine(awaitable):
        awaitable.close()  # never awaited: close it so Python does not warn


def log_task_error(task: asyncio.Task[RunResult]) -> None:
    """Log the failure of a background turn (nobody awaits its task).

    At INFO: the front end already showed it (`on_error`), and a WARNING with no logging set up
    would print its traceback to stderr, in whichever cell ran last.
    """
    if not task.cancelled() and task.exception() is not None:
        log.info("notebook_tools: background turn failed", exc_info=task.exception())
