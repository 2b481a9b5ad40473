"""Two requests answering one pause at once: one wins, the other is always 409 naming the winner's answer.

The README promises it: of two requests answering one pause exactly one wins and the other gets 409
and changes nothing. A hundred double resumes in one process (the two requests interleave at every
await), and a hundred against two worker processes on one SQLite file (they race for real).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

import notebook_tools as nt
from notebook_tools.server import create_app
from tests.support.http_helpers import AUTH, TOKEN, element, elements, parse_sse, serve_process, text_of
from tests.support.server_agents import confirm_agent
from tests.support.server_requests import client, valid

ROUNDS = 100


async def _pause(c: httpx.AsyncClient) -> tuple[str, str]:
    """Start a session that waits for one `user_confirm`; its agent_uuid and the call's id."""
    r = await c.post("/agent/run", json={"message": "go"})
    assert r.status_code == 200, r.text
    messages = parse_sse(r.text)
    [call] = elements(messages, "awaiting_frontend_tools")[0]
    return element(messages[0][1])["agent_uuid"], call["tool_use_id"]


async def _double(c: httpx.AsyncClient, other: httpx.AsyncClient) -> dict[str, Any]:
    """Answer one pause twice at once ("yes" and "no"); what each got."""
    agent_uuid, call = await _pause(c)

    def answer(content: str) -> dict[str, Any]:
        return {"agent_uuid": agent_uuid, "tool_results": [{"tool_use_id": call, "content": content}]}

    yes, no = await asyncio.gather(
        c.post("/agent/tool_results", json=answer("yes")),
        other.post("/agent/tool_results", json=answer("no")),
    )
    return {"agent_uuid": agent_uuid, "call": call, "yes": yes, "no": no}


def _check(round_: dict[str, Any], statuses: list[tuple[int, int]]) -> None:
    yes, no, call = round_["yes"], round_["no"], round_["call"]
    statuses.append((yes.status_code, no.status_code))
    assert sorted((yes.status_code, no.status_code)) == [200, 409], (yes.text[:300], no.text[:300])
    winner, loser = ("yes", no) if yes.status_code == 200 else ("no", yes)
    refused = loser.json()
    assert "nothing was changed" in refused["error"] and "answered" in refused["error"], refused
    assert refused["answered"] == {call: {"content": winner, "is_error": False}}  # the winner's answer named
    assert refused["thread_status"] == "idle"
    assert f"You answered: {winner}." in text_of(parse_sse((yes if winner == "yes" else no).text))


def test_a_hundred_double_resumes_in_one_process_every_loser_is_409_naming_the_winner():
    store = nt.InMemoryStore()
    app = create_app(confirm_agent, store=store, token=TOKEN)
    statuses: list[tuple[int, int]] = []

    async def go() -> None:
        async with client(app) as c:
            for _ in range(ROUNDS):
                _check(await _double(c, c), statuses)

    asyncio.run(go())
    assert len(statuses) == ROUNDS
    for agent_uuid in store.list_sessions():
        state = store.load(agent_uuid)
        valid(state)
        answered = [b for m in state.messages for b in m["content"] if b.get("type") == "tool_result"]
        assert len(answered) == 1  # applied once


def test_a_hundred_double_resumes_across_two_workers_every_loser_is_409_naming_the_winner(tmp_path):
    statuses: list[tuple[int, int]] = []
    with serve_process("server_agents:confirm_agent", f"sqlite:{tmp_path / 's.sqlite'}", workers=2) as (
        base,
        _,
    ):

        async def go() -> None:
            async with (
                httpx.AsyncClient(base_url=base, headers=AUTH, timeout=60) as c,
                httpx.AsyncClient(base_url=base, headers=AUTH, timeout=60) as other,
            ):
                for _ in range(ROUNDS):
                    _check(await _double(c, other), statuses)

        asyncio.run(go())
    assert len(statuses) == ROUNDS
    store = nt.SQLiteStore(tmp_path / "s.sqlite")
    for agent_uuid in store.list_sessions():
        state = store.load(agent_uuid)
        valid(state)
        assert sum(b.get("type") == "tool_result" for m in state.messages for b in m["content"]) == 1
