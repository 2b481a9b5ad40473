"""Nothing a client sees comes before the state that answers it is saved: clients that act the instant an event arrives.

Two servers (one worker each) share one store, SQLite or a real PostgreSQL. The client reads the
first's stream and, the very moment an event invites an answer, sends the answer to the second: an
ack for a held call or for an MCP server's question (`awaiting_frontend_acks`), the results of a
pause (`awaiting_frontend_tools`). Each is taken, every time, in many runs: the event was written
only once the call's holder was on record in the store and the run had let go of the session.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from tests.support.http_helpers import (
    AUTH,
    element,
    parse_sse,
    read_sse,
    serve_process,
    shared_store,
    text_of,
    two_servers,
)

RUNS = 50
"""Runs per test: the race this guards against was lost about once in a few dozen runs under load."""


Acts = Callable[[httpx.AsyncClient, int, list[Any]], dict[str, Callable[[str], Awaitable[None]]]]
"""For run `n`: what to do the moment each kind of event arrives (noting what the workers said)."""


def each_run(first: str, runs: int, acts: Acts, *, hold: bool) -> list[tuple[list[Any], str]]:
    """`runs` runs streamed from `first`, the n-th saying "go <n>"; (what was said, the run's text) of each."""

    async def go() -> list[tuple[list[Any], str]]:
        seen: list[tuple[list[Any], str]] = []
        async with httpx.AsyncClient(headers=AUTH, timeout=60) as c:
            for n in range(runs):
                said: list[Any] = []
                body = {"message": f"go {n}", "hold": hold}
                messages = await read_sse(c, first + "/agent/run", body, acts(c, n, said))
                seen.append((said, text_of(messages)))
        return seen

    return asyncio.run(go())


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_an_ack_posted_to_another_worker_the_instant_its_call_is_shown_is_taken(kind, tmp_path, request):
    store = shared_store(kind, tmp_path, request)
    with two_servers("race_agents:confirm_agent", store) as (first, second):

        def acts(
            c: httpx.AsyncClient, n: int, said: list[Any]
        ) -> dict[str, Callable[[str], Awaitable[None]]]:
            async def ack(data: str) -> None:
                [call] = element(data)
                body = {"toolCallId": call["tool_use_id"], "status": "success", "output": "yes"}
                r = await c.post(second + "/api/tools/ack", json=body)
                said.append((call["tool_use_id"], r.status_code, r.json()))
                # A lost ack leaves the held run waiting: fail now, with what the worker said.
                assert r.status_code == 200, (n, said)

            return {"awaiting_frontend_acks": ack}

        seen = each_run(first, RUNS, acts, hold=True)
    for n, (said, text) in enumerate(seen):
        assert said == [(f"toolu_race_{n}", 200, {"ok": True})], (n, said)
        assert "You answered: yes." in text, (n, text)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_results_posted_to_another_worker_the_instant_a_pause_is_shown_are_taken(kind, tmp_path, request):
    """Without `hold`, a pause is shown once the run let go of the session (its lease and last save):
    results sent to another worker at once were refused as busy (409) while the first still held it."""
    store = shared_store(kind, tmp_path, request)
    with two_servers("race_agents:confirm_agent", store) as (first, second):

        def acts(
            c: httpx.AsyncClient, n: int, said: list[Any]
        ) -> dict[str, Callable[[str], Awaitable[None]]]:
            meta: dict[str, Any] = {}

            async def started(data: str) -> None:
                meta.update(element(data))

            async def answer(data: str) -> None:
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

            return {"meta_init": started, "awaiting_frontend_tools": answer}

        seen = each_run(first, RUNS, acts, hold=False)
    for n, (said, _) in enumerate(seen):
        assert said[0] == (f"toolu_race_{n}", 200), (n, said)
        assert "You answered: yes." in said[1], (n, said)


ASKS = 12
"""Runs per store of the MCP question test: each starts an MCP server process."""


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_an_answer_to_an_mcp_servers_question_posted_to_another_worker_at_once_is_taken(
    kind, tmp_path, request
):
    """An MCP server's elicitation during a held run was registered on its own worker only: an ack
    posted anywhere else was a 404, and the question, the same in every session, had the same id in
    every session (one session's ack could reach another's). Clients now know it by an id unique to
    the session, shown once every worker can take its answer."""
    store = shared_store(kind, tmp_path, request)
    with two_servers("race_agents:ask_name_agent", store) as (first, second):

        def acts(
            c: httpx.AsyncClient, n: int, said: list[Any]
        ) -> dict[str, Callable[[str], Awaitable[None]]]:
            async def answer(data: str) -> None:
                [ask] = element(data)
                output = json.dumps({"name": f"Ada {n}"})
                body = {"toolCallId": ask["tool_use_id"], "status": "success", "output": output}
                r = await c.post(second + "/api/tools/ack", json=body)
                said.append((ask["tool_use_id"], r.status_code, r.json()))
                assert r.status_code == 200, (n, said)

            return {"awaiting_frontend_acks": answer}

        seen = each_run(first, ASKS, acts, hold=True)
    ids = [said[0][0] for said, _ in seen]
    assert len(set(ids)) == ASKS, ids  # one id per session, though the question is the same
    for n, (said, text) in enumerate(seen):
        assert [(code, answer) for _, code, answer in said] == [(200, {"ok": True})], (n, said)
        assert f"The server said: hello Ada {n}." in text, (n, text)


def test_two_sessions_asked_the_same_question_at_once_each_get_their_own_answer(tmp_path):
    """One worker, two sessions held at once, both asked the same question by their servers: each
    ack reaches its own session (they shared one id, and the later registration took both acks)."""
    with serve_process("race_agents:ask_name_agent", f"sqlite:{tmp_path / 's.sqlite'}") as (base, _):

        async def one(c: httpx.AsyncClient, who: str, shown: asyncio.Event, both: asyncio.Event) -> str:
            async def answer(data: str) -> None:
                [ask] = element(data)
                shown.set()
                await both.wait()  # both questions are open before either is answered
                body = {
                    "toolCallId": ask["tool_use_id"],
                    "status": "success",
                    "output": json.dumps({"name": who}),
                }
                r = await c.post(base + "/api/tools/ack", json=body)
                assert (r.status_code, r.json()) == (200, {"ok": True}), (who, r.text)

            messages = await read_sse(
                c, base + "/agent/run", {"message": who, "hold": True}, {"awaiting_frontend_acks": answer}
            )
            return text_of(messages)

        async def go() -> list[str]:
            shown = [asyncio.Event(), asyncio.Event()]
            both = asyncio.Event()

            async def when_both() -> None:
                await asyncio.gather(*(e.wait() for e in shown))
                both.set()

            async with httpx.AsyncClient(headers=AUTH, timeout=60) as c:
                waiter = asyncio.ensure_future(when_both())
                texts = await asyncio.gather(one(c, "Ada", shown[0], both), one(c, "Grace", shown[1], both))
                await waiter
                return list(texts)

        ada, grace = asyncio.run(go())
    assert "The server said: hello Ada." in ada and "The server said: hello Grace." in grace


def test_a_kernel_consent_card_in_a_held_run_is_answered_by_ack(tmp_path):
    """The kernel toolset's consent card opens inside a running call, as an MCP server's question
    does: a held run shows it as an `awaiting_frontend_acks` element (before, only an agent with MCP
    servers had its calls' questions shown, and this run waited for ever), and the client's ack (a
    column masked) decides what Claude reads."""
    with serve_process("race_agents:kernel_consent_agent", f"sqlite:{tmp_path / 's.sqlite'}") as (base, _):

        async def go() -> tuple[list[Any], str]:
            said: list[Any] = []
            async with httpx.AsyncClient(headers=AUTH, timeout=60) as c:

                async def answer(data: str) -> None:
                    [ask] = element(data)
                    said.append(ask)
                    output = json.dumps({"send": "mask", "mask": ["island"], "remember": "no"})
                    body = {"toolCallId": ask["tool_use_id"], "status": "success", "output": output}
                    r = await c.post(base + "/api/tools/ack", json=body)
                    assert r.status_code == 200, r.text

                body = {"message": "go 1", "hold": True}
                messages = await read_sse(c, base + "/agent/run", body, {"awaiting_frontend_acks": answer})
            return said, text_of(messages)

        said, text = asyncio.run(go())
    [ask] = said
    assert ask["name"] == "kernel_consent" and ask["tool_use_id"].startswith("consent_toolu_race_1.")
    assert "Torgersen" in ask["input"]["would_send"]  # the client is shown what would go
    assert "Adelie" in text and "Torgersen" not in text and "■■■" in text


def test_serve_ask_timeout_closes_an_unanswered_consent_card_and_nothing_of_the_rows_is_sent(tmp_path):
    """`serve --ask-timeout 1`: a client that never answers the card does not hold the run for ever; the
    card closes unanswered and the data is withheld (fails closed)."""
    store = f"sqlite:{tmp_path / 's.sqlite'}"
    with serve_process("race_agents:kernel_consent_agent", store, ask_timeout=1) as (base, _):

        async def go() -> tuple[list[Any], str]:
            said: list[Any] = []
            async with httpx.AsyncClient(headers=AUTH, timeout=60) as c:

                async def ignore(data: str) -> None:
                    said.extend(element(data))

                body = {"message": "go 1", "hold": True}
                messages = await read_sse(c, base + "/agent/run", body, {"awaiting_frontend_acks": ignore})
            return said, text_of(messages)

        said, text = asyncio.run(go())
    assert [a["name"] for a in said] == ["kernel_consent"] and said[0]["expires_at"] is not None
    assert "Torgersen" not in text and "Adelie" not in text and "withheld" in text
