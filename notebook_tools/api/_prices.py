"""Prices and context windows of the models, from the one dated prices file (`model_prices.json`).

The file lists each model's input price and context window, and the pricing page's multipliers for
output, cache writes (5 minutes, 1 hour) and cache reads, and the server tools' per-request prices.
A response's cost is its usage priced so; a model the file does not know has no price (None), never 0.
A scripted model's reply (`testing.ScriptedTransport`) says so in its usage (`SCRIPTED_USAGE`, a key the
real API never sends): it costs nothing, whatever model the request named.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

__all__ = [
    "SCRIPTED_USAGE",
    "TOKEN_FIELDS",
    "billed_tokens",
    "context_tokens_of",
    "context_window",
    "cost_of",
    "model_entry",
    "prices",
    "token_count",
]

SCRIPTED_USAGE = "scripted"
"""The usage key (true) of a scripted model's reply: its tokens are estimates, its cost nothing."""
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")

_PRICES = Path(__file__).with_name("model_prices.json")
_DATED = re.compile(r"[-@]\d{8}")


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_PRICES.read_text(encoding="utf-8"))
    return data


def prices() -> dict[str, Any]:
    """The price list: `taken` (date), `source`, `multipliers`, `server_tools_per_request`, `models`."""
    copy: dict[str, Any] = json.loads(json.dumps(_table()))  # callers may not change the cached table
    return copy


def model_entry(model: str) -> dict[str, Any] | None:
    """The file's entry for `model`; a dated snapshot (claude-sonnet-4-6-20260101) is its model's."""
    models = _table()["models"]
    for entry in models:
        if model == entry["name"]:
            return dict(entry)
    for entry in models:  # a dated snapshot (-20260101, Vertex's @20260101) of a listed model
        if _DATED.fullmatch(model[len(entry["name"]) :]) and model.startswith(entry["name"]):
            return dict(entry)
    return None


def context_window(model: str) -> int | None:
    """Tokens a request to `model` may hold, when the prices file knows the model."""
    entry = model_entry(model)
    return int(entry["context_window"]) if entry and "context_window" in entry else None


def token_count(value: Any) -> int:
    """A token count as the API sends one; anything else (a bool, a negative, an object) counts 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def context_tokens_of(usage: dict[str, Any]) -> int:
    """Every input token of the response's last step: how full the context window is now."""
    return sum(
        token_count(usage.get(k))
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )


def billed_tokens(usage: dict[str, Any]) -> dict[str, int]:
    """The tokens a response is billed for, by field (and `ephemeral_1h_input_tokens` written).

    With compaction the top-level counts are the final iteration's only; the compaction docs: sum the
    `iterations` array for the whole response's usage.
    """
    parts = usage.get("iterations")
    if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) for p in parts):
        parts = [usage]
    total = dict.fromkeys((*TOKEN_FIELDS, "ephemeral_1h_input_tokens"), 0)
    for part in parts:
        for key in TOKEN_FIELDS:
            total[key] += token_count(part.get(key))
        breakdown = part.get("cache_creation")
        hour = breakdown.get("ephemeral_1h_input_tokens") if isinstance(breakdown, dict) else None
        total["ephemeral_1h_input_tokens"] += token_count(hour)
    return total


def cost_of(usage: dict[str, Any], model: str) -> float | None:
    """The estimated cost in dollars of one response's `usage`; None when a model in it is not priced.

    Each of a response's `iterations` (compaction, an advisor's own run) is priced at the model it names,
    else at `model`, the response's. A scripted model's reply (`SCRIPTED_USAGE`) costs 0.
    """
    if usage.get(SCRIPTED_USAGE) is True:
        return 0.0
    parts = usage.get("iterations")
    if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) for p in parts):
        parts = [usage]
    table = _table()
    m = table["multipliers"]
    cost = 0.0
    for part in parts:
        entry = model_entry(str(part.get("model") or model))
        if entry is None:
            return None
        tokens = billed_tokens({k: v for k, v in part.items() if k != "iterations"})
        written = tokens["cache_creation_input_tokens"]
        hour = min(tokens["ephemeral_1h_input_tokens"], written)
        cost += (float(entry["input_per_million"]) / 1_000_000) * (
            tokens["input_tokens"]
            + m["output"] * tokens["output_tokens"]
            + m["cache_write_5m"] * (written - hour)
            + m["cache_write_1h"] * hour
            + m["cache_read"] * tokens["cache_read_input_tokens"]
        )
    tools = usage.get("server_tool_use") or {}
    if isinstance(tools, dict):
        for kind, price in table["server_tools_per_request"].items():
            cost += price * token_count(tools.get(kind))
    return round(cost, 10)
