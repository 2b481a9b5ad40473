"""The Messages API's rules for thinking blocks in a request's history: what it refuses with HTTP 400.

Pure functions of a request body. Sources: the extended-thinking docs
(platform.claude.com/docs/en/build-with-claude/extended-thinking: "Preserving thinking blocks": during tool
use "you must pass thinking blocks back to the API for the last assistant message", unmodified; "you cannot
toggle thinking in the middle of an assistant turn") and the API's own messages as public issue threads
quote them:

- "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When
  `thinking` is enabled, a final `assistant` message must start with a thinking block ..." (anomalyco/
  opencode #3077, mastra-ai/mastra #7799, Kilo-Org/kilocode #5219, deepset-ai/haystack-core-integrations
  #2146). Checked with `{"type": "enabled"}` thinking (adaptive thinking may answer without a thought), on the
  first assistant message of the final assistant turn (a turn runs from a person's message through its tool
  results), when the request continues that turn (it ends with tool results, or with the assistant message).
- "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot
  contain `thinking`. To use thinking blocks, enable `thinking` in your request." (tailcallhq/forgecode #1853)
- "messages.5.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be
  modified. These blocks must remain as they were in the original response." (anthropics/claude-code
  #19539, #63203, #25361): a thinking block of the latest assistant message with an empty signature (the
  API never sends one), or, for a caller that knows which signatures it issued, a changed text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["thinking_history_errors"]

THINKING_TYPES = ("thinking", "redacted_thinking")
_MUST_START = (
    "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When "
    "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
    "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from "
    "previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
_DISABLED = (
    "messages.{i}.content.{k}: When thinking is disabled, an `assistant` message in the final position "
    "cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request."
)
_MODIFIED = (
    "messages.{i}.content.{k}: `thinking` or `redacted_thinking` blocks in the latest assistant message "
    "cannot be modified. These blocks must remain as they were in the original response."
)


def _content(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _person(message: Any) -> bool:
    """A user message a person wrote (not only tool results): it starts an assistant turn."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    return isinstance(content, str) or any(
        not (isinstance(b, dict) and b.get("type") == "tool_result") for b in _content(message)
    )


def thinking_history_errors(body: dict[str, Any], issued: Mapping[str, str] | None = None) -> list[str]:
    """Every reason the API refuses the thinking blocks (or their absence) in `body`'s messages; [] when none.

    Args:
        body: The JSON body of a `POST /v1/messages` request.
        issued: Signatures the caller's own (scripted) API gave, with the thinking text of each: a block
            carrying one of them with another text was modified.
    """
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or not messages:
        return []
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    errors: list[str] = []
    last = len(messages) - 1
    final = messages[last] if isinstance(messages[last], dict) else {}
    if kind not in ("enabled", "adaptive") and final.get("role") == "assistant":
        errors += [
            _DISABLED.format(i=last, k=k)
            for k, b in enumerate(_content(final))
            if isinstance(b, dict) and b.get("type") in THINKING_TYPES
        ]
    if kind == "enabled" and not _person(messages[last]):
        start = max((i for i, m in enumerate(messages) if _person(m)), default=-1)
        first = next(
            (
                i
                for i in range(start + 1, len(messages))
                if isinstance(messages[i], dict) and messages[i].get("role") == "assistant"
            ),
            None,
        )
        blocks = _content(messages[first]) if first is not None else []
        head = blocks[0] if blocks else None
        found = head.get("type") if isinstance(head, dict) else "text"
        if first is not None and found not in THINKING_TYPES:
            errors.append(_MUST_START.format(i=first, found=found))
    latest = max(
        (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"),
        default=None,
    )
    for k, block in enumerate(_content(messages[latest]) if latest is not None else []):
        if not isinstance(block, dict) or block.get("type") != "thinking":
            continue
        signature = block.get("signature")
        text = block.get("thinking")
        changed = isinstance(signature, str) and issued is not None and issued.get(signature, text) != text
        if signature == "" or changed:
            errors.append(_MODIFIED.format(i=latest, k=k))
    return errors
