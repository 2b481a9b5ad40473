"""Turning what a backend tool returns into `tool_result` content the model can read."""

from __future__ import annotations

from typing import Any

import pydantic
import pydantic_core

from ._state import ToolResult

__all__ = ["preview_text", "to_result_content", "truncate_content"]

NO_VALUE = "(the tool returned no value)"


def to_result_content(value: Any) -> str | list[dict[str, Any]]:
    """Text for most values; content blocks when the tool returned valid Messages API blocks.

    Strings pass through, None becomes a short notice, lists of content blocks stay
    blocks, and anything else is JSON (pydantic serializes models, dataclasses,
    dates, ...) or, failing that, its `str()`.
    """
    if value is None:
        return NO_VALUE
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, dict) and "type" in v for v in value):
        try:
            return ToolResult(tool_use_id="_", content=value).content
        except pydantic.ValidationError:
            pass
    try:
        return pydantic_core.to_json(value, fallback=str).decode()
    except (pydantic_core.PydanticSerializationError, ValueError, TypeError):
        return str(value)


def truncate_content(content: str | list[dict[str, Any]], limit: int) -> str | list[dict[str, Any]]:
    """Cut text past `limit` characters, saying so, so the model knows it saw only part."""
    if isinstance(content, str):
        if len(content) <= limit:
            return content
        notice = f"\n[truncated: showing {limit} of {len(content)} characters]"
        return content[:limit] + notice
    out, used = [], 0
    for block in content:
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str):
            if used + len(text) > limit:
                keep = max(limit - used, 0)
                block = {
                    **block,
                    "text": text[:keep] + f"\n[truncated: showing {keep} of {len(text)} characters]",
                }
            used += len(text)
        out.append(block)
    return out


def preview_text(content: str | list[dict[str, Any]], limit: int = 300) -> str:
    """A short one-line form of tool result content."""
    if isinstance(content, str):
        text = content
    else:
        text = " ".join(
            b.get("text", "") if b.get("type") == "text" else f"[{b.get('type')}]" for b in content
        )
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
