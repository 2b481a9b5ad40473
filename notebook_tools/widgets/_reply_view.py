"""A response as the widget shows it, block by block, where each block happens in the reply.

Text streams into a message bubble: the first of a request is `r<request>`, and text that follows
thinking or a server tool's card starts a new bubble below it (`r<request>.<index>`), so the reply
reads in the order the model wrote it. Thinking streams into a folded section (`k<request>.<index>`),
a server tool's call and result share one card (the call's id), and a text block's citations become
footnote marks and sources on its bubble once the block is complete (`AssistantBlock`).
"""

from __future__ import annotations

from typing import Any

from ._blocks_view import block_items, cite
from ._transcript import Transcript
from ._wire_kernel import Item

__all__ = ["Replies"]


class Replies:
    """Keeps the items of each request's response, as its deltas and blocks arrive."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self._last: dict[int, tuple[str, bool]] = {}
        """Per request: the item its last block went to, and whether that block was text."""
        self._text: dict[tuple[int, int], tuple[str, int]] = {}
        """Per text block: its bubble and where in the bubble's text the block starts."""
        self._streamed: dict[tuple[int, int], int] = {}
        """Characters of each text or thinking block streamed so far."""
        self._items: dict[int, list[str]] = {}
        """Per request not yet in the history: every item it made (a retried request's are hidden)."""

    def _track(self, request: int, item_id: str, text: bool) -> None:
        self._last[request] = (item_id, text)
        made = self._items.setdefault(request, [])
        if item_id not in made:
            made.append(item_id)

    def _bubble(self, request: int, index: int) -> tuple[str, int]:
        key = (request, index)
        if key not in self._text:
            last = self._last.get(request)
            if last is not None and last[1]:
                item_id = last[0]  # text after text (a cited sentence, the next one): the same bubble
            else:  # the request's first bubble is `r<request>`, whatever came before it
                first = not any(k[0] == request for k in self._text)
                item_id = f"r{request}" if first else f"r{request}.{index}"
            item = self.transcript.items.get(item_id)
            self._text[key] = (item_id, len(item.get("text", "")) if item is not None else 0)
            self._track(request, item_id, True)
        return self._text[key]

    def text(self, request: int, index: int, text: str) -> None:
        item_id, _ = self._bubble(request, index)
        self._streamed[(request, index)] = self._streamed.get((request, index), 0) + len(text)
        self.transcript.add_text(item_id, text)

    def thinking(self, request: int, index: int, text: str) -> None:
        item_id = f"k{request}.{index}"
        self._track(request, item_id, False)
        self._streamed[(request, index)] = self._streamed.get((request, index), 0) + len(text)
        self.transcript.add_text(item_id, text, {"id": item_id, "kind": "thinking", "status": "running"})

    def block(self, request: int, index: int, block: dict[str, Any]) -> None:
        """A complete block: its text completed (and cited), its thinking closed, its card shown."""
        kind = block.get("type")
        streamed = self._streamed.pop((request, index), 0)
        if kind == "text":
            text = str(block.get("text") or "")
            if len(text) > streamed:  # not (all) streamed: a reply replayed whole, a dropped delta
                self.text(request, index, text[streamed:])
            item_id, start = self._bubble(request, index)
            if block.get("citations"):
                at = start + len(text)
                self.transcript.upsert(cite(self.transcript.items[item_id], at, block["citations"]))
            return
        if kind in ("thinking", "redacted_thinking"):
            item_id = f"k{request}.{index}"
            self._track(request, item_id, False)
            item: Item = {"id": item_id, "kind": "thinking", "status": "done"}
            thought = str(block.get("thinking") or "")
            if kind == "redacted_thinking":
                item.update({"redacted": True, "text": ""})
            elif len(thought) > streamed:
                item["text"] = thought
            self.transcript.upsert(item)
            return
        for item in block_items(block, f"b{request}.{index}", self.transcript.items):
            self._track(request, item["id"], False)
            self.transcript.upsert(item)

    def complete(self) -> None:
        """A response was added to the history: what it showed stays, whatever is retried later."""
        self._items.clear()

    def discard_unfinished(self) -> None:
        """A request is being retried: what it showed so far (text, thinking, cards) is hidden."""
        for made in self._items.values():
            for item_id in made:
                if item_id in self.transcript.items:
                    self.transcript.upsert({"id": item_id, "discarded": True})
        self._items.clear()
