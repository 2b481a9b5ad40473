"""Refusals an HTTP client can act on: short sentences, routes not Python methods, never the token or pydantic's report.

And the widget's progress reaches AG-UI clients: a backend tool's progress and steps are an ACTIVITY_SNAPSHOT.
"""

from __future__ import annotations

import asyncio
import json

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.agui_app import events
from tests.support.http_helpers import TOKEN
from tests.support.server_agents import confirm_agent
from tests.support.server_requests import client


def test_an_id_that_is_the_token_is_not_echoed_and_no_refusal_shows_pydantic_internals():
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN)

    async def go() -> list[tuple[int, str]]:
        async with client(app) as c:
            said = []
            for path, body in [
                ("/agent/tool_results", {"agent_uuid": TOKEN, "tool_results": []}),
                ("/agent/run", {"message": "hi", "agent_uuid": TOKEN}),
                ("/agent/continue", {"agent_uuid": TOKEN}),
                ("/agent/stop", {"agent_uuid": TOKEN}),
                ("/agui", {"threadId": TOKEN, "runId": "r", "messages": []}),
                ("/agui/stop", {"threadId": TOKEN}),
            ]:
                r = await c.post(path, json=body)
                said.append((r.status_code, r.text))
            r = await c.get(f"/agent/sessions/{TOKEN}")
            said.append((r.status_code, r.text))
            _, opened, _ = await _paused(c)
            bad = {
                "agent_uuid": opened,
                "tool_results": [{"tool_use_id": 5, "content": ["x"], "is_error": "no"}],
            }
            r = await c.post("/agent/tool_results", json=bad)
            said.append((r.status_code, r.text))
            return said

    said = asyncio.run(go())
    assert [status for status, _ in said[:-1]] == [404, 404, 404, 409, 404, 409, 404], said
    for status, text in said:
        assert 400 <= status < 500 and TOKEN not in text, text  # (the token as an id: never echoed)
        assert "validation error" not in text and "pydantic" not in text and "()" not in text, text
        assert len(json.loads(text)["error"]) < 300


async def _paused(c):
    from tests.support.http_helpers import element, parse_sse

    r = await c.post("/agent/run", json={"message": "go"})
    messages = parse_sse(r.text)
    return r, element(messages[0][1])["agent_uuid"], messages


def test_a_backend_tools_progress_and_steps_are_an_activity_snapshot():
    @nt.tool
    async def crunch(table: str) -> str:
        """Crunch a table.

        Args:
            table: The table.
        """
        nt.reporter().progress(0.5, "half way")
        nt.reporter().step("read", rows=12)
        await asyncio.sleep(0)
        return "crunched"

    script = t.ScriptedTransport(
        t.turn(t.tool_use("crunch", {"table": "sales"}, id="toolu_a1")), t.reply("Done.")
    )
    model = script.client()
    app = create_app(lambda: nt.Agent(client=model, model="claude-test", tools=[crunch]), token=TOKEN)

    async def go():
        async with client(app) as c:
            body = {
                "threadId": "a1",
                "runId": "r1",
                "messages": [{"id": "u1", "role": "user", "content": "go"}],
            }
            return await c.post("/agui", json=body)

    found = events(asyncio.run(go()))
    activity = [e for e in found if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert activity and {e["messageId"] for e in activity} == {"activity_toolu_a1"}
    last = activity[-1]
    assert last["activityType"] == "tool_progress" and last["content"]["toolCallId"] == "toolu_a1"
    assert last["content"]["progress"] == 0.5 and last["content"]["message"] == "half way"
    assert last["content"]["step"] == "read" and last["content"]["data"] == {"rows": 12}
    kinds = [e["type"] for e in found]
    assert kinds.index("ACTIVITY_SNAPSHOT") < kinds.index("TOOL_CALL_RESULT")
