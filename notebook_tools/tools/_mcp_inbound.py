"""What an MCP server sends the client: notifications, elicitation and sampling requests.

`Inbound` is the half of `MCPServer` that answers the server: a `tools/list_changed` notification
calls `_tools_changed`; `elicitation/create` goes to `elicitation_handler` and
`sampling/createMessage` to `sampling_handler` (with no handler an elicitation is declined and
sampling refused). A handler answers with the MCP result as JSON, or `{"error": why, "code": n}`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["Inbound", "MCPHandler"]

log = logging.getLogger("notebook_tools")

MCPHandler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""(server name, request params as JSON) -> the MCP result as JSON (ElicitResult, CreateMessageResult)."""


class Inbound:
    """Answers what the server sends; `MCPServer` sets `name` and `_tools_changed`."""

    elicitation_handler: MCPHandler | None = None
    sampling_handler: MCPHandler | None = None

    @property
    def name(self) -> str:
        """The server's name (`MCPServer.name`)."""
        raise NotImplementedError

    def _tools_changed(self) -> None:
        raise NotImplementedError

    async def _on_message(self, message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if method == "notifications/tools/list_changed":
            self._tools_changed()

    async def _on_elicit(self, context: Any, params: Any) -> Any:
        from mcp import types

        answer = await self._ask(self.elicitation_handler, params, {"action": "decline"})
        if "error" in answer:
            return types.ErrorData(code=_code(answer, -32603), message=str(answer["error"])[:500])
        return types.ElicitResult.model_validate(answer)

    async def _on_sample(self, context: Any, params: Any) -> Any:
        from mcp import types

        refused = {"error": "sampling is not available from this client"}
        answer = await self._ask(self.sampling_handler, params, refused)
        if "error" in answer:
            return types.ErrorData(code=_code(answer, -32600), message=str(answer["error"])[:500])
        return types.CreateMessageResult.model_validate(answer)

    async def _ask(self, handler: MCPHandler | None, params: Any, default: dict[str, Any]) -> dict[str, Any]:
        if handler is None:
            return default
        try:
            return await handler(self.name, params.model_dump(mode="json", by_alias=True, exclude_none=True))
        except Exception as exc:
            log.warning("MCP handler for %s failed", self.name, exc_info=True)
            return {"error": f"the client could not answer: {type(exc).__name__}"}


def _code(answer: dict[str, Any], default: int) -> int:
    """The JSON-RPC error code a handler chose (-1: the person said no), else `default`."""
    code = answer.get("code")
    return code if isinstance(code, int) and not isinstance(code, bool) else default
