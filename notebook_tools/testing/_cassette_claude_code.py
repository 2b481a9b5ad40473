"""Claude Code in a cassette: the lines the CLI and the SDK exchanged, replayed with no CLI and no key.

    cas = nt.cassette("cassettes/14_claude_code.cassette.json")
    claude = cas.claude_code(nt.ClaudeCode(cwd=project))
    chat = nt.Chat(claude)
    cas.attach(chat)                     # the person's answers to its cards, recorded or replayed

The Claude Agent SDK talks to the CLI in JSON lines over the process's stdin and stdout: the
messages, and a control protocol both ways (`initialize`, `interrupt`, `set_permission_mode` from
the SDK; `can_use_tool` from the CLI, answered allow or deny). The SDK takes a `Transport` of one's
own for that stream, and `ClaudeCode(transport=...)` makes one for each connection:

- Recording, the SDK's own subprocess transport runs the real CLI, and every line either way is
  kept in the order it was sent, the project's folder written as `<project>` (so a replay works in
  another folder), the CLI's home as `~`, secrets as "[redacted]" (the patterns of the API
  exchanges, and the keys in the CLI's environment). For each Write or Edit the person allowed and
  the CLI then reported done, the file and the SHA-256 of its content afterwards are kept with the
  CLI's result.
- Replaying, no process starts. The CLI's lines are played in order (`<project>` becoming the
  replay's folder) up to each line this side sent, where the replay waits for this side to send it
  again, and checks it: the person's message; a control request of ours (answered with the
  recorded answer, under the new request's id); an answer to a permission request, which must allow
  what was allowed, with the same input, and deny what was denied. (Lines of ours are matched by
  kind, so an answer to a card and a Stop sent a moment apart each find their own, whichever task
  writes first.) A line that differs fails the turn with `CassetteMismatchError` saying what
  differs ("this side denied Edit where the recording allowed it"), as a request the API part of
  the cassette did not record does.

Nothing runs a tool in a replay, so nothing of the CLI's work reaches the disk by itself: the
replay makes each allowed Write or Edit itself, from the input this side allowed, when the CLI's
recorded result for it comes, and only when the file comes out with the recorded SHA-256 (a project
that differs from the recorded one fails the replay instead of getting other content). Bash and the
other tools are not replayed: their recorded output is shown, and nothing runs.

A connection whose every response says a script answered it (the usage of each of the CLI's
assistant messages says `"scripted": true`: the example notebooks are recorded with the real CLI
against a stand-in of the Messages API that says so) replays at no cost: the CLI priced the
stand-in's token counts in its results, which a replay reports as costing nothing, their usage
marked scripted, so a chat reads "scripted model, no cost", as for the API exchanges a stand-in
answered.

Connections are matched by the order they are made (a Stop that outlasts its grace reconnects the
CLI: the replay takes the next recorded connection then).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from claude_agent_sdk import Transport

from .._exceptions import CassetteError, CassetteMismatchError
from ..api._prices import SCRIPTED_USAGE
from ._cassette_file import first_difference
from ._cassette_secrets import Secrets

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeAgentOptions

__all__ = ["PROJECT", "RecordingTransport", "ReplayTransport", "transports"]

PROJECT = "<project>"
"""What the project's folder (the CLI's cwd) is written as in a cassette."""
PROJECT_KEY = "<project-key>"
"""What the CLI's name for the project (its folder with every other character a '-') is written as."""
HOME = "~"
"""What the CLI's home folder is written as (a replay leaves it so: no line of ours holds it)."""
EDITS = ("Write", "Edit")
"""The tools whose file change a replay makes again."""
_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL")
"""What the CLI's environment holds that never reaches a cassette (a proxy's URL may hold a token)."""


class Cassette(Protocol):
    """What the transports need of their cassette (`Cassette`)."""

    path: Path
    recording: bool
    secrets: Secrets
    claude_code_traffic: list[dict[str, Any]]
    claude_code_made: int
    claude_code_played: dict[int, int]
    mismatch: CassetteMismatchError | None

    def changed(self) -> None:
        """Something new was recorded."""


def transports(cassette: Cassette) -> Callable[[ClaudeAgentOptions], Transport]:
    """What `ClaudeCode(transport=...)` takes: each connection recorded into, or replayed from, `cassette`."""

    def make(options: ClaudeAgentOptions) -> Transport:
        number = cassette.claude_code_made
        cassette.claude_code_made += 1
        places = Places.of(options)
        if cassette.recording:
            env = {**os.environ, **options.env}
            cassette.secrets.add(*(env.get(name) or "" for name in _KEYS))
            session: dict[str, Any] = {"lines": []}
            cassette.claude_code_traffic.append(session)
            return RecordingTransport(_subprocess(options), cassette, session, places)
        recorded = cassette.claude_code_traffic
        if number >= len(recorded):
            raise CassetteError(
                f"cassette {cassette.path} recorded {len(recorded)} connections of Claude Code; "
                f"connection {number + 1} was not recorded"
            )
        return ReplayTransport(cassette, recorded[number], places, number)

    return make


def _subprocess(options: ClaudeAgentOptions) -> Transport:
    """The SDK's own transport (the CLI as a subprocess), with the flags `ClaudeSDKClient` would give it.

    The client hands the options to a transport it makes, never to one it is given: with
    `can_use_tool` set it runs the CLI with `permission_prompt_tool_name="stdio"`, so that the CLI
    asks over the control protocol; so does this.
    """
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    if options.can_use_tool is not None:
        options = dataclasses.replace(options, permission_prompt_tool_name="stdio")
    return SubprocessCLITransport(prompt="", options=options)


@dataclasses.dataclass(frozen=True)
class Places:
    """The folders a recording writes as placeholders (`<project>`, `~`), longest first."""

    pairs: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, options: ClaudeAgentOptions) -> Places:
        cwd = str(Path(options.cwd or os.getcwd()).resolve())
        home = options.env.get("HOME") or os.environ.get("HOME") or ""
        pairs = [(cwd, PROJECT), (re.sub(r"[^A-Za-z0-9]", "-", cwd), PROJECT_KEY), (home.rstrip("/"), HOME)]
        kept = [(real, mark) for real, mark in pairs if len(real) > 1]  # never "/" (or "") for "~"
        return cls(tuple(sorted(kept, key=lambda pair: -len(pair[0]))))

    @property
    def project(self) -> Path:
        return Path(next(real for real, mark in self.pairs if mark == PROJECT))

    def hide(self, value: Any) -> Any:
        """`value` with the folders written as their placeholders (as recorded)."""
        return _strings(value, lambda text: _replaced(text, self.pairs))

    def show(self, value: Any) -> Any:
        """`value` with `<project>` (and its key) as this replay's folder."""
        back = tuple((mark, real) for real, mark in self.pairs if mark != HOME)
        return _strings(value, lambda text: _replaced(text, back))


def _replaced(text: str, pairs: tuple[tuple[str, str], ...]) -> str:
    for old, new in pairs:
        text = text.replace(old, new)
    return text


def _strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {change(k): _strings(v, change) for k, v in value.items()}
    return value


def _lines(data: str) -> list[dict[str, Any]]:
    """The JSON lines the SDK writes (one message each, newline-ended)."""
    return [json.loads(text) for text in data.splitlines() if text.strip()]


def _asked(line: dict[str, Any]) -> tuple[str, str, str] | None:
    """(request id, tool, tool_use_id) of the CLI's `can_use_tool` request, or None for another line."""
    request = line.get("request") if line.get("type") == "control_request" else None
    if not isinstance(request, dict) or request.get("subtype") != "can_use_tool":
        return None
    return str(line.get("request_id")), str(request.get("tool_name")), str(request.get("tool_use_id"))


def _answer(line: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(request id, answer) of our reply to a control request of the CLI's, or None for another line."""
    response = line.get("response") if line.get("type") == "control_response" else None
    if not isinstance(response, dict):
        return None
    answer = response.get("response")
    return str(response.get("request_id")), answer if isinstance(answer, dict) else {}


def _results(line: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of a user message of the CLI's."""
    message = line.get("message") if line.get("type") == "user" else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class RecordingTransport(Transport):
    """The real CLI's transport, every line either way kept in `session` as it goes."""

    def __init__(self, real: Transport, cassette: Cassette, session: dict[str, Any], places: Places) -> None:
        self.real = real
        self.cassette = cassette
        self.session = session
        self.places = places
        self._asked: dict[str, tuple[str, str]] = {}  # the CLI's request id -> (tool, tool_use_id)
        self._allowed: dict[str, dict[str, Any]] = {}  # tool_use_id -> the input allowed, of a Write/Edit

    async def connect(self) -> None:
        await self.real.connect()

    async def write(self, data: str) -> None:
        # kept before it is sent: the CLI's answer to it may be read (and kept) before the write returns
        for line in _lines(data):
            self._keep("host", line)
        await self.real.write(data)

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        async for line in self.real.read_messages():
            self._keep("cli", line)
            yield line

    async def close(self) -> None:
        await self.real.close()

    def is_ready(self) -> bool:
        return self.real.is_ready()

    async def end_input(self) -> None:
        await self.real.end_input()

    def _keep(self, side: str, line: dict[str, Any]) -> None:
        entry: dict[str, Any] = {"from": side, "line": self.cassette.secrets.clean(self.places.hide(line))}
        if side == "cli" and (asked := _asked(line)) is not None and asked[1] in EDITS:
            self._asked[asked[0]] = (asked[1], asked[2])
        elif side == "host" and (answer := _answer(line)) is not None and answer[0] in self._asked:
            _, tool_use_id = self._asked.pop(answer[0])
            if answer[1].get("behavior") == "allow" and isinstance(answer[1].get("updatedInput"), dict):
                self._allowed[tool_use_id] = answer[1]["updatedInput"]
        if side == "cli":
            results = [b for b in _results(line) if not b.get("is_error")]
            if effects := [e for b in results if (e := self._effect(b)) is not None]:
                entry["effects"] = effects
        self.session["lines"].append(entry)
        self.cassette.changed()

    def _effect(self, result: dict[str, Any]) -> dict[str, Any] | None:
        """What an allowed Write or Edit left in a file of the project: its path and SHA-256."""
        given = self._allowed.pop(str(result.get("tool_use_id")), None)
        path = _inside(self.places.project, given.get("file_path")) if given is not None else None
        if path is None or not path.is_file():
            return None  # (outside the project, or gone: a replay leaves it alone)
        file = self.places.hide(str(path))
        return {"tool_use_id": result["tool_use_id"], "file": file, "sha256": _digest(path.read_bytes())}


def _inside(project: Path, path: Any) -> Path | None:
    """`path` (absolute, or relative to the project) when it is in the project's folder, else None."""
    if not isinstance(path, str) or not path:
        return None
    full = (project / path).resolve()
    return full if full.is_relative_to(project) and full != project else None


class ReplayTransport(Transport):
    """The recorded CLI: its lines played in order, ours checked against the recorded ones. No process."""

    def __init__(self, cassette: Cassette, session: dict[str, Any], places: Places, number: int) -> None:
        self.cassette = cassette
        self.entries: list[dict[str, Any]] = session["lines"]
        self.scripted = _scripted(self.entries)
        """Whether a script wrote the replies (their usage says so): the results cost nothing."""
        self.places = places
        self.number = number
        self.at = 0
        """How many recorded lines were played or matched."""
        self.failure: CassetteMismatchError | None = None
        self._claimed: set[int] = set()  # the recorded lines of ours a line sent in this replay matched
        self._ids: dict[str, str] = {}  # the recorded id of a control request of ours -> this replay's
        self._asked: dict[str, tuple[str, str]] = {}  # the CLI's request id -> (tool, tool_use_id)
        self._allowed: dict[str, tuple[str, dict[str, Any]]] = {}  # tool_use_id -> (tool, input allowed)
        self._moved = asyncio.Condition()
        self._connected = False
        self._closed = False

    async def connect(self) -> None:
        self._connected = True

    def is_ready(self) -> bool:
        return self._connected and not self._closed

    async def end_input(self) -> None:
        """Nothing to close: no process reads our side."""

    async def close(self) -> None:
        async with self._moved:
            self._closed = True
            self._moved.notify_all()

    def _next(self, side: str) -> bool:
        return self.at < len(self.entries) and self.entries[self.at]["from"] == side

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            async with self._moved:
                await self._moved.wait_for(lambda: bool(self.failure or self._closed or self._next("cli")))
                if self.failure is not None:
                    raise self.failure
                if self._closed:
                    return
                entry = self.entries[self.at]
                line = self._played(entry)
                self._advance()
            yield line

    def _played(self, entry: dict[str, Any]) -> dict[str, Any]:
        """A recorded line of the CLI's as this replay gets it; its file changes are made here."""
        line: dict[str, Any] = self.places.show(entry["line"])
        if (answer := _answer(line)) is not None and answer[0] in self._ids:  # to a request of ours
            line = {**line, "response": {**line["response"], "request_id": self._ids.pop(answer[0])}}
        if (asked := _asked(line)) is not None:
            self._asked[asked[0]] = (asked[1], asked[2])
        if self.scripted and line.get("type") == "result":
            line = _unpriced(line)
        for effect in entry.get("effects", []):
            self._make(effect)
        return line

    def _make(self, effect: dict[str, Any]) -> None:
        """The file change of an allowed Write or Edit, from the input this side allowed, as recorded."""
        tool_use_id = str(effect.get("tool_use_id"))
        if tool_use_id not in self._allowed:
            self._fail(f"the recording changed {effect.get('file')} here, by a call this side did not allow")
        tool, given = self._allowed.pop(tool_use_id)
        path = _inside(self.places.project, given.get("file_path"))
        if path is None or self.places.hide(str(path)) != effect.get("file"):
            allowed = given.get("file_path")
            self._fail(f"{tool} ({tool_use_id}) was allowed for {allowed!r}; the recording changed {effect}")
        shown = effect["file"]
        if tool == "Write":
            after = str(given.get("content", ""))
        else:
            try:
                before = path.read_text(encoding="utf-8") if path.is_file() else None
            except (OSError, UnicodeDecodeError):  # (not text: the CLI's Edit would not have edited it)
                before = None
            old, new = str(given.get("old_string", "")), str(given.get("new_string", ""))
            found = before.count(old) if before is not None and old else 0
            if found == 0 or (found > 1 and not given.get("replace_all")):
                self._fail(
                    f"the Edit {tool_use_id} of {shown} finds its old_string {found} times in the replay's "
                    "file, not as when it was recorded (the project differs from the recorded one)"
                )
            assert before is not None
            after = before.replace(old, new) if given.get("replace_all") else before.replace(old, new, 1)
        data = after.encode("utf-8")
        if _digest(data) != effect.get("sha256"):
            self._fail(
                f"{tool} {tool_use_id} would leave {shown} with other content than it had when recorded "
                "(SHA-256 differs); the file is left as it is"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    async def write(self, data: str) -> None:
        for line in _lines(data):
            await self._match(line)

    async def _match(self, sent: dict[str, Any]) -> None:
        """Check `sent` against the next recorded line of ours of its kind; play the CLI's lines up to it.

        Lines of ours are matched by kind (the person's message, a control request of a subtype, the
        answer to one request of the CLI's), so two sent a moment apart by two tasks (an answer to a
        card, and a Stop) each find their own recorded line, whichever is written first.
        """
        async with self._moved:
            if self.failure is not None:
                if _answer(sent) is not None and sent["response"].get("subtype") == "error":
                    return  # the SDK's error reply to a failure: the turn fails with that already
                raise self.failure
            cleaned = self.cassette.secrets.clean(self.places.hide(sent))
            ours = [i for i in range(self.at, len(self.entries)) if self._open(i)]
            index = next((i for i in ours if _kind(self.entries[i]["line"]) == _kind(cleaned)), None)
            if index is None:
                nxt = f"; next it has {_describe(self.entries[ours[0]]['line'], self._asked)}" if ours else ""
                said = _describe(sent, self._asked)
                self._fail(f"this side sent {said}, and the recording has none from here on{nxt}")
            self._claimed.add(index)
            problem = self._difference(self.entries[index]["line"], cleaned)
            if problem:
                self._fail(problem)
            await self._moved.wait_for(lambda: bool(self.failure or self._closed or self.at == index))
            if self.failure is not None:
                raise self.failure
            if self._closed:
                raise CassetteError(f"the replay of Claude Code from {self.cassette.path} is closed")
            recorded = self.entries[index]["line"]
            if sent.get("type") == "control_request":
                self._ids[str(recorded.get("request_id"))] = str(sent.get("request_id"))
            elif (answer := _answer(sent)) is not None and answer[0] in self._asked:
                tool, tool_use_id = self._asked.pop(answer[0])
                if answer[1].get("behavior") == "allow" and tool in EDITS:
                    self._allowed[tool_use_id] = (tool, dict(answer[1].get("updatedInput") or {}))
            self._advance()

    def _advance(self) -> None:
        """One recorded line further (the cassette keeps how far, for `unused()`)."""
        self.at += 1
        self.cassette.claude_code_played[self.number] = self.at
        self._moved.notify_all()

    def _open(self, index: int) -> bool:
        """Whether recorded line `index` is one of ours that no line sent in this replay has claimed."""
        return self.entries[index]["from"] == "host" and index not in self._claimed

    def _difference(self, recorded: dict[str, Any], sent: dict[str, Any]) -> str | None:
        """How a line of ours differs from the recorded one, in words, or None when it is the same."""
        was, now = _describe(recorded, self._asked), _describe(sent, self._asked)
        if recorded.get("type") == "control_request" and sent.get("type") == "control_request":
            recorded, sent = {**recorded, "request_id": ""}, {**sent, "request_id": ""}  # ids are the SDK's
        if first_difference(recorded, sent) is None:
            return None
        recorded_answer, sent_answer = _answer(recorded), _answer(sent)
        if recorded_answer is not None and sent_answer is not None and recorded_answer[0] == sent_answer[0]:
            tool, tool_use_id = self._asked.get(recorded_answer[0], ("a request", "?"))
            allowed = (recorded_answer[1].get("behavior"), sent_answer[1].get("behavior"))
            if allowed == ("allow", "deny"):
                return f"this side denied {tool} ({tool_use_id}) where the recording allowed it"
            if allowed == ("deny", "allow"):
                return f"this side allowed {tool} ({tool_use_id}) where the recording denied it"
            return f"the answer to {tool} ({tool_use_id}) differs: {first_difference(*_pair(recorded, sent))}"
        if was != now:
            return f"the recording has {was} here, this side sent {now}"
        return f"{now} differs: {first_difference(recorded, sent)}"

    def _fail(self, text: str) -> NoReturn:
        """Fail the replay (the turn, through the reader; this write) with `text`."""
        what = f"Claude Code's connection {self.number + 1}, line"
        self.failure = CassetteMismatchError(str(self.cassette.path), self.at, text, what=what)
        self.cassette.mismatch = self.cassette.mismatch or self.failure
        self._moved.notify_all()
        raise self.failure


def _scripted(entries: list[dict[str, Any]]) -> bool:
    """Whether every response the CLI got was a script's (each assistant message's usage says so)."""
    usages = [
        (line.get("message") or {}).get("usage") or {}
        for e in entries
        if (line := e["line"]).get("type") == "assistant" and isinstance(line.get("message"), dict)
    ]
    return bool(usages) and all(usage.get(SCRIPTED_USAGE) is True for usage in usages)


def _unpriced(result: dict[str, Any]) -> dict[str, Any]:
    """A `result` line of a turn a script answered: no cost, and its usage says scripted."""
    models = result.get("modelUsage")
    return {
        **result,
        "total_cost_usd": 0.0,
        "usage": {**(result.get("usage") or {}), SCRIPTED_USAGE: True},
        "modelUsage": {
            name: {**used, "costUSD": 0.0} if isinstance(used, dict) else used
            for name, used in (models.items() if isinstance(models, dict) else ())
        },
    }


def _kind(line: dict[str, Any]) -> tuple[str, str]:
    """What a line of ours is matched by: the message, a control request's subtype, the request answered."""
    if line.get("type") == "control_request":
        request = line.get("request")
        return "request", str(request.get("subtype") if isinstance(request, dict) else "")
    if (answer := _answer(line)) is not None:
        return "answer", answer[0]
    return "line", str(line.get("type"))


def _pair(recorded: dict[str, Any], sent: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return dict((_answer(recorded) or ("", {}))[1]), dict((_answer(sent) or ("", {}))[1])


def _describe(line: dict[str, Any], asked: dict[str, tuple[str, str]]) -> str:
    """A line of ours in words ("the person's message 'Fix…'", "an allow for Edit (toolu_…)", ...)."""
    kind = line.get("type")
    if kind == "user":
        message = line.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        text = content if isinstance(content, str) else json.dumps(content)
        return f"the person's message {text[:80]!r}"
    if kind == "control_request":
        request = line.get("request")
        subtype = str(request.get("subtype") if isinstance(request, dict) else "?")
        return f"{'an' if subtype[:1] in tuple('aeiou') else 'a'} {subtype} request"
    if (answer := _answer(line)) is not None:
        tool, tool_use_id = asked.get(answer[0], ("a request of the CLI's", "?"))
        if line["response"].get("subtype") == "error":
            return f"an error reply to {tool} ({tool_use_id})"
        how = "an allow" if answer[1].get("behavior") == "allow" else "a deny"
        return f"{how} for {tool} ({tool_use_id})"
    return f"a {kind!r} line"
