"""A pandas DataFrame as a result: a paged table for the person, shape, dtypes and head/tail for the model.

Nothing here reads more than a page of rows, so a frame of any length converts in bounded time
and memory; the frame itself stays in the kernel (see `Agent.results`) for paging and for the
person to keep working with.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ._kinds import DisplayHints, RichResult

__all__ = ["MODEL_TEXT_CHARS", "PAGE_SIZE", "page_of", "table"]

PAGE_SIZE = 50
"""Rows per page of the person's table."""
MODEL_TEXT_CHARS = 4_000
"""Characters of the model's text about a table (shape, dtypes, head and tail)."""
_MAX_COLUMNS = 200
_CELL_CHARS = 200


def _cell(value: Any, limit: int = _CELL_CHARS) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # "nan", "inf", "-inf": JSON would make them all null
    if isinstance(value, bytes | bytearray):
        value = repr(bytes(value[:limit]))
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + "…"
    return value


def page_of(frame: Any, start: int, size: int = PAGE_SIZE) -> dict[str, Any]:
    """Rows `start` to `start + size` as JSON-safe cells (`index` and `rows`)."""
    if getattr(frame, "ndim", 2) == 1:  # a Series: one column
        frame = frame.to_frame()
    start = max(0, min(int(start), max(len(frame) - 1, 0)))
    size = max(1, min(int(size), 500))
    part = frame.iloc[start : start + size, :_MAX_COLUMNS].map(_cell)  # a page at most: cheap
    split = json.loads(part.to_json(orient="split", date_format="iso", default_handler=str))
    return {
        "start": start,
        "index": [_cell(i) for i in split["index"]],
        "rows": [[_cell(v) for v in row] for row in split["data"]],
    }


def _csv(frame: Any) -> str:
    return str(frame.to_csv()).rstrip("\n")


def model_text(frame: Any, budget: int = MODEL_TEXT_CHARS) -> str:
    """Shape, dtypes, and as many head and tail rows (CSV) as fit in `budget` characters.

    Cells are cut to 100 characters; when even one row does not fit, fewer columns are shown, and
    the text says what was left out.
    """
    rows, cols = frame.shape
    dtypes = ", ".join(f"{name} {dtype}" for name, dtype in list(frame.dtypes.items())[:_MAX_COLUMNS])
    head = f"DataFrame: {rows} rows x {cols} columns\ndtypes: {dtypes}"
    if cols > _MAX_COLUMNS:
        head += f" (and {cols - _MAX_COLUMNS} more columns)"
    if len(head) > budget:
        return head[: budget - 1] + "…"
    if rows == 0:
        return head
    for width in (30, 10, 3, 1):
        narrow = frame.iloc[:, : min(cols, width)]
        shown = "" if cols <= width else f" (the first {width} of {cols} columns)"
        for n in (10, 5, 3, 1):  # the most rows that fit
            if rows <= 2 * n:
                body = f"\nall {rows} rows{shown} (CSV):\n{_csv(narrow.map(_short))}"
            else:
                first, last = _csv(narrow.head(n).map(_short)), _csv(narrow.tail(n).map(_short))
                body = f"\nfirst {n} rows{shown} (CSV):\n{first}\nlast {n} rows (CSV):\n{last}"
            if len(head) + len(body) <= budget:
                return head + body
    return head + "\n(no rows shown: even one row is longer than the budget)"


def _short(value: Any) -> Any:
    return _cell(value, 100)


def table(frame: Any, *, title: str | None = None) -> RichResult:
    """A DataFrame as a `table` result (its first page; later pages are read from the kept frame)."""
    rows, cols = frame.shape
    columns = [str(c) for c in list(frame.columns)[:_MAX_COLUMNS]]
    data = {
        "columns": columns,
        "dtypes": [str(frame.dtypes.iloc[i]) for i in range(len(columns))],
        "shape": [rows, cols],
        "page_size": PAGE_SIZE,
        **page_of(frame, 0),
        "model_text": model_text(frame),
    }
    summary = title or f"DataFrame: {rows} rows x {cols} columns"
    return RichResult(kind="table", data=data, summary=summary, display=DisplayHints(view="table"))
