"""Questions asked while a call runs: a prompt opened from inside a tool, answered like any other.

A running tool (an MCP server's elicitation, the kernel toolset's consent card) may need the person
before it can finish. `InCallPrompts.ask` opens one prompt of the session's broker and waits for its
answer, so the widget, the terminal and the HTTP server show it alike and a reloaded page shows it
again. Stop closes every open prompt: the question then ends as an error result ("stopped"), never
as an answer; no front end under the "fail" policy is an error result too.

The front end's session installs one for its agent; a backend tool finds it with `in_call_prompts()`
(None when nobody can be asked: an agent driven from code without a front end).
"""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

from .._exceptions import NoFrontendError
from ..events._prompt import PromptKind
from ..session._state import PendingFrontendTool, ToolResult
from ..tools._tool import Tool
from ._broker import PromptBroker

__all__ = ["InCallPrompts", "asking", "in_call_prompts", "reset"]

_CURRENT: contextvars.ContextVar[InCallPrompts | None] = contextvars.ContextVar("nt_in_call", default=None)


class InCallPrompts:
    """Opens prompts of `broker` from inside a running call.

    Args:
        broker: The session's broker (its front ends show the prompts).
        timeout: Seconds a prompt waits before it ends as timed out (None: the broker's policies only).
    """

    def __init__(self, broker: PromptBroker, *, timeout: float | None = None) -> None:
        self.broker = broker
        self.timeout = timeout
        self.asking: set[str] = set()
        """Ids of prompts being asked (a prompt joins the broker's prompts when it opens)."""

    async def ask(
        self, tool: Tool, arguments: dict[str, Any], prompt_id: str, kind: PromptKind | None = None
    ) -> ToolResult:
        """Open a prompt of `tool` (a frontend tool, known to the broker for this prompt only) and wait.

        `kind` "approval" opens an approval card of the call (`arguments` are what it will run);
        None, the tool's own card. Returns the answer as a result; an error result when it was
        stopped ("stopped"), timed out, skipped, or nobody can answer it.
        """
        own = self.broker.tools.maps[0]
        own[tool.name] = tool
        call = PendingFrontendTool(
            tool_use_id=prompt_id, name=tool.name, input=arguments, timeout=self.timeout
        )
        self.asking.add(prompt_id)
        stopped = asyncio.Event()  # Stop closes every open prompt: this question ends unanswered

        def on_event(event: Any) -> None:
            prompt = getattr(event, "prompt", None)
            if prompt is not None and prompt.tool_use_id == prompt_id and prompt.status == "cancelled":
                stopped.set()

        unsubscribe = self.broker.events.subscribe(on_event)
        answered = asyncio.ensure_future(self.broker.collect([call], kind=kind))
        watching = asyncio.ensure_future(stopped.wait())
        try:
            await asyncio.wait([answered, watching], return_when=asyncio.FIRST_COMPLETED)
            if not answered.done():
                answered.cancel()
                return ToolResult(tool_use_id=prompt_id, content="stopped", is_error=True)
            [result] = answered.result()
            return result
        except NoFrontendError as exc:  # the "fail" policy: nobody can answer
            self.close(prompt_id, "failed")
            return ToolResult(tool_use_id=prompt_id, content=str(exc), is_error=True)
        except asyncio.CancelledError:  # the call was given up, or the chat stopped
            answered.cancel()
            self.close(prompt_id, "cancelled")
            raise
        finally:
            watching.cancel()
            unsubscribe()
            own.pop(tool.name, None)
            self.asking.discard(prompt_id)

    def close(self, prompt_id: str, status: str) -> None:
        """End an open prompt without an answer (its card shows `status`)."""
        prompt = self.broker.prompts.get(prompt_id)
        if prompt is not None and prompt.status == "pending":
            self.broker._set(prompt_id, status=status)


def in_call_prompts() -> InCallPrompts | None:
    """Who can be asked during the running call (None: nobody, e.g. no front end is attached)."""
    return _CURRENT.get()


def asking(prompts: InCallPrompts | None) -> contextvars.Token[InCallPrompts | None]:
    """Make `prompts` the running call's (undo with `reset`)."""
    return _CURRENT.set(prompts)


def reset(token: contextvars.Token[InCallPrompts | None]) -> None:
    """Undo `asking`."""
    _CURRENT.reset(token)
