"""MCP servers at the border (issue 36), against raw_server.py, a server that writes its JSON-RPC by hand:
a line that is not UTF-8 costs that line only; replies the SDK cannot parse or MCP does not allow, and
images the API would refuse, reach the model as sentences; one bad tool is left out (and the person
told), not the whole server; a list_changed storm is coalesced; what a server asks outside its calls,
and sampling with images the API would refuse, never reach the person."""

import asyncio
import io
import json
import subprocess
import sys
import time

import pytest
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import request_errors
from notebook_tools.mcp import MCPSampling
from notebook_tools.prompts import PromptBroker
from notebook_tools.terminal import TerminalChat
from tests.mcp.servers import HERE, free_port, results, run_once, text_of
from tests.support.readiness import CEILING, until_async, wait_until

RAW = HERE / "raw_server.py"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
LEFT_OUT = "1 tool left out: 'bad_schema' (inputSchema is not an object)"
DUMPS = ("pydantic", "For further information", "Failed validating", "validation error", "did not answer")


def raw(env=None, **kw) -> nt.MCPServer:
    return nt.MCPServer.stdio(sys.executable, [str(RAW)], env, name="raw", **kw)


def test_a_line_that_is_not_utf8_costs_that_line_not_the_server():
    server = raw(timeout=60)
    script = t.ScriptedTransport(
        t.turn(t.tool_use("raw", id="open")),
        t.turn(t.tool_use("bad_bytes", id="bad")),
        t.turn(t.tool_use("echo", {"text": "still here"}, id="next")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), mcp_servers=[server])
    started = time.monotonic()
    assert run_once(agent).stop_reason == "end_turn"
    took = time.monotonic() - started
    assert results(script.requests[2])["bad"] == (
        False,
        [{"type": "text", "text": "answered after a line that is not UTF-8"}],
    )
    assert results(script.requests[3])["next"] == (False, [{"type": "text", "text": "still here"}])
    assert server.starts == 1 and took < 30  # answered at once: no timeout waited out, no restart needed


def test_replies_it_cannot_read_or_use_reach_the_model_as_sentences():
    names = ["deep", "surrogate", "not_a_list", "contradicts", "svg", "bad_png"]
    script = t.ScriptedTransport(
        t.turn(t.tool_use("raw", id="open")),
        t.turn(*(t.tool_use(name, id=name) for name in names)),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), mcp_servers=[raw(timeout=60)])
    started = time.monotonic()
    assert run_once(agent).stop_reason == "end_turn"
    assert time.monotonic() - started < 30  # each failed at once, none waited its 60 s
    assert all(request_errors(body) == [] for body in script.requests)
    got = {name: (error, text_of(content)) for name, (error, content) in results(script.requests[2]).items()}
    assert got["deep"] == (
        True,
        "MCP server 'raw' answered 'deep', but its reply could not be read: "
        "it is nested more deeply than this client reads",
    )
    assert got["surrogate"] == (
        True,
        "MCP server 'raw' answered 'surrogate', but its reply could not be read: "
        "it holds a \\u escape that is no character (a lone surrogate)",
    )
    assert got["not_a_list"] == (
        True,
        "MCP server 'raw' answered 'not_a_list', but its result is not one MCP allows: content is not a list",
    )
    assert got["contradicts"] == (
        True,
        "MCP server 'raw' answered 'contradicts', but its structured content does not fit the tool's "
        "outputSchema (n: 'seven' is not of type 'integer')",
    )
    assert got["svg"] == (
        False,
        "[image content image/svg+xml, about 42 bytes: left out, "
        "the model takes JPEG, PNG, GIF and WebP images only, not 'image/svg+xml']",
    )
    assert got["bad_png"] == (
        False,
        "[image content image/png, about 13 bytes: left out, its data is not valid base64]",
    )
    assert not any(dump in text for _, text in got.values() for dump in DUMPS)


def test_over_http_too_an_unreadable_reply_is_told_in_words_and_the_connection_goes_on():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(RAW), "--http", str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        wait_until(
            lambda: proc.stdout.readline().startswith("listening"),
            "raw_server.py over HTTP",
            alive=lambda: proc.poll() is None,
        )
        server = nt.MCPServer.http(f"http://127.0.0.1:{port}/mcp", name="raw", auth=False, timeout=60)

        async def go():
            said = {}
            try:
                for name in ("deep", "surrogate", "not_a_list", "echo"):
                    try:
                        said[name] = text_of((await server.call_tool(name, {"text": "fine"}))["content"])
                    except nt.MCPServerError as exc:
                        said[name] = str(exc)
            finally:
                await server.aclose()
            return said

        started = time.monotonic()
        said = asyncio.run(go())
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
    assert time.monotonic() - started < 30
    assert said == {
        "deep": "MCP server 'raw' answered 'deep', but its reply could not be read: "
        "it is nested more deeply than this client reads",
        "surrogate": "MCP server 'raw' answered 'surrogate', but its reply could not be read: "
        "it holds a \\u escape that is no character (a lone surrogate)",
        "not_a_list": "MCP server 'raw' answered 'not_a_list', but its result is not one MCP allows: "
        "content is not a list",
        "echo": "fine",
    }


def test_a_listing_it_cannot_read_is_said_to_be_unreadable_at_once():
    server = raw({"RAW_DEEP_LISTING": "1"}, timeout=60)

    async def go():
        started = time.monotonic()
        try:
            await server.list_tools()
        except nt.MCPServerError as exc:
            return str(exc), time.monotonic() - started
        finally:
            await server.aclose()
        raise AssertionError("the listing was read")

    said, took = asyncio.run(go())
    assert said == (
        "MCP server 'raw' could not list its tools: its reply could not be read: "
        "it is nested more deeply than this client reads"
    )
    assert took < 30


def test_one_bad_tool_is_left_out_and_the_person_sees_why_in_the_widget_and_the_terminal():
    script = t.ScriptedTransport(
        t.turn(t.tool_use("raw", id="open")),
        t.turn(t.tool_use("echo", {"text": "works"}, id="echo")),
        t.reply("done"),
    )
    server = raw({"RAW_BAD_TOOL": "1"})
    agent = nt.Agent(script.client(), mcp_servers=[server])
    chat = nt.Chat(agent)
    assert run_once(agent).stop_reason == "end_turn"
    offered = {tool["name"] for tool in script.requests[1]["tools"]}
    assert {"echo", "deep", "contradicts", "count"} <= offered and "bad_schema" not in offered
    assert results(script.requests[2])["echo"] == (False, [{"type": "text", "text": "works"}])
    assert server.left_out == {"bad_schema": "inputSchema is not an object"}
    [plugin] = [p for p in chat.view.plugins if p["name"] == "raw"]  # the widget's Tools menu
    assert plugin["description"] == f"Tools of the MCP server 'raw' · {LEFT_OUT}"

    agent = nt.Agent(t.ScriptedTransport(t.reply("hello")).client(), mcp_servers=[raw({"RAW_BAD_TOOL": "1"})])
    out = io.StringIO()
    console = Console(file=out, width=250, color_system=None, highlight=False, emoji=False)
    terminal = TerminalChat(agent, console=console, input=["hello", "/plugins", "/exit"])

    async def go():
        try:
            return await asyncio.wait_for(terminal.run(), CEILING)
        finally:
            await agent.aclose()

    assert asyncio.run(go()) == 0
    assert LEFT_OUT in " ".join(out.getvalue().split())  # /plugins


def test_a_list_changed_storm_is_coalesced():
    script = t.ScriptedTransport(
        t.turn(t.tool_use("raw", id="open")),
        t.turn(t.tool_use("storm", id="storm")),
        t.turn(t.tool_use("count", id="count")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), mcp_servers=[raw()])
    assert run_once(agent).stop_reason == "end_turn"
    assert results(script.requests[2])["storm"] == (False, [{"type": "text", "text": "stormed"}])
    listings = int(text_of(results(script.requests[3])["count"][1]))
    assert 2 <= listings <= 3  # the first, then one in flight and at most one queued (not 2,001)


def test_requests_of_the_server_outside_its_calls_are_refused_without_a_prompt(caplog):
    script = t.ScriptedTransport()
    server = raw()
    agent = nt.Agent(script.client(), mcp_servers=[server])
    chat = nt.Chat(agent)  # its prompts answer the server's elicitation and sampling

    def refusals():
        return [r for r in caplog.records if "with no call in progress: refused" in r.getMessage()]

    async def go():
        try:
            await server.list_tools()
            await (await server.start()).send_ping()  # followed by an elicitation and a sampling request
            await until_async(lambda: chat.prompts or len(refusals()) == 2, "both requests handled")
            assert chat.prompts == {}  # (a prompt would wait for a person: checked before going on)
            return await server.call_tool("late_answers", {})  # what the client answered them
        finally:
            await agent.aclose()

    answers = json.loads(asyncio.run(go())["content"][0]["text"])
    refused = "outside a tool call is refused: this client asks its person only while one of the server's tools runs"
    assert answers["late-1"]["error"] == {"code": -32600, "message": f"Elicitation {refused}"}
    assert answers["late-2"]["error"] == {"code": -32600, "message": f"Sampling {refused}"}
    assert chat.prompts == {} and script.requests == []


def test_sampling_with_images_the_api_refuses_is_refused_before_the_person_is_asked():
    script = t.ScriptedTransport(
        t.turn(t.tool_use("raw", id="open")),
        t.turn(t.tool_use("sample_images", id="sample")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[raw()])
    chat = nt.Chat(agent)  # MCPSampling: the person would be asked in a prompt
    assert run_once(agent).stop_reason == "end_turn"
    answers = json.loads(text_of(results(script.requests[2])["sample"][1]))
    assert answers["s-1"]["error"] == {
        "code": -32602,
        "message": "the image in message 1 cannot be sent to the model: "
        "the model takes JPEG, PNG, GIF and WebP images only, not 'image/svg+xml'",
    }
    assert answers["s-2"]["error"] == {
        "code": -32602,
        "message": "the image in message 1 cannot be sent to the model: its data is not valid base64",
    }
    assert chat.prompts == {}  # no prompt opened
    assert len(script.requests) == 3  # the turn's own requests: none for sampling


@pytest.mark.parametrize(
    ("role", "content", "said"),
    [
        (
            "user",
            [{"type": "image", "mimeType": "image/gif", "data": PNG}],
            "the image in message 1 cannot be "
            "sent to the model: its data is not the image/gif image it claims to be",
        ),
        (
            "user",
            [{"type": "image", "mimeType": "image/png", "data": "A" * (5 * 2**20 + 4)}],
            "the image in message 1 cannot be sent to the model: it is larger than the 5 MB the model takes",
        ),
        ("user", {"type": "text", "text": " \n"}, "message 1 holds an empty text, which the model refuses"),
        (
            "assistant",
            {"type": "text", "text": "hi"},
            'the request cannot be sent to the model: messages: first message must use the "user" role',
        ),
    ],
)
def test_sampling_the_api_would_refuse_is_refused_in_words_before_any_prompt(role, content, said):
    script = t.ScriptedTransport()
    agent = nt.Agent(script.client(), model="claude-test")
    broker = PromptBroker()
    params = {"messages": [{"role": role, "content": content}], "maxTokens": 10}
    assert asyncio.run(MCPSampling(agent, broker)("raw", params)) == {"error": said, "code": -32602}
    assert broker.prompts == {} and script.requests == []
