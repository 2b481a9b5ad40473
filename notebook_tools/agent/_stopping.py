"""What a Stop, a cancel or a shutdown does to a session: every open call closed, or left as saved.

A Stop or cancel at any await point of a run closes every open call with an "interrupted" result,
so the history stays one the API accepts and the next message carries on. Once the process is going
away (`detach`), a cancelled run leaves the session exactly as saved, to be resumed elsewhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .._exceptions import ToolResultError
from ..events._events import Status
from ..session import _transitions as tr
from ..session._state import RunResult, ToolResult
from ._writer import SessionWriter, closed_calls

__all__ = ["Stopping"]


class Stopping:
    """Runs a session's calls one at a time, and ends them cleanly when they are stopped.

    Args:
        writer: The session's writer.
    """

    def __init__(self, writer: SessionWriter) -> None:
        self.writer = writer
        self.detached = False
        """The process is going away: a cancelled run leaves the session as saved."""

    async def guarded(self, body: Callable[[], Awaitable[RunResult]]) -> RunResult:
        """Run `body` as the one call of this session; a Stop or cancel closes every open call."""
        writer = self.writer
        with writer.exclusive():
            try:
                return await body()
            except (asyncio.CancelledError, KeyboardInterrupt):
                if not self.detached:
                    previous = writer.state
                    closed = tr.interrupt(previous)
                    if closed is not previous:
                        await writer.commit(closed)
                        for event in closed_calls(previous, closed):
                            await writer.publish(event)
                    await writer.publish(Status(state="stopped", detail="interrupted"))
                raise
            except ToolResultError:
                raise  # refused before anything changed: nothing to report
            except BaseException as exc:
                await writer.publish(Status(state="error", detail=f"{type(exc).__name__}: {exc}"))
                raise

    def interrupt(self) -> None:
        """Stop the running call at its next await point (streaming stops at the next event)."""
        if self.writer.busy:
            self.writer.interrupted = True

    def cancel_pending(self, reason: str) -> list[ToolResult]:
        """Close every open call with an error result `reason`, saved; the results newly given."""
        writer = self.writer
        writer.refuse_while_busy("the agent is running; stop it first")
        state = writer.state
        before = {r.tool_use_id for r in state.held_results}
        closed = tr.interrupt(state, unanswered=reason, running=reason)
        if closed is state:
            return []
        writer.save_and_adopt(closed)
        for event in closed_calls(state, closed):
            writer.announce(event)
        blocks = closed.messages[-1]["content"]
        return [
            ToolResult(tool_use_id=b["tool_use_id"], content=b["content"], is_error=True)
            for b in blocks
            if b.get("type") == "tool_result" and b["tool_use_id"] not in before and b.get("is_error")
        ]
