"""What the widget shows of a response's blocks beyond text and client tools.

Thinking (folded), calls the API ran itself (web search and fetch, code execution, the text editor,
tool search, MCP) paired with their results by `tool_use_id`, a compaction's summary, citations as
footnote marks and sources, and a one-line event for a block this front end does not know (never a
crash, never its raw content). Pure functions of blocks to transcript items, used live
(`_projection`) and to rebuild a transcript from a saved history (`_transcript`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._wire_kernel import Execution, Item, Link, Mark, Source

__all__ = ["block_items", "cite", "is_server_call"]

_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})
_SHOWN_ELSEWHERE = frozenset({"text", "tool_use", "thinking", "redacted_thinking"})
_LANGUAGE = {"code_execution": "python", "bash_code_execution": "bash"}
_MAX_TEXT = 4_000
_MAX_LINKS = 50


def is_server_call(block: Mapping[str, Any]) -> bool:
    """A call the API runs itself (its result is another block of the same response)."""
    return block.get("type") in _CALLS


def _s(value: Any, limit: int = _MAX_TEXT) -> str:
    """A string for display, cut; anything else as compact JSON."""
    text = value if isinstance(value, str) else "" if value is None else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + f" … [{len(text) - limit} more characters]"


def _label(name: str, arguments: Mapping[str, Any], server: str = "") -> str:
    if server:
        return f"{server}: {name}"
    if name == "web_search":
        return f"Searched the web: {_s(arguments.get('query'), 200)}"
    if name == "web_fetch":
        return f"Fetched {_s(arguments.get('url'), 300)}"
    if name in _LANGUAGE:
        return "Ran code"
    if name == "text_editor_code_execution":
        return f"Text editor: {_s(arguments.get('command'), 40)} {_s(arguments.get('path'), 200)}".strip()
    if name.startswith("tool_search"):
        query = arguments.get("query") or arguments.get("pattern") or ""
        return f"Searched the tools: {_s(query, 200)}"
    return f"Ran {name}"


def _call(block: Mapping[str, Any]) -> Item:
    name = _s(block.get("name") or "server tool", 100)
    given = block.get("input")
    arguments: dict[str, Any] = given if isinstance(given, dict) else {}
    server = _s(block.get("server_name"), 100) if block.get("type") == "mcp_tool_use" else ""
    item: Item = {
        "id": str(block.get("id") or ""),
        "kind": "server_tool",
        "name": name,
        "input": arguments,
        "text": _label(name, arguments, server),
        "status": "running",
    }
    if name in _LANGUAGE:
        code = arguments.get("code") if name == "code_execution" else arguments.get("command")
        item["execution"] = _execution(_s(code), _LANGUAGE[name], {})
    return item


def _execution(code: str, language: str, result: Mapping[str, Any]) -> Execution:
    return_code = result.get("return_code")
    known = isinstance(return_code, int) and not isinstance(return_code, bool)
    return {
        "code": code,
        "language": language,
        "stdout": _s(result.get("stdout") or ""),
        "stderr": _s(result.get("stderr") or ""),
        "return_code": return_code if known else None,
    }


def _links(content: Any) -> list[Link]:
    rows = content if isinstance(content, list) else [content]
    links: list[Link] = []
    for row in rows[:_MAX_LINKS]:
        if not isinstance(row, Mapping):
            continue
        inner = row.get("content")
        page: Mapping[str, Any] = inner if isinstance(inner, Mapping) else {}
        title = row.get("title") or page.get("title") or row.get("url") or ""
        detail = row.get("page_age") or ""
        url = _s(row.get("url") or "", 2_000)
        links.append({"title": _s(title, 300), "url": url, "detail": _s(detail, 80)})
    return links


def _result(block: Mapping[str, Any], call: Mapping[str, Any] | None) -> Item:
    """The update of a call's card for its result block (an error result: an error line)."""
    kind = str(block.get("type"))
    content = block.get("content")
    item: Item = {"id": str(block.get("tool_use_id") or ""), "status": "done"}
    if call is None:  # a result with no call shown: a card of its own
        name = kind.removesuffix("_tool_result")
        item.update({"kind": "server_tool", "name": name, "text": _label(name, {}), "input": {}})
    label = str((call or item).get("text") or kind)
    body = content if isinstance(content, Mapping) else {}
    error_code = body.get("error_code") if str(body.get("type", "")).endswith("_error") else None
    if error_code is not None or (kind == "mcp_tool_result" and block.get("is_error")):
        reason = _s(error_code, 200) if error_code is not None else _text(content)
        return {**item, "status": "error", "is_error": True, "result": f"{label} failed: {reason}"}
    if kind == "web_search_tool_result":
        item["links"] = _links(content)
    elif kind == "web_fetch_tool_result":
        item["links"] = _links(body)
    elif kind in ("code_execution_tool_result", "bash_code_execution_tool_result"):
        before = (call or {}).get("execution")
        code, language = (before["code"], before["language"]) if before else ("", "")
        item["execution"] = _execution(code, language, body)
    elif kind == "text_editor_code_execution_tool_result":
        item["result"] = _s(body.get("content") or _edited(body))
    elif kind == "tool_search_tool_result":
        refs = body.get("tool_references")
        found: list[Any] = refs if isinstance(refs, list) else []
        item["found"] = [_s(ref.get("tool_name"), 100) for ref in found if isinstance(ref, Mapping)]
    elif kind == "mcp_tool_result":
        item["result"] = _text(content)
    else:
        item["result"] = f"{_s(kind, 100)} block"
    return item


def _edited(body: Mapping[str, Any]) -> str:
    if body.get("type") == "text_editor_code_execution_create_result":
        return "file updated" if body.get("is_file_update") else "file created"
    lines = body.get("lines")
    return "\n".join(str(line) for line in lines) if isinstance(lines, list) else "done"


def _text(content: Any) -> str:
    if isinstance(content, list):
        return _s("\n".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping)))
    return _s(content)


def block_items(block: Mapping[str, Any], item_id: str, calls: Mapping[str, Item]) -> list[Item]:
    """The items (new ones, or updates of the calls' cards in `calls`) for one non-text block.

    `item_id` names an item of a block with no id of its own (a compaction, an unknown block).
    Text, client tool calls and thinking are shown by their own events and give none.
    """
    kind = str(block.get("type", ""))
    if kind in _SHOWN_ELSEWHERE:
        return []
    if kind in _CALLS and block.get("id"):
        return [_call(block)]
    if "tool_use_id" in block and kind.endswith("_tool_result"):
        return [_result(block, calls.get(str(block["tool_use_id"])))]
    if kind == "compaction":
        return [{"id": item_id, "kind": "compaction", "text": _s(block.get("content"), 20_000)}]
    if kind == "container_upload":
        return [{"id": item_id, "kind": "event", "text": "A file was uploaded to the code container"}]
    return [{"id": item_id, "kind": "event", "text": f"{_s(kind or 'unknown', 100)} block"}]


def cite(item: Mapping[str, Any], at: int, citations: Any) -> Item:
    """The `marks` and `sources` of an assistant item after a text block that ends at `at` cites these.

    Sources are numbered in the order first cited; citing one again reuses its number.
    """
    sources: list[Source] = list(item.get("sources") or [])
    marks: list[Mark] = list(item.get("marks") or [])
    for citation in citations if isinstance(citations, list) else []:
        if not isinstance(citation, Mapping):
            continue
        source = citation.get("source") if citation.get("type") == "search_result_location" else None
        url = _s(citation.get("url") or source or "", 2_000)
        title = citation.get("title") or citation.get("document_title") or citation.get("source") or url
        title = _s(title, 300)
        quote = _s(citation.get("cited_text") or "", 1_000)
        known = next((s for s in sources if (s["url"], s["title"]) == (url, title)), None)
        if known is None:
            known = {"n": len(sources) + 1, "title": title, "url": url, "quote": quote}
            sources.append(known)
        if not any(m["at"] == at and m["n"] == known["n"] for m in marks):
            marks.append({"at": at, "n": known["n"], "quote": quote})
    return {"id": str(item.get("id", "")), "marks": marks, "sources": sources}


def reply_items(items: dict[str, Item], index: int, content: Any) -> None:
    """The items of assistant message `index` of a saved history, as they showed live, into `items`.

    Text bubbles (`h<index>`, then `h<index>.<k>` after a block that is not text) with their
    citations, folded thinking, server tools' cards with their results, and the other blocks' lines.
    """
    if isinstance(content, str):
        if content:
            items[f"h{index}"] = {"id": f"h{index}", "kind": "assistant", "text": content}
        return
    bubble: str | None = None
    for k, block in enumerate(content):
        kind = block.get("type")
        if kind == "text" and (block.get("text") or bubble is not None):
            if bubble is None:
                bubble = f"h{index}" if f"h{index}" not in items else f"h{index}.{k}"
                items[bubble] = {"id": bubble, "kind": "assistant", "text": ""}
            item = items[bubble]
            item["text"] = item.get("text", "") + str(block.get("text") or "")
            if block.get("citations"):
                item.update(cite(item, len(item["text"]), block["citations"]))
            continue
        if kind in ("thinking", "redacted_thinking"):
            text = "" if kind == "redacted_thinking" else str(block.get("thinking") or "")
            thought: Item = {"id": f"h{index}.k{k}", "kind": "thinking", "status": "done", "text": text}
            items[thought["id"]] = {**thought, "redacted": True} if kind == "redacted_thinking" else thought
        elif kind not in ("tool_use", "text"):
            for item in block_items(block, f"h{index}.b{k}", items):
                items[item["id"]] = {**items.get(item["id"], {}), **item}  # type: ignore[typeddict-item]
        bubble = None
