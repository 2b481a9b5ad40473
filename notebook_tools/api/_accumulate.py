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
    """Feeds on raw stream events (dicts); `result()` is the response once `message_stop` arrived.

    A call whose arguments are not a JSON object (cut off at max_tokens, or malformed) gets `input: {}`
    in the history (the API wants an object) and its id in `invalid_inputs`, with what arrived: such a
    call is never run, and the model is told why.
    """

    def __init__(self) -> None:
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, str] = {}
        self.invalid_inputs: dict[str, str] = {}
        """Ids of calls whose arguments did not parse as a JSON object -> the text that arrived."""
        self.complete = False

    def json_so_far(self, index: int) -> str:
        """The arguments of block `index` as they have streamed so far (JSON, likely incomplete)."""
        return self._json.get(index, "")

    def feed(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """Apply one event; returns the block an event finished (`content_block_stop`), else None.

        Raises:
            IncompleteResponseError: the event is not one the API sends (a bad index, a delta that is no
                object, a type that is no string): the response cannot be trusted.
        """
        try:
            return self._feed(event)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise IncompleteResponseError(f"a malformed stream event ({type(exc).__name__}: {exc})") from exc

    def _feed(self, event: dict[str, Any]) -> dict[str, Any] | None:
        kind = event.get("type")
        if kind == "message_start":
            self.message = dict(event.get("message") or {})
            self.message["content"] = list(self.message.get("content") or [])
            self.blocks = {i: dict(b) for i, b in enumerate(self.message["content"]) if isinstance(b, dict)}
        elif kind == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, dict) and isinstance(block.get("type"), str):
                self.blocks[int(event["index"])] = dict(block)
        elif kind == "content_block_delta":
            index = int(event["index"])
            if index in self.blocks:  # a delta for a block never started has nothing to join
                self._delta(self.blocks[index], index, event.get("delta") or {})
        elif kind == "content_block_stop":
            index = int(event["index"])
            self._close_input(index)
            return self.blocks.get(index)
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

    def _close_input(self, index: int) -> None:
        """Parse a call's streamed arguments; what is not a JSON object is kept aside, never run."""
        block = self.blocks.get(index)
        if block is None or index not in self._json:
            return
        text = self._json.pop(index)
        try:
            value = json.loads(text) if text.strip() else block.get("input", {})
        except ValueError:
            value = None
        if isinstance(value, dict):
            block["input"] = value
            return
        block["input"] = {}
        self.invalid_inputs[str(block.get("id", index))] = text

    def _delta(self, block: dict[str, Any], index: int, delta: dict[str, Any]) -> None:
        kind = delta.get("type")
        if kind == "input_json_delta":
            self._json[index] = self._json.get(index, "") + str(delta.get("partial_json", ""))
        elif kind == "citations_delta":
            block["citations"] = [*(block.get("citations") or []), delta.get("citation")]
        elif kind in _KNOWN_DELTAS:
            key = _KNOWN_DELTAS[kind]
            previous = block.get(key)
            block[key] = (previous if isinstance(previous, str) else "") + str(delta.get(key) or "")
        else:
            # A delta type not known yet: its string fields append to the block's fields of the same name.
            for key, value in delta.items():
                if key == "type":
                    continue
                if isinstance(value, str):
                    previous = block.get(key)
                    block[key] = (previous if isinstance(previous, str) else "") + value
                elif value is not None:
                    block[key] = value

    def result(self) -> dict[str, Any]:
        """The whole message: content in index order, each block's null fields dropped."""
        if not self.complete:
            raise IncompleteResponseError("the stream ended without message_stop")
        for index in list(self._json):  # a call whose content_block_stop never came
            self._close_input(index)
        message = dict(self.message)
        message["content"] = [without_nulls(self.blocks[i]) for i in sorted(self.blocks)]
        return message


_KNOWN_DELTAS = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "signature",
    "compaction_delta": "content",
}
"""Delta types and the one field each adds to (another field they might carry is not the block's)."""


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
