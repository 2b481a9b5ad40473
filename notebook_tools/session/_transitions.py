"""The session's state transitions: the one owner of "every tool_use gets one tool_result".

Each function takes an `AgentState` and returns a NEW state (the input is never
changed), or raises and leaves nothing changed. Each ends by checking the
invariant: the history is one the Messages API accepts (up to the open calls of
its last assistant message), and the open calls are exactly the ids held in the
pending lists, each in one list. The `Agent` does the I/O around them
(requests, tools, saving, events); nothing here awaits or writes.

The life of one assistant message's calls::

    reply ──► held_results       (refused, unknown, blocked: answered at once)
          ├─► queued_calls ─────► held_results          (record_result, after the tool ran)
          ├─► pending_frontend_tools ─► held_results    (answer)
          └─► pending_approvals ─► queued / pending frontend / held (decide)
    when nothing is open any more: ONE user message with every result, in call order.
    interrupt: every open call gets an error result, the same way.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .._exceptions import AgentBusyError, SessionInvariantError
from ..api._accumulate import fold_blank_text
from ..api._assistant_blocks import (
    SERVER_CALLS,
    awaiting_server_calls,
    is_server_result,
    without_calls,
    without_unpaired,
)
from ..api._prices import context_tokens_of
from ..api._rules import history_errors
from ..tools._approvals import PendingApproval, RememberedApproval
from ..tools._toolset_state import ToolsetState
from ._state import AgentState, PendingFrontendTool, QueuedCall, ToolResult

__all__ = [
    "INTERRUPTED_ANSWER",
    "INTERRUPTED_RUN",
    "RESET_NOTE",
    "Decided",
    "Plan",
    "add_assistant_reply",
    "add_manual_note",
    "add_user_message",
    "answer",
    "check_invariant",
    "decide",
    "interrupt",
    "is_manual_note",
    "open_call_ids",
    "open_calls",
    "record_result",
    "set_toolset",
]

INTERRUPTED_ANSWER = "Interrupted by the user before answering."
INTERRUPTED_RUN = "Interrupted by the user before this call finished."

Plan = ToolResult | QueuedCall | PendingFrontendTool | PendingApproval
"""What happens to one call of a reply: answered at once, run, asked of a person, or approved first."""


@dataclass(frozen=True)
class Decided:
    """One approval decision, resolved by the agent into what happens to the call."""

    tool_use_id: str
    outcome: ToolResult | QueuedCall | PendingFrontendTool
    """A denial (error result), an approved backend call, or an approved frontend call."""
    remember: RememberedApproval | None = None


def open_call_ids(state: AgentState) -> list[str]:
    """Ids of every call of the last assistant message that has no result in the history yet."""
    return history_errors(state.messages)[1]


def check_invariant(state: AgentState) -> AgentState:
    """Return `state` if it is valid at rest; raise `SessionInvariantError` otherwise."""
    errors, open_ids = history_errors(state.messages)
    problems = list(errors)
    lists: dict[str, Sequence[Any]] = {
        "held_results": state.held_results,
        "queued_calls": state.queued_calls,
        "pending_frontend_tools": state.pending_frontend_tools,
        "pending_approvals": state.pending_approvals,
        "deferred_frontend_tools": state.deferred_frontend_tools,
    }
    tracked = [item.tool_use_id for items in lists.values() for item in items]
    if len(tracked) != len(set(tracked)):
        problems.append(f"a call is tracked twice: {sorted(tracked)}")
    if set(tracked) != set(open_ids):
        problems.append(f"open calls {sorted(open_ids)} but tracked {sorted(tracked)}")
    if open_ids and not (state.queued_calls or state.pending_frontend_tools or state.pending_approvals):
        problems.append("every open call has a result, but the results message was not added")
    if state.deferred_frontend_tools and not state.pending_approvals:
        problems.append("frontend calls are deferred with no approval pending")
    if state.pending_frontend_tools and state.pending_approvals:
        problems.append("frontend calls and approvals are pending at once")
    if problems:
        raise SessionInvariantError(state.agent_uuid, problems)
    return state


def _with(state: AgentState, **changes: Any) -> AgentState:
    """A checked copy of `state` with `changes` (lists are replaced, never shared mutably)."""
    return check_invariant(state.model_copy(update=changes))


def _close_if_done(state: AgentState, **changes: Any) -> AgentState:
    """Apply `changes`; when no call is open any more, add the one results message."""
    draft = state.model_copy(update=changes)
    if draft.held_results and not (
        draft.queued_calls or draft.pending_frontend_tools or draft.pending_approvals
    ):
        message = draft.tool_results_message(list(draft.held_results))
        view = draft.front_view.arrived(len(draft.messages), draft.held_results, draft.last_tool_use_ids())
        changes = {"messages": [*draft.messages, message], "held_results": [], "deferred_frontend_tools": []}
        draft = draft.model_copy(update={**changes, "front_view": view})
    return check_invariant(draft)


def add_user_message(state: AgentState, blocks: list[dict[str, Any]]) -> AgentState:
    """Add the person's message (with notes of tools they ran by hand), keeping roles alternating.

    Raises:
        AgentBusyError: calls of the last reply are still open.
    """
    if still_open := open_call_ids(state):
        raise AgentBusyError(
            f"tool calls are still open ({', '.join(still_open)}); answer them with resume(), "
            "carry on with continue_turn(), or cancel them with cancel_pending()"
        )
    if state.manual_notes:
        blocks = [{"type": "text", "text": "\n".join(state.manual_notes)}, *blocks]
    messages = list(state.messages)
    if messages and messages[-1]["role"] == "user":
        # The previous request failed (or the reply was empty) after this message was added: extend it.
        last = messages[-1]["content"]
        earlier = [{"type": "text", "text": last}] if isinstance(last, str) else list(last)
        messages[-1] = {"role": "user", "content": [*earlier, *blocks]}
    else:
        messages.append({"role": "user", "content": blocks})
    return _with(state, messages=messages, manual_notes=[])


def add_assistant_reply(
    state: AgentState,
    content: list[dict[str, Any]],
    plans: Sequence[Plan],
    usage: Any = None,
    *,
    cost: float | None = None,
    stop_reason: str | None = None,
) -> AgentState:
    """Add the model's reply and what happens to each of its calls (`plans`, in call order).

    An empty reply (no block, or only empty text) is not added: the history keeps ending with
    the user's message, which the next message joins. The reply to a paused turn (`continuation`
    "pause_turn") continues the same assistant message: its blocks join that message's.
    """
    content = fold_blank_text(content)
    session, turn = state.usage.model_copy(), state.turn_usage.model_copy()
    changes: dict[str, Any] = {}
    if usage is not None:
        session.add(usage, cost)
        turn.add(usage, cost)
        data = usage if isinstance(usage, dict) else usage.model_dump(exclude_none=True)
        changes["context_tokens"] = context_tokens_of(data)
    changes.update(usage=session, turn_usage=turn)
    if stop_reason is not None:
        changes["continuation"] = stop_reason if stop_reason in _CONTINUABLE else None
    ids = [b["id"] for b in content if b.get("type") == "tool_use"]
    if [p.tool_use_id for p in plans] != ids:
        raise SessionInvariantError(state.agent_uuid, [f"plans {plans!r} do not match the calls {ids}"])
    messages = list(state.messages)
    if state.continuation == "pause_turn" and messages and messages[-1]["role"] == "assistant":
        content = [*messages.pop()["content"], *content]
    # A server result whose call is nowhere (a continuation answering a call the person's message had
    # given up) would make the history one the API refuses: it is not kept.
    called = set(awaiting_server_calls(messages)) | {
        b.get("id") for b in content if isinstance(b, dict) and b.get("type") in SERVER_CALLS
    }
    content = [
        b for b in content if not (is_server_result(b.get("type")) and b.get("tool_use_id") not in called)
    ]
    if changes.get("continuation", state.continuation) != "pause_turn":
        # A server call left for the next response (its message stopped for client calls) stays as
        # returned; one the reply did not complete, with no client call going on, never ran: it goes,
        # and so does a server call of this reply cut off without its result.
        earlier = awaiting_server_calls(messages)
        if earlier and not ids:
            done = {b.get("tool_use_id") for b in content if isinstance(b, dict)}
            messages = without_calls(messages, {i: at for i, at in earlier.items() if i not in done})
        if not ids:
            content = without_unpaired(content)
    if not content:
        return _with(state, messages=messages, **changes)
    messages.append({"role": "assistant", "content": content})
    return _close_if_done(
        state,
        messages=messages,
        **changes,
        held_results=[p for p in plans if isinstance(p, ToolResult)],
        queued_calls=[p for p in plans if isinstance(p, QueuedCall)],
        pending_approvals=[p for p in plans if isinstance(p, PendingApproval)],
        # With approvals pending, the reply's frontend calls open only once they are decided.
        **{
            "deferred_frontend_tools"
            if any(isinstance(p, PendingApproval) for p in plans)
            else "pending_frontend_tools": [p for p in plans if isinstance(p, PendingFrontendTool)]
        },
    )


_CONTINUABLE = ("pause_turn", "max_tokens", "model_context_window_exceeded")


def record_result(state: AgentState, result: ToolResult) -> AgentState:
    """A queued backend call finished (or failed): hold its result."""
    if result.tool_use_id not in {q.tool_use_id for q in state.queued_calls}:
        raise SessionInvariantError(state.agent_uuid, [f"{result.tool_use_id!r} is not a queued call"])
    return _close_if_done(
        state,
        queued_calls=[q for q in state.queued_calls if q.tool_use_id != result.tool_use_id],
        held_results=[*state.held_results, result],
    )


def answer(state: AgentState, results: Iterable[ToolResult]) -> AgentState:
    """Answers to some or all pending frontend calls (checked by the caller: `_checks.check_results`)."""
    given = {r.tool_use_id: r for r in results}
    pending = {p.tool_use_id for p in state.pending_frontend_tools}
    if not set(given) <= pending:
        raise SessionInvariantError(state.agent_uuid, [f"answers for calls not pending: {sorted(given)}"])
    return _close_if_done(
        state,
        pending_frontend_tools=[p for p in state.pending_frontend_tools if p.tool_use_id not in given],
        held_results=[*state.held_results, *given.values()],
    )


def decide(state: AgentState, decided: Iterable[Decided]) -> AgentState:
    """Decisions on some or all pending approvals; once all are decided, the deferred calls open."""
    decided = list(decided)
    by_id = {d.tool_use_id: d for d in decided}
    pending = {p.tool_use_id for p in state.pending_approvals}
    if not set(by_id) <= pending or len(by_id) != len(decided):
        raise SessionInvariantError(state.agent_uuid, [f"decisions for calls not pending: {sorted(by_id)}"])
    approvals = [p for p in state.pending_approvals if p.tool_use_id not in by_id]
    outcomes = [d.outcome for d in decided]
    frontend = [o for o in outcomes if isinstance(o, PendingFrontendTool)]
    deferred = [*state.deferred_frontend_tools, *frontend]
    remembered = [d.remember for d in decided if d.remember is not None]
    return _close_if_done(
        state,
        pending_approvals=approvals,
        held_results=[*state.held_results, *(o for o in outcomes if isinstance(o, ToolResult))],
        queued_calls=[*state.queued_calls, *(o for o in outcomes if isinstance(o, QueuedCall))],
        deferred_frontend_tools=deferred if approvals else [],
        pending_frontend_tools=[] if approvals else deferred,
        approvals=[*state.approvals, *remembered],
    )


MANUAL_NOTE_PREFIX = "[The user ran the tool "
"""How a note of a tool run by hand begins (front ends show the run, not the note)."""
PLUGIN_NOTE_PREFIXES = ("[The user expanded the plugin ", "[The user collapsed the plugin ")
"""How a note of a plugin expanded or collapsed by hand begins."""


RESET_NOTE = "[The tool set was reset: every plugin is back to how it starts; call a plugin to expand it.]"
"""The note the model gets after `reset_toolset()`."""


def is_manual_note(text: str) -> bool:
    """Whether a user-message text block is the agent's note of something the person did by hand."""
    return text.startswith((MANUAL_NOTE_PREFIX, *PLUGIN_NOTE_PREFIXES, RESET_NOTE))


def set_toolset(state: AgentState, toolset: ToolsetState) -> AgentState:
    """The session's tool set changed (a plugin expanded, a tool hidden, ...): from the next request on."""
    return state if toolset == state.toolset else _with(state, toolset=toolset)


def add_manual_note(state: AgentState, note: str) -> AgentState:
    """Remember that the person ran a tool by hand; the model hears of it with the next message."""
    return _with(state, manual_notes=[*state.manual_notes, note])


def open_calls(state: AgentState) -> list[QueuedCall | PendingFrontendTool | PendingApproval]:
    """Every call of the last reply without a result: queued, pending, awaiting approval or deferred.

    The invariant says these are exactly the open calls, so nothing needs to scan the history.
    """
    return [
        *state.queued_calls,
        *state.pending_frontend_tools,
        *state.pending_approvals,
        *state.deferred_frontend_tools,
    ]


def interrupt(
    state: AgentState,
    *,
    unanswered: str = INTERRUPTED_ANSWER,
    running: str = INTERRUPTED_RUN,
    only: Collection[str] | None = None,
) -> AgentState:
    """Close every open call (or those in `only`) with an error result.

    `running` for calls that ran, else `unanswered`. A session with nothing to close is returned
    unchanged.
    """
    queued = {q.tool_use_id for q in state.queued_calls}
    waiting = [c.tool_use_id for c in open_calls(state) if only is None or c.tool_use_id in only]
    if not waiting:
        return state
    closing = set(waiting)
    closed = [
        ToolResult(tool_use_id=i, content=running if i in queued else unanswered, is_error=True)
        for i in waiting
    ]
    approvals = [p for p in state.pending_approvals if p.tool_use_id not in closing]
    deferred = [p for p in state.deferred_frontend_tools if p.tool_use_id not in closing]
    pending = [p for p in state.pending_frontend_tools if p.tool_use_id not in closing]
    if not approvals:  # the deferred frontend calls open once no approval is left
        pending, deferred = [*pending, *deferred], []
    return _close_if_done(
        state,
        held_results=[*state.held_results, *closed],
        queued_calls=[q for q in state.queued_calls if q.tool_use_id not in closing],
        pending_frontend_tools=pending,
        pending_approvals=approvals,
        deferred_frontend_tools=deferred,
    )
