"""The AG-UI endpoint's translator: core events and the stored history as AG-UI events and messages.

Ids are derived from the history so a streamed message and the same message in a later
MESSAGES_SNAPSHOT agree: the message at history index `i` is `msg_<i>`, the tool message
answering call `X` is `result_<X>`, and a tool call keeps the model's `tool_use` id. Text
deltas open a text message for the assistant reply they belong to; the reply's `message`
event closes it and streams its tool calls (START, one ARGS with the arguments' JSON, END).
Backend results (`tool_completed`, and `tool_error` for failures and denials) become
TOOL_CALL_RESULT, once per call, and only for calls the client knows (started in this run
or listed in a snapshot it received), as the protocol requires.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    MessagesSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)

from ..events._events import MessageEvent, TextDelta, ToolCompleted, ToolErrorEvent, _Event
from ..session._state import Usage

__all__ = ["Translator", "block_text", "messages_of", "now_ms", "snapshot", "token_usage"]


def now_ms() -> int:
    """The timestamp AG-UI events carry: milliseconds since the Unix epoch."""
    return int(time.time() * 1000)


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


def messages_of(history: list[dict[str, Any]]) -> list[Any]:
    """The stored history (Messages API params) as AG-UI messages, with ids derived from it."""
    out: list[Any] = []
    for index, message in enumerate(history):
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "assistant":
            text = block_text([b for b in blocks if b.get("type") == "text"])
            calls = [
                ToolCall(
                    id=b["id"],
                    function=FunctionCall(name=b["name"], arguments=json.dumps(b.get("input", {}))),
                )
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            out.append(AssistantMessage(id=f"msg_{index}", content=text or None, tool_calls=calls or None))
            continue
        for block in blocks:
            if block.get("type") == "tool_result":
                text = block_text(block.get("content", ""))
                out.append(
                    ToolMessage(
                        id=f"result_{block['tool_use_id']}",
                        tool_call_id=block["tool_use_id"],
                        content=text,
                        error=text if block.get("is_error") else None,
                    )
                )
        said = [b for b in blocks if b.get("type") != "tool_result"]
        if said:
            out.append(UserMessage(id=f"msg_{index}", content=block_text(said) or "(no text)"))
    return out


class Translator:
    """Turns one run's core events into AG-UI events.

    Args:
        history: The session's messages when the run started.
        known_calls: Tool call ids the client already knows (from a snapshot sent in this run).
    """

    def __init__(
        self, history: list[dict[str, Any]], known_calls: Iterable[str] = (), usage: Usage | None = None
    ) -> None:
        self.usage = usage.model_copy() if usage is not None else None
        """The session's token counts when the run started (the run reports what it added)."""
        self.last_index = len(history) - 1
        self.known_calls = set(known_calls)
        self.results_sent: set[str] = set()
        self.used_ids: set[str] = set()
        self.open_text: str | None = None
        self.request: int | None = None

    def feed(self, event: _Event) -> list[BaseEvent]:
        """The AG-UI events for one core event (often none)."""
        if isinstance(event, TextDelta):
            return self._text(event)
        if isinstance(event, MessageEvent):
            self.last_index = max(self.last_index, event.index)
            if event.message["role"] == "assistant":
                return self._reply(event.index, event.message)
            return []
        if isinstance(event, ToolCompleted):
            return self._result(event.tool_use_id, block_text(event.result.content), event.result.is_error)
        if isinstance(event, ToolErrorEvent):
            return self._result(event.tool_use_id, event.error, True)
        return []

    def close(self) -> list[BaseEvent]:
        """Close a text message still open (the run ended or failed mid-reply)."""
        if self.open_text is None:
            return []
        message_id, self.open_text = self.open_text, None
        return [TextMessageEndEvent(message_id=message_id, timestamp=now_ms())]

    def _text(self, event: TextDelta) -> list[BaseEvent]:
        if not event.text:
            return []  # an empty delta says nothing (and the protocol warns about it)
        out: list[BaseEvent] = []
        if self.open_text is not None and event.request != self.request:
            out += self.close()  # a retried request: its text is a new message
        if self.open_text is None:
            message_id = self._fresh(f"msg_{self.last_index + 1}", event.request)
            self.open_text, self.request = message_id, event.request
            out.append(TextMessageStartEvent(message_id=message_id, role="assistant", timestamp=now_ms()))
        out.append(TextMessageContentEvent(message_id=self.open_text, delta=event.text, timestamp=now_ms()))
        return out

    def _fresh(self, message_id: str, request: int) -> str:
        """`message_id`, or a variant of it when this run used it already (a retried request)."""
        if message_id in self.used_ids:
            message_id = f"{message_id}_r{request}"
        self.used_ids.add(message_id)
        return message_id

    def _reply(self, index: int, message: dict[str, Any]) -> list[BaseEvent]:
        blocks = message["content"]
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        streamed = self.open_text is not None
        parent = self.open_text
        out = self.close()
        text = block_text([b for b in blocks if b.get("type") == "text"])
        if not streamed and text and f"msg_{index}" not in self.used_ids:
            parent = self._fresh(f"msg_{index}", 0)
            stamp = now_ms()
            out += [
                TextMessageStartEvent(message_id=parent, role="assistant", timestamp=stamp),
                TextMessageContentEvent(message_id=parent, delta=text, timestamp=stamp),
                TextMessageEndEvent(message_id=parent, timestamp=stamp),
            ]
        for block in blocks:
            if block.get("type") != "tool_use" or block["id"] in self.known_calls:
                continue
            self.known_calls.add(block["id"])
            stamp = now_ms()
            out += [
                ToolCallStartEvent(
                    tool_call_id=block["id"],
                    tool_call_name=block["name"],
                    parent_message_id=parent,
                    timestamp=stamp,
                ),
                ToolCallArgsEvent(
                    tool_call_id=block["id"], delta=json.dumps(block.get("input", {})), timestamp=stamp
                ),
                ToolCallEndEvent(tool_call_id=block["id"], timestamp=stamp),
            ]
        return out

    def _result(self, tool_use_id: str, text: str, is_error: bool) -> list[BaseEvent]:
        if tool_use_id not in self.known_calls or tool_use_id in self.results_sent:
            return []
        self.results_sent.add(tool_use_id)
        return [
            ToolCallResultEvent(
                message_id=f"result_{tool_use_id}",
                tool_call_id=tool_use_id,
                content=text or ("(error)" if is_error else ""),
                role="tool",
                timestamp=now_ms(),
            )
        ]


def snapshot(history: list[dict[str, Any]]) -> MessagesSnapshotEvent:
    """A MESSAGES_SNAPSHOT of the stored history."""
    return MessagesSnapshotEvent(messages=messages_of(history), timestamp=now_ms())


def token_usage(before: Usage | None, after: Usage, model: str) -> list[TokenUsage] | None:
    """What one run's requests used, in AG-UI's accounting (input counts include the cache's)."""
    if before is None or after.requests <= before.requests:
        return None
    read = after.cache_read_input_tokens - before.cache_read_input_tokens
    written = after.cache_creation_input_tokens - before.cache_creation_input_tokens
    inputs = after.input_tokens - before.input_tokens + read + written
    outputs = after.output_tokens - before.output_tokens
    return [
        TokenUsage(
            provider="anthropic",
            model=model,
            input_tokens=inputs,
            output_tokens=outputs,
            total_tokens=inputs + outputs,
            cached_input_tokens=read,
            cache_write_input_tokens=written,
        )
    ]
