"""What the tool bench sends its view: events with long strings cut, but pictures whole.

A tool's output can be huge and a comm message should not be: strings are cut, lists and objects
shortened, deep nesting summarised (`bounded`). A picture in the result (a figure, an image) is the
one thing the person must see whole, so the final payload keeps its base64 data up to
`MAX_IMAGE_CHARS` (`outbound`); the view shows only PNG, JPEG, GIF and WebP data, never SVG.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_ITEMS", "MAX_REPORTS", "MAX_STRING", "REPORTS", "bounded", "outbound"]

MAX_STRING = 20_000
"""Longest string sent to the view; the rest is cut (the full payload stays in `bench.runs`)."""
MAX_ITEMS = 200
MAX_DEPTH = 12
MAX_REPORTS = 500
"""Progress, step and preview events of one run sent to the view; later ones are counted, not sent."""
REPORTS = {"tool_progress", "tool_step", "tool_result_preview"}
MAX_IMAGE_CHARS = 7_000_000
"""Longest base64 image data the view gets (a 5 MB picture); a larger one is cut like any string."""
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""The pictures the view shows (the Messages API's image types: never SVG, which can hold script)."""


SHOWN_APART = {"type": "image", "source": "(shown with the final result)"}


def bounded(value: Any, depth: int = 0) -> Any:
    """`value` with long strings cut, long lists and objects shortened, deep nesting summarised."""
    if isinstance(value, str):
        if len(value) <= MAX_STRING:
            return value
        return value[:MAX_STRING] + f"… ({len(value) - MAX_STRING:,} more characters)"
    if isinstance(value, bool | int | float) or value is None:
        return value
    if depth >= MAX_DEPTH:
        return "… (nested too deep)"
    if isinstance(value, Mapping):
        items = list(value.items())
        out = {str(k)[:200]: bounded(v, depth + 1) for k, v in items[:MAX_ITEMS]}
        if len(items) > MAX_ITEMS:
            out["…"] = f"{len(items) - MAX_ITEMS} more keys"
        return out
    if isinstance(value, list | tuple):
        out_list = [bounded(v, depth + 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            out_list.append(f"… ({len(value) - MAX_ITEMS} more items)")
        return out_list
    return bounded(str(value), depth)


def _image_blocks(content: Any) -> list[tuple[int, str]]:
    """(position, data) of each image block of a model-facing content the view may show whole."""
    if not isinstance(content, list):
        return []
    found = []
    for k, block in enumerate(content[:MAX_ITEMS]):
        source = block.get("source") if isinstance(block, dict) and block.get("type") == "image" else None
        if isinstance(source, dict) and source.get("media_type") in IMAGE_TYPES:
            data = source.get("data")
            if source.get("type") == "base64" and isinstance(data, str) and len(data) <= MAX_IMAGE_CHARS:
                found.append((k, data))
    return found


def outbound(event: dict[str, Any]) -> Any:
    """An event as the view gets it: `bounded`, but the final payload's pictures whole.

    The tool's own `tool_completed` carries the same content: its pictures are left out there
    (the log does not show them), so a figure crosses the comm once. The event is not changed.
    """
    kind, data = event.get("event"), event.get("data")
    if not isinstance(data, dict):
        return bounded(event)
    if kind == "tool_event" and isinstance(data.get("data"), dict):
        content = data["data"].get("content")
        left_out = {k for k, _ in _image_blocks(content)}
        if left_out:
            content = [SHOWN_APART if k in left_out else b for k, b in enumerate(content)]
            event = {**event, "data": {**data, "data": {**data["data"], "content": content}}}
        return bounded(event)
    facing = data.get("model_facing_result") if kind == "data" else None
    images = _image_blocks(facing.get("content")) if isinstance(facing, dict) else []
    out = bounded(event)
    for k, picture in images:
        out["data"]["model_facing_result"]["content"][k]["source"]["data"] = picture
    return out
