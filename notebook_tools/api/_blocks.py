"""The Messages API's rules for content blocks: what a text, image, document or tool block may hold.

Used by `_rules` for whole requests and histories, and by the core to check a tool
result before it is held or sent (`content_block_errors`). Sources as in `_rules`:
the SDK's request types for keys, the API's own error messages for the rules.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Callable, Collection
from typing import Any

from anthropic import types as t

__all__ = [
    "BLANK",
    "IMAGE_TYPES",
    "RESULT_BLOCK_TYPES",
    "block_errors",
    "cache_errors",
    "content_block_errors",
    "keys_of",
]

BLANK = "text content blocks must contain non-whitespace text"


# "image exceeds 5 MB maximum: 6500712 bytes > 5242880 bytes" is reported on `image.source.base64`: the limit
# is on the base64 text, which is stricter than on the decoded bytes, so the base64 length is what is checked.
MAX_IMAGE_BASE64 = 5 * 1024 * 1024


MAX_DOCUMENT_BASE64 = 32 * 1024 * 1024  # the documented 32 MB request limit bounds any one document


IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


RESULT_BLOCK_TYPES = frozenset({"text", "image", "document", "search_result"})


_ID = re.compile(r"[a-zA-Z0-9_-]+")  # "tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"


_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff", "image/gif": b"GIF8"}


_IMAGE_SOURCES = {
    "base64": frozenset({"type", "media_type", "data"}),
    "url": frozenset({"type", "url"}),
    "file": frozenset({"type", "file_id"}),
}


_DOCUMENT_SOURCES = {
    **_IMAGE_SOURCES,
    "text": frozenset({"type", "media_type", "data"}),
    "content": frozenset({"type", "content"}),
}


def keys_of(param: Any) -> frozenset[str]:
    return frozenset(param.__required_keys__ | param.__optional_keys__)


def content_block_errors(blocks: Any, *, where: str = "tool_result content") -> list[str]:
    """Strict checks for one tool_result's `content`: a string, or a list of result blocks.

    An empty string or list is accepted: the API refuses empty tool_result content only "if
    `is_error` is true" (its own message, checked with the tool_result block), while an empty
    text *block* is refused everywhere ("text content blocks must be non-empty").

    Args:
        blocks: The content: a string, or a list of text/image/document/search_result blocks.
        where: What the content is, to start each message with.

    Returns:
        One message per problem, naming the block (counted from 0) and the problem, e.g.
        "tool_result content: block 2 (image): source.data is not valid base64".
    """
    if isinstance(blocks, str):
        return []
    if not isinstance(blocks, list):
        return [f"{where}: must be a string or a list of content blocks"]
    # The SDK also lists tool_reference and browser_state blocks here; both need server-side tools that
    # notebook_tools never configures, so they are refused (decided here).
    errors: list[str] = []
    for index, block in enumerate(blocks):
        problems = block_errors(block, RESULT_BLOCK_TYPES, "tool_result content")
        errors += [f"{where}: block {index}{p}" for p in problems]
    return errors


def block_errors(block: Any, allowed: Collection[str], place: str) -> list[str]:
    """One content block's problems, each starting " (type): " or ": ", to follow the block's location."""
    kind = block.get("type") if isinstance(block, dict) else None
    if type(kind) is not str:
        return [": must be a content block object with a string `type`"]
    if kind not in allowed:
        return [f": `{kind}` blocks are not allowed in {place}"]
    keys, required, check = _BLOCKS[kind]
    names = block.keys()
    complete = names >= required
    if names <= keys and complete and "cache_control" not in names:  # the usual case: one call, no lists
        problems = check(block)
    else:
        problems = [f"{k}: Extra inputs are not permitted" for k in sorted(names - keys)]
        problems += [f"{k}: Field required" for k in sorted(required - names)]
        cache_errors(block.get("cache_control"), "cache_control", problems)
        if complete:  # a missing key is reported once, above
            problems += check(block)
    return [f" ({kind}): {p}" for p in problems] if problems else problems


def _text(block: dict[str, Any]) -> list[str]:
    text = block.get("text")
    if not isinstance(text, str):
        return ["text: must be a string"]
    if not text:
        return ["text content blocks must be non-empty"]
    return [BLANK] if text.isspace() else []


def _tool_use(block: dict[str, Any]) -> list[str]:
    ident = block.get("id")
    fine = isinstance(ident, str) and _ID.fullmatch(ident)
    problems = [] if fine else ["id: String should match pattern '^[a-zA-Z0-9_-]+$'"]
    if not isinstance(block.get("name"), str) or not block.get("name"):
        problems.append("name: must be a non-empty string")
    if not isinstance(block.get("input"), dict):
        problems.append("input: must be an object")
    return problems


def _tool_result(block: dict[str, Any]) -> list[str]:
    problems = [] if isinstance(block.get("tool_use_id"), str) else ["tool_use_id: must be a string"]
    is_error, content = block.get("is_error", False), block.get("content", "")
    if not isinstance(is_error, bool):
        problems.append("is_error: must be true or false")
    elif is_error and not content:
        problems.append("content cannot be empty if `is_error` is true")
    return problems if isinstance(content, str) else problems + content_block_errors(content, where="content")


def _search_result(block: dict[str, Any]) -> list[str]:
    problems = [] if isinstance(block.get("source"), str) else ["source: must be a string"]
    problems += [] if isinstance(block.get("title"), str) else ["title: must be a string"]
    inner = block.get("content")
    if not isinstance(inner, list):
        return [*problems, "content: must be a list of text blocks"]
    for n, item in enumerate(inner):
        problems += [f"content.{n}{p}" for p in block_errors(item, ("text",), "search results")]
    return problems


def _thinking(block: dict[str, Any]) -> list[str]:
    fine = isinstance(block.get("thinking"), str) and isinstance(block.get("signature"), str)
    return [] if fine else ["thinking and signature: must be strings"]


def _source(block: dict[str, Any]) -> list[str]:
    """An image's or document's source: base64 (decoded to check), url, file, or a document's text/content."""
    source, image = block.get("source"), block["type"] == "image"
    if not isinstance(source, dict):
        return ["source: must be an object"]
    kind, data, media = source.get("type"), source.get("data"), source.get("media_type")
    allowed = _IMAGE_SOURCES if image else _DOCUMENT_SOURCES
    if kind not in allowed:
        return [f"source.type: must be one of {', '.join(sorted(allowed))}, not {kind!r}"]
    problems: list[str] = []
    if not source.keys() <= allowed[kind]:
        problems += [
            f"source.{k}: Extra inputs are not permitted" for k in sorted(source.keys() - allowed[kind])
        ]
    if kind == "url" and not str(source.get("url")).startswith(("https://", "http://")):
        problems.append("source.url: must be an http(s) URL")
    elif kind == "file" and (not isinstance(source.get("file_id"), str) or not source.get("file_id")):
        problems.append("source.file_id: must be a non-empty string")
    elif kind == "text" and (media != "text/plain" or not isinstance(data, str)):
        problems.append("source: a text source needs media_type 'text/plain' and string data")
    elif kind == "content" and not isinstance(source.get("content"), str):
        inner = source.get("content")
        for n, item in enumerate(inner if isinstance(inner, list) else [None]):
            problems += [f"source.content.{n}{p}" for p in block_errors(item, ("text", "image"), "documents")]
    elif kind == "base64":
        media_types = IMAGE_TYPES if image else ("application/pdf",)
        if media not in media_types:
            names = [repr(m) for m in media_types]
            listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
            problems.append(f"source.media_type: Input should be {listed}")
        problems += _base64_errors(data, media, MAX_IMAGE_BASE64 if image else MAX_DOCUMENT_BASE64)
    return problems


def _base64_errors(data: Any, media: Any, limit: int) -> list[str]:
    if not isinstance(data, str):
        return ["source.data: must be a base64 string"]
    if not data:
        return ["source.data: is empty"]
    if len(data) > limit:
        return [f"source.data: exceeds {limit >> 20} MB maximum: {len(data)} bytes > {limit} bytes"]
    head = _decoded_head(data)
    if head is None:
        return ["source.data is not valid base64"]
    if not head:
        return ["source.data: is empty"]
    # The API reads the file's signature: "Image does not match the provided media type image/png".
    if media == "image/webp":
        fits = head[:4] == b"RIFF" and head[8:12] == b"WEBP"
    else:
        fits = media not in _MAGIC or head.startswith(_MAGIC[media])
    return [] if fits else [f"source.data: Image does not match the provided media type {media}"]


@functools.lru_cache(maxsize=64)
def _decoded_head(data: str) -> bytes | None:
    """The first 16 decoded bytes, or None when `data` is not strict base64.

    Cached: a history re-checks the same images after every turn, and decoding takes about 3 ms per MB.
    """
    try:
        return base64.b64decode(data, validate=True)[:16]
    except (binascii.Error, ValueError):
        return None


def _nothing(block: dict[str, Any]) -> list[str]:
    return []


# Allowed keys come from the SDK's TypedDicts. Their `Required[...]` markers are strings under
# `from __future__ import annotations` (so `__required_keys__` is empty): required keys are copied by hand.
_BLOCKS: dict[str, tuple[frozenset[str], frozenset[str], Callable[[dict[str, Any]], list[str]]]] = {
    "text": (keys_of(t.TextBlockParam), frozenset({"text"}), _text),
    "image": (keys_of(t.ImageBlockParam), frozenset({"source"}), _source),
    "document": (keys_of(t.DocumentBlockParam), frozenset({"source"}), _source),
    "search_result": (
        keys_of(t.SearchResultBlockParam),
        frozenset({"source", "title", "content"}),
        _search_result,
    ),
    "tool_use": (keys_of(t.ToolUseBlockParam), frozenset({"id", "name", "input"}), _tool_use),
    "tool_result": (keys_of(t.ToolResultBlockParam), frozenset({"tool_use_id"}), _tool_result),
    "thinking": (keys_of(t.ThinkingBlockParam), frozenset({"thinking", "signature"}), _thinking),
    "redacted_thinking": (keys_of(t.RedactedThinkingBlockParam), frozenset({"data"}), _nothing),
    "server_tool_use": (keys_of(t.ServerToolUseBlockParam), frozenset({"id", "name", "input"}), _tool_use),
    "web_search_tool_result": (
        keys_of(t.WebSearchToolResultBlockParam),
        frozenset({"tool_use_id", "content"}),
        _nothing,
    ),
}


def cache_errors(value: Any, where: str, errors: list[str]) -> int:
    """Checks a `cache_control` value; returns 1 when it sets a breakpoint."""
    if value is None:
        return 0
    if (
        not isinstance(value, dict)
        or value.get("type") != "ephemeral"
        or value.get("ttl", "5m") not in ("5m", "1h")
        or value.keys() - {"type", "ttl"}
    ):
        errors.append(f"{where}: must be {{'type': 'ephemeral'}} with an optional ttl of '5m' or '1h'")
    return 1
