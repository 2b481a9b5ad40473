"""A Chat on a cassette: several prompts and an approval in one turn recorded, replayed, re-recorded."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.cassette_recorder import KEY, SYSTEM
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app


@nt.tool(needs_approval=True)
def delete_rows(n: int) -> str:
    """Delete n rows."""
    return f"deleted {n}"


def chat_script(*, reverse: bool = False) -> t.ScriptedTransport:
    calls = [
        t.tool_use("user_confirm", {"message": "Drop?"}),
        t.tool_use("ask_text", {"prompt": "Name?", "default": "n1"}),
        t.tool_use("delete_rows", {"n": 2}),
    ]
    return t.ScriptedTransport(
        t.turn("Several.", *(reversed(calls) if reverse else calls)),
        lambda body: t.reply(f"Got {sorted(map(str, t.answers_in(body).values()))}."),
    )


async def chat_session(client: anthropic.AsyncAnthropic, cas: t.Cassette) -> tuple[nt.Chat, Any, Any]:
    agent = nt.Agent(
        client=client, system=SYSTEM, tools=[delete_rows], frontend_tools=[nt.user_confirm, nt.ask_text]
    )
    chat = nt.Chat(agent)
    user = cas.attach(chat)
    return chat, user, await asyncio.wait_for(chat.send("Go."), 30)


def chat_view(chat: nt.Chat) -> dict[str, Any]:
    prompts = sorted((p["name"], p["status"], json.dumps(p["answer"])) for p in chat.prompts.values())
    return {"messages": chat.agent.state.messages, "prompts": prompts, "errors": list(chat.errors)}


@pytest.mark.parametrize("reverse", [False, True])
def test_several_prompts_and_an_approval_in_one_turn_record_and_replay_through_the_chat(
    tmp_path, monkeypatch, reverse
):
    path = tmp_path / "chat.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")
    with live_server(standin_app(chat_script(reverse=reverse))) as base:
        cas = t.Cassette(path, "record")
        chat, _, result = asyncio.run(chat_session(cas.client(base_url=base), cas))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    data = json.loads(path.read_text())
    assert {a["tool"] for a in data["answers"]} == {"user_confirm", "ask_text", "delete_rows"}
    data["answers"].reverse()  # answers kept in another order are still found by their call's id
    path.write_text(json.dumps(data))
    cas = t.Cassette(path, "replay")
    again, replayer, replayed = asyncio.run(chat_session(cas.client(), cas))
    assert isinstance(replayer, nt.CassetteUser)
    assert replayed.text == result.text
    assert chat_view(again) == chat_view(chat)


def test_auto_with_a_key_re_records_a_chat_and_its_new_answers(tmp_path, monkeypatch):
    path = tmp_path / "chat.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")
    with live_server(standin_app(chat_script())) as base:
        cas = t.Cassette(path, "record")
        asyncio.run(chat_session(cas.client(base_url=base), cas))
    changed = t.ScriptedTransport(
        t.turn("Other.", t.tool_use("ask_text", {"prompt": "Title?", "default": "t2"})),
        lambda body: t.reply(f"Titled {t.answers_in(body)['ask_text']}."),
    )

    async def other(client: anthropic.AsyncAnthropic, cas: t.Cassette) -> Any:
        agent = nt.Agent(client=client, system="Changed.", frontend_tools=[nt.ask_text])
        chat = nt.Chat(agent)
        cas.attach(chat)
        return chat, await asyncio.wait_for(chat.send("Go."), 30)

    with live_server(standin_app(changed)) as base:
        cas = t.Cassette(path, "auto")
        chat, result = asyncio.run(other(cas.client(base_url=base), cas))
    assert cas.recording and result.text == "Titled t2.", chat.errors
    data = json.loads(path.read_text())
    assert [a["tool"] for a in data["answers"]] == ["ask_text"]  # the old tail's answers went with it
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    cas = t.Cassette(path, "replay")
    chat, again = asyncio.run(other(cas.client(), cas))
    assert again.text == "Titled t2." and not chat.errors
