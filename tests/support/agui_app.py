"""An app on a scripted model, AG-UI requests to it, streams checked by ag-ui-validate, refusals read."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from ag_ui_validate.pytest_plugin import assert_valid_agui

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.http_helpers import AUTH, TOKEN

TOOL = "pick"


class App:
    """An app on a scripted model (a fresh script per app) and a store."""

    def __init__(self, *steps: Any, store: nt.SessionStore | None = None, **agent: Any) -> None:
        self.script = t.ScriptedTransport(*steps)
        self.store = store if store is not None else nt.InMemoryStore()
        the_client = self.script.client()
        self.app = create_app(
            lambda: nt.Agent(client=the_client, model="claude-test", **agent), store=self.store, token=TOKEN
        )

    def client(self) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app, raise_app_exceptions=False)
        return httpx.AsyncClient(transport=transport, base_url="http://t", headers=AUTH)


def body(tools: list[Any] | None = None, thread: str = "th", run: str = "r1", **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "threadId": thread,
        "runId": run,
        "messages": [{"id": "u", "role": "user", "content": "hi"}],
        **extra,
    }
    if tools is not None:
        found["tools"] = tools
    return found


def tool(parameters: Any = None, name: str = TOOL, description: str = "Pick one.") -> dict[str, Any]:
    return {"name": name, "description": description, "parameters": parameters}


def events(r: httpx.Response) -> list[dict[str, Any]]:
    assert r.status_code == 200, r.text[:500]
    # SSE lines end only at CR or LF (str.splitlines would also split at U+2028 inside a JSON string)
    found = [json.loads(line[6:]) for line in r.text.split("\n") if line.startswith("data: ")]
    assert_valid_agui(found, max_warnings=0)
    assert found[-1]["type"] == "RUN_FINISHED", found[-1]
    return found


def refused(r: httpx.Response, status: int, *named: str) -> dict[str, Any]:
    assert r.status_code == status, r.text[:500]
    answer: dict[str, Any] = r.json()
    assert "Traceback" not in r.text
    for word in named:
        assert word in answer["error"], (word, answer)
    return answer


def post(app: App, *payloads: dict[str, Any] | bytes) -> list[httpx.Response]:
    async def go() -> list[httpx.Response]:
        out = []
        async with app.client() as c:
            for p in payloads:
                if isinstance(p, bytes):
                    out.append(await c.post("/agui", content=p, headers={"content-type": "application/json"}))
                else:
                    out.append(await c.post("/agui", json=p))
        return out

    return asyncio.run(go())


@nt.tool(executor="frontend", output_schema={"type": "number", "multipleOf": 0.5}, timeout=None)
def rate(prompt: str) -> str:
    """Ask the person for a rating in halves.

    Args:
        prompt: What to rate.
    """
    return ""


def _paused(app: App, tools: list[Any] | None = None) -> tuple[str, nt.AgentState]:
    [first] = post(app, body(tools))
    [interrupt] = waiting(events(first))
    state = app.store.load("th")
    assert state is not None
    return interrupt["id"], state


def waiting(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a run left open: its interrupts (approvals), else its pending client tool calls.

    AG-UI 1.0 names pending client tool calls in the success outcome (`pendingToolCallIds`); the
    STATE_SNAPSHOT gives each one's response schema and expiry. They are returned shaped as the
    `tool_call:<id>` interrupts a resume may still answer them as.
    """
    outcome = found[-1]["outcome"]
    if outcome["type"] == "interrupt":
        return list(outcome["interrupts"])
    snapshot = [e for e in found if e["type"] == "STATE_SNAPSHOT"][-1]["snapshot"]
    info = {c["toolCallId"]: c for c in snapshot["pendingToolCalls"]}
    names = {e["toolCallId"]: e["toolCallName"] for e in found if e["type"] == "TOOL_CALL_START"}
    arguments = {e["toolCallId"]: json.loads(e["delta"]) for e in found if e["type"] == "TOOL_CALL_ARGS"}
    assert sorted(info) == sorted(outcome.get("pendingToolCallIds", []))
    return [
        {
            "id": f"tool_call:{i}",
            "reason": "tool_call",
            "toolCallId": i,
            "responseSchema": info[i]["responseSchema"],
            "metadata": {"toolName": names.get(i, info[i]["toolName"]), "arguments": arguments.get(i)},
            **({"expiresAt": info[i]["expiresAt"]} if info[i]["expiresAt"] else {}),
        }
        for i in outcome.get("pendingToolCallIds", [])
    ]
