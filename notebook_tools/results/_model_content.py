"""The model's face of a rich result: compact, within a character budget, essential content first.

Text goes first as one text block: the summary, then the kind's content (a unified diff, the file's
text, the folder's entries, the JSON), cut to the budget with a notice saying so. Images follow as
image blocks and PDFs as document blocks; any other file is named, not sent.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..api._blocks import IMAGE_TYPES
from ._builders import unified
from ._kinds import Binary, RichResult

__all__ = ["model_content", "model_text"]

_IMAGE_LIMIT = 5 * 1024 * 1024  # the API refuses an image over 5 MB


def _cut(text: str, limit: int) -> str:
    """At most `limit` characters, the notice included when something was cut."""
    if len(text) <= limit:
        return text
    notice = f"\n[truncated: {len(text)} characters in all]"
    keep = max(limit - len(notice), 0)
    return (text[:keep] + notice)[:limit] if limit > 0 else ""


def model_text(result: RichResult) -> str:
    """The whole text the model would read, before the budget."""
    data: Any = result.data
    kind = result.kind
    head = f"{result.summary}\n" if result.summary else ""
    if kind == "text" and isinstance(data, dict):
        return head + str(data.get("content", ""))
    if kind == "diff" and isinstance(data, dict):
        body = unified(data["path"], data["original"], data["modified"], is_new=bool(data.get("is_new")))
        return head + (body or "(no changes)")
    if kind == "file_content" and isinstance(data, dict):
        return head + str(data.get("content", ""))
    if kind == "file_list" and isinstance(data, dict):
        lines = [f"{f.get('name', '?')}{'/' if f.get('is_dir') else ''}" for f in data.get("files", [])]
        return head + "\n".join(lines)
    if kind == "table" and isinstance(data, dict) and isinstance(data.get("model_text"), str):
        about: str = data["model_text"]  # it starts with the shape: a default summary would repeat it
        return about if result.summary and about.startswith(result.summary) else head + about
    if kind == "binary":
        return head.rstrip("\n")
    if kind == "json" and isinstance(data, dict) and "data" in data:
        data = data["data"]
    label = "" if kind in ("json",) else f"[{kind}] "
    return f"{label}{head}{json.dumps(data, ensure_ascii=False, default=str)}"


def _file_block(item: Binary) -> dict[str, Any] | str:
    if item.mime_type in IMAGE_TYPES and len(item.data) <= _IMAGE_LIMIT:
        source = {
            "type": "base64",
            "media_type": item.mime_type,
            "data": base64.b64encode(item.data).decode(),
        }
        return {"type": "image", "source": source}
    if item.mime_type == "application/pdf":
        source = {
            "type": "base64",
            "media_type": "application/pdf",
            "data": base64.b64encode(item.data).decode(),
        }
        block: dict[str, Any] = {"type": "document", "source": source}
        if item.filename:
            block["title"] = item.filename[:500]
        return block
    name = item.filename or "a file"
    return f"[{name}: {item.mime_type}, {len(item.data)} bytes, shown to the user; not readable here]"


def model_content(result: RichResult, max_chars: int) -> str | list[dict[str, Any]]:
    """What the model receives for `result`: text within `max_chars`, then image/document blocks."""
    text = model_text(result)
    notes: list[str] = []
    blocks: list[dict[str, Any]] = []
    for item in result.files:
        made = _file_block(item)
        if isinstance(made, str):
            notes.append(made)
        else:
            blocks.append(made)
    text = "\n".join(part for part in (text, *notes) if part)
    text = _cut(text, max_chars) if text else ""
    if not blocks:
        return text or f"({result.kind} result)"
    return ([{"type": "text", "text": text}] if text else []) + blocks
