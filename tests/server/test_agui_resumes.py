"""AG-UI resumes and tool messages for a client tool: payloads of any shape; stale and expired interrupts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebook_tools import testing as t
from tests.support.agui_app import TOOL, App, _paused, body, events, post, rate, refused, tool, waiting
from tests.support.server_requests import _agui_app, _agui_body, _agui_events, _pick, client, run, valid


def test_a_cancelled_resume_of_a_client_tool_and_its_repeat():
    app, store = _agui_app(t.turn("Picking.", t.tool_use("pick", {"hint": "a"})), t.reply("You cancelled."))

    async def go() -> None:
        async with client(app) as c:
            found = _agui_events(await c.post("/agui", json=_agui_body(tools=[_pick(timeout=30)])))
            interrupts = waiting(found)
            assert interrupts[0]["expiresAt"]
            resume = [{"interruptId": interrupts[0]["id"], "status": "cancelled", "extra": 1}]
            body = {**_agui_body(tools=[_pick(timeout=30)]), "runId": "r2", "resume": resume}
            first = _agui_events(await c.post("/agui", json=body))
            assert first[-1]["type"] == "RUN_FINISHED" and first[-1]["outcome"]["type"] == "success"
            saved = store.load("th")
            again = _agui_events(await c.post("/agui", json={**body, "runId": "r3"}))
            assert again[-1]["type"] == "RUN_FINISHED"
            assert store.load("th") == saved
            valid(saved)

    run(go())


@pytest.mark.parametrize(
    ("payload", "ok"),
    [
        ("yes", True), (0, True), (False, True), ([1, 2], True), ({"nested": {"deep": [None]}}, True),
        ("", False), (None, False),
    ],
)  # fmt: skip
def test_resume_payload_types_for_a_client_tool(payload: Any, ok: bool):
    app, store = _agui_app(t.turn("Picking.", t.tool_use("pick", {"hint": "a"})), t.reply("Thanks."))

    async def go() -> None:
        async with client(app) as c:
            found = _agui_events(await c.post("/agui", json=_agui_body(tools=[_pick()])))
            [interrupt] = waiting(found)
            before = store.load("th")
            entry: dict[str, Any] = {"interruptId": interrupt["id"], "status": "resolved"}
            if payload is not None:
                entry["payload"] = payload
            r = await c.post("/agui", json={**_agui_body(tools=[_pick()]), "runId": "r2", "resume": [entry]})
            if ok:
                assert _agui_events(r)[-1]["type"] == "RUN_FINISHED"
            else:
                assert r.status_code == 422, r.text
                assert store.load("th") == before
            valid(store.load("th"))

    run(go())


def test_a_classic_tool_message_after_the_interrupt_expired_is_refused_like_a_resume():
    app, store = _agui_app(t.turn("Picking.", t.tool_use("pick", {"hint": "a"})), t.reply("Thanks."))

    async def go() -> None:
        async with client(app) as c:
            found = _agui_events(await c.post("/agui", json=_agui_body(tools=[_pick(timeout=0.2)])))
            [interrupt] = waiting(found)
            assert interrupt["expiresAt"]
            await asyncio.sleep(0.3)
            before = store.load("th")
            message = {"id": "t1", "role": "tool", "toolCallId": interrupt["toolCallId"], "content": "blue"}
            body = {**_agui_body(tools=[_pick(timeout=0.2)]), "runId": "r2", "messages": [message]}
            r = await c.post("/agui", json=body)
            assert r.status_code == 410, r.text
            # In words an AG-UI 1.0 client can act on: the call by its id, no interrupt it never saw.
            call = interrupt["toolCallId"]
            assert r.json()["expired"] == [call] and "tool_call:" not in r.text
            assert f"tool call(s) {call} ran out" in r.json()["error"] and "carries an `error`" in r.text
            assert store.load("th") == before
            error = {**message, "content": "", "error": "the page closed"}
            r = await c.post("/agui", json={**body, "messages": [error]})  # an error answer is always taken
            assert _agui_events(r)[-1]["type"] == "RUN_FINISHED"
            valid(store.load("th"))

    run(go())


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        ("x" * 100_001, 422),  # over max_result_chars
        ({"k": "x" * 100_000}, 422),  # its JSON text is over it
        ("x" * 1_100_000, 413),  # over the body limit
        ("🎨" * 30_000, 200),
        ("\u2028\u2029\x00\x1b[31m", 200),
        (json.loads("[" * 90 + "]" * 90), 200),
        (json.loads("[" * 200 + "]" * 200), 422),  # deeper than any body may nest
        ({"a": [{"b": [{"c": None}] * 50}] * 50}, 200),
    ],
)
def test_resume_payloads_huge_odd_or_deep_are_refused_whole_or_taken_as_json_text(payload: Any, status: int):
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"hint": "a"})), t.reply("Thanks."))
    interrupt, before = _paused(app, [tool()])
    entry = {"interruptId": interrupt, "status": "resolved", "payload": payload}
    [r] = post(app, body([tool()], run="r2", resume=[entry]))
    if status != 200:
        refused(r, status)
        assert app.store.load("th") == before
        return
    events(r)
    sent = app.script.requests[-1]["messages"][-1]["content"][0]["content"]
    assert sent == (payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False))
    valid(app.store.load("th"))


def test_a_resume_of_an_interrupt_after_the_thread_moved_on_changes_nothing():
    app = App(
        t.turn("Picking.", t.tool_use(TOOL, {"hint": "a"})),
        t.reply("Thanks."),
        t.turn("Again.", t.tool_use(TOOL, {"hint": "b"})),
    )
    interrupt, _ = _paused(app, [tool()])
    old = {"interruptId": interrupt, "status": "resolved", "payload": "first"}
    [resumed, moved_on] = post(
        app,
        body([tool()], run="r2", resume=[old]),
        body([tool()], run="r3", messages=[{"id": "u2", "role": "user", "content": "more"}]),
    )
    events(resumed)
    [open_now] = waiting(events(moved_on))
    assert open_now["id"] != interrupt
    before = app.store.load("th")
    requests = len(app.script.requests)
    for stale in (
        [{**old, "payload": "changed my mind"}],
        [{**old, "status": "cancelled"}],
        [{**old, "interruptId": "confirmation:" + interrupt.partition(":")[2]}],
    ):
        [r] = post(app, body([tool()], run="r4", resume=stale))
        found = events(r)
        assert [i["id"] for i in waiting(found)] == [open_now["id"]]
    mixed = [old, {"interruptId": open_now["id"], "status": "resolved", "payload": "x"}]
    [r] = post(app, body([tool()], run="r5", resume=mixed))
    assert refused(r, 422)["already_resolved"] == [interrupt]
    assert app.store.load("th") == before and len(app.script.requests) == requests


@pytest.mark.parametrize(
    ("extra", "status", "told"),
    [
        ({"content": [{"type": "text", "text": "blue"}, {"type": "text", "text": "and green"}]}, 200, "blue\nand green"),
        ({"content": []}, 422, None),
        ({"content": ""}, 422, None),
        ({"content": "x" * 100_001}, 422, None),
        ({"content": "ok", "error": "x" * 100_001}, 422, None),
        ({"content": [{"type": "binary", "mimeType": "image/png", "data": "!!"}]}, 422, None),
        ({"content": "ok", "error": "the picker crashed"}, 200, "the picker crashed"),
    ],
)  # fmt: skip
def test_classic_tool_messages_of_every_shape_are_refused_whole_or_told_as_text(
    extra: dict[str, Any], status: int, told: str | None
):
    # Found: a tool message whose content is text parts (what AG-UI allows besides a string) reached the
    # model as the parts' JSON ('[{"type": "text", "text": "blue"}]'), where a user message's parts are text.
    app = App(t.turn("Picking.", t.tool_use(TOOL, {})), t.reply("Thanks."))
    [first] = post(app, body([tool()]))
    call = waiting(events(first))[0]["toolCallId"]
    before = app.store.load("th")
    message = {"id": "tm", "role": "tool", "toolCallId": call, **extra}
    [r] = post(app, body([tool()], run="r2", messages=[message]))
    if status != 200:
        refused(r, status)
        assert app.store.load("th") == before
        return
    events(r)
    assert app.script.requests[-1]["messages"][-1]["content"][0]["content"] == told
    valid(app.store.load("th"))


_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**400), max_value=10**400),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=30),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=_json, output=st.booleans())
def test_random_resume_payloads_are_refused_whole_or_told_to_the_model(payload: Any, output: bool):
    frontend = [rate] if output else []
    name = "rate" if output else TOOL
    app = App(
        t.turn("Asking.", t.tool_use(name, {"prompt": "x"})), t.reply("Thanks."), frontend_tools=frontend
    )
    tools = None if output else [tool()]
    interrupt, before = _paused(app, tools)
    entry = {"interruptId": interrupt, "status": "resolved", "payload": payload}
    [r] = post(app, body(tools, run="r2", messages=[], resume=[entry]))
    assert r.status_code in (200, 422), r.text[:300]
    if r.status_code == 422:
        refused(r, 422)
        assert app.store.load("th") == before
        return
    events(r)
    valid(app.store.load("th"))


def test_two_tool_messages_answering_one_call_are_refused_naming_it():
    app, store = _agui_app(t.turn("Picking.", t.tool_use("pick", {"hint": "a"})), t.reply("Thanks."))

    async def go() -> None:
        async with client(app) as c:
            found = _agui_events(await c.post("/agui", json=_agui_body(tools=[_pick()])))
            [interrupt] = waiting(found)
            call = interrupt["toolCallId"]
            before = store.load("th")
            twice = [
                {"id": "t1", "role": "tool", "toolCallId": call, "content": "blue"},
                {"id": "t2", "role": "tool", "toolCallId": call, "content": "red"},
            ]
            body = {**_agui_body(tools=[_pick()]), "runId": "r2", "messages": twice}
            r = await c.post("/agui", json=body)
            assert r.status_code == 422, r.text
            assert r.json()["duplicate"] == [call] and r.json()["missing"] == [] and r.json()["unknown"] == []
            assert f"answered more than once: {call}" in r.json()["error"]
            assert store.load("th") == before

    run(go())
