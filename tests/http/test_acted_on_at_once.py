"""Nothing a client sees comes before the state that answers it is saved: clients that act the instant an event arrives.

Two servers (one worker each) share one store, SQLite or a real PostgreSQL. The client reads the
first's stream and, the very moment an event invites an answer, sends the answer to the second: an
ack for a held call (`awaiting_frontend_acks`), the results of a pause (`awaiting_frontend_tools`).
Each is taken, every time, in many runs: the event was written only once the call's holder was on
record in the store and the run had let go of the session.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.http_helpers import AUTH, element, parse_sse, serve_process, text_of

RUNS = 50
"""Runs per test: the race this guards against was lost about once in a few dozen runs under load."""


def _store(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'sessions.sqlite'}"
    return str(request.getfixturevalue("fresh_postgres_url"))


async def _stream(
    c: httpx.AsyncClient, url: str, body: dict[str, Any], acts: dict[str, Any]
) -> list[tuple[str, str]]:
    """Stream a reference-contract run; `await acts[event](data)` the moment such an element arrives."""
    messages: list[tuple[str, str]] = []
    buffer = ""
    async with c.stream("POST", url, json=body) as r:
        assert r.status_code == 200, await r.aread()
        async for chunk in r.aiter_text():
            buffer += chunk
            while "\r\n\r\n" in buffer:
                block, buffer = buffer.split("\r\n\r\n", 1)
                for event, data in parse_sse(block + "\r\n\r\n"):
                    messages.append((event, data))
                    if event in acts:
                        await acts[event](data)
    return messages


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_an_ack_posted_to_another_worker_the_instant_its_call_is_shown_is_taken(kind, tmp_path, request):
    store = _store(kind, tmp_path, request)
    with (
        serve_process("race_agents:confirm_agent", store) as (first, _),
        serve_process("race_agents:confirm_agent", store) as (second, _),
    ):

        async def go() -> list[tuple[Any, str]]:
            seen: list[tuple[Any, str]] = []
            async with httpx.AsyncClient(headers=AUTH, timeout=60) as c:
                for n in range(RUNS):
                    said: list[Any] = []

                    async def ack(data: str, n: int = n, said: list[Any] = said) -> None:
                        [call] = element(data)
                        body = {"toolCallId": call["tool_use_id"], "status": "success", "output": "yes"}
                        r = await c.post(second + "/api/tools/ack", json=body)
                        said.append((call["tool_use_id"], r.status_code, r.json()))
                        # A lost ack leaves the held run waiting: fail now, with what the worker said.
                        assert r.status_code == 200, (n, said)

                    body = {"message": f"go {n}", "hold": True}
                    messages = await _stream(c, first + "/agent/run", body, {"awaiting_frontend_acks": ack})
                    seen.append((said, text_of(messages)))
            return seen

        seen = asyncio.run(go())
    for n, (said, text) in enumerate(seen):
        assert said == [(f"toolu_race_{n}", 200, {"ok": True})], (n, said)
        assert "You answered: yes." in text, (n, text)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_results_posted_to_another_worker_the_instant_a_pause_is_shown_are_taken(kind, tmp_path, request):
    """Without `hold`, a pause is shown once the run let go of the session (its lease and last save):
    results sent to another worker at once were refused as busy (409) while the first still held it."""
    store = _store(kind, tmp_path, request)
    with (
        serve_process("race_agents:confirm_agent", store) as (first, _),
        serve_process("race_agents:confirm_agent", store) as (second, _),
    ):

        async def go() -> list[tuple[Any, str]]:
            seen: list[tuple[Any, str]] = []
            async with httpx.AsyncClient(headers=AUTH, timeout=60) as c:
                for n in range(RUNS):
                    said: list[Any] = []
                    meta: dict[str, Any] = {}

                    async def started(data: str, meta: dict[str, Any] = meta) -> None:
                        meta.update(element(data))

                    async def answer(
                        data: str, n: int = n, said: list[Any] = said, meta: dict[str, Any] = meta
                    ) -> None:
                        [call] = element(data)
                        body = {
                            "agent_uuid": meta["agent_uuid"],
                            "tool_results": [{"tool_use_id": call["tool_use_id"], "content": "yes"}],
                        }
                        async with c.stream("POST", second + "/agent/tool_results", json=body) as r:
                            reply = (await r.aread()).decode()
                        said.append((call["tool_use_id"], r.status_code))
                        assert r.status_code == 200, (n, said, reply)
                        said.append(text_of(parse_sse(reply)))

                    body = {"message": f"go {n}", "hold": False}
                    acts = {"meta_init": started, "awaiting_frontend_tools": answer}
                    await _stream(c, first + "/agent/run", body, acts)
                    seen.append((said, ""))
            return seen

        seen = asyncio.run(go())
    for n, (said, _) in enumerate(seen):
        assert said[0] == (f"toolu_race_{n}", 200), (n, said)
        assert "You answered: yes." in said[1], (n, said)
