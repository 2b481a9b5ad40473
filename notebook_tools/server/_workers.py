"""Several worker processes on one port, each with a listening socket of its own, and the kernel spreading.

uvicorn's own workers share one listening socket, and whichever worker wakes first accepts every
connection waiting: measured, 106/48/23/23 requests over four workers, and a burst of eight
keep-alive connections all on one of two. Here each worker binds the port itself with
SO_REUSEPORT, so the kernel hands each new connection to one of the workers' sockets, spread
evenly by its address hash. A supervisor keeps the workers running: one that dies (a SIGKILL,
a crash) is started again; SIGINT or SIGTERM stops them all. Where the platform has no
SO_REUSEPORT, `serve` uses uvicorn's workers instead.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import socket
import threading
import time
from typing import Any

from .._exceptions import ConfigurationError

__all__ = ["APP", "reuse_port_available", "run_workers"]

APP = "notebook_tools.server._serve:app_from_env"
BACKLOG = 2048
_CRASH_LOOP = 5
"""Workers that die within a second of starting, in a row, before the supervisor gives up."""


def reuse_port_available() -> bool:
    """Whether this platform lets several sockets listen on one port (Linux, the BSDs, macOS)."""
    return hasattr(socket, "SO_REUSEPORT")


def _socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def _worker(host: str, port: int) -> None:  # pragma: no cover (runs in the worker process)
    import uvicorn

    sock = _socket(host, port)
    sock.listen(BACKLOG)
    config = uvicorn.Config(APP, factory=True, log_level="warning", backlog=BACKLOG)
    uvicorn.Server(config).run(sockets=[sock])


def run_workers(host: str, port: int, workers: int) -> None:
    """Serve `APP` from `workers` processes on `host:port` until SIGINT or SIGTERM.

    Raises:
        ConfigurationError: the port is taken by a process that does not share it, or the workers
            keep dying as they start.
    """
    try:  # a port another program holds fails here, once, not in a loop of dying workers
        _socket(host, port).close()
    except OSError as exc:
        raise ConfigurationError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    context = multiprocessing.get_context("spawn")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    def start() -> Any:
        process = context.Process(target=_worker, args=(host, port), daemon=False)
        process.start()
        return process, time.monotonic()

    running = [start() for _ in range(workers)]
    quick_deaths = 0
    try:
        while not stop.wait(0.2):
            for index, (process, started) in enumerate(running):
                if process.is_alive():
                    continue
                quick_deaths = quick_deaths + 1 if time.monotonic() - started < 1.0 else 0
                if quick_deaths >= _CRASH_LOOP:
                    raise ConfigurationError("the workers die as they start; run with --workers 1 to see why")
                running[index] = start()  # a worker died (killed, or crashed): another takes its place
    finally:
        for process, _ in running:
            with contextlib.suppress(Exception):
                process.terminate()
        for process, _ in running:
            process.join(15)
            if process.is_alive():
                process.kill()
                process.join(5)
