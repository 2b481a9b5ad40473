"""An MCP server's questions during a held run: frontend calls of the HTTP client, answered by ack.

A held run's `FrontendSession` answers its agent's MCP servers (see `prompts/_session.py`): an
elicitation (form or URL) or a sampling request a server sends while one of its tools runs opens
a prompt in the session's broker. `MCPAsks` registers each such prompt with the ack registry while
it is open and notes its id on the run, so the stream sends it as one `awaiting_frontend_acks`
element: `{tool_use_id, name, input, expires_at, output_schema, renderer}` (`input.server` and
`input.server_message` are the server's words, untrusted). The client answers with
`POST /api/tools/ack`: `success` with the form's content as JSON text in `output` (accept; as
every front end sends a form, checked against `output_schema`), `skipped`
(decline), `failed` (cancel); a URL card's `success` output is `{"url": <the url>, "via": "button"}`,
sent when the person clicked Open.
"""

from __future__ import annotations

from typing import Any

from ..events._events import PromptChanged
from ..events._prompt import Prompt
from ..prompts._broker import PromptBroker
from ._acks import AckRegistry

__all__ = ["MCPAsks", "ask_frame"]


class MCPAsks:
    """Keeps a held run's open MCP prompts in the ack registry; `ids` are the ones it saw."""

    def __init__(self, acks: AckRegistry, broker: PromptBroker) -> None:
        self.acks, self.broker = acks, broker
        self.ids: set[str] = set()
        self._open: set[str] = set()
        self._unsubscribe = broker.events.subscribe(self._on_event)

    def _on_event(self, event: Any) -> None:
        if not isinstance(event, PromptChanged):
            return
        prompt = event.prompt
        tool = self.broker.tools.get(prompt.name)
        if prompt.tool_use_id not in self.ids and (tool is None or tool.category != "mcp"):
            return
        self.ids.add(prompt.tool_use_id)
        if prompt.status == "pending" and prompt.tool_use_id not in self._open:
            self._open.add(prompt.tool_use_id)
            self.acks.add([prompt.tool_use_id], self.broker)
        elif prompt.status != "pending" and prompt.tool_use_id in self._open:
            self._open.discard(prompt.tool_use_id)
            self.acks.finish([prompt.tool_use_id], self.broker)

    def close(self) -> None:
        """The run ended: its prompts are no longer answered here."""
        self._unsubscribe()
        self.acks.finish(sorted(self._open), self.broker)
        self._open.clear()


def ask_frame(prompt: Prompt) -> dict[str, Any]:
    """An open MCP prompt as the stream's `awaiting_frontend_acks` shows it."""
    expires = None if prompt.timeout is None else prompt.requested_at + prompt.timeout
    return {
        "tool_use_id": prompt.tool_use_id,
        "name": prompt.name,
        "input": prompt.input,
        "expires_at": expires,
        "output_schema": prompt.output_schema,
        "renderer": prompt.renderer,
    }
