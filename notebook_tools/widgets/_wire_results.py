"""Rich tool results on the wire: the bounded form a tool card shows, and table pages on request.

Part of the wire protocol whose one source is `_wire.py` (read its docstring first). A result's
`shown` form is what `notebook_tools.results.RichResult` gives the person, cut to a size a comm
message can carry (`_shown.py` builds it). A table's later pages are read from the live frame in
the kernel: a view's `result_page` (in `_wire_view.py`) gets one `result_rows` reply.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from ._wire_base import STRICT, Count


@with_config(STRICT)
class ShownDisplay(TypedDict):
    """The result's display hints (see `notebook_tools.results.DisplayHints`)."""

    view: Literal["text", "markdown", "code", "table", "tree", "hidden"] | None
    """The preferred view (None: the kind's own)."""
    language: str | None
    """For `code`: the language to highlight."""
    collapsed: bool
    """Start folded: only the summary shows until the person opens it."""
    max_height: int | None
    """Pixels before the view scrolls."""


@with_config(STRICT)
class ShownFile(TypedDict):
    """A binary part of a result (an image, a PDF, any file)."""

    mime_type: str
    filename: str | None
    size: Count
    """Bytes of the whole file."""
    data: NotRequired[str]
    """The bytes as base64; absent when the file is over the size a card carries (see `note`)."""
    note: NotRequired[str]
    """Why the bytes are not here."""


@with_config(STRICT)
class Shown(TypedDict):
    """What the person sees of a tool's result: its kind's view, the data cut to a bound."""

    kind: str
    """A well-known kind (text, diff, file_content, file_list, json, table, binary) or a custom one
    ("git.status"), shown as a JSON tree."""
    summary: str | None
    """One line, always shown (also when the view is hidden or folded)."""
    mime_type: str | None
    display: ShownDisplay
    data: Any
    """The kind's fields (a table: its first page, never the whole frame)."""
    files: list[ShownFile]
    note: NotRequired[str]
    """What was cut to keep the message small (long texts, long lists, deep nesting)."""


@with_config(STRICT)
class ResultRowsMsg(TypedDict):
    """The reply to `result_page`: a page of rows, or why there is none."""

    type: Literal["result_rows"]
    request_id: str
    tool_use_id: str
    start: Count
    """The page's first row (as asked, or the error's request)."""
    index: list[Any]
    """The rows' index labels (empty with `error`)."""
    rows: list[list[Any]]
    """Cells, row by row, in the table's columns (empty with `error`)."""
    error: NotRequired[str]
    """Why there are no rows (the table is gone after a restart, the start is past the end, ...)."""
