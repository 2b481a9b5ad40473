"""Where a running backend call keeps its progress so it can pick up after a restart.

A backend call is saved before it runs and runs again, at least once, when a session carries on
after the kernel died. A tool that waits a long time (for a person, for a server) can save a
checkpoint on the way: `await nt.checkpoint().save({...})` writes it with the session at once, and
`nt.checkpoint().saved` is what the last run of the same call saved (None the first time), so a
run after a restart can continue where the last one stopped instead of starting over.

Outside a tool run by an agent (a tool called as a plain function, a run by hand) there is
nothing to keep: `saved` is None and `save` does nothing. A checkpoint is JSON; it is stored
in the session as given (keep secrets out of it).
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Awaitable, Callable
from typing import Any

from .._exceptions import ToolDefinitionError

__all__ = ["Checkpoint", "checkpoint", "checkpointing", "reset"]

Saver = Callable[[dict[str, Any] | None], Awaitable[None]]
_CURRENT: contextvars.ContextVar[Checkpoint | None] = contextvars.ContextVar("nt_checkpoint", default=None)


class Checkpoint:
    """The checkpoint of one running backend call.

    Args:
        tool_use_id: The call's id ("" outside an agent's call).
        saved: What an earlier run of this call saved (None: nothing).
        save: Writes a new checkpoint with the session (None: nowhere to keep it).
    """

    def __init__(self, tool_use_id: str, saved: dict[str, Any] | None = None, save: Saver | None = None):
        self.tool_use_id = tool_use_id
        self._saved = saved
        self._save = save

    @property
    def saved(self) -> dict[str, Any] | None:
        """The last checkpoint saved for this call (by this run or one before a restart), or None."""
        return json.loads(json.dumps(self._saved)) if self._saved is not None else None

    @property
    def kept(self) -> bool:
        """Whether a checkpoint saved now is kept with a session (False outside an agent's call)."""
        return self._save is not None

    async def save(self, data: dict[str, Any] | None) -> None:
        """Save `data` (a JSON object; None clears it) with the session before returning.

        Raises:
            ToolDefinitionError: `data` is not a JSON object.
        """
        if data is not None:
            try:
                text = json.dumps(data, allow_nan=False)
            except (TypeError, ValueError, RecursionError) as exc:  # (RecursionError: nested too deep)
                raise ToolDefinitionError(f"a checkpoint must be JSON: {exc}") from exc
            if not isinstance(data, dict):
                raise ToolDefinitionError("a checkpoint must be a JSON object")
            data = json.loads(text)  # a copy: later changes to the caller's dict are not saved
        self._saved = data
        if self._save is not None:
            await self._save(data)


def checkpoint() -> Checkpoint:
    """The checkpoint of the backend call being run (one that keeps nothing outside a call)."""
    return _CURRENT.get() or Checkpoint("")


def checkpointing(found: Checkpoint) -> contextvars.Token[Checkpoint | None]:
    """Make `found` the checkpoint of the code that runs next in this context (reset with the token)."""
    return _CURRENT.set(found)


def reset(token: contextvars.Token[Checkpoint | None]) -> None:
    """Undo `checkpointing`."""
    _CURRENT.reset(token)
