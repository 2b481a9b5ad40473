"""The server's token and API keys in a tool's error are never streamed or saved, in any escaped form."""

from __future__ import annotations

import html
import json

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.http_helpers import TOKEN, element, parse_sse
from tests.support.server_requests import FAKE_KEY, _agui_app, _agui_body, _agui_events, client, run


@nt.tool
def leaky(path: str) -> str:
    """Read a path.

    Args:
        path: The path.
    """
    raise RuntimeError(f"cannot read {path}: token {TOKEN} key {FAKE_KEY}")


@pytest.mark.parametrize("formatter", ["xml", "raw"])
def test_a_backend_tool_error_carrying_the_token_or_a_key_is_not_streamed(formatter: str, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-envkey-" + "E" * 30)
    store = nt.InMemoryStore()
    script = t.ScriptedTransport(
        t.turn("Reading.", t.tool_use("leaky", {"path": "/etc/" + "sk-ant-envkey-" + "E" * 30})),
        t.reply("It failed."),
    )
    the_client = script.client()
    app = create_app(lambda: nt.Agent(client=the_client, tools=[leaky]), store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            r = await c.post("/agent/run", json={"message": "hi", "formatter": formatter})
            assert r.status_code == 200
            for secret in (TOKEN, FAKE_KEY, "sk-ant-envkey-"):
                assert secret not in r.text, (secret, r.text)
            r = await c.get(f"/agent/sessions/{element(parse_sse(r.text)[0][1])['agent_uuid']}")
            for secret in (TOKEN, FAKE_KEY, "sk-ant-envkey-"):
                assert secret not in r.text, (secret, r.text)

    run(go())


def test_agui_streams_no_token_or_key_from_a_tool_error(monkeypatch):
    app, _store = _agui_app(
        t.turn("Reading.", t.tool_use("leaky", {"path": "/x"})), t.reply("It failed."), tools=[leaky]
    )

    async def go() -> None:
        async with client(app) as c:
            r = await c.post("/agui", json=_agui_body())
            _agui_events(r)
            assert TOKEN not in r.text and FAKE_KEY not in r.text

    run(go())


@pytest.mark.parametrize("token", ['tok"en\\with/escapes<&>' + "q" * 12, "tok'en&amp;" + "w" * 10])
def test_a_token_with_characters_that_get_escaped_is_still_redacted_everywhere(token: str):
    @nt.tool
    def echo_token(x: str) -> str:
        """Fail with the token.

        Args:
            x: Anything.
        """
        raise RuntimeError(f"token was {token}")

    store = nt.InMemoryStore()
    steps = [t.turn("Trying.", t.tool_use("echo_token", {"x": "a"})), t.reply("Failed.")]
    script = t.ScriptedTransport(*(steps * 2))
    the_client = script.client()
    app = create_app(lambda: nt.Agent(client=the_client, tools=[echo_token]), store=store, token=token)
    escaped = {token, json.dumps(token)[1:-1], json.dumps(token, ensure_ascii=False)[1:-1]}
    escaped |= {html.escape(e) for e in list(escaped)}

    async def go() -> None:
        async with client(app, headers={"Authorization": "Bearer " + token}) as c:
            for r in (
                await c.post("/agent/run", json={"message": "hi"}),
                await c.post("/agui", json=_agui_body()),
            ):
                assert r.status_code == 200, r.text
                for form in escaped:
                    assert form not in r.text, (form, r.text)

    run(go())
