"""OAuth for MCP servers over streamable HTTP: a server protected by the SDK's own server auth.

The "person" is an authorization handler (or, end to end, a Chat's consent card answered through
the widget protocol); the "browser" follows the authorization URL with an HTTP client whose
redirect lands on the kernel's loopback callback.
"""

import asyncio
import json
import logging
import os
import stat
import time

import httpx
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.mcp._sign_in import SIGN_IN_QUESTION
from tests.mcp.oauth_server import oauth_mcp
from tests.mcp.servers import results, text_of
from tests.support.browser_double import FakeView, pending_ids


async def browse(url, *, follow=True):
    """What a browser does with the authorization URL: the sign-in page redirects to the callback."""
    async with httpx.AsyncClient(follow_redirects=follow, timeout=30) as client:
        return await client.get(url)


class Person:
    """An authorization handler: says `action`, and signs in (follows the URL) when it accepts."""

    def __init__(self, action="accept"):
        self.action = action
        self.asked = []
        self.landed = []

    async def __call__(self, server, params):
        self.asked.append((server, params))
        if self.action == "accept":
            self.landed.append(asyncio.ensure_future(browse(params["url"])))  # the tab the click opened
        return {"action": self.action}


def never_asked(server, params):
    raise AssertionError("the person was asked again")


def scripted(server, *steps):
    script = t.ScriptedTransport(*steps)
    return nt.Agent(script.client(), mcp_servers=[server]), script


def whoami_turns():
    return (
        t.turn(t.tool_use("secure", id="open")),
        t.turn(t.tool_use("whoami", id="who")),
        t.reply("done"),
    )


def test_first_use_signs_in_then_the_tool_runs_and_a_token_file_spares_the_next_kernel(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    store = tmp_path / "tokens.json"
    with oauth_mcp() as (url, provider):
        server = nt.MCPServer.http(url, name="secure", token_store=store)
        person = Person()
        agent, script = scripted(server, *whoami_turns())
        agent.set_mcp_handlers(authorize=person)

        async def go():
            try:
                return await agent.run("who am I?")
            finally:
                await agent.aclose()

        assert asyncio.run(go()).stop_reason == "end_turn"
        assert results(script.requests[-1])["who"] == (False, [{"type": "text", "text": "signed in"}])
        [(asked_by, params)] = person.asked
        assert asked_by == "secure" and params["resource"] == url
        assert params["url"].startswith(url.removesuffix("/mcp") + "/authorize?")
        assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in params["url"]
        [landed] = person.landed
        assert landed.result().status_code == 200 and "Signed in" in landed.result().text
        assert provider.authorizations == 1 and provider.issued

        # a second kernel: the file's tokens are used, nobody is asked
        assert stat.S_IMODE(os.stat(store).st_mode) == 0o600
        again = nt.MCPServer.http(url, name="secure", token_store=store)
        again.authorization_handler = never_asked

        async def second():
            try:
                return await again.call_tool("whoami", {})
            finally:
                await again.aclose()

        assert text_of(asyncio.run(second())["content"]) == "signed in"
        assert provider.authorizations == 1

        # the tokens went nowhere else: logs, reprs, the agent's saved state
        saved = agent.state.model_dump_json()
        for token in provider.issued:
            assert token not in caplog.text and token not in saved
            assert token not in repr(server) + repr(again) + repr(server.sign_in)
            assert token not in json.dumps(script.requests)
        assert provider.issued[0] in store.read_text()  # where they are meant to be


def test_an_expired_stored_token_is_refreshed_without_asking(tmp_path):
    store = tmp_path / "tokens.json"
    with oauth_mcp() as (url, provider):
        first = nt.MCPServer.http(url, name="secure", token_store=store)
        first.authorization_handler = Person()

        async def call(server):
            try:
                return await server.call_tool("whoami", {})
            finally:
                await server.aclose()

        asyncio.run(call(first))
        data = json.loads(store.read_text())
        data["servers"][url]["expires_at"] = (
            time.time() - 60
        )  # a minute ago: the access token must not be sent
        store.write_text(json.dumps(data))
        later = nt.MCPServer.http(url, name="secure", token_store=store)
        later.authorization_handler = never_asked
        assert text_of(asyncio.run(call(later))["content"]) == "signed in"
        assert provider.authorizations == 1 and len(provider.issued) == 4  # a refresh, not a sign-in
        assert provider.issued[2] in store.read_text() and provider.issued[0] not in store.read_text()


def test_a_sign_in_that_never_comes_back_ends_and_closes_the_callback():
    with oauth_mcp() as (url, provider):
        server = nt.MCPServer.http(url, name="secure")
        server.sign_in.timeout = 1.0  # the person opened the page and walked away

        async def consents(name, params):
            return {"action": "accept"}

        server.authorization_handler = consents

        async def go():
            with pytest.raises(nt.MCPServerError, match="no sign-in came back within 1 s"):
                await server.list_tools()
            await server.aclose()

        asyncio.run(go())
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{server.sign_in.port}/callback", timeout=5)
        assert not provider.issued


def test_an_unreadable_token_file_means_signing_in_again(tmp_path, caplog):
    store = tmp_path / "tokens.json"
    store.write_text("{not json at-secret-looking")
    with oauth_mcp() as (url, _):
        server = nt.MCPServer.http(url, name="secure", token_store=store)
        server.authorization_handler = person = Person()

        async def go():
            try:
                return await server.call_tool("whoami", {})
            finally:
                await server.aclose()

        assert text_of(asyncio.run(go())["content"]) == "signed in"
    assert len(person.asked) == 1 and "cannot be read (JSONDecodeError)" in caplog.text
    assert "at-secret-looking" not in caplog.text  # what the file held is never logged
    assert list(json.loads(store.read_text())["servers"]) == [url]
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600


def test_a_declined_sign_in_fails_clearly_and_the_turn_goes_on_without_the_server(caplog):
    with oauth_mcp() as (url, provider):
        server = nt.MCPServer.http(url, name="secure")
        person = Person("decline")
        agent, script = scripted(server, t.reply("I can do without it."))
        agent.set_mcp_handlers(authorize=person)

        async def go():
            try:
                result = await agent.run("hello")
                with pytest.raises(nt.MCPServerError, match="sign-in declined") as raised:
                    await server.list_tools()
                return result, raised.value
            finally:
                await agent.aclose()

        result, error = asyncio.run(go())
        assert result.stop_reason == "end_turn" and len(person.asked) == 2
        assert "secure" not in json.dumps(script.requests[0].get("tools", []))
        assert "sign-in declined" in caplog.text  # the turn's warning says why the server is left out
        assert "OAuth flow error" not in caplog.text  # said once, not again as the SDK's traceback
        assert provider.authorizations == 0 and not provider.issued
        port = server.sign_in.port  # the callback listener closed with the refusal
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{port}/callback", timeout=5)
        assert "Traceback" not in str(error)


def test_without_anyone_to_ask_the_server_is_refused_and_nothing_opens():
    with oauth_mcp() as (url, provider):
        server = nt.MCPServer.http(url, name="secure")

        async def go():
            with pytest.raises(nt.MCPServerError, match="needs sign-in") as raised:
                await server.list_tools()
            await server.aclose()
            return raised.value

        error = asyncio.run(go())
        assert "set_mcp_handlers(authorize=" in str(error)
        assert provider.authorizations == 0


def test_a_callback_with_another_state_is_refused_and_the_real_one_still_signs_in(caplog):
    with oauth_mcp() as (url, _):
        server = nt.MCPServer.http(url, name="secure")
        seen = {}

        async def person(name, params):
            page = await browse(params["url"], follow=False)  # the sign-in page, not yet followed
            callback = page.headers["location"]
            forged = callback.replace("state=", "state=forged")
            seen["forged"] = await browse(forged)
            seen["stray"] = await browse(callback.split("?")[0].replace("/callback", "/other"))
            seen["real"] = asyncio.ensure_future(browse(callback))
            return {"action": "accept"}

        server.authorization_handler = person

        async def go():
            try:
                return await server.call_tool("whoami", {})
            finally:
                await server.aclose()

        assert text_of(asyncio.run(go())["content"]) == "signed in"
        assert seen["forged"].status_code == 400 and "not the one" in seen["forged"].text
        assert seen["stray"].status_code == 404
        assert seen["real"].result().status_code == 200
        assert "another sign-in's state" in caplog.text


def test_an_authorization_server_that_refuses_ends_the_sign_in():
    with oauth_mcp() as (url, provider):
        server = nt.MCPServer.http(url, name="secure")
        tabs = []

        async def person(name, params):
            page = await browse(params["url"], follow=False)
            state = page.headers["location"].split("state=")[1].split("&")[0]
            callback = page.headers["location"].split("?")[0]
            tabs.append(asyncio.ensure_future(browse(f"{callback}?error=access_denied<b>&state={state}")))
            return {"action": "accept"}

        server.authorization_handler = person

        async def go():
            with pytest.raises(nt.MCPServerError, match=r"refused the sign-in \(access_deniedb\)"):
                await server.list_tools()
            await server.aclose()

        asyncio.run(go())
        assert provider.issued == [] and tabs[0].result().status_code == 200


def test_the_token_store_is_checked_when_the_server_is_described(tmp_path):
    with pytest.raises(nt.ToolDefinitionError, match="token_store"):
        nt.MCPServer.http("http://127.0.0.1:1/mcp", auth=False, token_store=tmp_path / "t.json")
    with pytest.raises(nt.ToolDefinitionError, match="auth="):
        nt.MCPServer.http("http://127.0.0.1:1/mcp", auth="yes please")


# -- the consent card, through a Chat's broker and the widget protocol ------------------------------


def chat_run(url, answers, steps):
    """A chat's turn with the protected server; the person answers each card with the next answer.

    `answers` are functions of the card's URL. Returns (run result, the cards shown, the chat, the
    script, the browser's landings).
    """
    server = nt.MCPServer.http(url, name="secure")
    agent, script = scripted(server, *steps)
    chat = nt.Chat(agent)
    view = FakeView(chat)
    view.custom({"type": "hello", "view_id": "tab"})
    answers = list(answers)
    shown, landed = [], []

    async def person():
        while answers:
            await asyncio.sleep(0.01)
            view.custom({"type": "ping", "view_id": "tab"})
            for tool_use_id in pending_ids(chat):
                if chat.broker.taken(tool_use_id) or not answers:
                    continue
                card = chat.prompts[tool_use_id]
                shown.append(card)
                answer = answers.pop(0)(card["input"]["url"])
                view.answer(tool_use_id, answer)
                if chat.broker.taken(tool_use_id) and answer.get("output", {}).get("via") == "button":
                    landed.append(asyncio.ensure_future(browse(card["input"]["url"])))  # the new tab

    async def go():
        answering = asyncio.ensure_future(person())
        try:
            return await agent.run("who am I?")
        finally:
            answering.cancel()
            await agent.aclose()

    result = asyncio.run(go())
    chat.wire = json.dumps([message for message, _ in view.sent], default=str)  # all the widget sent
    return result, shown, chat, script, landed


def agent_state(chat):
    return chat.session.agent.state.model_dump_json()


def auto(url):
    return {"status": "success", "output": {"url": url, "via": "auto"}}


def click(url):
    return {"status": "success", "output": {"url": url, "via": "button"}}


def skip(url):
    return {"skip": True}


def test_the_sign_in_card_opens_the_page_only_on_the_click():
    with oauth_mcp() as (url, provider):
        result, shown, chat, script, landed = chat_run(url, [auto, click], whoami_turns())
    assert result.stop_reason == "end_turn"
    assert results(script.requests[-1])["who"] == (False, [{"type": "text", "text": "signed in"}])
    # one card, answered twice: the refused ack left it open
    assert len(shown) == 2 and shown[0]["tool_use_id"] == shown[1]["tool_use_id"]
    card = shown[0]
    assert card["input"]["message"] == SIGN_IN_QUESTION and card["input"]["consent"] is True
    assert card["input"]["host"] == "127.0.0.1" and card["renderer"] == "nt.open_url"
    assert chat.prompts[card["tool_use_id"]]["status"] != "pending"
    assert len(chat.broker.errors) == 1  # the ack without a click was refused, not taken as consent
    assert provider.authorizations == 1 and [tab.result().status_code for tab in landed] == [200]
    state = json.dumps(chat.prompts, default=str) + chat.wire + agent_state(chat)
    assert "/authorize?" in chat.wire  # the card went over the wire; the tokens never did
    assert provider.issued and not any(token in state for token in provider.issued)


def test_a_skipped_sign_in_card_is_reported_declined(caplog):
    with oauth_mcp() as (url, provider):
        result, shown, _, script, landed = chat_run(url, [skip], [t.reply("Without it, then.")])
    assert result.stop_reason == "end_turn" and len(shown) == 1
    assert "sign-in declined" in caplog.text  # why the server is left out of the turn
    assert "secure" not in json.dumps(script.requests[0].get("tools", []))
    assert provider.authorizations == 0 and not landed


def test_the_sign_in_card_without_a_front_end_is_cancelled_never_accepted():
    from notebook_tools.mcp import MCPSignIn
    from notebook_tools.prompts import PromptBroker

    broker = PromptBroker(on_no_frontend="fallback")
    asked = {"url": "https://auth.example.com/authorize?state=s", "resource": "https://mcp.example.com/mcp"}
    assert asyncio.run(MCPSignIn(broker)("secure", asked)) == {"action": "cancel"}
    for url in ("javascript:alert(1)", "file:///etc/passwd", "https://", 5):  # never shown at all
        assert asyncio.run(MCPSignIn(broker)("secure", {"url": url})) == {"action": "cancel"}
    assert len(broker.prompts) == 1


def test_a_cassette_records_a_signed_in_server_without_its_tokens_and_replays_without_it(
    tmp_path, monkeypatch
):
    from tests.support.cassette_recorder import KEY
    from tests.support.http_helpers import live_server
    from tests.support.messages_standin import standin_app

    path = tmp_path / "oauth.cassette.json"

    def run(cas, server, base=None):
        wrapped = cas.mcp(server)
        agent = nt.Agent(cas.client(base_url=base) if base else cas.client(), mcp_servers=[wrapped])
        person = Person()
        agent.set_mcp_handlers(authorize=person)  # given to the wrapper: it is the one that asks

        async def go():
            try:
                return await agent.run("who am I?")
            finally:
                await agent.aclose()

        return asyncio.run(go()), person

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with (
        oauth_mcp() as (url, provider),
        live_server(standin_app(t.ScriptedTransport(*whoami_turns()))) as base,
    ):
        live, person = run(t.Cassette(path, "record"), nt.MCPServer.http(url, name="secure"), base)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert live.text == "done" and len(person.asked) == 1 and provider.issued
    raw = path.read_text()
    assert "signed in" in raw and not any(token in raw for token in provider.issued)

    cas = t.Cassette(path, "replay")
    replayed, person = run(cas, nt.MCPServer.http(url, name="secure"))  # the server is gone
    assert replayed.text == "done" and not person.asked and cas.mismatch is None


def test_with_auth_off_a_protected_server_fails_at_once():
    with oauth_mcp() as (url, provider):
        server = nt.MCPServer.http(url, name="secure", auth=False)
        server.authorization_handler = never_asked

        async def go():
            with pytest.raises(nt.MCPServerError, match="could not start"):
                await server.list_tools()
            await server.aclose()

        asyncio.run(go())
        assert server.sign_in is None and provider.authorizations == 0


def test_one_token_file_keeps_each_server_apart(tmp_path):
    from mcp.shared.auth import OAuthToken

    from notebook_tools.mcp import FileTokens

    path = tmp_path / "tokens.json"
    a, b = FileTokens(path, "http://a.example/mcp"), FileTokens(path, "http://b.example/mcp")
    asyncio.run(a.set_tokens(OAuthToken(access_token="token-a", expires_in=60)))
    asyncio.run(b.set_tokens(OAuthToken(access_token="token-b")))
    again = FileTokens(path, "http://a.example/mcp")
    assert asyncio.run(again.get_tokens()).access_token == "token-a" and again.expires_at is not None
    assert asyncio.run(FileTokens(path, "http://c.example/mcp").get_tokens()) is None
    assert "token-" not in repr(again) and stat.S_IMODE(os.stat(path).st_mode) == 0o600
