"""Token counts and estimated cost as people read them: a line after each turn, the bottom toolbar, /status.

The numbers come from the agent's `UsageEvent` (the session's `Usage`, this turn's, and how full the
context window was on the last request); the cost is the estimate priced from the dated prices file
(`api/model_prices.json`), so it is marked "≈", and called unknown when the model is not priced there.
A scripted model's replies (no key: `testing.ScriptedTransport`) cost nothing and their tokens are the
script's estimates: the line says so instead of a price.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "context_text",
    "cost_text",
    "server_tools_text",
    "status_rows",
    "tokens_text",
    "toolbar_text",
    "turn_line",
]


_NAMES = {
    "web_search_requests": ("web search", "web searches"),
    "web_fetch_requests": ("web fetch", "web fetches"),
}


def tokens_text(usage: Any, writes: bool = False) -> str:
    """Tokens as "12,345 in (10,000 from cache) / 456 out", each input token counted once.

    `writes`: also the tokens written to the cache ("10,000 from cache, 800 written to it").
    """
    sent = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    cache = [
        f"{usage.cache_read_input_tokens:,} from cache" if usage.cache_read_input_tokens else "",
        f"{usage.cache_creation_input_tokens:,} written to it"
        if writes and usage.cache_creation_input_tokens
        else "",
    ]
    detail = ", ".join(c for c in cache if c)
    return f"{sent:,} in{f' ({detail})' if detail else ''} / {usage.output_tokens:,} out"


def server_tools_text(usage: Any) -> str:
    """Server-tool requests as "2 web searches, 1 web fetch" ("" without any)."""
    counts = getattr(usage, "server_tool_use", None) or {}
    parts = []
    for kind, n in counts.items():
        if isinstance(n, int) and n > 0:
            name = str(kind).removesuffix("_requests").replace("_", " ")
            one, many = _NAMES.get(str(kind), (f"{name} request", f"{name} requests"))
            parts.append(f"{n} {one if n == 1 else many}")
    return ", ".join(parts)


SCRIPTED_TEXT = "scripted model: estimated tokens, no cost"
"""What stands for the cost when a scripted model answered every request."""


def cost_text(usage: Any) -> str:
    """The estimated cost, "≈ $0.0123" (a partial estimate says "at least"), or why there is none."""
    requests = getattr(usage, "requests", 0)
    unpriced = getattr(usage, "unpriced_requests", 0)
    cost = float(getattr(usage, "cost_usd", 0.0) or 0.0)
    if requests and getattr(usage, "scripted_requests", 0) >= requests:
        return SCRIPTED_TEXT
    if requests and unpriced >= requests:
        return "cost unknown (model not in the prices file)"
    amount = f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"
    return f"at least ≈ {amount}" if unpriced else f"≈ {amount}"


def context_text(tokens: int, window: int | None) -> str:
    """How full the context window is: "context 24,000 of 200,000 tokens (12%)"."""
    if not tokens:
        return ""
    if not window:
        return f"context {tokens:,} tokens"
    return f"context {tokens:,} of {window:,} tokens ({tokens / window:.0%})"


def _summary(usage: Any, priced: bool = True) -> str:
    parts = [tokens_text(usage), server_tools_text(usage), cost_text(usage) if priced else ""]
    return ", ".join(p for p in parts if p)


def _unpriced(usage: Any) -> bool:
    return bool(usage.requests) and usage.unpriced_requests >= usage.requests


def turn_line(event: Any) -> str:
    """The line after a turn: this turn's tokens and cost, the session's, and the context window."""
    priced = not _unpriced(event.usage)  # else "cost unknown" is said once, at the end
    parts = []
    if event.turn is not None and event.turn.requests:
        parts.append(f"this turn {_summary(event.turn, priced)}")
    if not parts or event.turn.requests != event.usage.requests:  # else the session is this turn
        parts.append(f"session {_summary(event.usage, priced)}")
    parts.append(context_text(event.context_tokens, event.context_window))
    parts.append("" if priced else cost_text(event.usage))
    return " · ".join(p for p in parts if p)


def toolbar_text(event: Any) -> str:
    """The bottom toolbar at the `you>` prompt: the session's tokens and cost, and the context window."""
    usage = event.usage
    sent = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    parts = [f"session {sent:,} in / {usage.output_tokens:,} out tokens", cost_text(usage)]
    parts += [server_tools_text(usage), context_text(event.context_tokens, event.context_window)]
    return " · ".join(p for p in parts if p)


def status_rows(usage: Any, turn: Any, context_tokens: int, window: int | None) -> list[tuple[str, str]]:
    """The usage rows of /status."""
    cost = cost_text(usage).removeprefix("cost ")
    rows = [("tokens", f"{tokens_text(usage, writes=True)} ({usage.requests} requests)"), ("cost", cost)]
    if server_tools_text(usage):
        rows.append(("server tools", server_tools_text(usage)))
    if turn is not None and turn.requests:
        rows.append(("last turn", _summary(turn)))
    if context_tokens:
        rows.append(("context", context_text(context_tokens, window).removeprefix("context ")))
    return rows
