"""Multi-round-trip tool calls (MCP 2026-07-28, SEP-2322): a server that answers `input_required`.

On 2026-07-28 a server asks its questions inside the result: an `InputRequiredResult` with
`input_requests` (elicitation, sampling, roots) and an opaque `request_state`. The client answers
every request and calls the tool again with the answers and the state, echoed byte for byte and
never read, until the real result comes, for at most `MAX_ROUNDS` rounds (a state-only round waits
first, 50 ms doubling to 250 ms, as the SDK's own driver does). Elicitation goes to the server's
`elicitation_handler`, sampling to its `sampling_handler`, roots are an empty list (this client
offers none); a request refused or not understood ends the call with an `MCPServerError` naming
the server.

The round being waited on is saved with the session (`nt.checkpoint()`): `{"mcp": {"server",
"tool", "arguments", "request_state", "input_requests"}}`. `request_state` is kept exactly as the
server gave it (whatever the server chose to put in it, sealed or not); nothing of ours is added.
When the call runs again after a restart, the saved questions are asked again and the tool is
called with the saved state on the new connection, instead of starting over; a server that no
longer accepts that state gets the call from the start.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .._exceptions import MCPServerError
from ..tools._checkpoint import Checkpoint, checkpoint
from ._border import MCPHandler

__all__ = ["MAX_ROUNDS", "call_in_rounds"]

log = logging.getLogger("notebook_tools")

MAX_ROUNDS = 10
_FIRST_WAIT, _LONGEST_WAIT = 0.05, 0.25
_SAMPLING_REFUSED = {"error": "sampling is not available from this client"}

Send = Callable[[Any, str | None], Awaitable[Any]]
"""(input responses or None, request_state or None) -> the server's result (or `InputRequiredResult`)."""


class Asking(Protocol):
    """What the rounds need of a server: its name and who answers its questions."""

    elicitation_handler: MCPHandler | None
    sampling_handler: MCPHandler | None

    @property
    def name(self) -> str: ...

    async def _ask(
        self, handler: MCPHandler | None, params: Any, default: dict[str, Any]
    ) -> dict[str, Any]: ...


async def call_in_rounds(server: Asking, name: str, arguments: dict[str, Any], send: Send) -> Any:
    """Call tool `name` through `send`, answering every `input_required` round: the final result.

    Raises:
        MCPServerError: A request could not be answered, or the server asked past `MAX_ROUNDS`.
    """
    from mcp.shared.exceptions import MCPError
    from mcp.types import InputRequiredResult

    kept = checkpoint()
    result: Any = None
    resumed = _saved_round(kept, server.name, name, arguments)
    if resumed is not None:
        requests, state = resumed
        try:
            result = await send(await _answer_all(server, requests), state)
        except MCPError as exc:  # the state expired, or this server cannot open it: start over
            log.info(
                "MCP server %s refused the saved round of %s (%s); calling again", server.name, name, exc
            )
            result = None
    if result is None:
        result = await send(None, None)
    rounds, wait = 0, _FIRST_WAIT
    while isinstance(result, InputRequiredResult):
        rounds += 1
        if rounds > MAX_ROUNDS:
            raise MCPServerError(
                f"MCP server {server.name!r} still asked for input after {MAX_ROUNDS} rounds of {name!r}"
            )
        await _save_round(kept, server.name, name, arguments, result)
        if result.input_requests:
            wait = _FIRST_WAIT
            responses = await _answer_all(server, result.input_requests)
        else:
            await asyncio.sleep(wait)
            wait = min(wait * 2, _LONGEST_WAIT)
            responses = None
        result = await send(responses, result.request_state)
    return result


def _saved_round(kept: Checkpoint, server: str, tool: str, arguments: dict[str, Any]) -> Any:
    """The saved (input requests, request_state) of this very call, or None."""
    from mcp.types import InputRequests
    from pydantic import TypeAdapter, ValidationError

    saved = (kept.saved or {}).get("mcp")
    if not isinstance(saved, dict) or (saved.get("server"), saved.get("tool")) != (server, tool):
        return None
    state = saved.get("request_state")
    if saved.get("arguments") != arguments or not (state is None or isinstance(state, str)):
        return None
    try:
        requests = TypeAdapter(InputRequests).validate_python(saved.get("input_requests") or {})
    except ValidationError:
        return None
    return requests, state


async def _save_round(
    kept: Checkpoint, server: str, tool: str, arguments: dict[str, Any], result: Any
) -> None:
    requests = {
        key: request.model_dump(mode="json", by_alias=True, exclude_none=True, warnings=False)
        for key, request in (result.input_requests or {}).items()
    }
    mcp = {"server": server, "tool": tool, "arguments": arguments, "request_state": result.request_state}
    await kept.save({"mcp": {**mcp, "input_requests": requests}})


async def _answer_all(server: Asking, requests: dict[str, Any]) -> dict[str, Any]:
    """Each request's answer, asked one after the other (a person sees one question at a time)."""
    return {key: await _answer(server, key, request) for key, request in requests.items()}


async def _answer(server: Asking, key: str, request: Any) -> Any:
    from mcp import types

    method = getattr(request, "method", None)
    params = getattr(request, "params", None)
    if method == "roots/list":
        return types.ListRootsResult(roots=[])
    if method == "elicitation/create" and params is not None:
        answer = await server._ask(server.elicitation_handler, params, {"action": "decline"})
        model: Any = types.ElicitResult
    elif method == "sampling/createMessage" and params is not None:
        answer = await server._ask(server.sampling_handler, params, _SAMPLING_REFUSED)
        model = types.CreateMessageResult
        if isinstance(answer.get("content"), list):
            model = types.CreateMessageResultWithTools
    else:
        raise MCPServerError(
            f"MCP server {server.name!r} asked {str(method)[:100]!r}, which this client cannot answer"
        )
    if "error" in answer:
        why = str(answer["error"])[:300]
        raise MCPServerError(
            f"MCP server {server.name!r} asked for input that was not given ({key[:100]}): {why}"
        )
    try:
        return model.model_validate(answer)
    except ValueError as exc:
        raise MCPServerError(
            f"the answer to MCP server {server.name!r} is not a valid {method} result"
        ) from exc
