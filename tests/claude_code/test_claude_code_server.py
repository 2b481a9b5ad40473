"""The real Claude Code CLI served over HTTP: AG-UI runs its turns, its cards are answered by `POST /api/tools/ack`.

`create_app` given a factory of `nt.ClaudeCode` keeps one CLI per thread. Each permission card and
question the CLI asks while a turn runs is a `notebook_tools.ask` event of the open stream (as an MCP
server's questions are for our own agent); the client answers it by ack and the same turn goes on.
What reaches the disk and what the model is told are the checks; the CLI runs offline against the
stand-in (tests/support/claude_code_standin.py), the server under uvicorn in a thread with its
lifespan on (its shutdown ends the CLIs).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("claude_agent_sdk")

from ag_ui_validate.pytest_plugin import assert_valid_agui

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.agui_client import client_transcript, converse
from tests.support.claude_code_standin import MODEL, bounded, calls, offline_env, sleeper_running, standin
from tests.support.http_helpers import AUTH, TOKEN, element, elements, live_server, read_sse, serve_process
from tests.support.readiness import until_async, wait_until
from tests.support.unnoticed_leave import LeavingClient

DONE = t.reply("Done.")
ASK = "notebook_tools.ask"
CLOSED = "notebook_tools.ask_closed"
SLEEPER = "python3 -c 'import time; time.sleep(300)'"

Act = Callable[[dict[str, Any]], Awaitable[None]]


@contextlib.contextmanager
def served(server: Any, cwd: Path, **app: Any) -> Iterator[str]:
    """An app serving Claude Code in `cwd` (a CLI per thread), live; its base URL."""
    made = create_app(
        lambda: nt.ClaudeCode(cwd=cwd, options=server.options()), token=TOKEN, warm=False, **app
    )
    with live_server(made, lifespan="on") as base:  # (its shutdown closes the CLIs)
        yield base


def said(thread: str, message_id: str, text: str, run: str = "r1") -> dict[str, Any]:
    """A RunAgentInput whose last message is the person's new one."""
    return {
        "threadId": thread,
        "runId": run,
        "messages": [{"id": message_id, "role": "user", "content": text}],
    }


async def agui(c: httpx.AsyncClient, body: dict[str, Any], on_ask: Act | None = None) -> list[dict[str, Any]]:
    """Run `body` over AG-UI; `await on_ask(value)` the moment a card is asked. Every event, checked."""
    events: list[dict[str, Any]] = []
    async with c.stream("POST", "/agui", json=body) as r:
        assert r.status_code == 200, await r.aread()
        async for line in r.aiter_lines():
            if not line.startswith("data: "):
                continue
            event = json.loads(line[6:])
            events.append(event)
            if event["type"] == "CUSTOM" and event["name"] == ASK and on_ask is not None:
                await on_ask(event["value"])
    assert_valid_agui(events, max_warnings=0)
    return events


def client(base: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=base, headers=AUTH, timeout=httpx.Timeout(120))


def custom(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e["value"] for e in events if e["type"] == "CUSTOM" and e["name"] == name]


def finished(events: list[dict[str, Any]]) -> dict[str, Any]:
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    return events[-1]


async def ack(
    c: httpx.AsyncClient, ask_id: str, output: Any = None, status: str = "success"
) -> httpx.Response:
    body: dict[str, Any] = {"toolCallId": ask_id, "status": status}
    if status == "success":
        body["output"] = output
    return await c.post("/api/tools/ack", json=body)


def test_a_write_denied_over_agui_leaves_the_disk_untouched_and_the_model_reads_why(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "secret plans\n"}, id="toolu_w1")
    asked: list[dict[str, Any]] = []
    acked: list[httpx.Response] = []

    async def main(base: str) -> list[dict[str, Any]]:
        async with client(base) as c:

            async def deny(value: dict[str, Any]) -> None:
                asked.append(value)
                assert not target.exists()  # nothing ran while the card was open
                acked.append(await ack(c, value["id"], {"approved": False, "reason": "Not in this folder."}))

            return await agui(c, said("t1", "u1", "Write notes.txt"), deny)

    with standin(calls(write), DONE) as server:
        with served(server, tmp_path) as base:
            events = asyncio.run(main(base))
        call_id = write["id"]
        told, is_error = server.said_to_model(call_id)
    assert not target.exists()
    assert is_error and "Not in this folder." in told
    [value] = asked
    assert value["id"] == f"{call_id}.t1" and value["reason"] == "confirmation"
    assert value["toolCallId"] == call_id  # the CLI's own call, streamed to the client before the card
    assert value["responseSchema"]["required"] == ["approved"]
    meta = value["metadata"]
    assert (meta["name"], meta["kind"], meta["input"]) == ("Write", "approval", write["input"])
    assert "+secret plans" in meta["preview"]["text"].splitlines()  # what would be written
    assert meta["answer"] == {"method": "POST", "path": "/api/tools/ack"}
    assert [r.status_code for r in acked] == [200]
    assert custom(events, CLOSED) == [{"id": value["id"], "status": "answered"}]
    types = [e["type"] for e in events]
    order = [types.index("TOOL_CALL_END"), types.index("CUSTOM"), types.index("TOOL_CALL_RESULT")]
    assert order == sorted(order), types
    end = finished(events)
    assert end["outcome"] == {"type": "success"} and end["result"]["stopReason"] == "end_turn"
    [result] = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert result["toolCallId"] == call_id and "Not in this folder." in result["content"]


def test_a_write_approved_over_agui_writes_and_the_thread_goes_on(tmp_path: Path) -> None:
    target = tmp_path / "hello.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "hello\n"}, id="toolu_w2")

    async def main(base: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        async with client(base) as c:

            async def allow(value: dict[str, Any]) -> None:
                assert (await ack(c, value["id"], {"approved": True})).status_code == 200

            first = await agui(c, said("t1", "u1", "Write hello.txt"), allow)
            second = await agui(c, {**said("t1", "u2", "Thanks"), "runId": "r2"})
            reload = await agui(c, {"threadId": "t1", "runId": "r3", "messages": []})
            return first, second, reload

    with standin(calls(write), DONE, t.reply("You are welcome.")) as server:
        with served(server, tmp_path) as base:
            first, second, reload = asyncio.run(main(base))
        told, is_error = server.said_to_model(write["id"])
    assert target.read_text() == "hello\n"
    assert not is_error and "hello.txt" in told
    assert custom(first, CLOSED)[0]["status"] == "answered"
    state = next(e["snapshot"] for e in second if e["type"] == "STATE_SNAPSHOT")
    assert state["status"] == "idle" and state["asks"] == [] and state["sessionId"]
    # the client's ids are kept, the conversation in order; a reload gets the same
    [closing] = [e for e in second if e["type"] == "MESSAGES_SNAPSHOT"][-1:]
    transcript = client_transcript(closing["messages"])
    assert [(m["id"], m["role"]) for m in transcript if m["role"] == "user"] == [
        ("u1", "user"),
        ("u2", "user"),
    ]
    assert [m["content"] for m in transcript if m["role"] == "assistant" and m["content"]] == [
        "Done.",
        "You are welcome.",
    ]
    assert [m["toolCalls"][0]["name"] for m in transcript if m.get("toolCalls")] == ["Write"]
    assert [e for e in reload if e["type"] == "MESSAGES_SNAPSHOT"][-1]["messages"] == closing["messages"]


QUESTIONS = {
    "questions": [
        {
            "question": "Which color?",
            "header": "Color",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
            "multiSelect": False,
        },
        {
            "question": "Which sizes?",
            "header": "Sizes",
            "options": [
                {"label": "S", "description": "small"},
                {"label": "M", "description": "medium"},
                {"label": "L", "description": "large"},
            ],
            "multiSelect": True,
        },
    ]
}


def test_ask_user_question_answered_over_http_reaches_the_cli(tmp_path: Path) -> None:
    question = t.tool_use("AskUserQuestion", QUESTIONS, id="toolu_q1")
    asked: list[dict[str, Any]] = []

    async def main(base: str) -> list[dict[str, Any]]:
        async with client(base) as c:
            answers = {"Color": ["Blue"], "Sizes": ["S", "L"]}

            async def answer(value: dict[str, Any]) -> None:
                asked.append(value)
                if len(asked) == 2:  # both open at once; answered out of order
                    for card in reversed(asked):
                        given = answers[card["metadata"]["input"]["prompt"].split("?")[0].split()[-1].title()]
                        assert (await ack(c, card["id"], given)).status_code == 200

            return await agui(c, said("t1", "u1", "Ask me"), answer)

    with standin(calls(question), t.reply("Blue, S and L.")) as server:
        with served(server, tmp_path) as base:
            events = asyncio.run(main(base))
        told, is_error = server.said_to_model(question["id"])
    assert not is_error, (told, asked, custom(events, CLOSED))
    assert '"Which color?"="Blue"' in told and '"Which sizes?"="S, L"' in told
    color, sizes = asked
    assert color["reason"] == "input_required" and color["message"].startswith("Which color?")
    assert "preview" not in color["metadata"]  # (a question, not a permission card)
    assert (
        color["responseSchema"]["items"] == {"enum": ["Red", "Blue"]}
        and color["responseSchema"]["maxItems"] == 1
    )
    assert "maxItems" not in sizes["responseSchema"]
    assert color["toolCallId"] == sizes["toolCallId"] == question["id"]
    assert sorted(c["status"] for c in custom(events, CLOSED)) == ["answered", "answered"]
    assert finished(events)["outcome"] == {"type": "success"}


def test_stop_with_a_card_open_denies_it_and_a_late_approval_runs_nothing(tmp_path: Path) -> None:
    target = tmp_path / "never.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"}, id="toolu_w3")
    late: list[httpx.Response] = []

    async def main(base: str) -> list[dict[str, Any]]:
        async with client(base) as c:

            async def stop(value: dict[str, Any]) -> None:
                again = await c.post("/agui", json=said("t1", "u2", "And another thing", run="r2"))
                busy.append(again)  # one turn at a time on a thread
                looked.append(await _state(c, "t1"))  # another tab sees the card open, and can answer it
                stopped = await c.post("/agui/stop", json={"threadId": "t1"})
                assert stopped.status_code == 200 and stopped.json()["ok"], stopped.text

                async def approve_late() -> None:  # once the card closed, an approval finds it expired
                    await until_async(lambda: value["id"] in closed_ids, "the card to close")
                    late.append(await ack(c, value["id"], {"approved": True}))

                tasks.append(asyncio.ensure_future(approve_late()))

            closed_ids: set[str] = set()
            busy: list[httpx.Response] = []
            looked: list[dict[str, Any]] = []
            tasks: list[asyncio.Future[None]] = []
            events: list[dict[str, Any]] = []
            async with c.stream("POST", "/agui", json=said("t1", "u1", "Write never.txt")) as r:
                async for line in r.aiter_lines():
                    if line.startswith("data: "):
                        event = json.loads(line[6:])
                        events.append(event)
                        if event["type"] == "CUSTOM" and event["name"] == ASK:
                            await stop(event["value"])
                        if event["type"] == "CUSTOM" and event["name"] == CLOSED:
                            closed_ids.add(event["value"]["id"])
            await bounded(asyncio.gather(*tasks), "the late approval")
            assert_valid_agui(events, max_warnings=0)
            [refused] = busy
            assert refused.status_code == 409 and "/agui/stop" in refused.json()["error"], refused.text
            [state] = looked
            assert state["status"] == "running" and [a["id"] for a in state["asks"]] == [f"{write['id']}.t1"]
            assert state["asks"][0]["reason"] == "confirmation"
            return events

    with standin(calls(write), DONE) as server, served(server, tmp_path) as base:
        events = asyncio.run(main(base))
    assert not target.exists()
    [value] = custom(events, ASK)
    assert custom(events, CLOSED) == [{"id": value["id"], "status": "cancelled"}]
    assert [r.status_code for r in late] == [410]  # the card expired: nothing runs
    end = finished(events)
    assert end["outcome"] == {"type": "cancelled"} and end["result"]["stopReason"] == "stopped"


def test_stop_during_a_long_bash_ends_the_run_and_the_command(tmp_path: Path) -> None:
    sleep = t.tool_use(
        "Bash", {"command": f"{SLEEPER} && touch slept.txt", "description": "wait"}, id="toolu_b1"
    )

    async def main(base: str) -> tuple[list[dict[str, Any]], float, list[dict[str, Any]]]:
        async with client(base) as c:

            async def allow(value: dict[str, Any]) -> None:
                assert (await ack(c, value["id"], {"approved": True})).status_code == 200

                async def stop_once_running() -> None:
                    await until_async(lambda: sleeper_running(tmp_path), "the command to run", poll=0.05)
                    stopping.append(time.monotonic())
                    assert (await c.post("/agui/stop", json={"threadId": "t1"})).status_code == 200

                tasks.append(asyncio.ensure_future(stop_once_running()))

            tasks: list[asyncio.Future[None]] = []
            stopping: list[float] = []
            events = await agui(c, said("t1", "u1", "Wait a while"), allow)
            took = time.monotonic() - stopping[0]
            await until_async(lambda: not sleeper_running(tmp_path), "the command to end", poll=0.05)
            after = await agui(c, said("t1", "u2", "Are you there?", run="r2"))
            return events, took, after

    with standin(calls(sleep), t.reply("Still here.")) as server, served(server, tmp_path) as base:
        events, took, after = asyncio.run(main(base))
    assert took < 60, took  # cut short, far inside the 300 s sleep even on a loaded machine
    assert not (tmp_path / "slept.txt").exists()
    end = finished(events)
    assert end["outcome"] == {"type": "cancelled"} and end["result"]["stopReason"] == "stopped"
    [result] = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert result["toolCallId"] == sleep["id"]  # the call's card on the client closes
    assert finished(after)["outcome"] == {"type": "success"}  # the next message carries on
    assert any(e.get("delta") == "Still here." for e in after if e["type"] == "TEXT_MESSAGE_CONTENT")


def _factory(server: Any, cwd: Path, made: list[nt.ClaudeCode]) -> Callable[[], nt.ClaudeCode]:
    def build() -> nt.ClaudeCode:
        made.append(nt.ClaudeCode(cwd=cwd, options=server.options()))
        return made[-1]

    return build


async def _state(c: httpx.AsyncClient, thread: str) -> dict[str, Any]:
    """The thread as it stands (a run with no new message reports it)."""
    events = await agui(c, {"threadId": thread, "runId": "look", "messages": []})
    found: dict[str, Any] = next(e["snapshot"] for e in events if e["type"] == "STATE_SNAPSHOT")
    return found


def test_a_client_that_leaves_with_a_card_open_denies_the_call_and_the_thread_goes_on(tmp_path: Path) -> None:
    target = tmp_path / "never.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"}, id="toolu_w4")
    made: list[nt.ClaudeCode] = []

    async def main(base: str) -> tuple[dict[str, Any], httpx.Response, list[dict[str, Any]]]:
        async with client(base) as c:
            async with c.stream("POST", "/agui", json=said("t1", "u1", "Write never.txt")) as r:
                async for line in r.aiter_lines():
                    if line.startswith("data: ") and ASK in line:
                        ask_id = json.loads(line[6:])["value"]["id"]
                        break  # the page closes with the card open
            states: list[dict[str, Any]] = []

            async def settled() -> bool:
                states.append(await _state(c, "t1"))
                return states[-1]["status"] != "running"

            await until_async_http(settled)
            late = await ack(c, ask_id, {"approved": True})
            after = await agui(c, said("t1", "u2", "Go on", run="r2"))
            return states[-1], late, after

    with standin(calls(write), DONE) as server, served_by(_factory(server, tmp_path, made)) as base:
        state, late, after = asyncio.run(main(base))
        told, is_error = server.said_to_model(write["id"])
    assert not target.exists()
    assert state["asks"] == [] and late.status_code == 410  # closed as the client left: nothing runs
    [(name, _, decision)] = made[0].decisions
    assert name == "Write" and type(decision).__name__ == "PermissionResultDeny"
    assert is_error and "rejected" in told  # the model, on the next turn, reads that it did not run
    assert finished(after)["outcome"] == {"type": "success"}


def test_a_card_left_past_the_apps_ask_timeout_is_denied(tmp_path: Path) -> None:
    target = tmp_path / "never.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"}, id="toolu_w5")

    async def main(base: str) -> list[dict[str, Any]]:
        async with client(base) as c:
            return await agui(c, said("t1", "u1", "Write never.txt"))  # nobody answers

    with standin(calls(write), DONE) as server, served(server, tmp_path, ask_timeout=1.0) as base:
        events = asyncio.run(main(base))
        told, is_error = server.said_to_model(write["id"])
    assert not target.exists()
    assert is_error and "Denied" in told
    [value] = custom(events, ASK)
    assert value["expiresAt"].endswith("Z")  # the client is told until when it may answer
    assert custom(events, CLOSED) == [{"id": value["id"], "status": "timed_out"}]
    assert finished(events)["outcome"] == {"type": "success"}


def test_the_official_agui_client_approves_a_write_and_holds_the_conversation(tmp_path: Path) -> None:
    target = tmp_path / "hello.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "hello\n"}, id="toolu_w6")
    steps: list[dict[str, Any]] = [{"say": "Write hello.txt"}, {"say": "Thanks"}, {"reload": True}]
    asks = {"Write": {"approved": True}}  # (sent as the ack's output, as its JSON text)

    with standin(calls(write), DONE, t.reply("You are welcome.")) as server, served(server, tmp_path) as base:
        seen = converse(base + "/agui", TOKEN, "t1", steps, asks=asks, run_timeout=120, timeout=300)
    assert target.read_text() == "hello\n"
    first, second, reload = seen["runs"]
    for run in seen["runs"]:
        assert run["error"] is None and run["warnings"] == [], run
        assert run["outcome"] == "success", run
    [value] = first["asks"]
    assert value["reason"] == "confirmation" and value["toolCallId"] == write["id"]
    assert [(a["id"], a["status"]) for a in first["acked"]] == [(value["id"], 200)]
    assert first["askClosed"] == [{"id": value["id"], "status": "answered"}]
    assert first["result"] == {"status": "idle", "stopReason": "end_turn"}
    assert second["asks"] == [] and second["result"] == {"status": "idle", "stopReason": "end_turn"}
    assert reload["result"] == {"status": "idle"}  # (no turn ran: the thread as it stands)
    # what the client built is the conversation, once each, in order, under its own ids
    transcript = client_transcript(seen["messages"])
    plain = [m for m in transcript if m["role"] != "reasoning"]  # (the CLI's thinking, shown apart)
    assert [(m["role"], m["content"]) for m in plain] == [
        ("user", "Write hello.txt"),
        ("assistant", None),
        ("tool", plain[2]["content"]),
        ("assistant", "Done."),
        ("user", "Thanks"),
        ("assistant", "You are welcome."),
    ]
    assert plain[1]["toolCalls"][0]["name"] == "Write" and "hello.txt" in plain[2]["content"]
    roles = [m["role"] for m in transcript]  # the CLI's thinking in its place, before the call it led to
    assert roles == ["user", "reasoning", "assistant", "tool", "assistant", "user", "assistant"], roles
    assert [m["id"] for m in transcript if m["role"] == "user"] == ["user-1", "user-2"]
    assert client_transcript(seen["threads"]["t1"]["messages"]) == transcript  # the reloaded client's


def test_serving_claude_code_with_several_workers_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from notebook_tools.server import _serve, serve

    spec = tmp_path / "agents.py"
    spec.write_text(
        f"import notebook_tools as nt\n\ndef claude():\n    return nt.ClaudeCode(cwd={str(tmp_path)!r})\n"
        f"\ndef per_thread(thread_id):\n    return nt.ClaudeCode(cwd={str(tmp_path)!r}, session=thread_id)\n"
    )
    started: list[Any] = []
    monkeypatch.setattr(_serve, "run_workers", lambda *a: started.append(a))
    monkeypatch.setenv("NOTEBOOK_TOOLS_SERVER_TOKEN", TOKEN)
    for name in ("claude", "per_thread"):
        with pytest.raises(nt.ConfigurationError, match="--workers 1"):
            serve(f"{spec}:{name}", workers=2, store=f"sqlite:{tmp_path / 's.sqlite'}")
    assert started == []


@contextlib.contextmanager
def served_by(factory: Callable[[], Any], **app: Any) -> Iterator[str]:
    """An app serving what `factory` makes, live; its base URL."""
    with live_server(create_app(factory, token=TOKEN, warm=False, **app), lifespan="on") as base:
        yield base


async def until_async_http(check: Callable[[], Awaitable[bool]]) -> None:
    """Ask `check` (a request) until it says yes, a tenth of a second apart, within the readiness ceiling."""

    async def loop() -> None:
        for _ in itertools.count():
            if await check():
                return
            await asyncio.sleep(0.1)

    await bounded(loop(), "the thread to settle")


def test_the_reference_contract_runs_a_turn_whose_card_is_answered_by_ack(tmp_path: Path) -> None:
    target = tmp_path / "hello.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "hello\n"}, id="toolu_w7")

    async def main(base: str) -> tuple[list[tuple[str, str]], dict[str, Any], httpx.Response, httpx.Response]:
        async with client(base) as c:

            async def allow(data: str) -> None:
                [card] = element(data)
                assert not target.exists()
                assert (await ack(c, card["tool_use_id"], {"approved": True})).status_code == 200

            messages = await read_sse(
                c, "/agent/run", {"message": "Write hello.txt"}, {"awaiting_frontend_acks": allow}
            )
            uuid = elements(messages, "meta_init")[0]["agent_uuid"]
            session = (await c.get(f"/agent/sessions/{uuid}")).json()
            results = await c.post("/agent/tool_results", json={"agent_uuid": uuid, "tool_results": []})
            unknown = await c.post("/agent/run", json={"message": "hi", "agent_uuid": "nobody"})
            return messages, session, results, unknown

    with standin(calls(write), DONE) as server, served(server, tmp_path) as base:
        messages, session, results, unknown = asyncio.run(main(base))
    assert target.read_text() == "hello\n"
    kinds = [event for event, _ in messages]
    assert kinds[0] == "meta_init" and kinds[-1] == "meta_final"
    order = [kinds.index("tool_call"), kinds.index("awaiting_frontend_acks"), kinds.index("tool_result")]
    assert order == sorted(order), kinds
    [[card]] = elements(messages, "awaiting_frontend_acks")
    assert card["tool_use_id"] == f"{write['id']}.{session['agent_uuid']}" and card["name"] == "Write"
    assert card["kind"] == "approval" and "+hello" in card["preview"]["text"].splitlines()
    assert card["output_schema"]["required"] == ["approved"]
    assert "<text>Done.</text>" in [data for event, data in messages if event == "text"]
    [final] = elements(messages, "meta_final")
    assert final["stop_reason"] == "end_turn"
    assert session["status"] == "idle" and session["asks"] == [] and session["session_id"]
    assert results.status_code == 409 and "POST /api/tools/ack" in results.json()["error"]
    assert unknown.status_code == 404


def test_what_a_claude_code_thread_refuses_before_anything_runs(tmp_path: Path) -> None:
    app = create_app(lambda: nt.ClaudeCode(cwd=tmp_path), token=TOKEN, warm=False)

    async def main() -> dict[str, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=AUTH) as c:
            tool = {"name": "pick", "description": "Pick one.", "parameters": {"type": "object"}}
            resume = [{"interruptId": "confirmation:x", "status": "resolved", "payload": True}]
            held = [  # (what a client shows of a thread a restarted server no longer has)
                {"id": "u1", "role": "user", "content": "hi"},
                {"id": "msg_1", "role": "assistant", "content": "Hello."},
                {"id": "u2", "role": "user", "content": "and?"},
            ]
            return {
                "tools": await c.post("/agui", json={**said("t1", "u1", "hi"), "tools": [tool]}),
                "resume": await c.post("/agui", json={**said("t1", "u1", "hi"), "resume": resume}),
                "unknown thread": await c.post(
                    "/agui", json={"threadId": "t9", "runId": "r", "messages": []}
                ),
                "a conversation not here": await c.post(
                    "/agui", json={**said("t8", "u2", "and?"), "messages": held}
                ),
                "nothing to stop": await c.post("/agui/stop", json={"threadId": "t1"}),
                "tool results": await c.post(
                    "/agent/tool_results", json={"agent_uuid": "t1", "tool_results": []}
                ),
            }

    answers = asyncio.run(main())
    assert {what: r.status_code for what, r in answers.items()} == {
        "tools": 422,
        "resume": 422,
        "unknown thread": 404,
        "a conversation not here": 404,
        "nothing to stop": 409,
        "tool results": 409,
    }
    assert "/api/tools/ack" in answers["resume"].json()["error"]
    assert "start a new thread" in answers["a conversation not here"].json()["error"]


def test_the_official_client_aborting_at_a_card_denies_it_and_its_next_message_carries_on(
    tmp_path: Path,
) -> None:
    target = tmp_path / "never.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"}, id="toolu_w8")
    steps: list[dict[str, Any]] = [{"say": "Write never.txt", "abort_on": "CUSTOM"}, {"say": "Go on"}]

    with standin(calls(write), DONE) as server, served(server, tmp_path) as base:
        seen = converse(base + "/agui", TOKEN, "t1", steps, asks={}, run_timeout=120, timeout=300)
        told, is_error = server.said_to_model(write["id"])
    aborted, after = seen["runs"]
    assert aborted["aborted"] and [a["metadata"]["name"] for a in aborted["asks"]] == ["Write"]
    assert not target.exists()
    assert is_error and "rejected" in told  # the card was denied when the client left, not left open
    assert after["error"] is None and after["outcome"] == "success", after
    assert after["result"] == {"status": "idle", "stopReason": "end_turn"}
    plain = [m for m in client_transcript(seen["messages"]) if m["role"] != "reasoning"]
    # what the client lacked (the call's result) comes before its new message, not after it
    assert [m["role"] for m in plain] == ["user", "assistant", "tool", "user", "assistant"], plain
    assert [(m["role"], m["content"]) for m in plain][-2:] == [("user", "Go on"), ("assistant", "Done.")]
    assert [m["toolCallId"] for m in plain if m["role"] == "tool"] == [write["id"]]  # its result, once


def test_a_client_that_aborts_at_a_card_and_asks_again_before_its_stream_noticed_is_heard(
    tmp_path: Path,
) -> None:
    """The official client's abort and next message can outrun the aborted stream noticing the closed connection.

    The new message must find the turn stopped for it (the card denied, as when the stream notices
    first), not a busy thread: before, it was refused with 409 and the denied call's result never
    reached the model (loaded run 30 of the official-client test above).
    """
    target = tmp_path / "never.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"}, id="toolu_w11")

    async def main(server: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        app = create_app(
            lambda: nt.ClaudeCode(cwd=tmp_path, options=server.options()), token=TOKEN, warm=False
        )
        try:
            first = LeavingClient(app, "/agui", said("t1", "u1", "Write never.txt"))
            first.start()
            seen = [event async for event in until_asked(first.events())]
            first.leave()  # (its stream is never told: only a request that asks finds out)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://testserver", headers=AUTH
            ) as c:
                after = await agui(c, said("t1", "u2", "Go on", run="r2"))
            await first.ended()
            return seen, after
        finally:
            await app.state.server.aclose()

    with standin(calls(write), DONE) as server:
        seen, after = asyncio.run(main(server))
        told, is_error = server.said_to_model(write["id"])
    assert [a["metadata"]["name"] for a in custom(seen, ASK)] == ["Write"]
    assert not target.exists()
    assert is_error and "rejected" in told  # the card was denied as its client left
    assert finished(after)["outcome"] == {"type": "success"}


async def until_asked(events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """`events` up to and with the first card asked."""
    async for event in events:
        yield event
        if event["type"] == "CUSTOM" and event["name"] == ASK:
            return


FACTORY = """
import json
import os

from claude_agent_sdk import ClaudeAgentOptions

import notebook_tools as nt


def claude() -> nt.ClaudeCode:
    options = ClaudeAgentOptions(model=os.environ["NT_TEST_MODEL"], env=json.loads(os.environ["NT_TEST_CLI_ENV"]))
    return nt.ClaudeCode(cwd=os.environ["NT_TEST_PROJECT"], options=options)
"""


def _clis(cwd: Path) -> list[int]:
    """The Claude Code CLIs running in `cwd` (read from /proc: the bundled binary and its folder)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if "_bundled/claude" in command and os.readlink(proc / "cwd") == str(cwd):
                found.append(int(proc.name))
        except (OSError, ValueError):
            continue
    return found


def test_the_serve_command_serves_claude_code_and_its_shutdown_ends_the_cli(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = project / "hello.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "hello\n"}, id="toolu_w9")
    (tmp_path / "agents.py").write_text(FACTORY)

    async def main(base: str) -> tuple[list[dict[str, Any]], list[int]]:
        async with client(base) as c:

            async def allow(value: dict[str, Any]) -> None:
                assert (await ack(c, value["id"], {"approved": True})).status_code == 200

            return await agui(c, said("t1", "u1", "Write hello.txt"), allow), _clis(project)

    with standin(calls(write), DONE) as server:
        env = {
            "NT_TEST_MODEL": MODEL,
            "NT_TEST_CLI_ENV": json.dumps(offline_env(server.base_url, server.home)),
            "NT_TEST_PROJECT": str(project),
        }
        with serve_process(f"{tmp_path / 'agents.py'}:claude", "memory", env=env) as (base, _):
            events, running = asyncio.run(main(base))
        wait_until(lambda: not _clis(project), "the CLI to end with the server")
    assert target.read_text() == "hello\n"
    assert finished(events)["outcome"] == {"type": "success"}
    assert len(running) == 1  # one CLI for the thread while the server ran


def test_a_factory_that_returns_one_agent_for_every_thread_is_refused(tmp_path: Path) -> None:
    from notebook_tools.server._acks import AckRegistry
    from notebook_tools.server._external import ExternalAgents

    one = nt.ClaudeCode(cwd=tmp_path)

    async def main() -> None:
        agents = ExternalAgents(lambda: one, AckRegistry(), None)
        agents.open("t1")
        with pytest.raises(nt.ConfigurationError, match="new agent per thread"):
            agents.open("t2")  # (two conversations cannot share one CLI)
        assert list(agents.threads) == ["t1"]
        await agents.aclose()

    asyncio.run(main())


def test_the_official_client_stopping_at_a_card_ends_the_run_cancelled_and_writes_nothing(
    tmp_path: Path,
) -> None:
    target = tmp_path / "never.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"}, id="toolu_w10")

    with standin(calls(write), DONE) as server, served(server, tmp_path) as base:
        seen = converse(
            base + "/agui",
            TOKEN,
            "t1",
            [{"say": "Write never.txt"}],
            asks={"Write": {"stop": True}},
            run_timeout=120,
        )
    [run] = seen["runs"]
    assert not target.exists()
    assert run["error"] is None and run["warnings"] == [], run
    assert run["outcome"] == "cancelled"  # (the client passes on no `result` with this outcome)
    [value] = run["asks"]
    assert [a["status"] for a in run["acked"]] == [200]  # POST /agui/stop answered
    assert run["askClosed"] == [{"id": value["id"], "status": "cancelled"}]


def test_a_restarted_server_takes_a_thread_up_from_the_store_when_the_factory_takes_its_id(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    db = tmp_path / "sessions.sqlite"
    write = t.tool_use("Write", {"file_path": str(project / "a.txt"), "content": "a\n"}, id="toolu_r1")

    def factory(server: Any) -> Callable[..., nt.ClaudeCode]:
        def claude(thread_id: str) -> nt.ClaudeCode:  # the thread's conversation kept under its id
            return nt.ClaudeCode(
                cwd=project, options=server.options(), store=nt.SQLiteStore(db), session=thread_id
            )

        return claude

    async def first(base: str) -> list[dict[str, Any]]:
        async with client(base) as c:

            async def allow(value: dict[str, Any]) -> None:
                assert (await ack(c, value["id"], {"approved": True})).status_code == 200

            return await agui(c, said("t1", "u1", "Remember PELICAN, then write a.txt"), allow)

    async def second(
        base: str, held: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with client(base) as c:
            asked = {
                "threadId": "t1",
                "runId": "r2",
                "messages": [*held, {"id": "u2", "role": "user", "content": "Which word?"}],
            }
            events = await agui(c, asked)
            unknown = await c.post("/agui", json={"threadId": "t-never", "runId": "r", "messages": []})
            assert unknown.status_code == 404  # (a thread the store does not have either)
            return events, [e for e in events if e["type"] == "MESSAGES_SNAPSHOT"]

    with standin(calls(write), DONE, t.reply("PELICAN.")) as server:
        with served_by(factory(server)) as base:
            before = asyncio.run(first(base))
        held = [e for e in before if e["type"] == "MESSAGES_SNAPSHOT"][-1]["messages"]  # what the page shows
        with served_by(factory(server)) as base:  # the server restarted: a new app on the same store
            after, snapshots = asyncio.run(second(base, held))
        last = server.script.requests[-1]
    assert (project / "a.txt").read_text() == "a\n"
    assert "PELICAN" in json.dumps(last["messages"][0])  # the CLI resumed its conversation
    assert finished(after)["outcome"] == {"type": "success"}
    transcript = client_transcript(snapshots[-1]["messages"])
    assert [m["id"] for m in transcript if m["role"] == "user"] == ["u1", "u2"]  # the page's ids again
    assert [m["content"] for m in transcript if m["role"] == "assistant" and m["content"]] == [
        "Done.",
        "PELICAN.",
    ]
    assert [m["id"] for m in transcript][: len(held)] == [m["id"] for m in held]  # nothing before moved
