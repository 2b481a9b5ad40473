"""The server's bearer token: header forms taken and refused, unusable tokens, never echoed or logged."""

from __future__ import annotations

import logging

import httpx
import pytest

import notebook_tools as nt
from notebook_tools.server import create_app
from tests.support.http_helpers import TOKEN
from tests.support.server_agents import confirm_agent
from tests.support.server_requests import FAKE_KEY, client, run


@pytest.mark.parametrize(
    ("header", "ok"),
    [
        ("Bearer " + TOKEN, True),
        ("bearer " + TOKEN, True),
        ("BEARER " + TOKEN, True),
        ("Bearer  " + TOKEN + "  ", True),
        ("Bearer", False),
        ("Bearer ", False),
        ("", False),
        ("Basic " + TOKEN, False),
        (TOKEN, False),
        ("Bearer " + TOKEN[:-1], False),
        ("Bearer " + TOKEN + "x", False),
        ("Bearer " + TOKEN.upper(), False),
        ("Bearer\t" + TOKEN, False),
        ("Bearer " + TOKEN + " " + TOKEN, False),
        ("Bearer é" + TOKEN, False),
    ],
)
def test_token_formats(header: str, ok: bool):
    app = create_app(confirm_agent, token=TOKEN)

    async def go() -> None:
        async with client(app, headers={}) as c:
            headers = {"Authorization": header.encode("latin-1")} if header else {}
            r = await c.get("/agent/sessions/nope", headers=headers)  # type: ignore[arg-type]
            assert r.status_code == (404 if ok else 401), r.text
            assert TOKEN not in r.text
            if not ok:
                assert r.headers["www-authenticate"] == "Bearer"

    run(go())


def test_two_authorization_headers_and_a_wrong_one_first_are_refused():
    app = create_app(confirm_agent, token=TOKEN)

    async def go() -> None:
        async with client(app, headers={}) as c:
            pairs = [
                ("Authorization", "Bearer wrong-wrong-wrong-wrong"),
                ("Authorization", "Bearer " + TOKEN),
            ]
            r = await c.get("/agent/sessions/nope", headers=httpx.Headers(pairs))
            assert r.status_code == 401
            assert TOKEN not in r.text

    run(go())


def test_every_route_but_healthz_needs_the_token_and_the_token_is_never_echoed(caplog):
    app = create_app(confirm_agent, token=TOKEN)
    caplog.set_level(logging.DEBUG)

    async def go() -> None:
        async with client(app, headers={}) as c:
            assert (await c.get("/healthz")).status_code == 200
            for method, path in [
                ("POST", "/agent/run"), ("POST", "/agent/tool_results"), ("POST", "/api/tools/ack"),
                ("POST", "/agui"), ("GET", "/agent/sessions/x"),
            ]:  # fmt: skip
                r = await c.request(method, path, json={"message": TOKEN}, headers={"X-Api-Key": FAKE_KEY})
                assert r.status_code == 401, path
                assert TOKEN not in r.text and FAKE_KEY not in r.text

    run(go())
    assert TOKEN not in caplog.text and FAKE_KEY not in caplog.text


@pytest.mark.parametrize(
    "token", ["tøken-ünicode-ê-" + "w" * 10, "token with spaces inside", "tab\there-" + "x" * 10, "x" * 15]
)
def test_a_token_no_client_can_send_is_a_configuration_error(token: str):
    with pytest.raises(nt.ConfigurationError):
        create_app(confirm_agent, token=token)


def test_short_empty_and_missing_tokens_are_configuration_errors(monkeypatch):
    with pytest.raises(nt.ConfigurationError):
        create_app(confirm_agent, token="short")
    with pytest.raises(nt.ConfigurationError):
        create_app(confirm_agent, token="")
    monkeypatch.delenv("NOTEBOOK_TOOLS_SERVER_TOKEN", raising=False)
    app = create_app(confirm_agent)
    assert len(app.state.token) >= 16
