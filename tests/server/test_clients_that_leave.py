"""Clients that hang up early in a held or AG-UI run, or mid-body: the session stays valid, no 500."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from typing import Any

import httpx
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from notebook_tools.server._runs import Run
from tests.support.http_helpers import AUTH, TOKEN, element, live_server
from tests.support.server_agents import confirm_agent, slow_count
from tests.support.server_requests import _agui_app, _agui_body, _agui_events, _pick, _wait_for, valid
from tests.support.unnoticed_leave import LeavingClient


def _raw_post(base: str, path: str, body: dict[str, Any], *, read: int = 0) -> bytes:
    """Send one request on a raw socket, read `read` bytes of the answer (0: none), and hang up."""
    host, port = base.removeprefix("http://").split(":")
    raw = json.dumps(body).encode()
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(raw)}\r\n\r\n".encode()
            + raw
        )
        got = b""
        while len(got) < read:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
        s.shutdown(socket.SHUT_RDWR)
    return got


@pytest.mark.parametrize("read", [0, 1, 200])
def test_a_held_run_whose_client_hangs_up_early_is_stopped_and_its_acks_expire(read: int):
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN, hold=True)
    with live_server(app) as base:
        _raw_post(base, "/agent/run", {"message": "go"}, read=read)
        acks = app.state.runner.acks
        assert _wait_for(lambda: store.list_sessions() != [])
        [agent_uuid] = store.list_sessions()
        assert _wait_for(lambda: store.load(agent_uuid).status == "idle" and acks.open_ids == []), (
            store.load(agent_uuid).status,
            acks.open_ids,
        )
        valid(store.load(agent_uuid))
        r = httpx.post(
            base + "/agent/run", json={"message": "again", "agent_uuid": agent_uuid}, headers=AUTH, timeout=10
        )
        assert r.status_code == 200
        valid(store.load(agent_uuid))


@pytest.mark.parametrize("read", [0, 1])
def test_an_agui_run_whose_client_hangs_up_early_leaves_a_valid_thread(read: int):
    app, store = _agui_app(*([t.turn("Picking.", t.tool_use("pick", {"hint": "a"}))] * 2))
    with live_server(app) as base:
        _raw_post(base, "/agui", _agui_body(tools=[_pick()]), read=read)
        assert _wait_for(lambda: store.load("th") is not None and store.load("th").status != "running")
        valid(store.load("th"))


def test_a_client_that_hangs_up_in_the_middle_of_its_body_is_no_server_error(caplog):
    caplog.set_level(logging.ERROR)
    app = create_app(confirm_agent, token=TOKEN)
    with live_server(app) as base:
        host, port = base.removeprefix("http://").split(":")
        for path in ("/agent/run", "/agui", "/api/tools/ack"):
            with socket.create_connection((host, int(port)), timeout=5) as s:
                s.sendall(
                    f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                    'Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"message": "hal'.encode()
                )
                time.sleep(0.05)
            time.sleep(0.1)
        assert httpx.get(base + "/healthz").status_code == 200
    assert "Traceback" not in caplog.text and "Exception in ASGI" not in caplog.text, caplog.text


def test_a_client_that_aborts_a_run_and_asks_again_before_its_stream_noticed_is_heard():
    """The new message stops the run its client left (as the stream would on noticing), not a 409."""
    app, store = _agui_app(
        t.turn("Counting.", t.tool_use("slow_count", {"table": "sales"})),
        t.reply("It was stopped; ask again."),
        tools=[slow_count],
    )

    async def main() -> list[dict[str, Any]]:
        first = LeavingClient(app, "/agui", _agui_body())
        first.start()
        async for event in first.events():
            if event["type"] == "TOOL_CALL_END":
                break
        first.leave()  # (its stream is never told: only a request that asks finds out)
        again = {
            "threadId": "th",
            "runId": "r2",
            "messages": [{"id": "u2", "role": "user", "content": "well?"}],
        }
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=AUTH) as c:
            r = await c.post("/agui", json=again)
        events = _agui_events(r)  # (a refused request: the left run would never end)
        await first.ended()
        return events

    events = asyncio.run(main())
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    state = store.load("th")
    valid(state)
    [_, call, stopped, reply] = state.messages  # the left run's call closed, then the new message
    [result, said] = stopped["content"]
    assert result["tool_use_id"] == call["content"][1]["id"] and result["is_error"]
    assert (
        said == {"type": "text", "text": "well?"}
        and reply["content"][0]["text"] == "It was stopped; ask again."
    )


def test_a_reference_client_that_leaves_a_run_and_asks_again_before_its_stream_noticed_is_heard():
    store = nt.InMemoryStore()
    script = t.ScriptedTransport(
        t.turn("Counting.", t.tool_use("slow_count", {"table": "sales"})), t.reply("It was stopped.")
    )
    the_client = script.client(max_retries=0)
    app = create_app(
        lambda: nt.Agent(client=the_client, model="claude-test", tools=[slow_count]), store=store, token=TOKEN
    )

    async def main() -> None:
        first = LeavingClient(app, "/agent/run", {"message": "count sales"})
        first.start()
        agent_uuid = None
        async for event, data in first.messages():
            if event == "meta_init":
                agent_uuid = element(data)["agent_uuid"]
            if "slow_count" in data:  # (the call is under way)
                break
        first.leave()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=AUTH) as c:
            r = await c.post("/agent/run", json={"message": "well?", "agent_uuid": agent_uuid})
        assert r.status_code == 200, r.text  # (a refused request: the left run would never end)
        await first.ended()

    asyncio.run(main())
    [state] = [store.load(uuid) for uuid in store.list_sessions()]
    valid(state)
    assert state.messages[-1]["content"][0]["text"] == "It was stopped."


def test_closing_a_run_whose_stop_is_under_way_waits_for_it_without_cancelling_it_again():
    """A request that finds a run its stream is stopping already (the client left, noticed) lets the stop finish.

    A second cancel would land in the run's own cleanup (closing its calls, saving, saying
    "stopped") and cut it short.
    """
    gate = asyncio.Event()
    cut_short: list[bool] = []

    async def work() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            try:
                await gate.wait()  # (its cleanup: a save on the store's pool, say)
            except asyncio.CancelledError:
                cut_short.append(True)
            raise

    async def main() -> None:
        run = Run(nt.Agent(client=t.ScriptedTransport().client()))
        run.task = asyncio.get_running_loop().create_task(work())
        await asyncio.sleep(0)  # (its work is under way)
        stopping = asyncio.ensure_future(run.aclose())  # the stream noticed its client left
        await asyncio.sleep(0)
        again = asyncio.ensure_future(run.aclose())  # the next request finds it busy, its client gone
        await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(stopping, again)
        assert run.task.done()

    asyncio.run(main())
    assert cut_short == []
