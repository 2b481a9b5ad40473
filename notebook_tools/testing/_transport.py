"""The scripted Messages API: the real SDK's HTTP transport answered from a script of steps.

Every request is checked with the API's own rules first (`_api_rules`): an invalid one gets
the same HTTP 400 `invalid_request_error` the real API sends, and uses no step.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import deque
from collections.abc import AsyncIterator, Collection, Iterable
from typing import Any

import anthropic
import httpx2

from .._exceptions import ConfigurationError
from ..api._errors import SCRIPT_ENDED
from ..api._rules import request_errors
from ._conversation import converse
from ._steps import DropStream, HTTPFault, Refused, Step, TruncatedStream, Turn

__all__ = ["SCRIPTED_MODEL", "SCRIPTED_NOTICE", "ScriptedTransport", "model_client"]

SCRIPTED_MODEL = "claude-scripted"
SCRIPTED_NOTICE = "Model: scripted (no ANTHROPIC_API_KEY set), replies come from the script in this notebook."


def _sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class _DroppingStream(httpx2.AsyncByteStream):
    def __init__(self, events: list[bytes]) -> None:
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event
        raise httpx2.RemoteProtocolError("peer closed connection without sending complete message body")


class _PacedStream(httpx2.AsyncByteStream):
    """SSE events with a pause before each, as a real network delivers them."""

    def __init__(self, events: list[bytes], delay: float) -> None:
        self._events = events
        self._delay = delay

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            await asyncio.sleep(self._delay)
            yield event


class ScriptedTransport:
    """Serves a script of steps to the real SDK and records every request body.

    Args:
        steps: The script: turns, faults, or functions of the request body returning a turn.
        text_chunk: Characters per text delta.
        json_chunk: Characters per tool-input JSON delta.
        event_delay: Seconds before each SSE event (0: all at once), to pace a stream like a network.
        then: Answers every request once the steps are used up (a demo's conversation); None, the
            default, answers them with the 400 the strict script gives when it has no step left.
    """

    def __init__(
        self,
        *steps: Step,
        text_chunk: int = 8,
        json_chunk: int = 12,
        event_delay: float = 0.0,
        then: Step | None = None,
    ) -> None:
        self._steps: deque[Step] = deque(steps)
        self.then = then
        """The step that answers every request after the script (None: a 400 says it ran out)."""
        self.requests: list[dict[str, Any]] = []
        """The JSON body of every request received, failed and refused ones included."""
        self.refused: list[Refused] = []
        """The requests refused as invalid (HTTP 400 invalid_request_error); they used no step."""
        self.text_chunk = text_chunk
        self.json_chunk = json_chunk
        self.event_delay = event_delay
        self._ids = 0

    def add(self, *steps: Step) -> None:
        """Append steps to the script."""
        self._steps.extend(steps)

    @property
    def remaining(self) -> int:
        """Steps not yet served."""
        return len(self._steps)

    def client(self, *, max_retries: int = 2, **kwargs: Any) -> anthropic.AsyncAnthropic:
        """A real `AsyncAnthropic` whose requests this script answers."""
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(self.handle))
        return anthropic.AsyncAnthropic(
            api_key="scripted-no-key", http_client=http, max_retries=max_retries, **kwargs
        )

    def _next_id(self, prefix: str, taken: Collection[Any] = ()) -> str:
        # Numbered, so outputs are the same every run; never an id the history already holds (a session
        # resumed in a new process meets a new transport, whose numbering starts again).
        while True:
            self._ids += 1
            ident = f"{prefix}_scripted_{self._ids:04d}"
            if ident not in taken:
                return ident

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        """The MockTransport handler: refuse an invalid request as the API would, else take the next step."""
        body = json.loads(await request.aread() or b"{}")
        self.requests.append(body)
        errors = request_errors(body)
        if errors:
            self.refused.append(Refused(body=body, errors=errors))
            return self._error(400, errors[0])
        if not self._steps and self.then is None:
            return self._error(400, f"{SCRIPT_ENDED} for request {len(self.requests)}")
        step = self._steps.popleft() if self._steps else self.then
        assert step is not None
        if isinstance(step, HTTPFault):
            return self._error(step.status, step.message, {"retry-after-ms": str(step.retry_after_ms)})
        streaming = bool(body.get("stream"))
        if isinstance(step, DropStream):
            events = self._events(step.partial, body)[: step.after_events]
            return httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, stream=_DroppingStream(events)
            )
        if isinstance(step, TruncatedStream):
            events = self._events(step.partial, body)[: step.after_events]
            return httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, content=b"".join(events)
            )
        served = step if isinstance(step, Turn) else step(body)
        if streaming:
            events = self._events(served, body)
            sse = {"content-type": "text/event-stream"}
            if self.event_delay > 0:
                return httpx2.Response(200, headers=sse, stream=_PacedStream(events, self.event_delay))
            return httpx2.Response(200, headers=sse, content=b"".join(events))
        return httpx2.Response(200, json=self._message(served, body))

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> httpx2.Response:
        kind = {
            400: "invalid_request_error",
            429: "rate_limit_error",
            529: "overloaded_error",
        }.get(status, "api_error")
        return httpx2.Response(
            status,
            headers={"request-id": f"req_scripted_{len(self.requests):04d}", **(headers or {})},
            json={"type": "error", "error": {"type": kind, "message": message}},
        )

    def _blocks(self, served: Turn, body: dict[str, Any]) -> list[dict[str, Any]]:
        taken = {
            b.get("id")
            for m in body.get("messages", [])
            if isinstance(m, dict) and isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use"
        }
        blocks = []
        for block in served.content:
            block = dict(block)
            if block["type"] == "tool_use":
                block.setdefault("id", self._next_id("toolu", taken))
            blocks.append(block)
        return blocks

    def _message(self, served: Turn, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": self._next_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": body.get("model", SCRIPTED_MODEL),
            "content": self._blocks(served, body),
            "stop_reason": served.final_stop_reason(),
            "stop_sequence": None,
            "usage": {"input_tokens": served.input_tokens, "output_tokens": served.output_tokens},
        }

    def _events(self, served: Turn, body: dict[str, Any]) -> list[bytes]:
        message = self._message(served, body)
        start = {**message, "content": [], "stop_reason": None}
        start["usage"] = {"input_tokens": served.input_tokens, "output_tokens": 1}
        events = [_sse({"type": "message_start", "message": start})]
        for index, block in enumerate(message["content"]):
            events.extend(self._block_events(index, block))
        events.append(
            _sse(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                    "usage": {"output_tokens": served.output_tokens},
                }
            )
        )
        events.append(_sse({"type": "message_stop"}))
        return events

    def _block_events(self, index: int, block: dict[str, Any]) -> Iterable[bytes]:
        if block["type"] == "text":
            yield _sse(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            for piece in _chunks(block["text"], self.text_chunk):
                delta = {"type": "text_delta", "text": piece}
                yield _sse({"type": "content_block_delta", "index": index, "delta": delta})
        elif block["type"] == "tool_use":
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield _sse({"type": "content_block_start", "index": index, "content_block": head})
            for piece in _chunks(json.dumps(block["input"]), self.json_chunk):
                delta = {"type": "input_json_delta", "partial_json": piece}
                yield _sse({"type": "content_block_delta", "index": index, "delta": delta})
        else:
            raise ConfigurationError(f"the scripted model cannot stream a {block['type']!r} block")
        yield _sse({"type": "content_block_stop", "index": index})


def model_client(*steps: Step) -> tuple[anthropic.AsyncAnthropic, ScriptedTransport | None]:
    """Claude when ANTHROPIC_API_KEY is set; otherwise the scripted model, and it says so.

    Returns the client and the script (None for the real API). Prints which one is used,
    so a notebook's output shows whether its replies came from Claude or from a script.
    Once the steps are used up, the scripted model holds a conversation (`converse`): it answers
    whatever the person types in the chat, asks for any prompt on request, and says it is scripted.
    """
    if os.environ.get("ANTHROPIC_API_KEY"):
        print("Model: Claude (ANTHROPIC_API_KEY is set).")
        return anthropic.AsyncAnthropic(), None
    script = ScriptedTransport(*steps, then=converse)
    print(SCRIPTED_NOTICE)
    return script.client(), script
