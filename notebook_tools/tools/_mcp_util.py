"""Small helpers of the MCP client: where a server's stderr goes, and how a failure is told."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

__all__ = ["errlog", "is_disconnect", "why"]


def errlog() -> Any:
    """Where a stdio server's stderr goes: a real file (a kernel's `sys.stderr` may have no fileno)."""
    for stream in (sys.stderr, sys.__stderr__):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream is not None and stream.fileno() >= 0:
                return stream
    return open(os.devnull, "w")  # lives as long as the child


def why(exc: BaseException) -> str:
    """A failure in one line (each of an exception group's)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(why(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"[:300]


def is_disconnect(exc: BaseException) -> bool:
    """Whether a failed request means the connection is gone."""
    text = why(exc).lower()
    return any(word in text for word in ("closed", "connection", "broken", "eof", "terminated"))
