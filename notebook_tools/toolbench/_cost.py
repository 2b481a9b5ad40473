"""What a tool result would cost the next turn: its characters, tokens, and dollars per model.

Tokens are counted exactly with the API's token counting when a client with a key is given, and
estimated at `CHARS_PER_TOKEN` otherwise; the payload says which. Prices come from
`api/model_prices.json` (one file, dated, easy to update), read through `api._prices`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..api._prices import prices

__all__ = ["CHARS_PER_TOKEN", "cost_estimate", "count_tokens", "prices"]

CHARS_PER_TOKEN = 3.5
"""The estimate's ratio: Claude's tokenizers give about 3.5 characters per token on English and JSON."""


def content_chars(content: str | list[dict[str, Any]]) -> int:
    """Characters the model reads: the text, or the JSON of the blocks (an image counts its base64)."""
    return len(content) if isinstance(content, str) else len(json.dumps(content, ensure_ascii=False))


def cost_estimate(content: str | list[dict[str, Any]], *, exact_tokens: int | None = None) -> dict[str, Any]:
    """Characters, tokens (exact when given, else estimated) and the cost per model of `content`."""
    chars = content_chars(content)
    tokens = exact_tokens if exact_tokens is not None else math.ceil(chars / CHARS_PER_TOKEN)
    table = prices()
    return {
        "char_count": chars,
        "estimated_tokens": tokens,
        "chars_per_token": round(chars / tokens, 3) if tokens else CHARS_PER_TOKEN,
        "method": "count_tokens" if exact_tokens is not None else "estimate",
        "prices_taken": table["taken"],
        "models": [
            {
                "name": m["name"],
                "api": m["api"],
                "input_per_million": m["input_per_million"],
                "estimated_cost_usd": round(tokens * m["input_per_million"] / 1_000_000, 8),
            }
            for m in table["models"]
        ],
    }


async def count_tokens(client: Any, model: str, block: dict[str, Any], name: str) -> int:
    """Exact input tokens the result adds: a conversation with it minus the same with an empty result."""

    def conversation(content: Any) -> list[dict[str, Any]]:
        use = {"type": "tool_use", "id": block["tool_use_id"], "name": name, "input": {}}
        result = {**block, "content": content}
        return [
            {"role": "user", "content": "Run the tool."},
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [result]},
        ]

    tool = {"name": name, "input_schema": {"type": "object"}}
    full = await client.messages.count_tokens(
        model=model, messages=conversation(block["content"]), tools=[tool]
    )
    empty = await client.messages.count_tokens(model=model, messages=conversation("."), tools=[tool])
    return max(int(full.input_tokens) - int(empty.input_tokens), 0)
