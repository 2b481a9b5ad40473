"""The latest state of a running call, folded from its progress events, as the front ends show it.

A tool may report thousands of times; the Chat and the terminal show only where it is now: its
latest step (name and data on one line), how far along it is, and its latest partial result. One
pure function folds each `ToolProgress` / `ToolStep` / `ToolResultPreview` into that state, bounded
in size whatever the tool sends, so both front ends show the same words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._events import ToolProgress, ToolResultPreview, ToolStep

__all__ = ["PROGRESS_EVENTS", "fold", "percent", "step_line"]

PROGRESS_EVENTS = frozenset({"tool_progress", "tool_step", "tool_result_preview"})
"""The event types `fold` reads."""

STEP_CHARS = 300
MESSAGE_CHARS = 300
PREVIEW_CHARS = 1_000
_VALUE_CHARS = 60
_KEYS = 8


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value(value: Any) -> str:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return _cut(" ".join(text.split()), _VALUE_CHARS)


def step_line(step: str, data: dict[str, Any]) -> str:
    """A step on one line: "scraping · urls_scraped 3 / urls_total 5" (at most a few keys, cut)."""
    pairs = [f"{' '.join(str(k).split())} {_value(v)}" for k, v in list(data.items())[:_KEYS]]
    if len(data) > _KEYS:
        pairs.append(f"+{len(data) - _KEYS} more")
    name = " ".join(str(step).split())
    line = f"{name} · {' / '.join(pairs)}" if pairs else name
    return _cut(line, STEP_CHARS)


def percent(fraction: float | None) -> str:
    """The share as a percentage, "40%" ("" when it is unknown)."""
    return "" if fraction is None else f"{fraction:.0%}"


def fold(state: Mapping[str, object] | None, event: Any) -> dict[str, Any]:
    """`state` (or an empty one) with `event` applied: keys step, fraction, message, preview.

    A progress report without a fraction (None) makes the bar indeterminate.
    """
    new: dict[str, Any] = dict(state or {"step": "", "fraction": None, "message": "", "preview": ""})
    if isinstance(event, ToolProgress):
        new["fraction"] = event.progress
        new["message"] = _cut(" ".join(event.message.split()), MESSAGE_CHARS)
    elif isinstance(event, ToolStep):
        new["step"] = step_line(event.step, event.data)
    elif isinstance(event, ToolResultPreview):
        new["preview"] = _cut(event.preview, PREVIEW_CHARS)
    return new
