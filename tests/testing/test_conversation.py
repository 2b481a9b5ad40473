"""The demo without an API key holds a conversation: typed messages get replies, prompts on request.

The quickstart's own path: `t.model_client(...)` with no key serves the notebook's script, then
hands over to `t.converse`. Every request goes through the strict scripted API, so a history the
real Messages API would refuse fails these tests.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import anthropic
import pytest
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat, build_agent
from notebook_tools.terminal._scripted import scripted_transport
from tests.support.browser_double import FakeView, pending_ids, until

KINDS = {"user_confirm": "confirm", "select_option": "select", "ask_text": "text", "pick_file": "file"}
ANSWERS = {
    "confirm": {"value": "yes"},
    "select": {"value": ["green"]},
    "text": {"value": "Ada"},
    "file": {"value": {"paths": ["sales.csv"]}},
}
TYPED = [  # ten messages typed into the chat's input box, one after the other
    "hello",
    "ask me to confirm",
    "give me a choice",
    "ask me for some text",
    "ask for a file",
    "what can you do?",
    "show me every prompt",
    "thanks!",
    "is it going to rain tomorrow in Lisbon?",
    "bye",
]


def quickstart_steps() -> list[t.Step]:
    """The script of notebooks/01_quickstart.ipynb: four questions at once, then a wrap-up."""

    def wrap_up(request: dict[str, Any]) -> t.Turn:
        got = t.answers_in(request)
        return t.reply(
            f"Thanks! Starting with **{got.get('select_option')}**, report `{got.get('ask_text')}`."
        )

    return [
        t.turn(
            "Before I start, four quick questions.",
            t.tool_use("user_confirm", {"message": "Shall I clean the sales data?"}),
            t.tool_use("select_option", {"prompt": "Which region first?", "options": ["north", "south"]}),
            t.tool_use("ask_text", {"prompt": "Name for the report?", "default": "weekly"}),
            t.tool_use("pick_file", {"prompt": "Upload the sales CSV", "accept": ".csv"}),
        ),
        wrap_up,
    ]


async def answer_until_done(chat: nt.Chat, view: FakeView, task: Any, asked: list[str]) -> None:
    """Answer every prompt the turn opens, once each, as a person would, until the turn ends."""
    answered: set[str] = set()
    while not task.done():
        await until(lambda: set(pending_ids(chat)) - answered or task.done(), timeout=20)
        for tool_use_id in sorted(set(pending_ids(chat)) - answered):
            prompt = chat.prompts[tool_use_id]
            assert not prompt.get("error"), prompt  # an answer was refused
            asked.append(prompt["kind"])
            region = "north" in json.dumps(prompt["input"])
            view.answer(tool_use_id, {"value": ["south"]} if region else ANSWERS[prompt["kind"]])
            answered.add(tool_use_id)
        await asyncio.sleep(0)


def test_the_no_key_quickstart_answers_ten_typed_messages_and_asks_every_prompt_kind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    (tmp_path / "sales.csv").write_text("region,price\nnorth,12.5\nsouth,9.0\n")
    client, script = t.model_client(*quickstart_steps())
    assert script is not None and "Model: scripted" in capsys.readouterr().out
    agent = nt.Agent(
        client=client,
        system="You help a data scientist.",
        frontend_tools=[nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file],
    )
    chat = nt.Chat(agent, root=tmp_path)
    view = FakeView(chat)
    view.custom({"type": "hello", "view_id": "v1"})
    asked_per_message: list[list[str]] = []

    async def main() -> None:
        asked: list[str] = []
        first = chat.send_nowait("Please clean my sales data.")  # the quickstart's own cell
        await answer_until_done(chat, view, first, asked)
        assert sorted(asked) == ["confirm", "file", "select", "text"]
        for text in TYPED:
            sent = len(script.requests) + 1
            view.custom({"type": "send", "text": text})  # the input box
            await until(lambda: len(script.requests) >= sent, timeout=20)  # noqa: B023 (awaited here)
            asked = []
            await answer_until_done(chat, view, chat.driver.task, asked)
            asked_per_message.append(asked)

    asyncio.run(main())
    # every kind of prompt was asked when asked for, and answered
    assert asked_per_message[1:5] == [["confirm"], ["select"], ["text"], ["file"]]
    assert asked_per_message[6] == ["confirm", "select", "text", "file"]
    assert [a for i, a in enumerate(asked_per_message) if i not in (1, 2, 3, 4, 6)] == [[]] * 5
    # no error anywhere, and the scripted API, as strict as the real one, accepted every request
    items = list(chat.transcript.items.values())
    assert [i for i in items if i.get("level") == "error"] == [] and chat.errors == []
    assert script.refused == [] and agent.state.status == "idle"
    replies = [i["text"] for i in items if i.get("kind") == "assistant"]
    assert all(r.strip() for r in replies)
    said = " ".join(replies)
    # it says it is scripted, reads the answers back, and answers what was typed
    assert "scripted demo model" in said and "ANTHROPIC_API_KEY" in said
    assert 'you answered "yes"' in said and 'you chose "green"' in said and 'you typed "Ada"' in said
    assert "`sales.csv` (" in said
    assert 'Message 10 received: "is it going to rain tomorrow in Lisbon?"' in said
    users = [m for m in agent.state.messages if m["role"] == "user"]
    assert sum(1 for m in users if any(b.get("type") == "text" for b in m["content"])) == 11


def test_a_strict_script_still_refuses_what_the_api_refuses_and_says_when_it_ran_out():
    script = t.ScriptedTransport(t.reply("one"))
    assert script.then is None
    agent = nt.Agent(client=script.client(max_retries=0))

    async def main() -> None:
        await agent.run("first")
        with pytest.raises(anthropic.BadRequestError, match="the script has no step left for request 2"):
            await agent.run("second")

    asyncio.run(main())
    # and with a conversation after it, an invalid request is still refused, using no step
    lenient = t.ScriptedTransport(then=t.converse)
    client = lenient.client(max_retries=0)
    with pytest.raises(anthropic.BadRequestError):
        asyncio.run(
            client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "assistant", "content": "I speak first"}]
            )
        )
    assert len(lenient.refused) == 1


def test_with_a_key_model_client_is_claude_and_no_script(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")
    client, script = t.model_client(t.reply("never served"))
    assert script is None and isinstance(client, anthropic.AsyncAnthropic)


def test_converse_asks_only_for_prompts_the_agent_offers():
    body = {
        "messages": [{"role": "user", "content": "ask for a file"}],
        "tools": [{"name": "user_confirm", "input_schema": {"type": "object"}}],
    }
    turn = t.converse(body)
    assert [b["type"] for b in turn.content] == ["text"]
    assert "offers no `pick_file` tool" in turn.content[0]["text"]


def test_the_terminals_no_key_chat_uses_the_same_conversation(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    agent, notice = build_agent(script=scripted_transport(event_delay=0))
    out = io.StringIO()
    console = Console(file=out, color_system=None, width=200, highlight=False, emoji=False)
    lines = ["hello", "ask me to confirm", "y", "give me a choice", "2", "what is this?", "/exit"]
    chat = TerminalChat(agent, console=console, input=lines, notice=notice)
    assert asyncio.run(asyncio.wait_for(chat.run(), 20)) == 0
    screen = out.getvalue()
    assert "I am the scripted demo model" in screen
    assert 'you answered "yes" to the yes/no question' in screen and 'you chose "green"' in screen
    assert 'Message 4 received: "what is this?"' in screen and "clean the sales data" in screen
    assert "! " not in screen.replace("! I am", "")  # no problem line: nothing failed
