"""Builders of the well-known result kinds, each with the summary a person reads at a glance."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from ._kinds import Binary, DisplayHints, RichResult

__all__ = ["binary", "diff", "file_content", "file_list", "json_result", "text"]


def text(content: str, *, summary: str | None = None, display: DisplayHints | None = None) -> RichResult:
    """Plain text (`display=DisplayHints(view="markdown")` or `view="code"` to show it so)."""
    return RichResult(
        kind="text", data={"content": content}, summary=summary, display=display or DisplayHints()
    )


def diff(
    path: str,
    original: str,
    modified: str,
    *,
    is_new: bool = False,
    bytes_written: int | None = None,
    summary: str | None = None,
) -> RichResult:
    """A change to a file: the person sees the hunks, the model a unified diff."""
    if bytes_written is None:
        bytes_written = len(modified.encode())
    if summary is None:
        added, removed = diff_counts(original, modified)
        summary = (
            f"Created {path} ({bytes_written} bytes)"
            if is_new
            else f"Edited {path}: +{added} -{removed} lines"
        )
    data = {
        "path": path,
        "original": original,
        "modified": modified,
        "is_new": is_new,
        "bytes_written": bytes_written,
    }
    return RichResult(kind="diff", data=data, summary=summary)


def diff_counts(original: str, modified: str) -> tuple[int, int]:
    """Lines added and removed."""
    lines = list(difflib.unified_diff(original.splitlines(), modified.splitlines(), lineterm="", n=0))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return added, removed


def unified(path: str, original: str, modified: str, *, is_new: bool = False) -> str:
    """The unified diff text (3 lines of context)."""
    before = "/dev/null" if is_new else f"a/{path}"
    lines = difflib.unified_diff(
        original.splitlines(), modified.splitlines(), fromfile=before, tofile=f"b/{path}", lineterm=""
    )
    return "\n".join(lines)


def file_content(
    path: str, content: str, *, size: int | None = None, language: str | None = None
) -> RichResult:
    """A file's text (shown as code, highlighted in `language` when given)."""
    size = len(content.encode()) if size is None else size
    display = DisplayHints(view="code", language=language) if language else DisplayHints()
    return RichResult(
        kind="file_content",
        data={"path": path, "content": content, "size": size},
        summary=f"{path} ({size} bytes)",
        display=display,
    )


def file_list(path: str, files: Sequence[str | Mapping[str, Any]]) -> RichResult:
    """Entries of a folder: names, or dicts with `name` (and `size`, `is_dir`)."""
    entries = [{"name": f} if isinstance(f, str) else dict(f) for f in files]
    return RichResult(
        kind="file_list",
        data={"path": path, "files": entries, "count": len(entries)},
        summary=f"{path}: {len(entries)} entries",
    )


def json_result(data: Any, *, summary: str | None = None, collapsed: bool = False) -> RichResult:
    """Any JSON value, shown as a collapsible tree."""
    return RichResult(
        kind="json", data={"data": data}, summary=summary, display=DisplayHints(collapsed=collapsed)
    )


def binary(
    data: bytes, mime_type: str, *, filename: str | None = None, summary: str | None = None
) -> RichResult:
    """Bytes: an image (the model sees it), a PDF (a document block), any other file (named for the model)."""
    name = filename or mime_type
    return RichResult(
        kind="binary",
        data={"filename": filename, "mime_type": mime_type, "size": len(data)},
        summary=summary or f"{name} ({len(data)} bytes)",
        mime_type=mime_type,
        files=[Binary(mime_type=mime_type, data=data, filename=filename)],
    )
