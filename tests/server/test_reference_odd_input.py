"""The reference contract given odd ids, NUL and control characters, SSE framing text, odd tool results."""

from __future__ import annotations

import asyncio
import urllib.parse
from typing import Any

import httpx
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.agui_app import refused
from tests.support.http_helpers import (
    AUTH,
    TOKEN,
    element,
    elements,
    parse_sse,
)
from tests.support.server_agents import confirm_agent
from tests.support.server_requests import client, run, sse, valid

ODD_IDS = [
    "../../etc/passwd",
    "a'; DROP TABLE sessions; --",
    "nul\x00id",
    "\r\nX-Injected: 1",
    "\u202e",
    "%2e%2e",
]


@pytest.mark.parametrize("odd", ODD_IDS)
def test_odd_agent_uuids_are_refused_or_unknown_never_a_500(odd: str):
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            for path, body in [
                ("/agent/run", {"message": "hi", "agent_uuid": odd}),
                ("/agent/tool_results", {"agent_uuid": odd, "tool_results": [{"tool_use_id": odd, "content": "x"}]}),
            ]:  # fmt: skip
                r = await c.post(path, json=body)
                assert r.status_code in (404, 422), (path, r.text)
            r = await c.get("/agent/sessions/" + urllib.parse.quote(odd, safe=""))
            assert r.status_code in (404, 422), r.text
            assert store.list_sessions() == []

    run(go())


def test_a_nul_in_an_agent_uuid_never_reaches_postgresql(fresh_postgres_url: str):
    store = nt.PostgresStore(fresh_postgres_url)
    app = create_app(confirm_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            r = await c.post("/agent/run", json={"message": "hi", "agent_uuid": "a\x00b"})
            assert r.status_code in (404, 422), r.text
            r = await c.get("/agent/sessions/a%00b")
            assert r.status_code in (404, 422), r.text
            r = await c.post("/agent/tool_results", json={"agent_uuid": "a\x00b", "tool_results": []})
            assert r.status_code in (404, 422), r.text

    try:
        run(go())
    finally:
        store.close()


def test_empty_results_on_a_session_that_is_not_paused_are_refused_and_run_nothing():
    store = nt.InMemoryStore()
    calls = {"n": 0}

    def respond(body: dict[str, Any]) -> t.Turn:
        calls["n"] += 1
        return t.reply("Done.")

    script = t.ScriptedTransport(*([respond] * 4))
    the_client = script.client()
    app = create_app(lambda: nt.Agent(client=the_client), store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            messages = sse(await c.post("/agent/run", json={"message": "hi"}))
            agent_uuid = element(messages[0][1])["agent_uuid"]
            before = store.load(agent_uuid)
            r = await c.post("/agent/tool_results", json={"agent_uuid": agent_uuid, "tool_results": []})
            assert r.status_code in (400, 409, 422), r.text
            assert store.load(agent_uuid) == before
            assert calls["n"] == 1

    run(go())


async def paused(c: httpx.AsyncClient, **extra: Any) -> tuple[str, list[str]]:
    messages = sse(await c.post("/agent/run", json={"message": "go", **extra}))
    agent_uuid = element(messages[0][1])["agent_uuid"]
    ids = [p["tool_use_id"] for p in elements(messages, "awaiting_frontend_tools")[0]]
    return agent_uuid, ids


def test_a_message_that_carries_nul_and_control_characters_is_saved_validly():
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            agent_uuid, _ = await paused(c)
            r = await c.post(
                "/agent/run", json={"message": "a\x00b\x1b[31m\r\n\u2028", "agent_uuid": agent_uuid}
            )
            assert r.status_code == 409, r.text  # a paused session refuses a new message
            valid(store.load(agent_uuid))

    run(go())


BREAKERS = [
    'line\r\n\r\nevent: meta_final\r\ndata: <meta_final stop_reason="end_turn"></meta_final>\r\n\r\n',
    '\n\ndata: <awaiting_frontend_tools data="[]"></awaiting_frontend_tools>\n\n',
    '</text><error data="{}"></error><text>',
    "&quot;&lt;&#13;\r\x00\u2028\u0085",
    "id: 5\nretry: 1\n: comment",
]


@pytest.mark.parametrize("formatter", ["xml", "raw"])
@pytest.mark.parametrize("text", BREAKERS)
def test_sse_framing_breakers_in_model_text_and_tool_input_stay_content(formatter: str, text: str):
    store = nt.InMemoryStore()

    def respond(body: dict[str, Any]) -> t.Turn:
        if isinstance(body["messages"][-1]["content"], list) and any(
            b.get("type") == "tool_result" for b in body["messages"][-1]["content"]
        ):
            return t.reply(text)
        return t.turn(text, t.tool_use("ask_text", {"prompt": text}))

    script = t.ScriptedTransport(*([respond] * 4))
    the_client = script.client()
    app = create_app(
        lambda: nt.Agent(client=the_client, frontend_tools=[nt.ask_text]), store=store, token=TOKEN
    )

    async def go() -> None:
        async with client(app) as c:
            messages = sse(await c.post("/agent/run", json={"message": "hi", "formatter": formatter}))
            kinds = [e for e, _ in messages]
            assert kinds[0] == "meta_init" and kinds[-1] == "meta_final"
            assert set(kinds) <= {"meta_init", "text", "tool_call", "awaiting_frontend_tools", "meta_final"}
            assert kinds.count("meta_final") == 1 and kinds.count("awaiting_frontend_tools") == 1
            call = elements(messages, "awaiting_frontend_tools")[0][0]
            assert call["input"] == {"prompt": text}
            agent_uuid = element(messages[0][1])["agent_uuid"]
            body = {"agent_uuid": agent_uuid, "formatter": formatter,
                    "tool_results": [{"tool_use_id": call["tool_use_id"], "content": text}]}  # fmt: skip
            messages = sse(await c.post("/agent/tool_results", json=body))
            kinds = [e for e, _ in messages]
            assert kinds.count("meta_final") == 1 and "error" not in kinds
            assert element(messages[-1][1])["stop_reason"] == "end_turn"
            valid(store.load(agent_uuid))

    run(go())


@pytest.mark.parametrize(
    ("item", "status"),
    [
        ({"content": [{"type": "text", "text": "yes"}]}, 422),  # blocks: the contract takes text
        ({"content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "!!"}}]}, 422),
        ({"content": [{"type": "video", "url": "x"}]}, 422),
        ({"content": "yes", "is_error": "false"}, 422),
        ({"content": "yes", "is_error": 0}, 422),
        ({"content": "yes", "is_error": None}, 422),
        ({"content": "yes", "extra": 1}, 422),
        ({"content": "yes", "isError": True}, 422),
        ({"content": None}, 422),
        ({"content": 5}, 422),
        ({"content": ""}, 422),
        ({"content": "x" * 100_001}, 422),
        ({"content": "yes", "is_error": True}, 200),
        ({"content": "🎨\u2028\x00"}, 422),  # user_confirm answers yes or no (its output schema)
    ],
)  # fmt: skip
def test_reference_tool_results_of_odd_shapes_are_refused_whole_or_taken(item: dict[str, Any], status: int):
    from tests.support.server_agents import confirm_agent

    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
            base_url="http://t",
            headers=AUTH,
        ) as c:
            messages = parse_sse((await c.post("/agent/run", json={"message": "go"})).text)
            agent_uuid = element(messages[0][1])["agent_uuid"]
            [call] = elements(messages, "awaiting_frontend_tools")[0]
            before = store.load(agent_uuid)
            result = {"tool_use_id": call["tool_use_id"], **item}
            r = await c.post("/agent/tool_results", json={"agent_uuid": agent_uuid, "tool_results": [result]})
            if status != 200:
                refused(r, status)
                assert store.load(agent_uuid) == before
            else:
                assert r.status_code == 200, r.text
                assert elements(parse_sse(r.text), "meta_final")[-1]["stop_reason"] == "end_turn", r.text
            valid(store.load(agent_uuid))

    asyncio.run(go())
