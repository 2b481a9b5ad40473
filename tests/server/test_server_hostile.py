"""The server as an attacker and a clumsy client use it: fuzzed bodies, random id sets, clients that
leave mid-stream. Nothing raises into the server (no 500), a refusal changes nothing, and every saved
session stays one the Messages API accepts."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import history_errors
from notebook_tools.server import Limits, create_app
from notebook_tools.session import _transitions as tr
from tests.support.http_helpers import AUTH, TOKEN, element, elements, live_server, parse_sse
from tests.support.server_agents import SYSTEM, two_questions_agent

SCALE = int(os.environ.get("NOTEBOOK_TOOLS_PROPERTY_SCALE", "1"))
REFUSALS = {400, 404, 409, 413, 415, 422}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
field_names = st.sampled_from(
    ["message", "agent_uuid", "formatter", "hold", "tool_results", "approvals", "tool_use_id", "content",
     "is_error", "toolCallId", "status", "output", "errorText", "requestedAt", "x"]
)  # fmt: skip
bodies = st.one_of(
    json_values,
    st.dictionaries(field_names, json_values, max_size=6),
    st.dictionaries(field_names, st.lists(st.dictionaries(field_names, json_values, max_size=4), max_size=3)),
)


def valid(state: nt.AgentState) -> None:
    tr.check_invariant(state)
    errors, _ = history_errors(state.messages)
    assert errors == [], errors


@settings(max_examples=60 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(["/agent/run", "/agent/tool_results", "/api/tools/ack"]), body=bodies)
def test_fuzzed_bodies_are_answered_never_raise_and_change_nothing(path: str, body: Any):
    store = nt.InMemoryStore()
    app = create_app(two_questions_agent, store=store, token=TOKEN, limits=Limits(max_body_bytes=4_000))

    async def go() -> None:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=AUTH) as c:
            paused = await c.post("/agent/run", json={"message": "go"})
            agent_uuid = element(parse_sse(paused.text)[0][1])["agent_uuid"]
            before = store.load(agent_uuid)
            if isinstance(body, dict) and "agent_uuid" in body and path == "/agent/tool_results":
                body["agent_uuid"] = agent_uuid  # aim at the real session half the time
            r = await c.post(
                path, content=json.dumps(body).encode(), headers={"content-type": "application/json"}
            )
            assert r.status_code in REFUSALS | {200}, (r.status_code, r.text)
            assert TOKEN not in r.text
            if r.status_code != 200 or path == "/api/tools/ack":
                assert store.load(agent_uuid) == before
            for u in store.list_sessions():
                valid(store.load(u))

    asyncio.run(go())


@settings(max_examples=40 * SCALE, deadline=None)
@given(
    keep=st.lists(st.booleans(), min_size=2, max_size=2),
    extra=st.lists(st.sampled_from(["toolu_x", "toolu_scripted_0001", ""]), max_size=2),
    repeat=st.booleans(),
)
def test_random_result_sets_are_applied_only_when_they_are_exactly_the_pending_set(keep, extra, repeat):
    store = nt.InMemoryStore()
    app = create_app(two_questions_agent, store=store, token=TOKEN)

    async def go() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=AUTH) as c:
            messages = parse_sse((await c.post("/agent/run", json={"message": "go"})).text)
            agent_uuid = element(messages[0][1])["agent_uuid"]
            ids = [p["tool_use_id"] for p in elements(messages, "awaiting_frontend_tools")[0]]
            chosen = [i for i, k in zip(ids, keep, strict=True) if k] + extra + ([ids[0]] if repeat else [])
            answers = {ids[0]: "yes"}
            results = [{"tool_use_id": i, "content": answers.get(i, "text")} for i in chosen]
            before = store.load(agent_uuid)
            r = await c.post("/agent/tool_results", json={"agent_uuid": agent_uuid, "tool_results": results})
            exact = sorted(chosen) == sorted(ids)
            if exact:
                assert r.status_code == 200
                assert element(parse_sse(r.text)[-1][1])["stop_reason"] == "end_turn"
            else:
                assert r.status_code in (400, 422), r.text
                assert store.load(agent_uuid) == before
            valid(store.load(agent_uuid))

    asyncio.run(go())


def _slow_agent() -> nt.Agent:
    def respond(body: dict[str, Any]) -> t.Turn:
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and any(
            b.get("type") == "tool_result" for b in last if isinstance(b, dict)
        ):
            return t.reply("All done, thank you for answering so quickly.")
        return t.turn(
            "Let me look at this for a while before I ask you anything at all.",
            t.tool_use("user_confirm", {"message": "Go on?"}),
        )

    script = t.ScriptedTransport(*([respond] * 6), text_chunk=4, event_delay=0.01)
    return nt.Agent(client=script.client(), system=SYSTEM, frontend_tools=[nt.user_confirm])


@settings(max_examples=12 * SCALE, deadline=None)
@given(leave_after=st.integers(min_value=1, max_value=30))
def test_a_client_leaving_mid_stream_leaves_a_valid_session_that_carries_on(leave_after: int):
    store = nt.InMemoryStore()
    app = create_app(_slow_agent, store=store, token=TOKEN)

    async def leave(base: str) -> str:
        seen: list[tuple[str, str]] = []
        async with (
            httpx.AsyncClient(base_url=base, headers=AUTH, timeout=30) as c,
            c.stream("POST", "/agent/run", json={"message": "go"}) as r,
        ):
            buffer = ""
            async for chunk in r.aiter_text():
                buffer += chunk
                seen = parse_sse(buffer)
                if len(seen) >= leave_after:
                    break
        return element(seen[0][1])["agent_uuid"]

    with live_server(app) as base:
        agent_uuid = asyncio.run(leave(base))
        for _ in range(1500):  # the server notices the closed connection, then stops the run
            state = store.load(agent_uuid)
            if state is not None and state.status != "running":
                break
            asyncio.run(asyncio.sleep(0.02))
        state = store.load(agent_uuid)
        assert state is not None
        valid(state)
        # whatever the moment, the session carries on: answer what is open, or send a new message
        if state.status == "awaiting_frontend_tools":
            body = {
                "agent_uuid": agent_uuid,
                "tool_results": [
                    {"tool_use_id": state.pending_frontend_tools[0].tool_use_id, "content": "yes"}
                ],
            }
            r = httpx.post(base + "/agent/tool_results", json=body, headers=AUTH, timeout=30)
        else:
            r = httpx.post(
                base + "/agent/run",
                json={"message": "again", "agent_uuid": agent_uuid},
                headers=AUTH,
                timeout=30,
            )
        assert r.status_code == 200, r.text
        valid(store.load(agent_uuid))
