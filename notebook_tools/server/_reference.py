"""The reference frontend-tools contract: a streamed run, `POST /agent/tool_results`, session metadata.

`POST /agent/run` `{"message", "agent_uuid"?, "formatter"?, "hold"?}` and
`POST /agent/tool_results` `{"agent_uuid", "tool_results": [{"tool_use_id", "content",
"is_error"}], "approvals"?: [...]}` answer with Server-Sent Events. The stream opens with
`<meta_init data="{...agent_uuid...}">`; a pause on frontend calls sends one
`<awaiting_frontend_tools data="[...]">` element (the JSON array of
`{tool_use_id, name, input}` HTML-escaped in the attribute) and the stream ends with
`<meta_final stop_reason="awaiting_frontend_tools" data="{...}">`. The results POST must
carry exactly the pending ids; otherwise it is refused with a 4xx naming them and the
session is unchanged. `GET /agent/sessions/{agent_uuid}` gives the state metadata.

An app serving an external agent (Claude Code, an ACP agent: see `_external`) runs a turn per
`POST /agent/run` (a new session without `agent_uuid`); each card the agent opens while the turn runs
is one `awaiting_frontend_acks` element (`{tool_use_id, name, input, expires_at, output_schema,
renderer}`, an approval card adding `kind`, `preview`, `scope`), answered by `POST /api/tools/ack`
as the turn goes on; `/agent/tool_results` and `/agent/continue` are refused (409): nothing waits for
them. The session's metadata lists its open cards (`asks`).

Formatters (`_frames`): "xml" (the default) frames everything as an element, model text
escaped inside `<text>`, so no text the model writes can pass for a control element; "raw"
sends the model's text as it is (SSE event `text`) and frames only the control elements.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .._exceptions import StaleSessionError, ToolResultIdsError
from ..agent._agent import Agent
from ..events._events import AwaitingFrontendTools, TextDelta, _Event
from ..events._reply_events import AssistantBlock
from ..session._state import AgentState, RunResult, ToolResult
from ..session._transitions import open_calls
from ..tools._approvals import ApprovalDecision
from ._external import ExternalAgents, ExternalRun, ExternalThread
from ._frames import Frames, frames_for
from ._http import AnId, HTTPRefusal, read_body, redact
from ._leases import WORKER_LOST, load_state
from ._mcp_asks import ask_frame, asked
from ._races import answered, lost_race
from ._runs import Run
from ._server import Server

__all__ = ["reference_routes"]

_ID = Field(min_length=1, max_length=200)
_RACE_WAIT = 5.0
"""Seconds a request refused because another run has the session waits to name that run's answers."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    formatter: Literal["xml", "raw"] = "xml"
    hold: bool | None = None


class RunBody(_Body):
    """`POST /agent/run`."""

    message: str = Field(min_length=1)
    agent_uuid: AnId | None = None


class SessionBody(_Body):
    """`POST /agent/continue` and `POST /agent/stop` (which streams nothing: its formatter is not read)."""

    agent_uuid: AnId


class ResultItem(BaseModel):
    """One frontend call's result, as the reference contract sends it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    tool_use_id: str = _ID
    content: str
    is_error: bool = False


class ToolResultsBody(_Body):
    """`POST /agent/tool_results` (approvals may be decided in the same call)."""

    agent_uuid: AnId
    tool_results: list[ResultItem] = Field(default_factory=list, max_length=200)
    approvals: list[ApprovalDecision] = Field(default_factory=list, max_length=200)


def reference_routes(server: Server) -> list[Route]:
    """The reference contract's routes."""
    runner = server.runner

    async def run(request: Request) -> Response:
        body = await read_body(request, RunBody, server.limits)
        if len(body.message) > server.limits.max_message_chars:
            return _refuse(413, f"the message is over {server.limits.max_message_chars} characters")
        external = server.external()
        if external is not None:  # Claude Code, an ACP agent: a turn, its cards asked as it runs
            return await _external_turn(server, external, body)

        async def message(agent: Agent) -> RunResult:
            if agent.state.queued_calls:  # (this run holds the lease: the run that queued them died)
                agent.cancel_pending(WORKER_LOST)
            return await agent.run(body.message)

        return await _stream(server, body, body.agent_uuid, message)

    async def tool_results(request: Request) -> Response:
        body = await read_body(request, ToolResultsBody, server.limits)
        if server.external() is not None:
            raise HTTPRefusal(409, EXTERNAL_ANSWERS)
        items: list[ToolResult | ApprovalDecision] = [
            ToolResult(tool_use_id=r.tool_use_id, content=r.content, is_error=r.is_error)
            for r in body.tool_results
        ]
        items += body.approvals
        ids = [i.tool_use_id for i in items]
        return await _stream(server, body, body.agent_uuid, lambda agent: agent.resume(items), answering=ids)

    async def carry_on(request: Request) -> Response:
        body = await read_body(request, SessionBody, server.limits)
        if server.external() is not None:
            raise HTTPRefusal(
                409, "this agent's turns end by themselves or by Stop; there is nothing to carry on"
            )
        return await _stream(server, body, body.agent_uuid, lambda agent: agent.continue_turn())

    async def stop(request: Request) -> Response:
        body = await read_body(request, SessionBody, server.limits)
        external = server.external()
        if external is not None:
            return JSONResponse(await external.stop(body.agent_uuid))
        return JSONResponse(await runner.stop(body.agent_uuid))

    async def session(request: Request) -> Response:
        agent_uuid = request.path_params["agent_uuid"]
        if not agent_uuid.isprintable() or len(agent_uuid) > 200:
            return _refuse(422, "an agent_uuid is 1-200 printable characters")
        external = server.external()
        if external is not None:
            thread = external.thread(agent_uuid)
            return _external_session(thread) if thread is not None else _refuse(404, "no such session")
        state = runner.store.load(agent_uuid)
        if state is None:
            return _refuse(404, "no such session")
        return JSONResponse(
            {
                "agent_uuid": state.agent_uuid,
                "status": state.status,
                "revision": state.revision,
                "messages": len(state.messages),
                "pending_frontend_tools": [_call(p) for p in state.pending_frontend_tools],
                "pending_approvals": [p.model_dump(mode="json") for p in state.pending_approvals],
                "usage": state.usage.model_dump(mode="json"),
            }
        )

    return [
        Route("/agent/run", server.guarded(run), methods=["POST"]),
        Route("/agent/tool_results", server.guarded(tool_results), methods=["POST"]),
        Route("/agent/continue", server.guarded(carry_on), methods=["POST"]),
        Route("/agent/stop", server.guarded(stop), methods=["POST"]),
        Route("/agent/sessions/{agent_uuid}", server.guarded(session), methods=["GET"]),
    ]


async def _named_if_answered(server: Server, agent_uuid: str, ids: list[str], wait: float) -> None:
    """Refuse with the winner's answers once the run holding the session applied them (within `wait` s)."""
    deadline = time.monotonic() + wait
    while True:
        now = await load_state(server.runner.store, agent_uuid)
        if now is None:
            return
        _refuse_answered(now, ids)
        if time.monotonic() > deadline or not {c.tool_use_id for c in open_calls(now)} & set(ids):
            return
        await asyncio.sleep(0.02)


def _refuse_answered(state: AgentState, ids: list[str]) -> None:
    """Refuse answers to calls that are closed: 409 when another request answered them (a lost race)."""
    if set(ids) <= set(answered(state, ids)):
        raise lost_race(state, ids)


def _refuse(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def _call(p: Any) -> dict[str, Any]:
    return {"tool_use_id": p.tool_use_id, "name": p.name, "input": p.input}


async def _stream(
    server: Server,
    body: _Body,
    agent_uuid: str | None,
    work: Callable[[Agent], Any],
    answering: list[str] | None = None,
) -> Response:
    """Start the run; refusals before it started are plain HTTP errors, the rest is streamed.

    `answering`: the calls the request answers; when another request answered them first, the
    refusal is 409 naming that request's answers (a lost race), whenever this one finds out. A run
    on the session whose client left unnoticed is stopped first (`Runner.heard`).
    """
    start = lambda: _start(server, body, agent_uuid, work, answering)  # noqa: E731
    return await server.runner.heard(agent_uuid, start)


async def _start(
    server: Server,
    body: _Body,
    agent_uuid: str | None,
    work: Callable[[Agent], Any],
    answering: list[str] | None,
) -> Response:
    hold = server.hold if body.hold is None else body.hold
    agent = server.runner.agent(agent_uuid)  # a refusal here or in start is answered by `guarded`
    if answering and not set(answering) & {c.tool_use_id for c in open_calls(agent.state)}:
        _refuse_answered(agent.state, answering)
    try:
        run = await server.runner.start(agent, lambda: work(agent), hold=hold)
    except (ToolResultIdsError, StaleSessionError, HTTPRefusal) as exc:  # refused as it started (a race)
        if isinstance(exc, HTTPRefusal) and exc.status != 409:
            raise
        if answering:  # the run that has the session may be answering these calls: a lost race, named
            wait = _RACE_WAIT if isinstance(exc, HTTPRefusal) else 0.0  # (the session busy: it may be soon)
            await _named_if_answered(server, agent.agent_uuid, answering, wait)
        raise
    frames = frames_for(body.formatter)
    secrets = (server.token,) if server.token else ()
    return EventSourceResponse(_redacted(_events(run, frames, hold), secrets), ping=15)


async def _redacted(
    frames: AsyncGenerator[dict[str, str]], secrets: tuple[str, ...]
) -> AsyncIterator[dict[str, str]]:
    """Every frame without the token or a key (a tool's error text may carry one)."""
    try:
        async for frame in frames:
            yield {**frame, "data": redact(frame["data"], secrets)}
    finally:  # the client went away: closing the frames stops the run
        await frames.aclose()


async def _events(run: Run, frames: Frames, hold: bool) -> AsyncGenerator[dict[str, str]]:
    agent = run.agent
    yield frames.control("meta_init", {"agent_uuid": agent.agent_uuid, "formatter": frames.name})
    shown: set[str] = set()
    paused: list[dict[str, str]] = []
    async for event in run:
        prompt = asked(run.asks, event, shown)  # a running call asks (an MCP server, a consent card)
        if prompt is not None and run.asks is not None:
            public = run.asks.public_id(prompt.tool_use_id)
            await run.until_held([public])
            yield frames.control("awaiting_frontend_acks", [ask_frame(prompt, public)])
        # Nothing a client sees comes before the state that answers it: a held call is shown once its
        # holder is on record (an ack may go to any worker the instant it is shown), a pause once the run
        # let go of the session (its results may go to any worker at once, and take its lease).
        if isinstance(event, AwaitingFrontendTools):
            if hold:
                await run.until_held([p.tool_use_id for p in event.pending])
            else:
                paused += _frames_of(event, frames, hold)
                continue
        for frame in _frames_of(event, frames, hold):
            yield frame
    for frame in paused:
        yield frame
    result = run.result
    if run.error is not None:  # (redacted with every other frame, by `_redacted`)
        message = f"{type(run.error).__name__}: {run.error}"
        yield frames.control("error", {"type": type(run.error).__name__, "message": message})
    elif result is not None and result.stop_reason == "awaiting_approval":
        yield frames.control("awaiting_approval", [_call(p) for p in result.pending_approvals])
    yield frames.final(_final(agent.agent_uuid, result))


def _frames_of(event: _Event, frames: Frames, hold: bool) -> Iterable[dict[str, str]]:
    if isinstance(event, AwaitingFrontendTools):
        if hold:
            calls = [{**_call(p), "expires_at": _expires(p)} for p in event.pending]
            return [frames.control("awaiting_frontend_acks", calls)]
        return [frames.control("awaiting_frontend_tools", [_call(p) for p in event.pending])]
    return frames.content(event)


EXTERNAL_ANSWERS = (
    "this agent asks inside its running turn: answer each card of `awaiting_frontend_acks` with "
    "POST /api/tools/ack; nothing here waits for tool results"
)


async def _external_turn(server: Server, external: ExternalAgents, body: RunBody) -> Response:
    """`POST /agent/run` on an app serving an external agent: one turn, its cards asked as it runs.

    A new thread without `agent_uuid`; one this worker does not hold is 404, a busy one 409.
    """
    thread = external.open() if body.agent_uuid is None else await external.taken_up(body.agent_uuid)
    if thread is None:
        raise HTTPRefusal(404, "no such session here: start one without agent_uuid")
    run = await external.start(thread, body.message)
    frames = frames_for(body.formatter)
    secrets = (server.token,) if server.token else ()
    return EventSourceResponse(_redacted(_external_events(thread, run, frames), secrets), ping=15)


async def _external_events(
    thread: ExternalThread, run: ExternalRun, frames: Frames
) -> AsyncGenerator[dict[str, str]]:
    """The reference stream of an external agent's turn: its text and calls, each card as it opens."""
    yield frames.control("meta_init", {"agent_uuid": thread.id, "formatter": frames.name})
    shown: set[str] = set()
    async for event in run:
        prompt = asked(thread.asks, event, shown)
        if prompt is not None:
            public = thread.asks.public_id(prompt.tool_use_id)
            yield frames.control("awaiting_frontend_acks", [ask_frame(prompt, public)])
            continue
        if (
            isinstance(event, AssistantBlock)
            and event.block.get("type") == "text"
            and (event.request, event.index) not in run.streamed
        ):  # given whole, not streamed (Claude Code's): its one delta
            event = TextDelta(text=str(event.block.get("text", "")), request=event.request, index=event.index)
        for frame in frames.content(event):
            yield frame
    if run.error is not None:  # (redacted with every other frame, by `_redacted`)
        message = f"{type(run.error).__name__}: {run.error}"
        yield frames.control("error", {"type": type(run.error).__name__, "message": message})
    result = run.result
    final = {"agent_uuid": thread.id, "stop_reason": result.stop_reason if result else "error"}
    yield frames.final({**final, "usage": thread.usage().model_dump(mode="json")})


def _external_session(thread: ExternalThread) -> Response:
    """`GET /agent/sessions/{agent_uuid}` of an external agent's thread: where it stands, its open cards."""
    return JSONResponse(
        {
            "agent_uuid": thread.id,
            "session_id": thread.agent.session_id,
            "status": "running" if thread.running else "idle",
            "messages": len(thread.history()),
            "asks": [ask_frame(p, thread.asks.public_id(p.tool_use_id)) for p in thread.open_asks()],
            "usage": thread.usage().model_dump(mode="json"),
        }
    )


def _expires(p: Any) -> float | None:
    return None if p.timeout is None else p.requested_at + p.timeout


def _final(agent_uuid: str, result: RunResult | None) -> dict[str, Any]:
    if result is None:
        return {"agent_uuid": agent_uuid, "stop_reason": "error"}
    return {
        "agent_uuid": agent_uuid,
        "stop_reason": result.stop_reason,
        "usage": result.usage.model_dump(mode="json"),
    }
