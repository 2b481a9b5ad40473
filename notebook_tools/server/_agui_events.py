"""The AG-UI endpoint's translator: one run's core events as AG-UI events.

Ids agree with the MESSAGES_SNAPSHOT that ends the run (see `_agui_messages`): the reply at
history index `i` streams as `msg_<i>`, its thinking as reasoning messages `msg_<i>_reasoning_<n>`
(REASONING_START/MESSAGE_START/CONTENT/END/REASONING_END), each of its calls under the model's
`tool_use` id (START, one ARGS with the arguments' JSON, END), and a backend result (a tool's
`tool_completed`, or `tool_error` for failures and denials) as TOOL_CALL_RESULT `result_<id>`,
once per call and only for a call the client knows. A running backend tool's progress and steps
are an ACTIVITY_SNAPSHOT `activity_<id>` of type "tool_progress" (what the widget's card shows).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ag_ui.core import (
    ActivitySnapshotEvent,
    BaseEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ..events._events import (
    MessageEvent,
    TextDelta,
    ToolCompleted,
    ToolErrorEvent,
    ToolProgress,
    ToolStep,
    _Event,
)
from ..events._reply_events import ThinkingDelta
from ..session._state import Usage
from ._agui_messages import block_text, message_id, now_ms, reasoning_id

__all__ = ["Translator", "token_usage"]


class Translator:
    """Turns one run's core events into AG-UI events.

    Args:
        history: The session's messages when the run started.
        known_calls: Tool call ids the client knows (those of the history; the run adds its own).
        usage: The session's token counts when the run started (the run reports what it added).
        given: Calls whose results the client gave itself (its tool messages): not streamed back.
        reply_ids: Ids given in advance to replies to come, by history index (see `FrontView`).
    """

    def __init__(
        self,
        history: list[dict[str, Any]],
        known_calls: Iterable[str] = (),
        usage: Usage | None = None,
        given: Iterable[str] = (),
        reply_ids: dict[int, str] | None = None,
    ) -> None:
        self.usage = usage.model_copy() if usage is not None else None
        self.last_index = len(history) - 1
        self.known_calls = set(known_calls)
        self.results_sent: set[str] = set(given)
        self.used_ids: set[str] = set()
        self.open_text: str | None = None
        self.request: int | None = None
        self.thinking: tuple[str, str, tuple[int, int]] | None = None
        """The open reasoning span and message, and the (request, block) they stream."""
        self.thoughts = 0
        """Thinking blocks of the coming reply so far."""
        self.reply_ids = dict(reply_ids or {})
        self.activity: dict[str, dict[str, Any]] = {}
        """What each running backend call reported last (its progress and its step)."""

    def feed(self, event: _Event) -> list[BaseEvent]:
        """The AG-UI events for one core event (often none)."""
        if isinstance(event, TextDelta):
            return self._text(event)
        if isinstance(event, ThinkingDelta):
            return self._thought(event)
        if isinstance(event, MessageEvent):
            self.last_index = max(self.last_index, event.index)
            if event.message["role"] == "assistant":
                out = self._reply(event.index, event.message)
                self.thoughts = 0
                return out
            return []
        if isinstance(event, ToolCompleted):
            return self._result(event.tool_use_id, block_text(event.result.content), event.result.is_error)
        if isinstance(event, ToolErrorEvent):
            return self._result(event.tool_use_id, event.error, True)
        if isinstance(event, ToolProgress | ToolStep):
            return self._activity(event)
        return []

    def close(self) -> list[BaseEvent]:
        """Close a reasoning or text message still open (the reply ended, or the run did mid-reply)."""
        out = self._close_thought()
        if self.open_text is not None:
            the_id, self.open_text = self.open_text, None
            out.append(TextMessageEndEvent(message_id=the_id, timestamp=now_ms()))
        return out

    def _close_thought(self) -> list[BaseEvent]:
        if self.thinking is None:
            return []
        span, the_id, _ = self.thinking
        self.thinking = None
        stamp = now_ms()
        return [
            ReasoningMessageEndEvent(message_id=the_id, timestamp=stamp),
            ReasoningEndEvent(message_id=span, timestamp=stamp),
        ]

    def _thought(self, event: ThinkingDelta) -> list[BaseEvent]:
        if not event.text:
            return []
        block = (event.request, event.index)
        out: list[BaseEvent] = []
        if self.thinking is not None and self.thinking[2] != block:
            out += self._close_thought()
        if self.open_text is not None:
            out += self.close()  # (a retried request's thinking after its text: a new reply)
        if self.thinking is None:
            index = self.last_index + 1
            the_id = self._fresh(reasoning_id(self._reply_id(index), self.thoughts), event.request)
            span = f"{the_id}_span"
            self.thoughts += 1
            self.thinking = (span, the_id, block)
            stamp = now_ms()
            out += [
                ReasoningStartEvent(message_id=span, timestamp=stamp),
                ReasoningMessageStartEvent(message_id=the_id, role="reasoning", timestamp=stamp),
            ]
        delta = ReasoningMessageContentEvent(
            message_id=self.thinking[1], delta=event.text, timestamp=now_ms()
        )
        return [*out, delta]

    def _text(self, event: TextDelta) -> list[BaseEvent]:
        if not event.text:
            return []  # an empty delta says nothing (and the protocol warns about it)
        out = self._close_thought()
        if self.open_text is not None and event.request != self.request:
            out += self.close()  # a retried request: its text is a new message
        if self.open_text is None:
            the_id = self._fresh(self._reply_id(self.last_index + 1), event.request)
            self.open_text, self.request = the_id, event.request
            out.append(TextMessageStartEvent(message_id=the_id, role="assistant", timestamp=now_ms()))
        out.append(TextMessageContentEvent(message_id=self.open_text, delta=event.text, timestamp=now_ms()))
        return out

    def _reply_id(self, index: int) -> str:
        return self.reply_ids.get(index, message_id(index))

    def _fresh(self, the_id: str, request: int) -> str:
        """`the_id`, or a variant of it when this run used it already (a retried request)."""
        if the_id in self.used_ids:
            the_id = f"{the_id}_r{request}"
        self.used_ids.add(the_id)
        return the_id

    def _reply(self, index: int, message: dict[str, Any]) -> list[BaseEvent]:
        blocks = message["content"]
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        streamed = self.open_text is not None
        parent = self.open_text
        out = self.close()
        text = block_text([b for b in blocks if b.get("type") == "text"])
        calls = any(b.get("type") == "tool_use" and b["id"] not in self.known_calls for b in blocks)
        if not streamed and (text or calls) and self._reply_id(index) not in self.used_ids:
            # a reply not streamed as text (retold, or calls only): its message, so the calls have a parent
            parent = self._fresh(self._reply_id(index), 0)
            stamp = now_ms()
            out.append(TextMessageStartEvent(message_id=parent, role="assistant", timestamp=stamp))
            if text:
                out.append(TextMessageContentEvent(message_id=parent, delta=text, timestamp=stamp))
            out.append(TextMessageEndEvent(message_id=parent, timestamp=stamp))
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

    def _activity(self, event: ToolProgress | ToolStep) -> list[BaseEvent]:
        if event.tool_use_id not in self.known_calls or event.tool_use_id in self.results_sent:
            return []
        content = self.activity.setdefault(event.tool_use_id, {"toolCallId": event.tool_use_id})
        if isinstance(event, ToolProgress):
            content.update(progress=event.progress, message=event.message)
        else:
            content.update(step=event.step, data=event.data)
        the_id = f"activity_{event.tool_use_id}"
        kind = "tool_progress"
        return [
            ActivitySnapshotEvent(
                message_id=the_id, activity_type=kind, content=dict(content), timestamp=now_ms()
            )
        ]


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
