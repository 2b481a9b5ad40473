"""Agents for the worker-kill tests: a backend tool that hangs on its first run, a reply that streams slowly.

Served by `python -m notebook_tools serve kill_agents:...` (tests/support is on the servers' PYTHONPATH).
`NT_KILL_DIR` names a directory the test and the servers share: the tool marks there that it started,
so the test kills its worker while it runs, and that it ran again when another worker carried on.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import notebook_tools as nt
from notebook_tools import testing as t

STREAMED = "Counting slowly: " + " ".join(str(n) for n in range(400)) + "."


def _dir() -> Path:
    return Path(os.environ["NT_KILL_DIR"])


@nt.tool
def crunch(table: str) -> str:
    """Crunch a table (its first run hangs until its worker is killed; a later run finishes).

    Args:
        table: The table.
    """
    runs = len(list(_dir().glob("crunch-run-*")))
    (_dir() / f"crunch-run-{runs}-{os.getpid()}").touch()
    if runs == 0:
        time.sleep(600)  # the test kills this worker meanwhile
    return f"crunched {table}"


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][-1]["content"]
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def _crunching(body: dict[str, Any]) -> t.Turn:
    results = _results(body)
    if results:
        return t.reply("Done: " + str(results[0].get("content")))
    return t.turn("Crunching.", t.tool_use("crunch", {"table": "sales"}))


def crunch_agent() -> nt.Agent:
    """Calls `crunch` (a backend tool) for a message, then reports its result."""
    script = t.ScriptedTransport(*([_crunching] * 4))
    return nt.Agent(client=script.client(), tools=[crunch])


def _slow(body: dict[str, Any]) -> t.Turn:
    (_dir() / f"request-{len(list(_dir().glob('request-*')))}-{os.getpid()}").touch()
    return t.reply(STREAMED)


def slow_agent() -> nt.Agent:
    """Streams a long reply: slowly the first time (about 40 s, the test kills its worker meanwhile)."""
    first = not list(_dir().glob("request-*"))
    script = t.ScriptedTransport(*([_slow] * 4), text_chunk=4, event_delay=0.1 if first else 0.0)
    return nt.Agent(client=script.client())


def pid_agent() -> nt.Agent:
    """Says which worker process served the request."""
    script = t.ScriptedTransport(t.reply(f"served by {os.getpid()}"))
    return nt.Agent(client=script.client())
