"""`python -m notebook_tools cassette show|prune FILE`: a cassette as a conversation, and its tidying.

`show` prints each request's new messages and the response the model streamed (text and
tool calls, put together from the recorded events), then the person's answers. `prune`
drops what no replay can use: answers to tool calls no recorded response made, and, with
`--after N`, the exchanges after the Nth (a notebook that now stops sooner; a replay that
leaves some unused says which `--after` to give).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._cassette_file import load, save

__all__ = ["prune", "show"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            parts.append(block["text"])
        elif kind == "tool_result":
            parts.append(f"[result of {block.get('tool_use_id')}: {_text(block.get('content', ''))}]")
        elif kind == "tool_use":
            parts.append(f"[calls {block.get('name')} {json.dumps(block.get('input', {}))}]")
        elif kind:
            parts.append(f"[{kind}]")
    return "\n".join(parts)


def _streamed(events: list[Any]) -> tuple[str, str]:
    """(what the model wrote and called, its stop reason) from a response's recorded events."""
    blocks: dict[int, dict[str, Any]] = {}
    stop = ""
    for event in events:
        kind = event.get("type")
        if kind == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"], _json="")
        elif kind == "content_block_delta":
            block, delta = blocks.setdefault(event["index"], {"type": "text", "text": ""}), event["delta"]
            block["text"] = block.get("text", "") + delta.get("text", "")
            block["_json"] += delta.get("partial_json", "")
        elif kind == "message_delta":
            stop = event.get("delta", {}).get("stop_reason") or stop
    out = []
    for _, block in sorted(blocks.items()):
        if block["type"] == "tool_use":
            out.append(f"[calls {block.get('name')} {block['_json'] or '{}'}]  ({block.get('id')})")
        elif block.get("text"):
            out.append(block["text"])
    return "\n".join(out), stop


def show(path: Path) -> str:
    """The cassette as a readable conversation."""
    data = load(path)
    exchanges = data["exchanges"]
    lines = [f"{path}: {len(exchanges)} requests, {len(data['answers'])} recorded answers"]
    seen = 0
    for number, exchange in enumerate(exchanges, 1):
        request, response = exchange["request"], exchange["response"]
        tools = [t.get("name") for t in request.get("tools", []) if isinstance(t, dict)]
        lines.append(f"\n── request {number}: {request.get('model')}, {len(tools)} tools {tools}")
        if number == 1 and request.get("system"):
            lines.append(f"system: {_text(request['system'])}")
        messages = request.get("messages", [])
        for message in messages[seen:]:
            lines.append(f"{message.get('role')}: {_text(message.get('content'))}")
        seen = len(messages) + 1  # the reply comes back as the next message
        if "events" in response:
            text, stop = _streamed(response["events"])
            lines.append(f"── response {number} ({response['status']}, {stop}):\nassistant: {text}")
        else:
            lines.append(f"── response {number} ({response['status']}): {json.dumps(response.get('body'))}")
    if data["answers"]:
        lines.append("\n── answers")
        for item in data["answers"]:
            lines.append(f"{item['tool']} ({item['tool_use_id']}): {json.dumps(item['answer'])}")
    return "\n".join(lines)


def prune(path: Path, after: int | None = None) -> str:
    """Drop orphan answers (and exchanges after the `after`th); what was dropped, in words."""
    data = load(path)
    exchanges = data["exchanges"] if after is None else data["exchanges"][:after]
    dropped = len(data["exchanges"]) - len(exchanges)
    called = set()
    for exchange in exchanges:
        for event in exchange["response"].get("events", []):
            block = event.get("content_block") if event.get("type") == "content_block_start" else None
            if isinstance(block, dict) and block.get("type") == "tool_use":
                called.add(block.get("id"))
    answers = [a for a in data["answers"] if a["tool_use_id"] in called]
    orphans = len(data["answers"]) - len(answers)
    if dropped or orphans:
        save(path, exchanges, answers)
    return f"{path}: dropped {dropped} exchanges and {orphans} answers; {len(exchanges)} exchanges kept"
