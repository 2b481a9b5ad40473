"""A worker SIGKILLed mid-run: another worker carries its session on once the lease lapses.

Two servers (`python -m notebook_tools serve`, one worker each) share one store, on SQLite and on a
real PostgreSQL. A run streams from the first; the test kills it with SIGKILL while a backend tool
runs, or while the model's reply streams. While the dead worker's lease is live the second server
reports the thread as it stands ("running"); once it lapsed, the same request carries the session on
there: the tool runs again (at-least-once) or the reply is asked for again,
and the history holds the person's message once and a valid exchange.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.http_helpers import AUTH, serve_process
from tests.support.kill_agents import STREAMED
from tests.support.readiness import wait_until

LEASE = 2.0
THREAD = "killed-1"
USER = {"id": "u1", "role": "user", "content": "Crunch the sales table."}


def _store(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'sessions.sqlite'}"
    return str(request.getfixturevalue("fresh_postgres_url"))


def _run_input(run: str) -> dict[str, Any]:
    return {"threadId": THREAD, "runId": run, "messages": [USER]}


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.split("\n") if line.startswith("data: ")]


def _stream_in_background(url: str, seen: list[str]) -> threading.Thread:
    """POST the first run and read its stream in a thread (it breaks when the worker dies)."""

    def read() -> None:
        try:
            with httpx.stream("POST", url + "/agui", json=_run_input("r1"), headers=AUTH, timeout=120) as r:
                for line in r.iter_lines():
                    seen.append(line)
        except httpx.HTTPError:
            seen.append("(the connection broke)")

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _carry_on(url: str, started: float) -> tuple[list[dict[str, Any]], list[int], float]:
    """Ask the second server to carry the thread on until it does; its events, the refusals, the wait."""
    refused: list[int] = []

    def attempt() -> list[dict[str, Any]] | None:
        r = httpx.post(url + "/agui", json=_run_input(f"r{len(refused) + 2}"), headers=AUTH, timeout=120)
        if r.status_code == 409:
            assert "POST /agui/stop" in r.json()["error"]  # a route an HTTP client can use
            refused.append(409)
            return None
        assert r.status_code == 200, r.text
        found = _events(r.text)
        if "stopReason" not in found[-1]["result"]:  # no turn ran: the dead worker's lease is still live,
            refused.append(200)  # so the thread was reported as it stands
            return None
        return found

    found = wait_until(attempt, "the second server to carry the session on", poll=0.2, ceiling=120)
    return found, refused, time.monotonic() - started


def _history(url: str) -> dict[str, Any]:
    r = httpx.get(f"{url}/agent/sessions/{THREAD}", headers=AUTH, timeout=30)
    assert r.status_code == 200, r.text
    return dict(r.json())


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_worker_killed_during_a_backend_tool_is_carried_on_by_another(kind, tmp_path, request):
    store = _store(kind, tmp_path, request)
    env = {"NT_KILL_DIR": str(tmp_path)}
    with (
        serve_process("kill_agents:crunch_agent", store, lease=LEASE, env=env) as (first, doomed),
        serve_process("kill_agents:crunch_agent", store, lease=LEASE, env=env) as (second, _),
    ):
        seen: list[str] = []
        reader = _stream_in_background(first, seen)
        wait_until(lambda: list(tmp_path.glob("crunch-run-0-*")), "the tool to start on the first server")
        doomed.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        doomed.wait(30)
        reader.join(30)
        assert not any("RUN_FINISHED" in line for line in seen)  # the first run never ended

        found, refused, waited = _carry_on(second, killed)
        types = [e["type"] for e in found]
        assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED", types
        [result] = [e for e in found if e["type"] == "TOOL_CALL_RESULT"]
        assert result["content"] == "crunched sales"  # the queued call ran again (at-least-once)
        assert found[-1]["outcome"] == {"type": "success"}
        assert (
            "".join(e["delta"] for e in found if e["type"] == "TEXT_MESSAGE_CONTENT")
            == "Done: crunched sales"
        )
        assert len(list(tmp_path.glob("crunch-run-*"))) == 2
        snapshot = [e for e in found if e["type"] == "MESSAGES_SNAPSHOT"][-1]["messages"]
        assert [m["role"] for m in snapshot] == ["user", "assistant", "tool", "assistant"]
        assert snapshot[0]["id"] == "u1"  # the person's message, once, under the client's id
        assert _history(second)["status"] == "idle"
        assert waited < 60, f"carried on {waited:.1f} s after the kill (lease {LEASE} s)"
        print(f"{kind}: carried on {waited:.2f} s after the kill, after {len(refused)} busy answers")


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_worker_killed_while_the_reply_streams_is_carried_on_by_another(kind, tmp_path, request):
    store = _store(kind, tmp_path, request)
    env = {"NT_KILL_DIR": str(tmp_path)}
    with (
        serve_process("kill_agents:slow_agent", store, lease=LEASE, env=env) as (first, doomed),
        serve_process("kill_agents:slow_agent", store, lease=LEASE, env=env) as (second, _),
    ):
        seen: list[str] = []
        reader = _stream_in_background(first, seen)
        wait_until(
            lambda: any("TEXT_MESSAGE_CONTENT" in line for line in seen), "the reply to start streaming"
        )
        doomed.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        doomed.wait(30)
        reader.join(30)
        assert not any("RUN_FINISHED" in line for line in seen)

        found, _refused, waited = _carry_on(second, killed)
        assert found[-1]["type"] == "RUN_FINISHED" and found[-1]["outcome"] == {"type": "success"}
        text = "".join(e["delta"] for e in found if e["type"] == "TEXT_MESSAGE_CONTENT")
        assert text == STREAMED  # asked again, and whole
        snapshot = [e for e in found if e["type"] == "MESSAGES_SNAPSHOT"][-1]["messages"]
        assert [(m["id"], m["role"]) for m in snapshot] == [("u1", "user"), ("msg_1", "assistant")]
        assert len(list(tmp_path.glob("request-*"))) == 2
        assert waited < 120
