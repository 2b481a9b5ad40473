"""Cassettes: record a session against a local stand-in of the Messages API over real HTTP, replay it
with no server and no key, and refuse a replay whose requests changed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import anthropic
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

KEY = "sk-ant-api03-" + "RECORDINGKEY" * 4
HEADER_SECRET = "custom-header-secret-8472"
SYSTEM = "You help a data scientist. Ask before you change anything."


def script() -> t.ScriptedTransport:
    def wrap_up(body: dict[str, Any]) -> t.Turn:
        got = t.answers_in(body)
        return t.reply(f"You said {got.get('user_confirm')} and named it {got.get('ask_text')}.")

    return t.ScriptedTransport(
        t.turn(
            "Two questions first.",
            t.tool_use("user_confirm", {"message": "Drop the duplicates?"}),
            t.tool_use("ask_text", {"prompt": "Name for the report?"}),
        ),
        wrap_up,
        t.reply("Anything else? The token ghp_abcdefabcdefabcdefabcdef stays out."),
    )


async def conversation(
    client: anthropic.AsyncAnthropic, system: str = SYSTEM
) -> tuple[list[Any], list[Any], nt.EventRecorder]:
    agent = nt.Agent(client=client, system=system, frontend_tools=[nt.user_confirm, nt.ask_text])
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    results = [await agent.run("Clean my data")]
    answers = {"user_confirm": "yes", "ask_text": "weekly"}
    pending = results[0].pending_frontend_tools
    results.append(
        await agent.resume(
            [nt.ToolResult(tool_use_id=p.tool_use_id, content=answers[p.name]) for p in pending]
        )
    )
    results.append(await agent.run("Thanks"))
    dumps = [r.model_dump(exclude={"agent_uuid"}) for r in results]
    for dump in dumps:
        for pending in dump["pending_frontend_tools"]:
            pending.pop("requested_at")  # when the call was made: the one thing a replay cannot repeat
    return dumps, agent.state.messages, recorder


def comparable(recorder: nt.EventRecorder) -> list[dict[str, Any]]:
    out = []
    for event in recorder.events:
        data = event.model_dump(mode="json", exclude={"time", "agent_uuid"})
        if data["type"] == "tool_completed":
            data.pop("duration")
        for pending in data.get("pending", []):
            pending.pop("requested_at")
        out.append(data)
    return out


def record(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, Any, list[dict[str, str]]]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    app = standin_app(script())
    with live_server(app) as base:
        cas = t.cassette(path, "record")
        client = cas.client(base_url=base, default_headers={"X-Custom": HEADER_SECRET})
        results, messages, recorder = asyncio.run(conversation(client))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    return results, messages, recorder, app.state.headers


def test_a_recorded_session_replays_with_no_server_and_no_key_giving_the_same_results_and_events(
    tmp_path, monkeypatch
):
    path = tmp_path / "session.cassette.json"
    results, messages, recorder, headers = record(path, monkeypatch)
    assert len(headers) == 3 and all(
        KEY in (h.get("x-api-key", ""), h.get("authorization", "")[7:]) for h in headers
    )
    data = json.loads(path.read_text())
    assert [e["response"]["status"] for e in data["exchanges"]] == [200, 200, 200]
    assert data["exchanges"][0]["request"]["system"][0]["text"] == SYSTEM

    cas = t.cassette(path)  # auto, no key: replay
    assert not cas.recording
    replayed, replayed_messages, replayed_recorder = asyncio.run(conversation(cas.client()))
    assert replayed == results
    assert replayed_messages == messages
    assert comparable(replayed_recorder) == comparable(recorder)
    assert cas.served == 3 and cas.mismatch is None
    assert json.loads(path.read_text()) == data  # a replay never writes


def test_the_key_headers_and_secret_patterns_never_reach_the_file(tmp_path, monkeypatch):
    path = tmp_path / "s.cassette.json"
    record(path, monkeypatch)
    text = path.read_text()
    assert KEY not in text and "RECORDINGKEY" not in text
    assert (
        HEADER_SECRET not in text and "authorization" not in text.lower() and "anthropic-version" not in text
    )
    assert "ghp_abc" in text  # not a built-in pattern ...
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    app = standin_app(script())
    with live_server(app) as base:
        cas = t.cassette(tmp_path / "s2.cassette.json", "record", secrets=[r"ghp_[A-Za-z0-9]{20,}"])
        asyncio.run(conversation(cas.client(base_url=base)))
    text = (tmp_path / "s2.cassette.json").read_text()
    assert "ghp_abc" not in text and "[redacted]" in text  # ... unless configured


def test_a_changed_system_prompt_fails_the_replay_at_once_naming_system(tmp_path, monkeypatch):
    path = tmp_path / "s.cassette.json"
    record(path, monkeypatch)
    cas = t.cassette(path, "replay")
    with pytest.raises(anthropic.BadRequestError, match="`system` differs") as raised:
        asyncio.run(conversation(cas.client(), system="You are a pirate."))
    assert "request 1 is not the one recorded" in str(raised.value)
    assert cas.mismatch is not None and cas.mismatch.index == 0
    assert "You are a pirate." in cas.mismatch.difference and SYSTEM[:20] in cas.mismatch.difference


def test_a_changed_answer_names_the_message_that_differs(tmp_path, monkeypatch):
    path = tmp_path / "s.cassette.json"
    record(path, monkeypatch)
    cas = t.cassette(path, "replay")

    async def other_answer() -> None:
        agent = nt.Agent(client=cas.client(), system=SYSTEM, frontend_tools=[nt.user_confirm, nt.ask_text])
        paused = await agent.run("Clean my data")
        answers = {"user_confirm": "no", "ask_text": "weekly"}
        await agent.resume(
            [
                nt.ToolResult(tool_use_id=p.tool_use_id, content=answers[p.name])
                for p in paused.pending_frontend_tools
            ]
        )

    with pytest.raises(anthropic.BadRequestError, match="the message at index 2 differs"):
        asyncio.run(other_answer())
    assert cas.mismatch.index == 1


def test_auto_with_a_key_re_records_from_the_first_changed_request(tmp_path, monkeypatch):
    path = tmp_path / "s.cassette.json"
    record(path, monkeypatch)
    before = json.loads(path.read_text())["exchanges"]
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)

    def changed() -> t.ScriptedTransport:
        return t.ScriptedTransport(t.reply("A different story."))

    app = standin_app(changed())
    with live_server(app) as base:
        cas = t.cassette(path, "auto")
        client = cas.client(base_url=base)
        agent = nt.Agent(
            client=client, system="Another prompt.", frontend_tools=[nt.user_confirm, nt.ask_text]
        )
        result = asyncio.run(agent.run("Clean my data"))
    assert result.text == "A different story."
    after = json.loads(path.read_text())["exchanges"]
    assert (
        len(after) == 1
        and after[0]["request"]["system"][0]["text"] == "Another prompt."
        and after != before[:1]
    )


def test_replaying_with_no_cassette_or_a_broken_one_says_how_to_make_one(tmp_path):
    with pytest.raises(nt.CassetteError, match="Run the notebook once with ANTHROPIC_API_KEY"):
        t.cassette(tmp_path / "none.json")
    with pytest.raises(nt.CassetteError, match="needs ANTHROPIC_API_KEY"):
        t.cassette(tmp_path / "none.json", "record")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(nt.CassetteError, match="cannot be read as JSON"):
        t.cassette(bad)
    bad.write_text('{"exchanges": []}')
    with pytest.raises(nt.CassetteError, match="is not a notebook_tools cassette"):
        t.cassette(bad)
    with pytest.raises(nt.ConfigurationError):
        t.cassette(bad, "rewind")  # type: ignore[arg-type]


def test_a_replay_past_the_end_of_the_recording_fails_clearly(tmp_path, monkeypatch):
    path = tmp_path / "s.cassette.json"
    record(path, monkeypatch)
    cas = t.cassette(path, "replay")

    async def longer() -> None:
        agent = nt.Agent(client=cas.client(), system=SYSTEM, frontend_tools=[nt.user_confirm, nt.ask_text])
        await conversation(cas.client())
        await agent.run("One more")

    with pytest.raises(anthropic.BadRequestError, match="nothing was recorded for it"):
        asyncio.run(longer())


@pytest.mark.parametrize(
    "exchanges",
    [
        [1],
        [{"request": {}}],
        [{"request": {}, "response": {"status": "200", "events": []}}],
        [{"request": [], "response": {"status": 200, "body": {}}}],
        [{"request": {}, "response": {"status": 200}}],
    ],
)
def test_a_hand_edited_cassette_that_lost_its_shape_is_refused_at_load(tmp_path, exchanges):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"notebook_tools_cassette": 1, "exchanges": exchanges, "answers": []}))
    with pytest.raises(nt.CassetteError, match="exchange 1 is not a request with its response"):
        t.cassette(bad)
    bad.write_text(json.dumps({"notebook_tools_cassette": 1, "exchanges": [], "answers": [{"tool": "x"}]}))
    with pytest.raises(nt.CassetteError, match="answer 1 has no tool_use_id"):
        t.cassette(bad)
