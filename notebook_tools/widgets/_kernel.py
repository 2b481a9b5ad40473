"""What the chat needs to know about the kernel it runs in: its loop, its version, its shutdown.

ipykernel sets the shell's `exit_now` on a shutdown request (restart included) before it
stops the event loop and running turns are cancelled; chats watch it so a restart is not
taken for a Stop. Before 7.4 an awaiting cell cannot receive a widget's answer.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
import weakref
from collections.abc import Callable
from typing import Any

from .._exceptions import WidgetError

__all__ = ["check_kernel_can_await", "current_loop", "current_shell", "in_loop", "watch_shutdown"]

_DETACH: weakref.WeakKeyDictionary[Any, Callable[[], None]] = weakref.WeakKeyDictionary()
_WATCHED_SHELLS: set[int] = set()


def current_shell() -> Any:
    """The running IPython shell (None in plain Python; IPython is never imported here)."""
    ipython = sys.modules.get("IPython")
    return None if ipython is None else ipython.get_ipython()


def watch_shutdown(owner: Any, detach: Callable[[], None]) -> None:
    """Call `detach` when the kernel shuts down or restarts (while `owner` lives)."""
    _DETACH[owner] = detach
    shell = current_shell()
    if shell is None or not hasattr(shell, "observe") or id(shell) in _WATCHED_SHELLS:
        return
    _WATCHED_SHELLS.add(id(shell))

    def exiting(change: dict[str, Any]) -> None:
        if change.get("new"):
            for callback in list(_DETACH.values()):
                callback()

    shell.observe(exiting, names="exit_now")


def current_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop: in a Jupyter kernel, cell code runs while the kernel's loop runs."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def check_kernel_can_await() -> None:
    """Refuse `await chat.send` where it would deadlock (ipykernel before 7.4)."""
    if "ipykernel" not in sys.modules:
        return
    installed = importlib.metadata.version("ipykernel")
    version = tuple(int(p) for p in installed.split(".")[:2] if p.isdigit())
    if version < (7, 4):
        raise WidgetError(
            f"`await chat.send(...)` would deadlock on ipykernel {installed}: the widget's answers "
            "cannot reach a cell that is awaiting. Use `chat.send_nowait(...)` (or type into the widget), or "
            "upgrade to ipykernel >= 7.4."
        )


def in_loop(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., None], *args: Any) -> None:
    """Run `fn` on `loop`'s thread (now, if this is that thread or the loop is not running)."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if loop is None or loop.is_closed() or running is loop or not loop.is_running():
        fn(*args)
    else:
        loop.call_soon_threadsafe(fn, *args)
