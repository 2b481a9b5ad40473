"""What every route of the app shares: the runner, the token, the limits and defaults.

Its own module so the route modules (`_reference`, `_agui`) and the app that gathers them all
import it downward; the app imports the routes, never the other way round.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ._acks import AckBody
from ._client_left import watching
from ._external import ExternalAgents, is_external, takes_thread
from ._http import Limits, as_refusal, check_token, read_body, refusal
from ._runs import Runner

__all__ = ["Endpoint", "Server"]

Endpoint = Callable[[Request], Awaitable[Response]]


class Server:
    """What the routes share: the runner, the token, the limits and defaults."""

    def __init__(self, runner: Runner, token: str | None, limits: Limits, hold: bool) -> None:
        self.runner = runner
        self.token = token
        self.limits = limits
        self.hold = hold
        self._external: ExternalAgents | None = None
        self._known = False
        """Whether the factory was asked what it makes (see `external`)."""

    def external(self) -> ExternalAgents | None:
        """The app's external agents when its factory makes those (Claude Code, ACP), else None.

        The factory is asked once, on the first request that needs to know (its agent is kept for
        the first thread); a factory that fails is asked again on the next request. A factory that
        takes a `thread_id` makes external agents, one per thread, and is not asked.
        """
        if not self._known:
            runner = self.runner
            if takes_thread(runner.make_agent):  # (an agent per thread, made with the thread's id)
                self._external = ExternalAgents(runner.make_agent, runner.acks, runner.ask_timeout)
            else:
                made: Any = runner.make_agent()  # (typed as nt.Agent's factory; may make another kind)
                if is_external(made):
                    self._external = ExternalAgents(runner.make_agent, runner.acks, runner.ask_timeout, made)
            self._known = True
        return self._external

    async def aclose(self) -> None:
        """The app shuts down: its external agents end (their open cards denied)."""
        if self._external is not None:
            await self._external.aclose()

    def guarded(self, endpoint: Endpoint) -> Endpoint:
        """`endpoint` behind the token check, with refusals answered as JSON.

        An exception that refuses a request before it changed anything (an unknown session, wrong
        ids, a stale pause: see `as_refusal`) is answered with its 4xx wherever it is raised.
        """

        async def guarded(request: Request) -> Response:
            try:
                check_token(request, self.token)
                with watching(request):  # (a run started here keeps how to ask whether its client left)
                    return await endpoint(request)
            except Exception as exc:
                refused = as_refusal(exc)
                if refused is None:
                    raise
                return refusal(refused, self.token)

        return guarded

    async def ack(self, request: Request) -> Response:
        """`POST /api/tools/ack`: a frontend-executed call's result (see `_acks`)."""
        body = await read_body(request, AckBody, self.limits)
        status, answer = await self.runner.acks.ack(body)
        if status == 404:  # not a call of this worker's: the worker holding it answers
            status, answer = await self.runner.mailbox.forward_ack(body) or (status, answer)
        return JSONResponse(answer, status_code=status)
