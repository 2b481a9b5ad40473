"""P9's client side: one flow of the reference contract, and the load process the throughput runs start.

A flow is `POST /agent/run` (the model asks `user_confirm`; the stream ends with the awaiting tag)
then `POST /agent/tool_results` (the stream resumes and the turn ends). Run as a script, this file
is one load-generating process: `python benchmarks/p9_load.py '{"base": ..., "conns": ..., ...}'`
keeps `conns` keep-alive connections busy with flows from `start` to `until` (epoch seconds) and
prints how many flows ended between `count_from` and `until`, as JSON.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.http_helpers import AUTH  # noqa: E402  (the token the tests' servers take)

_AWAITING = re.compile(r'<awaiting_frontend_tools data="([^"]*)"')
_INIT = re.compile(r'<meta_init data="([^"]*)"')


def _resume_body(run_text: str) -> dict[str, Any]:
    """The tool_results request that answers the paused run whose stream is `run_text`."""
    init, awaiting = _INIT.search(run_text), _AWAITING.search(run_text)
    assert init and awaiting, run_text[-300:]
    [call] = json.loads(html.unescape(awaiting.group(1)))
    return {
        "agent_uuid": json.loads(html.unescape(init.group(1)))["agent_uuid"],
        "tool_results": [{"tool_use_id": call["tool_use_id"], "content": "yes"}],
    }


def _check_end(resume_text: str) -> None:
    assert 'stop_reason="end_turn"' in resume_text, resume_text[-300:]


def flow(client: httpx.Client) -> tuple[float, float]:
    """One flow; (seconds of the run request, seconds of the tool_results request), sent -> stream read."""
    start = time.perf_counter()
    run = client.post("/agent/run", json={"message": "clean"})
    ran = time.perf_counter()
    body = _resume_body(run.text)
    resumed_at = time.perf_counter()
    resume = client.post("/agent/tool_results", json=body)
    end = time.perf_counter()
    _check_end(resume.text)
    return ran - start, end - resumed_at


async def aflow(client: httpx.AsyncClient) -> None:
    run = await client.post("/agent/run", json={"message": "clean"})
    resume = await client.post("/agent/tool_results", json=_resume_body(run.text))
    _check_end(resume.text)


async def load(base: str, conns: int, start: float, count_from: float, until: float) -> dict[str, int]:
    """Flows ended in [count_from, until], `conns` at a time (epoch seconds, shared by the processes)."""
    limits = httpx.Limits(max_connections=conns, max_keepalive_connections=conns)
    async with httpx.AsyncClient(base_url=base, headers=AUTH, timeout=120, limits=limits) as client:
        await asyncio.sleep(max(0.0, start - time.time()))
        counted = 0

        async def connection() -> None:
            nonlocal counted
            while time.time() < until:
                await aflow(client)
                if count_from <= time.time() <= until:
                    counted += 1

        await asyncio.gather(*(connection() for _ in range(conns)))
    return {"flows": counted}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(load(**json.loads(sys.argv[1])))))
