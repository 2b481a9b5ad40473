r"""What never reaches a cassette: the API key in use, key-shaped text, and patterns of one's own.

Every string of a request, a response and an answer is cleaned before it is written. A secret a
stream split across deltas (text, thinking, a tool's input) is found in the joined text, and a
tool's input is also cleaned as the JSON it is, so an escaped secret (`\"`, `\u00e4`) is found too.
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import re
from collections.abc import Iterable
from typing import Any

from .._exceptions import ConfigurationError

__all__ = ["REDACTED", "Secrets"]

# Key-shaped text, and an Authorization value: "Bearer"/"Basic" and a token, not an ordinary word
# ("basic statistics", "the bearer instrument" stay as they are).
_BUILT_IN = (
    r"sk-ant-[A-Za-z0-9_\-]{8,}",
    r"\b(?i:bearer|basic)\s+(?!(?:[A-Z]?[a-z]+|[A-Z]+)(?:-[A-Za-z]+)*\b)[A-Za-z0-9._~+/\-]{8,}=*",
)
REDACTED = "[redacted]"
_STREAMED = ("text", "partial_json", "thinking")


class Secrets:
    """What never reaches a cassette: the key in use, key-shaped text, and patterns of one's own.

    Args:
        patterns: More regular expressions whose matches are replaced with "[redacted]".
        values: Exact strings to remove (the API key in use is always one).
    """

    def __init__(self, patterns: Iterable[str] = (), values: Iterable[str] = ()) -> None:
        try:
            self.patterns = [re.compile(p) for p in (*_BUILT_IN, *patterns)]
        except re.error as exc:
            raise ConfigurationError(f"a secret pattern is not a regular expression: {exc}") from None
        key = os.environ.get("ANTHROPIC_API_KEY", "")
        self.values = sorted({v for v in (*values, key) if len(v) >= 8}, key=len, reverse=True)

    def add(self, *values: str) -> None:
        """More exact strings to remove (as short ones would redact ordinary text, 4+ characters)."""
        self.values = sorted({*self.values, *(v for v in values if len(v) >= 4)}, key=len, reverse=True)

    def clean(self, value: Any) -> Any:
        """`value` with every secret in its strings (keys included) replaced, in one pass.

        Cleaning is idempotent: a "[redacted]" already there is left as it is, so a replayed
        request (which carries the recorded, cleaned text) cleans to the recorded one.
        """
        if isinstance(value, str):
            return self._scrub(value)
        if isinstance(value, list):
            return [self.clean(v) for v in value]
        if isinstance(value, dict):
            return {self.clean(k): self.clean(v) for k, v in value.items()}
        return value

    def clean_events(self, events: list[Any]) -> list[Any]:
        """Streamed events without secrets, a secret split across deltas included.

        The deltas of each content block are joined, cleaned as one text, and cut again at the
        same places (a replacement lands in the delta where its secret began), so a replay streams
        as many events as were recorded. Everything else is cleaned as `clean` does.
        """
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for event in events:
            delta = event.get("delta") if isinstance(event, dict) else None
            if (
                isinstance(event, dict)
                and event.get("type") == "content_block_delta"
                and isinstance(delta, dict)
            ):
                field = _field(delta)
                if field:
                    groups.setdefault((repr(event.get("index")), field), []).append(delta)
        texts: dict[int, str] = {}
        for (_, field), deltas in groups.items():
            cut = self._recut([d[field] for d in deltas], field)
            texts.update((id(d), text) for d, text in zip(deltas, cut, strict=True))
        out = []
        for event in events:
            delta = event.get("delta") if isinstance(event, dict) else None
            if not (isinstance(delta, dict) and id(delta) in texts):
                out.append(self.clean(event))
                continue
            field = _field(delta)
            rest = self.clean({k: v for k, v in event.items() if k != "delta"})
            rest["delta"] = {
                **self.clean({k: v for k, v in delta.items() if k != field}),
                field: texts[id(delta)],
            }
            out.append(rest)
        return out

    def _scrub(self, text: str) -> str:
        spans = self._spans(text)
        if not spans:
            return text
        parts, position = [], 0
        for start, end in spans:
            parts += [text[position:start], REDACTED]
            position = end
        return "".join(parts) + text[position:]

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Where secrets are in `text`, overlapping ones merged (none inside a "[redacted]" already there)."""
        found = [m.span() for p in self.patterns for m in p.finditer(text) if m.end() > m.start()]
        for secret in self.values:
            at = text.find(secret)
            while at >= 0:
                found.append((at, at + len(secret)))
                at = text.find(secret, at + 1)
        marks = [m.span() for m in re.finditer(re.escape(REDACTED), text)]
        found = [(s, e) for s, e in found if not any(a <= s and e <= b for a, b in marks)]
        merged: list[tuple[int, int]] = []
        for start, end in sorted(found):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged

    def _recut(self, pieces: list[str], field: str) -> list[str]:
        whole = "".join(pieces)
        spans = self._spans(whole)
        value: Any = None
        if field == "partial_json":
            try:
                value = json.loads(whole)
            except ValueError:
                field = ""  # not JSON to begin with (a stream cut off): its text is all there is to clean
            else:
                if not spans and self.clean(value) == value:
                    return pieces
        if not spans and field != "partial_json":
            return pieces
        starts = list(itertools.accumulate((len(p) for p in pieces[:-1]), initial=0))
        out = [""] * len(pieces)

        def keep(start: int, end: int) -> None:  # whole[start:end] stays, in the pieces it was in
            for i, first in enumerate(starts):
                last = starts[i + 1] if i + 1 < len(starts) else len(whole)
                lo, hi = max(start, first), min(end, last)
                if lo < hi:
                    out[i] += whole[lo:hi]

        position = 0
        for start, end in spans:
            keep(position, start)
            out[bisect.bisect_right(starts, start) - 1] += REDACTED
            position = end
        keep(position, len(whole))
        if field == "partial_json":
            # A pattern may have eaten JSON syntax (a quote, a brace), or a secret was escaped in the
            # text (`\"`, `\u00e4`): then the input is cleaned as JSON and sent whole in the first
            # delta, so a replay parses it and no secret is left in it.
            try:
                same = json.loads("".join(out)) == self.clean(value)
            except ValueError:
                same = False
            if not same:
                return [json.dumps(self.clean(value), ensure_ascii=False)] + [""] * (len(pieces) - 1)
        return out


def _field(delta: dict[str, Any]) -> str:
    """The streamed text field of a delta ("text", "partial_json", "thinking"), or "" when it has none."""
    for field in _STREAMED:
        if isinstance(delta.get(field), str):
            return field
    return ""
