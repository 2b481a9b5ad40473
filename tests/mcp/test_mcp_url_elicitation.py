"""URL elicitation completion and -32042 (MCP 2025-11-25), through a chat's real prompts.

server-everything (npm) asks for a page through the -32042 error (`errorPath`) and never says a page
is done; tests/mcp/url_server.py (the `mcp` SDK's own server) says so with
`notifications/elicitation/complete`, sends stray and repeated completions, and asks for a
javascript: page. The person answers on the cards as the widget would (FakeView), or in the terminal.
"""

import asyncio
import io
import json
import sys
import time

import pytest
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.events import PromptChanged
from notebook_tools.mcp._server import url_elicitations
from notebook_tools.mcp._url_done import URL_DONE
from notebook_tools.terminal import TerminalChat
from tests.mcp.servers import HERE, everything_stdio, results, text_of
from tests.support.browser_double import FakeView, pending_ids, until
from tests.support.readiness import CEILING

SKIP = {"skip": True}


def pages(**kw) -> nt.MCPServer:
    return nt.MCPServer.stdio(sys.executable, [str(HERE / "url_server.py")], name="pages", **kw)


def click(url):
    """The consent card's Open button: the ack of the person's click on that very URL."""
    return {"status": "success", "output": {"url": url, "via": "button"}}


def chat_run(server, tool, arguments, answers, *, wait_for=None):
    """One turn calling `tool` on `server`, each card answered in turn: (results, chat, cards, events)."""
    script = t.ScriptedTransport(
        t.turn(t.tool_use(server.name, id="open")),
        t.turn(t.tool_use(tool, arguments, id="call")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[server])
    chat = nt.Chat(agent)
    view = FakeView(chat)
    view.custom({"type": "hello", "view_id": "tab"})
    events = []
    agent.events.subscribe(lambda e: events.append(e) if isinstance(e, PromptChanged) else None)
    answers, asked = iter(answers), []

    async def person():
        while True:
            await asyncio.sleep(0.01)
            view.custom({"type": "ping", "view_id": "tab"})
            for tool_use_id in pending_ids(chat):
                if tool_use_id not in asked and not chat.broker.taken(tool_use_id):
                    asked.append(tool_use_id)
                    view.answer(tool_use_id, next(answers))

    async def go():
        answering = asyncio.ensure_future(person())
        try:
            result = await agent.run("go")
            if wait_for is not None:
                await until(lambda: wait_for(chat, asked))
            return result
        finally:
            answering.cancel()
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    return results(script.requests[-1])["call"], chat, [chat.prompts[i] for i in asked], events


def done_shown(chat, asked):
    return any(URL_DONE in chat.prompts[i]["answer"] for i in asked)


def test_the_servers_completion_shows_on_the_accepted_card_once():
    (is_error, content), _, [card], events = chat_run(
        pages(), "sign_in", {}, [click("https://pages.example/sign-in")], wait_for=done_shown
    )
    assert not is_error and "sign-in accept" in text_of(content)
    assert card["input"]["host"] == "pages.example" and card["status"] == "answered"
    assert card["answer"].endswith(URL_DONE) and card["answer"].count(URL_DONE) == 1
    updates = [
        e for e in events if e.prompt.tool_use_id == card["tool_use_id"] and URL_DONE in e.prompt.answer
    ]
    assert len(updates) == 1  # the repeated completion, and the one nobody asked for, changed nothing


def test_a_declined_card_shows_no_completion():
    (_, content), _, [card], events = chat_run(pages(), "sign_in", {}, [SKIP])
    assert "sign-in decline" in text_of(content) and card["status"] == "skipped"
    assert not any(URL_DONE in e.prompt.answer for e in events)


def test_minus_32042_asks_for_the_page_then_retries_once():
    server = everything_stdio()
    server.url_completion_wait = 0.5  # server-everything never says the page is done: the bounded wait
    url = "https://example.com/after-the-prerequisite"
    answers = [click("https://modelcontextprotocol.io"), click(url)]
    (is_error, content), _, cards, _ = chat_run(
        server, "trigger-url-elicitation", {"url": url, "errorPath": True}, answers
    )
    assert [c["input"]["host"] for c in cards] == ["modelcontextprotocol.io", "example.com"]
    assert not is_error and "User completed the URL elicitation flow" in text_of(content)  # the retry ran


def test_minus_32042_declined_is_the_calls_error_result_not_a_hang():
    url = "https://example.com/declined"
    (is_error, content), _, [card], _ = chat_run(
        everything_stdio(), "trigger-url-elicitation", {"url": url, "errorPath": True}, [SKIP]
    )
    assert card["status"] == "skipped" and card["input"]["host"] == "modelcontextprotocol.io"
    assert is_error and "declined to open the page" in text_of(content)


def test_minus_32042_retries_when_the_server_says_the_page_is_done():
    server = pages()
    server.url_completion_wait = 600  # the completion, not this bound, ends the wait
    started = time.monotonic()
    answer = [click("https://pages.example/authorize/k1")]
    (is_error, content), _, [card], _ = chat_run(
        server, "needs_page", {"key": "k1"}, answer, wait_for=done_shown
    )
    assert not is_error and "ran k1 after the page" in text_of(content)
    assert time.monotonic() - started < 120
    assert card["answer"].endswith(URL_DONE)


def test_minus_32042_with_a_javascript_page_is_refused_before_any_card():
    (is_error, content), chat, cards, _ = chat_run(pages(), "needs_bad_page", {}, [])
    assert cards == [] and chat.prompts == {}
    assert is_error and "refused" in text_of(content) and "did not run" in text_of(content)


def test_the_terminal_shows_the_page_done_after_the_card(monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", opened.append)
    script = t.ScriptedTransport(
        t.turn(t.tool_use("pages", id="open")),
        t.turn(t.tool_use("sign_in", {}, id="call")),
        t.reply("signed in"),
    )
    agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[pages()])
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, highlight=False, emoji=False)
    chat = TerminalChat(agent, console=console, input=["sign me in", "1", "/exit"])

    async def go():
        try:
            return await asyncio.wait_for(chat.run(), CEILING)
        finally:
            await agent.aclose()

    assert asyncio.run(go()) == 0
    shown = out.getvalue()
    assert opened == ["https://pages.example/sign-in"]
    assert URL_DONE in shown and shown.index("Opened https://pages.example/sign-in") < shown.index(URL_DONE)
    assert "sign-in accept" in json.dumps(script.requests[-1]["messages"][-1]["content"])


def test_minus_32042_with_nobody_to_ask_is_an_error_result_and_a_second_one_is_not_asked_again():
    nobody, pushover = everything_stdio(), pages()  # no chat: no elicitation handler; one that accepts all
    asked = []

    async def accept(name, params):
        asked.append(params["url"])
        return {"action": "accept"}

    pushover.elicitation_handler = accept
    pushover.url_completion_wait = 0.2  # nothing says that page is done

    async def go():
        try:
            result = await nobody.call_tool_or_ask(
                "trigger-url-elicitation", {"url": "https://example.com/nobody", "errorPath": True}
            )
            with pytest.raises(nt.MCPServerError, match="URL elicitation required"):
                await pushover.call_tool_or_ask("needs_bad_page", {})  # -32042 again after the retry
            return result
        finally:
            await nobody.aclose()
            await pushover.aclose()

    result = asyncio.run(go())
    assert result["isError"] is True and "Nobody opened the page" in text_of(result["content"])
    assert asked == ["javascript:alert(1)"]  # asked once, retried once, then the error: no loop
    assert url_elicitations(ValueError("no")) is None
