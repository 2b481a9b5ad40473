"""The scripted Messages API: the real SDK's HTTP transport answered from a script of steps.

Every request is checked with the API's own rules first (`api._rules`, `api._beta_rules` for what needs an
`anthropic-beta` header, `api._thinking_rules`): an invalid one gets the same HTTP 400
`invalid_request_error` the real API sends, and uses no step. Replies stream every block type as the API
streams it (`_sse_blocks`), with usage counted as the API counts it (`_metering`: prompt cache, context
management, compaction, server tool requests). That usage also says it is a script's (`"scripted": true`, a
key the real API never sends), so a chat shows estimated tokens and no cost for it; `priced=True` leaves the
key out, for tests that price a reply as Claude's.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

import anthropic
import httpx2

from ..api._beta_rules import BETA_KEYS, beta_errors, betas_of
from ..api._errors import SCRIPT_ENDED
from ..api._prices import SCRIPTED_USAGE
from ..api._rules import request_errors
from ..api._thinking_rules import thinking_history_errors
from ._cache_model import MIN_CACHEABLE
from ._conversation import converse
from ._metering import Meter, Metered
from ._sse_blocks import block_events, sse
from ._step_blocks import open_server_calls, result_for
from ._steps import DropStream, HTTPFault, Refused, Step, Streamed, TruncatedStream, Turn

__all__ = ["SCRIPTED_MODEL", "SCRIPTED_NOTICE", "ScriptedTransport", "model_client"]

SCRIPTED_MODEL = "claude-scripted"
SCRIPTED_NOTICE = "Model: scripted (no ANTHROPIC_API_KEY set), replies come from the script in this notebook."


_CALLS = ("tool_use", "server_tool_use", "mcp_tool_use")
_ID_PREFIX = {"tool_use": "toolu", "server_tool_use": "srvtoolu", "mcp_tool_use": "mcptoolu"}


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
        clock: Seconds that never go back, for the prompt cache's TTLs (`FakeClock().monotonic` in tests).
        min_cacheable: The minimum cacheable prefix in tokens (the docs: 1024 for Sonnet and Opus 4.x).
        compaction_summary: The summary a compaction writes: a text, or a function of the request body.
        priced: Usage as the real API gives it, priced as Claude's would be (tests of pricing); by
            default it also says `"scripted": true`, and a scripted reply costs nothing.
    """

    def __init__(
        self,
        *steps: Step,
        text_chunk: int = 8,
        json_chunk: int = 12,
        event_delay: float = 0.0,
        then: Step | None = None,
        clock: Callable[[], float] = time.monotonic,
        min_cacheable: int = MIN_CACHEABLE,
        compaction_summary: str | Callable[[dict[str, Any]], str] | None = None,
        priced: bool = False,
    ) -> None:
        self._steps: deque[Step] = deque(steps)
        self.priced = priced
        self.then = then
        """The step that answers every request after the script (None: a 400 says it ran out)."""
        self.requests: list[dict[str, Any]] = []
        """The JSON body of every request received, failed and refused ones included."""
        self.refused: list[Refused] = []
        """The requests refused as invalid (HTTP 400 invalid_request_error); they used no step."""
        self.text_chunk = text_chunk
        self.json_chunk = json_chunk
        self.event_delay = event_delay
        self.betas: list[list[str]] = []
        """The `anthropic-beta` names of every request received, in the order of `requests`."""
        self.meter = Meter(clock, min_cacheable, compaction_summary)
        """Counts each reply's usage (its `cache` is the simulated prompt cache)."""
        self.signatures: dict[str, str] = {}
        """The thinking text of every signature this script gave (a block sent back changed is refused)."""
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
        betas = betas_of(request.headers.get("anthropic-beta"))
        self.requests.append(body)
        self.betas.append(betas)
        errors = self.errors(body, betas)
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
        if isinstance(step, Streamed):  # a recorded stream (`_recorded.Recorded`): served verbatim
            return self._stream_response(list(step.sse_events(body)))
        served = step if isinstance(step, Turn) else step(body)
        if streaming:
            return self._stream_response(self._events(served, body))
        return httpx2.Response(200, json=self._message(served, body))

    def errors(self, body: dict[str, Any], betas: list[str]) -> list[str]:
        """Every reason the API would refuse `body` sent with `betas` (its first is the 400's message)."""
        errors = beta_errors(body, betas) if isinstance(body, dict) else []
        vouched = {k for k, names in BETA_KEYS.items() if any(b in betas for b in names)}
        plain = {k: v for k, v in body.items() if k not in vouched} if isinstance(body, dict) else body
        errors += request_errors(plain)
        if isinstance(body, dict):
            errors += thinking_history_errors(body, self.signatures)
        return list(dict.fromkeys(errors))  # once each (`request_errors` may come to check thinking too)

    def _stream_response(self, events: list[bytes]) -> httpx2.Response:
        sse = {"content-type": "text/event-stream"}
        if self.event_delay > 0:
            return httpx2.Response(200, headers=sse, stream=_PacedStream(events, self.event_delay))
        return httpx2.Response(200, headers=sse, content=b"".join(events))

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
        """The turn's blocks, ids numbered (a result without `tool_use_id` answers the call before it).

        A request continuing a paused turn gets the results of the calls it left open first.
        """
        taken = {
            b.get("id")
            for m in body.get("messages", [])
            if isinstance(m, dict) and isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") in _CALLS
        }
        paused = open_server_calls(body)  # a paused turn continued: its calls are run first
        blocks, call = [], (paused[-1]["id"] if paused else None)
        for block in served.content:
            block = dict(block)
            if block["type"] in _CALLS:
                block.setdefault("id", self._next_id(_ID_PREFIX[block["type"]], taken))
                call = block["id"]
            elif block["type"].endswith("_tool_result") and "tool_use_id" not in block and call:
                block["tool_use_id"] = call
            elif block["type"] == "thinking" and isinstance(block.get("signature"), str):
                self.signatures[block["signature"]] = str(block.get("thinking", ""))
            blocks.append(block)
        answered = {b.get("tool_use_id") for b in blocks}
        return [*(result_for(c) for c in paused if c.get("id") not in answered), *blocks]

    def _metered(self, served: Turn, body: dict[str, Any]) -> tuple[dict[str, Any], Metered]:
        metered = self.meter.measure(body, served, self._blocks(served, body))
        if not self.priced:
            metered.usage[SCRIPTED_USAGE] = True
        message = {
            "id": self._next_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": body.get("model", SCRIPTED_MODEL),
            "content": metered.content,
            "stop_reason": metered.stop_reason,
            "stop_sequence": served.stop_sequence,
            "usage": metered.usage,
        }
        if served.stop_details is not None:
            message["stop_details"] = served.stop_details
        if metered.context_management is not None:
            message["context_management"] = metered.context_management
        return message, metered

    def _message(self, served: Turn, body: dict[str, Any]) -> dict[str, Any]:
        return self._metered(served, body)[0]

    def _events(self, served: Turn, body: dict[str, Any]) -> list[bytes]:
        message, metered = self._metered(served, body)
        usage = metered.usage
        start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
        start.pop("context_management", None)
        start.pop("stop_details", None)
        start["usage"] = {
            **{
                k: usage[k]
                for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
                if k in usage
            },
            **({"cache_creation": usage["cache_creation"]} if "cache_creation" in usage else {}),
            "output_tokens": 1,
            "service_tier": usage.get("service_tier", "standard"),
            **({SCRIPTED_USAGE: True} if SCRIPTED_USAGE in usage else {}),
        }
        events = [sse({"type": "message_start", "message": start})]
        for index, block in enumerate(message["content"]):
            pieces = block_events(index, block, text_chunk=self.text_chunk, json_chunk=self.json_chunk)
            events += [sse(e) for e in pieces]
        delta: dict[str, Any] = {"stop_reason": message["stop_reason"], "stop_sequence": served.stop_sequence}
        if served.stop_details is not None:
            delta["stop_details"] = served.stop_details
        final: dict[str, Any] = {
            "type": "message_delta",
            "delta": delta,
            "usage": {k: v for k, v in usage.items() if k not in ("cache_creation", "service_tier")},
        }
        if metered.context_management is not None:
            final["context_management"] = metered.context_management
        events += [sse(final), sse({"type": "message_stop"})]
        return events


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
