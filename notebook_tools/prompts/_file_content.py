"""What the model receives for the files a person chose, and which files a prompt accepts.

Text inline (truncated), images as image blocks, CSV/TSV as a preview plus the saved
path, anything else as metadata; bytes are read from where the file was saved.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from ._accept import accepts
from ._files import FileRecord

__all__ = ["accepts", "content_for_files"]

MAX_IMAGE_BYTES = 5 * 1024 * 1024  # the Messages API's limit for one image
TEXT_INLINE_CHARS = 20_000
PREVIEW_LINES = 15
_IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}


def content_for_files(records: list[FileRecord]) -> list[dict[str, Any]]:
    """The tool_result content the model receives for the chosen files (read from where they are saved)."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": json.dumps([r.meta() for r in records])}]
    for record in records:
        data = Path(record.path).read_bytes()
        kind = record.media_type
        if kind in _IMAGE_TYPES and record.size <= MAX_IMAGE_BYTES:
            blocks.append({"type": "text", "text": f"Image {record.name}:"})
            source = {"type": "base64", "media_type": kind, "data": base64.b64encode(data).decode()}
            blocks.append({"type": "image", "source": source})
            continue
        text = _as_text(data, kind, record.name)
        if text is None:
            continue
        if record.name.lower().endswith((".csv", ".tsv")) or kind in (
            "text/csv",
            "text/tab-separated-values",
        ):
            lines = text.splitlines()
            preview = "\n".join(lines[:PREVIEW_LINES])
            more = f"\n[{len(lines) - PREVIEW_LINES} more lines]" if len(lines) > PREVIEW_LINES else ""
            blocks.append(
                {
                    "type": "text",
                    "text": f"{record.name} ({len(lines)} lines) is saved at {record.path}. "
                    f"First lines:\n{preview}{more}",
                }
            )
        else:
            shown = text[:TEXT_INLINE_CHARS]
            cut = (
                f"\n[truncated: showing {len(shown)} of {len(text)} characters]"
                if len(text) > len(shown)
                else ""
            )
            blocks.append({"type": "text", "text": f"Contents of {record.name}:\n{shown}{cut}"})
    return blocks


def _as_text(data: bytes, media_type: str, name: str) -> str | None:
    texty = media_type.startswith("text/") or media_type in ("application/json", "application/xml")
    if not texty and not name.lower().endswith(
        (".md", ".txt", ".csv", ".tsv", ".py", ".yaml", ".yml", ".toml")
    ):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
