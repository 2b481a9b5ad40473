"""Steps of a scripted conversation: turns the model sends, faults, and helpers to build them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "DropStream",
    "HTTPFault",
    "Refused",
    "Step",
    "Streamed",
    "TruncatedStream",
    "Turn",
    "answers_in",
    "reply",
    "tool_use",
    "turn",
]


@dataclass
class Turn:
    """One assistant message the scripted model sends."""

    content: list[dict[str, Any]]
    """Content blocks of any type (`_step_blocks`). Empty is allowed: the real API can answer so."""
    stop_reason: str | None = None
    """Defaults to "tool_use" when the content calls a tool, else "end_turn" ("pause_turn", "refusal",
    "max_tokens", "stop_sequence", "model_context_window_exceeded" when set)."""
    input_tokens: int | None = None
    """None: counted from the request as the API would (`_metering`); a number wins."""
    output_tokens: int | None = None
    """None: counted from the content; a number wins."""
    cache_creation_input_tokens: int | None = None
    """None: from the simulated prompt cache (`_cache_model`); a number wins."""
    cache_read_input_tokens: int | None = None
    """None: from the simulated prompt cache; a number wins."""
    stop_details: dict[str, Any] | None = None
    """Sent in `message_delta` as the API does for a refusal: `{"type": "refusal", "category": ...,
    "explanation": ...}`."""
    stop_sequence: str | None = None
    """The stop sequence that ended the turn (with stop_reason "stop_sequence")."""

    def final_stop_reason(self) -> str:
        """The stop reason sent with this turn."""
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if any(b["type"] == "tool_use" for b in self.content) else "end_turn"


@dataclass
class HTTPFault:
    """Answer the request with an HTTP error (429, 500, 529, ...) instead of a turn."""

    status: int
    message: str = "scripted fault"
    retry_after_ms: int = 1
    """Sent as `retry-after-ms`, which the SDK honours, so retries in tests are quick."""


@dataclass
class DropStream:
    """Start streaming `partial`, then drop the connection after `after_events` SSE events."""

    partial: Turn = field(default_factory=lambda: reply("This answer will be cut o"))
    after_events: int = 4


@dataclass
class TruncatedStream:
    """Stream `partial` but end the response cleanly after `after_events` SSE events, with no `message_stop`.

    No error is raised: the body simply ends, as when a proxy closes a stream early.
    """

    partial: Turn = field(default_factory=lambda: reply("This answer stops in the midd"))
    after_events: int = 4


@dataclass
class Refused:
    """A request the scripted API refused with 400, as the real Messages API would."""

    body: dict[str, Any]
    """The request's JSON body."""
    errors: list[str]
    """Every reason it is invalid; the 400 response carries the first."""


@runtime_checkable
class Streamed(Protocol):
    """A step bringing its own SSE events (a recorded stream): served verbatim once the request is valid."""

    def sse_events(self, body: dict[str, Any]) -> list[bytes]:
        """The response's SSE events (each one `event:` line, one `data:` line, a blank line), as bytes."""
        ...


Step = Turn | HTTPFault | DropStream | TruncatedStream | Streamed | Callable[[dict[str, Any]], Turn]
"""A script step; a callable gets the request body and returns the turn to send."""


def tool_use(name: str, input: dict[str, Any] | None = None, *, id: str | None = None) -> dict[str, Any]:
    """A tool_use block; without an `id` one is numbered when the turn is served."""
    block: dict[str, Any] = {"type": "tool_use", "name": name, "input": dict(input or {})}
    if id is not None:
        block["id"] = id
    return block


def turn(
    *parts: str | dict[str, Any] | list[dict[str, Any]],
    stop_reason: str | None = None,
    stop_details: dict[str, Any] | None = None,
) -> Turn:
    """A turn from text strings, blocks and lists of blocks (a server tool's call and result), in order."""
    content: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, str):
            content.append({"type": "text", "text": part})
        elif isinstance(part, list):
            content += [dict(b) for b in part]
        else:
            content.append(dict(part))
    return Turn(content=content, stop_reason=stop_reason, stop_details=stop_details)


def reply(text: str, *, stop_reason: str | None = None) -> Turn:
    """A turn with one text block."""
    return turn(text, stop_reason=stop_reason)


def answers_in(body: dict[str, Any]) -> dict[str, Any]:
    """The tool results of a request's last message, by tool name, for steps that react to answers.

    A skipped or failed call maps to None.
    """
    messages = body.get("messages", [])
    names = {}
    for message in messages:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            names.update({b["id"]: b["name"] for b in message["content"] if b.get("type") == "tool_use"})
    last = messages[-1]["content"] if messages else []
    if isinstance(last, str):
        return {}
    return {
        names.get(b["tool_use_id"], b["tool_use_id"]): None if b.get("is_error") else b.get("content")
        for b in last
        if b.get("type") == "tool_result"
    }
