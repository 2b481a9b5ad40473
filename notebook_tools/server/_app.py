"""The ASGI application: the reference contract, the ack endpoint and AG-UI on one Starlette app.

Every route but `/healthz` needs the bearer token. Every request gets a fresh agent from
the factory on the shared store (see `_runs`), so the app holds no session in memory
and any number of workers, on one machine or several, serve the same sessions.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator
from typing import Literal

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .._exceptions import ConfigurationError
from ..stores._store import InMemoryStore, SessionStore
from ._acks import AckRegistry
from ._agui import agui_routes
from ._http import Limits
from ._leases import DEFAULT_LEASE
from ._reference import reference_routes
from ._runs import AgentFactory, Runner
from ._server import Server
from ._warm import warm_up

__all__ = ["TOKEN_ENV", "check_token_value", "create_app"]

TOKEN_ENV = "NOTEBOOK_TOOLS_SERVER_TOKEN"


def check_token_value(token: str) -> None:
    """Refuse a token that is short, or that no client can send as is in a header."""
    if len(token) < 16:
        raise ConfigurationError("the server token must be at least 16 characters")
    if not all("!" <= c <= "~" for c in token):
        raise ConfigurationError("the server token must be printable ASCII without spaces")


def create_app(
    make_agent: AgentFactory,
    *,
    store: SessionStore | None = None,
    token: str | Literal[False] | None = None,
    limits: Limits | None = None,
    hold: bool = False,
    lease: float = DEFAULT_LEASE,
    warm: bool = True,
    ask_timeout: float | None = None,
) -> Starlette:
    """An ASGI app serving `make_agent`'s agent over HTTP (run it with uvicorn).

    Args:
        make_agent: Returns a new `nt.Agent` for each request (cheap: no I/O). Its store is
            replaced by `store`. Or an external agent (`nt.ClaudeCode`, an ACP agent), made once
            per thread and kept in this process: one worker serves it (see `server/_external.py`);
            its permission cards and questions are answered by `POST /api/tools/ack`. A factory
            that takes a `thread_id` is called with it (to keep each thread's conversation in a
            store under its id, which a restarted server takes up again).
        store: Where sessions live. The default keeps them in this process's memory (one
            worker); give an `nt.SQLiteStore` (one machine) or `nt.PostgresStore` (several)
            for more.
        token: The bearer token requests must carry. None reads `NOTEBOOK_TOOLS_SERVER_TOKEN`
            and, when that is unset, makes a random one (see `app.state.token`); False turns
            the check off (only for a server nobody else can reach).
        limits: Request size limits.
        hold: Runs wait for frontend calls' acks (`POST /api/tools/ack`) instead of ending with
            the awaiting tag; a run's body can say otherwise with `"hold"`.
        lease: Seconds a run's lease on its session lasts unrenewed (a store with leases): how soon a
            session whose worker died is carried on by another.
        warm: Warm the process up when the app starts (its ASGI lifespan), before it takes a request:
            imports, validators and every code path run once on a scripted model (see `_warm`).
        ask_timeout: Seconds a question a running call asks (a consent card, an MCP server's
            elicitation or sampling) waits for the client's ack before it closes unanswered: the
            consent card then sends nothing, the server is told "cancel". None (the default): until
            it is answered, the run is stopped or the client goes away. An external agent's cards
            wait this long when the agent sets no `approval_timeout`; then the call is denied.
    """
    if token is None:
        token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
    if token is not False:
        check_token_value(token)
    runner = Runner(
        make_agent, store if store is not None else InMemoryStore(), AckRegistry(), lease, ask_timeout
    )
    server = Server(runner, token or None, limits or Limits(), hold)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True})

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/api/tools/ack", server.guarded(server.ack), methods=["POST"]),
        *reference_routes(server),
        *agui_routes(server),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if warm:
            app.state.warmed = await warm_up(make_agent, create_app)
        yield
        await server.aclose()  # (an external agent's process ends, its open cards denied)
        await runner.mailbox.close()
        closing = getattr(runner.store, "aclose", None)
        if closing is not None:  # its pools and listener belong to this loop (a later call reconnects)
            with contextlib.suppress(Exception):
                await closing()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.token = token or None
    app.state.runner = runner
    app.state.server = server
    return app
