"""In-process requests to the HTTP server: an ASGI client, SSE and AG-UI readers, a valid-session check."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import history_errors
from notebook_tools.server import create_app
from notebook_tools.session import _transitions as tr
from tests.support.http_helpers import AUTH, TOKEN, parse_sse
from tests.support.readiness import CEILING

FAKE_KEY = "sk-ant-api03-" + "Z" * 40
REFUSALS = {400, 401, 404, 405, 409, 410, 413, 415, 422}


def valid(state: nt.AgentState | None) -> None:
    assert state is not None
    tr.check_invariant(state)
    errors, _ = history_errors(state.messages)
    assert errors == [], errors


def client(app: Any, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
    return httpx.AsyncClient(
        transport=transport, base_url="http://t", headers=AUTH if headers is None else headers
    )


def sse(r: httpx.Response) -> list[tuple[str, str]]:
    assert r.status_code == 200, r.text
    return parse_sse(r.text)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def _agui_app(*steps: Any, store: Any = None, **options: Any) -> tuple[Any, Any]:
    store = store if store is not None else nt.InMemoryStore()
    script = t.ScriptedTransport(*steps)
    the_client = script.client(max_retries=0)

    def make() -> nt.Agent:
        return nt.Agent(client=the_client, model="claude-test", **options)

    return create_app(make, store=store, token=TOKEN), store


def _agui_body(thread: str = "th", **fields: Any) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": "r1",
        "messages": [{"id": "u", "role": "user", "content": "hi"}],
        **fields,
    }


def _agui_events(r: httpx.Response) -> list[dict[str, Any]]:
    assert r.status_code == 200, r.text
    return [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]


def _pick(timeout: Any = None, parameters: Any = None) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": "pick",
        "description": "Pick one.",
        "parameters": parameters or {"type": "object", "properties": {"hint": {"type": "string"}}},
    }
    if timeout is not None:
        tool["metadata"] = {"timeout": timeout}
    return tool


def _wait_for(check: Any, seconds: float = CEILING) -> bool:
    """Whether `check()` came true; waits on it, giving up only at the generous safety ceiling."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return bool(check())
