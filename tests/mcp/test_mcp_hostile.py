"""A hostile MCP server (hostile_server.py, on the mcp SDK's own server): payloads in names, descriptions,
schemas and results, a 5 MB result, a tool that never answers, a server killed mid-call, list_changed,
and no child process left behind."""

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import TOOL_NAME_RE, request_errors
from notebook_tools.events import ToolProgress
from tests.mcp.servers import HOSTILE, XSS, alive, children, hostile, results, text_of
from tests.support.readiness import CEILING, until_async, wait_until

HOSTILE_TIMEOUT = 30
"""Seconds the hostile server's calls may take (its silent tool is cut after them)."""
SCRIPT = "script_steal____script"  # what '<script>steal()</script>' becomes


def agent_with(*steps, server, **kw):
    script = t.ScriptedTransport(*steps)
    return nt.Agent(script.client(), mcp_servers=[server], **kw), script


def test_payloads_are_data_names_sanitized_huge_result_truncated_silent_tool_bounded():
    # a 5 MB result takes its time on a loaded machine (over 10 s beside two other full runs); the
    # silent call is still cut by the same timeout
    server = hostile(timeout=HOSTILE_TIMEOUT)
    agent, script = agent_with(
        t.turn(t.tool_use("b_hostile__b", id="open")),
        t.turn(
            t.tool_use(SCRIPT, {"text": XSS}, id="x"),
            t.tool_use("huge", id="big"),
            t.tool_use("silent", id="quiet"),
        ),
        t.reply("done"),
        server=server,
        max_result_chars=10_000,
    )
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    async def go():
        beat = asyncio.ensure_future(ticker())
        started = time.monotonic()
        try:
            return await agent.run("go"), time.monotonic() - started
        finally:
            beat.cancel()
            await agent.aclose()

    result, took = asyncio.run(go())
    assert result.stop_reason == "end_turn"
    for body in script.requests:
        assert request_errors(body) == []
        assert all(TOOL_NAME_RE.match(tool["name"]) for tool in body.get("tools", []))
    expanded = {tool["name"]: tool for tool in script.requests[1]["tools"]}
    assert SCRIPT in expanded  # '<script>steal()</script>' made to fit the API's rule
    assert XSS in expanded[SCRIPT]["description"]  # text for the model, never markup
    assert agent.tools[SCRIPT].display["mcp_tool"] == "<script>steal()</script>"
    got = results(script.requests[2])
    assert got["x"] == (False, [{"type": "text", "text": f"{XSS} {XSS}"}])
    big = text_of(got["big"][1])
    assert len(big) < 10_200 and "[truncated: showing 10000 of" in big
    said = text_of(got["quiet"][1])
    assert got["quiet"][0] is True and f"did not answer 'silent' within {HOSTILE_TIMEOUT} s" in said
    assert took < CEILING and ticks > 10  # the loop kept serving while the silent call waited


def test_destructive_hint_needs_approval():
    agent, _ = agent_with(
        t.turn(t.tool_use("b_hostile__b")), t.turn(t.tool_use("delete_everything")), server=hostile()
    )

    async def go():
        try:
            return await agent.run("go")
        finally:
            await agent.aclose()

    result = asyncio.run(go())
    assert result.stop_reason == "awaiting_approval"
    assert agent.tools["delete_everything"].needs_approval is True
    assert agent.tools["huge"].needs_approval is False


def test_server_killed_mid_call_is_an_error_naming_it_then_restarted():
    server = hostile()
    agent, script = agent_with(
        t.turn(t.tool_use("b_hostile__b", id="open")),
        t.turn(t.tool_use("slow_pid", id="slow")),
        t.turn(t.tool_use("pid", id="after")),
        t.reply("done"),
        server=server,
    )
    killed = []

    def kill_on_progress(event):
        if isinstance(event, ToolProgress) and event.message.startswith("started ") and not killed:
            pid = int(event.message.split()[1])
            killed.append(pid)
            os.kill(pid, signal.SIGKILL)

    agent.events.subscribe(kill_on_progress)

    async def go():
        try:
            return await agent.run("go")
        finally:
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    died = results(script.requests[2])["slow"]
    assert died[0] is True and "'<b>hostile</b>'" in text_of(died[1]) and "started again" in text_of(died[1])
    after = results(script.requests[3])["after"]
    assert after[0] is False and int(text_of(after[1])) != killed[0]  # a new process answered
    assert server.starts == 2


def test_list_changed_refreshes_the_tools_offered_from_the_next_request():
    server = hostile()
    agent, script = agent_with(
        t.turn(t.tool_use("b_hostile__b", id="open")),
        t.turn(t.tool_use("add_tool", id="add")),
        t.turn(t.tool_use("added", id="new")),
        t.reply("done"),
        server=server,
    )

    async def go():
        try:
            return await agent.run("go")
        finally:
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    assert "added" not in {x["name"] for x in script.requests[1]["tools"]}
    assert "added" in {x["name"] for x in script.requests[2]["tools"]}
    assert results(script.requests[3])["new"] == (False, [{"type": "text", "text": "added works"}])


def test_aclose_ends_the_child_process():
    server = hostile()

    async def go():
        before = children()
        await server.list_tools()
        started = children() - before
        assert len(started) == 1
        await server.aclose()
        await until_async(lambda: not any(alive(p) for p in started), "the server process to end")
        await server.list_tools()  # used again: started again
        assert server.running and server.starts == 2
        await server.aclose()

    asyncio.run(go())


@pytest.mark.parametrize(
    "ending", ["os._exit(0)  # a kernel killed: no aclose, no atexit", "pass  # the loop ends"]
)
def test_a_process_that_exits_without_closing_leaves_no_server_behind(ending):
    code = f"""
import asyncio, os, sys
sys.path.insert(0, {os.getcwd()!r})
import notebook_tools as nt
async def main():
    server = nt.MCPServer.stdio(sys.executable, [{str(HOSTILE)!r}])
    await server.list_tools()
    result = await server.call_tool("pid", {{}})
    print(result["content"][0]["text"], flush=True)
    {ending}
asyncio.run(main())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=CEILING)
    pid = int(out.stdout.strip())
    wait_until(lambda: not alive(pid), "the orphaned server to see EOF on stdin and exit", ceiling=20)


def test_a_paused_approval_of_an_mcp_tool_survives_a_restart():
    store = nt.InMemoryStore()
    first, _ = agent_with(
        t.turn(t.tool_use("b_hostile__b", id="open")),
        t.turn(t.tool_use("delete_everything", id="del")),
        server=hostile(),
        store=store,
    )
    later, script = agent_with(t.reply("done"), server=hostile(), store=store)  # a new kernel: nothing listed

    async def go():
        try:
            paused = await first.run("go")
            await first.aclose()
            later.load(first.agent_uuid)  # the MCP tool is not listed yet: its approval stays open
            assert [a.tool_use_id for a in later.state.pending_approvals] == ["del"]
            return paused, await later.resume([nt.ApprovalDecision(tool_use_id="del", approved=True)])
        finally:
            await later.aclose()

    paused, resumed = asyncio.run(go())
    assert paused.stop_reason == "awaiting_approval" and resumed.stop_reason == "end_turn"
    assert results(script.requests[0])["del"] == (False, [{"type": "text", "text": "deleted nothing"}])


def test_a_flood_of_notifications_does_not_stall_the_loop():
    agent, script = agent_with(
        t.turn(t.tool_use("b_hostile__b", id="open")),
        t.turn(t.tool_use("flood", id="f")),
        t.reply("done"),
        server=hostile(),
    )
    progress = []
    agent.events.subscribe(lambda e: progress.append(e) if isinstance(e, ToolProgress) else None)
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    async def go():
        beat = asyncio.ensure_future(ticker())
        try:
            return await agent.run("go")
        finally:
            beat.cancel()
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    assert results(script.requests[2])["f"] == (False, [{"type": "text", "text": "flooded"}])
    assert ticks > 5 and len(progress) > 100 and all(len(e.message) <= 500 for e in progress)


def test_a_server_that_never_initializes_is_left_out_not_a_hung_turn():
    before = children()
    silent = nt.MCPServer.stdio(
        sys.executable, ["-c", "import time; time.sleep(120)"], name="mute", timeout=1
    )
    agent, script = agent_with(t.reply("fine without it"), server=silent)

    async def go():
        try:
            return await agent.run("go")
        finally:
            await agent.aclose()

    started = time.monotonic()
    assert asyncio.run(go()).stop_reason == "end_turn"
    assert time.monotonic() - started < 100  # a turn hung on it would last the 120 s the process sleeps
    assert "mute" not in {x["name"] for x in script.requests[0].get("tools", [])}
    wait_until(
        lambda: not any(alive(p) for p in children() - before), "the mute process to be ended", ceiling=20
    )
