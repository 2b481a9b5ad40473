"""What the MCP client does not take on trust: a server's stderr, its replies, and its failures told in words.

`Guard` stands between a transport and the SDK's `ClientSession`, so one bad message costs that
message, never the connection or the whole listing: a reply the SDK cannot parse (nested too deep, a
lone surrogate, bytes that are not UTF-8 outside a string) is turned into an error for the request it
answers, which then fails at once and in words instead of waiting out its timeout as if the server
had been silent; a `tools/list` reply keeps its valid tools and leaves out the others, each with why
(`left_out`). `why` and `said` tell a failure in one line, never as a pydantic or jsonschema dump.
What a server asks of the client goes to handlers of one shape: `MCPHandler` (elicitation, sampling,
sign-in) and `MCPCompletion` (a URL elicitation's page is done).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = [
    "UNREADABLE",
    "Guard",
    "MCPCompletion",
    "MCPHandler",
    "errlog",
    "image_problem",
    "is_disconnect",
    "said",
    "unusable",
    "why",
]


MCPHandler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""(server name, request params as JSON) -> the MCP result as JSON (ElicitResult, CreateMessageResult)."""
MCPCompletion = Callable[[str, str], None]
"""(server name, elicitationId): the server says that URL elicitation's page is done."""

log = logging.getLogger("notebook_tools")

UNREADABLE = "notebook_tools_unreadable"
"""The `data` key of the error this client makes of a reply it could not read (its value says why)."""
_ASKED_AT_MOST = 10_000  # requests remembered while their reply is awaited (a timed-out one never comes)
_PHRASES = {
    "list_type": "is not a list",
    "dict_type": "is not an object",
    "model_type": "is not an object",
    "model_attributes_type": "is not an object",
    "string_type": "is not a string",
    "int_type": "is not a whole number",
    "int_parsing": "is not a whole number",
    "float_type": "is not a number",
    "bool_type": "is not true or false",
    "missing": "is missing",
    "extra_forbidden": "is not allowed",
    "literal_error": "is not one of the values MCP allows",
    "union_tag_invalid": "has a type MCP does not define",
    "union_tag_not_found": "has no type",
}


def errlog() -> Any:
    """Where a stdio server's stderr goes: a real file (a kernel's `sys.stderr` may have no fileno)."""
    for stream in (sys.stderr, sys.__stderr__):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream is not None and stream.fileno() >= 0:
                return stream
    return open(os.devnull, "w")  # lives as long as the child


def image_problem(mime: object, data: object) -> str | None:
    """Why the Messages API would refuse this base64 image, in words (by its rules); None if it takes it."""
    from ..api._blocks import block_errors

    source = {"type": "base64", "media_type": mime, "data": data}
    problems = block_errors({"type": "image", "source": source}, ("image",), "messages")
    if not problems:
        return None
    first = problems[0]
    if "media_type" in first:
        return f"the model takes JPEG, PNG, GIF and WebP images only, not {str(mime)[:100]!r}"
    for found, words in _IMAGE_WORDS.items():
        if found in first:
            return words.format(mime)
    return first.removeprefix(" (image): ")


_IMAGE_WORDS = {
    "base64 string": "its data is not a base64 string",
    "not valid base64": "its data is not valid base64",
    "is empty": "it has no data",
    "exceeds": "it is larger than the 5 MB the model takes",
    "does not match": "its data is not the {} image it claims to be",
}


def said(exc: BaseException) -> str | None:
    """A pydantic or jsonschema failure as words ("content is not a list"); None for anything else."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        if not errors:
            return "it is not valid"
        first = errors[0]
        if first["type"] == "json_invalid":
            return _unparsed(str(first["msg"]))
        parts = [p for p in first["loc"] if isinstance(p, int) or (p[:1].islower() and "[" not in p)]
        where = ".".join(str(p) for p in parts) or "it"
        phrase = _PHRASES.get(first["type"]) or f"is not valid ({str(first['msg'])[:200]})"
        more = len(errors) - 1
        return f"{where} {phrase}" + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")
    cause: Any = exc.__cause__
    if type(cause).__name__ == "ValidationError" and hasattr(cause, "absolute_path"):  # jsonschema's
        path = "/".join(str(p) for p in cause.absolute_path)
        what = f"{path}: {cause.message}" if path else str(cause.message)
        return f"its structured content does not fit the tool's outputSchema ({what[:300]})"
    text = str(exc)
    if isinstance(exc, RuntimeError) and "did not return structured content" in text:
        return "it has no structured content, though the tool's outputSchema asks for it"
    if isinstance(exc, RuntimeError) and text.startswith("Invalid schema for tool"):
        return "the tool's outputSchema is not a JSON Schema this client can check results against"
    return None


def why(exc: BaseException) -> str:
    """A failure in one line (each of an exception group's); a validation failure in words."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(why(e) for e in exc.exceptions)
    return (unusable(exc) or f"{type(exc).__name__}: {exc}")[:300]


def unusable(exc: BaseException) -> str | None:
    """Why a reply the server did send cannot be used ("its reply could not be read: ..."), else None."""
    from mcp.shared.exceptions import MCPError
    from pydantic import ValidationError

    if isinstance(exc, MCPError):
        data = exc.data
        return (
            f"its reply could not be read: {data[UNREADABLE]}"
            if isinstance(data, dict) and UNREADABLE in data
            else None
        )
    words = said(exc)
    if words is not None and isinstance(exc, ValidationError):
        return f"its result is not one MCP allows: {words}"
    return words


def is_disconnect(exc: BaseException) -> bool:
    """Whether a failed request means the connection is gone."""
    text = why(exc).lower()
    return any(word in text for word in ("closed", "connection", "broken", "eof", "terminated"))


def _unparsed(message: str) -> str:
    """Why a line did not parse, from the parser's message."""
    if "recursion limit" in message:
        return "it is nested more deeply than this client reads"
    if "surrogate" in message or "hex escape" in message:
        return "it holds a \\u escape that is no character (a lone surrogate)"
    return f"it is not valid JSON ({message.removeprefix('Invalid JSON: ')[:200]})"


_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\],:]')  # strings whole, and JSON's punctuation
_KINDS = ("result", "error", "method")


def _top_level(line: str) -> dict[str, str]:
    """A JSON object's top-level keys, with the raw text of its id ({"id": "7", "result": ""}).

    Linear and shallow: it never parses values, so a reply nested too deep or holding a lone
    surrogate still shows its id, and it stops once it knows the id and what kind of message it is.
    """
    found: dict[str, str] = {}
    depth, key, start, expect_key = 0, None, 0, False
    for token in _TOKENS.finditer(line):
        char, at = token.group()[0], token.start()
        if char == '"':
            if depth == 1 and expect_key:
                with contextlib.suppress(ValueError):
                    key = json.loads(token.group())
                    found.setdefault(key, "")
                expect_key = False
                if key in _KINDS and found.get("id"):
                    break  # (the SDK writes the id first: a 5 MB result is never scanned)
            continue
        if char in "{[":
            depth += 1
            expect_key = depth == 1 and char == "{"
        elif char in "}]":
            depth -= 1
        elif char == ":" and depth == 1 and isinstance(key, str):
            start = at + 1
        if (depth == 1 and char == ",") or (depth == 0 and char in "}]"):
            if key == "id":
                found[key] = line[start:at].strip()
            key, expect_key = None, depth == 1
            if depth == 0 or (found.get("id") and any(k in found for k in _KINDS)):
                break
    return found


class Guard:
    """The streams between a transport and the SDK's session, read so one bad message costs only itself.

    Attributes:
        left_out: The tools `tools/list` replies held that MCP does not allow, with why ((name, why)).
        version: The protocol revision negotiated (set once known; tools are checked against it).
    """

    def __init__(self) -> None:
        self.asked: dict[Any, str] = {}  # request id -> method, while the reply is awaited
        self.left_out: list[tuple[str, str]] = []
        self.version: str | None = None

    def wrap(self, streams: Any) -> tuple[Any, Any]:
        """(read, write) streams of a transport, guarded."""
        return _Reader(streams[0], self.inbound), _Writer(streams[1], self.outbound)

    def outbound(self, item: Any) -> None:
        """Remember a request the client sends (its reply is checked against its method)."""
        from mcp_types import JSONRPCRequest

        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCRequest):
            self.asked[message.id] = message.method
            while len(self.asked) > _ASKED_AT_MOST:
                self.asked.pop(next(iter(self.asked)))

    def inbound(self, item: Any) -> Any:
        """What the session gets for `item`: the same, or an error for the request it failed to answer."""
        from mcp_types import JSONRPCError, JSONRPCResponse

        if isinstance(item, Exception):
            return self._unreadable(item)
        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCResponse | JSONRPCError):
            method = self.asked.pop(message.id, None)
            if method == "tools/list" and isinstance(message, JSONRPCResponse):
                return self._listing(item)
            if isinstance(message, JSONRPCError) and method is not None:
                return self._parse_error(item, method)
        return item

    def _parse_error(self, item: Any, method: str) -> Any:
        """The HTTP transport's own error for a reply it could not parse, told as `_unreadable` tells it."""
        from mcp.shared.message import SessionMessage
        from mcp_types import ErrorData, JSONRPCError

        error = item.message.error
        if error.code != -32700 or not error.message.startswith("Failed to parse "):
            return item
        found = re.search(r"Invalid JSON: ([^\[\n]*)", error.message)
        reason = _unparsed(found.group(1).strip()) if found else "it is not a valid JSON-RPC message"
        data = {UNREADABLE: reason}
        said = ErrorData(
            code=-32700, message=f"the server's reply to {method} could not be read: {reason}", data=data
        )
        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=item.message.id, error=said))

    def _unreadable(self, exc: Exception) -> Any:
        from mcp.shared.message import SessionMessage
        from mcp_types import ErrorData, JSONRPCError

        errors = getattr(exc, "errors", None)
        first = errors(include_url=False)[0] if callable(errors) and errors(include_url=False) else {}
        line = first.get("input")
        members = _top_level(line) if isinstance(line, str) and line.lstrip().startswith("{") else {}
        ident: Any = None
        with contextlib.suppress(ValueError):
            ident = json.loads(members.get("id", "null"))
        is_reply = ("result" in members or "error" in members) and "method" not in members
        if not is_reply or isinstance(ident, bool) or ident not in self.asked:
            log.info("an MCP server sent a message that could not be read (%s)", said(exc) or exc)
            return exc
        method = self.asked.pop(ident)
        reason = said(exc) or f"it is not a valid JSON-RPC message ({str(exc)[:200]})"
        error = ErrorData(
            code=-32700,  # JSON-RPC's "Parse error"
            message=f"the server's reply to {method} could not be read: {reason}",
            data={UNREADABLE: reason},
        )
        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=ident, error=error))

    def _listing(self, item: Any) -> Any:
        from mcp.shared.message import SessionMessage
        from mcp_types import JSONRPCResponse

        result = item.message.result
        tools = result.get("tools")
        if not isinstance(tools, list):
            return item  # the whole reply is wrong: the SDK says so
        kept, left = [], []
        for tool in tools:
            problem = self._tool_problem(result, tool)
            if problem is None:
                kept.append(tool)
            else:
                name = tool.get("name") if isinstance(tool, dict) else None
                left.append((str(name)[:100] if isinstance(name, str) else "(unnamed)", problem))
        if not left:
            return item
        self.left_out += left
        reply = JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result={**result, "tools": kept})
        return SessionMessage(reply, metadata=item.metadata)

    def _tool_problem(self, result: dict[str, Any], tool: Any) -> str | None:
        """Why one listed tool is not one MCP allows (None: it is), checked as the reply's only tool."""
        from mcp_types import Tool
        from mcp_types import methods as revisions
        from pydantic import ValidationError

        try:
            try:
                revisions.validate_server_result(
                    "tools/list", self.version or "", {**result, "tools": [tool]}
                )
            except (KeyError, ValueError) as exc:  # an unknown revision: the SDK's own model
                if isinstance(exc, ValidationError):
                    raise
                Tool.model_validate(tool)
        except ValidationError as exc:
            words = said(exc) or "it is not valid"
            return words.removeprefix("tools.0.")
        return None


class _Reader:
    """A transport's read stream whose items pass through `inbound` first."""

    def __init__(self, inner: Any, inbound: Callable[[Any], Any]) -> None:
        self._inner, self._inbound = inner, inbound

    def __getattr__(self, name: str) -> Any:  # `last_context`, read by the SDK where a transport has it
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        return self._inbound(await self._inner.receive())

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _Reader:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _Reader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _Writer:
    """A transport's write stream that shows `outbound` each item it sends."""

    def __init__(self, inner: Any, outbound: Callable[[Any], None]) -> None:
        self._inner, self._outbound = inner, outbound

    async def send(self, item: Any) -> None:
        self._outbound(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Writer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
