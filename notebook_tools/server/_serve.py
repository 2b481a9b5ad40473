"""`python -m notebook_tools serve AGENT`: the app under uvicorn, one worker or several.

uvicorn starts each worker by importing `app_from_env`, so the choices travel to the
workers in environment variables. Several workers need a store they all reach (a
SQLite file on one machine, PostgreSQL across machines); the in-memory store would give
each worker sessions of its own, so it is refused with more than one. An external agent (Claude
Code, an ACP agent) lives in the worker that holds its thread, so its factory is refused with more
than one worker too (the factory is called once here to see what it makes).
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import sys

from starlette.applications import Starlette

from .._exceptions import ConfigurationError
from .._loading import agent_factory
from ..stores._sqlite import SQLiteStore
from ..stores._store import InMemoryStore, SessionStore
from ._app import TOKEN_ENV, check_token_value, create_app
from ._external import is_external, takes_thread
from ._leases import DEFAULT_LEASE
from ._workers import APP, reuse_port_available, run_workers

__all__ = ["app_from_env", "serve", "store_from_url"]

AGENT_ENV = "NOTEBOOK_TOOLS_SERVER_AGENT"
STORE_ENV = "NOTEBOOK_TOOLS_SERVER_STORE"
HOLD_ENV = "NOTEBOOK_TOOLS_SERVER_HOLD"
LEASE_ENV = "NOTEBOOK_TOOLS_SERVER_LEASE"
ASK_TIMEOUT_ENV = "NOTEBOOK_TOOLS_SERVER_ASK_TIMEOUT"


def store_from_url(url: str) -> SessionStore:
    """`memory`, `sqlite:PATH` (or `sqlite:///PATH`) or a `postgresql://` conninfo, as a store."""
    if url in ("", "memory"):
        return InMemoryStore()
    if url.startswith("sqlite:"):
        path = url.removeprefix("sqlite:")
        path = path.removeprefix("//") if path.startswith("///") else path
        if not path:  # SQLite would make a private temporary database: sessions lost, never shared
            raise ConfigurationError("--store sqlite:PATH needs the path of the file")
        return SQLiteStore(path)
    if url.startswith(("postgresql://", "postgres://")):
        from ..stores._postgres import PostgresStore

        store: SessionStore = PostgresStore(url)
        return store
    raise ConfigurationError(
        f"--store takes memory, sqlite:PATH or postgresql://..., not {url.split(':')[0]!r}"
    )


def app_from_env() -> Starlette:
    """The app a uvicorn worker serves, from the environment `serve` set."""
    spec = os.environ.get(AGENT_ENV)
    if not spec:
        raise ConfigurationError(f"{AGENT_ENV} names no agent (PATH_OR_MODULE:CALLABLE)")
    store = store_from_url(os.environ.get(STORE_ENV, ""))
    lease = float(os.environ.get(LEASE_ENV) or DEFAULT_LEASE)
    asks = os.environ.get(ASK_TIMEOUT_ENV)
    hold = os.environ.get(HOLD_ENV) == "1"
    return create_app(
        agent_factory(spec), store=store, hold=hold, lease=lease, ask_timeout=float(asks) if asks else None
    )


def serve(
    agent: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    store: str = "memory",
    hold: bool = False,
    lease: float | None = None,
    ask_timeout: float | None = None,
) -> None:
    """Serve the agent `PATH_OR_MODULE:CALLABLE` builds over HTTP until interrupted.

    `ask_timeout`: seconds a question a running call asks (a consent card, an MCP server's form)
    waits for the client before it closes as not answered (the call goes on without the answer:
    nothing is sent); None, until the client answers, stops the run or leaves.

    The bearer token comes from NOTEBOOK_TOOLS_SERVER_TOKEN; without it one is made and
    printed once to this terminal (it is never logged or sent).
    """
    import uvicorn

    if workers > 1 and (store in ("", "memory") or store.removeprefix("sqlite:") == ":memory:"):
        raise ConfigurationError(
            "several workers need a store they share: --store sqlite:PATH or --store postgresql://..."
        )
    try:
        local = ipaddress.ip_address(host).is_loopback
    except ValueError:
        local = host == "localhost"
    build = agent_factory(agent)  # a wrong spec fails here, once, not in every worker
    if workers > 1 and (takes_thread(build) or is_external(build())):
        raise ConfigurationError(
            f"{agent} makes an agent that runs in a process of its own (Claude Code, an ACP agent), which "
            "one worker holds for each thread: an ack or a Stop posted to another worker would not find "
            "its cards; serve it with --workers 1"
        )
    if os.environ.get(TOKEN_ENV):
        check_token_value(os.environ[TOKEN_ENV])  # (else every worker would fail)
    store_from_url(store)
    if lease is not None and not 0.5 <= lease <= 3600:
        raise ConfigurationError("--lease takes 0.5 to 3600 seconds")
    if ask_timeout is not None and not 0 < ask_timeout <= 86_400:
        raise ConfigurationError("--ask-timeout takes more than 0 and up to 86400 seconds")
    os.environ[AGENT_ENV] = agent
    os.environ[LEASE_ENV] = str(lease or DEFAULT_LEASE)
    os.environ[STORE_ENV] = store
    os.environ[HOLD_ENV] = "1" if hold else "0"
    os.environ[ASK_TIMEOUT_ENV] = "" if ask_timeout is None else str(ask_timeout)
    if not os.environ.get(TOKEN_ENV):
        os.environ[TOKEN_ENV] = secrets.token_urlsafe(24)
        print(
            f"notebook_tools: requests need 'Authorization: Bearer {os.environ[TOKEN_ENV]}'", file=sys.stderr
        )
    if not local:
        print(f"notebook_tools: serving on {host}, reachable from other machines", file=sys.stderr)
    if workers > 1 and reuse_port_available():
        run_workers(host, port, workers)  # a socket each: the kernel spreads the connections evenly
        return
    uvicorn.run(APP, factory=True, host=host, port=port, workers=workers, log_level="warning")
