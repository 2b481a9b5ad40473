"""An ACP agent served over HTTP as Claude Code is: the server's external-agent path takes any agent of that surface.

`create_app` given a factory of `nt.ACPAgent` (the real `@agentclientprotocol/claude-agent-acp`,
offline against the stand-in: tests/support/acp_standin.py) keeps one agent per thread; its
`session/request_permission` cards are `notebook_tools.ask` events of the open AG-UI stream, answered
by `POST /api/tools/ack`, and Stop (`POST /agui/stop`) cancels them. What reaches the disk and what
the model is told are the checks.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("acp")
pytest.importorskip("claude_agent_sdk")

from ag_ui_validate.pytest_plugin import assert_valid_agui

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.acp_standin import AGENT, acp_standin, agent_command, agent_env
from tests.support.claude_code_standin import calls
from tests.support.http_helpers import AUTH, TOKEN, live_server

ASK = "notebook_tools.ask"
CLOSED = "notebook_tools.ask_closed"

if not AGENT.is_file():
    raise RuntimeError(f"{AGENT} is missing: ./dev installs it (tests/acp/node, npm ci --omit=optional)")


async def _run(base: str, text: str, on_ask: Any) -> list[dict[str, Any]]:
    """One AG-UI run of `text` on thread t1; `await on_ask(client, value)` as each card is asked."""
    body = {"threadId": "t1", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": text}]}
    events: list[dict[str, Any]] = []
    client = httpx.AsyncClient(base_url=base, headers=AUTH, timeout=httpx.Timeout(120))
    async with client as c, c.stream("POST", "/agui", json=body) as r:
        assert r.status_code == 200, await r.aread()
        async for line in r.aiter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if events[-1]["type"] == "CUSTOM" and events[-1]["name"] == ASK:
                    await on_ask(c, events[-1]["value"])
    assert_valid_agui(events, max_warnings=0)
    return events


def _served(server: Any, cwd: Path) -> Any:
    factory = lambda: nt.ACPAgent(agent_command(), cwd=cwd, env=agent_env(server))  # noqa: E731
    return live_server(create_app(factory, token=TOKEN, warm=False), lifespan="on")


def _custom(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e["value"] for e in events if e["type"] == "CUSTOM" and e["name"] == name]


def test_an_acp_agents_write_denied_over_agui_leaves_the_disk_untouched(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "secret\n"}, id="toolu_a1")
    acked: list[int] = []

    async def deny(c: httpx.AsyncClient, value: dict[str, Any]) -> None:
        assert not target.exists()
        answer = {"toolCallId": value["id"], "status": "success", "output": {"approved": False}}
        acked.append((await c.post("/api/tools/ack", json=answer)).status_code)

    with acp_standin(calls(write), t.reply("Done.")) as server, _served(server, tmp_path) as base:
        events = asyncio.run(_run(base, "Write notes.txt", deny))
        told, is_error = server.said_to_model(write["id"])
    assert not target.exists()
    assert is_error, told
    [value] = _custom(events, ASK)
    assert value["reason"] == "confirmation" and value["toolCallId"] == write["id"]
    assert value["metadata"]["kind"] == "approval" and "+secret" in value["metadata"]["preview"]["text"]
    assert value["metadata"]["editable"] is False  # an ACP agent runs the call as asked
    assert "edited_input" not in value["responseSchema"]["properties"]
    assert acked == [200] and _custom(events, CLOSED) == [{"id": value["id"], "status": "answered"}]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "success"}


def test_an_acp_agents_write_approved_over_agui_writes(tmp_path: Path) -> None:
    target = tmp_path / "hello.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "hello\n"}, id="toolu_a2")

    async def allow(c: httpx.AsyncClient, value: dict[str, Any]) -> None:
        answer = {"toolCallId": value["id"], "status": "success", "output": {"approved": True}}
        assert (await c.post("/api/tools/ack", json=answer)).status_code == 200

    with acp_standin(calls(write), t.reply("Done.")) as server, _served(server, tmp_path) as base:
        events = asyncio.run(_run(base, "Write hello.txt", allow))
        told, is_error = server.said_to_model(write["id"])
    assert target.read_text() == "hello\n"
    assert not is_error, told
    assert events[-1]["outcome"] == {"type": "success"}
    # the agent streams its thinking and text as deltas, then the whole blocks: each said once
    reasoning = "".join(e["delta"] for e in events if e["type"] == "REASONING_MESSAGE_CONTENT")
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert reasoning == "Let me do that." and text == "Done."


def test_stop_with_an_acp_agents_card_open_cancels_it_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "never.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"}, id="toolu_a3")

    async def stop(c: httpx.AsyncClient, value: dict[str, Any]) -> None:
        stopped = await c.post("/agui/stop", json={"threadId": "t1"})
        assert stopped.status_code == 200, stopped.text

    with acp_standin(calls(write), t.reply("Done.")) as server, _served(server, tmp_path) as base:
        events = asyncio.run(_run(base, "Write never.txt", stop))
    assert not target.exists()
    [value] = _custom(events, ASK)
    assert _custom(events, CLOSED) == [{"id": value["id"], "status": "cancelled"}]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
