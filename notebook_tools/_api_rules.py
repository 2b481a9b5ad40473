"""The Messages API's request rules, checked locally: what the real API refuses with HTTP 400.

One source for two users: the scripted API (`notebook_tools.testing`) refuses exactly the
requests these functions find errors in, and the core checks tool results and saved
histories with the same functions, so what passes here is what the real API accepts.

Sources. Keys and values follow the SDK's request types (`anthropic.types.*Param`, generated
from the API's OpenAPI spec) and the `messages` documentation in
`anthropic.types.message_create_params`. Rules that span messages quote the API's own error
messages as reported in public issue threads (anthropics/claude-code #3512, #13460, #28515,
#23440, #53473, #6774, #15746; anthropics/anthropic-sdk-python #494; anthropics/anthropic-sdk-
typescript #653; bytedance/trae-agent #230; tghamm/Anthropic.SDK #50; gptme/gptme #185;
tailcallhq/forgecode #1872 and #892). A rule decided here without such a source says so.
Every function is pure: it reads its argument and returns messages; it never raises on bad input.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Callable, Collection
from typing import Any

from anthropic import types as t
from anthropic.types.message_create_params import MessageCreateParamsBase

__all__ = ["content_block_errors", "history_errors", "request_errors"]

MAX_CACHE_BREAKPOINTS = 4
MAX_MESSAGES = 100_000  # "There is a limit of 100,000 messages in a single request."
# "image exceeds 5 MB maximum: 6500712 bytes > 5242880 bytes" is reported on `image.source.base64`: the limit
# is on the base64 text, which is stricter than on the decoded bytes, so the base64 length is what is checked.
MAX_IMAGE_BASE64 = 5 * 1024 * 1024
MAX_DOCUMENT_BASE64 = 32 * 1024 * 1024  # the documented 32 MB request limit bounds any one document
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
RESULT_BLOCK_TYPES = frozenset({"text", "image", "document", "search_result"})

_ID = re.compile(r"[a-zA-Z0-9_-]+")  # "tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # the tool-use docs' pattern for a client tool's name
_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff", "image/gif": b"GIF8"}
_MESSAGE_KEYS = frozenset({"role", "content"})
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


def _keys(param: Any) -> frozenset[str]:
    return frozenset(param.__required_keys__ | param.__optional_keys__)


_REQUEST_KEYS = _keys(MessageCreateParamsBase) | {"stream"}
_TOOL_KEYS = _keys(t.ToolParam)
# tool_result only in user messages and tool_use only in assistant ones is the tool-use protocol. Keeping
# images, documents and search results out of assistant turns is decided here (undocumented): the API never
# returns them, so a history with one in an assistant turn was built wrongly.
_ROLE_TYPES = {
    "user": (frozenset({"text", "image", "document", "search_result", "tool_result"}), "user messages"),
    "assistant": (
        frozenset(
            {"text", "tool_use", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result"}
        ),
        "assistant messages",
    ),
}
_EMPTY = "all messages must have non-empty content except for the optional final assistant message"
_BLANK = "text content blocks must contain non-whitespace text"
_TRAILING = "messages: final assistant content cannot end with trailing whitespace"
_NO_TOOLS = "Requests which include `tool_use` or `tool_result` blocks must define tools."
_UNANSWERED = (
    "{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block "
    "must have a corresponding `tool_result` block in the next message."
)
_UNEXPECTED = (
    "{}: unexpected `tool_use_id` found in `tool_result` blocks: {}. Each `tool_result` block must have a "
    "corresponding `tool_use` block in the previous message."
)
_NOT_FIRST = (
    "{}: Did not find {} tool_result block(s) at the beginning of this message. Messages following tool_use "
    "blocks must begin with a matching number of tool_result blocks."
)


def request_errors(body: dict[str, Any]) -> list[str]:
    """Every reason the real Messages API would refuse this request body with 400 invalid_request_error.

    Args:
        body: The JSON body of a `POST /v1/messages` request.

    Returns:
        One message per problem, located as the API does (e.g. `messages.3.content.0`); [] when valid.
    """
    if not isinstance(body, dict):
        return ["the request body must be a JSON object"]
    errors = [f"{key}: Extra inputs are not permitted" for key in body if key not in _REQUEST_KEYS]
    errors += [f"{key}: Field required" for key in ("model", "max_tokens", "messages") if key not in body]
    if "model" in body and (not isinstance(body["model"], str) or not body["model"]):
        errors.append("model: must be a non-empty string")
    # The docs allow 0: "Set to `0` to populate the prompt cache without generating a response".
    if "max_tokens" in body and (type(body["max_tokens"]) is not int or body["max_tokens"] < 0):
        errors.append("max_tokens: must be a whole number, 0 or more")
    # Automatic caching (a top-level cache_control) is counted as one of the 4 breakpoints (decided here).
    breakpoints = _cache_errors(body.get("cache_control"), "cache_control", errors)
    breakpoints += _system_errors(body["system"], errors) if "system" in body else 0
    tools = body.get("tools")
    breakpoints += _tools_errors(tools, errors) if tools is not None else 0
    messages = body.get("messages", [None])
    if not isinstance(messages, list) or not messages:
        errors.append("messages: must be a non-empty list of messages")
    elif len(messages) > MAX_MESSAGES:
        errors.append(f"messages: at most {MAX_MESSAGES} messages are allowed, got {len(messages)}")
    elif "messages" in body:
        found, _, count, uses_tools = _walk(messages, request=True)
        errors += found
        breakpoints += count
        if uses_tools and not tools:
            errors.append(_NO_TOOLS)
    if breakpoints > MAX_CACHE_BREAKPOINTS:
        errors.append(f"A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}.")
    return errors


def history_errors(messages: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The message rules for a conversation at rest, between requests.

    The history is checked as the start of the next request: its last message is never that
    request's final one, so it gets no prefill allowance (empty content is refused). It may be
    an assistant message whose tool calls are still open (the session is paused, or its tools
    are running). An empty history, and one ending with a user message, are valid.

    Args:
        messages: The conversation, oldest first.

    Returns:
        (errors, open_tool_use_ids): the problems, and, in order, the tool_use ids of a last
        assistant message that still need their tool_result.
    """
    if not isinstance(messages, list):
        return ["messages: must be a list of messages"], []
    errors, open_ids, _, _ = _walk(messages, request=False)
    return errors, open_ids


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
        problems = _block_errors(block, RESULT_BLOCK_TYPES, "tool_result content")
        errors += [f"{where}: block {index}{p}" for p in problems]
    return errors


def _walk(messages: list[Any], *, request: bool) -> tuple[list[str], list[str], int, bool]:
    """One pass: shapes, roles, and every tool_use answered first thing in the next message.

    Returns:
        (errors, open tool_use ids of the last message, cache breakpoints, whether tool blocks occur).
    """
    errors: list[str] = []
    seen: set[str] = set()
    asked: list[str] = []  # the tool_use ids of the previous (assistant) message
    previous, breakpoints, uses_tools, last = "", 0, False, len(messages) - 1
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            errors.append(f"messages.{i}: must be an object with `role` and `content`")
            asked, previous = [], ""
            continue
        if message.keys() != _MESSAGE_KEYS:
            errors += [
                f"messages.{i}.{k}: Extra inputs are not permitted"
                for k in sorted(message.keys() - _MESSAGE_KEYS)
            ]
            errors += [f"messages.{i}.{k}: Field required" for k in sorted(_MESSAGE_KEYS - message.keys())]
        role, content = message.get("role"), message.get("content")
        if role not in _ROLE_TYPES:
            errors.append(f"messages.{i}.role: must be 'user' or 'assistant', not {role!r}")
            asked, previous = [], ""
            continue
        if role == previous:
            # Current docs say consecutive same-role turns are combined; the API long refused them with this
            # message, and notebook_tools must keep roles alternating, so it stays refused (decided here).
            errors.append(
                f'messages: roles must alternate between "user" and "assistant", but found multiple "{role}" '
                "roles in a row"
            )
        elif i == 0 and role != "user":
            errors.append('messages: first message must use the "user" role')
        prefill = request and i == last and role == "assistant"
        blocks: list[Any] = []
        if isinstance(content, list):
            blocks = content
            if not content and not prefill:
                errors.append(f"messages.{i}: {_EMPTY}")
        elif not isinstance(content, str):
            errors.append(f"messages.{i}.content: must be a string or a list of content blocks")
        elif not content:
            if not prefill:
                errors.append(f"messages.{i}: {_EMPTY}")
        elif content[-1].isspace() and (prefill or content.isspace()):
            errors.append(_TRAILING if prefill else f"messages.{i}: {_BLANK}")
        allowed, place = _ROLE_TYPES[role]
        answered: list[Any] = []
        uses: list[str] = []
        mixed = False
        for k, block in enumerate(blocks):
            problems = _block_errors(block, allowed, place)
            if problems:
                errors += [f"messages.{i}.content.{k}{p}" for p in problems]
                if not isinstance(block, dict):
                    continue
            kind = block.get("type")
            if request and block.get("cache_control") is not None:  # a history at rest has no limit
                breakpoints += 1
            if kind == "text":
                mixed = True
            elif kind == "tool_use":
                uses_tools, ident = True, block.get("id")
                if isinstance(ident, str):
                    if ident in seen:
                        errors.append(f"messages.{i}.content.{k}: `tool_use` ids must be unique")
                    seen.add(ident)
                    uses.append(ident)
            elif kind == "tool_result":
                uses_tools, ident = True, block.get("tool_use_id")
                inner = block.get("content")
                if request and isinstance(inner, list):
                    breakpoints += sum(
                        1 for b in inner if isinstance(b, dict) and b.get("cache_control") is not None
                    )
                if ident not in asked:
                    errors.append(_UNEXPECTED.format(f"messages.{i}.content.{k}", ident))
                elif ident in answered:  # the message is decided here; the rule is "exactly one result each"
                    errors.append(f"messages.{i}.content.{k}: a second `tool_result` for tool_use id {ident}")
                elif mixed:
                    errors.append(_NOT_FIRST.format(f"messages.{i}", len(asked)))
                answered.append(ident)
            else:
                mixed = True
        if prefill and blocks and isinstance(blocks[-1], dict) and blocks[-1].get("type") == "text":
            text = blocks[-1].get("text")
            if isinstance(text, str) and text[-1:].isspace() and not text.isspace():
                errors.append(_TRAILING)
        missing = [u for u in asked if u not in answered]
        if missing and role == "user":
            errors.append(_UNANSWERED.format(f"messages.{i - 1}", ", ".join(missing)))
        asked, previous = (uses if role == "assistant" else []), role
    open_ids: list[str] = []
    if asked and request:
        errors.append(_UNANSWERED.format(f"messages.{last}", ", ".join(asked)))
    elif asked:
        open_ids = asked
    return errors, open_ids, breakpoints, uses_tools


def _block_errors(block: Any, allowed: Collection[str], place: str) -> list[str]:
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
        _cache_errors(block.get("cache_control"), "cache_control", problems)
        if complete:  # a missing key is reported once, above
            problems += check(block)
    return [f" ({kind}): {p}" for p in problems] if problems else problems


def _text(block: dict[str, Any]) -> list[str]:
    text = block.get("text")
    if not isinstance(text, str):
        return ["text: must be a string"]
    if not text:
        return ["text content blocks must be non-empty"]
    return [_BLANK] if text.isspace() else []


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
        problems += [f"content.{n}{p}" for p in _block_errors(item, ("text",), "search results")]
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
            problems += [
                f"source.content.{n}{p}" for p in _block_errors(item, ("text", "image"), "documents")
            ]
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
    "text": (_keys(t.TextBlockParam), frozenset({"text"}), _text),
    "image": (_keys(t.ImageBlockParam), frozenset({"source"}), _source),
    "document": (_keys(t.DocumentBlockParam), frozenset({"source"}), _source),
    "search_result": (
        _keys(t.SearchResultBlockParam),
        frozenset({"source", "title", "content"}),
        _search_result,
    ),
    "tool_use": (_keys(t.ToolUseBlockParam), frozenset({"id", "name", "input"}), _tool_use),
    "tool_result": (_keys(t.ToolResultBlockParam), frozenset({"tool_use_id"}), _tool_result),
    "thinking": (_keys(t.ThinkingBlockParam), frozenset({"thinking", "signature"}), _thinking),
    "redacted_thinking": (_keys(t.RedactedThinkingBlockParam), frozenset({"data"}), _nothing),
    "server_tool_use": (_keys(t.ServerToolUseBlockParam), frozenset({"id", "name", "input"}), _tool_use),
    "web_search_tool_result": (
        _keys(t.WebSearchToolResultBlockParam),
        frozenset({"tool_use_id", "content"}),
        _nothing,
    ),
}


def _cache_errors(value: Any, where: str, errors: list[str]) -> int:
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


def _system_errors(system: Any, errors: list[str]) -> int:
    if isinstance(system, str):
        return 0
    if not isinstance(system, list):
        errors.append("system: must be a string or a list of text blocks")
        return 0
    for index, block in enumerate(system):
        errors += [f"system.{index}{p}" for p in _block_errors(block, ("text",), "the system prompt")]
    return sum(1 for b in system if isinstance(b, dict) and b.get("cache_control") is not None)


def _tools_errors(tools: Any, errors: list[str]) -> int:
    if not isinstance(tools, list):
        errors.append("tools: must be a list of tool definitions")
        return 0
    names: set[str] = set()
    breakpoints = 0
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            errors.append(f"tools.{index}: must be a tool definition object")
            continue
        name = tool.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
            errors.append(f"tools.{index}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'")
        elif name in names:
            errors.append("tools: Tool names must be unique.")
        names.add(str(name))
        breakpoints += _cache_errors(tool.get("cache_control"), f"tools.{index}.cache_control", errors)
        if tool.get("type") not in (None, "custom"):
            continue  # a server tool ("web_search_20250305", ...): its own keys, not checked here
        errors += [
            f"tools.{index}.{k}: Extra inputs are not permitted" for k in sorted(tool.keys() - _TOOL_KEYS)
        ]
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            errors.append(f'tools.{index}.input_schema: must be a JSON Schema object with "type": "object"')
    return breakpoints
