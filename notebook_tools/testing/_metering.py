"""The `usage` (and `context_management`) of a scripted reply, computed as the API would compute them.

Input tokens come from the request as the model reads it (`_context_model`: after compaction and context
editing), split between the simulated prompt cache (`_cache_model`) and plain input; output tokens are
estimated from the reply's content at the same 3.5 characters a token; `server_tool_use` counts the reply's
web searches and fetches (the two counts the API reports, `ServerToolUsage`). A `Turn`'s explicit counts win.

Compaction (docs: build-with-claude/compaction-threshold): when a compact edit's trigger is reached, the
reply starts with a `compaction` block holding the scripted summary; with `pause_after_compaction` the reply
is that block alone, stop_reason "compaction". Usage then has `iterations` (the summarizing pass, then the
reply), and its top-level counts are the reply's, read from the compacted context (tools, system, the
summary and the last user message).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._cache_model import CHARS_PER_TOKEN, MIN_CACHEABLE, CacheModel, CacheUse, prompt_blocks, tokens_of
from ._context_model import manage
from ._steps import Turn

__all__ = ["Meter", "Metered"]

_COUNTED = {"web_search": "web_search_requests", "web_fetch": "web_fetch_requests"}


def default_summary(body: dict[str, Any]) -> str:
    """The scripted model's summary of a conversation: what it was, in one line (deterministic)."""
    messages = body.get("messages") or []
    return f"Summary of the conversation so far: {len(messages)} messages, compacted by the scripted model."


@dataclass
class Metered:
    """A reply's content (a compaction block may lead it), stop reason, usage and context management."""

    content: list[dict[str, Any]]
    stop_reason: str
    usage: dict[str, Any]
    context_management: dict[str, Any] | None = None


class Meter:
    """Counts the tokens of each request of one scripted API, with its prompt cache.

    Args:
        clock: Seconds that never go back, for cache TTLs (`FakeClock().monotonic` in a test).
        min_cacheable: The minimum cacheable prefix, in tokens.
        summary: The compaction summary for a request body (a function), or a fixed text.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        min_cacheable: int = MIN_CACHEABLE,
        summary: str | Callable[[dict[str, Any]], str] | None = None,
    ) -> None:
        self.cache = CacheModel(clock, min_cacheable)
        self.summary = summary

    def _summary(self, body: dict[str, Any]) -> str:
        if callable(self.summary):
            return self.summary(body)
        return self.summary if isinstance(self.summary, str) else default_summary(body)

    def measure(self, body: dict[str, Any], served: Turn, content: list[dict[str, Any]]) -> Metered:
        """The usage of replying `content` (the served turn, ids given) to `body`."""

        def count(messages: list[Any]) -> int:
            return sum(b.tokens for b in prompt_blocks(body, messages))

        managed = manage(body, count)
        stop = served.final_stop_reason()
        iterations: list[dict[str, Any]] = []
        messages = managed.messages
        if managed.compact is not None:
            summary = {"type": "compaction", "content": self._summary(body)}
            before = count(messages)
            iterations.append(_iteration("compaction", CacheUse(total=before), tokens_of(summary)))
            last = [m for m in messages[-1:] if m.get("role") == "user"]
            messages = [{"role": "assistant", "content": [summary]}, *last]
            if managed.compact.get("pause_after_compaction"):
                content, stop = [summary], "compaction"
            else:
                content = [summary, *content]
        use = CacheUse(total=count(messages))
        if served.input_tokens is None:
            use = self.cache.use(prompt_blocks(body, messages))
        usage = use.usage()
        if served.input_tokens is not None:
            usage["input_tokens"] = served.input_tokens
        for key in ("cache_creation_input_tokens", "cache_read_input_tokens"):
            value = getattr(served, key)
            if value is not None or served.input_tokens is not None:
                usage[key] = value or 0
        output = served.output_tokens
        if output is None:
            output = max(1, math.ceil(sum(len(_written(b)) for b in content) / CHARS_PER_TOKEN))
        usage["output_tokens"] = output
        usage["service_tier"] = "standard"
        names = [b.get("name") for b in content if b.get("type") in ("server_tool_use", "mcp_tool_use")]
        if names:
            usage["server_tool_use"] = {v: sum(1 for n in names if n == k) for k, v in _COUNTED.items()}
        if iterations:
            iterations.append(_iteration("message", use, output))
            usage["iterations"] = iterations
        context = {"applied_edits": managed.applied_edits} if managed.managed else None
        return Metered(content=content, stop_reason=stop, usage=usage, context_management=context)


def _iteration(kind: str, use: CacheUse, output: int) -> dict[str, Any]:
    cache = use.usage()
    return {
        "type": kind,
        "input_tokens": cache["input_tokens"],
        "output_tokens": output,
        "cache_creation_input_tokens": cache["cache_creation_input_tokens"],
        "cache_read_input_tokens": cache["cache_read_input_tokens"],
    }


def _written(block: dict[str, Any]) -> str:
    """What the model wrote of a block (its output tokens): text, thinking, a call's input, a summary."""
    kind = block.get("type")
    if kind in ("text", "thinking"):
        return str(block.get(kind, ""))
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return json.dumps(block.get("input", {}))
    if kind == "compaction":
        return str(block.get("content") or "")
    return ""  # results come from the server; redacted thinking is counted by the API alone
