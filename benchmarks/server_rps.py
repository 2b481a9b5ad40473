"""P9: HTTP requests per second for a scripted run with one pause, one and four uvicorn workers.

One "flow" is the reference contract's two requests: `POST /agent/run` (the model asks a
frontend tool; the stream ends with the awaiting tag) and `POST /agent/tool_results` (the
stream resumes and the turn ends). Clients run flows back to back from this process, 16 at a
time, for a fixed time; the servers are `python -m notebook_tools serve` processes on a
SQLite file (the store several workers on one machine share). The baseline is the same
flow without HTTP: `agent.run` and `agent.resume` on the same store in this process. The
clients share this 2-core machine with the workers, so the figure is bound by its CPU:
more workers than cores add no throughput here.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.http_helpers import AUTH, serve_process  # noqa: E402  (the tests' own server starter)

CLIENTS = 16
SECONDS = 8.0
WARM_UP = 4.0
"""Seconds of the same load before measuring, so every worker has served its first requests."""
_ATTR = re.compile(r'<awaiting_frontend_tools data="([^"]*)"')
_INIT = re.compile(r'<meta_init data="([^"]*)"')


async def _flow(client: object) -> None:
    import httpx

    assert isinstance(client, httpx.AsyncClient)
    r = await client.post("/agent/run", json={"message": "clean"})
    agent_uuid = json.loads(html.unescape(_INIT.search(r.text).group(1)))["agent_uuid"]  # type: ignore[union-attr]
    [call] = json.loads(html.unescape(_ATTR.search(r.text).group(1)))  # type: ignore[union-attr]
    body = {
        "agent_uuid": agent_uuid,
        "tool_results": [{"tool_use_id": call["tool_use_id"], "content": "yes"}],
    }
    r = await client.post("/agent/tool_results", json=body)
    assert 'stop_reason="end_turn"' in r.text, r.text[-300:]


async def _load(base: str) -> float:
    """Flows per second over SECONDS with CLIENTS concurrent clients, after WARM_UP seconds of it."""
    import httpx

    limits = httpx.Limits(max_connections=CLIENTS)
    async with httpx.AsyncClient(base_url=base, headers=AUTH, timeout=60, limits=limits) as client:

        async def for_a_while(seconds: float) -> float:
            done = 0
            start = time.perf_counter()
            end = start + seconds

            async def worker() -> None:
                nonlocal done
                while time.perf_counter() < end:
                    await _flow(client)
                    done += 1

            await asyncio.gather(*(worker() for _ in range(CLIENTS)))
            return done / (time.perf_counter() - start)

        await for_a_while(WARM_UP)  # each worker's first requests build validators and the SDK's models
        return await for_a_while(SECONDS)


def _in_process(path: str) -> float:
    from server_agents import confirm_agent

    import notebook_tools as nt

    store = nt.SQLiteStore(path)

    async def flows() -> float:
        done, end, start = 0, time.perf_counter() + SECONDS / 2, time.perf_counter()
        while time.perf_counter() < end:
            agent = confirm_agent()
            agent.store = store
            paused = await agent.run("clean")
            call = paused.pending_frontend_tools[0]
            resumer = confirm_agent()
            resumer.store = store
            await resumer.resume(
                [nt.ToolResult(tool_use_id=call.tool_use_id, content="yes")], paused.agent_uuid
            )
            done += 1
        return done / (time.perf_counter() - start)

    return asyncio.run(flows())


def measure() -> dict[str, float]:
    """Flows per second: in process, and over HTTP with one and four workers."""
    os.environ.setdefault("PYTHONPATH", str(ROOT / "tests"))
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out["in_process"] = _in_process(os.path.join(tmp, "base.sqlite"))
        for workers in (1, 4):
            store = f"sqlite:{os.path.join(tmp, f'w{workers}.sqlite')}"
            with serve_process("server_agents:confirm_agent", store, workers=workers) as (base, _):
                out[f"workers_{workers}"] = asyncio.run(_load(base))
    return out


if __name__ == "__main__":
    print(json.dumps(measure(), indent=1))
