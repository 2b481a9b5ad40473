"""A cassette file: the Messages API exchanges of a session and a person's answers, as readable JSON.

One file next to the notebook (`02_clean.cassette.json`), written with one key per line
so a diff in review reads like the conversation changed::

    {"notebook_tools_cassette": 1,
     "exchanges": [{"request": {...the request body...},
                    "response": {"status": 200, "events": [...the SSE events...]}}, ...],
     "answers": [{"tool_use_id": "toolu_...", "tool": "user_confirm", "answer": {"value": "yes"}}, ...]}

No header is ever written (the API key, `anthropic-version`, anything a proxy adds), and every
string is passed through the secret patterns first: the API key in use, anything shaped like
an Anthropic key or a bearer token, and the patterns a caller adds.
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._exceptions import CassetteError, ConfigurationError

__all__ = ["FORMAT", "Secrets", "events_of", "first_difference", "load", "save", "sse_of"]

FORMAT = 1
_BUILT_IN = (r"sk-ant-[A-Za-z0-9_\-]{8,}", r"(?i)(?:bearer|basic)\s+[A-Za-z0-9._~+/\-]{8,}=*")
_ORDER = ("model", "system", "tools", "messages")
REDACTED = "[redacted]"


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
        if not spans:
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
            # A pattern may have eaten JSON syntax (a quote, a brace): then the input is cleaned as
            # JSON and sent whole in the first delta, so a replay still parses it.
            try:
                value = json.loads(whole)
            except ValueError:
                return out  # not JSON to begin with (a stream cut off): nothing to keep parseable
            try:
                json.loads("".join(out))
            except ValueError:
                return [json.dumps(self.clean(value), ensure_ascii=False)] + [""] * (len(pieces) - 1)
        return out


def _field(delta: dict[str, Any]) -> str:
    """The streamed text field of a delta ("text" or "partial_json"), or "" when it has none."""
    for field in ("text", "partial_json"):
        if isinstance(delta.get(field), str):
            return field
    return ""


def events_of(body: bytes) -> list[Any]:
    """The JSON data of each SSE event in a streamed response."""
    events = []
    for block in body.decode("utf-8").replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
        if data:
            events.append(json.loads(data))
    return events


def sse_of(events: list[Any]) -> bytes:
    """Events as an SSE body, as the API streams them."""
    return b"".join(f"event: {e.get('type', 'message')}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _bad_stream(events: Any) -> bool:
    """Whether recorded events could not have come from the API (the SDK would fail on them, not say why)."""
    if events is None:
        return False
    if not (
        isinstance(events, list)
        and all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in events)
    ):
        return True
    if events and not (events[0]["type"] == "message_start" and isinstance(events[0].get("message"), dict)):
        return True
    return any(
        (e["type"].startswith("content_block_") and type(e.get("index")) is not int)
        or (e["type"] == "content_block_start" and not isinstance(e.get("content_block"), dict))
        or (e["type"] in ("content_block_delta", "message_delta") and not isinstance(e.get("delta"), dict))
        for e in events
    )


def load(path: Path) -> dict[str, Any]:
    """The cassette at `path`.

    Raises:
        CassetteError: the file is not a cassette (its message says why).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CassetteError(f"cassette {path} cannot be read as JSON ({exc})") from None
    version = data.get("notebook_tools_cassette") if isinstance(data, dict) else None
    if type(version) is not int or version != FORMAT:
        raise CassetteError(f"{path} is not a notebook_tools cassette (format {FORMAT})")
    if not isinstance(data.get("exchanges"), list) or not isinstance(data.get("answers", []), list):
        raise CassetteError(f"cassette {path} has no list of exchanges")
    for number, exchange in enumerate(data["exchanges"], 1):
        response = exchange.get("response") if isinstance(exchange, dict) else None
        if (
            not isinstance(exchange.get("request") if isinstance(exchange, dict) else None, dict)
            or not isinstance(response, dict)
            or type(response.get("status")) is not int
            or not (isinstance(response.get("events"), list) or "body" in response)
            or _bad_stream(response.get("events"))
        ):
            raise CassetteError(f"cassette {path}: exchange {number} is not a request with its response")
    for number, item in enumerate(data.setdefault("answers", []), 1):
        if not (isinstance(item, dict) and isinstance(item.get("tool_use_id"), str) and "answer" in item):
            raise CassetteError(f"cassette {path}: answer {number} has no tool_use_id and answer")
    return dict(data)


def save(path: Path, exchanges: list[dict[str, Any]], answers: list[dict[str, Any]]) -> None:
    """Write the cassette (atomically: a crash mid-write leaves the old file)."""
    data = {"notebook_tools_cassette": FORMAT, "exchanges": exchanges, "answers": answers}
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True) if partial.is_file() else None
        raise CassetteError(f"cassette {path} cannot be written ({exc.strerror or exc})") from None


def first_difference(recorded: dict[str, Any], sent: dict[str, Any]) -> str | None:
    """Where a request differs from the recorded one, in words, or None when they are equal."""
    if recorded == sent:
        return None
    keys = [*_ORDER, *sorted((set(recorded) | set(sent)) - set(_ORDER))]
    for key in keys:
        was, now = recorded.get(key), sent.get(key)
        if was == now:
            continue
        if key in ("messages", "tools") and isinstance(was, list) and isinstance(now, list):
            for index in range(max(len(was), len(now))):
                a = was[index] if index < len(was) else None
                b = now[index] if index < len(now) else None
                if a == b:
                    continue
                if key == "messages":
                    return f"the message at index {index} differs: {_pair(a, b)}"
                name = (a if isinstance(a, dict) else b if isinstance(b, dict) else {}).get("name")
                return f"`tools` differs: the tool {_short(name)} (index {index}): {_pair(a, b)}"
        return f"`{key}` differs: {_pair(was, now)}"
    return None


def _pair(was: Any, now: Any, limit: int = 160) -> str:
    """`recorded A, sent B`, each cut around where they first differ when long."""
    a, b = _short(was, 10**9), _short(now, 10**9)
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(0, at - limit // 2) if max(len(a), len(b)) > limit else 0

    def cut(text: str) -> str:
        part = ("…" if start else "") + text[start : start + limit]
        return part + ("…" if len(text) > start + limit else "")

    return f"recorded {cut(a)}, sent {cut(b)}"


def _short(value: Any, limit: int = 160) -> str:
    text = "(nothing)" if value is None else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
