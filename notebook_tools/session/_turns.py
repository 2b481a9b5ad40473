"""Transitions of a turn as a whole: its start, a refused turn set aside, a cut-off reply carried on.

Like `_transitions`, each takes a state and returns a new, checked one (the history stays one the
Messages API accepts); nothing here awaits or writes.
"""

from __future__ import annotations

from typing import Any

from .._exceptions import AgentBusyError
from ..api._assistant_blocks import without_unpaired
from ._state import AgentState, SetAside, Usage
from ._transitions import check_invariant, open_call_ids

__all__ = ["CONTINUE_NOTE", "add_continue_note", "end_pause", "set_aside_turn", "start_turn"]

CONTINUE_NOTE = (
    "[Your previous reply was cut off by the {limit} limit. Continue exactly where it stopped; "
    "if a tool call was cut off, make it again.]"
)


def start_turn(state: AgentState, options: dict[str, Any]) -> AgentState:
    """The person's message (the last one, maybe joined to what a failed request left) starts a turn."""
    start = len(state.messages) - 1
    update = {"turn_options": options, "turn_start": start, "turn_usage": Usage(), "continuation": None}
    return check_invariant(state.model_copy(update=update))


def set_aside_turn(
    state: AgentState, reply: list[dict[str, Any]], stop_reason: str, stop_details: dict[str, Any] | None
) -> AgentState:
    """Take the refused turn out of the history: back to before the person's message.

    The refusal docs: the context must be reset before continuing (the refused prompt may not stay
    as the last user message, where the next message would join it). Tool results at the start of
    that message answer the reply before it and stay; the person's text goes with the turn.
    `reply` (what the refusing response said, if anything) is kept with the exchange set aside.
    """
    start = state.turn_start
    if start is None or start >= len(state.messages) or state.messages[start]["role"] != "user":
        users = [i for i, m in enumerate(state.messages) if m["role"] == "user"]
        start = users[-1] if users else len(state.messages)
    kept, removed = list(state.messages[:start]), list(state.messages[start:])
    if removed:
        first = removed[0]["content"]
        results = [b for b in first if b.get("type") == "tool_result"] if isinstance(first, list) else []
        if results:
            kept.append({"role": "user", "content": results})
            rest = [b for b in first if b.get("type") != "tool_result"]
            removed[0] = {"role": "user", "content": rest}
    if reply:
        removed.append({"role": "assistant", "content": reply})
    record = SetAside(messages=removed, stop_reason=stop_reason, stop_details=stop_details)
    update = {
        "messages": kept,
        "set_aside": [*state.set_aside, record],
        "turn_start": len(kept),  # the turn has no message left: its result has no text
        "continuation": None,
    }
    return check_invariant(state.model_copy(update=update))


def add_continue_note(state: AgentState, limit: str) -> AgentState:
    """Ask the model to carry on a reply cut off by `limit` ("max_tokens", the context window).

    The note is a user text: a new message after the cut-off reply, or the end of the message that
    answered its (not run) calls.

    Raises:
        AgentBusyError: calls are still open.
    """
    if still_open := open_call_ids(state):
        raise AgentBusyError(f"tool calls are still open ({', '.join(still_open)})")
    note = {"type": "text", "text": CONTINUE_NOTE.format(limit=limit)}
    messages = list(state.messages)
    if messages and messages[-1]["role"] == "user":
        last = messages[-1]["content"]
        earlier = [{"type": "text", "text": last}] if isinstance(last, str) else list(last)
        messages[-1] = {"role": "user", "content": [*earlier, note]}
    else:
        messages.append({"role": "user", "content": [note]})
    return check_invariant(state.model_copy(update={"messages": messages, "continuation": None}))


def end_pause(state: AgentState) -> AgentState:
    """Give up a paused server-tool turn so a message can follow it: its calls still without results go.

    A user message may not follow a server call without its result (the API refuses it); the person
    wrote instead of continuing, so what the paused turn said stays and its unfinished calls are dropped.
    """
    if state.continuation != "pause_turn":
        return state
    messages = list(state.messages)
    if messages and messages[-1]["role"] == "assistant":
        content = without_unpaired(messages.pop()["content"])
        messages += [{"role": "assistant", "content": content}] if content else []
    return check_invariant(state.model_copy(update={"messages": messages, "continuation": None}))
