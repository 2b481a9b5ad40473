"""An MCP server's questions (and a kernel toolset's consent cards) during a held run, answered by ack.

A held run's `FrontendSession` answers its agent's MCP servers (see `frontend/_session.py`): an
elicitation (form or URL) or a sampling request a server sends while one of its tools runs opens
a prompt in the session's broker. `MCPAsks` registers each such prompt with the ack registry while
it is open, and its holder in the store (so an ack posted to any worker reaches it), and the stream
sends it as one `awaiting_frontend_acks` element only once it is held:
`{tool_use_id, name, input, expires_at, output_schema, renderer}` (`input.server` and
`input.server_message` are the server's words, untrusted). A prompt's own id is unique only
within its session (the same question gets the same id in every session, so a cassette replays
it), so clients know it as `<prompt id>.<session>`. The client answers with
`POST /api/tools/ack`: `success` with the form's content as JSON text in `output` (accept; as
every front end sends a form, checked against `output_schema`), `skipped`
(decline), `failed` (cancel); a URL card's `success` output is `{"url": <the url>, "via": "button"}`,
sent when the person clicked Open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from ..events._events import PromptChanged
from ..events._prompt import Prompt
from ..prompts._broker import PromptBroker
from ._acks import AckRegistry

__all__ = ["ASKED_IN_CALLS", "MCPAsks", "ask_frame"]

ASKED_IN_CALLS = frozenset({"mcp", "kernel"})
"""Categories of the prompts a running call opens: an MCP server's questions, the kernel toolset's
consent cards (see `prompts.InCallPrompts`)."""


class MCPAsks:
    """Keeps a held run's open MCP prompts in the ack registry; `ids` are the ones it saw.

    Args:
        acks: This worker's open frontend calls.
        broker: The run's session's prompts.
        session: The run's session (its agent's uuid), which makes the prompts' ids unique.
        hold: Puts ids clients know on record for every worker; awaited in a task of its own.
    """

    def __init__(
        self,
        acks: AckRegistry,
        broker: PromptBroker,
        session: str,
        hold: Callable[[list[str]], Coroutine[Any, Any, None]],
    ) -> None:
        self.acks, self.broker, self.session, self._hold = acks, broker, session, hold
        self.ids: set[str] = set()
        self._open: set[str] = set()
        self._holding: set[asyncio.Task[None]] = set()
        self._unsubscribe = broker.events.subscribe(self._on_event)

    def public_id(self, tool_use_id: str) -> str:
        """The id clients know a prompt by: unique across sessions, the same each time it is shown."""
        return f"{tool_use_id}.{self.session}"

    def _on_event(self, event: Any) -> None:
        if not isinstance(event, PromptChanged):
            return
        prompt = event.prompt
        tool = self.broker.tools.get(prompt.name)
        if prompt.tool_use_id not in self.ids and (tool is None or tool.category not in ASKED_IN_CALLS):
            return
        self.ids.add(prompt.tool_use_id)
        public = self.public_id(prompt.tool_use_id)
        if prompt.status == "pending" and prompt.tool_use_id not in self._open:
            self._open.add(prompt.tool_use_id)
            self.acks.add([public], self.broker, {public: prompt.tool_use_id})
            task = asyncio.get_running_loop().create_task(self._hold([public]))
            self._holding.add(task)
            task.add_done_callback(self._holding.discard)
        elif prompt.status != "pending" and prompt.tool_use_id in self._open:
            self._open.discard(prompt.tool_use_id)
            self.acks.finish([public], self.broker)

    def close(self) -> None:
        """The run ended: its prompts are no longer answered here."""
        self._unsubscribe()
        self.acks.finish(sorted(self.public_id(i) for i in self._open), self.broker)
        self._open.clear()


def ask_frame(prompt: Prompt, public_id: str) -> dict[str, Any]:
    """An open MCP prompt as the stream's `awaiting_frontend_acks` shows it (known by `public_id`)."""
    expires = None if prompt.timeout is None else prompt.requested_at + prompt.timeout
    return {
        "tool_use_id": public_id,
        "name": prompt.name,
        "input": prompt.input,
        "expires_at": expires,
        "output_schema": prompt.output_schema,
        "renderer": prompt.renderer,
    }
