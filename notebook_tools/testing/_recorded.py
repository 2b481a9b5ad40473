"""Responses other public projects recorded from the real Messages API, replayed as script steps.

A recording file (the test suite keeps them in `tests/fixtures/recorded/<name>.json`) is data only::

    {"source": {"repository": "owner/name", "path": "...", "commit": "<40 hex>"},
     "note": "what the response holds",
     "request": {...},            # optional: what was asked, when the source recorded it
     "events": [...]}             # the SSE events of one streamed response, in order

Instead of `events` a file may hold `"message": {...}` (a whole, non-streamed response: it is served
as the events the API streams for it) or `"responses": [{"events": [...]}, {"message": {...}}, ...]`
(several responses of one recorded conversation, in the order they were answered).

`Recorded` is a step of `ScriptedTransport`: the transport checks the request with the API's rules,
then serves `sse_events(body)` verbatim. `Recorded.message` is the response put together by plain
rules written here (independent of the package's own accumulator), for tests to compare with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import CassetteError

__all__ = ["Recorded", "recordings"]


def _sse(event: dict[str, Any]) -> bytes:
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def _opening(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """How the API streams a whole block: what `content_block_start` carries, then its deltas."""
    kind = block.get("type")
    rest = {k: v for k, v in block.items()}
    deltas: list[dict[str, Any]] = []
    if kind == "text":
        rest["text"] = ""
        if "citations" in block:
            rest["citations"] = [] if block["citations"] is not None else None
            deltas += [{"type": "citations_delta", "citation": c} for c in block["citations"] or []]
        deltas.append({"type": "text_delta", "text": block.get("text", "")})
    elif kind == "thinking":
        rest.update(thinking="", signature="")
        deltas.append({"type": "thinking_delta", "thinking": block.get("thinking", "")})
        deltas.append({"type": "signature_delta", "signature": block.get("signature", "")})
    elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        rest["input"] = {}
        deltas.append({"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))})
    return rest, deltas


def _events_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The SSE events the API sends for a whole `message`."""
    usage = dict(message.get("usage") or {})
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    start.pop("stop_details", None)
    start["usage"] = {**usage, "output_tokens": 1}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message.get("content") or []):
        opening, deltas = _opening(block)
        events.append({"type": "content_block_start", "index": index, "content_block": opening})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    delta = {"stop_reason": message.get("stop_reason"), "stop_sequence": message.get("stop_sequence")}
    for key in ("stop_details", "container"):
        if key in message:
            delta[key] = message[key]
    events.append({"type": "message_delta", "delta": delta, "usage": usage})
    events.append({"type": "message_stop"})
    return events


def _apply(block: dict[str, Any], delta: dict[str, Any], json_parts: list[str]) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + delta["text"]
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + delta["thinking"]
    elif kind == "signature_delta":
        block["signature"] = block.get("signature", "") + delta["signature"]
    elif kind == "input_json_delta":
        json_parts.append(delta["partial_json"])
    elif kind == "citations_delta":
        block["citations"] = [*(block.get("citations") or []), delta["citation"]]
    elif kind == "compaction_delta":
        block["content"] = (block.get("content") or "") + delta["content"]
    else:
        raise CassetteError(f"a recording holds a delta type this replayer does not know: {kind!r}")


def _assemble(events: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    parts: dict[int, list[str]] = {}
    for event in events:
        kind = event["type"]
        if kind == "message_start":
            message = json.loads(json.dumps(event["message"]))
            blocks = dict(enumerate(message.get("content") or []))
        elif kind == "content_block_start":
            blocks[event["index"]] = json.loads(json.dumps(event["content_block"]))
        elif kind == "content_block_delta":
            _apply(blocks[event["index"]], event["delta"], parts.setdefault(event["index"], []))
        elif kind == "content_block_stop":
            text = "".join(parts.pop(event["index"], []))
            if text.strip():
                blocks[event["index"]]["input"] = json.loads(text)
        elif kind == "message_delta":
            message.update(event["delta"])
            message["usage"] = {**(message.get("usage") or {}), **(event.get("usage") or {})}
            message.update({k: v for k, v in event.items() if k not in ("type", "delta", "usage")})
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


@dataclass(frozen=True)
class Recorded:
    """One recorded response: a `ScriptedTransport` step that serves its SSE events verbatim."""

    events: tuple[dict[str, Any], ...]
    """The response's SSE events (dicts), as recorded (or as streamed for a recorded whole message)."""
    name: str = ""
    """The recording file's name (without `.json`)."""
    source: dict[str, str] = field(default_factory=dict)
    """Where it was recorded: `repository`, `path`, `commit`."""
    note: str = ""
    request: dict[str, Any] | None = None
    """What was asked (model, tools, thinking, prompt, ...), when the source recorded it."""
    position: int = 0
    """Which response of the recording this is (0 for the first)."""

    @classmethod
    def load_all(cls, path: str | Path) -> list[Recorded]:
        """Every response of a recording file, in the order they were recorded."""
        path = Path(path)
        data = json.loads(path.read_text(encoding="utf-8"))
        if "responses" in data:
            parts = data["responses"]
        elif "events" in data or "message" in data:
            parts = [data]
        else:
            raise CassetteError(f"{path}: a recording holds `events`, `message` or `responses`")
        common = {
            "name": path.stem,
            "source": dict(data.get("source") or {}),
            "note": str(data.get("note", "")),
            "request": data.get("request"),
        }
        return [
            cls(
                events=tuple(part["events"] if "events" in part else _events_of(part["message"])),
                position=n,
                **common,
            )
            for n, part in enumerate(parts)
        ]

    @classmethod
    def load(cls, path: str | Path, response: int = 0) -> Recorded:
        """One response of a recording file (the first by default)."""
        return cls.load_all(path)[response]

    def sse_events(self, body: dict[str, Any]) -> list[bytes]:
        """The recorded events as SSE bytes (an `event:` line, a `data:` line, a blank line)."""
        return [_sse(event) for event in self.events]

    @property
    def message(self) -> dict[str, Any]:
        """The response as the API sent it (nulls kept), put together from the events."""
        return _assemble(list(self.events))

    @property
    def stop_reason(self) -> str | None:
        reason = self.message.get("stop_reason")
        return reason if isinstance(reason, str) else None

    @property
    def block_types(self) -> list[str]:
        return [str(block.get("type")) for block in self.message["content"]]


def recordings(folder: str | Path) -> list[dict[str, Any]]:
    """The recording files of `folder` with their source: name, source, note, block types and stop reasons."""
    rows = []
    for path in sorted(Path(folder).glob("*.json")):
        responses = Recorded.load_all(path)
        first = responses[0]
        rows.append(
            {
                "name": first.name,
                "source": first.source,
                "note": first.note,
                "responses": len(responses),
                "block_types": sorted({t for r in responses for t in r.block_types}),
                "stop_reasons": [r.stop_reason for r in responses],
            }
        )
    return rows
