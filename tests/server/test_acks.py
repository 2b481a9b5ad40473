"""Acks of held runs: too big or off-schema answers, acks racing a timeout or posted results, failed acks."""

from __future__ import annotations

import asyncio
import copy
import json
import time
from typing import Any

import httpx
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.server import create_app
from tests.support.http_helpers import AUTH, TOKEN, element, live_server, read_sse, text_of
from tests.support.server_agents import confirm_agent
from tests.support.server_requests import FAKE_KEY, _wait_for, valid


def _asker(tool: Any, arguments: dict[str, Any], **options: Any) -> Any:
    """An agent factory whose model calls `tool` once, then repeats what the result said."""

    def respond(body: dict[str, Any]) -> t.Turn:
        last = body["messages"][-1]["content"]
        results = (
            [b for b in last if isinstance(b, dict) and b.get("type") == "tool_result"]
            if isinstance(last, list)
            else []
        )
        if results:
            content = results[0]["content"]
            text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
            return t.reply("Heard: " + text[:200])
        return t.turn("Asking.", t.tool_use(tool.name, arguments))

    def make() -> nt.Agent:
        script = t.ScriptedTransport(*([respond] * 4))
        return nt.Agent(client=script.client(), frontend_tools=[tool], **options)

    return make


async def _held(base: str, on_pause: Any, body: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    """Stream a held run; `await on_pause(calls)` when acks are awaited; the messages."""

    async def paused(data: str) -> None:
        await on_pause(element(data))

    async with httpx.AsyncClient(base_url=base, headers=AUTH, timeout=30) as c:
        body = body or {"message": "go", "hold": True}
        return await read_sse(c, "/agent/run", body, {"awaiting_frontend_acks": paused})


async def _ack(base: str, body: dict[str, Any]) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, headers=AUTH, timeout=10) as c:
        return await c.post("/api/tools/ack", json=body)


def _heard(messages: list[tuple[str, str]]) -> str:
    return text_of(messages)


def _quick_ask(timeout: float) -> Any:
    quick = copy.copy(nt.ask_text)
    quick.name, quick.timeout = "ask_quick", timeout
    return quick


def test_an_ack_over_the_result_size_limit_is_refused_and_the_call_stays_open():
    store = nt.InMemoryStore()
    app = create_app(_asker(nt.ask_text, {"prompt": "name?"}, max_result_chars=50), store=store, token=TOKEN)
    seen: dict[str, Any] = {}

    async def on_pause(calls: list[dict[str, Any]]) -> None:
        call_id = calls[0]["tool_use_id"]
        big = await _ack(base, {"toolCallId": call_id, "status": "success", "output": "x" * 5000})
        seen["big"] = (big.status_code, big.json())
        good = await _ack(base, {"toolCallId": call_id, "status": "success", "output": "sales_clean"})
        seen["good"] = (good.status_code, good.json())

    with live_server(app) as base:
        messages = asyncio.run(_held(base, on_pause))
    assert seen["big"][0] == 422 and seen["big"][1]["ok"] is False, seen
    assert seen["good"] == (200, {"ok": True}), seen
    assert "sales_clean" in _heard(messages)
    for u in store.list_sessions():
        valid(store.load(u))


@pytest.mark.parametrize("output", ["maybe", 5, None, ["yes"], {"value": "yes"}])
def test_an_ack_that_breaks_the_output_schema_is_422_and_a_later_good_one_is_taken(output: Any):
    store = nt.InMemoryStore()
    app = create_app(_asker(nt.user_confirm, {"message": "ok?"}), store=store, token=TOKEN, hold=True)
    seen: dict[str, Any] = {}

    async def on_pause(calls: list[dict[str, Any]]) -> None:
        call_id = calls[0]["tool_use_id"]
        bad = await _ack(base, {"toolCallId": call_id, "status": "success", "output": output})
        seen["bad"] = (bad.status_code, bad.json())
        good = await _ack(base, {"toolCallId": call_id, "status": "success", "output": "no"})
        seen["good"] = (good.status_code, good.json())
        other = await _ack(base, {"toolCallId": call_id, "status": "success", "output": "yes"})
        seen["other"] = (other.status_code, other.json())

    with live_server(app) as base:
        messages = asyncio.run(_held(base, on_pause, {"message": "go"}))
    assert seen["bad"][0] == 422 and TOKEN not in json.dumps(seen["bad"]), seen
    assert seen["good"] == (200, {"ok": True}), seen
    assert seen["other"] == (200, {"ok": True, "ignored": True}), seen  # the first taken answer wins
    assert "Heard: no" in _heard(messages)
    for u in store.list_sessions():
        valid(store.load(u))


def test_an_ack_that_arrives_while_the_timeout_is_being_applied_is_410_not_ok():
    """The broker marks a call timed out only after the agent saved the timeout's result: an ack in
    between must not be told it was taken (the model hears "did not answer")."""
    quick = _quick_ask(0.3)
    store = nt.InMemoryStore()
    answers: list[tuple[int, dict[str, Any]]] = []
    holder: dict[str, Any] = {}
    factory = _asker(quick, {"prompt": "name?"})

    def make() -> nt.Agent:
        agent = factory()

        def spy(event: Any) -> None:
            message = getattr(event, "message", None)
            if isinstance(message, dict) and "did not answer" in json.dumps(message) and not answers:
                from notebook_tools.server._acks import AckBody

                # the id from the timed-out result itself: the client may not have seen the pause yet
                blocks = [b for b in message.get("content", []) if isinstance(b, dict)]
                [call_id] = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
                body = AckBody(toolCallId=call_id, status="success", output="late")
                answers.append(asyncio.ensure_future(holder["app"].state.runner.acks.ack(body)))

        agent.events.subscribe(spy)
        return agent

    app = create_app(make, store=store, token=TOKEN, hold=True)
    holder["app"] = app

    async def on_pause(calls: list[dict[str, Any]]) -> None:
        holder["id"] = calls[0]["tool_use_id"]

    with live_server(app) as base:
        messages = asyncio.run(_held(base, on_pause, {"message": "go"}))
        late = asyncio.run(_ack(base, {"toolCallId": holder["id"], "status": "success", "output": "late"}))
    assert "did not answer" in _heard(messages)
    assert answers and answers[0].result()[0] == 410, answers
    assert late.status_code == 410, late.text


def test_acks_racing_the_timeout_get_an_answer_that_matches_what_the_model_heard():
    quick = _quick_ask(0.4)
    store = nt.InMemoryStore()
    app = create_app(_asker(quick, {"prompt": "name?"}), store=store, token=TOKEN, hold=True)
    seen: list[httpx.Response] = []
    tasks: list[asyncio.Task[None]] = []

    async def on_pause(calls: list[dict[str, Any]]) -> None:
        call_id = calls[0]["tool_use_id"]

        async def one(delay: float, k: int) -> None:
            await asyncio.sleep(delay)
            seen.append(await _ack(base, {"toolCallId": call_id, "status": "success", "output": f"v{k}"}))

        tasks.extend(asyncio.get_running_loop().create_task(one(0.34 + k * 0.01, k)) for k in range(12))

    async def main() -> list[tuple[str, str]]:
        messages = await _held(base, on_pause, {"message": "go"})
        await asyncio.gather(*tasks)
        return messages

    with live_server(app) as base:
        messages = asyncio.run(main())
    heard = _heard(messages)
    taken = [r for r in seen if r.status_code == 200 and r.json() == {"ok": True}]
    assert len(taken) <= 1
    for r in seen:
        assert r.status_code in (200, 410), r.text
    if taken:
        assert "Heard: v" in heard
    else:
        assert "did not answer" in heard


def test_results_posted_while_a_held_run_waits_for_the_same_calls_win_once_and_the_ack_is_answered_fast():
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN, hold=True)
    seen: dict[str, Any] = {}

    async def on_pause(calls: list[dict[str, Any]]) -> None:
        call_id = calls[0]["tool_use_id"]
        [agent_uuid] = store.list_sessions()
        body = {
            "agent_uuid": agent_uuid,
            "hold": False,
            "tool_results": [{"tool_use_id": call_id, "content": "yes"}],
        }
        async with httpx.AsyncClient(base_url=base, headers=AUTH, timeout=30) as c:
            results = await c.post("/agent/tool_results", json=body)
        seen["results"] = results.status_code
        started = time.monotonic()
        r = await _ack(base, {"toolCallId": call_id, "status": "success", "output": "no"})
        seen["ack"] = (r.status_code, r.json(), time.monotonic() - started)

    with live_server(app) as base:
        messages = asyncio.run(_held(base, on_pause, {"message": "go"}))
        assert _wait_for(lambda: app.state.runner.acks.open_ids == [])
    assert seen["results"] == 200
    status, answer, took = seen["ack"]
    assert took < 5, seen
    assert status in (409, 410) and answer["ok"] is False, seen
    kinds = [e for e, _ in messages]
    assert kinds[-1] == "meta_final"
    [agent_uuid] = store.list_sessions()
    valid(store.load(agent_uuid))
    assert "You answered: yes" in json.dumps(store.load(agent_uuid).messages)


def test_failed_and_timeout_acks_and_a_failed_ack_without_its_text():
    store = nt.InMemoryStore()
    app = create_app(_asker(nt.ask_text, {"prompt": "name?"}), store=store, token=TOKEN, hold=True)
    seen: dict[str, Any] = {}

    async def on_pause(calls: list[dict[str, Any]]) -> None:
        call_id = calls[0]["tool_use_id"]
        for name, body in [
            ("bare", {"toolCallId": call_id, "status": "failed"}),
            ("secret", {"toolCallId": call_id, "status": "failed", "errorText": f"popup blocked {FAKE_KEY}"}),
            ("again", {"toolCallId": call_id, "status": "timeout"}),
        ]:
            r = await _ack(base, body)
            seen[name] = (r.status_code, r.json())

    with live_server(app) as base:
        messages = asyncio.run(_held(base, on_pause, {"message": "go"}))
    assert seen["bare"][0] in (200, 422), seen
    taken = "bare" if seen["bare"] == (200, {"ok": True}) else "secret"
    assert seen[taken] == (200, {"ok": True}), seen
    assert seen["again"] == (200, {"ok": True, "ignored": True}), seen
    assert FAKE_KEY not in "".join(d for _, d in messages)
    [agent_uuid] = store.list_sessions()
    valid(store.load(agent_uuid))


@nt.tool(
    executor="frontend",
    timeout=None,
    output_schema={
        "type": "object",
        "properties": {"width": {"type": "integer", "minimum": 1}, "unit": {"enum": ["px", "em"]}},
        "required": ["width"],
        "additionalProperties": False,
    },
)
def measure(element: str) -> str:
    """Measure an element in the page.

    Args:
        element: A CSS selector.
    """
    return ""


@pytest.mark.parametrize(
    ("output", "status"),
    [
        ({"width": 640, "unit": "px"}, 200),  # the shape document 004 acks with: the output as an object
        ('{"width": 640, "unit": "px"}', 200),  # the same JSON as a string
        ({"width": 0}, 422),
        ({"width": 640, "extra": True}, 422),
        ([640], 422),
    ],
)
def test_an_ack_output_may_be_any_json_its_output_schema_allows(output: Any, status: int):
    store = nt.InMemoryStore()
    app = create_app(_asker(measure, {"element": "#chart"}), store=store, token=TOKEN, hold=True)
    seen: dict[str, Any] = {}

    async def on_pause(calls: list[dict[str, Any]]) -> None:
        call_id = calls[0]["tool_use_id"]
        first = await _ack(base, {"toolCallId": call_id, "status": "success", "output": output})
        seen["first"] = (first.status_code, first.json())
        if first.status_code != 200:  # the call stays open: a good answer is still taken
            good = await _ack(base, {"toolCallId": call_id, "status": "success", "output": {"width": 3}})
            seen["good"] = (good.status_code, good.json())

    with live_server(app) as base:
        messages = asyncio.run(_held(base, on_pause, {"message": "go", "hold": True}))
    assert seen["first"][0] == status, seen
    if status == 200:
        assert seen["first"][1] == {"ok": True}
        assert json.loads(_heard(messages).split("Heard: ", 1)[1]) == {"width": 640, "unit": "px"}
    else:
        assert "must be a string" not in seen["first"][1]["reason"]  # the schema's own complaint
        assert seen["good"] == (200, {"ok": True}) and '"width": 3' in _heard(messages)
    for u in store.list_sessions():
        valid(store.load(u))
