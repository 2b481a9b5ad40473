"""Claude Code from a cassette: the real CLI recorded once (offline, against the stand-in), replayed with none.

The recording runs the CLI from the `claude-agent-sdk` wheel as the other tests here do, the person
allowing its Edit of notes.md. Each replay runs in another folder with no CLI anywhere (no `claude`
on PATH, a `cli_path` that does not exist, the SDK's subprocess transport made to fail if anything
starts it) and no network at all: the CLI's lines come from the cassette, ours are checked against
the recorded ones, and the Edit reaches the disk only through the cassette, from the input allowed
again. What differs from the recording fails the turn with `CassetteMismatchError` saying what.
"""

import asyncio
import json
import socket
from pathlib import Path

import pytest

pytest.importorskip("claude_agent_sdk")

from claude_agent_sdk import ClaudeAgentOptions
from claude_agent_sdk._internal.transport import subprocess_cli

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.browser_double import FakeView, pending_ids, until
from tests.support.claude_code_standin import Person, bounded, calls, sleeper_running, standin
from tests.support.readiness import CEILING

NOTES = "# Notes\n\nThe mean is teh average.\n"
FIXED = "# Notes\n\nThe mean is the average.\n"
TOKEN = "sk-ant-api03-" + "Q" * 32
"""A key someone pasted into their message: the cassette keeps it out, and a replay still matches."""
PROMPT = f"Fix the typo in notes.md (ignore {TOKEN})."
CASSETTE_KEY = "sk-ant-standin-" + "7" * 24
CLI_KEY = "standin-cli-key-0123456789"
"""The CLI's own key (not shaped like one): kept out by value, as every key in the CLI's environment."""
NOTEBOOK_CASSETTE = (
    Path(__file__).resolve().parents[2] / "notebooks" / "cassettes" / "14_claude_code.cassette.json"
)
SLEEPER = "python3 -c 'import time; time.sleep(300)'"


def _project(folder, text=NOTES):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.md").write_text(text)
    return folder


async def _record(server, path, project, prompt, answer, stop=False):
    """Record a turn of the real CLI in `project`; `answer(person, card)` answers each card."""
    options = server.options()
    options.env["ANTHROPIC_API_KEY"] = CLI_KEY
    cassette = t.Cassette(path, "record", api_key=CASSETTE_KEY)
    claude = cassette.claude_code(nt.ClaudeCode(cwd=project, options=options))
    person = Person(claude.broker)
    try:
        turn = asyncio.ensure_future(claude.send(prompt))
        answer(person, await person.next_card())
        if stop:
            await until(lambda: sleeper_running(project))  # the command runs: a Stop now cuts it short
            await claude.interrupt()
        return await bounded(turn)
    finally:
        await claude.close()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A cassette of the real CLI fixing notes.md, the Edit allowed: (its path, the folder, the stand-in)."""
    folder = tmp_path_factory.mktemp("recorded")
    project = _project(folder / "project")
    path = folder / "edit.cassette.json"
    read = t.tool_use("Read", {"file_path": "notes.md"})
    edit = t.tool_use(
        "Edit", {"file_path": "notes.md", "old_string": "teh", "new_string": "the"}, id="toolu_edit_1"
    )
    with standin(calls(read), calls(edit, text="One typo."), t.reply("Fixed.")) as server:
        messages = asyncio.run(
            _record(server, path, project, PROMPT, lambda person, card: person.decide(card, approved=True))
        )
        facts = {"base_url": server.base_url, "home": str(server.home)}
    assert messages[-1].result == "Fixed." and (project / "notes.md").read_text() == FIXED
    return path, project, facts


@pytest.fixture
def no_cli(monkeypatch, tmp_path):
    """No CLI to be found or started, and no socket to be connected anywhere, loopback included."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))

    async def refuse_to_start(self):
        raise AssertionError("a replay started the Claude Code CLI")

    def refuse_to_connect(self, address):
        raise AssertionError(f"a replay connected a socket to {address!r}")

    monkeypatch.setattr(subprocess_cli.SubprocessCLITransport, "connect", refuse_to_start)
    monkeypatch.setattr(socket.socket, "connect", refuse_to_connect)
    return ClaudeAgentOptions(cli_path=str(tmp_path / "no-such-claude"))


async def _replay(path, project, options, answer, prompt=PROMPT):
    """Replay the cassette in `project`: (the card, the turn's messages or the error it ended with)."""
    cassette = nt.cassette(path)  # no key here: it replays
    assert not cassette.recording
    claude = cassette.claude_code(nt.ClaudeCode(cwd=project, options=options))
    person = Person(claude.broker)
    try:
        turn = asyncio.ensure_future(claude.send(prompt))
        card = await person.next_card()
        answer(person, card)
        try:
            messages = await bounded(turn)
        except nt.CassetteMismatchError as exc:
            return card, exc
        assert cassette.unused() == ""  # every line of ours was sent again
        return card, messages
    finally:
        await claude.close()


def test_the_recording_keeps_the_lines_both_ways_and_no_secret_and_no_folder(recorded):
    path, project, facts = recorded
    text = path.read_text()
    [connection] = json.loads(text)["claude_code"]
    lines = connection["lines"]
    sides = [(e["from"], e["line"]["type"]) for e in lines]
    assert sides[:2] == [("host", "control_request"), ("cli", "control_response")]  # initialize
    assert ("host", "user") in sides and ("cli", "result") in sides
    [asked] = [e["line"] for e in lines if e["line"].get("request", {}).get("subtype") == "can_use_tool"]
    assert asked["request"]["tool_name"] == "Edit"
    # the CLI's absolute path, with the folder as its placeholder
    assert asked["request"]["input"]["file_path"] == "<project>/notes.md"
    [effect] = [f for e in lines for f in e.get("effects", [])]
    assert effect["file"] == "<project>/notes.md" and effect["tool_use_id"] == "toolu_edit_1"
    assert len(effect["sha256"]) == 64
    for secret in (TOKEN, CASSETTE_KEY, CLI_KEY, facts["base_url"], facts["home"], str(project)):
        assert secret not in text, secret
    assert "[redacted]" in text  # the token in the person's message


def test_a_replay_edits_the_file_with_the_persons_approval_and_starts_no_cli(recorded, no_cli, tmp_path):
    path, _, _ = recorded
    project = _project(tmp_path / "elsewhere")

    card, messages = asyncio.run(
        _replay(path, project, no_cli, lambda person, card: person.decide(card, approved=True))
    )
    assert (card.kind, card.name, card.tool_use_id) == ("approval", "Edit", "toolu_edit_1")
    assert card.input["file_path"] == str(project / "notes.md")  # this replay's folder
    diff = card.preview.text.splitlines()
    assert "-The mean is teh average." in diff and "+The mean is the average." in diff
    assert not isinstance(messages, Exception), messages
    assert messages[-1].result == "Fixed." and not messages[-1].is_error
    assert (
        messages[-1].total_cost_usd > 0
    )  # the stand-in here priced its replies as the API: kept as recorded
    assert (project / "notes.md").read_text() == FIXED


def test_a_denial_where_the_recording_allowed_fails_the_turn_and_writes_nothing(recorded, no_cli, tmp_path):
    path, _, _ = recorded
    project = _project(tmp_path / "elsewhere")

    _, error = asyncio.run(
        _replay(path, project, no_cli, lambda person, card: person.decide(card, approved=False, reason="No."))
    )
    assert isinstance(error, nt.CassetteMismatchError)
    assert "this side denied Edit (toolu_edit_1) where the recording allowed it" in str(error)
    assert (project / "notes.md").read_text() == NOTES


def test_an_edited_input_is_not_the_recorded_answer(recorded, no_cli, tmp_path):
    path, _, _ = recorded
    project = _project(tmp_path / "elsewhere")

    def edit(person, card):
        person.decide(card, approved=True, edited_input={**card.input, "new_string": "THE"})

    _, error = asyncio.run(_replay(path, project, no_cli, edit))
    assert isinstance(error, nt.CassetteMismatchError)
    assert "the answer to Edit (toolu_edit_1) differs" in str(error) and '"THE"' in str(error)
    assert (project / "notes.md").read_text() == NOTES


def test_a_project_unlike_the_recorded_one_is_left_as_it_is(recorded, no_cli, tmp_path):
    path, _, _ = recorded
    project = _project(tmp_path / "elsewhere", "teh teh\n")  # the Edit would not be the one the CLI made

    _, error = asyncio.run(
        _replay(path, project, no_cli, lambda person, card: person.decide(card, approved=True))
    )
    assert isinstance(error, nt.CassetteMismatchError)
    assert "finds its old_string 2 times" in str(error)
    assert (project / "notes.md").read_text() == "teh teh\n"


def test_another_message_than_the_recorded_one_fails_at_once(recorded, no_cli, tmp_path):
    path, _, _ = recorded
    project = _project(tmp_path / "elsewhere")

    async def main():
        cassette = nt.cassette(path)
        claude = cassette.claude_code(nt.ClaudeCode(cwd=project, options=no_cli))
        try:
            with pytest.raises(nt.CassetteMismatchError) as caught:
                await bounded(claude.send("Delete notes.md."))
        finally:
            await claude.close()
        return caught.value

    error = asyncio.run(main())
    assert "the person's message" in str(error) and "Delete notes.md." in str(error)
    assert (project / "notes.md").read_text() == NOTES


def test_a_stop_replays_the_interrupt_under_its_new_id(tmp_path, monkeypatch):
    """Our own control requests (initialize, interrupt) are answered from the recording, under new ids."""
    path = tmp_path / "stop.cassette.json"
    recording = tmp_path / "recorded"
    recording.mkdir()
    sleep = t.tool_use("Bash", {"command": SLEEPER, "description": "wait"}, id="toolu_sleep_1")

    def allow(person, card):
        person.decide(card, approved=True)

    with standin(calls(sleep), t.reply("unused")) as server:
        recorded = asyncio.run(_record(server, path, recording, "Wait a while", allow, stop=True))
    lines = json.loads(path.read_text())["claude_code"][0]["lines"]
    ours = [e["line"]["request"]["subtype"] for e in lines if e["from"] == "host" and "request" in e["line"]]
    assert ours == ["initialize", "interrupt"]

    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))

    async def refuse_to_start(self):
        raise AssertionError("a replay started the Claude Code CLI")

    monkeypatch.setattr(subprocess_cli.SubprocessCLITransport, "connect", refuse_to_start)
    replaying = tmp_path / "replayed"
    replaying.mkdir()

    async def main():
        cassette = nt.cassette(path)
        options = ClaudeAgentOptions(cli_path=str(tmp_path / "no-such-claude"))
        claude = cassette.claude_code(nt.ClaudeCode(cwd=replaying, options=options))
        person = Person(claude.broker)
        try:
            turn = asyncio.ensure_future(claude.send("Wait a while"))
            allow(person, await person.next_card())
            await asyncio.wait_for(claude.interrupt(), CEILING)  # answered from the recording
            return await bounded(turn)
        finally:
            await claude.close()

    replayed = asyncio.run(main())
    assert [type(m).__name__ for m in replayed] == [type(m).__name__ for m in recorded]
    assert replayed[-1].subtype == recorded[-1].subtype


def test_cassette_show_tells_the_conversation_and_prune_keeps_the_cards_answers(recorded, tmp_path, capsys):
    from notebook_tools.__main__ import main

    path = tmp_path / "copy.cassette.json"
    data = json.loads(recorded[0].read_text())
    assert [a["tool_use_id"] for a in data["answers"]] == []  # (answered by hand: Person, not a chat)
    data["answers"] = [
        {"tool_use_id": "toolu_edit_1", "tool": "Edit", "answer": {"value": {"approved": True}}},
        {"tool_use_id": "toolu_gone", "tool": "Edit", "answer": {"value": {"approved": True}}},
    ]
    path.write_text(json.dumps(data))

    assert main(["cassette", "show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "── Claude Code, connection 1:" in shown
    assert "you (user): Fix the typo in notes.md (ignore [redacted])." in shown
    assert "claude code asks to run Edit (toolu_edit_1)" in shown and "you allow" in shown
    assert "── result: success, Fixed." in shown

    assert main(["cassette", "prune", str(path)]) == 0
    assert "dropped 0 exchanges and 1 answers" in capsys.readouterr().out
    pruned = json.loads(path.read_text())
    assert [a["tool_use_id"] for a in pruned["answers"]] == ["toolu_edit_1"]  # the card's answer stays
    assert pruned["claude_code"] == data["claude_code"]  # and so does every line


def test_a_connection_the_cassette_did_not_record_is_refused(recorded, no_cli, tmp_path):
    path, _, _ = recorded
    project = _project(tmp_path / "elsewhere")

    async def main():
        cassette = nt.cassette(path)
        cassette.claude_code_made = 1  # as if its one recorded connection had been replayed already
        claude = cassette.claude_code(nt.ClaudeCode(cwd=project, options=no_cli))
        with pytest.raises(
            nt.CassetteError, match="recorded 1 connections of Claude Code; connection 2 was not"
        ):
            await claude.start()

    asyncio.run(main())


def test_claude_code_takes_a_claude_code_once(tmp_path):
    cassette = t.Cassette(tmp_path / "new.cassette.json", "record", api_key=CASSETTE_KEY)
    claude = nt.ClaudeCode(cwd=tmp_path)
    assert cassette.claude_code(claude) is claude and claude.transport is not None
    with pytest.raises(nt.CassetteError, match="without a transport"):
        cassette.claude_code(claude)
    with pytest.raises(nt.CassetteError, match=r"takes an nt\.ClaudeCode"):
        cassette.claude_code(object())


def test_a_replay_that_stops_early_says_which_line_of_ours_never_came(recorded, no_cli, tmp_path):
    path, _, _ = recorded
    project = _project(tmp_path / "elsewhere")

    async def main():
        cassette = nt.cassette(path)
        claude = cassette.claude_code(nt.ClaudeCode(cwd=project, options=no_cli))
        await claude.start()  # initialize: answered from the recording
        await claude.close()  # and the message never sent
        return cassette.unused()

    unused = asyncio.run(main())
    assert "Claude Code's connection 1 was replayed up to line 2 of" in unused
    assert 'this side never sent line 3 ({"type": "user"' in unused


def test_an_allowed_write_of_a_new_file_is_made_again_in_its_new_folder(tmp_path, monkeypatch):
    path = tmp_path / "write.cassette.json"
    summary = "# Summary\n\nThe mean is the average.\n"
    write = t.tool_use("Write", {"file_path": "out/summary.md", "content": summary}, id="toolu_write_1")

    def allow(person, card):
        person.decide(card, approved=True)

    recording = tmp_path / "recorded"
    recording.mkdir()  # no out/ folder: the Write makes it, and so does its replay
    with standin(calls(write), t.reply("Written.")) as server:
        asyncio.run(_record(server, path, recording, "Summarise", allow))
    assert (recording / "out" / "summary.md").read_text() == summary

    monkeypatch.setattr(socket.socket, "connect", lambda self, address: pytest.fail(f"connect {address}"))
    replaying = tmp_path / "replayed"
    replaying.mkdir()
    options = ClaudeAgentOptions(cli_path=str(tmp_path / "no-such-claude"))
    card, messages = asyncio.run(_replay(path, replaying, options, allow, prompt="Summarise"))
    assert card.name == "Write" and card.input["file_path"] == str(replaying / "out" / "summary.md")
    assert messages[-1].result == "Written."
    assert (replaying / "out" / "summary.md").read_text() == summary


def test_a_question_replays_with_the_recorded_answer_and_fails_with_another(tmp_path, monkeypatch):
    path = tmp_path / "ask.cassette.json"
    question = {"question": "Which color?", "header": "Color", "multiSelect": False}
    question["options"] = [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]
    ask = t.tool_use("AskUserQuestion", {"questions": [question]}, id="toolu_ask_1")

    def choose(color):
        return lambda person, card: person.broker.answer(
            card.tool_use_id, {"value": [color]}, frontend="test-view"
        )

    recording = tmp_path / "recorded"
    recording.mkdir()
    with standin(calls(ask), t.reply("Blue it is.")) as server:
        asyncio.run(_record(server, path, recording, "Ask me", choose("Blue")))

    monkeypatch.setattr(socket.socket, "connect", lambda self, address: pytest.fail(f"connect {address}"))
    options = ClaudeAgentOptions(cli_path=str(tmp_path / "no-such-claude"))
    replaying = tmp_path / "replayed"
    replaying.mkdir()
    card, messages = asyncio.run(_replay(path, replaying, options, choose("Blue"), prompt="Ask me"))
    assert (card.kind, card.input["options"]) == ("select", ["Red", "Blue"])
    assert messages[-1].result == "Blue it is."

    _, error = asyncio.run(_replay(path, replaying, options, choose("Red"), prompt="Ask me"))
    assert isinstance(error, nt.CassetteMismatchError)
    assert "the answer to AskUserQuestion (toolu_ask_1) differs" in str(error) and "Red" in str(error)


def test_the_notebooks_cassette_replays_in_a_chat_as_a_script_at_no_cost(no_cli, tmp_path):
    """Notebook 14's cassette, through the widget: the card, the edited file, and no price for a script."""
    cassette_path = (
        Path(__file__).resolve().parents[2] / "notebooks" / "cassettes" / "14_claude_code.cassette.json"
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("# Penguins\n\nGentoo have the longest bills for thier depth.\n")

    async def main():
        cassette = nt.cassette(cassette_path)
        claude = cassette.claude_code(nt.ClaudeCode(cwd=project, options=no_cli))
        chat = nt.Chat(claude)
        view = FakeView(chat)
        view.custom({"type": "hello", "view_id": "v1"})
        turn = asyncio.ensure_future(chat.send("Fix the spelling mistake in notes.md."))
        await until(lambda: pending_ids(chat) or turn.done())
        [card] = pending_ids(chat)
        prompt = chat.prompts[card]
        view.answer(card, {"value": {"approved": True}})
        result = await bounded(turn)
        await claude.close()
        return chat, prompt, result, cassette.unused()

    chat, prompt, result, unused = asyncio.run(main())
    assert (prompt["kind"], prompt["name"], prompt["preview"]["kind"]) == ("approval", "Edit", "diff")
    assert "+Gentoo have the longest bills for their depth." in prompt["preview"]["text"].splitlines()
    assert result.text == 'Fixed: "thier" is now "their" in notes.md.' and unused == ""
    assert (
        project / "notes.md"
    ).read_text() == "# Penguins\n\nGentoo have the longest bills for their depth.\n"
    turn = chat.view.usage["turn"]
    assert turn["requests"] == turn["scripted_requests"] == 3  # the widget reads "scripted model, no cost"
    assert chat.view.usage["cost_usd"] == 0.0


def test_a_stop_the_recording_does_not_have_fails_the_replay(recorded, no_cli, tmp_path):
    path, _, _ = recorded
    project = _project(tmp_path / "elsewhere")

    async def main():
        cassette = nt.cassette(path)
        claude = cassette.claude_code(nt.ClaudeCode(cwd=project, options=no_cli))
        person = Person(claude.broker)
        try:
            turn = asyncio.ensure_future(claude.send(PROMPT))
            person.decide(await person.next_card(), approved=True)
            with pytest.raises(nt.CassetteMismatchError) as stopped:
                await asyncio.wait_for(claude.interrupt(), CEILING)
            with pytest.raises(nt.CassetteMismatchError) as ended:
                await bounded(turn)
        finally:
            await claude.close()
        return stopped.value, ended.value

    stopped, ended = asyncio.run(main())
    assert "this side sent an interrupt request, and the recording has none from here on" in str(stopped)
    assert ended is stopped  # the turn ends with the same failure
