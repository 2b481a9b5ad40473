"""Concurrent requests on one session or thread: runs, resumes and results racing apply once."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.agui_app import TOOL, App, _paused, body, events, refused, tool, waiting
from tests.support.http_helpers import (
    TOKEN,
    element,
    parse_sse,
)
from tests.support.server_requests import _agui_body, _agui_events, client, run, sse, valid


def test_two_runs_on_one_session_at_once_never_corrupt_it():
    store = nt.InMemoryStore()
    script = t.ScriptedTransport(*([t.reply("Fine.")] * 8), text_chunk=3, event_delay=0.005)
    the_client = script.client()
    app = create_app(lambda: nt.Agent(client=the_client), store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            first = sse(await c.post("/agent/run", json={"message": "one"}))
            agent_uuid = element(first[0][1])["agent_uuid"]
            body = {"message": "two", "agent_uuid": agent_uuid}
            answers = await asyncio.gather(*(c.post("/agent/run", json=body) for _ in range(3)))
            codes = sorted(r.status_code for r in answers)
            assert codes[0] == 200 and set(codes) <= {200, 409}, codes
            for r in answers:
                assert r.status_code == 200 or "nothing was changed" in r.json()["error"]
                if r.status_code == 200:
                    assert element(parse_sse(r.text)[-1][1])["stop_reason"] in ("end_turn", "error")
            valid(store.load(agent_uuid))

    run(go())


def test_agui_and_reference_answers_to_one_pause_at_once_apply_once():
    store = nt.InMemoryStore()

    def respond(body: dict[str, Any]) -> t.Turn:
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
            return t.reply("Noted.")
        return t.turn("Asking.", t.tool_use("user_confirm", {"message": "ok?"}))

    script = t.ScriptedTransport(*([respond] * 8))
    the_client = script.client()
    app = create_app(
        lambda: nt.Agent(client=the_client, frontend_tools=[nt.user_confirm]), store=store, token=TOKEN
    )

    async def go() -> None:
        async with client(app) as c:
            found = _agui_events(await c.post("/agui", json=_agui_body()))
            [interrupt] = waiting(found)
            call_id = interrupt["toolCallId"]
            resume = {
                **_agui_body(),
                "runId": "r2",
                "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": "yes"}],
            }
            results = {"agent_uuid": "th", "tool_results": [{"tool_use_id": call_id, "content": "no"}]}
            a, b = await asyncio.gather(
                c.post("/agui", json=resume), c.post("/agent/tool_results", json=results)
            )
            assert 200 in (a.status_code, b.status_code), (a.text, b.text)
            assert {a.status_code, b.status_code} <= {200, 409}, (a.text, b.text)
            state = store.load("th")
            valid(state)
            answers = [
                blk for m in state.messages if m["role"] == "user" and isinstance(m["content"], list)
                for blk in m["content"] if blk.get("type") == "tool_result"
            ]  # fmt: skip
            assert len(answers) == 1

    run(go())


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_two_first_messages_to_one_new_agui_thread_at_once_lose_nothing(kind: str, tmp_path: Any):
    store = nt.InMemoryStore() if kind == "memory" else nt.SQLiteStore(tmp_path / "s.sqlite")
    script = t.ScriptedTransport(*([t.reply("Hello.")] * 6), text_chunk=2, event_delay=0.005)
    the_client = script.client()
    app = create_app(lambda: nt.Agent(client=the_client), store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            bodies = [
                {
                    **_agui_body("fresh"),
                    "runId": f"r{k}",
                    "messages": [{"id": "u", "role": "user", "content": f"m{k}"}],
                }
                for k in range(3)
            ]
            answers = await asyncio.gather(*(c.post("/agui", json=b) for b in bodies))
            ok = [
                r for r in answers if r.status_code == 200 and _agui_events(r)[-1]["type"] == "RUN_FINISHED"
            ]
            state = store.load("fresh")
            valid(state)
            said = [m["content"][0]["text"] for m in state.messages if m["role"] == "user"]
            assert len(said) == len(ok), (
                said,
                [r.status_code for r in answers],
                [r.text[-300:] for r in answers],
            )
            for r in answers:
                assert r.status_code in (200, 409), r.text

    run(go())


def test_two_agui_resumes_of_one_interrupt_racing_on_sqlite_apply_once(tmp_path: Any):
    store = nt.SQLiteStore(str(tmp_path / "race.sqlite"))
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"hint": "a"})), t.reply("Thanks."), store=store)
    app.script.event_delay = 0.002  # the model's reply takes a while, so the two requests overlap
    interrupt, _ = _paused(app, [tool()])

    async def race() -> list[httpx.Response]:
        async with app.client() as c:
            return list(
                await asyncio.gather(
                    *(
                        c.post(
                            "/agui",
                            json=body(
                                [tool()],
                                run=f"race-{i}",
                                resume=[
                                    {"interruptId": interrupt, "status": "resolved", "payload": f"answer {i}"}
                                ],
                            ),
                        )
                        for i in range(2)
                    )
                )
            )

    responses = asyncio.run(race())
    statuses = sorted(r.status_code for r in responses)
    assert statuses in ([200, 409], [200, 200]), [r.text[:300] for r in responses]
    for r in responses:
        if r.status_code == 409:
            refused(r, 409)
        else:
            events(r)
    state = store.load("th")
    valid(state)
    assert state is not None
    results = [
        b
        for m in state.messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert len(results) == 1 and results[0]["content"] in ("answer 0", "answer 1")
    assert len(app.script.requests) == 2 and app.script.remaining == 0
    assert statuses == [200, 409], "the two resumes did not overlap"
