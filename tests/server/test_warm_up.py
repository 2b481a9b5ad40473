"""A worker warms up before it takes traffic: every path runs once in process, nothing reaches the store."""

from __future__ import annotations

import asyncio

import httpx

import notebook_tools as nt
from notebook_tools.server import create_app
from notebook_tools.server._warm import warm_up
from tests.support.http_helpers import AUTH, TOKEN, live_server
from tests.support.server_agents import approval_agent, confirm_agent


def test_warming_up_runs_both_contracts_on_a_scripted_model_and_never_the_agents_tools():
    called: list[str] = []

    @nt.tool
    def launch(target: str) -> str:
        """Launch something (never during a warm-up).

        Args:
            target: What.
        """
        called.append(target)
        return "launched"

    def make() -> nt.Agent:
        return nt.Agent(client=approval_agent().client, tools=[launch])

    warmed = asyncio.run(warm_up(make, create_app))
    assert warmed.statuses == [200, 200, 200, 200] and warmed.seconds > 0
    assert called == []


def test_a_served_app_is_warm_before_its_first_request_and_its_store_untouched():
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN)
    with live_server(app, lifespan="on") as base:  # uvicorn warms the app up before it accepts connections
        assert app.state.warmed.statuses == [200, 200, 200, 200]
        assert store.list_sessions() == []
        r = httpx.post(base + "/agent/run", json={"message": "go"}, headers=AUTH, timeout=30)
        assert r.status_code == 200
    assert len(store.list_sessions()) == 1


def test_warming_up_can_be_turned_off():
    app = create_app(confirm_agent, token=TOKEN, warm=False)
    with live_server(app, lifespan="on"):
        assert not hasattr(app.state, "warmed")
