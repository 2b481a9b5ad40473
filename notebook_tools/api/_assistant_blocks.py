"""The blocks of an assistant message: every type the API returns, now and later, checked as it checks them.

Sources as in `_rules`: the SDK's response and request types (generated from the API's spec) for the
types and keys, the API's own messages for the rules.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from anthropic import types as t
from anthropic.types import beta
from anthropic.types.beta.beta_content_block import BetaContentBlock
from anthropic.types.content_block import ContentBlock

from ._blocks import _text, _thinking, _tool_use, cache_errors, keys_of

__all__ = [
    "ASSISTANT_TYPES",
    "SERVER_CALLS",
    "assistant_block_errors",
    "awaiting_server_calls",
    "is_server_result",
    "unpaired_server_calls",
    "without_calls",
    "without_unpaired",
]

SERVER_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})
"""Calls the API runs itself: their results come in the same assistant message, or in the next response
when the message stopped for client calls (a deferred tool search; code execution calling client tools)."""


def is_server_result(kind: Any) -> bool:
    """Whether a block type is the result of a call the API ran itself (`web_search_tool_result`, ...)."""
    return isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result"


def _response_types() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Every block type the API returns (the SDK's response unions, beta included): allowed and required keys.

    Allowed: the response model's fields and its request type's keys (a block sent back may be cached).
    """
    found: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for union in (ContentBlock, BetaContentBlock):
        for model in typing.get_args(typing.get_args(union)[0]):
            kind = typing.get_args(model.model_fields["type"].annotation)[0]
            names = {n: f.alias or n for n, f in model.model_fields.items()}
            param = getattr(t, f"{model.__name__}Param", None) or getattr(
                beta, f"{model.__name__}Param", None
            )
            # cache_control where the request type allows it (never on thinking blocks).
            fields = frozenset(names.values()) | (keys_of(param) if param is not None else {"cache_control"})
            required = frozenset(names[n] for n, f in model.model_fields.items() if f.is_required())
            old = found.get(kind)
            found[kind] = (fields | old[0], required & old[1]) if old else (fields, required)
    return found


ASSISTANT_TYPES = _response_types()
"""Block types the API returns, now: text, thinking, redacted_thinking, tool_use, server_tool_use, every
*_tool_result of a server tool, mcp_tool_use/mcp_tool_result, container_upload, compaction, ... An assistant
message may hold any of them, and any type not known yet (kept as the API sent it)."""

# Blocks a person (or a tool's result) sends, which the API never returns; decided here for images, documents
# and search results (see `_rules`), the tool-use protocol for tool_result.
_USER_ONLY = frozenset({"tool_result", "image", "document", "search_result"})

_ASSISTANT_CHECKS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "text": _text,
    "tool_use": _tool_use,
    "server_tool_use": _tool_use,
    "mcp_tool_use": _tool_use,
    "thinking": _thinking,
}


def assistant_block_errors(block: Any, *, strict: bool) -> list[str]:
    """One assistant block's problems, each starting " (type): " or ": ".

    `strict` (a request the scripted API checks): the keys of a known type are the SDK's. Not strict
    (a history at rest, built from the API's own replies): a field the SDK does not know yet is kept.
    A type not known at all is kept as it came, in both.
    """
    kind = block.get("type") if isinstance(block, dict) else None
    if type(kind) is not str:
        return [": must be a content block object with a string `type`"]
    if kind in _USER_ONLY:
        return [f": `{kind}` blocks are not allowed in assistant messages"]
    if kind not in ASSISTANT_TYPES:
        return []
    keys, required = ASSISTANT_TYPES[kind]
    problems = [f"{k}: Field required" for k in sorted(required - block.keys())]
    if strict:
        problems += [f"{k}: Extra inputs are not permitted" for k in sorted(block.keys() - keys)]
        cache_errors(block.get("cache_control"), "cache_control", problems)
    if not problems and kind in _ASSISTANT_CHECKS:
        problems = _ASSISTANT_CHECKS[kind](block)
    return [f" ({kind}): {p}" for p in problems]


def unpaired_server_calls(blocks: list[Any]) -> dict[str, str]:
    """A message's server-side calls without their result, by id -> the tool's name ("mcp" for MCP).

    A server call a client call came from (programmatic tool calling: the client call's `caller.tool_id`)
    gets its result in a later message, so it is not unpaired.
    """
    open_calls: dict[str, str] = {}
    callers: set[str] = set()
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in SERVER_CALLS and isinstance(block.get("id"), str):
            open_calls[block["id"]] = "mcp" if kind == "mcp_tool_use" else str(block.get("name", "server"))
        elif is_server_result(kind):
            open_calls.pop(str(block.get("tool_use_id")), None)
        elif kind == "tool_use" and isinstance(caller := block.get("caller"), dict):
            callers.add(str(caller.get("tool_id")))
    return {i: name for i, name in open_calls.items() if i not in callers}


def awaiting_server_calls(messages: list[dict[str, Any]]) -> dict[str, int]:
    """Server calls of a history whose result no assistant message holds yet: id -> the message's index.

    The API completes such a call in a later response when its message stopped for client calls (the
    tool search of vercel/ai's `anthropic-tool-search-deferred-bm25` recording opens the next response
    with its `tool_search_tool_result`), so it stays in the history exactly as returned until then.
    """
    waiting: dict[str, int] = {}
    for index, message in enumerate(messages):
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for block in message["content"]:
            if not isinstance(block, dict):
                continue
            if block.get("type") in SERVER_CALLS and isinstance(block.get("id"), str):
                waiting[block["id"]] = index
            elif is_server_result(block.get("type")):
                waiting.pop(str(block.get("tool_use_id")), None)
    return waiting


def without_calls(messages: list[dict[str, Any]], ids: dict[str, int]) -> list[dict[str, Any]]:
    """`messages` without the server calls `ids` (id -> the index of the message holding it).

    Only calls of messages that stopped for client calls are dropped so, and such a message keeps those.
    """
    kept: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if index in ids.values():
            content = [
                b for b in message["content"] if not (b.get("type") in SERVER_CALLS and b.get("id") in ids)
            ]
            message = {**message, "content": content}
        kept.append(message)
    return kept


def without_unpaired(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`blocks` without the server calls that got no result (a reply cut off, a pause given up).

    The API refuses a message after such a call ("web_search tool use with id ... was found without a
    corresponding web_search_tool_result block"); the call never ran as far as the model is concerned.
    """
    unpaired = unpaired_server_calls(blocks)
    if not unpaired:
        return blocks
    return [b for b in blocks if not (b.get("type") in SERVER_CALLS and b.get("id") in unpaired)]
