"""Notebook 02 on a cassette: the committed recording is current and reproducible, a Chat's answers
are recorded and replayed through the widget, and a replay that changed fails naming what changed."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import anthropic
import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

import notebook_tools as nt
import tests.support.record_notebooks as record_notebooks
from notebook_tools import testing as t
from notebook_tools.api import cost_of
from tests.support.browser_double import until
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

NAME = "02_clean_a_dataframe.ipynb"
COMMITTED = record_notebooks.NOTEBOOKS / NAME
KEY = "sk-ant-api03-" + "WIDGETRECORDING" * 3
SYSTEM = "You tidy tables. Ask before you change anything."


# -- the notebook -------------------------------------------------------------------------------------


CHAT_SUMMARY = re.compile(r"^<notebook_tools\.(Chat|Prompt): \d+ items, \d+ prompts, [a-z_]+>$")
"""A chat's one-line text/plain, which nbval compares as "a chat's summary" (tests/nbval-sanitize.cfg)."""


def outputs(notebook: Any) -> list[list[Any]]:
    """What nbval compares of each code cell: stream texts and text/plain (ids and the static copy aside)."""
    out = []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            texts = [
                o.get("text") or o.get("data", {}).get("text/plain")
                for o in cell.outputs
                if o.get("text") or "text/plain" in o.get("data", {})
            ]
            out.append([CHAT_SUMMARY.sub("<a chat's summary>", text) for text in texts])
    return out


@pytest.mark.kernel
def test_re_recording_notebook_02_gives_the_committed_cassette_and_outputs(tmp_path):
    notebook, cassette = record_notebooks.record(NAME, tmp_path)
    committed = json.loads(record_notebooks.cassette_of(COMMITTED).read_text(encoding="utf-8"))
    recorded = json.loads(cassette.read_text(encoding="utf-8"))
    assert recorded["exchanges"] == committed["exchanges"]
    assert recorded["answers"] == committed["answers"]
    assert recorded == committed
    assert [a["tool"] for a in recorded["answers"]] == ["user_confirm", "select_option", "ask_text"]
    assert outputs(nbformat.read(notebook, as_version=4)) == outputs(nbformat.read(COMMITTED, as_version=4))
    for path in (notebook, cassette, COMMITTED, record_notebooks.cassette_of(COMMITTED)):
        text = path.read_text(encoding="utf-8")
        assert record_notebooks.FAKE_KEY not in text and "sk-ant-standin" not in text
        assert "127.0.0.1" not in text and "localhost" not in text


def replay_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cell_id: str, old: str, new: str) -> str:
    """Run a copy of the notebook whose cell `cell_id` says `new` instead of `old`, replaying; the error."""
    notebook = nbformat.read(COMMITTED, as_version=4)
    (cell,) = [c for c in notebook.cells if c.get("id") == cell_id]
    assert old in cell.source
    cell.source = cell.source.replace(old, new)
    cassette = record_notebooks.cassette_of(COMMITTED)
    copy = tmp_path / cassette.relative_to(record_notebooks.NOTEBOOKS)
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(cassette.read_bytes())
    monkeypatch.setenv("NOTEBOOK_TOOLS_CASSETTE", "replay")
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")
    with pytest.raises(CellExecutionError) as raised:
        record_notebooks.execute(notebook, tmp_path)
    assert copy.read_bytes() == cassette.read_bytes()  # a replay never writes
    return str(raised.value)


@pytest.mark.kernel
@pytest.mark.parametrize(
    "cassette",
    sorted((record_notebooks.NOTEBOOKS / record_notebooks.CASSETTES).glob("*.json")),
    ids=lambda p: p.stem,
)
def test_every_example_cassette_says_a_script_wrote_it_so_its_replay_costs_nothing(cassette: Path) -> None:
    # the stand-in served scripts, not Claude: a replay must not price replies Claude never wrote
    usages = []
    data = json.loads(cassette.read_text(encoding="utf-8"))
    for connection in data.get("claude_code", []):  # the CLI's messages carry each response's usage
        for entry in connection["lines"]:
            if entry["line"].get("type") == "assistant":
                usages.append(entry["line"]["message"]["usage"])
    for exchange in data["exchanges"]:
        response = exchange["response"]
        for event in response.get("events", [response.get("body")]):
            if not isinstance(event, dict):
                continue
            usage = event.get("usage") or (event.get("message") or {}).get("usage")
            if usage is not None:
                usages.append(usage)
    assert usages and all(u.get("scripted") is True for u in usages)
    assert {cost_of(u, "claude-sonnet-4-6") for u in usages} == {0.0}


def test_a_notebook_whose_system_prompt_changed_fails_its_replay_naming_system(tmp_path, monkeypatch):
    error = replay_changed(tmp_path, monkeypatch, "02-04", "Always ask before", "Never ask before")
    assert "BadRequestError" in error and "`system` differs" in error and "Never ask before" in error


@pytest.mark.kernel
def test_a_notebook_whose_tool_description_changed_fails_its_replay_naming_tools(tmp_path, monkeypatch):
    error = replay_changed(
        tmp_path,
        monkeypatch,
        "02-02",
        "Drop duplicate rows (keeps the first",
        "Drop repeated rows (keeps the first",
    )
    assert "BadRequestError" in error and "`tools` differs" in error


# -- a Chat on a cassette, without a browser -----------------------------------------------------------


@nt.tool
def count_rows() -> str:
    """Count the rows of the table."""
    return "7 rows"


def script() -> t.ScriptedTransport:
    def wrap_up(body: dict[str, Any]) -> t.Turn:
        got = t.answers_in(body)
        return t.reply(
            f"Drop: {got['user_confirm']}; column {got['select_option']}; named {got['ask_text']}."
        )

    return t.ScriptedTransport(
        t.turn("Counting first.", t.tool_use("count_rows")),
        t.turn(
            "Three questions.",
            t.tool_use("user_confirm", {"message": "Drop the duplicates?"}),
            t.tool_use("select_option", {"prompt": "Which column?", "options": ["price", "qty"]}),
            t.tool_use("ask_text", {"prompt": "New name?", "default": "price_num"}),
        ),
        wrap_up,
    )


def comparable(chat: nt.Chat) -> dict[str, Any]:
    prompts = {k: (p["name"], p["status"], p["answer"]) for k, p in chat.prompts.items()}
    return {"messages": chat.agent.state.messages, "prompts": prompts, "errors": list(chat.errors)}


async def converse(cas: t.Cassette, system: str = SYSTEM, **client: Any) -> tuple[nt.Chat, Any, Any]:
    agent = nt.Agent(
        client=cas.client(**client),
        system=system,
        tools=[count_rows],
        frontend_tools=[nt.user_confirm, nt.select_option, nt.ask_text],
    )
    chat = nt.Chat(agent)
    user = cas.attach(chat)
    result = await chat.send("Tidy my table.")
    return chat, user, result


def record_chat(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[nt.Chat, Any, Any]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("NOTEBOOK_TOOLS_SCRIPTED_USER", "1")  # headless: attach() brings a scripted user
    try:
        with live_server(standin_app(script())) as base:
            return asyncio.run(converse(t.cassette(path, "record"), base_url=base))
    finally:
        monkeypatch.delenv("ANTHROPIC_API_KEY")


def test_a_chat_recorded_with_a_scripted_user_replays_the_same_answers_and_messages(tmp_path, monkeypatch):
    path = tmp_path / "chat.cassette.json"
    chat, user, result = record_chat(path, monkeypatch)
    assert type(user) is nt.ScriptedUser
    assert result.text == "Drop: yes; column price; named price_num."
    data = json.loads(path.read_text())
    assert [(a["tool"], a["answer"]) for a in data["answers"]] == [
        ("user_confirm", {"value": "yes"}),
        ("select_option", {"value": ["price"]}),
        ("ask_text", {"value": "price_num"}),
    ]
    assert len(data["exchanges"]) == 3

    cas = t.cassette(path)  # auto, no key: replay
    replayed, replayer, again = asyncio.run(converse(cas))
    assert isinstance(replayer, nt.CassetteUser) and not cas.recording
    assert again.text == result.text
    assert comparable(replayed) == comparable(chat)
    assert [name for name, _ in replayer.answered] == [name for name, _ in user.answered]
    assert [answer for _, answer in replayer.answered] == [a["answer"] for a in data["answers"]]
    assert "answered from the cassette" in replayed.view.notice
    assert cas.served == 3 and cas.mismatch is None
    assert json.loads(path.read_text()) == data  # a replay never writes


def test_a_chat_whose_system_prompt_changed_fails_its_replay_naming_system(tmp_path, monkeypatch):
    path = tmp_path / "chat.cassette.json"
    record_chat(path, monkeypatch)
    cas = t.cassette(path, "replay")
    with pytest.raises(anthropic.BadRequestError, match="`system` differs"):
        asyncio.run(converse(cas, system="You are a pirate."))
    assert cas.mismatch is not None and cas.mismatch.index == 0


def test_a_missing_recorded_answer_is_refused_clearly_and_the_turn_ends(tmp_path, monkeypatch):
    path = tmp_path / "chat.cassette.json"
    record_chat(path, monkeypatch)
    data = json.loads(path.read_text())
    data["answers"] = [a for a in data["answers"] if a["tool"] != "ask_text"]
    path.write_text(json.dumps(data))
    cas = t.cassette(path, "replay")

    async def main() -> tuple[nt.Chat, Any]:
        agent = nt.Agent(
            client=cas.client(),
            system=SYSTEM,
            tools=[count_rows],
            frontend_tools=[nt.user_confirm, nt.select_option, nt.ask_text],
        )
        chat = nt.Chat(agent)
        cas.attach(chat)
        task = asyncio.ensure_future(chat.send("Tidy my table."))
        await until(lambda: bool(chat.errors), timeout=10)
        return chat, await asyncio.wait_for(
            task, 10
        )  # the turn ends: no waiting for an answer that never comes

    chat, result = asyncio.run(main())
    assert len(chat.errors) == 1
    assert "recorded no answer for ask_text" in chat.errors[0] and str(path) in chat.errors[0]
    assert result.stop_reason == "stopped"
    assert cas.served == 2


def test_the_recording_key_never_reaches_the_cassette(tmp_path, monkeypatch):
    path = tmp_path / "chat.cassette.json"
    record_chat(path, monkeypatch)
    text = path.read_text()
    assert KEY not in text and "WIDGETRECORDING" not in text
    assert "127.0.0.1" not in text
    committed = record_notebooks.cassette_of(COMMITTED).read_text()
    assert record_notebooks.FAKE_KEY not in committed and "sk-ant-" not in committed
