"""`python -m notebook_tools cassette show|prune FILE`: a cassette as a conversation, and its tidying.

`show` prints each request's new messages and the response the model streamed (text and
tool calls, put together from the recorded events), then the person's answers. `prune`
drops what no replay can use: answers to tool calls no recorded response made, and, with
`--after N`, the exchanges after the Nth (a notebook that now stops sooner; a replay that
leaves some unused says which `--after` to give).

A hand-edited file may hold anything where a string or a list belongs: what cannot be shown
is shown as it is (JSON), never a traceback.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .._exceptions import CassetteError
from ._cassette_file import load, save

__all__ = ["called_ids", "prune", "show"]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in _list(content):
        kind = _dict(block).get("type")
        if kind == "text":
            parts.append(_str(block.get("text", "")))
        elif kind == "tool_result":
            parts.append(f"[result of {_str(block.get('tool_use_id'))}: {_text(block.get('content', ''))}]")
        elif kind == "tool_use":
            parts.append(f"[calls {_str(block.get('name'))} {json.dumps(block.get('input', {}))}]")
        elif kind:
            parts.append(f"[{_str(kind)}]")
        elif not isinstance(block, dict):
            parts.append(_str(block))
    return "\n".join(parts)


def _streamed(events: list[Any]) -> tuple[str, str]:
    """(what the model wrote and called, its stop reason) from a response's recorded events."""
    blocks: dict[str, dict[str, Any]] = {}
    stop = ""
    for event in _list(events):
        event = _dict(event)
        kind, index = event.get("type"), json.dumps(event.get("index"))
        if kind == "content_block_start":
            blocks[index] = {**_dict(event.get("content_block")), "_json": "", "_text": ""}
        elif kind == "content_block_delta":
            block = blocks.setdefault(index, {"type": "text", "_json": "", "_text": ""})
            delta = _dict(event.get("delta"))
            block["_text"] += _str(delta.get("text", ""))
            block["_json"] += _str(delta.get("partial_json", ""))
        elif kind == "message_delta":
            stop = _str(_dict(event.get("delta")).get("stop_reason") or stop)
    out = []
    for block in blocks.values():
        if block.get("type") == "tool_use":
            name, ident = _str(block.get("name")), _str(block.get("id"))
            out.append(f"[calls {name} {block['_json'] or '{}'}]  ({ident})")
        elif text := _str(block.get("text", "")) + block["_text"]:
            out.append(text)
    return "\n".join(out), stop


def show(path: Path) -> str:
    """The cassette as a readable conversation.

    Raises:
        CassetteError: the file is not a cassette.
    """
    data = load(path)
    exchanges = data["exchanges"]
    lines = [f"{path}: {len(exchanges)} requests, {len(data['answers'])} recorded answers"]
    seen = 0
    for number, exchange in enumerate(exchanges, 1):
        request, response = exchange["request"], exchange["response"]
        tools = [_dict(t).get("name") for t in _list(request.get("tools"))]
        where = f"{_str(request['(endpoint)'])} " if "(endpoint)" in request else ""
        lines.append(
            f"\n── request {number}: {where}{_str(request.get('model'))}, {len(tools)} tools {tools}"
        )
        if number == 1 and request.get("system"):
            lines.append(f"system: {_text(request['system'])}")
        messages = _list(request.get("messages"))
        for message in messages[seen:]:
            message = _dict(message)
            lines.append(f"{_str(message.get('role'))}: {_text(message.get('content'))}")
        seen = len(messages) + 1  # the reply comes back as the next message
        if "events" in response:
            text, stop = _streamed(response["events"])
            dropped = f", dropped: {_str(response['dropped'])}" if "dropped" in response else ""
            lines.append(f"── response {number} ({response['status']}, {stop}{dropped}):\nassistant: {text}")
        else:
            body = json.dumps(response.get("body"), ensure_ascii=False)
            lines.append(f"── response {number} ({response['status']}): {body}")
    for number, session in enumerate(data.get("claude_code", []), 1):
        lines.append(f"\n── Claude Code, connection {number}: {len(session['lines'])} lines")
        lines += [said for entry in session["lines"] if (said := _cli_line(entry))]
    if data["answers"]:
        lines.append("\n── answers")
        for item in data["answers"]:
            answer = json.dumps(item["answer"], ensure_ascii=False)
            lines.append(f"{_str(item.get('tool'))} ({item['tool_use_id']}): {answer}")
    # A lone surrogate (an escape a hand-edited file may hold) is shown as its escape: printable.
    return "\n".join(lines).encode("utf-8", "backslashreplace").decode("utf-8")


def _cli_line(entry: dict[str, Any]) -> str:
    """A line between the SDK and Claude Code as the conversation shows it ("" for the CLI's bookkeeping)."""
    line = entry["line"]
    kind, message = line.get("type"), _dict(line.get("message"))
    if kind in ("user", "assistant") and (text := _text(message.get("content"))):
        return f"{'you' if entry['from'] == 'host' else 'claude code'} ({kind}): {text}"
    request = _dict(line.get("request"))
    if kind == "control_request" and request.get("subtype") == "can_use_tool":
        tool, call = _str(request.get("tool_name")), _str(request.get("tool_use_id"))
        return f"claude code asks to run {tool} ({call})"
    answer = _dict(_dict(line.get("response")).get("response"))
    if kind == "control_response" and entry["from"] == "host" and "behavior" in answer:
        said = f": {_str(answer['message'])}" if answer.get("message") else ""
        return f"you {'allow' if answer['behavior'] == 'allow' else 'deny'}{said}"
    if kind == "result":
        return f"── result: {_str(line.get('subtype'))}, {_str(line.get('result', ''))}"
    return ""


def called_ids(exchanges: list[dict[str, Any]]) -> set[str]:
    """The ids of the tool calls the recorded responses made (answers to any other call are orphans)."""
    called = set()
    for exchange in exchanges:
        for event in _list(exchange["response"].get("events")):
            event = _dict(event)
            block = _dict(event.get("content_block")) if event.get("type") == "content_block_start" else {}
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                called.add(block["id"])
    return called


def _asked_by_claude_code(claude_code: list[dict[str, Any]]) -> set[str]:
    """The ids of the calls Claude Code asked about (its cards are named after them, see `_of_call`)."""
    return {
        _str(_dict(entry["line"].get("request")).get("tool_use_id"))
        for session in claude_code
        for entry in session["lines"]
        if entry["line"].get("type") == "control_request" and entry["from"] == "cli"
    }


def _of_call(prompt_id: str, calls: set[str]) -> bool:
    """Whether a card's id is of one of `calls`: the call's, a question of it (`_q1`), an ask again (`_2`)."""
    return prompt_id in calls or re.sub(r"_(?:q?\d+)$", "", prompt_id) in calls


def prune(path: Path, after: int | None = None) -> str:
    """Drop orphan answers (and exchanges after the `after`th); what was dropped, in words.

    Raises:
        CassetteError: the file is not a cassette, or `after` is negative.
    """
    if after is not None and after < 0:
        raise CassetteError(f"prune --after takes how many exchanges to keep (0 or more), not {after}")
    data = load(path)
    exchanges = data["exchanges"] if after is None else data["exchanges"][:after]
    dropped = len(data["exchanges"]) - len(exchanges)
    called = called_ids(exchanges)
    asked = _asked_by_claude_code(data.get("claude_code", []))
    answers = [a for a in data["answers"] if a["tool_use_id"] in called or _of_call(a["tool_use_id"], asked)]
    orphans = len(data["answers"]) - len(answers)
    if dropped or orphans:
        save(path, exchanges, answers, data.get("mcp"), data.get("claude_code"))
    return f"{path}: dropped {dropped} exchanges and {orphans} answers; {len(exchanges)} exchanges kept"
