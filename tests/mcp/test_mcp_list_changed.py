"""An MCP server's tool-list change is announced: a `ToolsetChanged` (change "mcp", by "server") naming
the server's plugin and its tools now, shown in the widget's transcript and Tools menu and in the terminal.

server-everything (npm) registers its client-dependent tools after the handshake and says so; the
hostile server of this folder adds a tool when asked.
"""

import asyncio
import io

from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.events import ToolsetChanged
from notebook_tools.terminal import TerminalChat
from tests.mcp.servers import everything_stdio, hostile, run_once
from tests.support.readiness import CEILING

PLUGIN = "b_hostile__b"  # the hostile server's name, "<b>hostile</b>", made a tool name


def changes_of(agent):
    found = []
    agent.events.subscribe(lambda e: found.append(e) if isinstance(e, ToolsetChanged) else None)
    return found


def test_a_tool_added_by_the_server_is_announced_to_the_widget():
    script = t.ScriptedTransport(
        t.turn(t.tool_use(PLUGIN, id="open")),
        t.turn(t.tool_use("add_tool", id="add")),
        t.turn(t.tool_use("added", id="new")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), mcp_servers=[hostile()])
    chat = nt.Chat(agent)
    changes = changes_of(agent)
    assert run_once(agent).stop_reason == "end_turn"
    [change] = [c for c in changes if c.change == "mcp"]
    assert change.by == "server" and change.names == [PLUGIN] and "added" in change.tools
    assert change.agent_uuid == agent.agent_uuid
    events = [i["text"] for i in chat.transcript.items.values() if i.get("kind") == "event"]
    assert any(text.startswith(f"MCP server {PLUGIN} changed its tools · ") for text in events)
    [menu] = [p for p in chat.view.plugins if p["name"] == PLUGIN]
    assert "added" in menu["tools"]  # the Tools menu follows


def test_server_everythings_list_changed_with_the_same_tools_announces_nothing():
    server = everything_stdio()
    script = t.ScriptedTransport(t.turn(t.tool_use("everything", id="open")), t.reply("done"))
    agent = nt.Agent(script.client(), mcp_servers=[server])
    said = []
    server.on_tools_changed.append(said.append)  # it says so after registering its client-dependent tools
    changes = changes_of(agent)
    assert run_once(agent).stop_reason == "end_turn"
    assert said and "trigger-sampling-request" in agent.tools  # ... which its first listing had already
    assert [c for c in changes if c.change == "mcp"] == []  # so nothing changed, nothing is announced


def test_listing_the_same_tools_again_announces_nothing():
    agent = nt.Agent(t.ScriptedTransport().client(), mcp_servers=[hostile()])
    changes = changes_of(agent)
    [server] = agent.mcp_servers

    async def go():
        try:
            await agent.loop.mcp.ready()  # the first listing: no change to announce
            await agent.loop.mcp.refresh(server)  # e.g. after a restart, or a list_changed: the same tools
            assert changes == []
            await server.call_tool("add_tool", {})
            await agent.loop.mcp.refresh(server)
        finally:
            await agent.aclose()

    asyncio.run(go())
    assert [(c.change, c.names, "added" in c.tools) for c in changes] == [("mcp", [PLUGIN], True)]


def test_the_terminal_shows_the_change():
    script = t.ScriptedTransport(
        t.turn(t.tool_use(PLUGIN, id="open")),
        t.turn(t.tool_use("add_tool", id="add")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), mcp_servers=[hostile()])
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, highlight=False, emoji=False)
    chat = TerminalChat(agent, console=console, input=["add a tool", "/exit"])

    async def go():
        try:
            return await asyncio.wait_for(chat.run(), CEILING)
        finally:
            await agent.aclose()

    assert asyncio.run(go()) == 0
    assert f"MCP server {PLUGIN} changed its tools · " in out.getvalue() and "added" in out.getvalue()
