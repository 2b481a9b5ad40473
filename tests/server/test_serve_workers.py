"""`serve --workers N`: each worker listens on the port itself (SO_REUSEPORT) and the kernel spreads
the connections; a worker that dies is replaced."""

from __future__ import annotations

import collections
import os
import signal

import httpx

from tests.support.http_helpers import AUTH, parse_sse, serve_process, text_of
from tests.support.readiness import wait_until

REQUESTS = 40


def _served_by(base: str) -> int:
    """One request on a connection of its own; the pid of the worker that served it."""
    with httpx.Client(headers=AUTH, timeout=60) as c:
        r = c.post(base + "/agent/run", json={"message": "who?"})
    assert r.status_code == 200, r.text
    return int(text_of(parse_sse(r.text)).rsplit(" ", 1)[1])


def test_connections_spread_over_the_workers_and_a_killed_worker_is_replaced(tmp_path):
    with serve_process("kill_agents:pid_agent", f"sqlite:{tmp_path / 's.sqlite'}", workers=2) as (
        base,
        server,
    ):
        seen = collections.Counter(_served_by(base) for _ in range(REQUESTS))
        assert len(seen) == 2, seen  # both workers took connections (all 40 on one: about 1 in 10^11)
        assert min(seen.values()) >= 5, seen
        assert server.pid not in seen  # the supervisor serves nothing itself
        victim = next(iter(seen))
        os.kill(victim, signal.SIGKILL)

        def replaced() -> bool:
            try:
                served = {_served_by(base) for _ in range(10)}
            except httpx.TransportError:
                # A connection the kernel handed to the killed worker's socket before it was closed
                # is reset: what a client sees while a worker dies, not yet the replacement.
                return False
            return victim not in served and len(served) == 2

        wait_until(replaced, "the killed worker to be replaced by a new one", poll=0.5)
        after = collections.Counter(_served_by(base) for _ in range(REQUESTS))  # none reset once replaced
        assert victim not in after and len(after) == 2, after
