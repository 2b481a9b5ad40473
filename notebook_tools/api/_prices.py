"""Prices and context windows of the models, from the one dated prices file (`model_prices.json`).

The file lists each model's input price and context window, and the pricing page's multipliers for
output, cache writes (5 minutes, 1 hour) and cache reads, and the server tools' per-request prices.
A response's cost is its usage priced so; a model the file does not know has no price (None), never 0.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

__all__ = ["context_window", "cost_of", "model_entry", "prices"]

_PRICES = Path(__file__).with_name("model_prices.json")


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_PRICES.read_text(encoding="utf-8"))
    return data


def prices() -> dict[str, Any]:
    """The price list: `taken` (date), `source`, `multipliers`, `server_tools_per_request`, `models`."""
    copy: dict[str, Any] = json.loads(json.dumps(_table()))  # callers may not change the cached table
    return copy


def model_entry(model: str) -> dict[str, Any] | None:
    """The file's entry for `model` (a dated name such as claude-sonnet-4-6-20260101 matches its family)."""
    models = _table()["models"]
    for entry in models:
        if model == entry["name"]:
            return dict(entry)
    for entry in sorted(models, key=lambda e: -len(e["name"])):
        if model.startswith(entry["name"] + "-"):
            return dict(entry)
    return None


def context_window(model: str) -> int | None:
    """Tokens a request to `model` may hold, when the prices file knows the model."""
    entry = model_entry(model)
    return int(entry["context_window"]) if entry and "context_window" in entry else None


def cost_of(usage: dict[str, Any], model: str) -> float | None:
    """The estimated cost in dollars of one response's `usage`; None for an unknown model."""
    entry = model_entry(model)
    if entry is None:
        return None
    table = _table()
    rate = float(entry["input_per_million"]) / 1_000_000
    m = table["multipliers"]
    breakdown = usage.get("cache_creation") or {}
    written = int(usage.get("cache_creation_input_tokens") or 0)
    hour = int(breakdown.get("ephemeral_1h_input_tokens") or 0) if isinstance(breakdown, dict) else 0
    hour = min(hour, written)
    cost = rate * (
        int(usage.get("input_tokens") or 0)
        + m["output"] * int(usage.get("output_tokens") or 0)
        + m["cache_write_5m"] * (written - hour)
        + m["cache_write_1h"] * hour
        + m["cache_read"] * int(usage.get("cache_read_input_tokens") or 0)
    )
    tools = usage.get("server_tool_use") or {}
    if isinstance(tools, dict):
        for kind, price in table["server_tools_per_request"].items():
            count = tools.get(kind)
            if isinstance(count, int) and not isinstance(count, bool):
                cost += price * count
    return round(float(cost), 10)
