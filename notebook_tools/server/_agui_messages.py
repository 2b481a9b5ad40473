"""The stored session as AG-UI messages, with the ids a client saw while the runs streamed.

The official client merges a MESSAGES_SNAPSHOT by id: it keeps its own messages in its own
order, replaces those the snapshot names, drops the ones it does not name and appends the
snapshot's others at the end. So the snapshot must name every message the client holds, by
the id it holds it under, in the order it has them; else a message jumps to the end. Hence:

- a client's own messages keep its ids (its user messages, the tool messages it answered
  with: `FrontView.client_ids`);
- a reply is `msg_<index>` (its text streamed under that id; a fresh id when the client may hold a
  part of an unsaved reply under that one), each thinking block of it a reasoning message
  `<reply id>_reasoning_<n>` before it, and a tool result `result_<call id>`;
- results are listed in the order they arrived (`FrontView.result_order`): the client placed a
  streamed backend result before the answers it added itself;
- results held while the session waits (a backend result beside a pending frontend call) are
  listed after the reply, as the client has them.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    MessagesSnapshotEvent,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from ..session._state import AgentState, ToolResult

__all__ = [
    "block_text",
    "message_id",
    "messages_of",
    "now_ms",
    "opening_snapshots",
    "reasoning_id",
    "snapshot",
]


def now_ms() -> int:
    """The timestamp AG-UI events carry: milliseconds since the Unix epoch."""
    return int(time.time() * 1000)


def message_id(index: int) -> str:
    """The id of the message at history index `index` (before a client's own id replaces it)."""
    return f"msg_{index}"


def reasoning_id(reply_id: str, n: int) -> str:
    """The id of the `n`th thinking block of the reply whose id is `reply_id`."""
    return f"{reply_id}_reasoning_{n}"


def block_text(content: Any) -> str:
    """The text of a message's or a tool result's content (other blocks named in brackets)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") in ("image", "document"):
            parts.append(f"[{block['type']}]")
    return "\n".join(parts)


def messages_of(state: AgentState) -> list[Any]:
    """The session's history (and the results it holds while paused) as AG-UI messages."""
    view = state.front_view
    out: list[Any] = []
    for index, message in enumerate(state.messages):
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "assistant":
            out += _reply(blocks, view.client_id(message_id(index)))
            continue
        results = {b["tool_use_id"]: b for b in blocks if b.get("type") == "tool_result"}
        order = view.result_order.get(str(index), [])
        if sorted(order) != sorted(results):
            order = list(results)  # (the record no longer fits this message: the history's order)
        out += [_result(results[i], view.client_id(f"result_{i}")) for i in order]
        said = [b for b in blocks if b.get("type") != "tool_result"]
        if said:
            text = block_text(said) or "(no text)"
            out.append(UserMessage(id=view.client_id(message_id(index)), content=text))
    for held in state.held_results:
        out.append(_result(held.to_block(), view.client_id(f"result_{held.tool_use_id}")))
    return out


def _reply(blocks: list[dict[str, Any]], the_id: str) -> list[Any]:
    out: list[Any] = []
    thoughts = [b for b in blocks if b.get("type") == "thinking" and b.get("thinking")]
    for n, block in enumerate(thoughts):
        out.append(ReasoningMessage(id=reasoning_id(the_id, n), content=str(block["thinking"])))
    text = block_text([b for b in blocks if b.get("type") == "text"])
    calls = [
        ToolCall(id=b["id"], function=FunctionCall(name=b["name"], arguments=json.dumps(b.get("input", {}))))
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    if text or calls:
        out.append(AssistantMessage(id=the_id, content=text or None, tool_calls=calls or None))
    return out


def _result(block: dict[str, Any], the_id: str) -> ToolMessage:
    text = block_text(block.get("content", ""))
    error = (text or "(error)") if block.get("is_error") else None
    return ToolMessage(id=the_id, tool_call_id=block["tool_use_id"], content=text, error=error)


def result_text(result: ToolResult) -> str:
    """A result's content as the text of its tool message (and its TOOL_CALL_RESULT)."""
    return block_text(result.content)


def snapshot(state: AgentState) -> MessagesSnapshotEvent:
    """A MESSAGES_SNAPSHOT of the session as it stands."""
    return MessagesSnapshotEvent(messages=messages_of(state), timestamp=now_ms())


def opening_snapshots(opening: list[Any], held: set[str]) -> list[BaseEvent]:
    """The opening snapshots that leave a client holding the messages `held` (by id) with `opening` in order.

    The official client merges a snapshot by id: it keeps the messages it holds in its own order, drops
    those the snapshot omits, and appends the ones it lacks. A message it lacks before one it holds (the
    result of a call whose run it aborted, before its new message) would land after it, so a snapshot of
    the conversation up to each such place comes first: the client drops what follows and takes it
    back, in order, from the next snapshot.
    """
    is_held = [m.id in held for m in opening]
    # (a client that sent none of the messages before, a reload or one that sends only its new ones,
    # takes the conversation from the one snapshot as it is)
    cuts = [j for j in range(2, len(opening)) if is_held[j] and not is_held[j - 1] and any(is_held[: j - 1])]
    return [
        MessagesSnapshotEvent(messages=m, timestamp=now_ms()) for m in [*(opening[:j] for j in cuts), opening]
    ]
