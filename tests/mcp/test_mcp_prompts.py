"""MCP elicitation and sampling as broker prompts, answered as a front end would (no browser, no server).

The handlers take (server name, the request's params as JSON) and return the MCP result as JSON;
here a real PromptBroker shows their prompts and a scripted person answers them by id.
"""

import asyncio
import io
import json

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.mcp import MCPElicitation, MCPSampling
from notebook_tools.mcp._elicitation import (
    ELICIT_FORM_QUESTION,
    ELICIT_URL_QUESTION,
    host_shown,
    schema_problem,
)
from notebook_tools.mcp._sampling import SAMPLING_QUESTION, USER_REJECTED
from notebook_tools.prompts import FakeClock, PromptBroker
from tests.support.browser_double import FakeView, pending_ids, until

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg=="  # a 1x1 image
HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>[click](javascript:alert(3))'
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 2, "maxLength": 20},
        "email": {"type": "string", "format": "email"},
        "born": {"type": "string", "format": "date"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "ok": {"type": "boolean"},
        "size": {
            "type": "string",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
        },
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}},
    },
    "required": ["name", "email"],
}


def form(message="Who are you?", schema=SCHEMA):
    return {"mode": "form", "message": message, "requestedSchema": schema}


async def person(broker, *answers, frontend="tab"):
    """Answer each prompt as it opens with the next answer (a refused one keeps the prompt open)."""
    shown = []
    for answer in answers:
        await until(lambda: bool(open_prompts(broker)))
        [prompt] = open_prompts(broker)
        shown.append(prompt)
        broker.answer(prompt.tool_use_id, answer, frontend)
    return shown


def open_prompts(broker):
    """Pending prompts without a taken answer (a refused answer leaves its prompt open)."""
    return [p for p in broker.prompts.values() if p.status == "pending" and not broker.taken(p.tool_use_id)]


def run(handler, server, params, broker, *answers):
    async def main():
        answering = asyncio.ensure_future(person(broker, *answers))
        result = await handler(server, params)
        await asyncio.wait_for(answering, 5)  # every answer was asked for (else: `result` says why not)
        return result, answering.result()

    return asyncio.run(main())


def attached_broker(**kwargs):
    broker = PromptBroker(**kwargs)
    broker.seen("tab")
    return broker


# -- elicitation, form mode ------------------------------------------------------------------------


def test_form_answers_are_checked_against_the_schema_before_accept():
    broker = attached_broker()
    good = {"name": "Ada", "email": "ada@example.org", "born": "1815-12-10", "size": "s", "tags": ["a", "c"]}

    wrong = [
        {"name": "A", "email": "ada@example.org"},  # minLength
        {"name": "Ada", "email": "not-an-address"},  # format email
        {"name": "Ada", "email": "ada@example.org", "born": "10/12/1815"},  # format date
        {"name": "Ada", "email": "ada@example.org", "age": 200},  # maximum
        {"name": "Ada", "email": "ada@example.org", "size": "m"},  # not an option
        {"name": "Ada", "email": "ada@example.org", "extra": "x"},  # not asked for
        {"email": "ada@example.org"},  # required
    ]
    answers = [{"value": json.dumps(w)} for w in wrong] + [{"value": json.dumps(good)}]
    result, shown = run(MCPElicitation(broker), "people", form(HOSTILE), broker, *answers)
    assert result == {"action": "accept", "content": good}
    prompt = shown[-1]
    assert prompt.kind == "generic" and prompt.output_schema["properties"] == SCHEMA["properties"]
    # who asks and what, as plain values beside a question of our own (the card shows them as text)
    assert prompt.input == {"message": ELICIT_FORM_QUESTION, "server": "people", "server_message": HOSTILE}
    assert "people" in prompt.name
    assert len(broker.errors) == len(wrong)  # each wrong answer refused, the prompt kept open
    assert broker.prompts[prompt.tool_use_id].status == "answered"
    assert prompt.name not in broker.tools  # the request's form is forgotten once answered


def test_skip_is_decline_and_a_failed_card_is_cancel():
    broker = attached_broker()
    result, _ = run(MCPElicitation(broker), "s", form(), broker, {"skip": True})
    assert result == {"action": "decline"}
    result, _ = run(
        MCPElicitation(broker), "s", form(), broker, {"status": "failed", "error_text": "no form"}
    )
    assert result == {"action": "cancel"}


def test_a_timeout_is_cancel_never_accept():
    clock = FakeClock()
    broker = attached_broker(clock=clock)

    async def main():
        asked = asyncio.ensure_future(MCPElicitation(broker, timeout=30)("s", form()))
        await until(lambda: bool(broker._waiting))
        while not asked.done():  # the tab stays open and pings while time passes
            clock.advance(5)
            broker.seen("tab")
            await asyncio.sleep(0.001)
        return await asked

    assert asyncio.run(main()) == {"action": "cancel"}
    assert [p.status for p in broker.prompts.values()] == ["timed_out"]


@pytest.mark.parametrize("policy", ["fallback", "fail"])
def test_no_front_end_is_cancel(policy):
    broker = PromptBroker(on_no_frontend=policy)  # nobody attached
    assert asyncio.run(MCPElicitation(broker)("s", form())) == {"action": "cancel"}
    assert [p.status for p in broker.prompts.values()] == ["failed"]


def test_the_server_giving_up_cancels_the_card():
    broker = attached_broker()

    async def main():
        asked = asyncio.ensure_future(MCPElicitation(broker)("s", form()))
        await until(lambda: bool(pending_prompts(broker)))
        asked.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asked

    asyncio.run(main())
    assert [p.status for p in broker.prompts.values()] == ["cancelled"]


def test_stop_cancels_an_open_elicitation():
    broker = attached_broker()

    async def main():
        asked = asyncio.ensure_future(MCPElicitation(broker)("s", form()))
        await until(lambda: bool(pending_prompts(broker)))
        broker.cancel_open()  # the chat's Stop
        return await asyncio.wait_for(asked, 5)

    assert asyncio.run(main()) == {"action": "cancel"}
    assert [p.status for p in broker.prompts.values()] == ["cancelled"]


def pending_prompts(broker):
    return [p for p in broker.prompts.values() if p.status == "pending"]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"deep": {"type": "object", "properties": {}}}},
        {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string"}}}},
        {"type": "object", "properties": {"when": {"type": "string", "format": "password"}}},
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]},
        {"type": "array"},
        "not a schema",
    ],
)
def test_schemas_outside_mcps_flat_form_are_refused_without_a_prompt(schema):
    broker = attached_broker()
    result = asyncio.run(MCPElicitation(broker)("s", form(schema=schema)))
    assert result["code"] == -32602 and schema_problem(schema) in result["error"]
    assert broker.prompts == {}


# -- elicitation, URL mode -------------------------------------------------------------------------


def url_request(url="https://auth.example.com/login?state=1", message="Sign in to continue"):
    return {"mode": "url", "message": message, "url": url, "elicitationId": "e1"}


def test_a_url_is_accepted_only_by_the_click_ack_and_names_its_host():
    broker = attached_broker()
    url = "https://auth.example.com/login?state=1"
    auto = {"status": "success", "output": {"url": url, "via": "auto"}}  # opened without a click
    other = {"status": "success", "output": {"url": "https://evil.example/", "via": "button"}}
    click = {"status": "success", "output": {"url": url, "via": "button"}}
    result, shown = run(MCPElicitation(broker), "auth", url_request(url, HOSTILE), broker, auto, other, click)
    assert result == {"action": "accept"}
    prompt = shown[-1]
    assert prompt.kind == "custom" and prompt.renderer == "nt.open_url"
    assert prompt.input == {
        "message": ELICIT_URL_QUESTION,
        "consent": True,
        "url": url,
        "host": "auth.example.com",
        "server": "auth",
        "server_message": HOSTILE,
    }
    assert len(broker.errors) == 2  # the auto-open and the other page were refused, never accepted


def test_a_declined_url_is_reported_as_declined():
    broker = attached_broker()
    result, _ = run(MCPElicitation(broker), "auth", url_request(), broker, {"skip": True})
    assert result == {"action": "decline"}


def test_a_url_without_a_front_end_is_cancelled_not_consented():
    broker = PromptBroker(on_no_frontend="fallback")
    assert asyncio.run(MCPElicitation(broker)("auth", url_request())) == {"action": "cancel"}


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://bücher.example/pay", "xn--bcher-kva.example (shown as bücher.example)"),
        ("https://xn--pple-43d.com/", "xn--pple-43d.com (shown as \u0430pple.com)"),  # a Cyrillic a
        ("https://google.com@evil.example/", "evil.example"),
        ("http://127.0.0.1:8000/x", "127.0.0.1"),
    ],
)
def test_hosts_are_shown_as_they_resolve(url, shown):
    assert host_shown(url) == shown


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "https://", 5])
def test_urls_that_are_not_web_pages_are_refused(url):
    broker = attached_broker()
    result = asyncio.run(MCPElicitation(broker)("auth", {"mode": "url", "message": "m", "url": url}))
    assert result["code"] == -32602 and broker.prompts == {}


# -- sampling --------------------------------------------------------------------------------------


def sampling_request(**extra):
    return {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": HOSTILE}},
            {"role": "user", "content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]},
        ],
        "systemPrompt": "Be brief.",
        "maxTokens": 50,
        "temperature": 0.3,
        "modelPreferences": {"hints": [{"name": "opus"}]},
        **extra,
    }


def sampling(make_agent, *steps, **kwargs):
    agent, script = make_agent(*steps)
    broker = attached_broker()
    return MCPSampling(agent, broker, **kwargs), broker, script


def test_an_approved_request_goes_through_the_agents_client_and_the_reply_is_shown_first(make_agent):
    handler, broker, script = sampling(make_agent, t.reply("Hello from the model"))
    result, [ask, reply] = run(
        handler, "everything", sampling_request(), broker, {"value": "yes"}, {"value": "yes"}
    )
    assert result == {
        "role": "assistant",
        "content": {"type": "text", "text": "Hello from the model"},
        "model": "claude-test",
        "stopReason": "endTurn",
    }
    [request] = script.requests
    assert request["model"] == "claude-test"  # "opus" names no allowed model: the agent's own
    assert request["max_tokens"] == 50 and request["system"] == "Be brief." and "temperature" not in request
    [message] = request["messages"]  # one user turn of both messages, as the API wants
    assert (
        message["content"][0]["text"] == HOSTILE
        and message["content"][1]["source"]["media_type"] == "image/png"
    )
    assert ask.kind == "confirm" and ask.input["message"] == SAMPLING_QUESTION
    assert ask.input["server"] == "everything" and ask.input["model"] == "claude-test"
    assert ask.input["messages"] == f"system: Be brief.\nuser: {HOSTILE}\nuser: [image image/png]"
    assert reply.input["reply"] == "Hello from the model"


def test_a_hint_picks_only_an_allowed_model_and_max_tokens_is_capped(make_agent):
    handler, broker, script = sampling(
        make_agent, t.reply("ok"), allowed_models=["claude-opus-test"], max_tokens=10
    )
    run(handler, "s", sampling_request(), broker, {"value": "yes"}, {"value": "yes"})
    assert script.requests[0]["model"] == "claude-opus-test" and script.requests[0]["max_tokens"] == 10


@pytest.mark.parametrize(
    "answers", [[{"value": "no"}], [{"skip": True}], [{"value": "yes"}, {"value": "no"}]]
)
def test_a_denied_request_or_withheld_reply_is_refused(make_agent, answers):
    handler, broker, script = sampling(make_agent, t.reply("secret"))
    result, _ = run(handler, "s", sampling_request(), broker, *answers)
    assert result["code"] == USER_REJECTED and "content" not in result
    assert result["error"] in (
        "The user refused the sampling request.",
        "The user withheld the model's reply.",
    )
    assert len(script.requests) == (1 if len(answers) == 2 else 0)  # denied: nothing reached the model


def test_sampling_without_a_front_end_is_refused(make_agent):
    agent, script = make_agent()
    result = asyncio.run(MCPSampling(agent, PromptBroker(on_no_frontend="fallback"))("s", sampling_request()))
    assert result["code"] == USER_REJECTED and script.requests == []


def test_sampling_requests_that_cannot_be_sent_are_refused_without_a_prompt(make_agent):
    handler, broker, _ = sampling(make_agent)
    audio = {
        "messages": [{"role": "user", "content": {"type": "audio", "data": "x", "mimeType": "audio/wav"}}]
    }
    for params in [
        {"messages": "hi", "maxTokens": 5},
        sampling_request(maxTokens=0),
        {**audio, "maxTokens": 5},
    ]:
        assert asyncio.run(handler("s", params))["code"] == -32602
    assert broker.prompts == {}


# -- the widget shows them as ordinary prompts ------------------------------------------------------


def test_the_widget_shows_and_answers_an_elicitation_like_any_prompt(make_agent):
    agent, _ = make_agent()
    chat = nt.Chat(agent)
    view = FakeView(chat)
    view.custom({"type": "hello", "view_id": "tab"})

    async def main():
        asked = asyncio.ensure_future(MCPElicitation(chat.broker)("files", form()))
        await until(lambda: bool(pending_ids(chat)))
        [tool_use_id] = pending_ids(chat)
        shown = chat.prompts[tool_use_id]
        assert shown["input"]["server"] == "files" and shown["output_schema"]["required"] == ["name", "email"]
        view.answer(tool_use_id, {"value": '{"name": "Ada", "email": "ada@example.org"}'})
        return await asked

    assert asyncio.run(main()) == {"action": "accept", "content": {"name": "Ada", "email": "ada@example.org"}}


def test_a_chat_answers_its_agents_mcp_servers_through_its_broker(make_agent):
    server = nt.MCPServer.stdio("never-started", name="files")
    agent, _ = make_agent(mcp_servers=[server])
    chat = nt.Chat(agent)
    assert isinstance(server.elicitation_handler, MCPElicitation)
    assert isinstance(server.sampling_handler, MCPSampling) and server.sampling_handler.agent is agent
    assert server.elicitation_handler.broker is chat.broker


# -- the terminal answers them too ----------------------------------------------------------------


def in_terminal(broker, lines):
    """A terminal person: shows the next open prompt's card, answers it from `lines`."""
    from notebook_tools.terminal._ask import Asker
    from notebook_tools.terminal._input import Lines
    from notebook_tools.terminal._render import Screen, make_console

    out = io.StringIO()
    screen = Screen(make_console(out, width=200))
    asker = Asker(Lines(lines, out.write), screen, broker.tools, broker.files)

    async def one() -> None:
        await until(lambda: bool(open_prompts(broker)))
        [prompt] = open_prompts(broker)
        screen.card(prompt, 1, 1, asker.details(prompt))
        broker.answer(prompt.tool_use_id, await asker.answer(prompt), "terminal")

    return out, one


def test_the_terminal_fills_in_a_form_field_by_field():
    broker = attached_broker()
    lines = ["Ada", "ada@example.org", "", "", "", "s", "1,3"]  # name, email, born, age, ok, size, tags
    out, one = in_terminal(broker, lines)

    async def main():
        answering = asyncio.ensure_future(one())
        result = await MCPElicitation(broker)("files", form(HOSTILE))
        await answering
        return result

    content = {"name": "Ada", "email": "ada@example.org", "size": "s", "tags": ["a", "c"]}
    assert asyncio.run(main()) == {"action": "accept", "content": content}
    assert "server: files" in out.getvalue() and f"server message: {HOSTILE}" in out.getvalue()


@pytest.mark.parametrize(("choice", "action", "opened"), [("1", "accept", 1), ("2", "decline", 0)])
def test_the_terminal_opens_a_url_only_when_the_person_says_so(monkeypatch, choice, action, opened):
    seen = []
    monkeypatch.setattr("webbrowser.open", seen.append)
    broker = attached_broker()
    out, one = in_terminal(broker, [choice])

    async def main():
        answering = asyncio.ensure_future(one())
        result = await MCPElicitation(broker)("auth", url_request())
        await answering
        return result

    assert asyncio.run(main()) == {"action": action}
    assert len(seen) == opened and "host: auth.example.com" in out.getvalue()


def test_the_terminal_approves_sampling_and_sees_the_reply(make_agent):
    handler, broker, _ = sampling(make_agent, t.reply("Hello from the model"))
    out, one = in_terminal(broker, ["y", "y"])

    async def both() -> None:
        await one()
        await one()

    async def main():
        answering = asyncio.ensure_future(both())
        result = await handler("everything", sampling_request())
        await answering
        return result

    assert asyncio.run(main())["content"]["text"] == "Hello from the model"
    shown = out.getvalue()
    assert (
        f"user: {HOSTILE}" in shown
        and "model: claude-test" in shown
        and "reply: Hello from the model" in shown
    )


# -- end to end: server-everything (npm) asks, the widget's person answers ---------------------------


def test_server_everything_elicits_and_samples_through_a_chats_prompts():
    from tests.mcp.servers import everything_stdio

    server = everything_stdio()
    script = t.ScriptedTransport(
        t.turn(t.tool_use("everything", id="open")),
        t.turn(t.tool_use("trigger-elicitation-request", {}, id="el")),
        t.turn(t.tool_use("trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20}, id="sa")),
        t.reply("Hi, server."),  # what the model tells the server
        t.turn(t.tool_use("trigger-url-elicitation", {"url": "https://example.com/auth"}, id="url")),
        t.turn(t.tool_use("trigger-url-elicitation", {"url": "https://example.com/auth"}, id="url2")),
        t.reply("done"),
    )
    agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[server])
    chat = nt.Chat(agent)
    view = FakeView(chat)
    view.custom({"type": "hello", "view_id": "tab"})
    answers = iter(
        [
            {"value": json.dumps({"name": "Ada", "untitledMultipleSelectEnum": ["Piano"]})},
            {"value": "yes"},  # send the request to the model
            {"value": "yes"},  # send its reply back
            {"skip": True},  # the URL: declined
            {"status": "success", "output": {"url": "https://example.com/auth", "via": "button"}},  # opened
        ]
    )
    asked = []

    async def person():
        while True:
            await asyncio.sleep(0.01)
            view.custom({"type": "ping", "view_id": "tab"})
            for tool_use_id in pending_ids(chat):
                if tool_use_id not in asked and not chat.broker.taken(tool_use_id):
                    asked.append(tool_use_id)
                    view.answer(tool_use_id, next(answers))

    async def go():
        answering = asyncio.ensure_future(person())
        try:
            return await agent.run("ask me")
        finally:
            answering.cancel()
            await agent.aclose()

    assert asyncio.run(go()).stop_reason == "end_turn"
    assert len(asked) == 5
    declined, opened = (json.dumps(script.requests[i]["messages"][-1]["content"][0]) for i in (5, 6))
    assert "declined" in declined and "is_error" not in declined and "accept" in opened
    assert chat.prompts[asked[3]]["input"]["host"] == "example.com"
    elicited, sampled = (
        script.requests[2]["messages"][-1]["content"][0],
        script.requests[4]["messages"][-1]["content"][0],
    )
    assert (
        "Ada" in json.dumps(elicited) and "Piano" in json.dumps(elicited) and "accept" in json.dumps(elicited)
    )
    assert "Hi, server." in json.dumps(sampled)
    assert script.requests[3]["max_tokens"] == 20  # the server's maxTokens, through the agent's client
