"""The scripted API's token counts and prompt cache: what `usage` would say for a request.

Tokens are estimated, deterministically, at `CHARS_PER_TOKEN` (3.5, as the tool bench estimates them)
characters of each prompt block's compact JSON: a tool definition, a system block, each content block of
each message (a string content counts as one text block). The order is the API's: tools, system, messages.

The cache follows the prompt-caching docs (platform.claude.com/docs/en/build-with-claude/prompt-caching):
- A breakpoint is a block with `cache_control` (a tool, a system block, a message's block; a tool_result
  whose inner blocks carry one), and the top-level `cache_control` ("automatic caching": "applies the cache
  breakpoint to the last cacheable block").
- A request reads the longest cached prefix that ends at a breakpoint or up to 20 blocks before one ("the
  system automatically checks for cache hits at all previous content block boundaries", "up to 20 blocks
  before your explicit breakpoint"), and writes the prefix up to each breakpoint after it.
- A prefix shorter than the minimum cacheable length is not cached, marked or not (`MIN_CACHEABLE`: "1024
  tokens" for Claude Sonnet and Opus 4.x models; the docs list 2048/4096 for some Haiku and Opus models).
- An entry lives for its TTL ("5m" default, or "1h") from its last use ("the cache is refreshed for no
  additional cost each time the cached content is used"), on an injectable clock.
Usage then reports `cache_read_input_tokens`, `cache_creation_input_tokens` (with the
`cache_creation.ephemeral_5m_input_tokens`/`ephemeral_1h_input_tokens` breakdown), and `input_tokens`: the
rest ("input_tokens ... after the last cache breakpoint"). `cache_control` itself is not part of a block's
identity, so a breakpoint that moves on keeps its earlier prefix readable.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CHARS_PER_TOKEN",
    "LOOKBACK",
    "MIN_CACHEABLE",
    "CacheModel",
    "CacheUse",
    "PromptBlock",
    "prompt_blocks",
    "tokens_of",
]

CHARS_PER_TOKEN = 3.5
MIN_CACHEABLE = 1024
LOOKBACK = 20
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def tokens_of(value: Any) -> int:
    """Estimated tokens of a JSON value (a block, a tool): its compact JSON at 3.5 characters a token."""
    return math.ceil(len(_canonical(value)) / CHARS_PER_TOKEN)


def _without_cache_control(block: Any) -> Any:
    if not isinstance(block, dict):
        return block
    out = {k: v for k, v in block.items() if k != "cache_control"}
    if isinstance(out.get("content"), list):
        out["content"] = [_without_cache_control(b) for b in out["content"]]
    return out


def _ttl(block: Any) -> str | None:
    """The TTL of the breakpoint `block` sets, or None when it sets none."""
    if not isinstance(block, dict):
        return None
    marks = [block.get("cache_control")]
    if isinstance(block.get("content"), list):
        marks += [b.get("cache_control") for b in block["content"] if isinstance(b, dict)]
    for mark in marks:
        if isinstance(mark, dict):
            return str(mark.get("ttl", "5m"))
    return None


@dataclass
class PromptBlock:
    """One block of a prompt, in the API's order: its tokens, its prefix's identity, its breakpoint TTL."""

    tokens: int
    key: str
    ttl: str | None = None


def prompt_blocks(body: dict[str, Any], messages: list[Any] | None = None) -> list[PromptBlock]:
    """The blocks of a request's prompt (tools, system, messages), each keyed by the prefix it ends.

    Args:
        body: The request body.
        messages: The messages as the model reads them (after context editing), else the body's.
    """
    items: list[tuple[str, Any]] = [("tools", t) for t in body.get("tools") or []]
    system = body.get("system")
    parts = [{"type": "text", "text": system}] if isinstance(system, str) and system else list(system or [])
    items += [("system", b) for b in parts]
    for message in body.get("messages", []) if messages is None else messages:
        content = message.get("content") if isinstance(message, dict) else None
        role = str(message.get("role")) if isinstance(message, dict) else ""
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        items += [(role, b) for b in parts]
    digest = hashlib.sha256(str(body.get("model", "")).encode())
    blocks = []
    for place, item in items:
        plain = _without_cache_control(item)
        digest.update(f"{place}\0{_canonical(plain)}\0".encode())
        blocks.append(PromptBlock(tokens_of(plain), digest.hexdigest(), _ttl(item)))
    top = body.get("cache_control")
    if isinstance(top, dict) and blocks and blocks[-1].ttl is None:
        blocks[-1].ttl = str(top.get("ttl", "5m"))
    return blocks


@dataclass
class CacheUse:
    """What one request read from and wrote to the cache, in tokens."""

    total: int
    read: int = 0
    written: dict[str, int] = field(default_factory=lambda: {"5m": 0, "1h": 0})

    @property
    def uncached(self) -> int:
        """`input_tokens`: the tokens neither read from nor written to the cache."""
        return self.total - self.read - sum(self.written.values())

    def usage(self) -> dict[str, Any]:
        """The cache part of the API's `usage`."""
        return {
            "input_tokens": self.uncached,
            "cache_creation_input_tokens": sum(self.written.values()),
            "cache_read_input_tokens": self.read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": self.written["5m"],
                "ephemeral_1h_input_tokens": self.written["1h"],
            },
        }


class CacheModel:
    """The prompt cache of one scripted API: entries by prefix, each alive for its TTL on `clock`.

    Args:
        clock: Seconds on a clock that never goes back (`FakeClock().monotonic` in a test).
        min_tokens: The minimum cacheable prefix.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, min_tokens: int = MIN_CACHEABLE) -> None:
        self.clock = clock
        self.min_tokens = min_tokens
        self.entries: dict[str, tuple[float, str]] = {}
        """Prefix key -> (expires at, ttl)."""

    def use(self, blocks: list[PromptBlock]) -> CacheUse:
        """Look the prompt up, write what it marks, and say how many tokens were read, written and not."""
        now = self.clock()
        self.entries = {k: v for k, v in self.entries.items() if v[0] > now}
        prefix = [0]
        for block in blocks:
            prefix.append(prefix[-1] + block.tokens)
        use = CacheUse(total=prefix[-1])
        marks = [i for i, b in enumerate(blocks) if b.ttl is not None]
        hit = -1
        for mark in marks:
            for j in range(mark, max(mark - LOOKBACK, 0) - 1, -1):
                if blocks[j].key in self.entries:
                    hit = max(hit, j)
                    break
        if hit >= 0:
            ttl = self.entries[blocks[hit].key][1]
            self.entries[blocks[hit].key] = (now + TTL_SECONDS.get(ttl, 300.0), ttl)
            use.read = prefix[hit + 1]
        done = hit
        for mark in marks:
            ttl = str(blocks[mark].ttl)
            if mark <= done or prefix[mark + 1] < self.min_tokens:
                continue
            use.written[ttl if ttl in use.written else "5m"] += prefix[mark + 1] - prefix[done + 1]
            self.entries[blocks[mark].key] = (now + TTL_SECONDS.get(ttl, 300.0), ttl)
            done = mark
        return use
