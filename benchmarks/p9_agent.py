"""P9's served agent: the tests' `confirm_agent`, counting the requests each worker process serves.

The server's responses do not say which worker served them, so every call of the factory (one
per request) appends a byte to `<COUNTS_ENV folder>/<pid>.count`; the size of each file is then
the number of requests that process served. Without the variable set it counts nothing. A
worker builds the agent once more as it warms up (notebook_tools/server/_warm.py, `warm_up`),
before it takes a connection: that call is not a request, so it is not counted.

`serve` loads this file by its path (`benchmarks/p9_agent.py:counted_agent`), in every worker;
`server_agents` comes from tests/support, which `serve_process` puts on the server's PYTHONPATH.
"""

from __future__ import annotations

import os
import sys
from typing import Any

try:
    from server_agents import confirm_agent
except ImportError:  # imported by the bench itself, which has the repository on sys.path
    from tests.support.server_agents import confirm_agent

COUNTS_ENV = "NOTEBOOK_TOOLS_BENCH_COUNTS"
_fd: int | None = None


def counted_agent() -> Any:
    """`confirm_agent()`, after noting that this process served one more request."""
    global _fd
    folder = os.environ.get(COUNTS_ENV)
    if folder and sys._getframe(1).f_code.co_name != "warm_up":  # the worker's own warm-up serves no request
        if _fd is None:  # opened in the worker itself (uvicorn spawns its workers), so the pid is its own
            path = os.path.join(folder, f"{os.getpid()}.count")
            _fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.write(_fd, b".")
    return confirm_agent()
