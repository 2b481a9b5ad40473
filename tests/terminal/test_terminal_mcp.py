"""server-everything (npm) asks, a person at the terminal answers: the real server over stdio, an agent
on the scripted model and a `TerminalChat` reading the person's lines, end to end.

The person fills in the server's form field by field and accepts it, declines the same form with
/skip, approves a sampling request (and the model's reply) and denies another, and declines a page
the server asks them to open. What the server made of each answer comes back in its tool results,
which the scripted model received.
"""

import asyncio
import io
import json

import pytest
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat
from tests.mcp.servers import everything_stdio, results, text_of
from tests.support.readiness import CEILING

SAY_HI = {"prompt": "Say hi", "maxTokens": 20}
# server-everything's form, in its schema's order; an empty line keeps a field's default or leaves it out
FORM = [
    "Ada Lovelace",  # name (required)
    "true",  # check
    "",  # firstLine: its default
    "ada@example.org",  # email
    "",  # homepage: left out
    "1815-12-10",  # birthdate
    "7",  # integer
    "",  # number: its default
    "",  # untitledSingleSelectEnum: its default
    "2",  # untitledMultipleSelectEnum: Piano
    "",  # titledSingleSelectEnum: its default
    "1,3",  # titledMultipleSelectEnum: Tuna and Trout
    "",  # legacyTitledEnum: its default
]


def test_the_terminal_answers_server_everythings_forms_sampling_and_pages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", opened.append)
    script = t.ScriptedTransport(
        t.turn(t.tool_use("everything", id="open")),
        t.turn(t.tool_use("trigger-elicitation-request", {}, id="accepted")),
        t.turn(t.tool_use("trigger-elicitation-request", {}, id="declined")),
        t.turn(t.tool_use("trigger-sampling-request", SAY_HI, id="approved")),
        t.reply("Hi, server."),  # the model's answer to the server, through the agent's client
        t.turn(t.tool_use("trigger-sampling-request", SAY_HI, id="denied")),
        t.turn(t.tool_use("trigger-url-elicitation", {"url": "https://example.com/auth"}, id="page")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[everything_stdio()])
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, highlight=False, emoji=False)
    lines = ["ask me", *FORM, "/skip", "y", "y", "n", "2", "/exit"]
    chat = TerminalChat(agent, console=console, input=lines)

    async def go() -> int:
        try:
            return await asyncio.wait_for(chat.run(), CEILING)
        finally:
            await agent.aclose()

    assert asyncio.run(go()) == 0
    said = {}
    for body in script.requests:
        said.update(results(body))
    answers = [e.answer for e in recorder.of_type("prompt_answer")]
    assert all(e.frontend == "terminal" for e in recorder.of_type("prompt_answer"))
    assert len(answers) == 6, answers  # the form twice, sampling three times, the page once

    error, accepted = said["accepted"]
    shown = text_of(accepted)
    assert not error and "User provided the requested information" in shown
    raw = json.loads(shown.split("Raw result:", 1)[1])  # what the server received, as it echoes it
    assert raw == {
        "action": "accept",
        "content": {
            "name": "Ada Lovelace",
            "check": True,
            "firstLine": "It was a dark and stormy night.",
            "email": "ada@example.org",
            "birthdate": "1815-12-10",
            "integer": 7,
            "number": 3.14,
            "untitledSingleSelectEnum": "Monica",
            "untitledMultipleSelectEnum": ["Piano"],
            "titledSingleSelectEnum": "hero-1",
            "titledMultipleSelectEnum": ["fish-1", "fish-3"],
            "legacyTitledEnum": "pet-1",
        },
    }
    error, declined = said["declined"]
    assert not error and "User declined to provide the requested information" in text_of(declined)
    assert json.loads(text_of(declined).split("Raw result:", 1)[1]) == {"action": "decline"}

    error, approved = said["approved"]
    assert not error and "LLM sampling result" in text_of(approved) and "Hi, server." in text_of(approved)
    sampled = script.requests[4]  # the server's request, sent through the agent's own client
    assert sampled["max_tokens"] == 20 and sampled["system"] == "You are a helpful test server."
    assert "Resource trigger-sampling-request context: Say hi" in json.dumps(sampled["messages"])
    error, denied = said["denied"]
    assert error and "The user refused the sampling request." in text_of(denied)

    error, page = said["page"]
    assert not error and "User declined to open the URL" in text_of(page) and opened == []
    assert len(script.requests) == 8  # nothing else reached the model (the denied request did not)

    screen = out.getvalue()
    assert screen.count("server: everything") >= 5  # each card says which server asks
    assert "Please provide inputs for the following fields:" in screen  # the server's own message
    assert "reply: Hi, server." in screen and "host: example.com" in screen
    # titled choices read by their titles (the codes are what the server gets)
    assert "hero-1 (Superman)" in screen and "fish-1 (Tuna)" not in screen and "Tuna" in screen
    assert "pet-1 (Cats)" in screen
    assert '"server_message"' not in screen  # each card says it once, as lines, not again as raw JSON
