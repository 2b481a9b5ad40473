"""One run per session, also on one worker; client ids the server can keep; a client's copies are not answers."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.agui_app import events
from tests.support.http_helpers import TOKEN
from tests.support.server_requests import client

PICK = {"name": "pick", "description": "Pick.", "parameters": {"type": "object", "properties": {}}}


def _body(run: str, *messages: dict[str, Any], thread: str = "th") -> dict[str, Any]:
    return {"threadId": thread, "runId": run, "messages": list(messages), "tools": [PICK]}


def _user(text: str, the_id: str) -> dict[str, Any]:
    return {"id": the_id, "role": "user", "content": text}


def test_a_second_message_while_a_run_streams_is_409_and_the_first_run_ends_whole():
    store = nt.InMemoryStore()
    script = t.ScriptedTransport(t.reply("A long reply. " * 40), t.reply("Second."), event_delay=0.01)
    model = script.client()
    app = create_app(lambda: nt.Agent(client=model, model="claude-test"), store=store, token=TOKEN)

    async def go() -> tuple[httpx.Response, httpx.Response]:
        async with client(app) as c:
            first = asyncio.get_running_loop().create_task(
                c.post("/agui", json=_body("r1", _user("one", "u1")))
            )
            while not store.list_sessions():  # noqa: ASYNC110 (the store has no event to wait on)
                await asyncio.sleep(0.01)
            second = await c.post("/agui", json=_body("r2", _user("one", "u1"), _user("two", "u2")))
            return await first, second

    first, second = asyncio.run(go())
    assert second.status_code == 409 and "POST /agui/stop" in second.json()["error"]
    found = events(first)
    assert found[-1]["outcome"] == {"type": "success"}
    assert "".join(e["delta"] for e in found if e["type"] == "TEXT_MESSAGE_CONTENT") == "A long reply. " * 40
    assert [m["role"] for m in store.load("th").messages] == ["user", "assistant"]


def test_client_ids_that_the_server_could_not_keep_are_refused():
    app = create_app(
        lambda: nt.Agent(client=t.ScriptedTransport().client(), model="claude-test"), token=TOKEN
    )

    async def go() -> list[int]:
        async with client(app) as c:
            said = []
            for the_id in ["msg_1", "result_x", "activity_y", "u_reasoning_0", "x" * 201, "bad\x07id"]:
                r = await c.post("/agui", json=_body("r", _user("hi", the_id)))
                said.append(r.status_code)
            return said

    assert asyncio.run(go()) == [422] * 6


def test_the_clients_copy_of_a_held_backend_result_is_not_an_answer():
    @nt.tool
    def count_rows() -> str:
        """Count the rows."""
        return "12 rows"

    store = nt.InMemoryStore()
    script = t.ScriptedTransport(
        t.turn(t.tool_use("count_rows", {}, id="toolu_b"), t.tool_use("pick", {}, id="toolu_f")),
        t.reply("Ok."),
    )
    model = script.client()
    app = create_app(
        lambda: nt.Agent(client=model, model="claude-test", tools=[count_rows]), store=store, token=TOKEN
    )

    async def go() -> tuple[httpx.Response, httpx.Response]:
        async with client(app) as c:
            first = await c.post("/agui", json=_body("r1", _user("go", "u1")))
            held = {"id": "result_toolu_b", "role": "tool", "toolCallId": "toolu_b", "content": "12 rows"}
            again = await c.post("/agui", json=_body("r2", _user("go", "u1"), held))  # what the client holds
            return first, again

    first, again = asyncio.run(go())
    assert events(first)[-1]["outcome"] == {"type": "success", "pendingToolCallIds": ["toolu_f"]}
    reported = events(again)
    assert reported[-1]["outcome"] == {"type": "success", "pendingToolCallIds": ["toolu_f"]}  # as it stands
    assert store.load("th").pending_frontend_tools[0].tool_use_id == "toolu_f"
