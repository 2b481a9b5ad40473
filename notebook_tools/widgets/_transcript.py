"""The transcript the widget shows, kept in the kernel and sent to views incrementally.

Items are upserted by id; streamed text is coalesced so at most one message per
`interval` seconds (0.1: each message costs the page a frame, issue 40; a tenth of a second is
still read as a flow) goes out however fast tokens arrive, and a running tool's reports
(its `activity`) at most one per `activity_interval`, the latest always. A view that attaches
(or reloads) asks for a snapshot, sent in pages so no message exceeds a bound.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Collection, Sequence
from typing import Any

from ..events._toolset_text import available_tools, container_answer, event_line, is_note, note_line
from ..session._state import ToolResult
from ..session._turns import CONTINUE_NOTE
from ._blocks_view import reply_items
from ._wire_kernel import Activity, Item

__all__ = ["Transcript", "items_from_history", "person_texts", "preview"]

PREVIEW_CHARS = 2_000
SNAPSHOT_PAGE_BYTES = 1024 * 1024


def preview(content: str | list[dict[str, Any]], limit: int = PREVIEW_CHARS) -> str:
    """A short text form of a tool result for display."""
    if isinstance(content, str):
        text = content
    else:
        text = "\n".join(
            b.get("text", "") if b.get("type") == "text" else f"[{b.get('type')}]" for b in content
        )
    return text if len(text) <= limit else text[:limit] + f" … [{len(text) - limit} more characters]"


def person_texts(content: str | list[dict[str, Any]]) -> list[str]:
    """What the person wrote in a user message: its text blocks, without notes of tools run by hand."""
    if isinstance(content, str):
        return [content] if content else []
    texts = (b.get("text") for b in content if b.get("type") == "text")
    return [text for text in texts if text and not is_note(text) and not _continue_note(text)]


def _continue_note(text: str) -> bool:
    """The note `continue_turn()` adds after a cut-off reply: the model's cue, not the person's words."""
    head, _, tail = CONTINUE_NOTE.partition("{limit}")
    return text.startswith(head) and text.endswith(tail)


def items_from_history(
    messages: list[dict[str, Any]], held: Sequence[ToolResult] = (), containers: Collection[str] = ()
) -> list[Item]:
    """Rebuild transcript items from a saved message history (after a restart).

    `held` are results of the open turn not in the history yet (answers given before a restart).
    A call of a name in `containers` (a plugin or skill the model expands) becomes the event row
    the live transcript showed, not a tool card; a person's notes of plugins changed by hand too.
    """
    items: dict[str, Item] = {}
    for index, message in enumerate(messages):
        content = message["content"]
        if message["role"] == "user":  # a bubble per message the person sent (a Stop can join two)
            for k, text in enumerate(person_texts(content)):
                item_id = f"h{index}" if k == 0 else f"h{index}.{k}"
                items[item_id] = {"id": item_id, "kind": "user", "text": text}
            for k, text in enumerate(_notes(content)):
                items[f"h{index}.n{k}"] = {"id": f"h{index}.n{k}", "kind": "event", "text": text}
        else:  # text bubbles, thinking, server tools' cards and citations, as they showed live
            reply_items(items, index, content)
        if isinstance(content, str):
            continue
        for block in content:
            if block.get("type") == "tool_use":
                items[block["id"]] = {
                    "id": block["id"],
                    "kind": "tool",
                    "name": block["name"],
                    "input": block.get("input", {}),
                    "status": "pending",
                }
            elif block.get("type") == "tool_result" and block["tool_use_id"] in items:
                is_error = bool(block.get("is_error"))
                _closed(items, block["tool_use_id"], block.get("content", ""), is_error, containers)
    for result in held:
        if result.tool_use_id in items:
            _closed(items, result.tool_use_id, result.content, result.is_error, containers)
    return list(items.values())


def _notes(content: Any) -> list[str]:
    if isinstance(content, str):
        return []
    texts = (b.get("text", "") for b in content if b.get("type") == "text" and is_note(b.get("text", "")))
    lines = (note_line(line) for text in texts for line in text.split("\n"))  # notes are joined by lines
    return [line for line in lines if line]


def _closed(
    items: dict[str, Item], tool_use_id: str, content: Any, is_error: bool, containers: Collection[str]
) -> None:
    item = items[tool_use_id]
    text = preview(content)
    name = item.get("name", "")
    answer = container_answer(name, text) if name in containers and not is_error else None
    if answer == "already":  # live, nothing was shown for it
        del items[tool_use_id]
    elif answer is not None:
        line = event_line(answer, [name], "model", available_tools(text))
        items[tool_use_id] = {"id": tool_use_id, "kind": "event", "text": line}
    else:
        item["status"] = "error" if is_error else "done"
        item["result"] = text
        item["is_error"] = is_error


class Transcript:
    """Items by id, plus the coalescing of streamed text into `delta` messages."""

    def __init__(
        self,
        send: Callable[[dict[str, Any]], None],
        *,
        interval: float = 0.1,
        activity_interval: float = 0.1,
    ) -> None:
        self._send = send
        self.interval = interval
        self.activity_interval = activity_interval
        self.items: dict[str, Item] = {}
        self._text: dict[str, list[str]] = {}
        self._flush_handle: asyncio.TimerHandle | None = None
        self._activity: dict[str, None] = {}
        """Ids whose activity changed since it was last sent (ordered, no duplicates)."""
        self._activity_handle: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self.items)

    def upsert(self, item: Item) -> None:
        """Add or update an item and send it (after any buffered text, to keep order)."""
        self.flush()
        if "activity" in item:  # set or cleared here: a buffered report must not come after it
            self._activity.pop(item["id"], None)
        merged: Item = {**self.items.get(item["id"], item), **item}
        self.items[item["id"]] = merged
        self._send({"type": "items", "items": [item]})

    def add_text(self, item_id: str, text: str, first: Item | None = None) -> None:
        """Append streamed text; it goes out at the next flush.

        A new item is an assistant message, or `first` (e.g. a thinking section) with this text.
        """
        if item_id not in self.items:  # the first piece comes with the new item: one message, not two
            self.upsert({**(first or {"id": item_id, "kind": "assistant"}), "id": item_id, "text": text})
            return
        self.items[item_id]["text"] = self.items[item_id].get("text", "") + text
        self._text.setdefault(item_id, []).append(text)
        if self._flush_handle is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.flush()
                return
            self._flush_handle = loop.call_later(self.interval, self.flush)

    def flush(self) -> None:
        """Send buffered text now."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        pending, self._text = self._text, {}
        for item_id, parts in pending.items():
            self._send({"type": "delta", "id": item_id, "text": "".join(parts)})

    def set_activity(self, item_id: str, activity: Activity) -> None:
        """A running tool's latest reports: kept at once, sent with the next activity flush.

        One timer for every call, so each call sends at most once per `activity_interval` however
        often it reports, and what is sent is always its latest state.
        """
        item = self.items.get(item_id)
        if item is None or item.get("status") not in ("running", None):
            return  # not a call that is running (ended, or never shown): nothing to update
        item["activity"] = activity
        self._activity[item_id] = None
        if self._activity_handle is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.flush_activity()
                return
            self._activity_handle = loop.call_later(self.activity_interval, self.flush_activity)

    def flush_activity(self) -> None:
        """Send the buffered activity now, in one `items` message."""
        if self._activity_handle is not None:
            self._activity_handle.cancel()
            self._activity_handle = None
        pending, self._activity = self._activity, {}
        updates: list[Item] = []
        for item_id in pending:
            item = self.items.get(item_id)
            activity = item.get("activity") if item is not None else None
            if activity is not None:
                updates.append({"id": item_id, "activity": activity})
        if updates:
            self.flush()
            self._send({"type": "items", "items": updates})

    def snapshot_pages(self) -> list[list[Item]]:
        """All items, split into pages of about SNAPSHOT_PAGE_BYTES of JSON."""
        self.flush()
        everything = list(self.items.values())
        if len(json.dumps(everything)) <= SNAPSHOT_PAGE_BYTES:  # the common case: one page, one dump
            return [everything]
        pages: list[list[Item]] = [[]]
        size = 0
        for item in everything:
            item_size = len(json.dumps(item))
            if pages[-1] and size + item_size > SNAPSHOT_PAGE_BYTES:
                pages.append([])
                size = 0
            pages[-1].append(item)
            size += item_size
        return pages
