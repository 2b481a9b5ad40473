"""What a tool card shows of a rich result: its bounded JSON form, and the pages of a kept table.

A `RichResult` can hold anything a tool made: a diff of two long files, a custom kind's deep
JSON, a 40 MB image. The card gets a form cut to a bound (strings, lists, nesting, files), with
a note saying what was cut; a table carries its first page only (and not the model's text), and
a view asks for later pages, which are read from the live frame the agent keeps (`agent.results`).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, cast

from ..results import RichResult, page_of
from ._wire_kernel import ResultRowsMsg, Shown, ShownFile

if TYPE_CHECKING:
    from ..agent._agent import Agent
    from ._wire_view import ResultPageMsg

__all__ = ["MAX_FILE_BYTES", "page_reply", "shown_form"]

MAX_FILE_BYTES = 5 * 1024 * 1024
"""A file (an image, a PDF) larger than this is named on the card, not carried."""
MAX_FILES_BYTES = 8 * 1024 * 1024
"""All files of one result together."""
MAX_TEXT_CHARS = 200_000
"""One string of the data (a file's content, each side of a diff)."""
MAX_ITEMS = 1_000
"""Entries of one list or object."""
MAX_DEPTH = 30
_NOT_SHOWN = ("model_text",)  # the table's text for the model: the person sees the table itself


class _Cuts:
    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def _bounded(value: Any, cuts: _Cuts, depth: int = 0) -> Any:
    if isinstance(value, str):
        if len(value) > MAX_TEXT_CHARS:
            cuts.note(f"texts longer than {MAX_TEXT_CHARS:,} characters are cut")
            return value[:MAX_TEXT_CHARS] + "…"
        return value
    if isinstance(value, dict | list) and depth >= MAX_DEPTH:
        cuts.note(f"nesting deeper than {MAX_DEPTH} levels is left out")
        return "…"
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            cuts.note(f"objects and lists are cut to {MAX_ITEMS:,} entries")
        pairs = list(value.items())[:MAX_ITEMS]
        return {str(k): _bounded(v, cuts, depth + 1) for k, v in pairs}
    if isinstance(value, list | tuple):
        if len(value) > MAX_ITEMS:
            cuts.note(f"objects and lists are cut to {MAX_ITEMS:,} entries")
        return [_bounded(v, cuts, depth + 1) for v in list(value)[:MAX_ITEMS]]
    return value  # numbers, booleans, None: RichResult checked the data is JSON


def shown_form(result: RichResult) -> Shown:
    """The card's form of `result`: JSON, bounded, with a `note` when anything was cut."""
    cuts = _Cuts()
    data = result.data
    if result.kind == "table" and isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in _NOT_SHOWN}
    files: list[ShownFile] = []
    budget = MAX_FILES_BYTES
    for file in result.files[:MAX_ITEMS]:
        entry: ShownFile = {"mime_type": file.mime_type, "filename": file.filename, "size": len(file.data)}
        if len(file.data) > min(MAX_FILE_BYTES, budget):
            entry["note"] = f"{len(file.data):,} bytes: too big to show here (files up to {MAX_FILE_BYTES:,})"
        else:
            entry["data"] = base64.b64encode(file.data).decode()
            budget -= len(file.data)
        files.append(entry)
    display = result.display
    shown: Shown = {
        "kind": result.kind,
        "summary": result.summary,
        "mime_type": result.mime_type,
        "display": {
            "view": display.view,
            "language": display.language,
            "collapsed": display.collapsed,
            "max_height": display.max_height,
        },
        "data": _bounded(data, cuts),
        "files": files,
    }
    if cuts.notes:
        shown["note"] = "Shortened: " + "; ".join(cuts.notes) + "."
    return shown


def page_reply(agent: Agent | None, message: ResultPageMsg) -> ResultRowsMsg:
    """The `result_rows` answer to a view's `result_page`: rows of the kept frame, or why there are none."""
    reply: dict[str, Any] = {
        "type": "result_rows",
        "request_id": message.request_id,
        "tool_use_id": message.tool_use_id,
        "start": message.start,
        "index": [],
        "rows": [],
    }
    kept = agent.results.get(message.tool_use_id) if agent is not None else None
    if kept is None:
        reply["error"] = (
            "this table is no longer in the kernel (after a restart, or dropped with older results); "
            "run the tool again for its rows"
        )
        return cast(ResultRowsMsg, reply)
    frame = kept.value
    if getattr(frame, "ndim", None) == 1 and hasattr(frame, "to_frame"):
        frame = frame.to_frame()  # a Series is shown as a one-column table
    if kept.shown is None or kept.shown.kind != "table" or getattr(frame, "ndim", None) != 2:
        reply["error"] = f"the result of {message.tool_use_id!r} is not a table"
        return cast(ResultRowsMsg, reply)
    rows = len(frame)
    if message.start >= max(rows, 1):
        reply["error"] = f"row {message.start:,} is past the end of the table ({rows:,} rows)"
        return cast(ResultRowsMsg, reply)
    size = kept.shown.data.get("page_size", 50) if isinstance(kept.shown.data, dict) else 50
    try:
        page = page_of(frame, message.start, size if isinstance(size, int) else 50)
    except Exception as exc:  # a frame pandas cannot page (a broken extension dtype): say so
        reply["error"] = f"the rows could not be read: {type(exc).__name__}: {exc}"
        return cast(ResultRowsMsg, reply)
    reply.update(start=page["start"], index=page["index"], rows=page["rows"])
    return cast(ResultRowsMsg, reply)
