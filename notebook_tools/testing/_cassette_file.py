"""A cassette file: the Messages API exchanges of a session and a person's answers, as readable JSON.

One file next to the notebook (`02_clean.cassette.json`), written with one key per line
so a diff in review reads like the conversation changed::

    {"notebook_tools_cassette": 1,
     "exchanges": [{"request": {...the request body...},
                    "response": {"status": 200, "events": [...the SSE events...]}}, ...],
     "answers": [{"tool_use_id": "toolu_...", "tool": "user_confirm", "answer": {"value": "yes"}}, ...],
     "mcp": [{"label": "...", "server_info": {...}, "traffic": [{"op": "call_tool", ...}, ...]}, ...],
     "claude_code": [{"lines": [{"from": "host", "line": {...}}, {"from": "cli", "line": {...}}, ...]}, ...]}

No header is ever written (the API key, `anthropic-version`, anything a proxy adds), and every
string is passed through the secret patterns first: the API key in use, anything shaped like
an Anthropic key or a bearer token, and the patterns a caller adds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .._exceptions import CassetteError
from ._cassette_secrets import REDACTED, Secrets

__all__ = ["FORMAT", "REDACTED", "Secrets", "events_of", "first_difference", "load", "save", "sse_of"]

FORMAT = 1
_ORDER = ("model", "system", "tools", "messages")
_MCP_OPS = ("list_tools", "call_tool", "tools_changed", "read_resource", "app")


def events_of(body: bytes) -> list[Any]:
    """The JSON data of each SSE event in a streamed response.

    An event is complete at its blank line: a body cut off inside one (a dropped or truncated
    stream) ends with the event before it, as the SDK reads it.

    Raises:
        CassetteError: a complete event's data is not JSON (no Messages API response streams that).
    """
    events = []
    blocks = body.decode("utf-8", "replace").replace("\r\n", "\n").split("\n\n")
    for block in blocks[:-1]:  # the last is what follows the last blank line: an unfinished event
        data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
        if data:
            try:
                events.append(json.loads(data))
            except ValueError:
                raise CassetteError(f"a streamed event is not JSON: {data[:200]!r}") from None
    return events


def sse_of(events: list[Any]) -> bytes:
    """Events as an SSE body, as the API streams them."""
    return b"".join(f"event: {e.get('type', 'message')}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


_DELTA_TEXT = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking"}


_BLOCK_FIELDS: dict[str, dict[str, type]] = {
    "text": {"text": str},
    "thinking": {"thinking": str},
    "tool_use": {"id": str, "name": str, "input": dict},
}


def _good_block(block: Any) -> bool:
    """A content block as a content_block_start brings it: a type, and the fields that type has."""
    if not (isinstance(block, dict) and isinstance(block.get("type"), str)):
        return False
    fields = _BLOCK_FIELDS.get("tool_use" if block["type"].endswith("tool_use") else block["type"], {})
    return all(isinstance(block.get(name), kind) for name, kind in fields.items())


def _bad_usage(usage: Any, needed: str) -> bool:
    counts = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return not (
        isinstance(usage, dict)
        and type(usage.get(needed)) is int
        and all(type(usage.get(k)) is int or usage.get(k) is None for k in counts)
    )


def _stream_problem(events: Any) -> str:
    """Why recorded events could not have come from the API ("" if they could), read as the SDK reads them.

    The SDK would fail on such events deep inside (a TypeError, an IndexError), not say why.
    """
    if not (
        isinstance(events, list)
        and all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in events)
    ):
        return "its events are not a list of typed events"
    message = events[0].get("message") if events else {"content": [], "usage": {"input_tokens": 0}}
    if (events and events[0]["type"] != "message_start") or not isinstance(message, dict):
        return "its events do not begin with a message_start"
    if not isinstance(message.get("content"), list) or _bad_usage(message.get("usage"), "input_tokens"):
        return "its message_start has no content list and token counts"
    blocks, stopped = len(message["content"]), set()
    inputs: dict[int, str] = {}
    for number, event in enumerate(events[1:], 2):
        kind, index, delta = event["type"], event.get("index"), event.get("delta")
        if kind == "content_block_start":
            if type(index) is not int or not _good_block(event.get("content_block")):
                return f"event {number} starts no content block with its type's fields"
            blocks += 1
        elif kind.startswith("content_block_") and not (type(index) is int and 0 <= index < blocks):
            return f"event {number} ({kind}) is for a content block not started (index {index!r})"
        elif kind == "content_block_delta":
            field = _DELTA_TEXT.get(str(delta.get("type"))) if isinstance(delta, dict) else "delta"
            if not isinstance(delta, dict) or (field and not isinstance(delta.get(field), str)):
                return f"event {number} (content_block_delta) has no {field} string"
            if field == "partial_json":
                inputs[index] = inputs.get(index, "") + delta[field]
        elif kind == "content_block_stop":
            stopped.add(index)
        elif kind == "message_delta" and (
            not isinstance(delta, dict) or _bad_usage(event.get("usage"), "output_tokens")
        ):
            return f"event {number} (message_delta) has no delta and output token count"
    for index, text in inputs.items():
        try:
            json.loads(text) if text and index in stopped else None
        except ValueError:
            return f"the tool input streamed for content block {index} is not JSON"
    return ""


def load(path: Path) -> dict[str, Any]:
    """The cassette at `path`.

    Raises:
        CassetteError: the file is not a cassette (its message says why).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # (ValueError: not JSON, or a NUL in the name)
        raise CassetteError(f"cassette {path} cannot be read as JSON ({exc})") from None
    version = data.get("notebook_tools_cassette") if isinstance(data, dict) else None
    if type(version) is not int or version != FORMAT:
        raise CassetteError(f"{path} is not a notebook_tools cassette (format {FORMAT})")
    if not isinstance(data.get("exchanges"), list) or not isinstance(data.get("answers", []), list):
        raise CassetteError(f"cassette {path} has no list of exchanges")
    for number, exchange in enumerate(data["exchanges"], 1):
        response = exchange.get("response") if isinstance(exchange, dict) else None
        problem = (
            ""
            if not isinstance(response, dict) or "events" not in response
            else _stream_problem(response["events"])
        )
        if (
            not isinstance(exchange.get("request") if isinstance(exchange, dict) else None, dict)
            or not isinstance(response, dict)
            or type(response.get("status")) is not int
            or not (isinstance(response.get("events"), list) or "body" in response)
            or not isinstance(response.get("dropped", ""), str)
            or problem
        ):
            why = f" ({problem})" if problem else ""
            raise CassetteError(f"cassette {path}: exchange {number} is not a request with its response{why}")
    for number, item in enumerate(data.setdefault("answers", []), 1):
        if not (isinstance(item, dict) and isinstance(item.get("tool_use_id"), str) and "answer" in item):
            raise CassetteError(f"cassette {path}: answer {number} has no tool_use_id and answer")
    if not isinstance(data.get("mcp", []), list):
        raise CassetteError(f"cassette {path}: its MCP servers are not a list")
    for number, server in enumerate(data.get("mcp", []), 1):
        traffic = server.get("traffic") if isinstance(server, dict) else None
        if not isinstance(traffic, list) or not all(
            isinstance(e, dict) and e.get("op") in _MCP_OPS for e in traffic
        ):
            raise CassetteError(f"cassette {path}: MCP server {number} has no list of what it said")
    if not isinstance(data.get("claude_code", []), list):
        raise CassetteError(f"cassette {path}: its Claude Code connections are not a list")
    for number, session in enumerate(data.get("claude_code", []), 1):
        lines = session.get("lines") if isinstance(session, dict) else None
        if not isinstance(lines, list) or not all(
            isinstance(e, dict) and e.get("from") in ("cli", "host") and isinstance(e.get("line"), dict)
            for e in lines
        ):
            raise CassetteError(f"cassette {path}: Claude Code connection {number} has no list of its lines")
    return dict(data)


def save(
    path: Path,
    exchanges: list[dict[str, Any]],
    answers: list[dict[str, Any]],
    mcp: list[dict[str, Any]] | None = None,
    claude_code: list[dict[str, Any]] | None = None,
) -> None:
    """Write the cassette (atomically: a crash or another writer mid-write leaves a whole file).

    A symlinked cassette is written where the link points; the file keeps its permissions.
    """
    data: dict[str, Any] = {"notebook_tools_cassette": FORMAT, "exchanges": exchanges, "answers": answers}
    if mcp:
        data["mcp"] = mcp
    if claude_code:
        data["claude_code"] = claude_code
    try:
        raw = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (from a hand-edited file): kept as its JSON escape
        raw = (json.dumps(data, indent=1) + "\n").encode("utf-8")
    partial = None
    try:
        target = path.resolve()
        mode = target.stat().st_mode & 0o777 if target.is_file() else None
        partial = target.with_name(f"{target.name}.{os.getpid()}-{os.urandom(4).hex()}.partial")
        handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # its own: no other writer's
        with os.fdopen(handle, "wb") as out:
            out.write(raw)
        if mode is not None:
            os.chmod(partial, mode)
        os.replace(partial, target)
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop; a NUL in the name
        if partial is not None and partial.is_file():
            partial.unlink()
        raise CassetteError(
            f"cassette {path} cannot be written ({getattr(exc, 'strerror', '') or exc})"
        ) from None


_MISSING: Any = object()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: `true` is not `1`, `1.0` is not `1` (Python's == says they are), NaN is NaN."""
    if a is b or a is _MISSING or b is _MISSING:
        return a is b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def first_difference(recorded: dict[str, Any], sent: dict[str, Any]) -> str | None:
    """Where a request differs from the recorded one, in words, or None when they are equal."""
    if _same(recorded, sent):
        return None
    keys = [*_ORDER, *sorted((set(recorded) | set(sent)) - set(_ORDER))]
    for key in keys:
        was, now = recorded.get(key, _MISSING), sent.get(key, _MISSING)
        if _same(was, now):
            continue
        if key in ("messages", "tools") and isinstance(was, list) and isinstance(now, list):
            for index in range(max(len(was), len(now))):
                a = was[index] if index < len(was) else _MISSING
                b = now[index] if index < len(now) else _MISSING
                if _same(a, b):
                    continue
                if key == "messages":
                    return f"the message at index {index} differs: {_pair(a, b)}"
                name = (a if isinstance(a, dict) else b if isinstance(b, dict) else {}).get("name")
                return f"`tools` differs: the tool {_short(name)} (index {index}): {_pair(a, b)}"
        return f"`{key}` differs: {_pair(was, now)}"
    return "the request differs"  # (not reached: some key differs)


def _pair(was: Any, now: Any, limit: int = 160) -> str:
    """`recorded A, sent B`, each cut around where they first differ when long."""
    a, b = _short(was, 10**9), _short(now, 10**9)
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(0, at - limit // 2) if max(len(a), len(b)) > limit else 0

    def cut(text: str) -> str:
        part = ("…" if start else "") + text[start : start + limit]
        return part + ("…" if len(text) > start + limit else "")

    return f"recorded {cut(a)}, sent {cut(b)}"


def _short(value: Any, limit: int = 160) -> str:
    text = "(nothing)" if value is _MISSING else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
