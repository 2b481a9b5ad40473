"""Content blocks for scripted turns beyond text and tool_use: thinking, server tools, citations, compaction.

    news = ("Apple Ginza opens", "https://www.apple.com/newsroom/")
    script = t.ScriptedTransport(
        t.turn(t.thinking("The user wants news."), "Let me search.",
               t.web_search("tech news", [(*news, "3 hours ago")]),
               t.cited("Apple's Ginza store reopened.", [news])),
    )

The pair helpers (`web_search`, `web_fetch`, `code_execution`, `mcp_call`) return the call and its result as
a list; `turn` takes lists as they are. Ids are numbered when the turn is served (a result without a
`tool_use_id` belongs to the call just before it). Shapes are those of real responses (vercel/ai's recorded
fixtures, see `_sse_blocks`); ids and encrypted fields are made up, deterministic and never secret.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

from ..api._assistant_blocks import SERVER_CALLS, unpaired_server_calls

__all__ = [
    "cited",
    "code_execution",
    "compaction",
    "container_upload",
    "mcp_call",
    "open_server_calls",
    "redacted_thinking",
    "result_for",
    "server_tool_use",
    "signature_of",
    "thinking",
    "web_fetch",
    "web_search",
]

RETRIEVED_AT = "2026-01-12T09:00:00.000000+00:00"
"""The `retrieved_at` of every scripted fetch (fixed, so outputs are the same every run)."""


def _opaque(kind: str, text: str) -> str:
    return base64.b64encode(hashlib.sha256(f"scripted-{kind}\0{text}".encode()).digest() * 2).decode()


def signature_of(text: str) -> str:
    """The signature the scripted model gives a thinking block with `text` (the real API's is opaque too)."""
    return _opaque("signature", text)


def thinking(text: str, *, signature: str | None = None) -> dict[str, Any]:
    """A thinking block; its signature is `signature_of(text)` unless given."""
    return {
        "type": "thinking",
        "thinking": text,
        "signature": signature_of(text) if signature is None else signature,
    }


def redacted_thinking(data: str | None = None) -> dict[str, Any]:
    """A redacted_thinking block (encrypted thinking; sent back unchanged)."""
    return {"type": "redacted_thinking", "data": data if data is not None else _opaque("redacted", "")}


def server_tool_use(
    name: str, input: dict[str, Any] | None = None, *, id: str | None = None
) -> dict[str, Any]:
    """A server_tool_use block (web_search, web_fetch, bash_code_execution, ...); id numbered when served."""
    block: dict[str, Any] = {"type": "server_tool_use", "name": name, "input": dict(input or {})}
    if id is not None:
        block["id"] = id
    return block


def _result(kind: str, content: Any, id: str | None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": kind, "content": content}
    if id is not None:
        block["tool_use_id"] = id
    return block


def web_search(
    query: str,
    results: Sequence[tuple[str, str] | tuple[str, str, str | None]] = (),
    *,
    id: str | None = None,
) -> list[dict[str, Any]]:
    """A web search and its results, each (title, url) or (title, url, page_age)."""
    found = [
        {
            "type": "web_search_result",
            "title": r[0],
            "url": r[1],
            "encrypted_content": _opaque("page", r[1]),
            "page_age": r[2] if len(r) > 2 else None,
        }
        for r in results
    ]
    return [
        server_tool_use("web_search", {"query": query}, id=id),
        _result("web_search_tool_result", found, id),
    ]


def web_fetch(url: str, title: str, text: str, *, id: str | None = None) -> list[dict[str, Any]]:
    """A web fetch of `url` and the page it brought back (a plain-text document)."""
    page = {
        "type": "web_fetch_result",
        "url": url,
        "retrieved_at": RETRIEVED_AT,
        "content": {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": text},
            "title": title,
        },
    }
    return [server_tool_use("web_fetch", {"url": url}, id=id), _result("web_fetch_tool_result", page, id)]


def code_execution(
    code: str, stdout: str = "", stderr: str = "", return_code: int = 0, *, id: str | None = None
) -> list[dict[str, Any]]:
    """A bash command run by the code execution tool and its output (`bash_code_execution_tool_result`)."""
    output = {
        "type": "bash_code_execution_result",
        "stdout": stdout,
        "stderr": stderr,
        "return_code": return_code,
        "content": [],
    }
    call = server_tool_use("bash_code_execution", {"command": code}, id=id)
    return [call, _result("bash_code_execution_tool_result", output, id)]


def mcp_call(
    server: str,
    name: str,
    input: dict[str, Any],
    result: str,
    *,
    is_error: bool = False,
    id: str | None = None,
) -> list[dict[str, Any]]:
    """A call to a tool of a remote MCP server (the MCP connector) and its result."""
    call: dict[str, Any] = {"type": "mcp_tool_use", "name": name, "input": dict(input), "server_name": server}
    if id is not None:
        call["id"] = id
    answer = _result("mcp_tool_result", [{"type": "text", "text": result}], id)
    answer["is_error"] = is_error
    return [call, answer]


def cited(text: str, sources: Sequence[tuple[str, str] | tuple[str, str, str]]) -> dict[str, Any]:
    """A text block citing web search results, each (title, url) or (title, url, cited_text)."""
    citations = [
        {
            "type": "web_search_result_location",
            "cited_text": s[2] if len(s) > 2 else text,
            "url": s[1],
            "title": s[0],
            "encrypted_index": _opaque("index", s[1]),
        }
        for s in sources
    ]
    return {"type": "text", "text": text, "citations": citations}


def compaction(summary: str) -> dict[str, Any]:
    """A compaction block: the summary the API wrote of the conversation before it."""
    return {"type": "compaction", "content": summary}


def container_upload(file_id: str) -> dict[str, Any]:
    """A container_upload block (a file put in the code execution container)."""
    return {"type": "container_upload", "file_id": file_id}


def open_server_calls(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The server and MCP calls the API runs first in its reply, as it does for a real request.

    A paused turn's final assistant message: the pause-turn docs say to send the paused response back as
    it is, and the API continues the turn, running what it had started. An assistant message that stopped
    for client calls, answered by the final user message: a server call it left without a result gets it
    at the start of the next response (vercel/ai's deferred tool-search recording). A call that client
    calls came from (programmatic tool calling) is not run again here: its result comes when its code ends.
    """
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    last = messages[-1] if messages else {}
    if last.get("role") == "assistant":
        content = last.get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        answered = {b.get("tool_use_id") for b in blocks}
        return [b for b in blocks if b.get("type") in SERVER_CALLS and b.get("id") not in answered]
    before = messages[-2] if len(messages) > 1 and last.get("role") == "user" else {}
    content = before.get("content") if before.get("role") == "assistant" else None
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    deferred = unpaired_server_calls(blocks)
    return [b for b in blocks if b.get("type") in SERVER_CALLS and b.get("id") in deferred]


def result_for(call: dict[str, Any]) -> dict[str, Any]:
    """A result for a call the script gave none: no search results, or the tool's `unavailable` error."""
    name = str(call.get("name", ""))
    if call.get("type") == "mcp_tool_use":
        return {"type": "mcp_tool_result", "tool_use_id": call.get("id"), "is_error": False, "content": []}
    kind = "tool_search_tool_result" if name.startswith("tool_search") else f"{name}_tool_result"
    content: Any = [] if name == "web_search" else {"type": f"{kind}_error", "error_code": "unavailable"}
    return {"type": kind, "tool_use_id": call.get("id"), "content": content}
