"""Request bodies refused before anything runs: malformed, wrong type, too big, too deep, lone surrogates."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools.server import Limits, create_app
from tests.support.http_helpers import TOKEN, live_server
from tests.support.server_agents import confirm_agent
from tests.support.server_requests import REFUSALS, client, run, valid


@pytest.mark.parametrize(
    ("raw", "kind", "status"),
    [
        (b'{"message": "hi"', "application/json", 400),
        (b"\xff\xfe\x00garbage", "application/json", 400),
        (b"[" * 50_000 + b"]" * 50_000, "application/json", 400),
        (b'{"message": ' + b"1" * 5000 + b"}", "application/json", 400),
        (b'{"message": "hi"}', "text/plain", 415),
        (b'{"message": "hi"}', "", 415),
        (b'{"message": "hi"}', "application/x-www-form-urlencoded", 415),
        (b'"just a string"', "application/json", 422),
        (b"null", "application/json", 422),
        (b'{"message": NaN}', "application/json", 400),
        (b'{"message": "hi", "message": 3}', "application/json", 422),
        (b'{"message": "hi", "extra": 1}', "application/json", 422),
        (b'{"message": ""}', "application/json", 422),
        (b'{"message": "hi", "formatter": "html"}', "application/json", 422),
        (b'{"message": "hi", "hold": "yes"}', "application/json", 422),
        (b"", "application/json", 400),
    ],
)
def test_malformed_bodies_get_a_clear_4xx_and_no_session(raw: bytes, kind: str, status: int):
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            headers = {"content-type": kind} if kind else {}
            r = await c.post("/agent/run", content=raw, headers=headers)
            assert r.status_code == status, r.text
            assert "error" in r.json()
            assert store.list_sessions() == []

    run(go())


def test_a_chunked_body_without_content_length_is_cut_at_the_limit():
    app = create_app(confirm_agent, token=TOKEN, limits=Limits(max_body_bytes=2_000))
    seen = {"bytes": 0}

    async def chunks() -> Any:
        yield b'{"message": "'
        for _ in range(10_000):  # 10 MB if it were all read
            seen["bytes"] += 1000
            yield b"a" * 1000
        yield b'"}'

    async def go() -> None:
        async with client(app) as c:
            r = await c.post("/agent/run", content=chunks(), headers={"content-type": "application/json"})
            assert r.status_code == 413, r.text
            assert "content-length" not in {k.lower() for k in r.request.headers if k.lower() == "x"}

    run(go())
    assert seen["bytes"] < 100_000  # the server stopped reading long before the end


def test_a_lying_content_length_over_the_limit_is_refused_before_reading():
    app = create_app(confirm_agent, token=TOKEN, limits=Limits(max_body_bytes=2_000))
    with live_server(app) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(
                b"POST /agent/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode()
                + b"\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{"
            )  # fmt: skip
            answer = s.recv(4096).decode()
        assert answer.startswith("HTTP/1.1 413"), answer


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(depth=st.integers(min_value=50, max_value=3000), where=st.sampled_from(["ack", "agui", "results"]))
def test_deeply_nested_bodies_never_raise(depth: int, where: str):
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN, hold=True)
    nested = "[" * depth + "]" * depth
    bodies = {
        "ack": ("/api/tools/ack", f'{{"toolCallId": "x", "status": "success", "output": {nested}}}'),
        "agui": ("/agui", f'{{"threadId": "t", "runId": "r", "messages": [], "state": {nested}}}'),
        "results": ("/agent/tool_results", f'{{"agent_uuid": "a", "tool_results": {nested}}}'),
    }
    path, raw = bodies[where]

    async def go() -> None:
        async with client(app) as c:
            r = await c.post(path, content=raw.encode(), headers={"content-type": "application/json"})
            assert r.status_code in REFUSALS | {200}, r.text
            assert r.status_code != 200 or path == "/agui"

    run(go())


@pytest.mark.parametrize("where", ["run", "agui", "results", "ack", "thread"])
def test_lone_surrogates_in_json_strings_are_refused_not_a_500(where: str, tmp_path: Any):
    store = nt.SQLiteStore(tmp_path / "s.sqlite")
    app = create_app(confirm_agent, store=store, token=TOKEN, hold=True)
    lone = "\\ud800 and \\udfff"
    raw = {
        "run": ("/agent/run", '{"message": "hi LONE"}'),
        "agui": ("/agui", '{"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user", "content": "LONE"}]}'),
        "results": ("/agent/tool_results", '{"agent_uuid": "a", "tool_results": [{"tool_use_id": "LONE", "content": "x"}]}'),
        "ack": ("/api/tools/ack", '{"toolCallId": "x", "status": "success", "output": "LONE"}'),
        "thread": ("/agui", '{"threadId": "LONE", "runId": "r", "messages": [{"id": "u", "role": "user", "content": "x"}]}'),
    }  # fmt: skip
    path, body = raw[where]
    body = body.replace("LONE", lone)

    async def go() -> None:
        async with client(app) as c:
            r = await c.post(path, content=body.encode(), headers={"content-type": "application/json"})
            assert r.status_code in (400, 404, 422), r.text
        for u in store.list_sessions():
            valid(store.load(u))

    try:
        run(go())
    finally:
        store.close()
