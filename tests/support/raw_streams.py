"""Raw response streams served verbatim by the strict scripted API, for tests of what the API may send."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import notebook_tools as nt
from notebook_tools import testing as t


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def start(
    body: dict[str, Any], content: list[Any] | None = None, usage: dict[str, Any] | None = None
) -> dict:
    message = {
        "id": "msg_raw",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content or [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage or {"input_tokens": 10, "output_tokens": 1},
    }
    return {"type": "message_start", "message": message}


class Events:
    """A response given as raw events; `events(body)` returns the list of event dicts."""

    def __init__(self, events: Any) -> None:
        self.events = events

    def sse_events(self, body: dict[str, Any]) -> list[bytes]:
        items = self.events(body) if callable(self.events) else self.events
        return [sse(e) for e in items]


def end(stop: str = "end_turn", usage: dict[str, Any] | None = None, **delta: Any) -> list[dict[str, Any]]:
    md: dict[str, Any] = {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None, **delta},
    }
    if usage is not False:
        md["usage"] = usage or {"output_tokens": 5}
    return [md, {"type": "message_stop"}]


def text_block(i: int, text: str) -> list[dict[str, Any]]:
    return [
        {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": i},
    ]


def tool_block(i: int, ident: str, name: str, *pieces: str, stop: bool = True) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "content_block_start",
            "index": i,
            "content_block": {"type": "tool_use", "id": ident, "name": name, "input": {}},
        }
    ]
    events += [
        {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": p}}
        for p in pieces
    ]
    if stop:
        events.append({"type": "content_block_stop", "index": i})
    return events


def agent_on(*steps: Any, **kwargs: Any) -> tuple[nt.Agent, t.ScriptedTransport, list[Any]]:
    script = t.ScriptedTransport(*steps)
    agent = nt.Agent(client=script.client(max_retries=0), retry_delay=0, **kwargs)
    seen: list[Any] = []
    agent.events.subscribe(seen.append)
    return agent, script, seen


@nt.tool
def lookup(key: str = "default") -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    CALLS.append(key)
    return f"value of {key}"


CALLS: list[str] = []


class Raw:
    """One response streamed as the API streams it: each block started whole, text/thinking by deltas."""

    def __init__(
        self, *blocks: dict[str, Any], stop: str = "end_turn", details: Any = None, usage: Any = None
    ) -> None:
        self.blocks, self.stop, self.details = blocks, stop, details
        self.usage = usage or {"input_tokens": 100, "output_tokens": 20}

    def sse_events(self, body: dict[str, Any]) -> list[bytes]:
        start = {
            "id": "msg_raw",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [],
        }
        start |= {"stop_reason": None, "stop_sequence": None, "usage": {**self.usage, "output_tokens": 1}}
        events = [sse({"type": "message_start", "message": start})]
        for i, block in enumerate(self.blocks):
            if block["type"] == "text":
                events.append(
                    sse(
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {"type": "text", "text": ""},
                        }
                    )
                )
                delta = {"type": "text_delta", "text": block["text"]}
                events.append(sse({"type": "content_block_delta", "index": i, "delta": delta}))
            elif block["type"] == "thinking":
                head = {"type": "thinking", "thinking": "", "signature": ""}
                events.append(sse({"type": "content_block_start", "index": i, "content_block": head}))
                for key in ("thinking", "signature"):
                    delta = {"type": f"{key}_delta", key: block[key]}
                    events.append(sse({"type": "content_block_delta", "index": i, "delta": delta}))
            else:
                events.append(sse({"type": "content_block_start", "index": i, "content_block": block}))
            events.append(sse({"type": "content_block_stop", "index": i}))
        delta = {"stop_reason": self.stop, "stop_sequence": None}
        if self.details is not None:
            delta["stop_details"] = self.details
        events.append(
            sse(
                {
                    "type": "message_delta",
                    "delta": delta,
                    "usage": {"output_tokens": self.usage["output_tokens"]},
                }
            )
        )
        events.append(sse({"type": "message_stop"}))
        return events


THINK = {"type": "thinking", "thinking": "Let me look it up.", "signature": "EqQBCkgIARABGAIi"}
SEARCH = {
    "type": "server_tool_use",
    "id": "srvtoolu_01",
    "name": "web_search",
    "input": {"query": "pandas 3"},
}
FOUND = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [
        {
            "type": "web_search_result",
            "title": "pandas 3.0",
            "url": "https://pandas.pydata.org/",
            "encrypted_content": "Eq",
            "page_age": "2026",
        }
    ],
}
WEB = nt.server_tool("web_search", max_uses=2)
