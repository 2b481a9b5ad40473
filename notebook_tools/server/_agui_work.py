"""What an AG-UI run does to the session: a new message, the client's tool messages, their checks.

The client's own ids are kept (`FrontView.client_ids`) before the work starts, so the snapshot that
ends the run names the person's message and the tool messages as the client holds them.
"""

from __future__ import annotations

import uuid
from typing import Any

from ag_ui.core import ToolMessage

from ..agent._agent import Agent
from ..session._state import AgentState, RunResult, ToolResult
from ..session._transitions import open_calls
from ..tools._tool import Tool
from ._agui_input import check_client_id
from ._agui_interrupts import call_ids, check_expiry, open_ids
from ._agui_messages import block_text, message_id, result_text
from ._http import HTTPRefusal
from ._leases import WORKER_LOST
from ._races import answered, lost_race

__all__ = [
    "UNANSWERED",
    "answer_calls",
    "check_tools",
    "classic",
    "fresh_reply_id",
    "given_message",
    "run_message",
    "waits_for_approvals",
]

UNANSWERED = "Not answered: the person sent a new message instead."
"""What the model is told of a client tool call left open when the person wrote again."""


def waits_for_approvals(state: AgentState) -> HTTPRefusal:
    """The 409 for a message or tool messages sent while approvals are open."""
    return HTTPRefusal(
        409,
        "the thread waits for approvals: start a run whose `resume` answers every open interrupt",
        interrupts=open_ids(state),
    )


def fresh_reply_id(state: AgentState | None) -> dict[int, str]:
    """An id for the reply to the person's next message, when the last one got none.

    Its message joins the last (the turn before was stopped, or its worker died, before a reply was
    saved), and the client still holds the part of that reply it saw, under the id of the place the
    coming reply takes: the coming one must not take that id, or the client keeps it before the
    person's message. By history index, as `Translator(reply_ids=...)` takes it.
    """
    if state is None or not state.messages or state.messages[-1]["role"] != "user":
        return {}
    index = len(state.messages)
    return {index: f"{message_id(index)}_{uuid.uuid4().hex[:8]}"}


async def run_message(agent: Agent, text: str, client_id: str, reply_ids: dict[int, str]) -> RunResult:
    """Run the person's new message, closing calls left open first (a client tool not answered)."""
    state = agent.state
    if state.pending_frontend_tools or state.queued_calls:
        agent.cancel_pending(UNANSWERED if state.pending_frontend_tools else WORKER_LOST)
        state = agent.state
    last_is_user = bool(state.messages) and state.messages[-1]["role"] == "user"
    index = len(state.messages) - 1 if last_is_user else len(state.messages)  # (the message joins it)
    ids = {message_id(index): client_id, **{message_id(i): the_id for i, the_id in reply_ids.items()}}
    agent.state = _with_client_ids(state, ids)
    return await agent.run(text)


async def answer_calls(agent: Agent, answers: list[tuple[str, ToolResult]]) -> RunResult:
    """Resume with the client's tool messages, keeping their ids."""
    agent.state = _with_client_ids(agent.state, {f"result_{r.tool_use_id}": i for i, r in answers})
    return await agent.resume([r for _, r in answers])


def _with_client_ids(state: AgentState, ids: dict[str, str]) -> AgentState:
    view = state.front_view
    kept = view.model_copy(update={"client_ids": {**view.client_ids, **ids}})
    return state.model_copy(update={"front_view": kept})


def given_message(client_id: str, result: ToolResult) -> ToolMessage:
    """A tool message the client sent, as it holds it."""
    text = result_text(result)
    error = (text or "(error)") if result.is_error else None
    return ToolMessage(id=client_id, tool_call_id=result.tool_use_id, content=text, error=error)


def classic(state: AgentState, answers: list[tuple[str, ToolResult]]) -> list[ToolResult]:
    """The client's tool messages as the answers to apply; [] when they repeat answers applied before.

    Tool messages that are the client's copies of results the server gave (under the ids the server
    gave them: a backend result streamed beside the pending calls) are dropped from `answers`; when
    nothing else is left, the thread is reported as it stands.

    Raises:
        HTTPRefusal: 409 approvals are open, or other answers were applied first (a lost race);
            422 they do not answer exactly the open frontend calls, or an id is not one a client may
            give; 410 an answer came too late.
    """
    if state.pending_approvals:
        raise waits_for_approvals(state)
    answers[:] = [(i, r) for i, r in answers if not _copy(state, i, r.tool_use_id)]
    if not answers:
        return []
    for client_id, result in answers:
        check_client_id(client_id, f"the tool message answering {result.tool_use_id!r}")
    ids = [i for i, _ in answers]
    if len(set(ids)) != len(ids):
        raise HTTPRefusal(422, "two tool messages have the same id")
    given = [r.tool_use_id for _, r in answers]
    pending = [p.tool_use_id for p in state.pending_frontend_tools]
    if sorted(given) == sorted(pending) and pending:
        check_expiry(
            state, [f"tool_call:{r.tool_use_id}" for _, r in answers if not r.is_error], by_tool_message=True
        )
        return [r for _, r in answers]
    done = call_ids(state.messages) - set(pending)
    if given and set(given) <= done and len(set(given)) == len(given):
        before = answered(state, given)
        if all(_same(before.get(r.tool_use_id), r) for _, r in answers):
            return []  # the same answers again: nothing to do, the thread is reported as it stands
        raise lost_race(state, given)
    duplicate = sorted({i for i in given if given.count(i) > 1})
    missing = [i for i in pending if i not in given]
    unknown = [i for i in given if i not in pending]
    named = "; ".join(
        f"{what}: {', '.join(ids)}"
        for what, ids in (
            ("answered more than once", duplicate),
            ("not answered", missing),
            ("not open", unknown),
        )
        if ids
    )
    raise HTTPRefusal(
        422,
        f"the tool messages must answer exactly the open tool calls, each once ({named or 'none open'}); "
        "nothing was changed",
        missing=missing,
        unknown=unknown,
        duplicate=duplicate,
    )


def _copy(state: AgentState, client_id: str, call: str) -> bool:
    """Whether a tool message is the client's copy of a result the server gave it (held or in the history)."""
    if client_id != state.front_view.client_id(f"result_{call}"):
        return False
    return call in {r.tool_use_id for r in state.held_results} or call in answered(state, [call])


def _same(block: dict[str, Any] | None, result: ToolResult) -> bool:
    """Whether the history's result `block` is `result` (a resend of the same answer)."""
    if block is None:
        return False
    return (
        block_text(block.get("content", "")) == result_text(result)
        and bool(block.get("is_error")) == result.is_error
    )


def check_tools(state: AgentState, tools: list[Tool], server_tools: set[str]) -> None:
    """Refuse a request on a paused thread that does not carry the client tools its open calls use."""
    names = {t.name for t in tools} | server_tools
    absent = sorted({c.name for c in open_calls(state)} - names)
    if absent:
        raise HTTPRefusal(422, "send the client tools of the open calls with the request", tools=absent)
