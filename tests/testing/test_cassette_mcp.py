"""MCP traffic in a cassette: recorded against the real server-everything, replayed with no server at all.

Recording runs the real npm server and the Messages API stand-in; a scripted person answers the
server's form, its sampling request (twice: the request, then the reply) and its URL. Replaying
gives the agent a server whose command does not exist: nothing starts, and the session comes out
the same, prompts included (answered from the cassette).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.testing._cassette_mcp import CassetteMCPServer
from tests.mcp.servers import everything_stdio
from tests.support.cassette_recorder import KEY
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

LEAKED = "sk-ant-api03-" + "LEAKEDBYSERVER" * 4
NOWHERE = "/nonexistent/mcp-server-that-must-not-start"
FORM = {"name": "Ada", "untitledMultipleSelectEnum": ["Piano"]}


def script() -> t.ScriptedTransport:
    return t.ScriptedTransport(
        t.turn(t.tool_use("everything", id="open")),
        t.turn(
            t.tool_use("echo", {"message": "hello"}, id="echo"),
            t.tool_use("get-sum", {"a": 2, "b": 3}, id="sum"),
            t.tool_use("trigger-long-running-operation", {"duration": 1, "steps": 3}, id="long"),
            t.tool_use("get-env", {}, id="env"),
        ),
        t.turn(t.tool_use("trigger-elicitation-request", {}, id="el")),
        t.turn(t.tool_use("trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20}, id="sa")),
        t.reply("Hi, server."),  # the sampling request, sent through the agent's (cassette's) client
        t.turn(t.tool_use("trigger-url-elicitation", {"url": "https://example.com/auth"}, id="url")),
        t.reply("All done."),
    )


def session(cas: t.Cassette, server: nt.MCPServer, base_url: str | None = None) -> dict[str, Any]:
    """One chat on `cas`: the person answers by the prompts' names (a replay answers from the cassette)."""
    wrapped = cas.mcp(server)
    agent = nt.Agent(cas.client(base_url=base_url) if base_url else cas.client(), mcp_servers=[wrapped])
    chat = nt.Chat(agent)
    if cas.attach(chat) is None:  # recording with no browser: the person is scripted
        nt.ScriptedUser(chat, {"mcp_everything_form": json.dumps(FORM)})
    progress: list[tuple[float | None, str]] = []
    agent.events.subscribe(
        lambda e: progress.append((e.progress, e.message)) if e.type == "tool_progress" else None
    )

    async def go() -> nt.RunResult:
        try:
            return await asyncio.wait_for(chat.send("Show me what the server can do."), 120)
        finally:
            await agent.aclose()

    result = asyncio.run(go())
    prompts = sorted((p["name"], p["status"], json.dumps(p["answer"])) for p in chat.prompts.values())
    return {
        "text": result.text,
        "messages": agent.state.messages,
        "prompts": prompts,
        "progress": progress,
        "starts": wrapped.starts,
    }


@pytest.fixture
def recorded(tmp_path, monkeypatch) -> tuple[Path, dict[str, Any]]:
    path = tmp_path / "mcp.cassette.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with live_server(standin_app(script())) as base:
        cas = t.Cassette(path, "record")
        seen = session(cas, everything_stdio(env={"LEAKED_KEY": LEAKED}), base)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    return path, seen


def test_a_session_with_server_everything_replays_with_no_server_and_no_key(recorded):
    path, live = recorded
    assert live["text"] == "All done." and live["starts"] == 1 and live["progress"]
    data = json.loads(path.read_text())
    [server] = data["mcp"]
    ops = [e["op"] for e in server["traffic"]]
    assert ops.count("list_tools") >= 1 and ops.count("call_tool") == 7
    listings = [e for e in server["traffic"] if e["op"] == "list_tools"]
    assert "tools" in listings[0] and all(e.get("unchanged") or "tools" in e for e in listings)
    assert len(listings) == 1 or any(e.get("unchanged") for e in listings)  # the same listing kept once
    asked = [a["kind"] for e in server["traffic"] for a in e.get("asked", [])]
    assert asked == ["elicit", "sample", "elicit"]
    assert server["server_info"]["name"]  # who it is comes back without it
    raw = path.read_text()
    assert LEAKED not in raw and KEY not in raw  # get-env printed the key: it never reached the file

    cas = t.Cassette(path, "replay")
    replayed = session(cas, nt.MCPServer.stdio(NOWHERE, name="everything"))
    assert replayed["starts"] == 0  # no process was started
    assert cas.mismatch is None and not cas.unused()
    for part in ("text", "prompts", "progress"):
        assert replayed[part] == live[part], part
    # the same conversation, but for the secrets kept out of the file (the key get-env printed)
    assert replayed["messages"] == cas.secrets.clean(live["messages"]) != live["messages"]
    assert LEAKED not in json.dumps(replayed["messages"])
    assert {name for name, _, _ in replayed["prompts"]} == {
        "mcp_everything_form",  # the server's form, filled in
        "mcp_everything_sampling",  # its sampling request, then the model's reply: both allowed
        "mcp_everything_url",  # its page, opened
    }
    assert {status for _, status, _ in replayed["prompts"]} == {"answered"}


def test_a_call_that_differs_from_the_recording_is_a_mismatch_not_a_made_up_result(recorded):
    path, _ = recorded
    data = json.loads(path.read_text())
    calls = [e for e in data["mcp"][0]["traffic"] if e["op"] == "call_tool"]
    calls[0]["arguments"] = {"message": "something else"}
    path.write_text(json.dumps(data))
    cas = t.Cassette(path, "replay")
    with pytest.raises(Exception, match="not the one recorded"):
        session(cas, nt.MCPServer.stdio(NOWHERE, name="everything"))
    assert cas.mismatch is not None and "MCP server 1, call 1" in str(cas.mismatch)


def test_a_replay_needs_each_server_it_is_given_to_be_recorded(recorded, tmp_path):
    path, _ = recorded
    cas = t.Cassette(path, "replay")
    cas.mcp(nt.MCPServer.stdio(NOWHERE))
    with pytest.raises(nt.CassetteError, match="server 2"):
        cas.mcp(nt.MCPServer.stdio(NOWHERE))
    with pytest.raises(nt.CassetteError, match=r"takes an nt\.MCPServer"):
        cas.mcp("npx server")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "broken",
    [{"traffic": "no"}, {"traffic": [{"op": "rm -rf"}]}, "server", {"traffic": [["call_tool"]]}],
)
def test_a_cassette_whose_mcp_part_is_broken_is_refused_on_load(tmp_path, broken):
    path = tmp_path / "broken.json"
    path.write_text(
        json.dumps({"notebook_tools_cassette": 1, "exchanges": [], "answers": [], "mcp": [broken]})
    )
    with pytest.raises(nt.CassetteError, match="MCP server 1"):
        t.Cassette(path, "replay")


def test_the_wrapper_is_an_mcp_server_that_says_what_it_does(recorded):
    path, _ = recorded
    server = t.Cassette(path, "replay").mcp(nt.MCPServer.stdio(NOWHERE, name="everything"))
    assert isinstance(server, CassetteMCPServer) and isinstance(server, nt.MCPServer)
    assert "replaying server 1" in repr(server)


def test_auto_with_a_key_re_records_the_server_once_the_conversation_changes(recorded, monkeypatch):
    path, _ = recorded
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    changed = t.ScriptedTransport(
        t.turn(t.tool_use("everything", id="open")),
        t.turn(t.tool_use("echo", {"message": "a new question"}, id="echo")),
        t.reply("Echoed."),
    )
    with live_server(standin_app(changed)) as base:
        cas = t.Cassette(path, "auto")
        server = cas.mcp(everything_stdio())
        agent = nt.Agent(cas.client(base_url=base), mcp_servers=[server])

        async def go() -> nt.RunResult:
            try:
                return await agent.run("Something else entirely.")
            finally:
                await agent.aclose()

        assert asyncio.run(go()).text == "Echoed."
    assert server.starts == 1  # the conversation changed at its first request: the real server answered
    [kept] = json.loads(path.read_text())["mcp"]
    calls = [e for e in kept["traffic"] if e["op"] == "call_tool"]
    assert [(c["name"], c["arguments"]) for c in calls] == [("echo", {"message": "a new question"})]
    assert "Echo: a new question" in json.dumps(calls[0]["result"])
