"""Claude Code as a real ACP agent (`@agentclientprotocol/claude-agent-acp`), offline against the stand-in.

The agent is the npm package, installed by `./dev` in tests/acp/node with `--omit=optional`: its
own 320 MB platform copy of the CLI is left out and it runs the CLI of the `claude-agent-sdk` wheel
instead (`CLAUDE_CODE_EXECUTABLE`, which the package reads before looking for its own). It runs on
the same offline settings as the CLI under `nt.ClaudeCode` (tests/support/claude_code_standin.py),
with two differences measured here:

- it titles each new session with a request of its own to the Messages API (`output_config` asking
  for JSON `{"title": ...}`), sent beside the turn's first request in either order, and from the
  second turn on it may ask the model what the person will type next (`[SUGGESTION MODE: ...]`,
  sent after a turn ends, racing the next turn's request). The stand-in answers both from scripts of
  their own, so the test's script holds the turns' replies only (a side request answered from it
  took a turn's tool call in one of four runs);
- it decides from the environment whether "bypass permissions" may be offered: as root with
  `IS_SANDBOX` set to anything (this machine has `IS_SANDBOX=yes`) it passes the CLI
  `--allow-dangerously-skip-permissions`, which the CLI refuses as root unless `IS_SANDBOX=1`, and
  no session opens. `nt.ACPAgent` starts agents on a trimmed environment (as MCP's stdio servers
  get), so the variable does not reach them unless passed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from notebook_tools import testing as t
from tests.support.claude_code_standin import MODEL, Standin, claude_code_app, offline_env
from tests.support.http_helpers import live_server

ROOT = Path(__file__).resolve().parents[2]
AGENT = (
    ROOT
    / "tests"
    / "acp"
    / "node"
    / "node_modules"
    / "@agentclientprotocol"
    / "claude-agent-acp"
    / "dist"
    / "index.js"
)


def cli_path() -> str:
    """The Claude Code CLI of the `claude-agent-sdk` wheel."""
    import claude_agent_sdk

    return str(Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude")


def side_reply(body: dict[str, Any]) -> str | None:
    """The reply to one of the agent's side requests (a title, a suggestion); None for a turn's request."""
    schema = ((body.get("output_config") or {}).get("format") or {}).get("schema") or {}
    if set(schema.get("properties") or {}) == {"title"}:
        return json.dumps({"title": "Scripted session"})
    last = (body.get("messages") or [{}])[-1].get("content")
    texts = (
        [last] if isinstance(last, str) else [b.get("text", "") for b in last or [] if isinstance(b, dict)]
    )
    if any(str(text).startswith("[SUGGESTION MODE:") for text in texts):
        return "Thanks"
    return None


def acp_app(script: t.ScriptedTransport) -> Any:
    """The Claude Code stand-in, side requests answered apart (`app.state.side` keeps them)."""
    app = claude_code_app(script)
    turns = app.router.routes[0].endpoint
    kept: list[dict[str, Any]] = []
    refused: list[Any] = []

    async def messages(request: Request) -> Response:
        body = json.loads(await request.body() or b"{}")
        reply = side_reply(body)
        if reply is None:
            return await turns(request)  # (the body read above stays cached on the request)
        kept.append(body)
        side = t.ScriptedTransport(t.reply(reply))
        side.priced = True
        betas = {k: v for k, v in request.headers.items() if k == "anthropic-beta"}  # (as the API reads them)
        served = await side.handle(
            httpx2.Request("POST", str(request.url), content=await request.body(), headers=betas)
        )
        refused.extend(r.errors for r in side.refused)  # (checked when the stand-in closes)
        kind = served.headers.get("content-type", "application/json")
        return Response(await served.aread(), status_code=served.status_code, media_type=kind.split(";")[0])

    app.router.routes.insert(0, Route("/v1/messages", messages, methods=["POST"]))
    app.state.side = kept
    app.state.side_refused = refused
    return app


def agent_command() -> list[str]:
    """The command line of the ACP agent."""
    return ["node", str(AGENT)]


def agent_env(standin: Standin) -> dict[str, str]:
    """The agent's environment: the CLI's offline settings, the wheel's CLI and the stand-in's model."""
    return {
        **offline_env(standin.base_url, standin.home),
        "CLAUDE_CODE_EXECUTABLE": cli_path(),
        "ANTHROPIC_MODEL": MODEL,
    }


@contextmanager
def acp_standin(*steps: t.Step) -> Iterator[Standin]:
    """The stand-in serving `steps` (and any title request) on 127.0.0.1, with a temporary home."""
    import tempfile

    script = t.ScriptedTransport(*steps)
    app = acp_app(script)
    with tempfile.TemporaryDirectory(prefix="acp-home-") as home, live_server(app) as base:
        yield Standin(base, script, app, Path(home))
    assert script.refused == [], [r.errors for r in script.refused]
    assert app.state.side_refused == [], app.state.side_refused  # a side request the real API refuses
    assert app.state.other == [], app.state.other
