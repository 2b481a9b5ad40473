"""Acks and Stops reach the run on whichever worker holds it: no sticky sessions.

Two servers (one worker each) share one store, SQLite or a real PostgreSQL. A held run streams from
the first; the browser's ack is posted to the second, which hands it to the first through the store
and answers with its reply. A run streaming from the first is stopped by `POST /agui/stop` sent to
the second: it ends with AG-UI's cancelled outcome.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from tests.support.http_helpers import AUTH, element, read_sse, serve_process, shared_store, text_of


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_an_ack_posted_to_another_worker_reaches_the_held_run(kind, tmp_path, request):
    store = shared_store(kind, tmp_path, request)
    with (
        serve_process("server_agents:confirm_agent", store) as (first, _),
        serve_process("server_agents:confirm_agent", store) as (second, _),
    ):

        async def go() -> tuple[list[tuple[str, str]], dict[str, Any]]:
            seen: dict[str, Any] = {}
            async with httpx.AsyncClient(headers=AUTH, timeout=60) as c:

                async def ack(data: str) -> None:
                    [call] = element(data)
                    ack = {"toolCallId": call["tool_use_id"], "status": "success", "output": "yes"}
                    elsewhere = await c.post(second + "/api/tools/ack", json=ack)
                    seen["ack"] = (elsewhere.status_code, elsewhere.json())
                    again = await c.post(second + "/api/tools/ack", json=ack)
                    seen["again"] = (again.status_code, again.json())

                body = {"message": "go", "hold": True}
                messages = await read_sse(c, first + "/agent/run", body, {"awaiting_frontend_acks": ack})
            return messages, seen

        messages, seen = asyncio.run(go())
    assert seen["ack"] == (200, {"ok": True}), seen  # the worker holding the call took it
    assert seen["again"] == (200, {"ok": True, "ignored": True}), seen
    assert "You answered: yes." in text_of(messages)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_stop_sent_to_another_worker_ends_the_run_with_the_cancelled_outcome(kind, tmp_path, request):
    store = shared_store(kind, tmp_path, request)
    env = {"NT_KILL_DIR": str(tmp_path)}
    with (
        serve_process("kill_agents:slow_agent", store, env=env) as (first, _),
        serve_process("kill_agents:slow_agent", store, env=env) as (second, _),
    ):
        lines: list[str] = []
        body = {
            "threadId": "stop-1",
            "runId": "r1",
            "messages": [{"id": "u1", "role": "user", "content": "go"}],
        }

        async def go() -> dict[str, Any]:
            async with httpx.AsyncClient(headers=AUTH, timeout=120) as c:

                async def read() -> None:
                    async with c.stream("POST", first + "/agui", json=body) as r:
                        async for line in r.aiter_lines():
                            lines.append(line)

                reading = asyncio.get_running_loop().create_task(read())
                while not any("TEXT_MESSAGE_CONTENT" in line for line in lines):
                    await asyncio.sleep(0.05)
                    assert not reading.done(), lines
                stopped = await c.post(second + "/agui/stop", json={"threadId": "stop-1"})
                await asyncio.wait_for(reading, 60)
                return {"status": stopped.status_code, "body": stopped.json()}

        said = asyncio.run(go())
        assert said == {"status": 200, "body": {"ok": True, "stopping": "stop-1", "elsewhere": True}}
        events = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
        assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
        assert events[-1]["result"]["stopReason"] == "stopped"
        nothing = httpx.post(second + "/agui/stop", json={"threadId": "stop-1"}, headers=AUTH, timeout=30)
        assert nothing.status_code == 409  # no run is going on
