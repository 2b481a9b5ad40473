"""The scripted API's context management: what the model reads of a long conversation, and what it reports.

Sources: the context-editing docs (platform.claude.com/docs/en/build-with-claude/context-editing) and the
compaction docs (".../build-with-claude/compaction-threshold"), with the SDK's beta types for the shapes
(`BetaClearToolUses20250919EditParam`, `BetaClearThinking20251015EditParam`, `BetaCompact20260112EditParam`,
`BetaContextManagementResponse`).

- Compaction: "the API automatically drops all content blocks before the compaction block": a request is
  read from its last `compaction` block on (with or without `context_management`).
- `clear_thinking_20251015` (first among the edits): thinking blocks of all but the last `keep` thinking
  turns are removed (default keep: 1 turn; "all" keeps every one).
- `clear_tool_uses_20250919`: once the input passes `trigger` (default 100,000 input tokens; or a number
  of tool uses), the results of all but the last `keep` tool uses (default 3) are replaced with a
  placeholder, oldest first, tools in `exclude_tools` spared; `clear_tool_inputs` clears their inputs too;
  nothing is cleared unless at least `clear_at_least` tokens would be.
- `compact_20260112`: once the input reaches `trigger` (default 150,000 input tokens) the reply starts
  with a `compaction` block (`_metering` writes it).
Each applied edit is reported (`applied_edits`: `cleared_tool_uses`/`cleared_thinking_turns` and
`cleared_input_tokens`), in the final `message_delta` when streaming; an edit that cleared nothing is not.
The placeholder text is the scripted API's own (the docs do not give the real one).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CLEARED", "Managed", "manage", "since_compaction"]

CLEARED = "[tool result cleared by context management]"
_TOOL_TRIGGER = {"type": "input_tokens", "value": 100_000}
_COMPACT_TRIGGER = {"type": "input_tokens", "value": 150_000}


@dataclass
class Managed:
    """A request as the model reads it after context management."""

    messages: list[dict[str, Any]]
    applied_edits: list[dict[str, Any]] = field(default_factory=list)
    compact: dict[str, Any] | None = None
    """The compact edit whose trigger was reached, if one was."""
    managed: bool = False
    """Whether the request asked for context management (then `applied_edits` is reported, even empty)."""


def since_compaction(messages: list[Any]) -> list[dict[str, Any]]:
    """The messages from the last compaction block on (the whole list when there is none)."""
    for i in range(len(messages) - 1, -1, -1):
        content = messages[i].get("content") if isinstance(messages[i], dict) else None
        if not isinstance(content, list):
            continue
        for k in range(len(content) - 1, -1, -1):
            if isinstance(content[k], dict) and content[k].get("type") == "compaction":
                return [{**messages[i], "content": content[k:]}, *messages[i + 1 :]]
    return [m for m in messages if isinstance(m, dict)]


def _blocks(messages: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    return [
        b
        for m in messages
        if m.get("role") == role and isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict)
    ]


def _value(spec: Any, default: dict[str, Any]) -> tuple[str, float]:
    spec = spec if isinstance(spec, dict) else default
    return str(spec.get("type", default["type"])), float(spec.get("value", default["value"]))


def _clear_thinking(
    messages: list[dict[str, Any]], edit: dict[str, Any], count: Callable[[list[Any]], int]
) -> dict[str, Any] | None:
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if keep == "all":
        return None
    turns: list[list[dict[str, Any]]] = [[]]  # assistant messages, by turn (a person's message starts one)
    for message in messages:
        content = message.get("content")
        person = message.get("role") == "user" and (
            isinstance(content, str)
            or any(isinstance(b, dict) and b.get("type") != "tool_result" for b in content or [])
        )
        if person and turns[-1]:
            turns.append([])
        if message.get("role") == "assistant":
            turns[-1].append(message)
    thinking = [
        t
        for t in turns
        if any(b.get("type") in ("thinking", "redacted_thinking") for b in _blocks(t, "assistant"))
    ]
    kept = int(keep.get("value", 1)) if isinstance(keep, dict) else 1
    cleared = thinking[: max(len(thinking) - kept, 0)]
    if not cleared:
        return None
    before = count(messages)
    for turn in cleared:
        for message in turn:
            message["content"] = [
                b
                for b in message["content"]
                if not (isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"))
            ]
    return {
        "type": "clear_thinking_20251015",
        "cleared_thinking_turns": len(cleared),
        "cleared_input_tokens": before - count(messages),
    }


def _clear_tool_uses(
    messages: list[dict[str, Any]], edit: dict[str, Any], count: Callable[[list[Any]], int]
) -> dict[str, Any] | None:
    uses = [b for b in _blocks(messages, "assistant") if b.get("type") == "tool_use"]
    kind, value = _value(edit.get("trigger"), _TOOL_TRIGGER)
    before = count(messages)
    if (len(uses) if kind == "tool_uses" else before) <= value:
        return None
    _, keep = _value(edit.get("keep"), {"type": "tool_uses", "value": 3})
    spared = set(edit.get("exclude_tools") or [])
    inputs = edit.get("clear_tool_inputs", False)
    candidates = [u for u in uses if u.get("name") not in spared]
    cleared = candidates[: max(len(candidates) - int(keep), 0)]
    if not cleared:
        return None
    edited = copy.deepcopy(messages)
    ids = {u.get("id") for u in cleared}
    for block in _blocks(edited, "user"):
        if block.get("type") == "tool_result" and block.get("tool_use_id") in ids:
            block["content"] = CLEARED
    for block in _blocks(edited, "assistant"):
        named = isinstance(inputs, list) and block.get("name") in inputs
        if block.get("type") == "tool_use" and block.get("id") in ids and (inputs is True or named):
            block["input"] = {}
    saved = before - count(edited)
    _, least = _value(edit.get("clear_at_least"), {"type": "input_tokens", "value": 0})
    if saved < least:
        return None
    messages[:] = edited
    return {
        "type": "clear_tool_uses_20250919",
        "cleared_tool_uses": len(cleared),
        "cleared_input_tokens": saved,
    }


def manage(body: dict[str, Any], count: Callable[[list[Any]], int]) -> Managed:
    """What the model reads of `body` and which edits were applied.

    Args:
        body: The request body.
        count: The prompt's tokens (tools and system included) with the given messages.
    """
    messages = copy.deepcopy(since_compaction(list(body.get("messages") or [])))
    config = body.get("context_management")
    managed = Managed(messages=messages, managed=isinstance(config, dict))
    for edit in config.get("edits") or [] if isinstance(config, dict) else []:
        kind = edit.get("type") if isinstance(edit, dict) else None
        applied = None
        if kind == "clear_thinking_20251015":
            applied = _clear_thinking(messages, edit, count)
        elif kind == "clear_tool_uses_20250919":
            applied = _clear_tool_uses(messages, edit, count)
        elif kind == "compact_20260112":
            _, trigger = _value(edit.get("trigger"), _COMPACT_TRIGGER)
            if count(messages) >= trigger:
                managed.compact = edit
        if applied is not None:
            managed.applied_edits.append(applied)
    return managed
