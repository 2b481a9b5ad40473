"""What an MCP server sends the client: notifications, elicitation and sampling requests.

`Inbound` is the half of `MCPServer` that answers the server: a `tools/list_changed` notification
calls `_tools_changed`; `elicitation/create` goes to `elicitation_handler` and
`sampling/createMessage` to `sampling_handler` (with no handler an elicitation is declined and
sampling refused). A handler answers with the MCP result as JSON, or `{"error": why, "code": n}`.

URL elicitations (MCP 2025-11-25): an accepted one with an `elicitationId` waits for the server's
`notifications/elicitation/complete`, which is passed to `completion_handler` (so its card says
the page is done); an unknown or repeated id is ignored. A tool call refused with -32042 (URL
elicitation required) asks for each of the error's URL elicitations and, once every one is
accepted and completed (or `url_completion_wait` seconds passed), is retried once; a refusal is
the call's error result, never a hang.

A server asks (elicitation, sampling) only while one of its tool calls is in progress: a request
that arrives when none is (after its call ended, or with no call at all) is refused with an MCP error
saying so, and no prompt opens. A person is asked on behalf of a call they can see, never out of the
blue by a server that is merely connected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .._exceptions import MCPServerError

__all__ = ["URL_ELICITATION_REQUIRED", "Inbound", "MCPCompletion", "MCPHandler", "url_elicitations"]

log = logging.getLogger("notebook_tools")

MCPHandler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""(server name, request params as JSON) -> the MCP result as JSON (ElicitResult, CreateMessageResult)."""
MCPCompletion = Callable[[str, str], None]
"""(server name, elicitationId): the server says that URL elicitation's page is done."""
URL_ELICITATION_REQUIRED = -32042
_REMEMBERED = 100  # accepted URL elicitations whose completion is still awaited, per server
_ASKED_AT_MOST = 5  # URL elicitations asked for one -32042 error
_NOT_RUN = ", so the call did not run."
INVALID_REQUEST = -32600
_NO_CALL = (
    "{} outside a tool call is refused: this client asks its person only while one of the server's tools runs"
)


def url_elicitations(exc: BaseException) -> list[dict[str, Any]] | None:
    """The URL elicitations a -32042 error asks for (None for any other failure, or an empty list)."""
    cause = exc.__cause__ if isinstance(exc, MCPServerError) else exc
    if getattr(cause, "code", None) != URL_ELICITATION_REQUIRED:
        return None
    data = getattr(cause, "data", None)
    found = data.get("elicitations") if isinstance(data, dict) else None
    asked = [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []
    return asked or None


class Inbound:
    """Answers what the server sends; `MCPServer` sets `name`, `_tools_changed` and `call_tool`."""

    elicitation_handler: MCPHandler | None = None
    sampling_handler: MCPHandler | None = None
    completion_handler: MCPCompletion | None = None
    url_completion_wait: float = 60.0
    """Seconds a call refused with -32042 waits for its URL elicitations' completion before its retry."""
    _calls = 0  # its tool calls in progress (`MCPServer.call_tool` counts them)

    @property
    def name(self) -> str:
        """The server's name (`MCPServer.name`)."""
        raise NotImplementedError

    def _tools_changed(self) -> None:
        raise NotImplementedError

    async def call_tool(self, name: str, arguments: dict[str, Any], progress: Any = None) -> dict[str, Any]:
        """Call a tool (`MCPServer.call_tool`)."""
        raise NotImplementedError

    async def call_tool_or_ask(
        self, name: str, arguments: dict[str, Any], progress: Any = None
    ) -> dict[str, Any]:
        """`call_tool`; refused with -32042, the pages are asked for first, then it is retried once."""
        try:
            return await self.call_tool(name, arguments, progress)
        except MCPServerError as exc:
            needed = url_elicitations(exc)
            if needed is None:
                raise
        why = await self._prerequisites(needed)
        if why:
            return {"content": [{"type": "text", "text": why}], "isError": True}
        return await self.call_tool(name, arguments, progress)

    async def _prerequisites(self, elicitations: list[dict[str, Any]]) -> str:
        """Ask for each page; "" once all were accepted (and completed, or the wait ended), else why not."""
        from mcp import types
        from pydantic import ValidationError

        done: list[asyncio.Event] = []
        for raw in elicitations[:_ASKED_AT_MOST]:
            try:
                params = types.ElicitRequestURLParams.model_validate(raw)
            except ValidationError:
                return f"The MCP server asked for a page in a malformed URL elicitation{_NOT_RUN}"
            answer = await self._ask(self.elicitation_handler, params, {"action": "cancel"})  # nobody asked
            if "error" in answer:
                return f"The MCP server's page request was refused ({str(answer['error'])[:300]}){_NOT_RUN}"
            if answer.get("action") == "decline":
                return f"The person declined to open the page the MCP server asked for{_NOT_RUN}"
            if answer.get("action") != "accept":
                return f"Nobody opened the page the MCP server asked for (no answer, or Stop){_NOT_RUN}"
            if params.elicitation_id in self._awaited():
                done.append(self._awaited()[params.elicitation_id])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in done)), self.url_completion_wait)
        return ""

    def _awaited(self) -> dict[str, asyncio.Event]:
        """Accepted URL elicitations by elicitationId, set when the server says each is complete."""
        awaited: dict[str, asyncio.Event] = self.__dict__.setdefault("_url_elicitations", {})
        return awaited

    def _completed(self, elicitation_id: object) -> None:
        event = self._awaited().pop(elicitation_id, None) if isinstance(elicitation_id, str) else None
        if event is None or not isinstance(elicitation_id, str):  # unknown, declined or completed before
            log.info("MCP server %s: completion of an unknown elicitation ignored", self.name)
            return
        event.set()
        if self.completion_handler is not None:
            try:
                self.completion_handler(self.name, elicitation_id)
            except Exception:
                log.warning("MCP completion handler for %s failed", self.name, exc_info=True)

    # What its apps ask goes through a chat's `MCPAppHost` (`app_host`); a cassette's server keeps it.
    app_host: Any = None

    def app_request_started(self, tool_use_id: str, method: str, params: dict[str, Any]) -> Any:
        """An app's request is being answered (a token for `app_request_done`)."""

    def app_request_done(self, kept: Any, reply: dict[str, Any]) -> None:
        """It was answered with `reply`."""

    async def _on_message(self, message: Any) -> None:
        message = getattr(message, "root", message)
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed":
            self._tools_changed()
        elif method == "notifications/elicitation/complete":
            self._completed(getattr(getattr(message, "params", None), "elicitation_id", None))

    async def _on_elicit(self, context: Any, params: Any) -> Any:
        from mcp import types

        if not self._calls:
            log.warning("MCP server %s asked for input with no call in progress: refused", self.name)
            return types.ErrorData(code=INVALID_REQUEST, message=_NO_CALL.format("Elicitation"))
        answer = await self._ask(self.elicitation_handler, params, {"action": "decline"})
        if "error" in answer:
            return types.ErrorData(code=_code(answer, -32603), message=str(answer["error"])[:500])
        return types.ElicitResult.model_validate(answer)

    async def _on_sample(self, context: Any, params: Any) -> Any:
        from mcp import types

        if not self._calls:
            log.warning("MCP server %s asked to sample with no call in progress: refused", self.name)
            return types.ErrorData(code=INVALID_REQUEST, message=_NO_CALL.format("Sampling"))
        refused = {"error": "sampling is not available from this client"}
        answer = await self._ask(self.sampling_handler, params, refused)
        if "error" in answer:
            return types.ErrorData(code=_code(answer, -32600), message=str(answer["error"])[:500])
        return types.CreateMessageResult.model_validate(answer)

    async def _ask(self, handler: MCPHandler | None, params: Any, default: dict[str, Any]) -> dict[str, Any]:
        if handler is None:
            return default
        try:
            asked = params.model_dump(mode="json", by_alias=True, exclude_none=True)
            answer = await handler(self.name, asked)
        except Exception as exc:
            log.warning("MCP handler for %s failed", self.name, exc_info=True)
            return {"error": f"the client could not answer: {type(exc).__name__}"}
        eid = getattr(params, "elicitation_id", None) if getattr(params, "mode", None) == "url" else None
        if isinstance(eid, str) and answer.get("action") == "accept":  # its completion may come later
            awaited = self._awaited()
            awaited[eid] = asyncio.Event()
            while len(awaited) > _REMEMBERED:
                awaited.pop(next(iter(awaited)))
        return answer


def _code(answer: dict[str, Any], default: int) -> int:
    """The JSON-RPC error code a handler chose (-1: the person said no), else `default`."""
    code = answer.get("code")
    return code if isinstance(code, int) and not isinstance(code, bool) else default
