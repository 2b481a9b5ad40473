"""Numbers a float cannot hold (NaN, Infinity, 1e400, 10**400) in bodies, schemas and answers: refused."""

from __future__ import annotations

import asyncio
import json

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.agui_app import TOOL, App, body, events, post, rate, refused, tool, waiting
from tests.support.http_helpers import (
    TOKEN,
    element,
    elements,
    parse_sse,
)
from tests.support.server_agents import confirm_agent
from tests.support.server_requests import client, run, valid


def test_non_finite_numbers_are_refused_anywhere_in_a_body():
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN, hold=True)

    async def go() -> None:
        async with client(app) as c:
            for path in ("/api/tools/ack", "/agui", "/agent/tool_results"):
                raw = b'{"toolCallId": "x", "status": "success", "output": {"v": Infinity}}'
                r = await c.post(path, content=raw, headers={"content-type": "application/json"})
                assert r.status_code == 400, (path, r.text)

    run(go())


def test_a_number_too_large_for_a_float_is_refused_anywhere_in_an_agui_body():
    # Found: 1e400 parsed as Infinity (only the literal NaN/Infinity were refused): as a schema bound it
    # ended the run with "ValueError: Out of range float values are not JSON compliant" (the thread was
    # made), and as a resume payload the model was told '{"v": Infinity}', which is not JSON.
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"x": 1})), t.reply("done"))
    schema = json.dumps(body([tool({"type": "object", "properties": {"x": {"maximum": 12345}}})]))
    [r] = post(app, schema.replace("12345", "1e400").encode())
    refused(r, 400, "1e400")
    assert app.store.list_sessions() == [] and app.script.requests == []
    [first] = post(app, body([tool()]))
    [interrupt] = waiting(events(first))
    before = app.store.load("th")
    for number in ("1e400", "-1E+999", "123456789e999"):
        entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": {"v": 12345}}
        raw = json.dumps(body([tool()], run="r2", resume=[entry])).replace("12345", number)
        [r] = post(app, raw.encode())
        refused(r, 400, "too large")
        assert app.store.load("th") == before
    ok = {"interruptId": interrupt["id"], "status": "resolved", "payload": {"v": 1e300, "w": 10**30}}
    [r] = post(app, body([tool()], run="r3", resume=[ok]))
    events(r)
    assert (
        app.script.requests[-1]["messages"][-1]["content"][0]["content"]
        == '{"v": 1e+300, "w": 1000000000000000000000000000000}'
    )


def test_a_huge_integer_answer_to_a_schema_with_a_float_keyword_is_refused_not_a_500():
    # Found: jsonschema raised OverflowError (int too large to convert to float) checking 10**400
    # against multipleOf 0.5: the AG-UI resume was answered 500, and the model's arguments would end a run.
    huge = "1" + "0" * 400
    app = App(
        *[t.turn("Rating.", t.tool_use("rate", {"prompt": "the chart"})), t.reply("ok")] * 2,
        frontend_tools=[rate],
    )
    [first] = post(app, body())
    [interrupt] = waiting(events(first))
    before = app.store.load("th")
    entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": 12345}
    [r] = post(app, json.dumps(body(run="r2", resume=[entry])).replace("12345", huge).encode())
    refused(r, 422, "too large to check")
    assert app.store.load("th") == before
    [r] = post(app, body(run="r3", resume=[{**entry, "payload": 2.5}]))
    events(r)
    valid(app.store.load("th"))

    async def reference() -> None:
        async with app.client() as c:
            messages = parse_sse((await c.post("/agent/run", json={"message": "rate it"})).text)
            agent_uuid = element(messages[0][1])["agent_uuid"]
            [call] = elements(messages, "awaiting_frontend_tools")[0]
            stored = app.store.load(agent_uuid)
            results = [{"tool_use_id": call["tool_use_id"], "content": huge}]
            r = await c.post("/agent/tool_results", json={"agent_uuid": agent_uuid, "tool_results": results})
            refused(r, 422, "too large to check")
            assert app.store.load(agent_uuid) == stored

    asyncio.run(reference())
    schema = {"type": "object", "properties": {"n": {"multipleOf": int(huge)}}}
    assert nt.Tool(lambda **kw: None, name="n", executor="frontend", input_schema=schema).input_errors(
        {"n": 1.5}
    )
