"""The AG-UI stream of one request: its events encoded as Server-Sent Events, kept alive, redacted.

RUN_STARTED (protocol "1.0"); the opening MESSAGES_SNAPSHOT when the thread has a history (the
messages as the client holds them, so results can name calls of earlier runs); the run's events
(`Translator`), among them a `CUSTOM` `notebook_tools.ask` for each question a running call asks
the person, once it is held (answerable on any worker), and `notebook_tools.ask_closed` once it
closed (or when the run ended with it open: "cancelled"; see `_mcp_asks`); then STATE_SNAPSHOT
(`agentUuid`, `status`, `interrupts`, `pendingToolCalls`, `revision`), the closing
MESSAGES_SNAPSHOT and RUN_FINISHED. Its outcome, as AG-UI 1.0 defines them:
"interrupt" with the approvals waiting (`confirmation:<id>`); "cancelled" after a Stop; else
"success", listing the client tool calls left for the application to answer (`pendingToolCallIds`).
`result` is the thread's `status` and `stopReason` (why the turn ended, when one ran); `usage` the
run's own tokens. A run that fails ends with RUN_ERROR, its text redacted (`_http.redact`); every
frame is redacted too, and a silence of `KEEPALIVE` seconds (a long tool call) is an SSE comment.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.responses import Response, StreamingResponse

from .._exceptions import AgentBusyError, StaleSessionError
from ..agent._agent import Agent
from ..events._events import PromptChanged, _Event
from ._agui_events import Translator, token_usage
from ._agui_interrupts import interrupts_of, pending_calls
from ._agui_messages import now_ms, snapshot
from ._http import redact
from ._mcp_asks import ASK_CLOSED_EVENT, ASK_EVENT, MCPAsks, ask_value, asked
from ._runs import Run
from ._server import Server

__all__ = ["KEEPALIVE", "PROTOCOL_VERSION", "ask_events", "asks_left", "respond", "sse_response"]

KEEPALIVE = 15.0
"""Seconds of silence (a long tool call) after which the stream sends an SSE comment."""
PROTOCOL_VERSION = "1.0"
RACE_LOST = (
    "another request changed this thread while the run went on; the run stopped and saved nothing more"
)


def respond(
    server: Server,
    body: RunAgentInput,
    agent: Agent,
    run: Run | None,
    translator: Translator,
    opening: list[BaseEvent] | None = None,
) -> Response:
    secrets = (server.token,) if server.token else ()
    return sse_response(_events(body, agent, run, translator, opening or []), secrets)


def sse_response(events: AsyncIterator[BaseEvent], secrets: tuple[str, ...]) -> Response:
    """`events` encoded as Server-Sent Events and redacted, with a keepalive comment in long silences.

    A client that goes away cancels the task reading `events` (the run's Stop semantics are theirs).
    """
    encoder = EventEncoder()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in events:
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
    yield RunStartedEvent(**ids, protocol_version=PROTOCOL_VERSION, timestamp=now_ms())
    for event in opening:
        yield event
    stop_reason: str | None = None  # no turn ran: a repeated resume reports the thread as it stands
    if run is not None:
        shown: dict[str, str] = {}  # the in-call prompts shown and not closed yet: their public ids
        async for core in run:
            for event in translator.feed(core):
                yield event
            async for event in ask_events(run.asks, run.until_held, core, translator, shown):
                yield event
        for event in translator.close():
            yield event
        for event in asks_left(run.asks, shown):
            yield event
        if run.error is not None or run.result is None:  # (no result: the run was cancelled under it)
            error = run.error if run.error is not None else AgentBusyError("the run was cancelled")
            name = type(error).__name__
            used = token_usage(translator.usage, agent.state.usage, agent.model)
            said = (
                RACE_LOST if isinstance(error, StaleSessionError) else str(error)
            )  # (its text names the store)
            message = redact(f"{name}: {said}")
            yield RunErrorEvent(message=message, code=name, usage=used, timestamp=now_ms())
            return
        stop_reason = run.result.stop_reason
    state = agent.state
    interrupts = interrupts_of(state, agent.tools)
    pending = [p.tool_use_id for p in state.pending_frontend_tools]
    yield StateSnapshotEvent(
        snapshot={
            "agentUuid": state.agent_uuid,
            "status": state.status,
            "interrupts": [i.id for i in interrupts],
            "pendingToolCalls": pending_calls(state, agent.tools),
            "revision": state.revision,
        },
        timestamp=now_ms(),
    )
    yield snapshot(state)
    outcome: Any
    if interrupts:
        outcome = RunFinishedInterruptOutcome(interrupts=interrupts)
    elif stop_reason == "stopped" and not pending:
        outcome = RunFinishedCancelledOutcome()
    else:
        outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=pending or None)
    used = token_usage(translator.usage, state.usage, agent.model)
    result = {"status": state.status, **({"stopReason": stop_reason} if stop_reason else {})}
    yield RunFinishedEvent(**ids, outcome=outcome, result=result, usage=used, timestamp=now_ms())


async def ask_events(
    asks: MCPAsks | None,
    until_held: Callable[[list[str]], Awaitable[None]],
    core: _Event,
    translator: Translator,
    shown: dict[str, str],
) -> AsyncIterator[BaseEvent]:
    """`notebook_tools.ask` for an in-call prompt that opened (once held), `ask_closed` once it closed.

    `shown` holds the prompts shown and not closed yet (their public ids, by their own).
    """
    if asks is None:
        return
    prompt = asked(asks, core, set(shown))
    if prompt is not None:
        public = asks.public_id(prompt.tool_use_id)
        await until_held([public])  # an ack may go to any worker the instant the client hears of it
        shown[prompt.tool_use_id] = public
        call = asks.call_of(
            prompt.tool_use_id, lambda c: c in translator.known_calls and c not in translator.results_sent
        )
        value = ask_value(prompt, public, asks.category(prompt), call)
        yield CustomEvent(name=ASK_EVENT, value=value, timestamp=now_ms())
        return
    if (
        isinstance(core, PromptChanged)
        and core.prompt.status != "pending"
        and core.prompt.tool_use_id in shown
    ):
        yield _closed(shown.pop(core.prompt.tool_use_id), core.prompt.status)


def asks_left(asks: MCPAsks | None, shown: dict[str, str]) -> list[BaseEvent]:
    """`ask_closed` for the prompts still shown when the run ended (asked to the end: closed with it)."""
    return [_closed(public, _status(asks, own)) for own, public in sorted(shown.items())]


def _closed(public: str, status: str) -> CustomEvent:
    return CustomEvent(name=ASK_CLOSED_EVENT, value={"id": public, "status": status}, timestamp=now_ms())


def _status(asks: MCPAsks | None, own: str) -> str:
    """How a prompt still open when its run ended stands (cancelled: nobody answers it any more)."""
    prompt = asks.broker.prompts.get(own) if asks is not None else None
    return prompt.status if prompt is not None and prompt.status != "pending" else "cancelled"
