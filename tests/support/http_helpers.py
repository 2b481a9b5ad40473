"""Helpers for the HTTP server tests: SSE parsing, the reference elements, live uvicorn servers."""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn

try:
    from tests.support.readiness import wait_until
except ImportError:  # imported as a top-level module (tests/support on sys.path: benchmarks, served apps)
    from readiness import wait_until  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-" + "x" * 20
AUTH = {"Authorization": f"Bearer {TOKEN}"}
_ATTR = re.compile(r'data="([^"]*)"')


def parse_sse(text: str) -> list[tuple[str, str]]:
    """(event, data) of every message of an SSE body (comments and pings skipped)."""
    out = []
    for block in re.split(r"\r?\n\r?\n", text):
        event, data = "message", []
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
        if data:
            out.append((event, "\n".join(data)))
    return out


def element(data: str) -> Any:
    """The JSON in an element's `data` attribute."""
    found = _ATTR.search(data)
    assert found, data
    return json.loads(html.unescape(found.group(1)))


def elements(messages: list[tuple[str, str]], kind: str) -> list[Any]:
    """The data of every element named `kind`."""
    return [element(data) for event, data in messages if event == kind]


async def read_sse(
    c: httpx.AsyncClient, url: str, body: dict[str, Any], acts: dict[str, Callable[[str], Awaitable[Any]]]
) -> list[tuple[str, str]]:
    """POST `body` to `url` and read the SSE stream; `await acts[event](data)` the moment such a message
    arrives (before the next is read). Every (event, data), in order."""
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


def shared_store(kind: str, tmp_path: Path, request: Any) -> str:
    """The URL of a store that servers share: a SQLite file, or a fresh database on the test PostgreSQL."""
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'sessions.sqlite'}"
    return str(request.getfixturevalue("fresh_postgres_url"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def live_server(app: Any, *, lifespan: str = "off") -> Iterator[str]:
    """`app` under uvicorn in a thread on 127.0.0.1; yields its base URL.

    The app's lifespan (its warm-up) is off unless `lifespan="on"`: the tests start many servers.

    The socket is bound here and handed to uvicorn, so no other process can take the port between
    choosing it and listening on it (the other xdist worker picks ports at the same time).
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan=lifespan)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started, "uvicorn to start", poll=0.02, alive=thread.is_alive)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@contextlib.contextmanager
def serve_process(
    agent: str,
    store: str,
    *,
    workers: int = 1,
    hold: bool = False,
    lease: float | None = None,
    ask_timeout: float | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`python -m notebook_tools serve` in a process of its own; yields (base URL, process).

    The port is chosen here and bound by the server a second or two later; should another process
    take it meanwhile, the server is started again on another port (three tries).
    """
    env = {
        **os.environ,
        **(env or {}),
        "NOTEBOOK_TOOLS_SERVER_TOKEN": TOKEN,
        "PYTHONPATH": str(ROOT / "tests" / "support"),
    }
    env.pop("ANTHROPIC_API_KEY", None)
    for attempt in range(3):
        port = free_port()
        cmd = [sys.executable, "-m", "notebook_tools", "serve", agent, "--port", str(port)]
        cmd += ["--store", store, "--workers", str(workers)] + (["--hold"] if hold else [])
        cmd += [] if lease is None else ["--lease", str(lease)]
        cmd += [] if ask_timeout is None else ["--ask-timeout", str(ask_timeout)]
        log = tempfile.TemporaryFile()  # noqa: SIM115 (closed when the server is)
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            if _started(url, proc, log, last=attempt == 2):
                break
        except BaseException:
            _stop(proc, log)
            raise
        _stop(proc, log)
    try:
        yield url, proc
    finally:
        _stop(proc, log)


@contextlib.contextmanager
def two_servers(agent: str, store: str, **kw: Any) -> Iterator[tuple[str, str]]:
    """Two `serve_process` servers (one worker each) on one shared store; yields their base URLs."""
    with serve_process(agent, store, **kw) as (first, _), serve_process(agent, store, **kw) as (second, _):
        yield first, second


def _started(url: str, proc: subprocess.Popen[bytes], log: Any, *, last: bool) -> bool:
    """Whether the server answers /healthz (False: it lost its port to another process).

    Ready means the port answers, however long a loaded machine takes to get there; only a hang
    reaches the ceiling, and the failure shows the server's log.
    """

    def said() -> str:
        log.seek(0)
        return str(log.read().decode(errors="replace"))

    def answers() -> bool:
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(url + "/healthz", timeout=5).status_code == 200
        return False

    try:
        wait_until(
            answers,
            f"the server at {url} to answer /healthz",
            poll=0.1,
            alive=lambda: proc.poll() is None,
            log=said,
        )
    except AssertionError:
        if proc.poll() is not None and "address already in use" in said().lower() and not last:
            return False
        raise
    return True


def _stop(proc: subprocess.Popen[bytes], log: Any) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    log.close()


def text_of(messages: list[tuple[str, str]]) -> str:
    """The model's text in a stream of either formatter."""
    parts = [
        d.removeprefix("<text>").removesuffix("</text>") if d.startswith("<text>") else d
        for e, d in messages
        if e == "text"
    ]
    return (
        html.unescape("".join(parts))
        if any(d.startswith("<text>") for e, d in messages if e == "text")
        else "".join(parts)
    )
