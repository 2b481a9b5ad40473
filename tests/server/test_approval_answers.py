"""Answers to an approval over both contracts: payload types, edited arguments refused or nested too deep."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.agui_app import App, _paused, body, events, post, refused, waiting
from tests.support.http_helpers import (
    AUTH,
    TOKEN,
)
from tests.support.server_agents import approval_agent
from tests.support.server_requests import _agui_body, _agui_events, client, run, valid


@pytest.mark.parametrize(
    ("payload", "ok"),
    [
        (True, True), ({"approved": False, "reason": "no"}, True), ({"approved": True, "editedArgs": {"table": "t", "count": 1}}, True),
        ("yes", False), ({"approved": "true"}, False), ({"approved": True, "editedArgs": [1]}, False),
        ({"approved": True, "reason": 5}, False), (None, False),
    ],
)  # fmt: skip
def test_resume_payload_types_for_an_approval(payload: Any, ok: bool):
    store = nt.InMemoryStore()
    app = create_app(approval_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            found = _agui_events(await c.post("/agui", json=_agui_body()))
            [interrupt] = waiting(found)
            before = store.load("th")
            entry: dict[str, Any] = {"interruptId": interrupt["id"], "status": "resolved", "payload": payload}
            r = await c.post("/agui", json={**_agui_body(), "runId": "r2", "resume": [entry]})
            if ok:
                assert _agui_events(r)[-1]["type"] == "RUN_FINISHED"
            else:
                assert r.status_code == 422, r.text
                assert store.load("th") == before
            valid(store.load("th"))

    run(go())


@pytest.mark.parametrize(
    "edited",
    [
        {"table": "sales"},  # count missing
        {"table": "sales", "count": "12"},  # a string where the schema says integer
        {"table": "sales", "count": 1.5},
        {"table": "sales", "count": 12, "where": "1=1"},  # additionalProperties: false
        {"table": ["sales"], "count": 12},
        {"table": "sales", "count": True},
        {},
    ],
)
def test_a_confirmation_with_edited_args_the_tool_refuses_is_422_and_changes_nothing(edited: dict[str, Any]):
    store = nt.InMemoryStore()
    app = create_app(approval_agent, store=store, token=TOKEN)

    async def go() -> None:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://t", headers=AUTH
        ) as c:
            [interrupt] = waiting(events(await c.post("/agui", json=body())))
            assert interrupt["reason"] == "confirmation"
            before = store.load("th")
            payload = {"approved": True, "editedArgs": edited}
            entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": payload}
            r = await c.post("/agui", json=body(run="r2", resume=[entry]))
            refused(r, 422, "edited arguments")
            assert store.load("th") == before
            # the reference contract refuses the same edit the same way
            approvals = [{"tool_use_id": interrupt["toolCallId"], "approved": True, "edited_input": edited}]
            r = await c.post("/agent/tool_results", json={"agent_uuid": "th", "approvals": approvals})
            refused(r, 422, "edited arguments")
            assert store.load("th") == before
            good = {**entry, "payload": {"approved": True, "editedArgs": {"table": "sales", "count": 2}}}
            found = events(await c.post("/agui", json=body(run="r3", resume=[good])))
            assert any(
                "dropped 2 rows" in e.get("content", "") for e in found if e["type"] == "TOOL_CALL_RESULT"
            )
            valid(store.load("th"))

    asyncio.run(go())


@nt.tool(needs_approval=True)
def save_blob(blob: dict[str, Any]) -> str:
    """Save a blob of settings.

    Args:
        blob: The settings.
    """
    return f"saved {len(json.dumps(blob))} characters"


@pytest.mark.parametrize("depth", [90, 300, 900])
def test_deeply_nested_edited_args_are_refused_whole_not_a_500(depth: int, tmp_path: Any):
    # Found: editedArgs nested 250+ levels (any JSON parser takes 900) passed every check, then saving
    # the session failed in pydantic ("Maximum serialization depth exceeded"): a 500, on both contracts.
    store = nt.SQLiteStore(str(tmp_path / "deep.sqlite"))
    steps = [t.turn("Saving.", t.tool_use("save_blob", {"blob": {}})), t.reply("Done.")]
    app = App(*steps * 2, store=store, tools=[save_blob])
    interrupt, before = _paused(app)
    nested = '{"a":' * depth + "1" + "}" * depth  # built as text: json.dumps itself stops at depth ~1000
    payload = {"approved": True, "editedArgs": {"blob": "DEEP"}}
    entry = {"interruptId": interrupt, "status": "resolved", "payload": payload}
    raw = json.dumps(body(run="r2", messages=[], resume=[entry])).replace('"DEEP"', nested)
    [r] = post(app, raw.encode())
    approvals = [
        {"tool_use_id": interrupt.partition(":")[2], "approved": True, "edited_input": {"blob": "DEEP"}}
    ]
    reference = json.dumps({"agent_uuid": "th", "approvals": approvals}).replace('"DEEP"', nested)

    async def results() -> httpx.Response:
        async with app.client() as c:
            return await c.post(
                "/agent/tool_results",
                content=reference.encode(),
                headers={"content-type": "application/json"},
            )

    if depth < 100:
        events(r)
        valid(store.load("th"))
        return
    refused(r, 422, "nested")
    refused(asyncio.run(results()), 422, "nested")
    assert store.load("th") == before
