"""The server under uvicorn on 127.0.0.1: held runs answered through the ack endpoint, worker restarts
and several workers on one store (SQLite and a real PostgreSQL server)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from typing import Any

import httpx
import pytest

import notebook_tools as nt
from notebook_tools.server import create_app
from tests.support.http_helpers import (
    AUTH,
    TOKEN,
    element,
    elements,
    live_server,
    parse_sse,
    serve_process,
    text_of,
)
from tests.support.readiness import wait_until
from tests.support.server_agents import open_url_agent

GOOD = {"status": "success", "output": {"url": "https://example.com/docs", "via": "auto"}}


async def held_run(base: str, on_pause: Any) -> list[tuple[str, str]]:
    """Stream a held run; when the acks are awaited, call `on_pause(calls)` in a thread; return the messages."""
    messages: list[tuple[str, str]] = []
    buffer = ""
    body = {"message": "open the docs", "hold": True}
    async with (
        httpx.AsyncClient(base_url=base, headers=AUTH, timeout=30) as c,
        c.stream("POST", "/agent/run", json=body) as r,
    ):
        assert r.status_code == 200
        async for chunk in r.aiter_text():
            buffer += chunk
            while "\r\n\r\n" in buffer or "\n\n" in buffer:
                sep = "\r\n\r\n" if "\r\n\r\n" in buffer else "\n\n"
                block, buffer = buffer.split(sep, 1)
                for event, data in parse_sse(block + sep):
                    messages.append((event, data))
                    if event == "awaiting_frontend_acks":
                        await asyncio.to_thread(on_pause, element(data))
    return messages


def ack(base: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(base + "/api/tools/ack", json=body, headers=AUTH, timeout=10)


def test_a_held_run_waits_for_the_browser_ack_and_the_ack_endpoint_gives_its_four_answers():
    # a 30 s timeout while the four answers are collected (a loaded machine may take seconds)
    app = create_app(functools.partial(open_url_agent, 30.0), token=TOKEN, hold=False)
    seen: dict[str, Any] = {}
    with live_server(app) as base:

        def answer(calls: list[dict[str, Any]]) -> None:
            [call] = calls
            seen["call"] = call
            assert call["name"] == "open_url" and call["expires_at"] is not None
            wrong = ack(base, {"toolCallId": call["tool_use_id"], "status": "success", "output": {"url": 5}})
            seen["wrong"] = (wrong.status_code, wrong.json())
            seen["unknown"] = ack(
                base, {"toolCallId": "toolu_nobody", "status": "success", "output": {}}
            ).status_code
            first = ack(base, {"toolCallId": call["tool_use_id"], **GOOD})
            seen["first"] = (first.status_code, first.json())
            again = ack(base, {"toolCallId": call["tool_use_id"], **GOOD})
            seen["again"] = (again.status_code, again.json())

        messages = asyncio.run(held_run(base, answer))
        assert seen["wrong"][0] == 422 and seen["wrong"][1]["ok"] is False  # the call stayed open...
        assert seen["first"] == (200, {"ok": True})  # ...and the right ack was taken
        assert seen["again"] == (200, {"ok": True, "ignored": True})
        assert seen["unknown"] == 404
        assert not elements(messages, "awaiting_frontend_tools")  # held: the stream did not end at the pause
        assert "Opened https://example.com/docs" in text_of(messages)
        assert element(messages[-1][1])["stop_reason"] == "end_turn"
        # after the run: a late ack of the answered call is still a repeat
        late = ack(base, {"toolCallId": seen["call"]["tool_use_id"], **GOOD})
        assert late.json() == {"ok": True, "ignored": True}

    # a call nobody acknowledges within its 2 s timeout expires: the model hears so, a late ack is 410
    with live_server(create_app(open_url_agent, token=TOKEN, hold=False)) as base:
        expired: dict[str, Any] = {}
        messages = asyncio.run(held_run(base, lambda calls: expired.update(calls[0])))
        results = elements(messages, "tool_result")
        assert (
            results
            and results[0]["is_error"] is True
            and "did not answer within 2 seconds" in str(results[0]["content"])
        )
        late = ack(base, {"toolCallId": expired["tool_use_id"], **GOOD})
        assert late.status_code == 410 and late.json()["ok"] is False
        bad = httpx.post(base + "/api/tools/ack", json={"toolCallId": "x", "status": "done"}, headers=AUTH)
        assert bad.status_code == 422


def test_a_client_that_goes_away_during_a_held_run_stops_it_and_the_session_stays_valid():
    store = nt.InMemoryStore()
    app = create_app(open_url_agent, store=store, token=TOKEN, hold=True)
    with live_server(app) as base:

        async def leave() -> None:
            async with (
                httpx.AsyncClient(base_url=base, headers=AUTH, timeout=30) as c,
                c.stream("POST", "/agent/run", json={"message": "open"}) as r,
            ):
                async for chunk in r.aiter_text():
                    if "awaiting_frontend_acks" in chunk:
                        return  # the browser tab closes while the call waits for its ack

        asyncio.run(leave())

        def idle() -> Any:
            sessions = store.list_sessions()
            state = store.load(sessions[0]) if sessions else None
            return state if state is not None and state.status == "idle" else None

        state = wait_until(idle, "the session to go idle")  # the open call was closed as interrupted
        blocks = state.messages[-1]["content"]
        assert blocks[0]["type"] == "tool_result" and blocks[0]["is_error"] is True
        assert app.state.runner.acks.open_ids == []


def _run_until_paused(base: str) -> tuple[str, str]:
    r = httpx.post(base + "/agent/run", json={"message": "clean"}, headers=AUTH, timeout=30)
    assert r.status_code == 200, r.text
    messages = parse_sse(r.text)
    [call] = elements(messages, "awaiting_frontend_tools")[0]
    return element(messages[0][1])["agent_uuid"], call["tool_use_id"]


def _resume(base: str, agent_uuid: str, tool_use_id: str) -> httpx.Response:
    body = {"agent_uuid": agent_uuid, "tool_results": [{"tool_use_id": tool_use_id, "content": "yes"}]}
    return httpx.post(base + "/agent/tool_results", json=body, headers=AUTH, timeout=30)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'sessions.sqlite'}"
    return request.getfixturevalue("fresh_postgres_url")


def test_a_pause_survives_a_server_restart_and_resumes_on_another_worker(store_url: str):
    with serve_process("server_agents:confirm_agent", store_url) as (first, _):
        agent_uuid, tool_use_id = _run_until_paused(first)
    with serve_process("server_agents:confirm_agent", store_url) as (second, _):
        meta = httpx.get(f"{second}/agent/sessions/{agent_uuid}", headers=AUTH).json()
        assert meta["status"] == "awaiting_frontend_tools"
        r = _resume(second, agent_uuid, tool_use_id)
        assert r.status_code == 200
        messages = parse_sse(r.text)
        assert element(messages[-1][1])["stop_reason"] == "end_turn"
        assert "You answered: yes." in text_of(messages)


def test_two_workers_resuming_one_pause_at_once_exactly_one_wins(store_url: str):
    with serve_process("server_agents:confirm_agent", store_url, workers=2) as (base, _):
        for _ in range(3):
            agent_uuid, tool_use_id = _run_until_paused(base)
            barrier = threading.Barrier(6)

            def race(
                barrier: threading.Barrier = barrier, ids: tuple[str, str] = (agent_uuid, tool_use_id)
            ) -> int:
                barrier.wait()
                return _resume(base, *ids).status_code

            with concurrent.futures.ThreadPoolExecutor(6) as pool:
                codes = list(pool.map(lambda _: race(), range(6)))
            assert codes.count(200) == 1, codes
            assert set(codes) <= {200, 400, 409}, codes
            meta = httpx.get(f"{base}/agent/sessions/{agent_uuid}", headers=AUTH).json()
            assert meta["status"] == "idle"


def test_serve_refuses_several_workers_on_the_in_memory_store():
    from notebook_tools.server import serve

    with pytest.raises(nt.ConfigurationError, match="several workers need a store"):
        serve("server_agents:confirm_agent", workers=2)


def test_the_served_example_answers_three_frontend_tools_over_http(tmp_path):
    # examples/serve_quickstart.py, as the README's curl transcript runs it (no key: its scripted model)
    with serve_process("examples/serve_quickstart.py:build", f"sqlite:{tmp_path / 's.sqlite'}") as (base, _):
        r = httpx.post(
            base + "/agent/run", json={"message": "Please clean my sales data."}, headers=AUTH, timeout=30
        )
        messages = parse_sse(r.text)
        agent_uuid = element(messages[0][1])["agent_uuid"]
        calls = elements(messages, "awaiting_frontend_tools")[0]
        assert [c["name"] for c in calls] == ["user_confirm", "select_option", "ask_text"]
        partial = {
            "agent_uuid": agent_uuid,
            "tool_results": [{"tool_use_id": calls[0]["tool_use_id"], "content": "yes"}],
        }
        refused = httpx.post(base + "/agent/tool_results", json=partial, headers=AUTH)
        assert refused.status_code == 400 and refused.json()["missing"] == [
            c["tool_use_id"] for c in calls[1:]
        ]
        answers = {"user_confirm": "yes", "select_option": "south", "ask_text": "weekly"}
        body = {
            "agent_uuid": agent_uuid,
            "formatter": "raw",
            "tool_results": [{"tool_use_id": c["tool_use_id"], "content": answers[c["name"]]} for c in calls],
        }
        done = parse_sse(httpx.post(base + "/agent/tool_results", json=body, headers=AUTH, timeout=30).text)
        assert (
            text_of(done) == "Thanks! I'll go ahead, starting with south, and I'll call the report `weekly`."
        )
        assert 'stop_reason="end_turn"' in done[-1][1]
