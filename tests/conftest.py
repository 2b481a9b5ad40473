"""Shared fixtures; a guard fails any test that would reach the network beyond this machine."""

from __future__ import annotations

import ipaddress
import logging
import os
import random
import socket
import sys
from pathlib import Path
from typing import Any

import psycopg_pool.base
import pytest
from hypothesis import settings

import notebook_tools as nt
from notebook_tools import testing
from tests.support.pg_server import fresh_postgres_url, postgres_server, postgres_url  # noqa: F401  (fixtures)

# Agent specs such as "server_agents:confirm_agent" name modules of tests/support, as a served app's
# PYTHONPATH does (tests/support/http_helpers.serve_process); in process they resolve the same way.
SUPPORT = str(Path(__file__).resolve().parent / "support")
if SUPPORT not in sys.path:
    sys.path.append(SUPPORT)

# CI runs the same examples every time (a red build must be reproducible); local runs explore new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# psycopg_pool's worker threads draw a jitter from the global RNG whenever they add a connection.
# Hypothesis compares the global RNG's state around each draw of a test's arguments and, unable to
# tell threads apart, took a pool thread's draw for the strategy's (tests/stores/test_pool_rng.py).
psycopg_pool.base.random = random.Random().random  # type: ignore[attr-defined]

_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: Any) -> Any:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            allowed = ipaddress.ip_address(host).is_loopback
        except ValueError:
            allowed = host == "localhost"
        if not allowed:
            raise RuntimeError(f"test tried to reach the network: {address!r}")
    return _real_connect(self, address)


def pytest_collection_finish(session: pytest.Session) -> None:
    """No module imported at collection silences logging (a server script's `logging.disable` at import
    once emptied `caplog` for every later test of its worker)."""
    if logging.root.manager.disable != logging.NOTSET:
        raise pytest.UsageError(
            "logging was disabled while the tests were collected: a module imported by a test calls "
            "logging.disable at import (do it under `if __name__ == '__main__':`)"
        )


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    # The root conftest turns the scripted user on for nbval's kernels; unit tests answer by hand.
    monkeypatch.delenv("NOTEBOOK_TOOLS_SCRIPTED_USER", raising=False)


@pytest.fixture(autouse=True)
def _own_checkpoints(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    # KernelTools pickles undo checkpoints of sessions in lasting stores under the user's cache; tests
    # (and the kernels and servers they start, which inherit the environment) keep theirs here.
    monkeypatch.setenv("NOTEBOOK_TOOLS_CHECKPOINT_DIR", str(tmp_path_factory.getbasetemp() / "checkpoints"))


@nt.tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First number.
        b: Second number.
    """
    return a + b


@pytest.fixture
def kernel(tmp_path):
    """A real ipykernel in tmp_path, spoken to like JupyterLab (see tests/support/kernel_client.py)."""
    from tests.support.kernel_client import KernelSession

    session = KernelSession(cwd=str(tmp_path))
    yield session
    session.close()


@pytest.fixture
def make_agent():
    """Build an agent on a scripted model: make_agent(*steps, **agent_kwargs) -> (agent, script)."""

    def make(*steps: testing.Step, **kwargs: Any) -> tuple[nt.Agent, testing.ScriptedTransport]:
        script = testing.ScriptedTransport(*steps)
        kwargs.setdefault("tools", [add])
        kwargs.setdefault("frontend_tools", [nt.user_confirm, nt.ask_text, nt.select_option, nt.pick_file])
        agent = nt.Agent(client=script.client(), model="claude-test", **kwargs)
        return agent, script

    return make


# -- browser tests: one Chromium per module, one JupyterLab for the session (a module may have its own) --


@pytest.fixture(scope="module")
def browser() -> Any:
    """Debian's Chromium through Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    from tests.support.lab import CHROMIUM_ARGS, chromium_path

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="session")
def _lab_server() -> Any:
    """The session's JupyterLab server, started by the first module that asks (none without one)."""
    servers: list[Any] = []
    yield servers
    for server in servers:
        server.close()


@pytest.fixture(scope="module")
def lab(_lab_server: list[Any], tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One JupyterLab server for all the browser tests, as fresh for each module (its kernels shut down,
    its root emptied, its settings back to the defaults: `Lab.reset`); each test opens its own notebook.
    A server that died (or a reset that failed) is replaced by a new one."""
    from tests.support.lab import Lab

    if not (_lab_server and _lab_server[0].alive):
        for server in _lab_server:
            server.close()
        _lab_server[:] = [Lab(tmp_path_factory.mktemp("lab"))]
    server = _lab_server[0]
    yield server
    try:
        server.reset()
    except Exception:  # a server that cannot be made fresh again is not shared on: the next module starts one
        server.close()
        _lab_server.clear()
