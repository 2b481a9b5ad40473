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

import re
from typing import Any

from anthropic import types as t
from anthropic.types.beta.message_create_params import MessageCreateParamsBase as BetaParams
from anthropic.types.message_create_params import MessageCreateParamsBase

from ._assistant_blocks import SERVER_CALLS, assistant_block_errors, is_server_result
from ._blocks import BLANK, block_errors, cache_errors, content_block_errors, keys_of
from ._option_rules import option_errors
from ._thinking_rules import thinking_history_errors

__all__ = ["PROPERTY_KEY_RE", "TOOL_NAME_RE", "content_block_errors", "history_errors", "request_errors"]

MAX_CACHE_BREAKPOINTS = 4
MAX_MESSAGES = 100_000  # "There is a limit of 100,000 messages in a single request."

TOOL_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}\Z")  # \Z: "$" would let a final newline through
"""The tool-use docs' pattern for a tool's name (plugins and skills are called as tools, so theirs too)."""
PROPERTY_KEY_RE = re.compile(r"[a-zA-Z0-9_.-]{1,64}")
"""The API's rule for the property names of a tool's `input_schema` (it checks the top level only)."""
_MESSAGE_KEYS = frozenset({"role", "content"})


# The SDK's request keys, the beta endpoint's (context_management, mcp_servers, ...; their beta header is
# checked by the scripted API), and the sampling parameters the API reference documents for the models
# that take them (temperature, top_p, top_k; the SDK 2.13 types no longer list them).
_REQUEST_KEYS = (
    keys_of(MessageCreateParamsBase)
    | (keys_of(BetaParams) - {"betas"})
    | {"stream", "temperature", "top_p", "top_k"}
)
_TOOL_KEYS = keys_of(t.ToolParam)
# tool_result only in user messages and tool_use only in assistant ones is the tool-use protocol. Keeping
# images, documents and search results out of assistant turns is decided here (undocumented): the API never
# returns them, so a history with one in an assistant turn was built wrongly.
_ROLE_TYPES = {
    "user": (frozenset({"text", "image", "document", "search_result", "tool_result"}), "user messages"),
    "assistant": (frozenset(), "assistant messages"),  # any type the API returns: `assistant_block_errors`
}
_UNPAIRED = "{}: {} tool use with id {} was found without a corresponding {} block"
# A server result whose call is nowhere before it: the same shape as the API's words for a client result
# without its call (decided here; the API refuses such a history).
_ORPHAN = (
    "{}: unexpected `tool_use_id` found in `{}` blocks: {}. Each `{}` block must have a corresponding "
    "server tool use block before it."
)
_EMPTY = "all messages must have non-empty content except for the optional final assistant message"
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
    errors += option_errors(body)
    if "model" in body and (not isinstance(body["model"], str) or not body["model"]):
        errors.append("model: must be a non-empty string")
    # The docs allow 0: "Set to `0` to populate the prompt cache without generating a response".
    if "max_tokens" in body and (type(body["max_tokens"]) is not int or body["max_tokens"] < 0):
        errors.append("max_tokens: must be a whole number, 0 or more")
    # Automatic caching (a top-level cache_control) is counted as one of the 4 breakpoints (decided here).
    breakpoints = cache_errors(body.get("cache_control"), "cache_control", errors)
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
        errors += found + thinking_history_errors(body)
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


def _walk(messages: list[Any], *, request: bool) -> tuple[list[str], list[str], int, bool]:
    """One pass: shapes, roles, and every tool_use answered first thing in the next message.

    Returns:
        (errors, open tool_use ids of the last message, cache breakpoints, whether tool blocks occur).
    """
    errors: list[str] = []
    seen: set[str] = set()
    asked: list[str] = []  # the tool_use ids of the previous (assistant) message
    # Server calls left for a later response (their message stopped for client calls): id -> (message, name).
    later: dict[str, tuple[int, str]] = {}
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
            errors.append(_TRAILING if prefill else f"messages.{i}: {BLANK}")
        allowed, place = _ROLE_TYPES[role]
        answered: list[Any] = []
        uses: list[str] = []
        calls: dict[str, str] = {}  # this message's server calls without their result so far: id -> name
        mixed = False
        for k, block in enumerate(blocks):
            if role == "assistant":
                problems = assistant_block_errors(block, strict=request)
            else:
                problems = block_errors(block, allowed, place)
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
            elif role == "assistant" and kind in SERVER_CALLS:
                mixed = True
                if isinstance(ident := block.get("id"), str):
                    calls[ident] = "mcp" if kind == "mcp_tool_use" else str(block.get("name", "server"))
            elif role == "assistant" and is_server_result(kind):
                mixed = True
                ident = block.get("tool_use_id")
                if ident in calls:
                    del calls[ident]
                elif ident in later:
                    del later[ident]
                else:
                    errors.append(_ORPHAN.format(f"messages.{i}.content.{k}", kind, ident, kind))
            else:
                mixed = True
        if prefill and blocks and isinstance(blocks[-1], dict) and blocks[-1].get("type") == "text":
            text = blocks[-1].get("text")
            if isinstance(text, str) and text[-1:].isspace() and not text.isspace():
                errors.append(_TRAILING)
        missing = [u for u in asked if u not in answered]
        if missing and role == "user":
            errors.append(_UNANSWERED.format(f"messages.{i - 1}", ", ".join(missing)))
        if i < last and role == "assistant":  # a paused turn's last message may wait for its results
            # A server call is completed in a later response only while client calls go on: its message
            # stopped for them (vercel/ai's deferred tool-search recording), or a client call came from
            # it (programmatic tool calling). The API's message otherwise, from a history continued with a
            # user message after a paused turn (anthropics/claude-code #6774 and the issue this rule was
            # added for).
            callers = {
                str(b["caller"].get("tool_id"))
                for b in blocks
                if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("caller"), dict)
            }
            ended = [(ident, at, name) for ident, (at, name) in later.items() if not uses]
            ended += [(ident, i, name) for ident, name in calls.items() if not uses and ident not in callers]
            for ident, at, name in ended:
                result = "mcp_tool_result" if name == "mcp" else f"{name}_tool_result"
                errors.append(_UNPAIRED.format(f"messages.{at}", name, ident, result))
                later.pop(ident, None)
            later.update({ident: (i, name) for ident, name in calls.items() if uses or ident in callers})
        asked, previous = (uses if role == "assistant" else []), role
    open_ids: list[str] = []
    if asked and request:
        errors.append(_UNANSWERED.format(f"messages.{last}", ", ".join(asked)))
    elif asked:
        open_ids = asked
    return errors, open_ids, breakpoints, uses_tools


def _system_errors(system: Any, errors: list[str]) -> int:
    if isinstance(system, str):
        return 0
    if not isinstance(system, list):
        errors.append("system: must be a string or a list of text blocks")
        return 0
    for index, block in enumerate(system):
        errors += [f"system.{index}{p}" for p in block_errors(block, ("text",), "the system prompt")]
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
        if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
            errors.append(f"tools.{index}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'")
        elif name in names:
            errors.append("tools: Tool names must be unique.")
        names.add(str(name))
        breakpoints += cache_errors(tool.get("cache_control"), f"tools.{index}.cache_control", errors)
        if tool.get("type") not in (None, "custom"):
            continue  # a server tool ("web_search_20250305", ...): its own keys, not checked here
        errors += [
            f"tools.{index}.{k}: Extra inputs are not permitted" for k in sorted(tool.keys() - _TOOL_KEYS)
        ]
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            errors.append(f'tools.{index}.input_schema: must be a JSON Schema object with "type": "object"')
        elif isinstance(keys := schema.get("properties"), dict) and not all(
            isinstance(k, str) and PROPERTY_KEY_RE.fullmatch(k) for k in keys
        ):
            # The API checks the top-level keys only (a nested "filter[id]" passes).
            errors.append(
                f"tools.{index}.custom.input_schema.properties: "
                "Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'"
            )
    return breakpoints
