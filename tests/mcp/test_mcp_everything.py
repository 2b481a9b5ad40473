"""MCP servers as tool sets, against real servers nobody here wrote: server-everything (npm) over stdio
and streamable HTTP, mcp-server-time (PyPI); each call goes through a real nt.Agent on the scripted transport."""

import asyncio
import json

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import TOOL_NAME_RE, request_errors
from notebook_tools.events import ToolProgress
from tests.mcp.servers import XSS, everything_http, everything_stdio, results, text_of, time_server


def scripted(*steps, servers, **kw):
    script = t.ScriptedTransport(*steps)
    agent = nt.Agent(script.client(), mcp_servers=servers, **kw)
    return agent, script


def offered(body):
    return {tool["name"] for tool in body.get("tools", [])}


def test_everything_over_stdio_each_tool_through_the_agent():
    server = everything_stdio()
    agent, script = scripted(
        t.turn(t.tool_use("everything", id="open")),
        t.turn(
            t.tool_use("echo", {"message": XSS}, id="echo"),
            t.tool_use("get-sum", {"a": 2, "b": 40}, id="sum"),
            t.tool_use("get-tiny-image", id="img"),
            t.tool_use("get-structured-content", {"location": "Chicago"}, id="struct"),
            t.tool_use("get-resource-links", {"count": 2}, id="links"),
            t.tool_use("get-resource-reference", {}, id="ref"),
            t.tool_use("trigger-long-running-operation", {"duration": 0.6, "steps": 3}, id="long"),
        ),
        t.reply("done"),
        servers=[server],
    )
    progress = []
    agent.events.subscribe(lambda e: progress.append(e) if isinstance(e, ToolProgress) else None)
    changes = []
    server.on_tools_changed.append(changes.append)  # it registers its client-dependent tools after init

    async def go():
        try:
            return await agent.run("use the tools")
        finally:
            await agent.aclose()

    result = asyncio.run(go())
    assert result.stop_reason == "end_turn"
    first, second, third = script.requests
    assert "everything" in offered(first) and "echo" not in offered(first)  # collapsed like any plugin
    assert {"echo", "get-sum", "get-tiny-image"} <= offered(second)
    for body in script.requests:
        assert request_errors(body) == []
    got = results(third)
    assert got["echo"] == (False, [{"type": "text", "text": f"Echo: {XSS}"}])
    assert "42" in text_of(got["sum"][1])
    assert any(b["type"] == "image" and b["source"]["media_type"] == "image/png" for b in got["img"][1])
    assert json.loads(text_of(got["struct"][1]))["conditions"]  # structured content, outputSchema checked
    assert text_of(got["links"][1]).count("Resource link:") == 2
    assert "Resource <demo://resource/dynamic/text/1>:" in text_of(got["ref"][1])
    assert not got["long"][0] and "completed" in text_of(got["long"][1])
    fractions = [e.progress for e in progress if e.tool_use_id == "long"]
    assert fractions and fractions[-1] == 1.0  # MCP progress notifications on the tool card
    assert changes and "trigger-sampling-request" in offered(second)  # its list_changed, followed
    assert not server.running  # aclose stopped it


def test_everything_over_streamable_http():
    with everything_http() as url:
        server = nt.MCPServer.http(url, headers={"X-Test": "1"}, name="everything_http")
        agent, script = scripted(
            t.turn(t.tool_use("everything_http", id="open")),
            t.turn(
                t.tool_use("echo", {"message": "over http"}, id="e"),
                t.tool_use("get-sum", {"a": 1, "b": 2}, id="s"),
            ),
            t.reply("done"),
            servers=[server],
        )

        async def go():
            try:
                return await agent.run("go")
            finally:
                await agent.aclose()

        assert asyncio.run(go()).stop_reason == "end_turn"
    got = results(script.requests[-1])
    assert got["e"] == (False, [{"type": "text", "text": "Echo: over http"}])
    assert "3" in text_of(got["s"][1])


def test_mcp_server_time_from_pypi():
    agent, script = scripted(
        t.turn(t.tool_use("time", id="open")),
        t.turn(
            t.tool_use("get_current_time", {"timezone": "UTC"}, id="now"),
            t.tool_use(
                "convert_time",
                {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
                id="conv",
            ),
        ),
        t.reply("done"),
        servers=[time_server()],
    )

    async def go():
        try:
            return await agent.run("what time is it")
        finally:
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    got = results(script.requests[-1])
    assert json.loads(text_of(got["now"][1]))["timezone"] == "UTC"
    assert "21:00" in text_of(got["conv"][1])
    assert all(TOOL_NAME_RE.match(n) for n in offered(script.requests[1]))


def test_annotations_drive_approvals_and_approval_overrides_them():
    # every server-everything tool is readOnlyHint: none asks; approval=True makes them all ask
    agent, _ = scripted(servers=[everything_stdio()])
    asked, _ = scripted(
        t.turn(t.tool_use("everything", id="open")),
        t.turn(t.tool_use("echo", {"message": "x"}, id="e")),
        servers=[everything_stdio(approval=True)],
    )

    async def go():
        try:
            await agent.loop.mcp.ready()
            return await asked.run("go")
        finally:
            await agent.aclose()
            await asked.aclose()

    result = asyncio.run(go())
    assert agent.tools["echo"].needs_approval is False
    assert agent.tools["echo"].display["annotations"]["readOnlyHint"] is True
    assert result.stop_reason == "awaiting_approval"


def test_elicitation_and_sampling_defaults_and_handlers():
    server = everything_stdio()
    agent, script = scripted(
        t.turn(t.tool_use("everything", id="open")),
        t.turn(
            t.tool_use("trigger-elicitation-request", id="el1"),
            t.tool_use("trigger-sampling-request", {"prompt": "hi"}, id="sa1"),
        ),
        t.turn(
            t.tool_use("trigger-elicitation-request", id="el2"),
            t.tool_use("trigger-sampling-request", {"prompt": "hi"}, id="sa2"),
        ),
        t.reply("done"),
        servers=[server],
    )
    seen = []

    async def elicit(name, params):
        seen.append((name, params["message"]))
        return {"action": "accept", "content": {"name": "Ada"}}

    async def sample(name, params):
        seen.append((name, params["messages"][0]["content"]["text"]))
        return {"role": "assistant", "content": {"type": "text", "text": "sampled reply"}, "model": "m"}

    def handlers_after_first(event):
        if getattr(event, "tool_use_id", "") == "sa1" and event.type in ("tool_completed", "tool_error"):
            agent.set_mcp_handlers(elicit=elicit, sample=sample)

    agent.events.subscribe(handlers_after_first)

    async def go():
        try:
            return await agent.run("go")
        finally:
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    first, second = results(script.requests[2]), results(script.requests[3])
    assert "declined" in text_of(first["el1"][1])  # no handler: declined
    assert first["sa1"][0] is True and "sampling is not available" in text_of(first["sa1"][1])  # refused
    assert "Name: Ada" in text_of(second["el2"][1])
    assert "sampled reply" in text_of(second["sa2"][1])
    assert [s[0] for s in seen] == ["everything", "everything"]
