"""The real Claude Code CLI, run offline against a local stand-in of the Messages API, and a person at its cards.

The CLI comes inside the `claude-agent-sdk` wheel (`claude_agent_sdk/_bundled/claude`, 2.1.332 with
SDK 0.2.189, about 400 MB). What it needs to run here with no network at all (checked with
`strace -f -e trace=connect,sendto` on the CLI: with the settings below its only connect() was to
the stand-in on 127.0.0.1; without the four DISABLE settings it also resolved outside names over
DNS and sent `HEAD /api/hello` to the base URL):

- `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT` (the stand-in) and any `ANTHROPIC_API_KEY` (it sends
  it as `x-api-key`);
- `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (no telemetry, error reports, feature flags, update
  checks or title side-requests), `DISABLE_AUTOUPDATER=1`, `DISABLE_TELEMETRY=1`,
  `DISABLE_ERROR_REPORTING=1`; with these every request it made was the turn's own
  `POST /v1/messages` (streamed, `stream: true`, its own system prompt and ~13 tools);
- a temporary `HOME` and `CLAUDE_CONFIG_DIR` (it writes `~/.claude.json`, sessions, settings);
- a model it knows, `claude-sonnet-4-5` (`MODEL`). Its default (claude-opus-5-5 here) makes it send
  a mid-conversation `role: "system"` message and per-turn `output_config` (betas
  `mid-conversation-tool-changes-2026-07-01`, `per-turn-control-2026-07-01`) that our strict rules
  (`notebook_tools/api/_rules.py`) do not know and refuse with a 400; the CLI then retries with
  fewer betas and gives up with "API Error: 400". `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=1` did not
  change that;
- thinking is on (it sends `thinking: {"type": "adaptive"}`), so, as the real API demands, a scripted
  turn that calls a tool starts with a signed thinking block (`thinking()` numbers the signatures).

Measured here (load average 6-8): `ClaudeSDKClient.connect()` (the CLI process up and initialized)
took 0.3-0.9 s, 4 s the first time after the wheel was installed (the 400 MB binary read from disk);
a one-text turn 0.1-0.2 s, a turn with one tool call about 0.5 s, `disconnect()` 0.05 s. The CLI asks
for parallel tool calls of one turn one at a time, and waits for a `can_use_tool` answer as long as
it takes: a card left open 330 s ran nothing meanwhile, then its late approval still wrote the file
(no timeout of the CLI's or the SDK's denies or, worse, allows it).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from notebook_tools import testing as t
from notebook_tools.events import Prompt, PromptChanged
from notebook_tools.prompts import PromptBroker
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app
from tests.support.readiness import CEILING

MODEL = "claude-sonnet-4-5"
"""A model the CLI knows and sends plain requests for (see the module docstring)."""

_signatures = itertools.count(1)


def thinking(text: str = "Let me do that.") -> dict[str, Any]:
    """A signed thinking block (the API wants one before a tool call while thinking is on)."""
    return {"type": "thinking", "thinking": text, "signature": f"sig-standin-{next(_signatures)}"}


def calls(*blocks: dict[str, Any], text: str = "") -> t.Turn:
    """A turn that thinks, optionally says `text`, then makes the given tool calls."""
    return t.turn(thinking(), *([text] if text else []), *blocks)


def claude_code_app(script: t.ScriptedTransport):
    """The Messages API stand-in (strict, from `script`), plus a record of anything else the CLI asks.

    `app.state.other` lists every request to another path (answered 404): a test asserts it stays
    empty, so a CLI that starts calling home is seen at once.
    """
    app = standin_app(script)
    other: list[tuple[str, str]] = []

    async def elsewhere(request: Request) -> Response:
        other.append((request.method, request.url.path))
        error = {"type": "not_found_error", "message": f"the stand-in has no {request.url.path}"}
        return JSONResponse({"type": "error", "error": error}, status_code=404)

    app.router.routes.append(Route("/{path:path}", elsewhere, methods=["GET", "POST", "PUT", "HEAD"]))
    app.state.other = other
    return app


def offline_env(base_url: str, home: Path) -> dict[str, str]:
    """The CLI's environment: the stand-in, a dummy key, no nonessential traffic, a temporary home."""
    return {
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-ant-standin-not-a-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }


@dataclass
class Standin:
    """A running stand-in: its URL, its script, the app (its records) and the CLI's options."""

    base_url: str
    script: t.ScriptedTransport
    app: Any
    home: Path
    cli_log: list[str] = field(default_factory=list)
    """What the CLI wrote to stderr."""

    def options(self, **changes: Any) -> Any:
        """`ClaudeAgentOptions` that run the CLI offline against this stand-in."""
        from claude_agent_sdk import ClaudeAgentOptions

        return ClaudeAgentOptions(
            model=MODEL, env=offline_env(self.base_url, self.home), stderr=self.cli_log.append, **changes
        )

    def said_to_model(self, tool_use_id: str) -> tuple[str, bool]:
        """The tool_result the CLI sent the model for `tool_use_id`: its text and is_error."""
        for body in reversed(self.script.requests):
            for message in body.get("messages", []):
                if message["role"] != "user" or isinstance(message["content"], str):
                    continue
                for block in message["content"]:
                    if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                        content = block.get("content")
                        text = (
                            content
                            if isinstance(content, str)
                            else "".join(b.get("text", "") for b in content or [])
                        )
                        return text, bool(block.get("is_error"))
        asked = [_last_said(body) for body in self.script.requests]  # what each request ended with
        raise AssertionError(f"no tool_result for {tool_use_id} reached the stand-in; requests: {asked}")


def _last_said(body: dict[str, Any]) -> str:
    """A request's last message, short: its role and each block's type (and text, cut)."""
    messages = body.get("messages") or [{}]
    last = messages[-1]
    content = last.get("content")
    blocks = [content] if isinstance(content, str) else content or []
    said = [
        b[:60]
        if isinstance(b, str)
        else f"{b.get('type')}:{str(b.get('text') or b.get('id') or b.get('tool_use_id') or '')[:60]}"
        for b in blocks
    ]
    return f"{len(messages)} messages, last {last.get('role')}: {said}"


@contextmanager
def standin(*steps: t.Step) -> Iterator[Standin]:
    """The stand-in serving `steps` on 127.0.0.1, with a temporary home for the CLI."""
    script = t.ScriptedTransport(*steps)
    app = claude_code_app(script)
    with tempfile.TemporaryDirectory(prefix="cc-home-") as home, live_server(app) as base:
        yield Standin(base, script, app, Path(home))
    assert script.refused == [], [r.errors for r in script.refused]
    assert app.state.other == [], app.state.other


class Person:
    """Someone at the cards of `broker`, answering as the widget does (`broker.answer`, by prompt id).

    A view is attached (`broker.seen`), so prompts wait for answers rather than for a front end.
    """

    def __init__(self, broker: PromptBroker) -> None:
        self.broker = broker
        self.cards: asyncio.Queue[Prompt] = asyncio.Queue()
        self.seen: list[Prompt] = []
        broker.seen("test-view")
        broker.events.subscribe(self._on_event)

    def _on_event(self, event: Any) -> None:
        if (
            isinstance(event, PromptChanged)
            and event.prompt.status == "pending"
            and all(p.tool_use_id != event.prompt.tool_use_id for p in self.seen)
        ):
            self.broker.seen("test-view")  # a view drawing the card is attached (as its pings keep it)
            self.seen.append(event.prompt)
            self.cards.put_nowait(event.prompt)

    async def next_card(self) -> Any:
        """The next card opened (bounded by the readiness ceiling)."""
        return await asyncio.wait_for(self.cards.get(), CEILING)

    def decide(self, card: Any, **decision: Any) -> None:
        """Answer an approval card: `approved=`, `reason=`, `edited_input=`, `remember=`."""
        self.broker.seen("test-view")
        refused = self.broker.answer(card.tool_use_id, {"value": decision}, frontend="test-view")
        assert refused is None, refused


async def bounded(awaitable: Any, what: str = "the turn to end") -> Any:
    """`awaitable`, or a failure naming `what` after the readiness ceiling."""
    try:
        return await asyncio.wait_for(awaitable, CEILING)
    except TimeoutError:
        raise AssertionError(f"waiting for {what}: still not after {CEILING:.0f} s") from None


def sleeper_running(cwd: Path) -> bool:
    """Whether a scripted `time.sleep(300)` runs in `cwd` (read from /proc: its command line and folder)."""
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if "time.sleep(300)" in command and os.readlink(proc / "cwd") == str(cwd):
                return True
        except OSError:
            continue
    return False
