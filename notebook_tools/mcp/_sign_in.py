"""An MCP server's sign-in (OAuth) as a broker prompt: the URL consent card, asking to sign in.

When a server over streamable HTTP wants OAuth, the client asks the person first
(`MCPServer.authorization_handler`, see `mcp/_auth.py`). `MCPSignIn` is that handler for a
front end: the same card as a URL elicitation (`nt.open_url` in consent mode) naming the sign-in
page's host; the page opens on the person's click only (the kernel refuses any ack but the click's,
for the very URL asked), and Skip is a decline. A timeout, Stop or no front end is a cancel, never
an accept. The sign-in then comes back to the kernel's loopback listener, not to this card.
"""

from __future__ import annotations

from typing import Any

from ..prompts._broker import PromptBroker
from ._elicitation import MCPElicitation, web_page

__all__ = ["SIGN_IN_QUESTION", "MCPSignIn"]

SIGN_IN_QUESTION = "An MCP server asks you to sign in"
SIGN_IN_NOTE = (
    "Sign in so the agent can use this server's tools. Open shows the sign-in page in a new tab; "
    "when you are done there it hands the sign-in back to this notebook's kernel."
)


class MCPSignIn:
    """Answers `MCPServer.authorization_handler` through a broker's prompts.

    Args:
        broker: The broker whose front ends show the card (a `FrontendSession`'s).
        timeout: Seconds the card waits before it is cancelled (None: the broker's policies only).
    """

    def __init__(self, broker: PromptBroker, *, timeout: float | None = None) -> None:
        self.broker = broker
        self._prompts = MCPElicitation(broker, timeout=timeout)  # its prompt lifecycle: Stop, no front end

    async def __call__(self, server: str, params: dict[str, Any]) -> dict[str, Any]:
        """`{"action": "accept"}` once the person opened the sign-in page; else decline or cancel."""
        url = params.get("url")
        if not web_page(url):
            return {"action": "cancel"}  # not a page anybody should be sent to (or one read two ways)
        assert isinstance(url, str)
        result = await self._prompts.consent(server, "sign_in", SIGN_IN_QUESTION, url, SIGN_IN_NOTE)
        return {"action": "accept"} if not result.is_error else self._prompts._refusal(result)
