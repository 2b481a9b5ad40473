"""A streamed response put together from its raw events, every block and field kept as the API sent it.

The SDK's own accumulator knows the block and delta types of its version and drops the deltas of
any other (a `compaction` block's summary arrives empty through `client.messages.stream` of SDK
2.13). This one works on the events' JSON: a block is what `content_block_start` carried, and each
delta is applied by its type, with one rule for types not known here: a delta's string fields are
appended to the block's fields of the same name. So a block type the API adds tomorrow arrives whole.
"""

from __future__ import annotations

import json
from typing import Any

from .._exceptions import IncompleteResponseError

__all__ = ["Accumulator", "fold_blank_text", "without_nulls"]


def without_nulls(block: dict[str, Any]) -> dict[str, Any]:
    """A block without its null fields (`"citations": null`), as the SDK's `exclude_none` dump gave it.

    Only the block's own fields: what it holds (a call's `input`, a result's `content`) is kept exactly,
    nulls included (`{"alt": null}` is an argument the model gave).
    """
    return {k: v for k, v in block.items() if v is not None}


class Accumulator:
    """Feeds on raw stream events (dicts); `message` is the response once `message_stop` arrived."""

    def __init__(self) -> None:
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, str] = {}
        self.complete = False

    def feed(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """Apply one event; returns the block an event finished (`content_block_stop`), else None."""
        kind = event.get("type")
        if kind == "message_start":
            self.message = dict(event.get("message") or {})
            self.message["content"] = list(self.message.get("content") or [])
            self.blocks = dict(enumerate(self.message["content"]))
        elif kind == "content_block_start":
            index = int(event["index"])
            self.blocks[index] = dict(event.get("content_block") or {})
        elif kind == "content_block_delta":
            self._delta(int(event["index"]), event.get("delta") or {})
        elif kind == "content_block_stop":
            index = int(event["index"])
            block = self.blocks.get(index)
            if block is not None and index in self._json:
                text = self._json.pop(index)
                try:
                    block["input"] = json.loads(text) if text.strip() else block.get("input", {})
                except ValueError:
                    block["input"] = {}  # a call cut short (max_tokens): its arguments never closed
                    block["_partial_input"] = text
            return block
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            self.message.update({k: v for k, v in delta.items()})
            usage = dict(self.message.get("usage") or {})
            usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
            self.message["usage"] = usage
            for key, value in event.items():
                if key not in ("type", "delta", "usage"):
                    self.message[key] = value  # context_management and what comes next
        elif kind == "message_stop":
            self.complete = True
        elif kind == "error":
            error = event.get("error") or {}
            raise IncompleteResponseError(f"the API sent an error mid-stream: {error.get('message', error)}")
        return None

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks.setdefault(index, {})
        kind = delta.get("type")
        if kind == "input_json_delta":
            self._json[index] = self._json.get(index, "") + str(delta.get("partial_json", ""))
        elif kind == "citations_delta":
            block["citations"] = [*(block.get("citations") or []), delta.get("citation")]
        else:
            # text_delta -> text, thinking_delta -> thinking, signature_delta -> signature,
            # compaction_delta -> content, and any new delta type the same way.
            for key, value in delta.items():
                if key == "type":
                    continue
                if isinstance(value, str):
                    previous = block.get(key)
                    block[key] = (previous if isinstance(previous, str) else "") + value
                elif value is not None:
                    block[key] = value

    def result(self) -> dict[str, Any]:
        """The whole message: content in index order, nulls dropped (as the SDK's `exclude_none` dump did)."""
        if not self.complete:
            raise IncompleteResponseError("the stream ended without message_stop")
        message = dict(self.message)
        content = []
        for index in sorted(self.blocks):
            block = {k: v for k, v in self.blocks[index].items() if k != "_partial_input"}
            content.append(without_nulls(block))
        message["content"] = content
        return message

    def partial_input(self, index: int) -> str | None:
        """The unparsed arguments of a tool call that was cut short, if it was."""
        value = self.blocks.get(index, {}).get("_partial_input")
        return value if isinstance(value, str) else None


def fold_blank_text(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reply's blocks with each whitespace-only text block joined to the text before it (or after it).

    The API returns such blocks between cited sentences (" " after "... JST.") but refuses them when sent
    back ("text content blocks must contain non-whitespace text"); joined, the text reads the same.
    """
    out: list[dict[str, Any]] = []
    carry = ""
    for block in content:
        if block.get("type") == "text" and not str(block.get("text", "")).strip():
            text = str(block.get("text", ""))
            if out and out[-1].get("type") == "text":
                out[-1] = {**out[-1], "text": out[-1]["text"] + text}
            else:
                carry += text
            continue
        if carry and block.get("type") == "text":
            block, carry = {**block, "text": carry + block["text"]}, ""
        out.append(block)
    return out
