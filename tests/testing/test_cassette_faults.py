"""Faults while recording (HTTP errors, cut or dropped streams, refused keys, a Stop): replays match."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import anthropic
import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.testing._cassette_file import events_of, load
from tests.support.cassette_recorder import record, replay, run
from tests.support.cassette_sessions import SYSTEM, cli, session
from tests.support.cassette_sessions import key as key_fixture  # noqa: F401  (the `key` fixture)
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app


def scripted_events(*turns: t.Turn, text_chunk: int = 4) -> list[list[dict[str, Any]]]:
    """The SSE events a scripted model streams for each of `turns` (to serve by hand)."""
    script = t.ScriptedTransport(*turns, text_chunk=text_chunk)
    out = []
    for _ in turns:
        body = {"model": "m", "max_tokens": 9, "stream": True, "messages": [{"role": "user", "content": "x"}]}
        served = asyncio.run(script.handle(httpx2.Request("POST", "http://x/v1/messages", json=body)))
        out.append(events_of(asyncio.run(served.aread())))
    return out


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def raw_app(bodies: list[bytes]) -> Starlette:
    """A stand-in answering each request with the next raw SSE body (the last one repeats)."""
    served: list[int] = []

    async def messages(request: Request) -> Response:
        served.append(1)
        return Response(bodies[min(len(served), len(bodies)) - 1], media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])


def test_a_stream_cut_inside_an_sse_event_records_the_events_before_it_and_replays(tmp_path, key):
    """Was: the half event reached `json.loads` at the end of the body; the run died with JSONDecodeError."""
    whole = sse(scripted_events(t.reply("Hello there, my friend."))[0])
    cut = whole[: whole.index(b"content_block_delta") + 40]  # inside the first delta's JSON
    path = tmp_path / "c.json"
    with live_server(raw_app([cut, whole])) as base:
        recorded = asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["hi"]))
    assert recorded[0] == ["Hello there, my friend."]
    first = load(path)["exchanges"][0]["response"]["events"]
    assert [e["type"] for e in first] == ["message_start", "content_block_start"]
    os.environ.pop("ANTHROPIC_API_KEY")
    assert asyncio.run(session(t.Cassette(path, "replay").client(), ["hi"])) == recorded


def test_a_complete_sse_event_that_is_not_json_is_a_cassette_error():
    assert events_of(b"event: ping\ndata: {}\n\nevent: x\ndata: {cut") == [{}]
    with pytest.raises(nt.CassetteError, match="not JSON"):
        events_of(b"event: x\ndata: {bad}\n\n")


def test_a_stream_cut_mid_event_with_crlf_line_ends_is_read_as_the_sdk_reads_it():
    body = b'event: a\r\ndata: {"type": "a"}\r\n\r\nevent: b\r\ndata: {"ty'
    assert events_of(body) == [{"type": "a"}]


def dropping_app(whole: bytes, cut_at: int) -> Starlette:
    from starlette.responses import StreamingResponse

    calls: list[int] = []

    async def messages(request: Request) -> Response:
        calls.append(1)
        first = len(calls) == 1

        async def body() -> Any:
            yield whole[:cut_at] if first else whole
            if first:
                await asyncio.sleep(0.05)
                raise ConnectionResetError("the stand-in drops the connection")

        return StreamingResponse(body(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])


@pytest.mark.parametrize("inside", [False, True])
def test_a_connection_dropped_mid_stream_replays_the_drop_and_the_retry_with_the_same_events(
    tmp_path, key, inside
):
    """Was: a dropped stream was not recorded, so the replay had no drop, no "retrying" status and
    other request numbers: the same text, other events."""
    whole = sse(scripted_events(t.reply("Hello there, my dear friend, hello again."))[0])
    cut = whole.index(b"content_block_delta", 200) + (30 if inside else -7)
    path = tmp_path / "c.json"
    with live_server(dropping_app(whole, cut)) as base:
        recorded = asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["hi"]))
    assert any(e["type"] == "status" and e["state"] == "retrying" for e in recorded[2])
    data = load(path)
    assert "dropped" in data["exchanges"][0]["response"] and "dropped" not in data["exchanges"][1]["response"]
    os.environ.pop("ANTHROPIC_API_KEY")
    assert asyncio.run(session(t.Cassette(path, "replay").client(), ["hi"])) == recorded
    code, out, _ = cli("show", str(path))
    assert code == 0 and "dropped: RemoteProtocolError" in out


def test_auto_whose_re_recording_fails_after_a_replayed_request_leaves_the_cassette_as_it_was(tmp_path, key):
    """Was: the replayed head was written back without the tail (save ran on `served`), so an offline
    run, or a refused key, of a notebook changed at request 2 destroyed the rest of the recording."""
    path = tmp_path / "c.json"
    with live_server(
        standin_app(t.ScriptedTransport(t.reply("One."), t.reply("Two."), t.reply("Three.")))
    ) as base:
        asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["a", "b", "c"]))
    before = path.read_bytes()
    with t.Cassette(path, "auto") as cas, pytest.raises(anthropic.APIConnectionError):
        asyncio.run(session(cas.client(base_url="http://127.0.0.1:9", max_retries=0), ["a", "changed"]))
    assert cas.served == 1 and path.read_bytes() == before


@pytest.mark.parametrize("mode", ["replay", "auto"])
def test_a_request_the_notebook_retries_after_the_sdk_gave_up_replays_failure_then_answer(
    tmp_path, key, mode
):
    """Was: the notebook's own retry (the same request, the next cell) dropped the recorded failure as
    if the SDK had retried it, so the replay's first cell got the answer and the second had nothing to retry."""
    path = tmp_path / "c.json"

    async def cells(client: anthropic.AsyncAnthropic) -> list[str]:
        agent = nt.Agent(client=client, system=SYSTEM, retry_delay=0)
        out = []
        try:
            await agent.run("a")
        except anthropic.APIStatusError as exc:
            out.append(f"{type(exc).__name__} {exc.status_code}")
        out.append((await agent.retry()).text)
        return out

    script = t.ScriptedTransport(*[t.HTTPFault(529)] * 3, t.reply("Later."))
    with live_server(standin_app(script)) as base:
        recorded = asyncio.run(cells(t.Cassette(path, "record").client(base_url=base)))
    assert recorded == ["OverloadedError 529", "Later."]
    assert [e["response"]["status"] for e in load(path)["exchanges"]] == [529, 200]
    if mode != "auto":
        os.environ.pop("ANTHROPIC_API_KEY")
    cas = t.Cassette(path, "replay" if mode == "replay" else "auto")
    assert asyncio.run(cells(cas.client(base_url="http://127.0.0.1:9"))) == recorded
    assert cas.mismatch is None and not cas.recording


def test_record_mode_with_a_refused_key_leaves_the_old_cassette_as_it_was(tmp_path, key):
    """Was: the refused request was kept out, but the fixture's (or a `with` block's) closing save wrote
    an empty cassette over the old one: `--cassette-mode=record` with an expired key wiped them all."""
    path = tmp_path / "c.json"
    with live_server(standin_app(t.ScriptedTransport(t.reply("Kept.")))) as base:
        asyncio.run(session(t.Cassette(path, "record").client(base_url=base), ["hi"]))
    before = path.read_bytes()

    async def refuse(request: Request) -> Response:
        error = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
        return Response(json.dumps(error), status_code=401, media_type="application/json")

    app = Starlette(routes=[Route("/v1/messages", refuse, methods=["POST"])])
    with (
        live_server(app) as base,
        t.Cassette(path, "record") as cas,
        pytest.raises(anthropic.AuthenticationError),
    ):
        asyncio.run(session(cas.client(base_url=base), ["hi"]))
    assert path.read_bytes() == before


async def stopped_at_prompt(client: anthropic.AsyncAnthropic, cas: t.Cassette, *, press_stop: bool) -> Any:
    agent = nt.Agent(client=client, system=SYSTEM, frontend_tools=[nt.user_confirm])
    chat = nt.Chat(agent)
    cas.attach(chat)
    task = asyncio.ensure_future(chat.send("Go."))
    for _ in range(2000):  # until the prompt is open
        if any(p["status"] == "pending" for p in chat.prompts.values()):
            break
        await asyncio.sleep(0.005)
    if press_stop:
        chat.stop()  # the person presses Stop while the prompt is open (a replay has nobody to press it)
    first = (await asyncio.wait_for(task, 10)).stop_reason
    second = (await asyncio.wait_for(chat.send("Next."), 10)).text
    prompts = sorted((p["name"], p["status"]) for p in chat.prompts.values())
    return first, second, prompts, list(chat.errors), agent.state.messages


def test_a_stop_while_a_prompt_is_open_is_recorded_and_replays_without_an_error(tmp_path, key):
    """Was: nothing was recorded for the stopped prompt, so the replay found no answer, logged
    "recorded no answer" into the widget and the cell's stderr (an output the saved notebook lacks)."""
    path = tmp_path / "chat.json"
    script = t.ScriptedTransport(
        t.turn("Ask.", t.tool_use("user_confirm", {"message": "Drop?"})), t.reply("Fine, next.")
    )
    with live_server(standin_app(script)) as base:
        cas = t.Cassette(path, "record")
        recorded = asyncio.run(stopped_at_prompt(cas.client(base_url=base), cas, press_stop=True))
    assert recorded[:4] == ("stopped", "Fine, next.", [("user_confirm", "cancelled")], [])
    assert [a["answer"] for a in load(path)["answers"]] == [{"stopped": True}]
    os.environ.pop("ANTHROPIC_API_KEY")
    cas = t.Cassette(path, "replay")
    assert asyncio.run(stopped_at_prompt(cas.client(), cas, press_stop=False)) == recorded


@pytest.mark.parametrize("status", [429, 500, 529])
def test_http_faults_the_sdk_retries_are_not_recorded_and_the_replay_matches(tmp_path, monkeypatch, status):
    script = t.ScriptedTransport(t.HTTPFault(status), t.HTTPFault(status), t.reply("Fine."), t.reply("Two."))
    path, results, app = record(tmp_path, monkeypatch, script, ["a", "b"])
    assert len(app.state.headers) == 4
    data = json.loads(path.read_text())
    assert [e["response"]["status"] for e in data["exchanges"]] == [200, 200]
    assert replay(path, ["a", "b"]) == results


@pytest.mark.parametrize("fault", [t.DropStream(after_events=3), t.TruncatedStream(after_events=3)])
def test_a_stream_cut_off_while_recording_replays_as_the_agent_saw_it(tmp_path, monkeypatch, fault):
    script = t.ScriptedTransport(fault, t.reply("Whole answer."), t.reply("Two."))
    path, results, _ = record(tmp_path, monkeypatch, script, ["a", "b"])
    assert results[0]["text"] == "Whole answer."
    assert replay(path, ["a", "b"]) == results
    statuses = [e["response"]["status"] for e in json.loads(path.read_text())["exchanges"]]
    assert statuses[-2:] == [200, 200]


def test_auto_with_a_refused_key_fails_clearly_and_leaves_the_cassette_as_it_was(tmp_path, monkeypatch):
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    path, _, _ = record(tmp_path, monkeypatch, t.ScriptedTransport(t.reply("One.")), ["a"])
    before = path.read_bytes()

    async def refuse(request: Any) -> Any:
        error = {"type": "authentication_error", "message": "invalid x-api-key"}
        return JSONResponse({"type": "error", "error": error}, status_code=401)

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "WRONGKEY" * 4)
    app = Starlette(routes=[Route("/v1/messages", refuse, methods=["POST"])])
    with (
        live_server(app) as base,
        t.Cassette(path, "auto") as cas,
        pytest.raises(anthropic.AuthenticationError),
    ):
        asyncio.run(run(cas.client(base_url=base), ["a", "b"], system="Changed."))
    assert path.read_bytes() == before
