"""Both contracts (reference and AG-UI) on one session: any mix keeps it valid, a refusal changes nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import history_errors
from notebook_tools.server import create_app
from tests.support.agui_app import waiting
from tests.support.http_helpers import TOKEN
from tests.support.server_agents import two_questions_agent
from tests.support.server_requests import (
    REFUSALS,
    _agui_app,
    _agui_body,
    _agui_events,
    _pick,
    client,
    run,
    valid,
)

OPS = st.lists(
    st.sampled_from(
        ["run", "results_exact", "results_partial", "results_extra", "results_empty", "agui_message",
         "agui_resume_exact", "agui_resume_cancel", "agui_resume_partial", "agui_tool_messages", "approve_wrong",
         "session"]
    ),
    min_size=1,
    max_size=6,
)  # fmt: skip


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_random_mixes_of_both_contracts_on_one_session_keep_it_valid(ops: list[str]):
    """Any order of reference and AG-UI requests on one session: answered, never a 500, a refusal
    changes nothing, and the saved history is always one the Messages API accepts."""
    store = nt.InMemoryStore()
    app = create_app(two_questions_agent, store=store, token=TOKEN)
    thread = "mixed-thread"

    async def go() -> None:
        async with client(app) as c:
            n = 0
            for op in ops:
                n += 1
                state = store.load(thread)
                pending = [p.tool_use_id for p in state.pending_frontend_tools] if state else []
                interrupts = [f"tool_call:{i}" for i in pending]
                agui = {
                    "threadId": thread,
                    "runId": f"r{n}",
                    "messages": [{"id": f"u{n}", "role": "user", "content": f"hi {n}"}],
                }
                results = [{"tool_use_id": i, "content": "yes"} for i in pending]
                if op == "run":
                    r = await c.post(
                        "/agent/run",
                        json={"message": f"m{n}", "agent_uuid": thread} if state else {"message": "x"},
                    )
                    if state is None:
                        continue  # a new session of its own: not this thread
                elif op.startswith("results"):
                    chosen = {"results_exact": results, "results_partial": results[:1], "results_empty": [],
                              "results_extra": [*results, {"tool_use_id": "toolu_nobody", "content": "x"}]}[op]  # fmt: skip
                    r = await c.post(
                        "/agent/tool_results", json={"agent_uuid": thread, "tool_results": chosen}
                    )
                elif op == "agui_message":
                    r = await c.post("/agui", json=agui)
                elif op.startswith("agui_resume"):
                    status = "cancelled" if op.endswith("cancel") else "resolved"
                    ids = interrupts[:1] if op.endswith("partial") else interrupts
                    resume = [{"interruptId": i, "status": status, "payload": "yes"} for i in ids]
                    r = await c.post(
                        "/agui",
                        json={
                            **agui,
                            "resume": resume
                            or [{"interruptId": "tool_call:x", "status": "resolved", "payload": 1}],
                        },
                    )
                elif op == "agui_tool_messages":
                    tools = [
                        {"id": f"t{i}", "role": "tool", "toolCallId": i, "content": "yes"} for i in pending
                    ]
                    r = await c.post(
                        "/agui",
                        json={
                            **agui,
                            "messages": tools
                            or [{"id": "t", "role": "tool", "toolCallId": "q", "content": "x"}],
                        },
                    )
                elif op == "approve_wrong":
                    approvals = [{"tool_use_id": i, "approved": True} for i in pending]
                    r = await c.post(
                        "/agent/tool_results", json={"agent_uuid": thread, "approvals": approvals}
                    )
                else:
                    r = await c.get(f"/agent/sessions/{thread}")
                assert r.status_code in REFUSALS | {200}, (op, r.status_code, r.text[-300:])
                assert TOKEN not in r.text
                after = store.load(thread)
                if r.status_code != 200:
                    assert after == state, op
                if after is not None:
                    valid(after)

    run(go())


def test_reference_requests_on_a_thread_paused_on_agui_client_tools_are_refused_and_change_nothing():
    """The reference routes' agent lacks the AG-UI client's tools: loading the thread must not end
    its open calls as "no longer available" and then refuse the request anyway."""
    app, store = _agui_app(t.turn("Picking.", t.tool_use("pick", {"hint": "a"})), t.reply("Thanks."))

    async def go() -> None:
        async with client(app) as c:
            found = _agui_events(await c.post("/agui", json=_agui_body(tools=[_pick()])))
            [interrupt] = waiting(found)
            before = store.load("th")
            wrong = {"agent_uuid": "th", "tool_results": [{"tool_use_id": "toolu_nobody", "content": "x"}]}
            for path, body in [
                ("/agent/tool_results", wrong),
                ("/agent/tool_results", {"agent_uuid": "th", "tool_results": [{"tool_use_id": interrupt["toolCallId"], "content": "x"}]}),
                ("/agent/run", {"message": "hello", "agent_uuid": "th"}),
            ]:  # fmt: skip
                r = await c.post(path, json=body)
                assert r.status_code in (400, 409, 422), (path, r.text)
                assert store.load("th") == before, path
            # the AG-UI client still resumes its interrupt
            resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": "blue"}]
            done = _agui_events(
                await c.post("/agui", json={**_agui_body(tools=[_pick()]), "runId": "r2", "resume": resume})
            )
            assert done[-1]["type"] == "RUN_FINISHED" and done[-1]["outcome"]["type"] == "success"
            valid(store.load("th"))

    run(go())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(
        st.sampled_from(["message", "resume_exact", "resume_cancel", "tool_messages", "results", "garbage"]),
        min_size=1,
        max_size=6,
    )
)
def test_every_request_the_model_gets_is_a_valid_history(ops: list[str]):
    """Whatever a client sends, each Messages API request carries a history the API accepts."""
    transports: list[Any] = []

    def respond(body: dict[str, Any]) -> t.Turn:
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
            return t.reply("Noted.")
        return t.turn(
            "Two things.", t.tool_use("pick", {"hint": "a"}), t.tool_use("ask_text", {"prompt": "p"})
        )

    def make() -> nt.Agent:
        script = t.ScriptedTransport(*([respond] * 4))
        transports.append(script)
        return nt.Agent(client=script.client(), frontend_tools=[nt.ask_text])

    store = nt.InMemoryStore()
    app = create_app(make, store=store, token=TOKEN)

    async def go() -> None:
        async with client(app) as c:
            for n, op in enumerate(ops):
                state = store.load("v")
                pending = [p.tool_use_id for p in state.pending_frontend_tools] if state else []
                body = {**_agui_body("v", tools=[_pick()]), "runId": f"r{n}"}
                if op == "resume_exact" or op == "resume_cancel":
                    status = "resolved" if op == "resume_exact" else "cancelled"
                    body["resume"] = [
                        {"interruptId": f"tool_call:{i}", "status": status, "payload": "x"} for i in pending
                    ]
                elif op == "tool_messages":
                    body["messages"] = [
                        {"id": f"t{i}", "role": "tool", "toolCallId": i, "content": "ok"} for i in pending
                    ]
                elif op == "results":
                    body = {
                        "agent_uuid": "v",
                        "tool_results": [{"tool_use_id": i, "content": "ok"} for i in pending],
                    }
                elif op == "garbage":
                    body["resume"] = [
                        {"interruptId": "tool_call:" + "../" * 5, "status": "resolved", "payload": {"a": [1]}}
                    ]
                path = "/agent/tool_results" if op == "results" else "/agui"
                r = await c.post(path, json=body)
                assert r.status_code in REFUSALS | {200}, r.text
                if store.load("v") is not None:
                    valid(store.load("v"))
        for script in transports:
            for request in script.requests:
                errors, _ = history_errors(request["messages"])
                assert errors == [], errors

    run(go())
