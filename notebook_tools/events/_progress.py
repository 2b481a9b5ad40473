"""What a running backend tool reports while it works: progress, named steps, partial results.

Inside a tool, `nt.reporter()` returns the reporter of the call being run (a no-op outside a tool,
so a tool runs the same when called as a plain function). Its reports become `ToolProgress`,
`ToolStep` and `ToolResultPreview` events, shown by the Chat, the terminal and the tool bench.
Sync tools run in a worker thread: reports are handed to the event loop thread-safely.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import math
from collections.abc import Callable
from typing import Any

from ._events import ToolProgress, ToolResultPreview, ToolStep, _Event

__all__ = ["Reporter", "reporter"]

log = logging.getLogger("notebook_tools")

_PREVIEW_CHARS = 2_000
_CURRENT: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar("nt_reporter", default=None)


class Reporter:
    """The reports of one running call. Every method is safe to call from any thread, never raises."""

    def __init__(self, tool_use_id: str, emit: Callable[[_Event], None] | None = None) -> None:
        self.tool_use_id = tool_use_id
        self._emit = emit
        self._loop: asyncio.AbstractEventLoop | None = None
        if emit is not None:
            try:
                self._loop = asyncio.get_running_loop()
            except RuntimeError:
                self._loop = None

    def _send(self, event: _Event) -> None:
        if self._emit is None:
            return
        try:
            running = None
            with contextlib.suppress(RuntimeError):
                running = asyncio.get_running_loop()
            if self._loop is not None and running is not self._loop:
                self._loop.call_soon_threadsafe(self._emit, event)  # from a worker thread
            else:
                self._emit(event)
        except Exception:  # a report must never break the tool
            log.debug("a progress report was dropped", exc_info=True)

    def progress(self, fraction: float | None = None, message: str = "") -> None:
        """How far along the call is: `fraction` 0.0-1.0 (None: unknown), and what it is doing."""
        if fraction is not None:
            fraction = min(max(float(fraction), 0.0), 1.0) if math.isfinite(float(fraction)) else None
        self._send(ToolProgress(tool_use_id=self.tool_use_id, progress=fraction, message=str(message)[:500]))

    def step(self, name: str, **data: Any) -> None:
        """A named step, with data such as `urls_scraped=3, urls_total=5`."""
        self._send(ToolStep(tool_use_id=self.tool_use_id, step=str(name)[:200], data=_jsonable(data)))

    def preview(self, partial: Any) -> None:
        """A partial result (its text form, cut to 2,000 characters)."""
        text = partial if isinstance(partial, str) else repr(partial)
        self._send(ToolResultPreview(tool_use_id=self.tool_use_id, preview=text[:_PREVIEW_CHARS]))


def _jsonable(data: dict[str, Any]) -> dict[str, Any]:
    import json

    out = {}
    for key, value in list(data.items())[:50]:
        try:
            json.dumps(value, allow_nan=False)
            out[str(key)[:100]] = value
        except (TypeError, ValueError):
            out[str(key)[:100]] = repr(value)[:200]
    return out


def reporter() -> Reporter:
    """The reporter of the backend call being run (a reporter that drops everything outside a tool)."""
    return _CURRENT.get() or Reporter("")


def reporting(found: Reporter) -> contextvars.Token[Reporter | None]:
    """Make `found` the reporter of the code that runs next in this context (reset with the token)."""
    return _CURRENT.set(found)


def reset(token: contextvars.Token[Reporter | None]) -> None:
    """Undo `reporting`."""
    _CURRENT.reset(token)
