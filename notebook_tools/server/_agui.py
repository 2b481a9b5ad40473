"""AG-UI: `POST /agui` takes a `RunAgentInput` and streams AG-UI events (Server-Sent Events).

The thread is the session: `threadId` is the `agent_uuid`, loaded from the shared store or
created on its first run. Behind the bearer token like every route. Three kinds of input:

- a new message: the last of `messages` is the person's (text only). The server's stored
  history is authoritative, so the client's copy of earlier messages is not read; nor are
  `state`, `context` or `forwardedProps`. A thread with open interrupts refuses it (409).
- a `resume` answering the open interrupts (see `_agui_interrupts`): exactly every open one,
  or 4xx naming the ids and nothing changed; a retry of an applied resume changes nothing
  and reports the thread as it stands (RUN_STARTED, snapshots, RUN_FINISHED).
- AG-UI's classic frontend-tool answer: `messages` ending with `tool` messages whose
  `toolCallId`s are exactly the open frontend calls (`error` makes an error result).

On a resume (either kind) `messages` is not read otherwise. `tools` become schema-only
frontend tools for the request (a name taken by a server tool is refused with 409); send
them on every run, resumes included. Bad input is refused before the stream starts, as a
JSON body naming the problem: 401 token, 404 unknown thread (resumes), 409 a concurrent
request answered first or the thread is paused, 410 an expired interrupt, 413, 415, 422.
(The AG-UI interrupt text, still a draft, asks for RUN_ERROR on a bad resume; an HTTP error
before the stream is what AG-UI clients report as a failed run, and it changes nothing.)

The stream: RUN_STARTED; on a resume, a MESSAGES_SNAPSHOT (so results can name the calls
of the earlier run); TEXT_MESSAGE_START/CONTENT/END as the model writes; TOOL_CALL_START/
ARGS/END for each call of a reply; TOOL_CALL_RESULT for backend results, answers and
denials; at the end STATE_SNAPSHOT (`agentUuid`, `status`, `interrupts`, `revision`) and
MESSAGES_SNAPSHOT (the stored history), then RUN_FINISHED whose outcome is "interrupt" with
every open interrupt, or "success" (`result`: the thread's `status`, and `stopReason`, why
the turn ended, when one ran), with the run's own token `usage`. A run that fails ends with
RUN_ERROR, its text redacted (`_http.redact`). Every frame is redacted too, and a silence
of `KEEPALIVE` seconds (a long tool call) is filled with an SSE comment.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from .._exceptions import ToolDefinitionError, ToolResultIdsError
from ..agent._agent import Agent
from ..session._state import AgentState, RunResult
from ..session._transitions import open_calls
from ..tools._tool import Tool
from ._agui_events import Translator, now_ms, snapshot, token_usage
from ._agui_input import check_ids, client_tools, tool_answers, user_text
from ._agui_interrupts import call_ids, check_expiry, interrupts_of, open_ids, plan
from ._http import HTTPRefusal, read_body, redact
from ._runs import Run
from ._server import Server

__all__ = ["KEEPALIVE", "agui_routes"]

KEEPALIVE = 15.0
"""Seconds of silence (a long tool call) after which the stream sends an SSE comment."""


def agui_routes(server: Server) -> list[Route]:
    """The AG-UI route: `POST /agui`."""

    async def agui(request: Request) -> Response:
        body = await read_body(request, RunAgentInput, server.limits)
        return await _answer(server, body)

    return [Route("/agui", server.guarded(agui), methods=["POST"])]


async def _answer(server: Server, body: RunAgentInput) -> Response:
    check_ids(body)
    tools = client_tools(body)
    thread = body.thread_id
    stored = server.runner.store.load(thread)
    answers = None if body.resume else tool_answers(body)
    if not body.resume and answers is None:  # a new message
        text = user_text(body, server.limits)
        if stored is not None and open_ids(stored):
            raise HTTPRefusal(
                409, "the thread waits for its interrupts: send a resume", interrupts=open_ids(stored)
            )
        agent = _agent(server, thread, tools, create=True)
        return await _start(server, body, agent, lambda: agent.run(text))
    if stored is None:
        raise HTTPRefusal(404, "no such thread (a resume needs a thread with open interrupts)")
    _check_tools(server, stored, tools)
    agent = _agent(server, thread, tools, create=False)
    state = agent.state
    if body.resume:
        decided = plan(state, body.resume)
        items = decided.items
        if decided.replay:
            return _respond(server, body, agent, None, Translator(state.messages))
    else:
        assert answers is not None
        items = _classic(state, answers)
        if not items:
            return _respond(server, body, agent, None, Translator(state.messages))
    return await _start(server, body, agent, lambda: agent.resume(items), resumed=True)


def _classic(state: AgentState, answers: list[Any]) -> list[Any]:
    """Tool messages answering the open frontend calls; [] when they answer calls answered before."""
    if state.pending_approvals:
        raise HTTPRefusal(409, "the thread waits for approvals: send a resume", interrupts=open_ids(state))
    given = [a.tool_use_id for a in answers]
    pending = [p.tool_use_id for p in state.pending_frontend_tools]
    if sorted(given) == sorted(pending) and pending:
        check_expiry(state, [f"tool_call:{a.tool_use_id}" for a in answers if not a.is_error])
        return answers
    done = call_ids(state.messages) - set(pending)
    if given and set(given) <= done and len(set(given)) == len(given):
        return []
    missing = [i for i in pending if i not in given]
    raise HTTPRefusal(
        422,
        "the tool messages must answer exactly the open tool calls",
        missing=missing,
        unknown=[i for i in given if i not in pending],
    )


def _check_tools(server: Server, state: AgentState, tools: list[Tool]) -> None:
    """Refuse a request on a paused thread that does not carry the client tools its open calls use."""
    names = {t.name for t in tools} | set(server.runner.make_agent().tools)
    absent = sorted({c.name for c in open_calls(state)} - names)
    if absent:
        raise HTTPRefusal(422, "send the client tools of the open calls with the request", tools=absent)


def _agent(server: Server, thread: str, tools: list[Tool], *, create: bool) -> Agent:
    try:
        return server.runner.agent(thread, frontend_tools=tools, create=create)
    except ToolDefinitionError as exc:
        raise HTTPRefusal(409, f"a client tool clashes with the server's tools: {exc}") from None


async def _start(
    server: Server,
    body: RunAgentInput,
    agent: Agent,
    work: Callable[[], Awaitable[RunResult]],
    *,
    resumed: bool = False,
) -> Response:
    history = list(agent.state.messages)
    usage = agent.state.usage.model_copy()
    try:
        run = await server.runner.start(agent, work)
    except ToolResultIdsError:  # the session moved on between our check and the resume
        raise HTTPRefusal(409, "another request changed this thread first; nothing was changed") from None
    translator = Translator(history, call_ids(history) if resumed else (), usage)
    return _respond(server, body, agent, run, translator, opening=[snapshot(history)] if resumed else [])


def _respond(
    server: Server,
    body: RunAgentInput,
    agent: Agent,
    run: Run | None,
    translator: Translator,
    opening: list[BaseEvent] | None = None,
) -> Response:
    encoder = EventEncoder()
    secrets = (server.token,) if server.token else ()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in _events(body, agent, run, translator, opening or []):
                queue.put_nowait(redact(encoder.encode(event), secrets))
        finally:
            queue.put_nowait(None)

    async def frames() -> AsyncIterator[str]:
        """The encoded events, with an SSE comment whenever nothing was sent for `KEEPALIVE` seconds."""
        task = asyncio.get_running_loop().create_task(pump())
        try:
            while True:
                try:
                    frame = await asyncio.wait_for(queue.get(), KEEPALIVE)
                except TimeoutError:
                    yield ": keepalive\n\n"
                    continue
                if frame is None:
                    break
                yield frame
            await task  # an error of the stream itself (not of the run) surfaces here
        finally:  # the client went away: cancelling the pump cancels the run (Stop semantics)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(frames(), media_type=encoder.get_content_type(), headers=headers)


async def _events(
    body: RunAgentInput, agent: Agent, run: Run | None, translator: Translator, opening: list[BaseEvent]
) -> AsyncIterator[BaseEvent]:
    ids = {"thread_id": body.thread_id, "run_id": body.run_id}
    yield RunStartedEvent(**ids, timestamp=now_ms())
    for event in opening:
        yield event
    stop_reason: str | None = None  # no turn ran: a repeated resume reports the thread as it stands
    if run is not None:
        async for core in run:
            for event in translator.feed(core):
                yield event
        for event in translator.close():
            yield event
        if run.error is not None:
            name = type(run.error).__name__
            used = token_usage(translator.usage, agent.state.usage, agent.model)
            message = redact(f"{name}: {run.error}")
            yield RunErrorEvent(message=message, code=name, usage=used, timestamp=now_ms())
            return
        if run.result is not None:
            stop_reason = run.result.stop_reason
    state = agent.state
    interrupts = interrupts_of(state, agent.tools)
    yield StateSnapshotEvent(
        snapshot={
            "agentUuid": state.agent_uuid,
            "status": state.status,
            "interrupts": [i.id for i in interrupts],
            "revision": state.revision,
        },
        timestamp=now_ms(),
    )
    yield snapshot(state.messages)
    outcome = (
        RunFinishedInterruptOutcome(interrupts=interrupts) if interrupts else RunFinishedSuccessOutcome()
    )
    used = token_usage(translator.usage, state.usage, agent.model)
    result = {"status": state.status, **({"stopReason": stop_reason} if stop_reason else {})}
    yield RunFinishedEvent(**ids, outcome=outcome, result=result, usage=used, timestamp=now_ms())
