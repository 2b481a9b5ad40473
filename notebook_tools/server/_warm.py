"""Warming a worker before it takes traffic: what its first requests would otherwise pay for.

A fresh worker's first requests import modules lazily (jsonschema, the SDK's types), build
validators (each tool's schemas, pydantic's for every model on the way) and run every code path
once. Measured before this existed: about 42 ms of CPU per request for a worker's first 30
requests against 12 ms once warm. So the app's startup (Starlette's lifespan, before uvicorn
accepts a connection) builds the agent once, checks each tool's schemas against nothing, and
runs the two contracts end to end in process on a scripted model and a throwaway in-memory
store: a run that pauses on a frontend call and its resume, and an AG-UI run with a client tool.
No tool of the agent runs, no model is called, nothing is saved in the real store.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["Warmed", "warm_up"]

_TOKEN = "warm-up-token-not-for-requests"


class Warmed(NamedTuple):
    """What warming up took, and the HTTP status of each request it made (four 200s when all ran)."""

    seconds: float
    statuses: list[int]


async def warm_up(make_agent: Any, make_app: Callable[..., Any]) -> Warmed:
    """Warm this process for `make_agent`'s agent (errors are not raised: a request reports them).

    Args:
        make_agent: The app's agent factory.
        make_app: `create_app` (given, not imported: the app module imports this one).
    """
    import httpx

    from .. import testing as t
    from ..agent._agent import Agent
    from ..stores._store import InMemoryStore
    from ..tools._builtins import user_confirm
    from ..tools._schemas import warm_up_validator

    started = time.perf_counter()
    warm_up_validator()
    with contextlib.suppress(Exception):  # a factory that fails now fails again on a request, and says so
        agent = make_agent()
        for tool in agent.tools.values():
            tool.input_errors({})
            if tool.output_schema is not None:
                tool.output_value_errors(None)
    asking = t.turn("Checking.", t.tool_use("user_confirm", {"message": "Warm?"}))
    script = t.ScriptedTransport(asking, t.reply("Warm."), asking, then=t.reply("Warm."))
    client = script.client(max_retries=0)
    app = make_app(
        lambda: Agent(client=client, model="claude-warm-up", frontend_tools=[user_confirm]),
        store=InMemoryStore(),
        token=_TOKEN,
        warm=False,
    )
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {_TOKEN}"}
    statuses: list[int] = []
    with contextlib.suppress(Exception):
        async with httpx.AsyncClient(transport=transport, base_url="http://warm", headers=headers) as c:
            first = await c.post("/agent/run", json={"message": "warm up"})
            uuid = _between(first.text, "agent_uuid&quot;:&quot;", "&quot;")
            call = _between(first.text, "tool_use_id&quot;:&quot;", "&quot;")
            answer = {"agent_uuid": uuid, "tool_results": [{"tool_use_id": call, "content": "yes"}]}
            said = [{"id": "u", "role": "user", "content": "hi"}]
            body = {"threadId": "warm", "runId": "w1", "messages": said}
            statuses.append(first.status_code)
            statuses.append((await c.post("/agent/tool_results", json=answer)).status_code)
            statuses.append((await c.post("/agui", json=body)).status_code)
            statuses.append((await c.post("/agui", json={**body, "runId": "w2", "messages": []})).status_code)
    return Warmed(time.perf_counter() - started, statuses)


def _between(text: str, before: str, after: str) -> str:
    start = text.find(before)
    if start < 0:
        return ""
    start += len(before)
    return text[start : text.find(after, start)]
