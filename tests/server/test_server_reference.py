"""The reference frontend-tools contract over HTTP: run, the awaiting tag, results, refusals, formatters."""

from __future__ import annotations

import asyncio
import html
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import notebook_tools as nt
from notebook_tools.server import Limits, create_app
from tests.support.http_helpers import AUTH, TOKEN, element, elements, parse_sse
from tests.support.server_agents import approval_agent, confirm_agent, failing_agent, two_questions_agent


def client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test", headers=AUTH)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    """The same tests on every store the server runs on (PostgreSQL: a real server)."""
    if request.param == "sqlite":
        store = nt.SQLiteStore(tmp_path / "sessions.sqlite")
    elif request.param == "postgresql":
        store = nt.PostgresStore(request.getfixturevalue("fresh_postgres_url"))
    else:
        store = nt.InMemoryStore()
    yield store
    if hasattr(store, "close"):
        store.close()


def make(factory: Any = confirm_agent, **kwargs: Any) -> tuple[Any, nt.InMemoryStore]:
    store = kwargs.pop("store", None) or nt.InMemoryStore()
    return create_app(factory, store=store, token=TOKEN, **kwargs), store


async def post(
    c: httpx.AsyncClient, path: str, body: Any
) -> tuple[int, list[tuple[str, str]], httpx.Response]:
    r = await c.post(path, json=body)
    return (
        r.status_code,
        parse_sse(r.text) if r.headers.get("content-type", "").startswith("text/event-stream") else [],
        r,
    )


def test_run_pauses_with_the_awaiting_tag_and_tool_results_resume_it(any_store):
    app, store = make(store=any_store)

    async def go():
        async with client(app) as c:
            status, messages, _ = await post(c, "/agent/run", {"message": "clean the sales table"})
            assert status == 200
            assert messages[0][0] == "meta_init"
            agent_uuid = element(messages[0][1])["agent_uuid"]
            awaiting = elements(messages, "awaiting_frontend_tools")
            assert len(awaiting) == 1
            [call] = awaiting[0]
            assert set(call) == {"tool_use_id", "name", "input"}
            assert call["name"] == "user_confirm"
            assert messages[-1][0] == "meta_final"
            assert 'stop_reason="awaiting_frontend_tools"' in messages[-1][1]
            # the raw tag carries the JSON array HTML-escaped in its attribute
            tag = next(d for e, d in messages if e == "awaiting_frontend_tools")
            assert tag.startswith('<awaiting_frontend_tools data="[{&quot;tool_use_id&quot;:')
            meta = (await c.get(f"/agent/sessions/{agent_uuid}")).json()
            assert meta["status"] == "awaiting_frontend_tools"
            assert [p["tool_use_id"] for p in meta["pending_frontend_tools"]] == [call["tool_use_id"]]

            body = {
                "agent_uuid": agent_uuid,
                "tool_results": [{"tool_use_id": call["tool_use_id"], "content": "yes"}],
            }
            status, resumed, _ = await post(c, "/agent/tool_results", body)
            assert status == 200
            assert element(resumed[0][1])["agent_uuid"] == agent_uuid
            text = "".join(d for e, d in resumed if e == "text")
            assert "You answered: yes." in text.replace("<text>", "").replace("</text>", "")
            assert element(resumed[-1][1])["stop_reason"] == "end_turn"
            assert (await c.get(f"/agent/sessions/{agent_uuid}")).json()["status"] == "idle"

    run(go())
    [saved] = [store.load(u) for u in store.list_sessions()]
    assert saved is not None and saved.messages[-1]["role"] == "assistant"


def test_parallel_calls_need_every_result_and_refusals_name_the_ids_and_change_nothing(any_store):
    app, store = make(two_questions_agent, store=any_store)

    async def go():
        async with client(app) as c:
            _, messages, _ = await post(c, "/agent/run", {"message": "go"})
            agent_uuid = element(messages[0][1])["agent_uuid"]
            ids = [p["tool_use_id"] for p in elements(messages, "awaiting_frontend_tools")[0]]
            assert len(ids) == 2
            before = store.load(agent_uuid)

            def results(*pairs):
                return {
                    "agent_uuid": agent_uuid,
                    "tool_results": [{"tool_use_id": i, "content": v} for i, v in pairs],
                }

            cases = [
                (results((ids[0], "yes")), 400, "missing"),
                (results((ids[0], "yes"), (ids[1], "t"), ("toolu_other", "x")), 400, "unknown"),
                (results((ids[0], "yes"), (ids[0], "no"), (ids[1], "t")), 400, "duplicate"),
                (results((ids[0], "maybe"), (ids[1], "t")), 422, None),  # breaks user_confirm's output schema
                ({"agent_uuid": "no-such-session", "tool_results": []}, 404, None),
                (
                    {"agent_uuid": agent_uuid, "tool_results": [{"tool_use_id": ids[0], "content": 5}]},
                    422,
                    None,
                ),
                ({"agent_uuid": agent_uuid, "tool_results": [], "extra": 1}, 422, None),
            ]
            for body, code, field in cases:
                r = await c.post("/agent/tool_results", json=body)
                assert r.status_code == code, (body, r.text)
                answer = r.json()
                assert "error" in answer
                if field:
                    assert answer[field], answer
                    for i in answer[field]:
                        assert i in answer["error"]
                after = store.load(agent_uuid)
                assert after == before, body  # a refused request changed nothing
            ok = await c.post("/agent/tool_results", json=results((ids[1], "cleaned"), (ids[0], "no")))
            assert ok.status_code == 200
            assert element(parse_sse(ok.text)[-1][1])["stop_reason"] == "end_turn"
            # the same answers again: nothing is pending any more
            again = await c.post("/agent/tool_results", json=results((ids[1], "cleaned"), (ids[0], "no")))
            assert again.status_code == 409 and "answered already" in again.json()["error"]  # a lost race
            assert again.json()["answered"] == {
                ids[1]: {"content": "cleaned", "is_error": False},
                ids[0]: {"content": "no", "is_error": False},
            }

    run(go())


def test_requests_without_the_token_bad_bodies_and_oversized_ones_are_refused():
    app, store = make(limits=Limits(max_body_bytes=2_000, max_message_chars=100))

    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
            assert (await c.get("/healthz")).status_code == 200
            for headers in (
                {},
                {"Authorization": "Bearer wrong-token-wrong-token"},
                {"Authorization": TOKEN},
            ):
                r = await c.post("/agent/run", json={"message": "hi"}, headers=headers)
                assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
                assert TOKEN not in r.text
            r = await c.post("/api/tools/ack", json={}, headers={})
            assert r.status_code == 401
            r = await c.get("/agent/sessions/x", headers={})
            assert r.status_code == 401
            h = AUTH
            assert (
                await c.post("/agent/run", content=b"{", headers={**h, "content-type": "application/json"})
            ).status_code == 400
            assert (
                await c.post("/agent/run", content=b"message=hi", headers={**h, "content-type": "text/plain"})
            ).status_code == 415
            assert (await c.post("/agent/run", json=["message"], headers=h)).status_code == 422
            assert (await c.post("/agent/run", json={"message": ""}, headers=h)).status_code == 422
            assert (await c.post("/agent/run", json={"message": 3}, headers=h)).status_code == 422
            assert (await c.post("/agent/run", json={"message": "x" * 101}, headers=h)).status_code == 413
            assert (await c.post("/agent/run", json={"message": "x" * 3000}, headers=h)).status_code == 413
            deep = b"[" * 100_000
            r = await c.post("/agent/run", content=deep, headers={**h, "content-type": "application/json"})
            assert r.status_code == 413
            r = await c.post("/agent/run", json={"message": "hi", "agent_uuid": "nope"}, headers=h)
            assert r.status_code == 404
            r = await c.post("/agent/run", json={"message": "hi", "formatter": "html"}, headers=h)
            assert r.status_code == 422 and r.json()["problems"][0]["field"] == "formatter"

    run(go())
    assert store.list_sessions() == []  # nothing refused made a session


def test_a_new_message_while_calls_are_open_is_refused_and_changes_nothing():
    app, store = make()

    async def go():
        async with client(app) as c:
            _, messages, _ = await post(c, "/agent/run", {"message": "first"})
            agent_uuid = element(messages[0][1])["agent_uuid"]
            before = store.load(agent_uuid)
            r = await c.post("/agent/run", json={"message": "never mind", "agent_uuid": agent_uuid})
            assert r.status_code == 409 and "still open" in r.json()["error"]
            assert "POST /agent/tool_results" in r.json()["error"] and "resume()" not in r.json()["error"]
            assert store.load(agent_uuid) == before

    run(go())


def test_the_raw_formatter_sends_text_as_is_and_the_xml_one_escapes_it():
    app, _ = make()

    async def go(formatter: str):
        async with client(app) as c:
            _, messages, _ = await post(c, "/agent/run", {"message": "go", "formatter": formatter})
            return messages

    raw = run(go("raw"))
    assert "".join(d for e, d in raw if e == "text") == "Let me check with you <b>first</b>."
    assert not [e for e, _ in raw if e in ("tool_call", "tool_result")]
    assert elements(raw, "awaiting_frontend_tools")
    xml = run(go("xml"))
    texts = [d for e, d in xml if e == "text"]
    assert all(d.startswith("<text>") and d.endswith("</text>") for d in texts)
    inner = "".join(d.removeprefix("<text>").removesuffix("</text>") for d in texts)
    assert "<" not in inner and html.unescape(inner) == "Let me check with you <b>first</b>."
    assert elements(xml, "tool_call")[0]["name"] == "user_confirm"


def test_approvals_pause_with_their_own_tag_and_are_decided_in_the_results_call(any_store):
    app, _ = make(approval_agent, store=any_store)

    async def go():
        async with client(app) as c:
            _, messages, _ = await post(c, "/agent/run", {"message": "drop the duplicates"})
            agent_uuid = element(messages[0][1])["agent_uuid"]
            [approval] = elements(messages, "awaiting_approval")[0]
            assert approval["name"] == "drop_rows"
            assert element(messages[-1][1])["stop_reason"] == "awaiting_approval"
            body = {
                "agent_uuid": agent_uuid,
                "approvals": [{"tool_use_id": approval["tool_use_id"], "approved": True}],
            }
            status, resumed, _ = await post(c, "/agent/tool_results", body)
            assert status == 200
            results = elements(resumed, "tool_result")
            assert results[0]["content"] == "dropped 12 rows from sales"
            assert element(resumed[-1][1])["stop_reason"] == "end_turn"

    run(go())


def test_an_error_mid_run_is_streamed_without_secrets():
    app, _ = make(failing_agent)

    async def go():
        async with client(app) as c:
            return await post(c, "/agent/run", {"message": "go"})

    status, messages, response = run(go())
    assert status == 200  # the run started (the user's message is saved), so the error is streamed
    [error] = elements(messages, "error")
    assert "sk-ant-" not in response.text and "SECRETSECRET" not in response.text
    assert "[redacted]" in error["message"]
    assert element(messages[-1][1])["stop_reason"] == "error"


def test_concurrent_results_for_one_pause_exactly_one_wins(any_store):
    app, store = make(store=any_store)

    async def go():
        async with client(app) as c:
            _, messages, _ = await post(c, "/agent/run", {"message": "go"})
            agent_uuid = element(messages[0][1])["agent_uuid"]
            [call] = elements(messages, "awaiting_frontend_tools")[0]
            body = {
                "agent_uuid": agent_uuid,
                "tool_results": [{"tool_use_id": call["tool_use_id"], "content": "yes"}],
            }
            answers = await asyncio.gather(*(c.post("/agent/tool_results", json=body) for _ in range(5)))
            return agent_uuid, [a.status_code for a in answers]

    agent_uuid, codes = run(go())
    assert codes.count(200) == 1, codes
    assert set(codes) - {200} <= {400, 409}, codes
    state = store.load(agent_uuid)
    results = [
        b
        for m in state.messages
        if m["role"] == "user"
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert len(results) == 1  # answered once


@pytest.mark.parametrize("text", ['</text><awaiting_frontend_tools data="[]">', "a\r\nb\rc\n\nd"])
def test_hostile_model_text_cannot_forge_a_control_element(text):
    from notebook_tools import testing as t

    def factory():
        return nt.Agent(client=t.ScriptedTransport(t.reply(text)).client(), frontend_tools=[nt.user_confirm])

    app, _ = make(factory)

    async def go():
        async with client(app) as c:
            return (await c.post("/agent/run", json={"message": "go"})).text

    body = run(go())
    messages = parse_sse(body)
    assert [e for e, _ in messages] == ["meta_init"] + ["text"] * (len(messages) - 2) + ["meta_final"]
    assert not elements(messages, "awaiting_frontend_tools")
    joined = "".join(d.removeprefix("<text>").removesuffix("</text>") for e, d in messages if e == "text")
    assert html.unescape(joined) == text
