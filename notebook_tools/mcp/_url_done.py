"""URL elicitation completion: the server's word that the page it asked the person to open is done.

An accepted URL-mode elicitation (MCP 2025-11-25) names an `elicitationId`; the server may later
send `notifications/elicitation/complete` with it. `URLCompletions` knows which consent card shows
which elicitation and, when its completion arrives, updates that card through the broker (a
`PromptChanged` event the widget and the terminal show): its answer gains `URL_DONE`. An unknown
or repeated id, or one whose card was not accepted, changes nothing.
"""

from __future__ import annotations

import logging

from ..prompts._broker import PromptBroker

__all__ = ["URL_DONE", "URLCompletions"]

log = logging.getLogger("notebook_tools")

URL_DONE = "The server says the page is done."
_REMEMBERED = 200


class URLCompletions:
    """The accepted consent cards of URL elicitations by (server, elicitationId), and their completions."""

    def __init__(self, broker: PromptBroker) -> None:
        self.broker = broker
        self._cards: dict[tuple[str, str], str] = {}

    def track(self, server: str, elicitation_id: str, tool_use_id: str) -> None:
        """The card `tool_use_id` was accepted for this elicitation: its completion may come."""
        self._cards[(server, elicitation_id)] = tool_use_id
        while len(self._cards) > _REMEMBERED:
            self._cards.pop(next(iter(self._cards)))

    def completed(self, server: str, elicitation_id: str) -> None:
        """The server says the elicitation's page is done: its card shows so (once)."""
        tool_use_id = self._cards.pop((server, elicitation_id), None)
        prompt = self.broker.prompts.get(tool_use_id) if tool_use_id is not None else None
        if prompt is None or tool_use_id is None or prompt.status != "answered":
            log.info("notebook_tools: completion of an unknown URL elicitation from %s ignored", server)
            return
        self.broker._set(tool_use_id, answer=f"{prompt.answer}\n{URL_DONE}".strip())
