"""AG-UI 1.0: `POST /agui` takes a `RunAgentInput` and streams AG-UI events; `POST /agui/stop` stops a run.

The thread is the session: `threadId` is the `agent_uuid`, loaded from the shared store or
created on its first run. Behind the bearer token like every route. What a run does depends on
how `messages` ends (the rest is the client's copy; the stored history is authoritative):

- a `resume`: it answers the open interrupts (approvals; see `_agui_interrupts`), exactly every
  open one, or 4xx naming the ids and nothing changed; a retry of an applied resume changes
  nothing and reports the thread as it stands.
- `tool` messages answering exactly the client tool calls the last run left pending (`error`
  makes an error result); the same answers again report the thread, other answers to calls
  answered first are a lost race (409, naming the winner's answers).
- the person's new message (a user message whose id the thread does not hold): it runs. Client
  tool calls still pending are closed first ("not answered"); approvals still open refuse it
  (409: send a resume).
- nothing new: a thread whose turn did not end (its worker died mid-run) carries on; any other
  is reported as it stands (a page reloaded from scratch gets its conversation).

An app whose factory makes an external agent (`nt.ClaudeCode`, an ACP agent) serves it here too: a
turn per person's message, its permission cards and questions asked while the turn runs, as below
(`_agui_external`).

Every run can ask the person what its calls ask while they run (the kernel toolset's consent card,
an MCP server's elicitation or sampling; `Runner.start(asks=True)`): AG-UI 1.0 asks only by ending
the run, but such a call is already under way (its code ran), so the stream stays open while the
question waits, as the server's held runs do. The stream sends it as a `CUSTOM` event
`notebook_tools.ask`, the client answers with `POST /api/tools/ack`, and the same run goes on (see
`_mcp_asks`). A client that never answers leaves the run waiting until the app's `ask_timeout`
passes (the question then fails closed), Stop, or it goes away. The run's own pauses (client tool
calls, approvals) end it as before.

The client's ids are kept: its user and tool messages appear in every snapshot under the ids it
gave them, in the order it holds them (`_agui_messages`). `tools` become schema-only frontend
tools for the request (a name taken by a server tool is refused with 409); send them on every
run. Bad input is refused before the stream starts, as a JSON body naming the problem: 401
token, 404 unknown thread, 409 a race lost or the thread is busy, 410 an expired call, 413,
415, 422. The stream itself is `_agui_stream`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput, UserMessage
from pydantic import BaseModel, ConfigDict
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .._exceptions import ToolDefinitionError, ToolResultIdsError
from ..agent._agent import Agent
from ..session._state import AgentState, RunResult
from ..tools._tool import Tool
from ._agui_events import Translator
from ._agui_external import answer_external
from ._agui_input import check_ids, client_tools, new_message, tool_answers
from ._agui_interrupts import call_ids, open_ids, plan
from ._agui_messages import messages_of, opening_snapshots
from ._agui_stream import respond
from ._agui_work import (
    answer_calls,
    check_tools,
    classic,
    fresh_reply_id,
    given_message,
    run_message,
    waits_for_approvals,
)
from ._http import AnId, HTTPRefusal, read_body
from ._server import Server

__all__ = ["agui_routes"]


class StopBody(BaseModel):
    """`POST /agui/stop`: stop the run streaming on a thread, whichever worker holds it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    threadId: AnId


def agui_routes(server: Server) -> list[Route]:
    """The AG-UI routes: `POST /agui` and `POST /agui/stop`."""

    async def agui(request: Request) -> Response:
        body = await read_body(request, RunAgentInput, server.limits)
        external = server.external()
        if external is not None:  # Claude Code, an ACP agent: its turns and cards (see `_agui_external`)
            return await answer_external(server, external, body)
        return await server.runner.heard(body.thread_id, lambda: _answer(server, body))

    async def stop(request: Request) -> Response:
        body = await read_body(request, StopBody, server.limits)
        external = server.external()
        if external is not None:
            return JSONResponse(await external.stop(body.threadId))
        return JSONResponse(await server.runner.stop(body.threadId))

    return [
        Route("/agui", server.guarded(agui), methods=["POST"]),
        Route("/agui/stop", server.guarded(stop), methods=["POST"]),
    ]


async def _answer(server: Server, body: RunAgentInput) -> Response:
    check_ids(body)
    tools = client_tools(body)
    thread = body.thread_id
    stored = server.runner.store.load(thread)
    if body.resume or (body.resume is not None and stored is not None and open_ids(stored)):
        return await _resume(server, body, stored, tools)  # (an empty resume of open interrupts: 422)
    answers = tool_answers(body)
    known = {m.id for m in messages_of(stored)} if stored is not None else set()
    said = None if answers is not None else new_message(body, known, server.limits)
    if said is not None:
        if stored is not None and stored.pending_approvals:
            raise waits_for_approvals(stored)
        agent = _agent(server, thread, tools, create=True)
        text, client_id = said
        opening = [*messages_of(agent.state), UserMessage(id=client_id, content=text)]
        replies = fresh_reply_id(stored)
        work = lambda: run_message(agent, text, client_id, replies)  # noqa: E731
        return await _start(server, body, agent, work, opening, reply_ids=replies)
    if stored is None and body.messages:
        raise HTTPRefusal(
            422, "the last message must be the person's new message (role 'user') to start a thread"
        )
    if stored is None:
        raise HTTPRefusal(404, "no such thread: start it with a run whose last message is the person's")
    check_tools(stored, tools, set(server.runner.make_agent().tools))
    agent = _agent(server, thread, tools, create=False)
    if answers is not None and classic(agent.state, answers):
        opening = messages_of(agent.state) + [given_message(i, r) for i, r in answers]
        given = [r.tool_use_id for _, r in answers]
        return await _start(server, body, agent, lambda: answer_calls(agent, answers), opening, given)
    if answers is None and await server.runner.stranded(agent.state):  # its worker died mid-run
        return await _start(server, body, agent, agent.continue_turn, messages_of(agent.state))
    return respond(server, body, agent, None, Translator(agent.state.messages))


async def _resume(
    server: Server, body: RunAgentInput, stored: AgentState | None, tools: list[Tool]
) -> Response:
    """A run whose `resume` answers the open interrupts."""
    if stored is None:
        raise HTTPRefusal(404, "no such thread (a resume needs a thread with open interrupts)")
    check_tools(stored, tools, set(server.runner.make_agent().tools))
    agent = _agent(server, body.thread_id, tools, create=False)
    decided = plan(agent.state, body.resume or [])
    if decided.replay:
        return respond(server, body, agent, None, Translator(agent.state.messages))
    items = decided.items
    return await _start(server, body, agent, lambda: agent.resume(items), messages_of(agent.state))


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
    opening: list[Any],
    given: list[str] | None = None,
    *,
    reply_ids: dict[int, str] | None = None,
) -> Response:
    """Start `work`; its stream opens with the messages as the client holds them (when there are any)."""
    history = list(agent.state.messages)
    usage = agent.state.usage.model_copy()
    try:
        run = await server.runner.start(agent, work, asks=True)  # (its calls may ask the person)
    except ToolResultIdsError:  # the session moved on between our check and the resume
        raise HTTPRefusal(409, "another request changed this thread first; nothing was changed") from None
    translator = Translator(history, call_ids(history), usage, given or [], reply_ids)
    first: list[BaseEvent] = opening_snapshots(opening, {m.id for m in body.messages}) if history else []
    return respond(server, body, agent, run, translator, opening=first)
