"""How the Messages API streams each content block: the events of one block, as recorded streams show them.

Shapes follow real streams other projects recorded from the API (vercel/ai,
`packages/anthropic/src/__fixtures__/`): `anthropic-clear-thinking.1.chunks.txt` (thinking: a start with
empty `thinking` and `signature`, `thinking_delta`s, one `signature_delta`), `anthropic-web-search-tool.1
.chunks.txt` (server_tool_use: `input_json_delta`s after an empty first one; a result block whole in its
start; a cited text block: a start with `citations: []`, its `citations_delta`s, then its `text_delta`s),
`anthropic-mcp.1.chunks.txt` (mcp_tool_use streams like tool_use, mcp_tool_result arrives whole),
`anthropic-code-execution-20250825.1.chunks.txt` (bash/text-editor results whole) and
`anthropic-compaction.1.chunks.txt` (a start with `content: null`, then one `compaction_delta`).
Any other block type (redacted_thinking, container_upload, a type the API adds tomorrow) arrives whole
in its `content_block_start`.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["block_events", "chunks", "sse"]

_CALLS = ("tool_use", "server_tool_use", "mcp_tool_use")


def sse(event: dict[str, Any]) -> bytes:
    """One server-sent event, as the API writes it."""
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def chunks(text: str, size: int) -> list[str]:
    """`text` cut into pieces of `size` characters ([""] for empty text)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def block_events(
    index: int, block: dict[str, Any], *, text_chunk: int, json_chunk: int
) -> list[dict[str, Any]]:
    """The events that stream `block` at `index`: its start, its deltas, its stop."""
    kind = block.get("type")
    events: list[dict[str, Any]]
    if kind == "text":
        head: dict[str, Any] = {"type": "text", "text": ""}
        citations = block.get("citations")
        if citations is not None:
            head = {"citations": [], **head}
        events = [_start(index, head)]
        events += [_delta(index, {"type": "citations_delta", "citation": c}) for c in citations or []]
        events += [
            _delta(index, {"type": "text_delta", "text": p}) for p in chunks(block["text"], text_chunk)
        ]
    elif kind == "thinking":
        events = [_start(index, {"type": "thinking", "thinking": "", "signature": ""})]
        pieces = chunks(block["thinking"], text_chunk)
        events += [_delta(index, {"type": "thinking_delta", "thinking": p}) for p in pieces]
        events.append(_delta(index, {"type": "signature_delta", "signature": block.get("signature", "")}))
    elif kind in _CALLS:
        head = {**{k: v for k, v in block.items() if k != "input"}, "input": {}}
        events = [_start(index, head)]
        pieces = chunks(json.dumps(block.get("input", {})), json_chunk)
        if kind != "tool_use":
            pieces = ["", *pieces]  # server and MCP calls open with an empty piece, as recorded
        events += [_delta(index, {"type": "input_json_delta", "partial_json": p}) for p in pieces]
    elif kind == "compaction":
        events = [_start(index, {**{k: v for k, v in block.items() if k != "content"}, "content": None})]
        if block.get("content") is not None:
            events.append(_delta(index, {"type": "compaction_delta", "content": block["content"]}))
    else:
        events = [_start(index, dict(block))]
    events.append({"type": "content_block_stop", "index": index})
    return events
