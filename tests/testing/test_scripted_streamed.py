"""A step that brings its own SSE events (a recorded stream) is served verbatim, after the request checks."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import pytest

from notebook_tools import testing as t

EVENTS = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_rec",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 7, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "recorded"}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 3},
    },
    {"type": "message_stop"},
]


class Recording:
    """A stand-in for `_recorded.Recorded`: anything with `sse_events(body)`."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def sse_events(self, body: dict[str, Any]) -> list[bytes]:
        self.bodies.append(body)
        return [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in EVENTS]


async def _create(client: anthropic.AsyncAnthropic, messages: list[dict[str, Any]]) -> Any:
    stream = await client.messages.create(model="claude-x", max_tokens=50, messages=messages, stream=True)
    return [event async for event in stream]


def test_a_streamed_step_is_served_verbatim_to_a_valid_request() -> None:
    recording = Recording()
    script = t.ScriptedTransport(recording)
    events = asyncio.run(_create(script.client(), [{"role": "user", "content": "hi"}]))
    assert [e.type for e in events] == [e["type"] for e in EVENTS]
    assert events[2].delta.text == "recorded" and events[0].message.id == "msg_rec"
    assert recording.bodies == [script.requests[0]] and script.remaining == 0


def test_an_invalid_request_never_reaches_the_recording() -> None:
    recording = Recording()
    script = t.ScriptedTransport(recording)
    with pytest.raises(anthropic.BadRequestError):
        asyncio.run(_create(script.client(), [{"role": "assistant", "content": "first"}]))
    assert recording.bodies == [] and script.remaining == 1 and len(script.refused) == 1
