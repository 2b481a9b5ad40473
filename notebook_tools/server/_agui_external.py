"""AG-UI for an external agent (Claude Code, an ACP agent): a turn per person's message, its cards as asks.

The thread is the agent's conversation in this worker (see `_external`); with a factory that takes
the `thread_id`, a thread this worker does not hold is taken up from wherever the factory's agent keeps
it (`nt.ClaudeCode(store=..., session=thread_id)`: a restarted server carries the conversation on),
and the client's ids of the person's messages are matched again with the ones it sends.

A run whose `messages` end with the person's new message (an id the thread does not hold) runs a
turn; any other run reports the thread as it stands (a reloaded page gets its conversation, and the
cards open now in the STATE_SNAPSHOT's `asks`). 409 while a turn is under way on the thread (Stop it
with `POST /agui/stop`); 404 for a thread this worker does not hold (also for a new message on such a
thread when the client holds replies of it: the server restarted, and a new agent would carry on as if
nothing had been said); 422 for client tools (the agent brings its own tools, and nothing would ever
call the client's), a `resume` (the agent's cards are no interrupts: they are asked inside the running
turn) or tool messages answering calls (the agent's calls are answered by its cards).

The stream is the one our own agent's runs have (`_agui_stream`), from the agent's display events:
the person's message and the replies as text and reasoning messages, each of the agent's tool calls
(TOOL_CALL_START/ARGS/END under the agent's own call id) and its result (TOOL_CALL_RESULT). Each
card the agent opens while the turn runs is a `CUSTOM` event `notebook_tools.ask`, shaped like an
interrupt, while the stream stays open (see `_mcp_asks`):

    {"id": "<card id>.<thread>", "reason": "confirmation" (a permission card) | "input_required" (a
     question), "message", "toolCallId"?: the call it is about, "responseSchema", "expiresAt"?,
     "metadata": {"name", "input", "renderer", "answer": {"method": "POST", "path": "/api/tools/ack"},
                  "kind"?, "preview"?, "scope"?}}

The client answers with `POST /api/tools/ack` `{"toolCallId": <id>, "status": "success", "output":
...}`: a permission card's output is the decision `{"approved": true|false, "reason"?,
"edited_input"?, "remember"?: "scope"|"tool"|"arguments"}`, a question's the chosen options (a list)
or the text; `"status": "skipped"` (with an `errorText`) declines, which denies the call. Once the card
closed (answered, cancelled by Stop, timed out) the stream sends `notebook_tools.ask_closed`
`{"id", "status"}`. The run ends with STATE_SNAPSHOT (`agentUuid`, `sessionId`: the agent's own,
`status`, `asks`), the closing MESSAGES_SNAPSHOT and RUN_FINISHED: "cancelled" after a Stop, else
"success"; `result` is `{"status", "stopReason"}` (the turn's: "end_turn", "stopped", "error").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    ToolMessage,
    UserMessage,
)
from starlette.responses import Response

from ._agui_events import Translator, token_usage
from ._agui_input import check_ids, new_message, tool_answers
from ._agui_interrupts import call_ids
from ._agui_messages import message_id, messages_of, now_ms, opening_snapshots, snapshot
from ._agui_stream import PROTOCOL_VERSION, ask_events, asks_left, sse_response
from ._external import ExternalAgents, ExternalRun, ExternalThread, held_here
from ._http import HTTPRefusal, redact
from ._mcp_asks import ask_value
from ._server import Server

__all__ = ["answer_external"]


async def answer_external(server: Server, agents: ExternalAgents, body: RunAgentInput) -> Response:
    """`POST /agui` on an app serving an external agent (see the module docstring)."""
    check_ids(body)
    if body.tools:
        raise HTTPRefusal(
            422, "this server serves an agent that brings its own tools: send no client tools (`tools`)"
        )
    if body.resume:
        raise HTTPRefusal(
            422,
            "this agent's cards are asked inside the running turn, not as interrupts: answer each "
            "`notebook_tools.ask` with POST /api/tools/ack",
        )
    thread = await agents.taken_up(body.thread_id)
    if thread is not None and not thread.client_ids:  # (taken up from its store: the client's ids again)
        thread.client_ids.update(_client_ids(thread.history(), body))
    known = {m.id for m in messages_of(thread.state())} if thread is not None else set()
    answers = tool_answers(body)
    if answers is not None and any(client_id not in known for client_id, _ in answers):
        raise HTTPRefusal(
            422,
            "this agent's tool calls are answered by its cards (POST /api/tools/ack), not by tool messages",
        )
    said = None if answers is not None else new_message(body, known, server.limits)
    if said is None:
        if thread is None:
            raise HTTPRefusal(
                404, "no such thread here: start it with a run whose last message is the person's"
            )
        return _respond(server, body, thread, None, [])
    text, client_id = said
    if thread is None and any(isinstance(m, AssistantMessage | ToolMessage) for m in body.messages):
        raise HTTPRefusal(  # (a new agent would carry on as if nothing had been said)
            404,
            "this server does not hold this thread's agent (it may have restarted since): the "
            "conversation the client shows is not here; start a new thread",
        )
    thread = thread or agents.open(body.thread_id)
    run = await agents.start(thread, text, client_id)  # (409 while another turn runs)
    opening: list[BaseEvent] = []
    if run.history_before:  # the client's copy may lack what happened since: the history, then its message
        messages = [*messages_of(thread.state(run.history_before)), UserMessage(id=client_id, content=text)]
        opening += opening_snapshots(messages, {m.id for m in body.messages})
    return _respond(server, body, thread, run, opening)


def _respond(
    server: Server,
    body: RunAgentInput,
    thread: ExternalThread,
    run: ExternalRun | None,
    opening: list[BaseEvent],
) -> Response:
    secrets = (server.token,) if server.token else ()
    return sse_response(_events(body, thread, run, opening), secrets)


async def _events(
    body: RunAgentInput, thread: ExternalThread, run: ExternalRun | None, opening: list[BaseEvent]
) -> AsyncIterator[BaseEvent]:
    ids = {"thread_id": body.thread_id, "run_id": body.run_id}
    yield RunStartedEvent(**ids, protocol_version=PROTOCOL_VERSION, timestamp=now_ms())
    for event in opening:
        yield event
    before = run.usage_before if run is not None else thread.usage()
    stop_reason: str | None = None
    model = _model(thread.agent)
    if run is not None:
        history = run.history_before
        translator = Translator(history, call_ids(history), before)
        shown: dict[str, str] = {}
        async for core in run:
            for event in translator.feed(core):
                yield event
            async for event in ask_events(thread.asks, held_here, core, translator, shown):
                yield event
        for event in translator.close():
            yield event
        for event in asks_left(thread.asks, shown):
            yield event
        if run.error is not None or run.result is None:
            name = type(run.error).__name__ if run.error is not None else "CancelledError"
            message = redact(f"{name}: {run.error}")
            used = token_usage(before, thread.usage(), model)
            yield RunErrorEvent(message=message, code=name, usage=used, timestamp=now_ms())
            return
        stop_reason = run.result.stop_reason
    state = thread.state()
    status = "running" if thread.running else ("error" if stop_reason == "error" else "idle")
    asks = [ask_value(p, thread.asks.public_id(p.tool_use_id), "", None) for p in thread.open_asks()]
    yield StateSnapshotEvent(
        snapshot={
            "agentUuid": thread.id,
            "sessionId": thread.agent.session_id,
            "status": status,
            "interrupts": [],
            "pendingToolCalls": [],
            "asks": asks,
        },
        timestamp=now_ms(),
    )
    yield snapshot(state)
    outcome: Any = RunFinishedCancelledOutcome() if stop_reason == "stopped" else RunFinishedSuccessOutcome()
    result = {"status": status, **({"stopReason": stop_reason} if stop_reason else {})}
    used = token_usage(before, thread.usage(), model)
    yield RunFinishedEvent(**ids, outcome=outcome, result=result, usage=used, timestamp=now_ms())


def _client_ids(history: list[dict[str, Any]], body: RunAgentInput) -> dict[str, str]:
    """The client's ids for the person's messages of `history`, matched in order with the client's own.

    A thread taken up from its store (the server restarted) no longer knows them; the client sends its
    copy of the conversation, whose user messages before its new one are the person's, in order. When
    the two do not pair up, none are taken: the snapshot names them by the server's ids.
    """
    said = [i for i, m in enumerate(history) if m["role"] == "user" and _is_said(m["content"])]
    given = [m.id for m in body.messages if isinstance(m, UserMessage)]
    if given and len(given) == len(said) + 1:  # (the last is the new message)
        given = given[:-1]
    if len(given) != len(said):
        return {}
    return {message_id(index): the_id for index, the_id in zip(said, given, strict=True)}


def _is_said(content: Any) -> bool:
    """Whether a user message's content is the person's words (not tool results)."""
    return isinstance(content, str) or any(b.get("type") != "tool_result" for b in content)


def _model(agent: Any) -> str:
    """The model the agent uses, as far as it says (Claude Code's options name it)."""
    named = getattr(agent, "model", None) or getattr(getattr(agent, "options", None), "model", None)
    return str(named or "external")
